/* http.c - the HTTP client for the Kubernetes API: the client's life, and blocking requests with retries (libcurl's easy interface). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "probes/kube/http.h"
#include "probes/kube/http_conf.h"
#include "probes/kube/httpcheck.h"
#include "probes/kube/retry.h"
#include "probes/model/clockms.h"
#include "probes/model/errmsg.h"

#define HTTP_SA_DIR             "/var/run/secrets/kubernetes.io/serviceaccount/"
#define HTTP_SLEEP_SLICE_MS     20u

static size_t http_write_cb(char *data, size_t size, size_t nmemb, void *userdata)
{
	struct http_client *c = userdata;
	size_t n = size * nmemb;

	if (n > HTTP_BODY_MAX || c->body.len + n > HTTP_BODY_MAX) {
		c->too_big = true;
		return 0;       /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	return strbuf_appendn(&c->body, data, n) < 0 ? 0 : n;
}

static int http_xferinfo_cb(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
			    curl_off_t ultotal, curl_off_t ulnow)
{
	const struct http_client *c = userdata;

	return c->cancel ? 1 : 0;
}

const struct apicount *http_client_counts(const struct http_client *c)
{
	return c ? &c->counts : NULL;
}

void http_client_free(struct http_client *c)
{
	if (!c)
		return;
	if (c->streams_release)
		c->streams_release(c);
	if (c->easy)
		HTTP_CURL(easy_cleanup)(c->easy);
	token_clear(&c->tok);
	free(c->server);
	free(c->ca_file);
	strbuf_free(&c->body);
	free(c);
	http_conf_global_unref();
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
		r = http_conf_server_from_env(&server, err, errlen);
		if (r < 0)
			return r;
	}
	n = httpcheck_server(server, err, errlen);
	if (n < 0) {
		free(server);
		return n;
	}
	server[n] = '\0';

	r = http_conf_global_ref(err, errlen);
	if (r < 0) {
		free(server);
		return r;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		free(server);
		http_conf_global_unref();
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
		c->rng = clockms_now() ^ ((uint64_t)getpid() << 32);
	c->rng |= 1;    /* xorshift state must not be zero */
	c->easy = HTTP_CURL(easy_init)();
	if (r < 0 || !c->ca_file || !c->easy) {
		http_client_free(c);
		return -ENOMEM;
	}
	r = http_conf_easy_setup(c, http_write_cb, http_xferinfo_cb, HTTP_BODY_MAX);
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

/* One request on the reused handle. Fills status, body, retry_after_s and error. */
static int http_once(struct http_client *c, const char *method, const char *url, const char *path,
		     const char *content_type, const char *body, unsigned timeout_ms,
		     struct http_response *resp, bool *retryable, unsigned *retry_after_s)
{
	struct curl_slist *hdrs;
	CURLcode cc;
	long status = 0;
	int r;

