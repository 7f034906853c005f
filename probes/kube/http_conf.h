/* http_conf.h - inside the libcurl adapter: the client, libcurl's functions, and what requests and streams share. */
#pragma once

/*
 * Only the adapter's files include this header (http.c, http_stream.c, http_conf.c): the rest of
 * the program sees http.h, which names no libcurl type.
 *
 * libcurl is dlopen'd, so its functions are called through the table http_curl, by HTTP_CURL(f).
 * libcurl's compile-time type checks (typecheck-gcc.h, on curl_easy_setopt() and the like) work
 * on its real names: `make` compiles the adapter once more with HTTP_CURL_TYPECHECK, where
 * HTTP_CURL(f) is curl_f, to check every option's type, and throws that object away.
 */
#ifdef HTTP_CURL_TYPECHECK
#define HTTP_CURL(f) curl_##f
#else
#define CURL_DISABLE_TYPECHECK
#define HTTP_CURL(f) http_curl.f
#endif
#include <curl/curl.h>

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/kube/apicount.h"
#include "probes/kube/retry.h"
#include "probes/kube/token.h"
#include "probes/model/strbuf.h"

#define HTTP_PATH_MAX           4096u
#define HTTP_CTYPE_MAX          128u

struct http_stream;

struct http_client {
	CURL *easy;                     /* requests; reused: its connection cache keeps the TLS session alive */
	char *server;                   /* "https://host[:port][/prefix]", no trailing '/' */
	char *ca_file;
	unsigned connect_timeout_ms;
	unsigned timeout_ms;
	unsigned max_attempts;
	unsigned max_total_ms;

	struct token tok;               /* the bearer token and its file */

	uint64_t rng;                   /* retry_random()'s state: jitter */
	volatile sig_atomic_t cancel;

	/* The body of the request in progress (http.c). */
	struct strbuf body;
	bool too_big;
	char curl_err[CURL_ERROR_SIZE];

	/* Streams on the multi handle, made on the first http_stream_open() (http_stream.c). */
	CURLM *multi;
	struct http_stream *streams;    /* every open stream, newest first */
	struct pollfd *socks;           /* the sockets libcurl wants watched */
	size_t nsocks, capsocks;
	uint64_t timer_at;              /* libcurl's timeout, when timer_set */
	bool timer_set;
	unsigned dispatching;           /* inside http_streams_drive(): closing defers the free */
	void (*streams_release)(struct http_client *c);  /* set with the multi handle: frees it with the client */

	struct apicount counts;         /* every attempt: a request's when it ended, a stream's when its answer began */
};

/* The libcurl functions the adapter calls, resolved by http_conf_global_ref(). */
struct http_curl_table {
	__typeof__(curl_global_init) *global_init;
	__typeof__(curl_global_cleanup) *global_cleanup;
	__typeof__(curl_easy_init) *easy_init;
	__typeof__(curl_easy_cleanup) *easy_cleanup;
	__typeof__(curl_easy_setopt) *easy_setopt;
	__typeof__(curl_easy_perform) *easy_perform;
	__typeof__(curl_easy_getinfo) *easy_getinfo;
	__typeof__(curl_easy_strerror) *easy_strerror;
	__typeof__(curl_slist_append) *slist_append;
	__typeof__(curl_slist_free_all) *slist_free_all;
	__typeof__(curl_easy_duphandle) *easy_duphandle;
	__typeof__(curl_easy_pause) *easy_pause;
	__typeof__(curl_multi_init) *multi_init;
	__typeof__(curl_multi_cleanup) *multi_cleanup;
	__typeof__(curl_multi_setopt) *multi_setopt;
	__typeof__(curl_multi_add_handle) *multi_add_handle;
	__typeof__(curl_multi_remove_handle) *multi_remove_handle;
	__typeof__(curl_multi_socket_action) *multi_socket_action;
	__typeof__(curl_multi_info_read) *multi_info_read;
};
extern struct http_curl_table http_curl;

/*
 * http_conf_global_ref() - libcurl loaded (once, never unloaded) and initialised while any client
 * lives. Return: 0; -ELIBACC when libcurl.so.4 or one of its functions is missing; -ENOMEM; @err says why.
 */
int http_conf_global_ref(char *err, size_t errlen);
/* The last client gone: curl_global_cleanup() (valgrind clean). */
void http_conf_global_unref(void);

