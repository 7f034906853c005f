/* apicount.c - pure: the API requests a client made, counted by verb, resource and answer. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "probes/kube/apicount.h"

#define APICOUNT_SEGMENTS 8

/* The path's segments up to its query: pointers into @path with their lengths. Return: how many. */
static size_t apicount_split(const char *path, const char **seg, size_t *len, size_t max)
{
	size_t n = 0;
	const char *p = path;

	while (*p && *p != '?' && n < max) {
		const char *s;

		while (*p == '/')
			p++;
		if (!*p || *p == '?')
			break;
		s = p;
		while (*p && *p != '/' && *p != '?')
			p++;
		seg[n] = s;
		len[n++] = (size_t)(p - s);
	}
	return n;
}

/* A segment ends at '/', '?' or the end, none of which the set holds. */
static bool apicount_word(const char *s, size_t n)
{
	return n > 0 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789.-") >= n;
}

static bool apicount_is(const char *s, size_t n, const char *word)
{
	return n == strlen(word) && memcmp(s, word, n) == 0;
}

int apicount_resource(const char *path, char *buf, size_t len)
{
	const char *seg[APICOUNT_SEGMENTS];
	size_t sl[APICOUNT_SEGMENTS], n, i = 0;
	int w;

	if (!len)
		return 0;
	buf[0] = '\0';
	n = path ? apicount_split(path, seg, sl, APICOUNT_SEGMENTS) : 0;
	if (n && apicount_is(seg[0], sl[0], "api"))
		i = 2;                  /* /api/v1/... */
	else if (n && apicount_is(seg[0], sl[0], "apis"))
		i = 3;                  /* /apis/<group>/<version>/... */
	else
		return 0;
	/* namespaces/<ns>/<resource>...: the resource is what follows; namespaces/<ns> alone is a namespace. */
	if (i + 2 < n && apicount_is(seg[i], sl[i], "namespaces"))
		i += 2;
	if (i >= n)
		return 0;
	if (!apicount_word(seg[i], sl[i]) || (i + 2 < n && !apicount_word(seg[i + 2], sl[i + 2]))) {
		snprintf(buf, len, "other");
		return i + 1 < n;
	}
	if (i + 2 < n)
		w = snprintf(buf, len, "%.*s/%.*s", (int)sl[i], seg[i], (int)sl[i + 2], seg[i + 2]);
	else
		w = snprintf(buf, len, "%.*s", (int)sl[i], seg[i]);
	if (w < 0 || (size_t)w >= len)
		snprintf(buf, len, "other");
	return i + 1 < n;
}

/* @path's query asks a watch (watch=1 or watch=true). */
static bool apicount_watch(const char *path)
{
	for (const char *q = strchr(path, '?'); q; q = strchr(q, '&')) {
		size_t n = strcspn(++q, "&");

		if ((n == 7 && strncmp(q, "watch=1", 7) == 0) || (n == 10 && strncmp(q, "watch=true", 10) == 0))
			return true;
	}
	return false;
}

void apicount_add(struct apicount *c, const char *method, const char *path, long status)
{
	char resource[APICOUNT_RESOURCE_MAX], verb[APICOUNT_VERB_MAX];
	int code = status >= 100 && status <= 599 ? (int)status : 0;
	bool object;
	size_t i;

	if (!c)
		return;
	object = apicount_resource(path ? path : "", resource, sizeof(resource)) > 0;
	if (method && strcmp(method, "GET") == 0 && apicount_watch(path ? path : ""))
		snprintf(verb, sizeof(verb), "WATCH");
	else if (method && strcmp(method, "GET") == 0 && !object && resource[0])
		snprintf(verb, sizeof(verb), "LIST");
	else if (method && method[0] && strlen(method) < sizeof(verb) &&
		 strspn(method, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == strlen(method))
		snprintf(verb, sizeof(verb), "%s", method);
	else
		snprintf(verb, sizeof(verb), "OTHER");
	for (i = 0; i < c->n; i++) {
		struct apicount_entry *e = &c->v[i];

		if (e->code == code && strcmp(e->verb, verb) == 0 && strcmp(e->resource, resource) == 0) {
			e->n++;
			return;
		}
	}
	if (c->n == APICOUNT_MAX) {
		c->dropped++;
		return;
	}
	c->v[c->n].code = code;
	c->v[c->n].n = 1;
	memcpy(c->v[c->n].verb, verb, sizeof(verb));
	memcpy(c->v[c->n].resource, resource, sizeof(resource));
	c->n++;
}
