/* http_conf.c - the libcurl adapter's configuration: libcurl loaded, TLS and auth set up, its errors and the retry policy shared by requests and streams. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/dynlib.h"
#include "probes/kube/http_conf.h"
#include "probes/kube/httpcheck.h"
#include "probes/kube/retry.h"
#include "probes/model/clockms.h"
#include "probes/model/errmsg.h"

/*
 * libcurl (with OpenSSL) is loaded only when a client is made: runs that never touch the API
 * (--no-publish) do not pay to load it and the ~30 libraries behind it: linked plainly, they cost
 * every --once ~6 MiB of RSS and 10-25 ms (docs/ARCHITECTURE.md, "One adapter per library").
 * Once loaded it stays (dlclose under OpenSSL's atexit handlers is not safe), as systemd does.
 */
#define HTTP_CURL_SONAME "libcurl.so.4"

DYNLIB_NOTE(http_dlopen_note, "kubernetes-api", "HTTPS client for the Kubernetes API", "required", HTTP_CURL_SONAME);

struct http_curl_table http_curl;
static void *http_curl_handle;  /* under http_conf_lock; never closed */
static pthread_mutex_t http_conf_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned http_conf_users;

/* dlopen libcurl and resolve every function we call; -ELIBACC with @err saying what is missing. */
static int http_conf_load(char *err, size_t errlen)
{
	static const struct dynlib_sym syms[] = {
#define SYM(f) { "curl_" #f, offsetof(struct http_curl_table, f) }
		SYM(global_init), SYM(global_cleanup), SYM(easy_init), SYM(easy_cleanup),
		SYM(easy_setopt), SYM(easy_perform), SYM(easy_getinfo), SYM(easy_strerror),
		SYM(slist_append), SYM(slist_free_all),
		SYM(easy_duphandle), SYM(easy_pause), SYM(multi_init), SYM(multi_cleanup), SYM(multi_setopt),
		SYM(multi_add_handle), SYM(multi_remove_handle), SYM(multi_socket_action), SYM(multi_info_read),
#undef SYM
	};

	return dynlib_load(HTTP_CURL_SONAME, "libcurl4", "libcurl", syms, sizeof(syms) / sizeof(syms[0]), &http_curl,
			   &http_curl_handle, err, errlen);
}

int http_conf_global_ref(char *err, size_t errlen)
{
	int r = 0;

	pthread_mutex_lock(&http_conf_lock);
	if (http_conf_users == 0) {
		r = http_conf_load(err, errlen);
		if (r == 0 && http_curl.global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
			r = errmsg_set(err, errlen, -ENOMEM, "libcurl initialisation failed");
	}
	if (r == 0)
		http_conf_users++;
	pthread_mutex_unlock(&http_conf_lock);
	return r;
}

void http_conf_global_unref(void)
{
	pthread_mutex_lock(&http_conf_lock);
	if (http_conf_users > 0 && --http_conf_users == 0)
		http_curl.global_cleanup();
	pthread_mutex_unlock(&http_conf_lock);
}

/* Like client-go's InClusterConfig, both variables must be set: a missing port is refused, never guessed. */
int http_conf_server_from_env(char **ret, char *err, size_t errlen)
{
	const char *host = getenv("KUBERNETES_SERVICE_HOST");
	const char *port = getenv("KUBERNETES_SERVICE_PORT");
	char *url;
	int n;

	if (!host || !*host)
		return errmsg_set(err, errlen, -ENOENT, "no API server: KUBERNETES_SERVICE_HOST is not set and no --api-server given");
	if (!port || !*port)
		return errmsg_set(err, errlen, -EINVAL, "in-cluster API: KUBERNETES_SERVICE_HOST is set but KUBERNETES_SERVICE_PORT "
				  "is not (both must be set, as for client-go); set it or give --api-server");
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

int http_conf_easy_setup(struct http_client *c, curl_write_callback write_cb, curl_xferinfo_callback xferinfo_cb,
			 size_t body_max)
{
	CURL *e = c->easy;
	CURLcode r = CURLE_OK;

#define SET(opt, val) do { if (r == CURLE_OK) r = HTTP_CURL(easy_setopt)(e, opt, val); } while (0)
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
	SET(CURLOPT_TCP_KEEPALIVE, 1L);
	SET(CURLOPT_USERAGENT, HTTP_USER_AGENT);
	SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)body_max);
	SET(CURLOPT_WRITEFUNCTION, write_cb);
	SET(CURLOPT_WRITEDATA, c);
	SET(CURLOPT_NOPROGRESS, 0L);
	SET(CURLOPT_XFERINFOFUNCTION, xferinfo_cb);
	SET(CURLOPT_XFERINFODATA, c);
#undef SET
	if (r == CURLE_OUT_OF_MEMORY)
		return -ENOMEM;
	return r == CURLE_OK ? 0 : -EINVAL;
}

void http_conf_headers_free(struct curl_slist *l)
{
	for (struct curl_slist *p = l; p; p = p->next)
		if (p->data)
			explicit_bzero(p->data, strlen(p->data));
	HTTP_CURL(slist_free_all)(l);
}

