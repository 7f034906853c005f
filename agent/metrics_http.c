/* metrics_http.c - the libmicrohttpd adapter: GET /metrics served from the daemon's poll(), libmicrohttpd dlopen'd. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <microhttpd.h>

#include "agent/metrics_http.h"
#include "probes/kube/dynlib.h"
#include "probes/model/clockms.h"
#include "probes/model/errmsg.h"

/*
 * libmicrohttpd is loaded only when a server is made: Debian's libmicrohttpd12 links GnuTLS and
 * its dependencies, which cost every run linked plainly ~2.6 MiB of RSS and ~5 ms of start
 * (a do-nothing program with the agent's libraries: 2.6 -> 5.3 MiB, 4 -> 10 ms median), while
 * only the daemon with --metrics-address serves. Once loaded it stays, like libcurl.
 */
#define METRICS_HTTP_SONAME "libmicrohttpd.so.12"

DYNLIB_NOTE(metrics_http_dlopen_note, "metrics", "the /metrics endpoint (--metrics-address)", "recommended",
	    METRICS_HTTP_SONAME);

/*
 * The functions called, through a table typed from libmicrohttpd's own prototypes (__typeof__):
 * a call with a wrong type does not compile, as if they were called by name. (libcurl's adapter
 * is compiled a second time for typecheck-gcc.h's option checks; libmicrohttpd has no such checks.)
 */
static struct {
	__typeof__(MHD_start_daemon) *start_daemon;
	__typeof__(MHD_stop_daemon) *stop_daemon;
	__typeof__(MHD_get_daemon_info) *get_daemon_info;
	__typeof__(MHD_get_timeout) *get_timeout;
	__typeof__(MHD_run) *run;
	__typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
	__typeof__(MHD_add_response_header) *add_response_header;
	__typeof__(MHD_queue_response) *queue_response;
	__typeof__(MHD_destroy_response) *destroy_response;
	__typeof__(MHD_get_connection_info) *get_connection_info;
} metrics_mhd;
static void *metrics_mhd_handle;        /* never closed; the daemon is single-threaded */

/*
 * One connection, from accept to close (libmicrohttpd's connection notifications): its address,
 * its socket, and when its request's headers must be in. libmicrohttpd's own timeout is an idle
 * one that any byte resets, so a client sending one byte every few seconds would hold a slot
 * forever; the deadline here is for the whole request. A connection past it is shut down
 * (shutdown(2), not close: the fd stays libmicrohttpd's), which libmicrohttpd then sees as the
 * client's end and closes, telling us.
 */
struct metrics_http_conn {
	struct MHD_Connection *conn;    /* NULL: a free slot */
	int fd;
	struct sockaddr_storage addr;
	uint64_t deadline;              /* ms (monotonic): headers due by then; 0: a request is being answered */
	bool shut;                      /* past it: shut down, waiting for libmicrohttpd to close it */
};

struct metrics_http {
	struct MHD_Daemon *d;
	int fd;
	struct metrics_http_page page;
	char address[METRICS_HTTP_ADDRESS_MAX];
	struct metrics_http_conn conns[METRICS_HTTP_CONNECTIONS];
};

/* The host address in an AF_INET or AF_INET6 socket address, its size in *@len; NULL for another family. */
static const void *metrics_http_host(const struct sockaddr *a, size_t *len)
{
	*len = a->sa_family == AF_INET6 ? sizeof(struct in6_addr) : sizeof(struct in_addr);
	if (a->sa_family == AF_INET6)
		return &((const struct sockaddr_in6 *)a)->sin6_addr;
	return a->sa_family == AF_INET ? &((const struct sockaddr_in *)a)->sin_addr : NULL;
}

/* Whether two socket addresses are the same host (the port apart). */
static bool metrics_http_same_host(const struct sockaddr *a, const struct sockaddr_storage *b)
{
	size_t len;
	const void *x = metrics_http_host(a, &len), *y = metrics_http_host((const struct sockaddr *)b, &len);

	return x && a->sa_family == b->ss_family && memcmp(x, y, len) == 0;
}

