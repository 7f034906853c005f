/* httpcheck.h - pure: what the HTTP client checks and says (server URLs, request shapes, answers' messages, the token kept out of them). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define HTTPCHECK_URL_MAX 2048u

/**
 * httpcheck_server() - validate an API server URL: https only, a host (DNS name, IPv4, or
 * [IPv6]), an optional port, an optional path prefix; no user info, query, fragment, space or
 * control characters.
 * Return: the length without trailing slashes; -EINVAL with @err (@errlen bytes) saying what is wrong.
 */
int httpcheck_server(const char *url, char *err, size_t errlen);

/* Whether @m is a method the client sends (GET POST PUT PATCH DELETE, upper case). */
bool httpcheck_method(const char *m);

/* Whether @s is visible ASCII (spaces too with @allow_space) and shorter than @max: fit for a request line or header. */
bool httpcheck_text(const char *s, size_t max, bool allow_space);

/*
 * httpcheck_status_error() - "METHOD PATH: HTTP 410 Gone: <the Status message>" into @buf (@size
 * bytes), controls replaced by spaces. The caller scrubs the token from it.
 */
void httpcheck_status_error(char *buf, size_t size, const char *method, const char *path, long status,
			    const char *body, size_t len);

/* Mask every occurrence of @token (@token_len bytes) in @s, in place ("[token]"; @s never grows). */
void httpcheck_scrub(char *s, const char *token, size_t token_len);