	*retryable = false;
	hdrs = http_conf_headers(c, content_type);
	if (!hdrs) {
		http_conf_msg(c, resp->error, sizeof(resp->error), "%s %s: out of memory", method, path);
		return -ENOMEM;
	}
	strbuf_free(&c->body);
	c->too_big = false;
	c->curl_err[0] = '\0';
	HTTP_CURL(easy_setopt)(c->easy, CURLOPT_URL, url);
	HTTP_CURL(easy_setopt)(c->easy, CURLOPT_HTTPHEADER, hdrs);
	HTTP_CURL(easy_setopt)(c->easy, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
	if (body) {
		HTTP_CURL(easy_setopt)(c->easy, CURLOPT_POSTFIELDS, body);
		HTTP_CURL(easy_setopt)(c->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	} else {
		HTTP_CURL(easy_setopt)(c->easy, CURLOPT_HTTPGET, 1L);
	}
	HTTP_CURL(easy_setopt)(c->easy, CURLOPT_CUSTOMREQUEST, strcmp(method, body ? "POST" : "GET") ? method : NULL);

	cc = HTTP_CURL(easy_perform)(c->easy);

	/* Never leave the token (in the list) or the caller's body reachable from the handle. */
	HTTP_CURL(easy_setopt)(c->easy, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
	HTTP_CURL(easy_setopt)(c->easy, CURLOPT_POSTFIELDS, (char *)NULL);
	http_conf_headers_free(hdrs);

	resp->attempts++;
	HTTP_CURL(easy_getinfo)(c->easy, CURLINFO_RESPONSE_CODE, &status);
	resp->status = status;
	apicount_add(&c->counts, method, path, cc == CURLE_OK ? status : 0);
	*retry_after_s = http_conf_retry_after(c->easy);
	if (*retry_after_s)
		resp->retry_after_s = *retry_after_s;

	free(resp->body);
	resp->body = NULL;
	resp->len = 0;
	if (cc != CURLE_OK) {
		r = http_conf_errno(c, c->easy, cc, c->too_big ? -EFBIG : 0);
		*retryable = http_conf_retryable(cc);
		if (r == -EFBIG)
			http_conf_msg(c, resp->error, sizeof(resp->error), "%s %s: response body larger than %u bytes",
				      method, path, HTTP_BODY_MAX);
		else if (r == -EINTR)
			http_conf_msg(c, resp->error, sizeof(resp->error), "%s %s: cancelled", method, path);
		else
			http_conf_transport_msg(c, resp->error, sizeof(resp->error), method, path, cc, c->curl_err);
		return r;
	}
	if (c->body.len > 0) {
		resp->body = c->body.s;
		resp->len = c->body.len;
		c->body = (struct strbuf){ 0 };
	}
	if (status >= 200 && status < 300)
		return 0;

	*retryable = retry_status_retryable(status);
	http_conf_status_msg(c, resp->error, sizeof(resp->error), method, path, status, resp->body, resp->len);
	return -EIO;
}

/* Sleep @ms in slices so that http_cancel() ends the wait early (the caller then sees c->cancel). */
static void http_sleep(struct http_client *c, uint64_t ms)
{
	uint64_t end = clockms_now() + ms;

	for (;;) {
		uint64_t now = clockms_now(), step;
		struct timespec ts;

		if (c->cancel || now >= end)
			return;
		step = end - now < HTTP_SLEEP_SLICE_MS ? end - now : HTTP_SLEEP_SLICE_MS;
		ts.tv_sec = 0;
		ts.tv_nsec = (long)(step * 1000000u);
		nanosleep(&ts, NULL);
	}
}

/* Refuse before sending: the shape of the call. Return: 0 or -EINVAL with resp->error set. */
static int http_request_check(const struct http_client *c, const char *method, const char *path,
			      const char *content_type, const char *body, struct http_response *resp)
{
	if (!c || !method || !path)
		return errmsg_set(resp->error, sizeof(resp->error), -EINVAL, "http_request: missing argument");
	if (!httpcheck_method(method) || path[0] != '/' || !httpcheck_text(path, HTTP_PATH_MAX, false) ||
	    (content_type && !httpcheck_text(content_type, HTTP_CTYPE_MAX, true)))
		return errmsg_set(resp->error, sizeof(resp->error), -EINVAL,
				  "refusing a malformed request (method, path or content type)");
	if (body && strcmp(method, "GET") == 0)
		return errmsg_set(resp->error, sizeof(resp->error), -EINVAL, "GET with a body");
	return 0;
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
	struct http_conf_try t;
	bool gave_up = false;
	char *url = NULL;
	int r;

	if (!resp)
		return -EINVAL;
	memset(resp, 0, sizeof(*resp));
	r = http_request_check(c, method, path, content_type, body, resp);
	if (r < 0)
		return r;
	if (asprintf(&url, "%s%s", c->server, path) < 0)
		return errmsg_set(resp->error, sizeof(resp->error), -ENOMEM, "out of memory");

	http_conf_try_start(&t, c, 0, 0);
	for (;;) {
		uint64_t elapsed, wait = 0;
		unsigned retry_after_s = 0;
		bool retryable;

		if (c->cancel) {
			http_conf_msg(c, resp->error, sizeof(resp->error), "%s %s: cancelled", method, path);
			r = -EINTR;
			break;
		}
		r = http_conf_token(c, t.reauth, resp->error, sizeof(resp->error));
		if (r < 0)
			break;
		t.reauth = false;

		elapsed = clockms_now() - t.start_ms;
		if (elapsed >= t.max_total_ms) {
			/* Reachable only before a 401 retry: then the 401 answer stands. */
			if (resp->attempts == 0)
				http_conf_msg(c, resp->error, sizeof(resp->error), "%s %s: no time left in the %u ms budget",
					      method, path, t.max_total_ms);
			r = resp->status ? -EIO : -ETIMEDOUT;
			break;
		}
		wait = t.max_total_ms - elapsed;
		r = http_once(c, method, url, path, content_type, body,
			      (unsigned)(wait < c->timeout_ms ? wait : c->timeout_ms), resp, &retryable, &retry_after_s);
		t.attempts = resp->attempts;
		if (r == 0 || r == -EINTR || r == -ENOMEM)
			break;
		switch (http_conf_retry(c, &t, resp->status, retryable, retry_after_s, &wait)) {
		case HTTP_CONF_NOW:
			continue;
		case HTTP_CONF_WAIT:
			break;
		case HTTP_CONF_OVER: {
			size_t n = strlen(resp->error);

			snprintf(resp->error + n, sizeof(resp->error) - n,
				 " (gave up after %u attempt%s: next wait %llu ms exceeds the %u ms budget)",
				 resp->attempts, resp->attempts == 1 ? "" : "s", (unsigned long long)wait,
				 t.max_total_ms);
			gave_up = true;
			goto out;
		}
		case HTTP_CONF_STOP:
			goto out;
		}
		http_sleep(c, wait);    /* cancelled meanwhile: said at the top */
	}
out:
	if (r == -EINTR)
		c->cancel = 0;  /* consumed: the cancelled call reports it, the next call runs */
	else if (r < 0 && !gave_up)
		http_conf_attempts_msg(resp->error, sizeof(resp->error), resp->attempts);
	free(url);
	return r;
}
