/* metrics_http.h - the /metrics HTTP endpoint, served from the daemon's poll() (the only face of libmicrohttpd). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "probes/model/strbuf.h"

#define METRICS_HTTP_CONNECTIONS        16u     /* connections at once; more are refused at accept */
#define METRICS_HTTP_PER_IP             4u      /* ... from one address (well under half: two cannot take them all) */
#define METRICS_HTTP_RESERVED           4u      /* ... the last of them only for an address that has none */
#define METRICS_HTTP_REQUEST_MS         5000u   /* from accept (or the last answer) to the end of the request's
						   headers, however slowly they trickle: then it is closed */
#define METRICS_HTTP_TIMEOUT_S          10u     /* an idle connection (between requests, or reading its answer)
						   is closed after this */
#define METRICS_HTTP_MEMORY             16384u  /* per connection: the request line and headers must fit */
#define METRICS_HTTP_ADDRESS_MAX        64u     /* "[ipv6]:port" */

struct metrics_http;                    /* opaque */

/* Renders the page into @out for one scrape. Return: 0, or -errno (the scrape gets a 500). */
struct metrics_http_page {
	int (*render)(void *arg, struct strbuf *out);
	void *arg;
};

/**
 * metrics_http_new() - listen on @address ("IPv4:PORT" or "[IPv6]:PORT", numeric; port 0: any
 * free port) and serve GET /metrics with @page (404 for another path, 405 for another method).
 * Slow clients cannot shut scrapers out: a request's headers must be in METRICS_HTTP_REQUEST_MS
 * after its connection was accepted (or its previous answer sent), whatever trickles, else the
 * connection is closed; one address holds at most METRICS_HTTP_PER_IP connections, and the last
 * METRICS_HTTP_RESERVED of METRICS_HTTP_CONNECTIONS go only to an address that holds none.
 * Nothing runs by itself: the caller polls metrics_http_fd() and calls metrics_http_run().
 * libmicrohttpd is dlopen'd here, on the first server: runs without --metrics-address never
 * load it (nor the GnuTLS it links).
 * Return: 0 with @ret; -EINVAL for a malformed address; -ELIBACC when libmicrohttpd.so.12 cannot
 * be loaded; -EADDRINUSE (or another -errno) when it cannot listen; @err says why.
 */
int metrics_http_new(const char *address, const struct metrics_http_page *page, struct metrics_http **ret,
		     char *err, size_t errlen);

void metrics_http_free(struct metrics_http *h);

/* The fd to poll for POLLIN (libmicrohttpd's epoll set). */
int metrics_http_fd(const struct metrics_http *h);

/* Milliseconds until metrics_http_run() is due without activity (a request's deadline, a connection's timeout); -1 none. */
int metrics_http_timeout(struct metrics_http *h);

/* Close what passed its request deadline; accept, read, answer and close what is ready, without blocking; a scrape renders here. */
void metrics_http_run(struct metrics_http *h);

/* The address listened on, the port resolved ("127.0.0.1:40123"), into @buf. */
void metrics_http_address(const struct metrics_http *h, char *buf, size_t len);