struct curl_slist *http_conf_headers(const struct http_client *c, const char *content_type)
{
	struct curl_slist *l = NULL, *n;
	char line[HTTP_CTYPE_MAX + 32];
	char *auth;

	if (asprintf(&auth, "Authorization: Bearer %s", c->tok.value) < 0)
		return NULL;
	n = HTTP_CURL(slist_append)(l, auth);
	explicit_bzero(auth, strlen(auth));
	free(auth);
	if (!n)
		return NULL;
	l = n;
	snprintf(line, sizeof(line), "Content-Type: %s", content_type ? content_type : "");
	/* "Content-Type:" with no value removes curl's default for bodies; "Expect:" disables 100-continue. */
	if (!(n = HTTP_CURL(slist_append)(l, "Accept: application/json")) ||
	    !(n = HTTP_CURL(slist_append)(l, line)) || !(n = HTTP_CURL(slist_append)(l, "Expect:"))) {
		http_conf_headers_free(l);
		return NULL;
	}
	return l;
}

/* No message carries the token, nor a control byte. */
static void http_conf_clean(const struct http_client *c, char *s)
{
	for (char *p = s; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
	httpcheck_scrub(s, c->tok.value, c->tok.len);
}

void http_conf_msg(const struct http_client *c, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errmsg_vset(buf, size, 0, fmt, ap);
	va_end(ap);
	http_conf_clean(c, buf);
}

void http_conf_status_msg(const struct http_client *c, char *buf, size_t size, const char *method, const char *path,
			  long status, const char *body, size_t len)
{
	httpcheck_status_error(buf, size, method, path, status, body, len);
	http_conf_clean(c, buf);
}

void http_conf_transport_msg(const struct http_client *c, char *buf, size_t size, const char *method,
			     const char *path, CURLcode cc, const char *curl_err)
{
	http_conf_msg(c, buf, size, "%s %s%s: %s", method, c->server, path,
		      curl_err[0] ? curl_err : HTTP_CURL(easy_strerror)(cc));
}

void http_conf_attempts_msg(char *buf, size_t size, unsigned attempts)
{
	size_t n = strlen(buf);

	if (attempts > 1)
		snprintf(buf + n, size - n, " (after %u attempts)", attempts);
}

int http_conf_token(struct http_client *c, bool force, char *msg, size_t msglen)
{
	char why[256] = "";
	int r = token_refresh(&c->tok, force, why, sizeof(why));

	if (r < 0)
		http_conf_msg(c, msg, msglen, "%s", why);
	return r;
}

bool http_conf_retryable(CURLcode cc)
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

int http_conf_errno(const struct http_client *c, CURL *easy, CURLcode cc, int write_err)
{
	long os = 0;

	switch ((int)cc) {  /* int: libcurl's enum is open-ended, the rest maps to default */
	case CURLE_OUT_OF_MEMORY:
		return -ENOMEM;
	case CURLE_ABORTED_BY_CALLBACK:
		return c->cancel ? -EINTR : -ECANCELED;
	case CURLE_WRITE_ERROR:
		return write_err ? write_err : -ENOMEM;
	case CURLE_FILESIZE_EXCEEDED:
		return -EFBIG;
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_COULDNT_RESOLVE_HOST:
		return -EHOSTUNREACH;
	case CURLE_COULDNT_CONNECT:
		HTTP_CURL(easy_getinfo)(easy, CURLINFO_OS_ERRNO, &os);
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

unsigned http_conf_retry_after(CURL *easy)
{
	curl_off_t ra = 0;

	if (HTTP_CURL(easy_getinfo)(easy, CURLINFO_RETRY_AFTER, &ra) != CURLE_OK || ra <= 0)
		return 0;
	return ra > RETRY_AFTER_MAX_S ? RETRY_AFTER_MAX_S : (unsigned)ra;
}

void http_conf_try_start(struct http_conf_try *t, const struct http_client *c, unsigned max_attempts,
			 unsigned max_total_ms)
{
	*t = (struct http_conf_try){
		.start_ms = clockms_now(),
		.limit = max_attempts ? max_attempts : c->max_attempts,
		.max_total_ms = max_total_ms ? max_total_ms : c->max_total_ms,
		/* Within one call: its caller waits through them, so the ceiling starts and stays short. */
		.backoff = { .base_ms = RETRY_BASE_MS, .cap_ms = RETRY_CAP_MS },
	};
}

enum http_conf_next http_conf_retry(struct http_client *c, struct http_conf_try *t, long status, bool retryable,
				    unsigned retry_after_s, uint64_t *ret_wait)
{
	uint64_t wait;

	if (status == 401 && !t->reauthed) {
		/* The token may have rotated under an unchanged stat: read it again, retry once. */
		t->reauthed = t->reauth = true;
		t->limit++;
		return HTTP_CONF_NOW;
	}
	if (!retryable || t->attempts >= t->limit)
		return HTTP_CONF_STOP;
	if (!t->backoff.rng)
		t->backoff.rng = retry_random(&c->rng);         /* this call's jitter, from the client's */
	wait = retry_backoff_fail(&t->backoff, retry_after_s);
	*ret_wait = wait;
	return clockms_now() - t->start_ms + wait >= t->max_total_ms ? HTTP_CONF_OVER : HTTP_CONF_WAIT;
}
