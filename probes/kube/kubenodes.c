/* kubenodes.c - page through GET /api/v1/nodes (limit/continue) and hand each page on. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubenodes.h"
#include "probes/model/errmsg.h"
#include "probes/model/strbuf.h"

/* A page's refusal: the NodeList scan's messages name an index and a kind of at most 64 bytes. */
#define KUBENODES_WHY_MAX 512

static int kubenodes_escape(struct strbuf *sb, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		    *p == '-' || *p == '.' || *p == '_' || *p == '~')
			strbuf_appendf(sb, "%c", *p);
		else
			strbuf_appendf(sb, "%%%02X", *p);
	}
	return sb->oom ? -ENOMEM : 0;
}

int kubenodes_path(const char *selector, const char *cont, unsigned limit, char **ret)
{
	struct strbuf sb = { 0 };
	char *s;

	strbuf_appendf(&sb, "/api/v1/nodes?limit=%u", limit);
	if (selector && *selector) {
		strbuf_append(&sb, "&labelSelector=");
		kubenodes_escape(&sb, selector);
	}
	if (cont && *cont) {
		strbuf_append(&sb, "&continue=");
		kubenodes_escape(&sb, cont);
	}
	s = strbuf_take(&sb);
	if (!s)
		return -ENOMEM;
	*ret = s;
	return 0;
}

int kubenodes_list(struct http_client *c, const char *selector, const struct kubenodes_sink *sink,
		   char *err, size_t errlen)
{
	unsigned limit = KUBENODES_PAGE_LIMIT, pages = 0;
	bool restarted = false;
	char *cont = NULL;
	int r;

	for (;;) {
		struct http_response resp = { 0 };
		char why[KUBENODES_WHY_MAX] = "";
		char *path = NULL, *next = NULL;

		if (++pages > KUBENODES_MAX_PAGES) {
			r = errmsg_set(err, errlen, -EINVAL, "GET /api/v1/nodes: the listing did not end within %d pages",
				       KUBENODES_MAX_PAGES);
			break;
		}
		r = kubenodes_path(selector, cont, limit, &path);
		if (r < 0) {
			errmsg_set(err, errlen, r, "out of memory");
			break;
		}
		r = http_request(c, "GET", path, NULL, NULL, &resp);
		free(path);
		if (r == -EFBIG && limit / 2 >= KUBENODES_PAGE_LIMIT_MIN) {
			/* Fat nodes: the same page, fewer per request. The token stays valid. */
			limit /= 2;
			pages--;
			http_response_free(&resp);
			continue;
		}
		if (r == -EIO && resp.status == 410 && cont && !restarted) {
			/* The continue token expired (the list changed too long ago): start over once. */
			restarted = true;
			free(cont);
			cont = NULL;
			pages = 0;
			sink->restart(sink->userdata);
			http_response_free(&resp);
			continue;
		}
		if (r < 0) {
			/* The client's message already names the request and status; never the token. */
			const char *hint = resp.status == 401 || resp.status == 403 ?
					   " (the credentials need get and list on nodes)" : "";

			if (r == -EFBIG)
				errmsg_set(err, errlen, r, "GET /api/v1/nodes: a page of %u nodes is larger than %u bytes%s",
					   limit, HTTP_BODY_MAX, hint);
			else if (resp.error[0])
				errmsg_set(err, errlen, r, "%s%s", resp.error, hint);
			else if (resp.status)
				errmsg_set(err, errlen, r, "GET /api/v1/nodes: HTTP %ld%s", resp.status, hint);
			else
				errmsg_set(err, errlen, r, "GET /api/v1/nodes: %s%s", strerror(-r), hint);
			http_response_free(&resp);
			break;
		}
		if (!resp.body) {
			r = errmsg_set(err, errlen, -EINVAL, "GET /api/v1/nodes: empty response");
			http_response_free(&resp);
			break;
		}
		r = sink->page(sink->userdata, resp.body, resp.len, &next, why, sizeof(why));
		http_response_free(&resp);
		if (r < 0) {
			errmsg_set(err, errlen, r, "GET /api/v1/nodes: page %u: %s", pages, why[0] ? why : "refused");
			break;
		}
		if (next && cont && strcmp(next, cont) == 0) {
			r = errmsg_set(err, errlen, -EINVAL,
				       "GET /api/v1/nodes: the server returned the same continue token twice");
			free(next);
			break;
		}
		free(cont);
		cont = next;
		if (!cont) {
			r = 0;
			break;
		}
	}
	free(cont);
	return r;
}
