/* http.h - the HTTP client for the Kubernetes API (the only face of libcurl). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define HTTP_BODY_MAX (8u << 20)        /* response bodies larger than this are refused */

struct http_client;                     /* opaque */

struct http_config {
	const char *server;             /* "https://host:port"; NULL: in-cluster from the environment */
	const char *token_file;         /* NULL: /var/run/secrets/kubernetes.io/serviceaccount/token */
	const char *ca_file;            /* NULL: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt */
	unsigned connect_timeout_ms;    /* 0: 5,000 */
	unsigned timeout_ms;            /* whole request; 0: 15,000 */
	unsigned max_attempts;          /* per call, for 429/5xx/network errors; 0: 4 */
	unsigned max_total_ms;          /* all attempts and waits of one call; 0: 45,000 */
};

struct http_response {
	long status;                    /* HTTP status; 0 when no response arrived */
	char *body;                     /* NUL-terminated, owned; NULL when none */
	size_t len;
	unsigned attempts;              /* requests sent for this call */
	unsigned retry_after_s;         /* last Retry-After seen (0 none) */
	char error[256];                /* transport or HTTP error, never containing the token */
};

/**
 * http_client_new() - set up a client. Resolves in-cluster defaults when fields are NULL.
 * Return: 0; -ENOENT when no API server is configured (nothing to contact: no in-cluster
 * environment and no --api-server); -EINVAL for a malformed server URL (only https:// is
 * accepted) or an incomplete in-cluster environment (KUBERNETES_SERVICE_HOST without a valid
 * KUBERNETES_SERVICE_PORT: refused, as client-go does, never assumed 443); -ELIBACC when libcurl.so.4 cannot be loaded (it is dlopen'd on the first client,
 * so runs that never use the API never load it); -ENOMEM. On error, @err (when not NULL,
 * @errlen bytes) says why.
 */
int http_client_new(const struct http_config *cfg, struct http_client **ret, char *err, size_t errlen);

void http_client_free(struct http_client *c);

/**
 * http_request() - one API call with retries: GET/PATCH/... @path (starting with '/',
 * query included) with an optional body and content type. Re-reads the token file when it
 * changed and once after a 401; backs off exponentially with jitter on 429, 5xx and network
 * errors, honouring Retry-After, within max_attempts/max_total_ms. TLS is always verified.
 * @resp: filled in every case (free with http_response_free()).
 *
 * Return: 0 when a response with status 2xx arrived; -EIO for any other status (resp->status
 * says which); -ETIMEDOUT, -ECONNREFUSED, -EHOSTUNREACH, -ENETUNREACH or -ECONNRESET for
 * transport failures; -EPROTO for TLS or certificate failures (never retried); token-file
 * errors before anything is sent (-ENOENT/-EACCES unreadable, -EINVAL empty or malformed);
 * -EFBIG for a body over HTTP_BODY_MAX; -EINTR when http_cancel() was called; -ENOMEM.
 */
int http_request(struct http_client *c, const char *method, const char *path,
		 const char *content_type, const char *body, struct http_response *resp);

void http_response_free(struct http_response *r);

/* Ask any request in flight (or the next) to stop early; safe from a signal handler. */
void http_cancel(struct http_client *c);
