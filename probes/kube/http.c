/*
 * http.c - the HTTP client for the Kubernetes API over libcurl (the only file that includes curl).
 *
 * Long, and whole on purpose: blocking requests and streams share the dlopened libcurl table, the
 * handle setup, the bearer header and the mapping of curl's errors, and the adapter rule keeps
 * every libcurl call in this one file. What needs no libcurl is already apart: token.c,
 * httpcheck.c, retry.c, linebuf.c.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* The calls go through http_curl (dlopen'd): no compile-time wrappers around the real symbols. */
#define CURL_DISABLE_TYPECHECK
#include <curl/curl.h>
#include <dlfcn.h>

#include "probes/kube/http.h"
#include "probes/kube/token.h"
#include "probes/kube/httpcheck.h"
#include "probes/kube/linebuf.h"
#include "probes/kube/retry.h"
#include "probes/model/errmsg.h"

#define HTTP_SA_DIR             "/var/run/secrets/kubernetes.io/serviceaccount/"
#define HTTP_PATH_MAX           4096u
#define HTTP_CTYPE_MAX          128u
#define HTTP_BACKOFF_BASE_MS    250u
#define HTTP_BACKOFF_CAP_MS     8000u
#define HTTP_RETRY_AFTER_MAX_S  60u
#define HTTP_SLEEP_SLICE_MS     20u

struct http_client {
	CURL *easy;                     /* reused: its connection cache keeps the TLS session alive */
	char *server;                   /* "https://host[:port][/prefix]", no trailing '/' */
	char *ca_file;
	unsigned connect_timeout_ms;
	unsigned timeout_ms;
	unsigned max_attempts;
	unsigned max_total_ms;

	struct token tok;               /* the bearer token and its file */

	uint64_t rng;
	volatile sig_atomic_t cancel;

	/* The body of the transfer in progress. */
	char *buf;
	size_t len;
	size_t cap;
	bool too_big;
	char curl_err[CURL_ERROR_SIZE];

	/* Streams (watches) on the multi handle, made on the first http_stream_open(). */
	CURLM *multi;
	struct http_stream *streams;    /* every open stream, oldest first */
	struct pollfd *socks;           /* the sockets libcurl wants watched */
	size_t nsocks, capsocks;
	uint64_t timer_at;              /* libcurl's timeout, when timer_set */
	bool timer_set;
	unsigned dispatching;           /* inside http_streams_drive(): closing defers the free */
};

static void http_streams_release(struct http_client *c);


static pthread_mutex_t http_global_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned http_global_users;

/*
 * libcurl (with OpenSSL) is loaded only when a client is made: runs that never touch the API
 * (--no-publish, the daemon between writes' first use) do not pay ~6 ms and ~2 MiB to load it.
 * Once loaded it stays (dlclose under OpenSSL's atexit handlers is not safe), as systemd does.
 */
#define HTTP_CURL_SONAME "libcurl.so.4"

/*
 * The dependency, declared for packagers and image checks that read ELF notes rather than NEEDED
 * entries: the FDO "ELF dlopen metadata" note (section .note.dlopen, as systemd writes them).
 */
#define HTTP_DLOPEN_JSON "[{\"feature\":\"kubernetes-api\",\"description\":\"HTTPS client for the Kubernetes API\"," \
	"\"priority\":\"required\",\"soname\":[\"" HTTP_CURL_SONAME "\"]}]"
__attribute__((used, section(".note.dlopen"))) _Alignas(4) static const struct {
	struct {
		uint32_t n_namesz, n_descsz, n_type;
	} nhdr;
	char name[sizeof("FDO")];
	_Alignas(4) char json[sizeof(HTTP_DLOPEN_JSON)];
} http_dlopen_note = {
	.nhdr = { .n_namesz = sizeof("FDO"), .n_descsz = sizeof(HTTP_DLOPEN_JSON), .n_type = 0x407c0c0a },
	.name = "FDO",
	.json = HTTP_DLOPEN_JSON,
};

static struct {
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
} http_curl;
static void *http_curl_handle;  /* under http_global_lock; never closed */

/* dlopen libcurl and resolve every function we call; -ELIBACC with @err saying what is missing. */
static int http_curl_load(char *err, size_t errlen)
{
	static const struct {
		const char *name;
		size_t offset;
	} syms[] = {
#define SYM(f) { "curl_" #f, offsetof(__typeof__(http_curl), f) }
		SYM(global_init), SYM(global_cleanup), SYM(easy_init), SYM(easy_cleanup),
		SYM(easy_setopt), SYM(easy_perform), SYM(easy_getinfo), SYM(easy_strerror),
		SYM(slist_append), SYM(slist_free_all),
		SYM(easy_duphandle), SYM(easy_pause), SYM(multi_init), SYM(multi_cleanup), SYM(multi_setopt),
		SYM(multi_add_handle), SYM(multi_remove_handle), SYM(multi_socket_action), SYM(multi_info_read),
#undef SYM
	};
	void *h;

	if (http_curl_handle)
		return 0;
	h = dlopen(HTTP_CURL_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return errmsg_set(err, errlen, -ELIBACC, "cannot load %s (install libcurl4): %s", HTTP_CURL_SONAME, dlerror());
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			errmsg_set(err, errlen, 0, "%s has no %s: too old a libcurl", HTTP_CURL_SONAME, syms[i].name);
			dlclose(h);
			return -ELIBACC;
		}
		memcpy((char *)&http_curl + syms[i].offset, &f, sizeof(f));
	}
	http_curl_handle = h;
	return 0;
}

/* curl_global_init() runs once while any client lives; the last free undoes it (valgrind clean). */
static int http_global_ref(char *err, size_t errlen)
{
	int r = 0;

	pthread_mutex_lock(&http_global_lock);
	if (http_global_users == 0) {
		r = http_curl_load(err, errlen);
		if (r == 0 && http_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
			errmsg_set(err, errlen, 0, "libcurl initialisation failed");
			r = -ENOMEM;
		}
	}
	if (r == 0)
		http_global_users++;
	pthread_mutex_unlock(&http_global_lock);
	return r;
}