/* The in-cluster server from KUBERNETES_SERVICE_HOST/_PORT (malloc'd); -ENOENT outside a cluster, -EINVAL. */
int http_conf_server_from_env(char **ret, char *err, size_t errlen);

/*
 * The options of c->easy that never change: TLS verified (1.2+, the CA file), https only, no proxy,
 * timeouts, User-Agent; the body to @write_cb (at most @body_max bytes), @xferinfo_cb to cancel
 * (both called with @c). Streams start from a copy of it.
 */
int http_conf_easy_setup(struct http_client *c, curl_write_callback write_cb, curl_xferinfo_callback xferinfo_cb,
			 size_t body_max);

/* The request headers: the bearer token, Accept, @content_type (NULL: none). NULL on OOM. */
struct curl_slist *http_conf_headers(const struct http_client *c, const char *content_type);
/* Free headers made by http_conf_headers(), the token wiped first. NULL is fine. */
void http_conf_headers_free(struct curl_slist *l);

/* The token, re-read when its file changed (or always with @force). Return: 0, or -errno with @msg saying why. */
int http_conf_token(struct http_client *c, bool force, char *msg, size_t msglen);

/* Format a message into @buf: control bytes become spaces, the token is masked. */
void http_conf_msg(const struct http_client *c, char *buf, size_t size, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A non-2xx answer's message: "METHOD PATH: HTTP 404 Not Found: <the Status's message>", token masked. */
void http_conf_status_msg(const struct http_client *c, char *buf, size_t size, const char *method, const char *path,
			  long status, const char *body, size_t len);
/* A transfer that failed with @cc: "METHOD SERVER/PATH: <libcurl's error>", token masked. */
void http_conf_transport_msg(const struct http_client *c, char *buf, size_t size, const char *method,
			     const char *path, CURLcode cc, const char *curl_err);
/* Append " (after N attempts)" when @attempts > 1. */
void http_conf_attempts_msg(char *buf, size_t size, unsigned attempts);

/* Whether a transfer that failed with @cc is worth another attempt (connect, timeout, reset, TLS connect, HTTP/2). */
bool http_conf_retryable(CURLcode cc);

/*
 * http_conf_errno() - @cc of a transfer on @easy as -errno: -ETIMEDOUT, -ECONNREFUSED,
 * -EHOSTUNREACH, -ENETUNREACH, -ECONNRESET, -EPROTO (TLS), -EFBIG, -EINTR (cancelled), -EIO;
 * a write callback's refusal is @write_err (0: -ENOMEM).
 */
int http_conf_errno(const struct http_client *c, CURL *easy, CURLcode cc, int write_err);

/* The answer's Retry-After in seconds (libcurl parses seconds and dates), capped at RETRY_AFTER_MAX_S; 0 none. */
unsigned http_conf_retry_after(CURL *easy);

/* One call's attempts, a request's or a stream's: the one retry policy of the client. */
struct http_conf_try {
	uint64_t start_ms;
	unsigned attempts;              /* requests sent */
	unsigned limit;                 /* attempts allowed (a 401's retry adds one) */
	unsigned max_total_ms;          /* attempts and waits */
	bool reauth;                    /* re-read the token before the next attempt */
	bool reauthed;                  /* the 401's one retry is spent */
	struct retry_backoff backoff;   /* the waits between its attempts (jitter drawn from the client's) */
};

enum http_conf_next {
	HTTP_CONF_STOP,                 /* not worth another attempt, or none left */
	HTTP_CONF_NOW,                  /* a 401: again at once, the token re-read */
	HTTP_CONF_WAIT,                 /* again after *ret_wait ms */
	HTTP_CONF_OVER,                 /* the wait (*ret_wait) would pass the budget: stop */
};

void http_conf_try_start(struct http_conf_try *t, const struct http_client *c, unsigned max_attempts,
			 unsigned max_total_ms);

/*
 * http_conf_retry() - after a failed attempt that got @status (0: no answer) and was @retryable,
 * with the answer's @retry_after_s: a 401 is tried again once at once with the token re-read;
 * a retryable failure after full-jitter backoff plus Retry-After, within the attempts and the budget.
 */
enum http_conf_next http_conf_retry(struct http_client *c, struct http_conf_try *t, long status, bool retryable,
				    unsigned retry_after_s, uint64_t *ret_wait);