/*
 * libmicrohttpd's accept policy: at most METRICS_HTTP_PER_IP connections per address, and the
 * last METRICS_HTTP_RESERVED slots only for an address that has none (a new scraper always gets in).
 */
static enum MHD_Result metrics_http_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct metrics_http *h = cls;
	unsigned total = 0, mine = 0;

	for (size_t i = 0; i < METRICS_HTTP_CONNECTIONS; i++) {
		if (!h->conns[i].conn)
			continue;
		total++;
		mine += metrics_http_same_host(addr, &h->conns[i].addr);
	}
	if (total >= METRICS_HTTP_CONNECTIONS || mine >= METRICS_HTTP_PER_IP ||
	    (mine && total >= METRICS_HTTP_CONNECTIONS - METRICS_HTTP_RESERVED))
		return MHD_NO;
	return MHD_YES;
}

static struct metrics_http_conn *metrics_http_conn_of(struct metrics_http *h, const struct MHD_Connection *conn)
{
	for (size_t i = 0; i < METRICS_HTTP_CONNECTIONS; i++)
		if (h->conns[i].conn == conn)
			return &h->conns[i];
	return NULL;
}

/* A connection accepted (its request deadline starts) or closed (its slot is free). */
static void metrics_http_notify(void *cls, struct MHD_Connection *conn, void **socket_context,
				enum MHD_ConnectionNotificationCode toe)
{
	struct metrics_http *h = cls;
	struct metrics_http_conn *c;
	const union MHD_ConnectionInfo *info;

	if (toe == MHD_CONNECTION_NOTIFY_CLOSED) {
		if ((c = metrics_http_conn_of(h, conn)))
			memset(c, 0, sizeof(*c));
		return;
	}
	c = metrics_http_conn_of(h, NULL);
	if (!c)
		return;         /* cannot happen: libmicrohttpd's own limit is ours */
	memset(c, 0, sizeof(*c));
	c->conn = conn;
	c->fd = -1;
	c->deadline = clockms_now() + METRICS_HTTP_REQUEST_MS;
	if ((info = metrics_mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD)))
		c->fd = info->connect_fd;
	if ((info = metrics_mhd.get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS)) && info->client_addr) {
		socklen_t len = info->client_addr->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
									   : sizeof(struct sockaddr_in);

		memcpy(&c->addr, info->client_addr, len);
	}
}

/* A request answered (or abandoned): a kept-alive connection's next request has its own deadline. */
static void metrics_http_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
				   enum MHD_RequestTerminationCode toe)
{
	struct metrics_http_conn *c = metrics_http_conn_of(cls, conn);

	if (c)
		c->deadline = clockms_now() + METRICS_HTTP_REQUEST_MS;
}

/* Shut down the connections whose request's headers are not in by their deadline. */
static void metrics_http_sweep(struct metrics_http *h, uint64_t now)
{
	for (size_t i = 0; i < METRICS_HTTP_CONNECTIONS; i++) {
		struct metrics_http_conn *c = &h->conns[i];

		if (!c->conn || c->shut || !c->deadline || now < c->deadline || c->fd < 0)
			continue;
		shutdown(c->fd, SHUT_RDWR);
		c->shut = true;
	}
}

static int metrics_http_load(char *err, size_t errlen)
{
	static const struct dynlib_sym syms[] = {
#define SYM(f) { "MHD_" #f, offsetof(__typeof__(metrics_mhd), f) }
		SYM(start_daemon), SYM(stop_daemon), SYM(get_daemon_info), SYM(get_timeout), SYM(run),
		SYM(create_response_from_buffer), SYM(add_response_header), SYM(queue_response),
		SYM(destroy_response), SYM(get_connection_info),
#undef SYM
	};

	return dynlib_load(METRICS_HTTP_SONAME, "libmicrohttpd12", "libmicrohttpd", syms, sizeof(syms) / sizeof(syms[0]),
			   &metrics_mhd, &metrics_mhd_handle, err, errlen);
}

/* The port of an AF_INET or AF_INET6 socket address (network order). */
static in_port_t *metrics_http_port(struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return &((struct sockaddr_in6 *)ss)->sin6_port;
	return &((struct sockaddr_in *)ss)->sin_port;
}

