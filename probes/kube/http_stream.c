/* http_stream.c - the HTTP client's streams: requests on libcurl's multi interface (watches line by line, lists and writes whole), driven from the caller's poll(). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/http.h"
#include "probes/kube/http_conf.h"
#include "probes/kube/httpcheck.h"
#include "probes/kube/linebuf.h"
#include "probes/kube/retry.h"
#include "probes/model/clockms.h"

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
	char *method;                   /* "GET", or a write's method */
	char *sent;                     /* a write's body (owned copy); NULL for a GET */
	char *ctype;                    /* ... its content type (owned copy); NULL none */
	struct http_stream_config cfg;  /* its method, content_type and body point into this stream */
	const struct http_stream_ops *ops;
	void *data;
	enum http_stream_state state;
	struct http_conf_try t;         /* establishing: attempts, budget, the 401's retry */
	uint64_t next_at;
	unsigned retry_after_s;         /* the last Retry-After seen */
	bool paused, established;
	bool counted;                   /* this attempt is in the client's counts (its status came) */
	long status;
	int err;                        /* the end's -errno */
	int fail;                       /* why the write callback stopped the transfer */
	struct linebuf lines;           /* LINES, 2xx */
	struct strbuf body;             /* WHOLE 2xx body, or a non-2xx answer's body */
	char curl_err[CURL_ERROR_SIZE];
	char error[256];
};

#define http_stream_errf(s, ...) http_conf_msg((s)->c, (s)->error, sizeof((s)->error), __VA_ARGS__)

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
	HTTP_CURL(easy_getinfo)(s->easy, CURLINFO_RESPONSE_CODE, &status);
	s->status = status;
	if (!s->counted) {      /* counted when the answer starts: a watch lasts minutes */
		apicount_add(&s->c->counts, s->method, s->path, status);
		s->counted = true;
	}
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
	if (s->body.len + n > max) {
		if (http_stream_ok(status)) {
			s->fail = -EFBIG;
			return 0;
		}
		n = max - s->body.len;  /* an error body: its start is enough */
		if (n == 0)
			return size * nmemb;
	}
	if (strbuf_appendn(&s->body, data, n) < 0) {
		s->fail = -ENOMEM;
		return 0;
	}
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
		if (strbuf_grow_array(&c->socks, &c->capsocks, c->nsocks, sizeof(*c->socks), 8) < 0)
			return -1;
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
		c->timer_at = clockms_now() + (uint64_t)timeout_ms;
	return 0;
}

static void http_streams_release(struct http_client *c);

/* The multi handle, made on the first stream; the client frees it through c->streams_release. */
static int http_multi_setup(struct http_client *c)
{
	if (c->multi)
		return 0;
	c->multi = HTTP_CURL(multi_init)();
	if (!c->multi)
		return -ENOMEM;
	if (HTTP_CURL(multi_setopt)(c->multi, CURLMOPT_SOCKETFUNCTION, http_sock_cb) != CURLM_OK ||
	    HTTP_CURL(multi_setopt)(c->multi, CURLMOPT_SOCKETDATA, c) != CURLM_OK ||
	    HTTP_CURL(multi_setopt)(c->multi, CURLMOPT_TIMERFUNCTION, http_timer_cb) != CURLM_OK ||
	    HTTP_CURL(multi_setopt)(c->multi, CURLMOPT_TIMERDATA, c) != CURLM_OK) {
		HTTP_CURL(multi_cleanup)(c->multi);
		c->multi = NULL;
		return -ENOMEM;
	}
	c->streams_release = http_streams_release;
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
		HTTP_CURL(multi_remove_handle)(c->multi, s->easy);
	if (s->easy)
		HTTP_CURL(easy_cleanup)(s->easy);
	if (s->hdrs)
		http_conf_headers_free(s->hdrs);
	linebuf_free(&s->lines);
	strbuf_free(&s->body);
	free(s->path);
	free(s->method);
	free(s->ctype);
	if (s->sent)
		explicit_bzero(s->sent, strlen(s->sent));
	free(s->sent);
	free(s);
}

/* Free every stream without a callback, then the multi handle (http_client_free()). */
static void http_streams_release(struct http_client *c)
{
	while (c->streams)
		http_stream_unlink_free(c->streams);
	if (c->multi)
		HTTP_CURL(multi_cleanup)(c->multi);
	c->multi = NULL;
	free(c->socks);
	c->socks = NULL;
	c->nsocks = c->capsocks = 0;
}