static void http_global_unref(void)
{
	pthread_mutex_lock(&http_global_lock);
	if (http_global_users > 0 && --http_global_users == 0)
		http_curl.global_cleanup();
	pthread_mutex_unlock(&http_global_lock);
}

static uint64_t http_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

/* xorshift64*: jitter only, no security role. */
static uint64_t http_random(struct http_client *c)
{
	return retry_random(&c->rng);
}

/*
 * The in-cluster server from KUBERNETES_SERVICE_HOST/_PORT; -ENOENT when not in a cluster. Like
 * client-go's InClusterConfig, both must be set: a missing port is refused, never guessed.
 */
static int http_server_from_env(char **ret, char *err, size_t errlen)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	char *url;
	int n;

	if (!host || !*host)
		return errmsg_set(err, errlen, -ENOENT, "no API server: KUBERNETES_SERVICE_HOST is not set and no --api-server given");
	if (!port || !*port) {
		return errmsg_set(err, errlen, -EINVAL, "in-cluster API: KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT "
				  "is not (both must be set, as for client-go); set it or give --api-server");
	}
	if (strlen(host) > 255 || strlen(port) > 5)
		return errmsg_set(err, errlen, -EINVAL, "KUBERNETES_SERVICE_HOST/_PORT too long");
	if (strspn(port, "0123456789") != strlen(port) || atoi(port) < 1 || atoi(port) > 65535)
		return errmsg_set(err, errlen, -EINVAL, "KUBERNETES_SERVICE_PORT is not a port number (1-65535)");
	n = asprintf(&url, strchr(host, ':') ? "https://[%s]:%s" : "https://%s:%s", host, port);
	if (n < 0)
		return -ENOMEM;
	*ret = url;
	return 0;
}

static size_t http_write_cb(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct http_client *c = userdata;
	size_t n = size * nmemb;

	if (n > HTTP_BODY_MAX || c->len + n > HTTP_BODY_MAX) {
		c->too_big = true;
		return 0;       /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	if (c->len + n + 1 > c->cap) {
		size_t cap = c->cap ? c->cap : 16384;
		char *b;

		while (cap < c->len + n + 1)
			cap *= 2;
		if (cap > HTTP_BODY_MAX + 1)
			cap = HTTP_BODY_MAX + 1;
		b = realloc(c->buf, cap);
		if (!b)
			return 0;
		c->buf = b;
		c->cap = cap;
	}
	memcpy(c->buf + c->len, data, n);
	c->len += n;
	c->buf[c->len] = '\0';
	return n;
}

static int http_xferinfo_cb(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
			    curl_off_t ultotal, curl_off_t ulnow)
{
	const struct http_client *c = userdata;

	return c->cancel ? 1 : 0;
}

/* client-go's form, <program>/<version> (<os>/<arch>), with Go's architecture names. */
#if defined(__x86_64__)
#define HTTP_ARCH "amd64"
#elif defined(__aarch64__)
#define HTTP_ARCH "arm64"
#elif defined(__i386__)
#define HTTP_ARCH "386"
#elif defined(__arm__)
#define HTTP_ARCH "arm"
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define HTTP_ARCH "ppc64le"
#elif defined(__s390x__)
#define HTTP_ARCH "s390x"
#elif defined(__riscv) && __riscv_xlen == 64
#define HTTP_ARCH "riscv64"
#else
#define HTTP_ARCH "unknown"
#endif
#define HTTP_USER_AGENT "tcpxo-agent/" TCPXO_VERSION " (linux/" HTTP_ARCH ")"

/* Options that never change for the life of the client. */
static int http_easy_setup(struct http_client *c)
{
	CURL *e = c->easy;
	CURLcode r = CURLE_OK;

#define SET(opt, val) do { if (r == CURLE_OK) r = http_curl.easy_setopt(e, opt, val); } while (0)
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_VERBOSE, 0L);
	SET(CURLOPT_ERRORBUFFER, c->curl_err);
	SET(CURLOPT_PROTOCOLS_STR, "https");
	SET(CURLOPT_REDIR_PROTOCOLS_STR, "https");
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_PROXY, "");
	SET(CURLOPT_NOPROXY, "*");
	SET(CURLOPT_NETRC, (long)CURL_NETRC_IGNORED);
	SET(CURLOPT_SSL_VERIFYPEER, 1L);
	SET(CURLOPT_SSL_VERIFYHOST, 2L);
	SET(CURLOPT_SSLVERSION, (long)CURL_SSLVERSION_TLSv1_2);
	SET(CURLOPT_CAINFO, c->ca_file);
	SET(CURLOPT_CONNECTTIMEOUT_MS, (long)c->connect_timeout_ms);
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)HTTP_BODY_MAX);
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_USERAGENT, HTTP_USER_AGENT);
	SET(CURLOPT_WRITEFUNCTION, http_write_cb);
	SET(CURLOPT_WRITEDATA, c);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, http_xferinfo_cb);
	SET(CURLOPT_XFERINFODATA, c);
#undef SET
	if (r == CURLE_OUT_OF_MEMORY)
		return -ENOMEM;
	return r == CURLE_OK ? 0 : -EINVAL;
}

void http_client_free(struct http_client *c)
{
	if (!c)
		return;
	http_streams_release(c);
	if (c->easy)
		http_curl.easy_cleanup(c->easy);
	token_clear(&c->tok);
	free(c->server);
	free(c->ca_file);
	free(c->buf);
	free(c);
	http_global_unref();
}