/* "IPv4:PORT" or "[IPv6]:PORT", numeric only, into @ss. */
static int metrics_http_parse(const char *address, struct sockaddr_storage *ss, char *err, size_t errlen)
{
	char host[METRICS_HTTP_ADDRESS_MAX];
	const char *colon, *port;
	unsigned long p = 0;
	size_t hl, alen;

	if (!address || strlen(address) >= sizeof(host))
		return errmsg_set(err, errlen, -EINVAL, "--metrics-address: want ADDRESS:PORT (at most %zu characters)",
				  sizeof(host) - 1);
	colon = strrchr(address, ':');
	if (!colon || colon == address)
		return errmsg_set(err, errlen, -EINVAL, "--metrics-address '%s': want ADDRESS:PORT", address);
	port = colon + 1;
	if (!*port || strspn(port, "0123456789") != strlen(port) || strlen(port) > 5 ||
	    (p = strtoul(port, NULL, 10)) > 65535)
		return errmsg_set(err, errlen, -EINVAL, "--metrics-address '%s': the port must be 0-65535", address);
	hl = (size_t)(colon - address);
	if (address[0] == '[') {
		if (hl < 3 || address[hl - 1] != ']')
			return errmsg_set(err, errlen, -EINVAL, "--metrics-address '%s': want [IPv6]:PORT", address);
		memcpy(host, address + 1, hl - 2);
		host[hl - 2] = '\0';
	} else {
		memcpy(host, address, hl);
		host[hl] = '\0';
	}
	memset(ss, 0, sizeof(*ss));
	ss->ss_family = address[0] == '[' ? AF_INET6 : AF_INET;
	if (inet_pton(ss->ss_family, host, (void *)metrics_http_host((struct sockaddr *)ss, &alen)) != 1)
		return errmsg_set(err, errlen, -EINVAL, "--metrics-address '%s': not a numeric %s address", address,
				  ss->ss_family == AF_INET6 ? "IPv6" : "IPv4");
	*metrics_http_port(ss) = htons((uint16_t)p);
	return 0;
}

static enum MHD_Result metrics_http_answer(struct MHD_Connection *conn, unsigned status, char *body, size_t len,
					   enum MHD_ResponseMemoryMode mode, const char *ctype, bool allow)
{
	struct MHD_Response *resp = metrics_mhd.create_response_from_buffer(len, body, mode);
	enum MHD_Result r;

	if (!resp) {
		if (mode == MHD_RESPMEM_MUST_FREE)
			free(body);
		return MHD_NO;          /* out of memory: libmicrohttpd closes the connection */
	}
	metrics_mhd.add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	if (allow)
		metrics_mhd.add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	r = metrics_mhd.queue_response(conn, status, resp);
	metrics_mhd.destroy_response(resp);
	return r;
}

static enum MHD_Result metrics_http_handler(void *cls, struct MHD_Connection *conn, const char *url,
					    const char *method, const char *version, const char *upload_data,
					    size_t *upload_data_size, void **con_cls)
{
	static char not_found[] = "404 page not found: only /metrics is served\n";
	static char not_allowed[] = "405 method not allowed: GET only\n";
	static char failed[] = "500 the page could not be made\n";
	struct metrics_http *h = cls;
	struct metrics_http_conn *c = metrics_http_conn_of(h, conn);
	struct strbuf sb = { 0 };

	/*
	 * Answered on the first call, once the headers are in: a body (another method) is never
	 * read; libmicrohttpd closes such a connection after the answer. The request's deadline is
	 * met: the answer has libmicrohttpd's idle timeout.
	 */
	if (c)
		c->deadline = 0;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return metrics_http_answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, not_allowed, sizeof(not_allowed) - 1,
					   MHD_RESPMEM_PERSISTENT, "text/plain; charset=utf-8", true);
	if (strcmp(url, "/metrics") != 0)
		return metrics_http_answer(conn, MHD_HTTP_NOT_FOUND, not_found, sizeof(not_found) - 1,
					   MHD_RESPMEM_PERSISTENT, "text/plain; charset=utf-8", false);
	if (h->page.render(h->page.arg, &sb) < 0 || !sb.s) {
		strbuf_free(&sb);
		return metrics_http_answer(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, failed, sizeof(failed) - 1,
					   MHD_RESPMEM_PERSISTENT, "text/plain; charset=utf-8", false);
	}
	return metrics_http_answer(conn, MHD_HTTP_OK, strbuf_take(&sb), sb.len, MHD_RESPMEM_MUST_FREE,
				   "text/plain; version=0.0.4; charset=utf-8", false);
}