/* One attempt: the token (re-read when it changed, or forced after a 401), headers, into the multi. */
static int http_stream_attempt(struct http_stream *s)
{
	struct http_client *c = s->c;
	int r;

	if (c->cancel) {
		http_stream_errf(s, "%s %s: cancelled", s->method, s->path);
		return -EINTR;
	}
	r = http_conf_token(c, s->t.reauth, s->error, sizeof(s->error));
	if (r < 0)
		return r;
	s->t.reauth = false;
	if (s->hdrs)
		http_conf_headers_free(s->hdrs);
	s->hdrs = http_conf_headers(c, s->cfg.content_type);
	if (!s->hdrs) {
		http_stream_errf(s, "%s %s: out of memory", s->method, s->path);
		return -ENOMEM;
	}
	HTTP_CURL(easy_setopt)(s->easy, CURLOPT_HTTPHEADER, s->hdrs);
	if (s->cfg.timeout_ms && s->cfg.max_total_ms) {
		/* One attempt's time, within what is left of the call's own budget (as http_request()'s). */
		uint64_t spent = clockms_now() - s->t.start_ms, left;

		left = spent < s->t.max_total_ms ? s->t.max_total_ms - spent : 1;
		HTTP_CURL(easy_setopt)(s->easy, CURLOPT_TIMEOUT_MS, (long)(left < s->cfg.timeout_ms ? left : s->cfg.timeout_ms));
	}
	s->status = 0;
	s->fail = 0;
	s->paused = false;
	s->counted = false;
	strbuf_free(&s->body);
	s->curl_err[0] = '\0';
	linebuf_free(&s->lines);
	if (HTTP_CURL(multi_add_handle)(c->multi, s->easy) != CURLM_OK) {
		http_stream_errf(s, "%s %s: libcurl refused the transfer", s->method, s->path);
		return -ENOMEM;
	}
	s->t.attempts++;
	s->state = HTTP_STREAM_RUNNING;
	return 0;
}

static void http_stream_end_with(struct http_stream *s, int err)
{
	if (s->state == HTTP_STREAM_RUNNING)
		HTTP_CURL(multi_remove_handle)(s->c->multi, s->easy);
	s->err = err;
	s->state = HTTP_STREAM_ENDED;
}

/* The end's message, by what ended it. */
static void http_stream_end_msg(struct http_stream *s, CURLcode cc)
{
	if (s->err == 0)
		s->error[0] = '\0';
	else if (s->err == -EMSGSIZE)
		http_stream_errf(s, "%s %s: a line longer than %zu bytes", s->method, s->path, s->cfg.line_max);
	else if (s->err == -EFBIG)
		http_stream_errf(s, "%s %s: response body larger than %u bytes", s->method, s->path, HTTP_BODY_MAX);
	else if (s->err == -EINTR)
		http_stream_errf(s, "%s %s: cancelled", s->method, s->path);
	else if (s->err == -ECONNRESET && cc == CURLE_OK)
		http_stream_errf(s, "%s %s: the stream ended inside a line", s->method, s->path);
	else if (cc != CURLE_OK)
		http_conf_transport_msg(s->c, s->error, sizeof(s->error), s->method, s->path, cc, s->curl_err);
	else
		http_conf_status_msg(s->c, s->error, sizeof(s->error), s->method, s->path, s->status, s->body.s,
				     s->body.len);
	if (s->err != 0)
		http_conf_attempts_msg(s->error, sizeof(s->error), s->t.attempts);
}

