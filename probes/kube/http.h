/* http.h - the HTTP client for the Kubernetes API (the only face of libcurl). */
#pragma once

#include <poll.h>
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

struct apicount;
/*
 * The requests @c made, by verb, resource and status: each attempt, a request's once it ended, a
 * stream's once its answer began (or it ended without one).
 */
const struct apicount *http_client_counts(const struct http_client *c);

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

/*
 * Streams: requests that never block the caller, several at once on one client (libcurl's multi
 * interface), for watches (the body delivered line by line), for lists a loop must not wait on
 * (the whole body at the end), and for the daemon's writes (a PATCH or POST with a body, its
 * answer at the end). The caller polls the sockets:
 *
 *   n = http_streams_pollfds(c, fds, max);      (after its own fds; again before every poll)
 *   poll(fds, n, min(its timeout, http_streams_timeout(c)));
 *   http_streams_drive(c, fds, n);              (callbacks run here, never elsewhere)
 *
 * Establishing a stream follows http_request()'s policy: the token file re-read when it changed
 * and once after a 401, 429/5xx/transport errors retried with jittered exponential backoff
 * honouring Retry-After, within max_attempts and max_total_ms; the waits are timers, not sleeps.
 * Once a 2xx answer arrived nothing is retried: the end is reported (a 410 too, for the caller
 * to relist). http_cancel() ends the streams too (-EINTR), without consuming the cancellation.
 */
#define HTTP_STREAM_LINE_MAX (8u << 20)         /* default limit on one line (one watch event) */

struct http_stream;                     /* opaque */

enum http_stream_mode {
	HTTP_STREAM_LINES,              /* a watch: each line of a 2xx body, as it arrives */
	HTTP_STREAM_WHOLE,              /* a list: the whole 2xx body (at most HTTP_BODY_MAX) at the end */
};

struct http_stream_config {
	enum http_stream_mode mode;
	const char *method;             /* WHOLE only: "PATCH", "POST", ...; NULL: GET */
	const char *content_type;       /* ... of @body (NULL: none) */
	const char *body;               /* ... sent with it (copied; NULL: none, GET) */
	size_t line_max;                /* LINES: longest line (one object); 0: HTTP_STREAM_LINE_MAX */
	unsigned timeout_ms;            /* the whole transfer of one attempt (with max_total_ms given: at
					   most what is left of it); 0: none (a watch ends itself) */
	unsigned idle_s;                /* no byte for this many seconds ends it (-ETIMEDOUT); 0: never */
	unsigned max_attempts;          /* establishing; 0: the client's */
	unsigned max_total_ms;          /* establishing, waits included; 0: the client's */
};

struct http_stream_end {
	long status;                    /* HTTP status of the last attempt; 0 when no answer came */
	int err;                        /* 0: a 2xx body that ended cleanly; else as http_request() (-EIO for a
					   non-2xx status), -EMSGSIZE for a line over line_max, -ECONNRESET for
					   a body that stopped inside a line */
	unsigned attempts;              /* requests sent */
	unsigned retry_after_s;         /* last Retry-After seen (capped at 60), 0 none */
	const char *body;               /* WHOLE: the 2xx body (NUL-terminated); a non-2xx answer's body
					   (a Status, at most 64 KiB) in both modes; NULL none */
	size_t len;
	const char *error;              /* what went wrong, "" when nothing did; never holds the token */
};

struct http_stream_ops {
	/* LINES: one line of the 2xx body, NUL-terminated, without its newline (nor a "\r" before it). */
	void (*line)(void *data, struct http_stream *s, const char *line, size_t len);
	/* The end, after any retries: the last callback; the stream is freed when it returns. */
	void (*done)(void *data, struct http_stream *s, const struct http_stream_end *end);
};

/**
 * http_stream_open() - start a streaming GET of @path (query included), or with cfg->method a
 * request carrying cfg->body (WHOLE only: a write whose answer comes to done()). Nothing is sent
 * until http_streams_drive() runs (http_streams_timeout() is then 0). @ops and @data must
 * outlive it.
 * Return: 0 with @ret; -EINVAL for a malformed path, method, content type or config (a body
 * with GET, a method with LINES); the token file's errors
 * (-ENOENT, -EACCES, -EINVAL) before anything is sent; -EINTR after http_cancel(); -ENOMEM.
 */
int http_stream_open(struct http_client *c, const char *path, const struct http_stream_config *cfg,
		     const struct http_stream_ops *ops, void *data, struct http_stream **ret);

/* Stop and free @s at any time, also from inside its own callbacks; no callback follows. NULL is fine. */
void http_stream_close(struct http_stream *s);

/**
 * http_streams_pollfds() - the sockets the streams wait on: fills at most @max entries (fd,
 * events; revents 0).
 * Return: how many there are (more than @max: call again with room for all).
 */
size_t http_streams_pollfds(struct http_client *c, struct pollfd *fds, size_t max);

/* Milliseconds until http_streams_drive() is due without socket activity; -1 when nothing is pending. */
int http_streams_timeout(struct http_client *c);

/**
 * http_streams_drive() - after poll(): act on @fds (the entries http_streams_pollfds() gave, with
 * revents; other fds are ignored) and on the timers due, then deliver lines and ends.
 * Return: 0; -ENOMEM when libcurl could not proceed (the streams concerned end with it).
 */
int http_streams_drive(struct http_client *c, const struct pollfd *fds, size_t n);

/* The streams open on @c (not yet ended). */
unsigned http_streams_count(const struct http_client *c);
