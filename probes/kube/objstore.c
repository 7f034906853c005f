/* objstore.c - pure: API objects kept sorted by namespace/name, filled from a list and kept by watch events. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/objstore.h"
#include "probes/model/errmsg.h"
#include "probes/model/strbuf.h"

void objstore_clear(struct objstore *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].key);
		json_free(s->v[i].obj);
	}
	free(s->v);
	memset(s, 0, sizeof(*s));
}

void objstore_move(struct objstore *dst, struct objstore *src)
{
	objstore_clear(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

/* strcmp(@key, "@ns/@name") without making the second. */
static int objstore_cmp(const char *key, const char *ns, const char *name)
{
	size_t n = strlen(ns);
	int c = strncmp(key, ns, n);

	if (c)
		return c;
	key += n;
	if (*key != '/')
		return (unsigned char)*key - (unsigned char)'/';
	return strcmp(key + 1, name);
}

/* Index of "@ns/@name", or of where it would go (*found false). */
static size_t objstore_index(const struct objstore *s, const char *ns, const char *name, bool *found)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = objstore_cmp(s->v[mid].key, ns, name);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

/* Insert or replace under "@ns/@name": takes @obj (freed on error). Return: 0, -E2BIG past @max, -ENOMEM. */
static int objstore_put(struct objstore *s, const char *ns, const char *name, struct json *obj, size_t max)
{
	bool found;
	size_t i = objstore_index(s, ns, name, &found);
	char *k;

	if (found) {
		json_free(s->v[i].obj);
		s->v[i].obj = obj;
		return 0;
	}
	if (s->n >= max) {
		json_free(obj);
		return -E2BIG;
	}
	if (strbuf_grow_array(&s->v, &s->cap, s->n, sizeof(*s->v), 16) < 0 || asprintf(&k, "%s/%s", ns, name) < 0) {
		json_free(obj);
		return -ENOMEM;
	}
	memmove(s->v + i + 1, s->v + i, (s->n - i) * sizeof(*s->v));
	s->v[i].key = k;
	s->v[i].obj = obj;
	s->n++;
	return 0;
}

static bool objstore_del(struct objstore *s, const char *ns, const char *name)
{
	bool found;
	size_t i = objstore_index(s, ns, name, &found);

	if (!found)
		return false;
	free(s->v[i].key);
	json_free(s->v[i].obj);
	memmove(s->v + i, s->v + i + 1, (s->n - i - 1) * sizeof(*s->v));
	s->n--;
	return true;
}

int objstore_apply(struct objstore *s, const struct watchevent *ev, size_t max)
{
	struct json *dup;
	int k;

	switch (ev->type) {
	case WATCHEVENT_ADDED:
	case WATCHEVENT_MODIFIED:
	case WATCHEVENT_DELETED:
		break;
	case WATCHEVENT_BOOKMARK:
	case WATCHEVENT_ERROR:
		return -EINVAL;
	}
	if (!ev->name[0])
		return -ENOKEY;
	if (ev->type == WATCHEVENT_DELETED)
		return objstore_del(s, ev->ns, ev->name);
	dup = json_dup(ev->object);
	if (!dup)
		return -ENOMEM;
	k = objstore_put(s, ev->ns, ev->name, dup, max);
	return k < 0 ? k : 1;
}

int objstore_parse_list(const char *body, size_t len, size_t max, struct objstore *ret, char *rv, size_t rvsize,
			char *err, size_t errlen)
{
	struct json *root = NULL;
	const struct json *items, *it;
	const char *lrv;
	size_t i = 0;
	int k = 0;

	if (!body || json_parse(body, len, &root) < 0 || json_type(root) != JSON_OBJECT) {
		k = errmsg_set(err, errlen, -EINVAL, "not a JSON object");
		goto out;
	}
	lrv = json_get_string(json_get(root, "metadata"), "resourceVersion");
	if (!watchevent_rv_valid(lrv)) {
		k = errmsg_set(err, errlen, -EINVAL, "metadata.resourceVersion: missing or not 1..63 of [A-Za-z0-9._~-]");
		goto out;
	}
	snprintf(rv, rvsize, "%s", lrv);
	items = json_get(root, "items");
	if (json_type(items) != JSON_ARRAY && json_type(items) != JSON_NULL && items) {
		k = errmsg_set(err, errlen, -EINVAL, "items: expected an array, got %s", json_type_name(json_type(items)));
		goto out;
	}
	for (it = json_first(items); it; it = json_next(it), i++) {
		const char *ns, *name;
		struct json *dup;

		/* One item that cannot be kept is set aside, counted: the rest of the list is read. */
		if (!watchevent_key(it, &ns, &name)) {
			ret->aside++;
			continue;
		}
		dup = json_dup(it);
		k = dup ? objstore_put(ret, ns, name, dup, max) : -ENOMEM;
		if (k < 0) {
			errmsg_set(err, errlen, k, "%s", k == -E2BIG ? "more objects than the limit" : "out of memory");
			goto out;
		}
	}
out:
	json_free(root);
	return k;
}

static const char *objstore_rv(const struct json *obj)
{
	return json_get_string(json_get(obj, "metadata"), "resourceVersion");
}

bool objstore_same(const struct objstore *a, const struct objstore *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const char *ra = objstore_rv(a->v[i].obj), *rb = objstore_rv(b->v[i].obj);

		if (strcmp(a->v[i].key, b->v[i].key) != 0 || !ra || !rb || strcmp(ra, rb) != 0)
			return false;
	}
	return true;
}

const struct json *objstore_find(const struct objstore *s, const char *ns, const char *name)
{
	bool found;
	size_t i;

	if (!name)
		return NULL;
	i = objstore_index(s, ns ? ns : "", name, &found);
	return found ? s->v[i].obj : NULL;
}