int http_client_new(const struct http_config *cfg, struct http_client **ret, char *err, size_t errlen)
{
	static const struct http_config defaults = { 0 };
	struct http_client *c;
	char *server = NULL;
	int r, n;

	if (!ret)
		return -EINVAL;
	if (!cfg)
		cfg = &defaults;
	if (cfg->server) {
		server = strdup(cfg->server);
		if (!server)
			return -ENOMEM;
	} else {
		r = http_server_from_env(&server, err, errlen);
		if (r < 0)
			return r;
	}
	n = httpcheck_server(server, err, errlen);
	if (n < 0) {
		free(server);
		return n;
	}
	server[n] = '\0';

	r = http_global_ref(err, errlen);
	if (r < 0) {
		free(server);
		return r;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		free(server);
		http_global_unref();
		return -ENOMEM;
	}
	c->server = server;
	r = token_init(&c->tok, cfg->token_file ? cfg->token_file : HTTP_SA_DIR "token");
	c->ca_file = strdup(cfg->ca_file ? cfg->ca_file : HTTP_SA_DIR "ca.crt");
	c->connect_timeout_ms = cfg->connect_timeout_ms ? cfg->connect_timeout_ms : 5000;
	c->timeout_ms = cfg->timeout_ms ? cfg->timeout_ms : 15000;
	c->max_attempts = cfg->max_attempts ? cfg->max_attempts : 4;
	c->max_total_ms = cfg->max_total_ms ? cfg->max_total_ms : 45000;
	if (getrandom(&c->rng, sizeof(c->rng), GRND_NONBLOCK) != (ssize_t)sizeof(c->rng))
		c->rng = http_now_ms() ^ ((uint64_t)getpid() << 32);
	c->rng |= 1;    /* xorshift state must not be zero */
	c->easy = http_curl.easy_init();
	if (r < 0 || !c->ca_file || !c->easy) {
		http_client_free(c);
		return -ENOMEM;
	}
	r = http_easy_setup(c);
	if (r < 0) {
		errmsg_set(err, errlen, 0, "libcurl rejected an option (built without HTTPS support?)");
		http_client_free(c);
		return r;
	}
	*ret = c;
	return 0;
}

void http_cancel(struct http_client *c)
{
	if (c)
		c->cancel = 1;
}

void http_response_free(struct http_response *r)
{
	if (!r)
		return;
	free(r->body);
	r->body = NULL;
	r->len = 0;
}

/* No message carries the token: every occurrence is masked in place. */
static void http_scrub(const struct http_client *c, char *s)
{
	httpcheck_scrub(s, c->tok.value, c->tok.len);
}