/* A transfer completed: retry (not yet established, retryable, within the limits) or end. */
static void http_stream_finished(struct http_stream *s, CURLcode cc)
{
	struct http_client *c = s->c;
	unsigned retry_after_s;
	uint64_t wait = 0;
	long status = 0;
	bool retryable;
	int err;

	HTTP_CURL(multi_remove_handle)(c->multi, s->easy);
	s->state = HTTP_STREAM_ENDED;           /* out of the multi; the end may still be a retry */
	if (s->hdrs)
		http_conf_headers_free(s->hdrs);
	s->hdrs = NULL;
	HTTP_CURL(easy_setopt)(s->easy, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
	HTTP_CURL(easy_getinfo)(s->easy, CURLINFO_RESPONSE_CODE, &status);
	s->status = status;
	if (!s->counted)        /* no body came: an empty answer, or none */
		apicount_add(&c->counts, s->method, s->path, cc == CURLE_OK ? status : 0);
	s->counted = true;
	retry_after_s = http_conf_retry_after(s->easy);
	if (retry_after_s)
		s->retry_after_s = retry_after_s;
	if (s->fail)
		err = s->fail;
	else if (cc != CURLE_OK)
		err = http_conf_errno(c, s->easy, cc, s->fail);
	else if (http_stream_ok(status))
		err = s->cfg.mode == HTTP_STREAM_LINES && linebuf_partial(&s->lines) ? -ECONNRESET : 0;
	else
		err = -EIO;

	/*
	 * A stream whose lines were delivered cannot start again; a whole body (a list, a write's
	 * answer) is delivered only at its end, so one cut short is tried again as http_request() does.
	 */
	if ((!s->established || s->cfg.mode == HTTP_STREAM_WHOLE) && err && err != -EINTR && err != -ENOMEM &&
	    !c->cancel) {
		/* A watch's cut after its 2xx headers is the reflector's to resume; a whole body's, a request's. */
		if (s->cfg.mode == HTTP_STREAM_WHOLE && cc != CURLE_OK)
			retryable = http_conf_retryable(cc);
		else
			retryable = status ? retry_status_retryable(status) : (cc != CURLE_OK && http_conf_retryable(cc));
		switch (http_conf_retry(c, &s->t, status, retryable, s->retry_after_s, &wait)) {
		case HTTP_CONF_NOW:
		case HTTP_CONF_WAIT:
			s->next_at = clockms_now() + wait;
			s->state = HTTP_STREAM_WAITING;
			return;
		case HTTP_CONF_OVER:
		case HTTP_CONF_STOP:
			break;
		}
	}
	s->err = err;
	http_stream_end_msg(s, cc);
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
	    (cfg->mode == HTTP_STREAM_LINES && (!ops->line || cfg->method)) || !ops->done ||
	    (cfg->method && !httpcheck_method(cfg->method)) ||
	    (cfg->body && (!cfg->method || strcmp(cfg->method, "GET") == 0)) ||
	    (cfg->content_type && !httpcheck_text(cfg->content_type, HTTP_CTYPE_MAX, true)))
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
	http_conf_try_start(&s->t, c, cfg->max_attempts, cfg->max_total_ms);
	s->state = HTTP_STREAM_WAITING;
	linebuf_init(&s->lines, s->cfg.line_max);
	s->path = strdup(path);
	s->method = strdup(cfg->method ? cfg->method : "GET");
	s->sent = cfg->body ? strdup(cfg->body) : NULL;
	s->cfg.method = s->method;
	s->cfg.body = s->sent;
	s->ctype = cfg->content_type ? strdup(cfg->content_type) : NULL;
	s->cfg.content_type = s->ctype;
	s->easy = HTTP_CURL(easy_duphandle)(c->easy);     /* TLS, CA, timeouts, User-Agent as for requests */
	/* Linked first, so that every error below is one free. */
	s->prev = NULL;
	s->next = c->streams;
	if (c->streams)
		c->streams->prev = s;
	c->streams = s;
	if (!s->path || !s->method || (cfg->body && !s->sent) || (cfg->content_type && !s->ctype) || !s->easy ||
	    asprintf(&url, "%s%s", c->server, path) < 0) {
		url = NULL;
		k = -ENOMEM;
		goto fail;
	}
#define SET(opt, val) do { if (r == CURLE_OK) r = HTTP_CURL(easy_setopt)(s->easy, opt, val); } while (0)
	SET(CURLOPT_URL, url);
	if (s->sent) {
		SET(CURLOPT_POSTFIELDS, s->sent);
		SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(s->sent));
	} else {
		SET(CURLOPT_HTTPGET, 1L);
	}
	SET(CURLOPT_CUSTOMREQUEST, strcmp(s->method, s->sent ? "POST" : "GET") ? s->method : (char *)NULL);
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
		HTTP_CURL(multi_remove_handle)(s->c->multi, s->easy);
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
	uint64_t now = clockms_now(), best = UINT64_MAX;

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

	return HTTP_CURL(multi_socket_action)(c->multi, fd, ev, &running) == CURLM_OUT_OF_MEMORY ? -ENOMEM : 0;
}

/* Completed transfers: retry or end. */
static void http_streams_reap(struct http_client *c)
{
	CURLMsg *m;
	int left;

	while ((m = HTTP_CURL(multi_info_read)(c->multi, &left))) {
		struct http_stream *s = NULL;

		if (m->msg != CURLMSG_DONE)
			continue;
		HTTP_CURL(easy_getinfo)(m->easy_handle, CURLINFO_PRIVATE, (char **)&s);
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
				http_stream_errf(s, "%s %s: a line longer than %zu bytes", s->method, s->path,
						 s->cfg.line_max);
				break;
			}
			s->ops->line(s->data, s, line, len);
			if (s->state == HTTP_STREAM_CLOSED)
				return;
		}
		if (!s->paused || s->state != HTTP_STREAM_RUNNING)
			break;
		s->paused = false;
		HTTP_CURL(easy_pause)(s->easy, CURLPAUSE_CONT);  /* may feed more lines at once */
	}
	if (s->state == HTTP_STREAM_ENDED) {
		struct http_stream_end end = {
			.status = s->status, .err = s->err, .attempts = s->t.attempts, .retry_after_s = s->retry_after_s,
			.body = s->body.len ? s->body.s : NULL, .len = s->body.len, .error = s->error,
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
	if (c->timer_set && clockms_now() >= c->timer_at) {
		c->timer_set = false;
		rc |= http_multi_act(c, CURL_SOCKET_TIMEOUT, 0);
	}
	http_streams_reap(c);
	now = clockms_now();
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