int metrics_http_new(const char *address, const struct metrics_http_page *page, struct metrics_http **ret,
		     char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	struct metrics_http *h;
	char text[INET6_ADDRSTRLEN];
	uint16_t port;
	size_t len;
	int r;

	r = metrics_http_parse(address, &ss, err, errlen);
	if (r < 0)
		return r;
	r = metrics_http_load(err, errlen);
	if (r < 0)
		return r;
	h = calloc(1, sizeof(*h));
	if (!h)
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	h->page = *page;
	port = ntohs(*metrics_http_port(&ss));
	errno = 0;
	h->d = metrics_mhd.start_daemon(MHD_USE_EPOLL | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0), port,
					metrics_http_accept, h, metrics_http_handler, h,
					MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
					MHD_OPTION_NOTIFY_CONNECTION, metrics_http_notify, h,
					MHD_OPTION_NOTIFY_COMPLETED, metrics_http_completed, h,
					MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_HTTP_CONNECTIONS,
					MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)METRICS_HTTP_PER_IP,
					MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_HTTP_TIMEOUT_S,
					MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)METRICS_HTTP_MEMORY,
					MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned int)METRICS_HTTP_CONNECTIONS,
					MHD_OPTION_END);
	if (!h->d) {
		r = errno ? -errno : -EADDRNOTAVAIL;
		free(h);
		return errmsg_set(err, errlen, r, "cannot listen on %s: %s", address, strerror(-r));
	}
	info = metrics_mhd.get_daemon_info(h->d, MHD_DAEMON_INFO_EPOLL_FD);
	h->fd = info ? info->epoll_fd : -1;
	info = metrics_mhd.get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
	if (info)
		port = info->port;
	if (h->fd < 0) {
		metrics_mhd.stop_daemon(h->d);
		free(h);
		return errmsg_set(err, errlen, -EIO, "libmicrohttpd gave no epoll fd");
	}
	inet_ntop(ss.ss_family, metrics_http_host((struct sockaddr *)&ss, &len), text, sizeof(text));
	snprintf(h->address, sizeof(h->address), ss.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", text, port);
	*ret = h;
	return 0;
}

void metrics_http_free(struct metrics_http *h)
{
	if (!h)
		return;
	metrics_mhd.stop_daemon(h->d);
	free(h);
}

int metrics_http_fd(const struct metrics_http *h)
{
	return h ? h->fd : -1;
}

int metrics_http_timeout(struct metrics_http *h)
{
	MHD_UNSIGNED_LONG_LONG t;
	uint64_t now, best = UINT64_MAX;

	if (!h)
		return -1;
	if (metrics_mhd.get_timeout(h->d, &t) == MHD_YES)
		best = t;
	now = clockms_now();
	for (size_t i = 0; i < METRICS_HTTP_CONNECTIONS; i++) {
		const struct metrics_http_conn *c = &h->conns[i];

		if (c->conn && !c->shut && c->deadline)
			best = c->deadline <= now ? 0 : c->deadline - now < best ? c->deadline - now : best;
	}
	return best == UINT64_MAX ? -1 : best > 60000 ? 60000 : (int)best;
}

void metrics_http_run(struct metrics_http *h)
{
	if (!h)
		return;
	metrics_http_sweep(h, clockms_now());
	metrics_mhd.run(h->d);
}

void metrics_http_address(const struct metrics_http *h, char *buf, size_t len)
{
	snprintf(buf, len, "%s", h ? h->address : "");
}