static void http_resp_err(const struct http_client *c, struct http_response *resp, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void http_resp_err(const struct http_client *c, struct http_response *resp, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(resp->error, sizeof(resp->error), fmt, ap);
	va_end(ap);
	for (char *p = resp->error; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	http_scrub(c, resp->error);
}

/* The token, re-read when its file changed (or always with @force); a failure is put in @resp. */
static int http_token_refresh(struct http_client *c, bool force, struct http_response *resp)
{
	char why[sizeof(resp->error)] = "";
	int r = token_refresh(&c->tok, force, why, sizeof(why));

	if (r < 0)
		http_resp_err(c, resp, "%s", why);
	return r;
}

static void http_slist_free_secret(struct curl_slist *l)
{
	for (struct curl_slist *p = l; p; p = p->next)
		if (p->data)
			explicit_bzero(p->data, strlen(p->data));
	http_curl.slist_free_all(l);
}

static struct curl_slist *http_headers(const struct http_client *c, const char *content_type)
{
	struct curl_slist *l = NULL, *n;
	char line[HTTP_CTYPE_MAX + 32];
	char *auth;

	if (asprintf(&auth, "Authorization: Bearer %s", c->tok.value) < 0)
		return NULL;
	n = http_curl.slist_append(l, auth);
	explicit_bzero(auth, strlen(auth));
	free(auth);
	if (!n)
		return NULL;
	l = n;
	snprintf(line, sizeof(line), "Content-Type: %s", content_type ? content_type : "");
	/* "Content-Type:" with no value removes curl's default for bodies; "Expect:" disables 100-continue. */
	if (!(n = http_curl.slist_append(l, "Accept: application/json")) ||
	    !(n = http_curl.slist_append(l, line)) || !(n = http_curl.slist_append(l, "Expect:"))) {
		http_slist_free_secret(l);
		return NULL;
	}
	return l;
}

static bool http_curl_retryable(CURLcode cc)
{
	switch ((int)cc) {  /* int: libcurl's enum is open-ended, the rest maps to default */
	case CURLE_COULDNT_RESOLVE_HOST:
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return true;
	default:
		return false;
	}
}

static int http_curl_errno(const struct http_client *c, CURLcode cc)
{
	long os = 0;

	switch ((int)cc) {  /* int: libcurl's enum is open-ended, the rest maps to default */
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_ABORTED_BY_CALLBACK:
		return c->cancel ? -EINTR : -ECANCELED;
	case CURLE_WRITE_ERROR:
		return c->too_big ? -EFBIG : -ENOMEM;
	case CURLE_FILESIZE_EXCEEDED:
		return -EFBIG;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_COULDNT_CONNECT:
		http_curl.easy_getinfo(c->easy, CURLINFO_OS_ERRNO, &os);
		return os == EHOSTUNREACH || os == ENETUNREACH || os == ETIMEDOUT ? -(int)os : -ECONNREFUSED;
	case CURLE_GOT_NOTHING:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_PARTIAL_FILE:
		return -ECONNRESET;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_UNSUPPORTED_PROTOCOL:
		return -EPROTO;
	default:
		return -EIO;
	}
}

/* One request on the reused handle. Fills status, body, retry_after_s and error. */
static int http_once(struct http_client *c, const char *method, const char *url, const char *path,
		     const char *content_type, const char *body, unsigned timeout_ms,
		     struct http_response *resp, bool *retryable, unsigned *retry_after_s)
{
	struct curl_slist *hdrs;
	curl_off_t ra = 0;
	CURLcode cc;
	long status = 0;
	int r;

	*retryable = false;
	*retry_after_s = 0;
	hdrs = http_headers(c, content_type);
	if (!hdrs) {
		http_resp_err(c, resp, "%s %s: out of memory", method, path);
		return -ENOMEM;
	}
	c->len = 0;
	c->too_big = false;
	c->curl_err[0] = '\0';
	http_curl.easy_setopt(c->easy, CURLOPT_URL, url);
	http_curl.easy_setopt(c->easy, CURLOPT_HTTPHEADER, hdrs);
	http_curl.easy_setopt(c->easy, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	if (body) {
		http_curl.easy_setopt(c->easy, CURLOPT_POSTFIELDS, body);
		http_curl.easy_setopt(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	} else {
		http_curl.easy_setopt(c->easy, CURLOPT_HTTPGET, 1L);
	}
	http_curl.easy_setopt(c->easy, CURLOPT_CUSTOMREQUEST, strcmp(method, body ? "POST" : "GET") ? method : NULL);

	cc = http_curl.easy_perform(c->easy);

	/* Never leave the token (in the list) or the caller's body reachable from the handle. */
	http_curl.easy_setopt(c->easy, CURLOPT_HTTPHEADER, NULL);
	http_curl.easy_setopt(c->easy, CURLOPT_POSTFIELDS, NULL);
	http_slist_free_secret(hdrs);

	resp->attempts++;
	http_curl.easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
	resp->status = status;
	/* Seconds or an HTTP date (libcurl parses both); capped so a server cannot park us. */
	if (http_curl.easy_getinfo(c->easy, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0) {
		*retry_after_s = ra > HTTP_RETRY_AFTER_MAX_S ? HTTP_RETRY_AFTER_MAX_S : (unsigned)ra;
		resp->retry_after_s = *retry_after_s;
	}

	free(resp->body);
	resp->body = NULL;
	resp->len = 0;
	if (cc != CURLE_OK) {
		r = http_curl_errno(c, cc);
		*retryable = http_curl_retryable(cc);
		if (r == -EFBIG)
			http_resp_err(c, resp, "%s %s: response body larger than %u bytes", method, path,
				      HTTP_BODY_MAX);
		else if (r == -EINTR)
			http_resp_err(c, resp, "%s %s: cancelled", method, path);
		else
			http_resp_err(c, resp, "%s %s%s: %s", method, c->server, path,
				      c->curl_err[0] ? c->curl_err : http_curl.easy_strerror(cc));
		return r;
	}
	if (c->len > 0) {
		resp->body = c->buf;
		resp->len = c->len;
		c->buf = NULL;
		c->cap = 0;
		c->len = 0;
	}
	if (status >= 200 && status < 300)
		return 0;

	*retryable = status == 429 || (status >= 500 && status <= 599);
	httpcheck_status_error(resp->error, sizeof(resp->error), method, path, status, resp->body, resp->len);
	http_scrub(c, resp->error);
	return -EIO;
}

/* Sleep @ms in slices so that http_cancel() ends the wait early. Return: 0 or -EINTR. */
static int http_sleep(struct http_client *c, uint64_t ms)
{
	uint64_t end = http_now_ms() + ms;

	for (;;) {
		uint64_t now = http_now_ms(), step;
		struct timespec ts;

		if (c->cancel)
			return -EINTR;
		if (now >= end)
			return 0;
		step = end - now < HTTP_SLEEP_SLICE_MS ? end - now : HTTP_SLEEP_SLICE_MS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(step * 1000000u);
		nanosleep(&ts, NULL);
	}
}

/* Full jitter: uniform in [0, min(cap, base * 2^(n-1))]. */
static uint64_t http_backoff_ms(struct http_client *c, unsigned n)
{
	return retry_backoff_ms(http_random(c), n, HTTP_BACKOFF_BASE_MS, HTTP_BACKOFF_CAP_MS);
}

/*
 * Transport errors map to: -ECONNREFUSED/-EHOSTUNREACH/-ENETUNREACH (cannot connect),
 * -ETIMEDOUT, -ECONNRESET (connection dropped, response cut short), -EPROTO (TLS handshake or
 * certificate verification failed: never retried, never downgraded). A missing or malformed
 * token file gives its -errno (-EINVAL for an empty or malformed token) before anything is sent.
 */
int http_request(struct http_client *c, const char *method, const char *path,
		 const char *content_type, const char *body, struct http_response *resp)
{
	uint64_t start = http_now_ms();
	bool reauth = false, reauthed = false;
	unsigned limit;
	char *url = NULL;
	int r;

	if (!resp)
		return -EINVAL;
	memset(resp, 0, sizeof(*resp));
	if (!c || !method || !path) {
		snprintf(resp->error, sizeof(resp->error), "http_request: missing argument");
		return -EINVAL;
	}
	if (!httpcheck_method(method) || path[0] != '/' || !httpcheck_text(path, HTTP_PATH_MAX, false) ||
	    (content_type && !httpcheck_text(content_type, HTTP_CTYPE_MAX, true))) {
		snprintf(resp->error, sizeof(resp->error), "refusing a malformed request (method, path or content type)");
		return -EINVAL;
	}
	if (body && strcmp(method, "GET") == 0) {
		snprintf(resp->error, sizeof(resp->error), "GET with a body");
		return -EINVAL;
	}
	if (asprintf(&url, "%s%s", c->server, path) < 0) {
		snprintf(resp->error, sizeof(resp->error), "out of memory");
		return -ENOMEM;
	}

	limit = c->max_attempts;
	for (;;) {
		uint64_t elapsed, wait;
		unsigned retry_after_s;
		bool retryable;

		if (c->cancel) {
			http_resp_err(c, resp, "%s %s: cancelled", method, path);
			r = -EINTR;
			break;
		}
		r = http_token_refresh(c, reauth, resp);
		if (r < 0)
			break;
		reauth = false;

		elapsed = http_now_ms() - start;
		if (elapsed >= c->max_total_ms) {
			/* Reachable only before a 401 retry: then the 401 answer stands. */
			if (resp->attempts == 0)
				http_resp_err(c, resp, "%s %s: no time left in the %u ms budget",
					      method, path, c->max_total_ms);
			r = resp->status ? -EIO : -ETIMEDOUT;
			break;
		}
		wait = c->max_total_ms - elapsed;
		r = http_once(c, method, url, path, content_type, body,
			      (unsigned)(wait < c->timeout_ms ? wait : c->timeout_ms), resp, &retryable, &retry_after_s);
		if (r == 0 || r == -EINTR || r == -ENOMEM)
			break;
		if (resp->status == 401 && !reauthed) {
			/* The token may have rotated under an unchanged stat; read it again, retry once. */
			reauthed = reauth = true;
			limit++;
			continue;
		}
		if (!retryable || resp->attempts >= limit)
			break;
		wait = retry_wait_ms(http_backoff_ms(c, resp->attempts), retry_after_s);
		elapsed = http_now_ms() - start;
		if (elapsed + wait >= c->max_total_ms) {
			size_t n = strlen(resp->error);

			snprintf(resp->error + n, sizeof(resp->error) - n,
				 " (gave up after %u attempt%s: next wait %llu ms exceeds the %u ms budget)",
				 resp->attempts, resp->attempts == 1 ? "" : "s", (unsigned long long)wait,
				 c->max_total_ms);
			break;
		}
		if (http_sleep(c, wait) < 0) {
			http_resp_err(c, resp, "%s %s: cancelled", method, path);
			r = -EINTR;
			break;
		}
	}
	if (r == -EINTR)
		c->cancel = 0;  /* consumed: the cancelled call reports it, the next call runs */
	else if (r < 0 && resp->attempts > 1 && !strstr(resp->error, "gave up")) {
		size_t n = strlen(resp->error);

		snprintf(resp->error + n, sizeof(resp->error) - n, " (after %u attempts)", resp->attempts);
	}
	free(url);
	return r;
}

/* ---- streams: GETs on the multi handle, driven by the caller's poll() ------------------------ */

#define HTTP_STREAM_ERRBODY_MAX (64u << 10)    /* of a non-2xx answer, for its message */
#define HTTP_STREAM_SLACK       (1u << 20)     /* complete lines held beyond line_max: pause reading */

enum http_stream_state {
	HTTP_STREAM_WAITING,            /* the next attempt starts at next_at */
	HTTP_STREAM_RUNNING,            /* a transfer in the multi handle */
	HTTP_STREAM_ENDED,              /* the end is ready to deliver */
	HTTP_STREAM_CLOSED,             /* no more callbacks; freed when no drive is in progress */
};

struct http_stream {
	struct http_client *c;
	struct http_stream *prev, *next;
	CURL *easy;
	struct curl_slist *hdrs;        /* holds the token: scrubbed when freed */
	char *path;
	struct http_stream_config cfg;
	const struct http_stream_ops *ops;
	void *data;
	enum http_stream_state state;
	uint64_t start_ms, next_at;
	unsigned attempts, limit, retry_after_s;
	bool reauth, reauthed, paused, established;
	long status;
	int err;                        /* the end's -errno */
	int fail;                       /* why the write callback stopped the transfer */
	struct linebuf lines;           /* LINES, 2xx */
	char *buf;                      /* WHOLE 2xx body, or a non-2xx answer's body */
	size_t len, cap;
	char curl_err[CURL_ERROR_SIZE];
	char error[256];
};

static void http_stream_errf(struct http_stream *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void http_stream_errf(struct http_stream *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	for (char *p = s->error; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	http_scrub(s->c, s->error);
}

static bool http_stream_ok(long status)
{
	return status >= 200 && status <= 299;
}

static size_t http_stream_write_cb(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct http_stream *s = userdata;
	size_t n = size * nmemb, max;
	long status = 0;
	int r;

	if (s->state != HTTP_STREAM_RUNNING)
		return 0;
	http_curl.easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	s->status = status;
	if (http_stream_ok(status))
		s->established = true;
	if (http_stream_ok(status) && s->cfg.mode == HTTP_STREAM_LINES) {
		if (linebuf_held(&s->lines) > s->cfg.line_max + HTTP_STREAM_SLACK) {
			s->paused = true;       /* the caller has not taken the lines yet */
			return CURL_WRITEFUNC_PAUSE;
		}
		r = linebuf_feed(&s->lines, data, n);
		if (r < 0) {
			s->fail = r;
			return 0;
		}
		return n;
	}
	max = http_stream_ok(status) ? HTTP_BODY_MAX : HTTP_STREAM_ERRBODY_MAX;
	if (s->len + n > max) {
		if (http_stream_ok(status)) {
			s->fail = -EFBIG;
			return 0;
		}
		n = max - s->len;       /* an error body: its start is enough */
		if (n == 0)
			return size * nmemb;
	}
	if (s->len + n + 1 > s->cap) {
		size_t cap = s->cap ? s->cap : 16384;
		char *b;

		while (cap < s->len + n + 1)
			cap *= 2;
		b = realloc(s->buf, cap);
		if (!b) {
			s->fail = -ENOMEM;
			return 0;
		}
		s->buf = b;
		s->cap = cap;
	}
	memcpy(s->buf + s->len, data, n);
	s->len += n;
	s->buf[s->len] = '\0';
	return size * nmemb;
}

static int http_stream_xferinfo_cb(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
				   curl_off_t ultotal, curl_off_t ulnow)
{
	const struct http_stream *s = userdata;

	return s->c->cancel || s->state != HTTP_STREAM_RUNNING ? 1 : 0;
}

static int http_sock_cb(CURL *e, curl_socket_t fd, int what, void *userp, void *socketp)
{
	struct http_client *c = userp;
	size_t i = 0;

	while (i < c->nsocks && c->socks[i].fd != fd)
		i++;
	if (what == CURL_POLL_REMOVE) {
		if (i < c->nsocks)
			c->socks[i] = c->socks[--c->nsocks];
		return 0;
	}
	if (i == c->nsocks) {
		if (c->nsocks == c->capsocks) {
			size_t cap = c->capsocks ? 2 * c->capsocks : 8;
			struct pollfd *p = realloc(c->socks, cap * sizeof(*p));

			if (!p)
				return -1;
			c->socks = p;
			c->capsocks = cap;
		}
		c->nsocks++;
	}
	c->socks[i].fd = fd;
	c->socks[i].events = (short)(((what & CURL_POLL_IN) ? POLLIN : 0) | ((what & CURL_POLL_OUT) ? POLLOUT : 0));
	c->socks[i].revents = 0;
	return 0;
}

static int http_timer_cb(CURLM *m, long timeout_ms, void *userp)
{
	struct http_client *c = userp;

	c->timer_set = timeout_ms >= 0;
	if (c->timer_set)
		c->timer_at = http_now_ms() + (uint64_t)timeout_ms;
	return 0;
}

static int http_multi_setup(struct http_client *c)
{
	if (c->multi)
		return 0;
	c->multi = http_curl.multi_init();
	if (!c->multi)
		return -ENOMEM;
	if (http_curl.multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, http_sock_cb) != CURLM_OK ||
	    http_curl.multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c) != CURLM_OK ||
	    http_curl.multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, http_timer_cb) != CURLM_OK ||
	    http_curl.multi_setopt(c->multi, CURLMOPT_TIMERDATA, c) != CURLM_OK) {
		http_curl.multi_cleanup(c->multi);
		c->multi = NULL;
		return -ENOMEM;
	}
	return 0;
}

static void http_stream_unlink_free(struct http_stream *s)
{
	struct http_client *c = s->c;

	if (s->prev)
		s->prev->next = s->next;
	else
		c->streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	if (s->state == HTTP_STREAM_RUNNING)
		http_curl.multi_remove_handle(c->multi, s->easy);
	if (s->easy)
		http_curl.easy_cleanup(s->easy);
	if (s->hdrs)
		http_slist_free_secret(s->hdrs);
	linebuf_free(&s->lines);
	free(s->buf);
	free(s->path);
	free(s);
}

/* Free every stream without a callback, then the multi handle (http_client_free()). */
static void http_streams_release(struct http_client *c)
{
	while (c->streams)
		http_stream_unlink_free(c->streams);
	if (c->multi)
		http_curl.multi_cleanup(c->multi);
	c->multi = NULL;
	free(c->socks);
	c->socks = NULL;
	c->nsocks = c->capsocks = 0;
}

/* A stream's transfer error as http_request() reports it. */
static int http_stream_errno(const struct http_stream *s, CURLcode cc)
{
	long os = 0;

	switch ((int)cc) {  /* int: libcurl's enum is open-ended, the rest maps as for requests */
	case CURLE_WRITE_ERROR:
		return s->fail ? s->fail : -ENOMEM;
	case CURLE_COULDNT_CONNECT:
		http_curl.easy_getinfo(s->easy, CURLINFO_OS_ERRNO, &os);
		return os == EHOSTUNREACH || os == ENETUNREACH || os == ETIMEDOUT ? -(int)os : -ECONNREFUSED;
	default:
		return http_curl_errno(s->c, cc);
	}
}

/* One attempt: the token (re-read when it changed, or forced after a 401), headers, into the multi. */
static int http_stream_attempt(struct http_stream *s)
{
	struct http_client *c = s->c;
	struct http_response tmp;
	int r;

	memset(&tmp, 0, sizeof(tmp));
	if (c->cancel) {
		http_stream_errf(s, "GET %s: cancelled", s->path);
		return -EINTR;
	}
	r = http_token_refresh(c, s->reauth, &tmp);
	if (r < 0) {
		snprintf(s->error, sizeof(s->error), "%s", tmp.error);
		return r;
	}
	s->reauth = false;
	if (s->hdrs)
		http_slist_free_secret(s->hdrs);
	s->hdrs = http_headers(c, NULL);
	if (!s->hdrs) {
		http_stream_errf(s, "GET %s: out of memory", s->path);
		return -ENOMEM;
	}
	http_curl.easy_setopt(s->easy, CURLOPT_HTTPHEADER, s->hdrs);
	s->status = 0;
	s->fail = 0;
	s->paused = false;
	s->len = 0;
	s->curl_err[0] = '\0';
	linebuf_free(&s->lines);
	if (http_curl.multi_add_handle(c->multi, s->easy) != CURLM_OK) {
		http_stream_errf(s, "GET %s: libcurl refused the transfer", s->path);
		return -ENOMEM;
	}
	s->attempts++;
	s->state = HTTP_STREAM_RUNNING;
	return 0;
}

static void http_stream_end_with(struct http_stream *s, int err)
{
	if (s->state == HTTP_STREAM_RUNNING)
		http_curl.multi_remove_handle(s->c->multi, s->easy);
	s->err = err;
	s->state = HTTP_STREAM_ENDED;
}

/* A transfer completed: retry (not yet established, retryable, within the limits) or end. */
static void http_stream_finished(struct http_stream *s, CURLcode cc)
{
	struct http_client *c = s->c;
	curl_off_t ra = 0;
	long status = 0;
	bool retryable;
	int err;

	http_curl.multi_remove_handle(c->multi, s->easy);
	s->state = HTTP_STREAM_ENDED;           /* out of the multi; the end may still be a retry */
	if (s->hdrs)
		http_slist_free_secret(s->hdrs);
	s->hdrs = NULL;
	http_curl.easy_setopt(s->easy, CURLOPT_HTTPHEADER, NULL);
	http_curl.easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
	s->status = status;
	if (http_curl.easy_getinfo(s->easy, CURLINFO_RETRY_AFTER, &ra) == CURLE_OK && ra > 0)
		s->retry_after_s = ra > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : (unsigned)ra;
	if (s->fail)
		err = s->fail;
	else if (cc != CURLE_OK)
		err = http_stream_errno(s, cc);
	else if (http_stream_ok(status))
		err = s->cfg.mode == HTTP_STREAM_LINES && linebuf_partial(&s->lines) ? -ECONNRESET : 0;
	else
		err = -EIO;

	if (!s->established && err != -EINTR && err != -ENOMEM && !c->cancel) {
		if (status == 401 && !s->reauthed) {
			/* The token may have rotated under an unchanged stat: read it again, retry once. */
			s->reauthed = s->reauth = true;
			s->limit++;
			s->next_at = http_now_ms();
			s->state = HTTP_STREAM_WAITING;
			return;
		}
		retryable = status ? retry_status_retryable(status) : (cc != CURLE_OK && http_curl_retryable(cc));
		if (retryable && s->attempts < s->limit) {
			uint64_t wait = retry_wait_ms(http_backoff_ms(c, s->attempts), s->retry_after_s);
			uint64_t now = http_now_ms();
			unsigned budget = s->cfg.max_total_ms ? s->cfg.max_total_ms : c->max_total_ms;

			if (now - s->start_ms + wait < budget) {
				s->next_at = now + wait;
				s->state = HTTP_STREAM_WAITING;
				return;
			}
		}
	}
	s->err = err;
	if (err == 0)
		s->error[0] = '\0';
	else if (err == -EMSGSIZE)
		http_stream_errf(s, "GET %s: a line longer than %zu bytes", s->path, s->cfg.line_max);
	else if (err == -EFBIG)
		http_stream_errf(s, "GET %s: response body larger than %u bytes", s->path, HTTP_BODY_MAX);
	else if (err == -EINTR)
		http_stream_errf(s, "GET %s: cancelled", s->path);
	else if (err == -ECONNRESET && cc == CURLE_OK)
		http_stream_errf(s, "GET %s: the stream ended inside a line", s->path);
	else if (cc != CURLE_OK)
		http_stream_errf(s, "GET %s%s: %s", c->server, s->path,
				 s->curl_err[0] ? s->curl_err : http_curl.easy_strerror(cc));
	else {
		httpcheck_status_error(s->error, sizeof(s->error), "GET", s->path, status, s->buf, s->len);
		http_scrub(c, s->error);
	}
	if (err != 0 && s->attempts > 1) {
		size_t n = strlen(s->error);

		snprintf(s->error + n, sizeof(s->error) - n, " (after %u attempts)", s->attempts);
	}
}

int http_stream_open(struct http_client *c, const char *path, const struct http_stream_config *cfg,
		     const struct http_stream_ops *ops, void *data, struct http_stream **ret)
{
	struct http_stream *s;
	CURLcode r = CURLE_OK;
	char *url = NULL;
	int k;

	if (!c || !path || !cfg || !ops || !ret || path[0] != '/' || !httpcheck_text(path, HTTP_PATH_MAX, false) ||
	    (cfg->mode != HTTP_STREAM_LINES && cfg->mode != HTTP_STREAM_WHOLE) ||
	    (cfg->mode == HTTP_STREAM_LINES && !ops->line) || !ops->done)
		return -EINVAL;
	if (c->cancel)
		return -EINTR;
	k = http_multi_setup(c);
	if (k < 0)
		return k;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->c = c;
	s->cfg = *cfg;
	if (!s->cfg.line_max)
		s->cfg.line_max = HTTP_STREAM_LINE_MAX;
	s->ops = ops;
	s->data = data;
	s->limit = cfg->max_attempts ? cfg->max_attempts : c->max_attempts;
	s->start_ms = http_now_ms();
	s->state = HTTP_STREAM_WAITING;
	linebuf_init(&s->lines, s->cfg.line_max);
	s->path = strdup(path);
	s->easy = http_curl.easy_duphandle(c->easy);     /* TLS, CA, timeouts, User-Agent as for requests */
	/* Linked first, so that every error below is one free. */
	s->prev = NULL;
	s->next = c->streams;
	if (c->streams)
		c->streams->prev = s;
	c->streams = s;
	if (!s->path || !s->easy || asprintf(&url, "%s%s", c->server, path) < 0) {
		url = NULL;
		k = -ENOMEM;
		goto fail;
	}
#define SET(opt, val) do { if (r == CURLE_OK) r = http_curl.easy_setopt(s->easy, opt, val); } while (0)
	SET(CURLOPT_URL, url);
	SET(CURLOPT_HTTPGET, 1L);
	SET(CURLOPT_CUSTOMREQUEST, (char *)NULL);
	SET(CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
	SET(CURLOPT_ERRORBUFFER, s->curl_err);
	SET(CURLOPT_WRITEFUNCTION, http_stream_write_cb);
	SET(CURLOPT_WRITEDATA, s);
	SET(CURLOPT_XFERINFOFUNCTION, http_stream_xferinfo_cb);
	SET(CURLOPT_XFERINFODATA, s);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_PRIVATE, s);
	SET(CURLOPT_TIMEOUT_MS, (long)cfg->timeout_ms);
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(cfg->mode == HTTP_STREAM_LINES ? 0 : HTTP_BODY_MAX));
	SET(CURLOPT_LOW_SPEED_LIMIT, cfg->idle_s ? 1L : 0L);
	SET(CURLOPT_LOW_SPEED_TIME, (long)cfg->idle_s);
#undef SET
	free(url);
	if (r != CURLE_OK) {
		k = r == CURLE_OUT_OF_MEMORY ? -ENOMEM : -EINVAL;
		goto fail;
	}
	k = http_stream_attempt(s);
	if (k < 0)
		goto fail;
	*ret = s;
	return 0;

fail:
	free(url);
	s->state = HTTP_STREAM_CLOSED;
	http_stream_unlink_free(s);
	return k;
}

void http_stream_close(struct http_stream *s)
{
	if (!s || s->state == HTTP_STREAM_CLOSED)
		return;
	if (s->state == HTTP_STREAM_RUNNING)
		http_curl.multi_remove_handle(s->c->multi, s->easy);
	s->state = HTTP_STREAM_CLOSED;
	if (!s->c->dispatching)
		http_stream_unlink_free(s);
}

size_t http_streams_pollfds(struct http_client *c, struct pollfd *fds, size_t max)
{
	if (!c)
		return 0;
	for (size_t i = 0; i < c->nsocks && i < max; i++) {
		fds[i] = c->socks[i];
		fds[i].revents = 0;
	}
	return c->nsocks;
}

int http_streams_timeout(struct http_client *c)
{
	uint64_t now = http_now_ms(), best = UINT64_MAX;

	if (!c)
		return -1;
	if (c->timer_set)
		best = c->timer_at;
	for (const struct http_stream *s = c->streams; s; s = s->next) {
		if (s->state == HTTP_STREAM_ENDED || (s->state == HTTP_STREAM_WAITING && c->cancel))
			return 0;
		if (s->state == HTTP_STREAM_WAITING && s->next_at < best)
			best = s->next_at;
	}
	if (best == UINT64_MAX)
		return -1;
	return best <= now ? 0 : best - now > INT32_MAX ? INT32_MAX : (int)(best - now);
}

unsigned http_streams_count(const struct http_client *c)
{
	unsigned n = 0;

	for (const struct http_stream *s = c ? c->streams : NULL; s; s = s->next)
		n += s->state != HTTP_STREAM_CLOSED;
	return n;
}

static bool http_sock_known(const struct http_client *c, int fd)
{
	for (size_t i = 0; i < c->nsocks; i++)
		if (c->socks[i].fd == fd)
			return true;
	return false;
}

static int http_multi_act(struct http_client *c, curl_socket_t fd, int ev)
{
	int running;

	return http_curl.multi_socket_action(c->multi, fd, ev, &running) == CURLM_OUT_OF_MEMORY ? -ENOMEM : 0;
}

/* Completed transfers: retry or end. */
static void http_streams_reap(struct http_client *c)
{
	CURLMsg *m;
	int left;

	while ((m = http_curl.multi_info_read(c->multi, &left))) {
		struct http_stream *s = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		http_curl.easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
		if (s && s->state == HTTP_STREAM_RUNNING)
			http_stream_finished(s, m->data.result);
	}
}

/* Lines taken, paused reading resumed, the end delivered: the only place callbacks run. */
static void http_stream_deliver(struct http_stream *s)
{
	const char *line;
	size_t len;
	int r;

	while (s->state != HTTP_STREAM_CLOSED && s->cfg.mode == HTTP_STREAM_LINES && http_stream_ok(s->status)) {
		while ((r = linebuf_next(&s->lines, &line, &len)) != 0) {
			if (r < 0) {
				http_stream_end_with(s, -EMSGSIZE);
				http_stream_errf(s, "GET %s: a line longer than %zu bytes", s->path, s->cfg.line_max);
				break;
			}
			s->ops->line(s->data, s, line, len);
			if (s->state == HTTP_STREAM_CLOSED)
				return;
		}
		if (!s->paused || s->state != HTTP_STREAM_RUNNING)
			break;
		s->paused = false;
		http_curl.easy_pause(s->easy, CURLPAUSE_CONT);  /* may feed more lines at once */
	}
	if (s->state == HTTP_STREAM_ENDED) {
		struct http_stream_end end = {
			.status = s->status, .err = s->err, .attempts = s->attempts, .retry_after_s = s->retry_after_s,
			.body = s->len ? s->buf : NULL, .len = s->len, .error = s->error,
		};

		s->state = HTTP_STREAM_CLOSED;          /* the last callback: freed after the drive */
		s->ops->done(s->data, s, &end);
	}
}

int http_streams_drive(struct http_client *c, const struct pollfd *fds, size_t n)
{
	struct http_stream *s, *next;
	bool started = false;
	uint64_t now;
	int rc = 0;

	if (!c || !c->multi)
		return 0;
	c->dispatching++;
	for (size_t i = 0; fds && i < n; i++) {
		int ev = 0;

		if (!fds[i].revents || !http_sock_known(c, fds[i].fd))
			continue;
		if (fds[i].revents & POLLIN)
			ev |= CURL_CSELECT_IN;
		if (fds[i].revents & POLLOUT)
			ev |= CURL_CSELECT_OUT;
		if (fds[i].revents & (POLLERR | POLLHUP | POLLNVAL))
			ev |= CURL_CSELECT_ERR;
		rc |= http_multi_act(c, fds[i].fd, ev);
	}
	if (c->timer_set && http_now_ms() >= c->timer_at) {
		c->timer_set = false;
		rc |= http_multi_act(c, CURL_SOCKET_TIMEOUT, 0);
	}
	http_streams_reap(c);
	now = http_now_ms();
	for (s = c->streams; s; s = s->next) {
		int k;

		if (s->state != HTTP_STREAM_WAITING || (now < s->next_at && !c->cancel))
			continue;
		k = http_stream_attempt(s);
		if (k < 0)
			http_stream_end_with(s, k);
		else
			started = true;
	}
	if (started) {
		/* Start connecting now rather than after another round through poll(). */
		c->timer_set = false;
		rc |= http_multi_act(c, CURL_SOCKET_TIMEOUT, 0);
		http_streams_reap(c);
	}
	for (s = c->streams; s; s = s->next)
		http_stream_deliver(s);
	c->dispatching--;
	for (s = c->streams; s; s = next) {
		next = s->next;
		if (s->state == HTTP_STREAM_CLOSED && !c->dispatching)
			http_stream_unlink_free(s);
	}
	return rc ? -ENOMEM : 0;
}
