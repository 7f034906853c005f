/* kubejson.c - typed reads of Kubernetes API JSON whose errors name the field (shared by the parsers). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubejson.h"
#include "probes/model/errmsg.h"

const char *kubejson_tname(const struct json *v)
{
	return v ? json_type_name(json_type(v)) : "nothing";
}

/* The optional string member @key of @obj, of at most @max bytes: *@ret, NULL when absent or null. */
static int kubejson_string(const struct json *obj, const char *key, size_t max, const char **ret,
			   const char *where, char *err, size_t errlen)
{
	const struct json *v = json_get(obj, key);

	*ret = NULL;
	if (!v || json_type(v) == JSON_NULL)
		return 0;
	*ret = json_string(v);
	if (!*ret)
		return errmsg_set(err, errlen, -EINVAL, "%s.%s: expected a string, got %s", where, key, kubejson_tname(v));
	if (strnlen(*ret, max + 1) > max)
		return errmsg_set(err, errlen, -EINVAL, "%s.%s: longer than %zu characters", where, key, max);
	return 0;
}

int kubejson_str(const struct json *obj, const char *key, char *dst, size_t size,
		 const char *where, char *err, size_t errlen)
{
	const char *s;
	int r = kubejson_string(obj, key, size - 1, &s, where, err, errlen);

	dst[0] = '\0';
	if (r == 0 && s)
		memcpy(dst, s, strlen(s) + 1);
	return r;
}

int kubejson_opt(const struct json *obj, const char *key, enum json_type type,
		 const struct json **ret, const char *where, char *err, size_t errlen)
{
	const struct json *v = json_get(obj, key);

	*ret = NULL;
	if (!v || json_type(v) == JSON_NULL)
		return 0;
	if (json_type(v) != type)
		return errmsg_set(err, errlen, -EINVAL, "%s%s%s: expected an %s, got %s", where, *where ? "." : "", key,
				  json_type_name(type), kubejson_tname(v));
	*ret = v;
	return 0;
}

int kubejson_dup(const struct json *obj, const char *key, size_t max, char **ret,
		 const char *where, char *err, size_t errlen)
{
	const char *s;
	int r = kubejson_string(obj, key, max, &s, where, err, errlen);

	*ret = NULL;
	if (r < 0 || !s)
		return r;
	*ret = strdup(s);
	if (!*ret)
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	return 0;
}

/*
 * kubejson_strings() - the optional member @key of @obj as an array of at most @max_n strings of
 * at most @max_len bytes each: *@ret (calloc'd, each element malloc'd) and *@ret_n, NULL and 0
 * when absent or empty. What was read before an error stays there for the caller to free.
 * Return: 0; -EINVAL with @err naming the element; -ENOMEM.
 */
static int kubejson_strings(const struct json *obj, const char *key, size_t max_n, size_t max_len,
			    char ***ret, size_t *ret_n, const char *where, char *err, size_t errlen)
{
	const struct json *arr;
	size_t n, i = 0;
	int r;

	*ret = NULL;
	*ret_n = 0;
	if ((r = kubejson_array(obj, key, max_n, &arr, &n, where, err, errlen)) < 0 || n == 0)
		return r;
	if (!(*ret = calloc(n, sizeof(**ret))))
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	for (const struct json *e = json_first(arr); e; e = json_next(e), i++) {
		const char *s = json_string(e);

		if (!s)
			return errmsg_set(err, errlen, -EINVAL, "%s.%s[%zu]: expected a string, got %s", where, key, i,
					  kubejson_tname(e));
		if (strnlen(s, max_len + 1) > max_len)
			return errmsg_set(err, errlen, -EINVAL, "%s.%s[%zu]: longer than %zu characters", where, key, i, max_len);
		if (!((*ret)[i] = strdup(s)))
			return errmsg_set(err, errlen, -ENOMEM, "out of memory");
		(*ret_n)++;
	}
	return 0;
}

int kubejson_list(const char *body, size_t len, const char *what, const char *const *kinds, struct json **root,
		  const struct json ***items, size_t *n, char *err, size_t errlen)
{
	const struct json *arr = NULL;
	const char *kind;
	size_t i = 0;
	int r;

	*items = NULL;
	*n = 0;
	r = json_parse(body, len, root);
	if (r < 0)
		return errmsg_set(err, errlen, r, "%s: %s", what, r == -ENOMEM ? "out of memory" : "not valid JSON");
	if (json_type(*root) != JSON_OBJECT)
		return errmsg_set(err, errlen, -EINVAL, "%s: expected an object, got %s", what, kubejson_tname(*root));
	kind = json_get_string(*root, "kind");
	for (; kinds && json_get(*root, "kind") && kinds[i] && (!kind || strcmp(kind, kinds[i]) != 0); i++)
		;
	if (kinds && json_get(*root, "kind") && !kinds[i])
		return errmsg_set(err, errlen, -EINVAL, "kind: expected \"%s\" or \"%s\", got %.32s", kinds[0], kinds[1],
				  kind ? kind : kubejson_tname(json_get(*root, "kind")));
	if (kubejson_opt(*root, "items", JSON_ARRAY, &arr, "", err, errlen) < 0)
		return -EINVAL;
	if (json_size(arr) && !(*items = calloc(json_size(arr), sizeof(**items))))
		return errmsg_set(err, errlen, -ENOMEM, "%s: out of memory", what);
	for (const struct json *e = json_first(arr); e; e = json_next(e))
		(*items)[(*n)++] = e;
	return 0;
}

void kubejson_at(char *dst, const char *base, const char *fmt, ...)
{
	size_t n = strnlen(base, KUBEJSON_WHERE - 1);
	va_list ap;

	memmove(dst, base, n);
	va_start(ap, fmt);
	vsnprintf(dst + n, KUBEJSON_WHERE - n, fmt, ap);
	va_end(ap);
}

int kubejson_array(const struct json *obj, const char *key, size_t max, const struct json **ret, size_t *ret_n,
		   const char *where, char *err, size_t errlen)
{
	int r = kubejson_opt(obj, key, JSON_ARRAY, ret, where, err, errlen);

	*ret_n = r < 0 ? 0 : json_size(*ret);
	if (r == 0 && *ret_n > max)
		return errmsg_set(err, errlen, -EINVAL, "%s.%s: %zu entries, at most %zu are read", where, key, *ret_n, max);
	return r;
}

int kubejson_elem(const struct json *e, const char *where, char *err, size_t errlen)
{
	if (json_type(e) == JSON_OBJECT)
		return 0;
	return errmsg_set(err, errlen, -EINVAL, "%s: expected an object, got %s", where, kubejson_tname(e));
}

/* An array of objects, each read by @f's table into a calloc'd element. */
static int kubejson_objects(const struct json *obj, const struct kubejson_field *f, char *dst, const char *where,
			    char *err, size_t errlen)
{
	const struct json *arr;
	char w[KUBEJSON_WHERE];
	size_t n, i = 0;
	char *v;
	int r;

	r = kubejson_array(obj, f->key, f->max, &arr, &n, where, err, errlen);
	if (r < 0 || n == 0)
		return r;
	if (!(v = calloc(n, f->size)))
		return errmsg_set(err, errlen, -ENOMEM, "out of memory");
	memcpy(dst + f->off, &v, sizeof(v));
	memcpy(dst + f->off_n, &n, sizeof(n));
	for (const struct json *e = json_first(arr); e; e = json_next(e), i++, v += f->size) {
		kubejson_at(w, where, ".%s[%zu]", f->key, i);
		if ((r = kubejson_elem(e, w, err, errlen)) < 0 || (r = kubejson_read(e, f->sub, v, w, err, errlen)) < 0 ||
		    (f->fn && (r = f->fn(e, f, v, w, err, errlen)) < 0))
			return r;
	}
	return 0;
}

int kubejson_in(const struct json *obj, const char *path, size_t len, const struct json **ret, char *w,
		const char *where, char *err, size_t errlen)
{
	char key[KUBEJSON_KEY];
	int r;

	kubejson_at(w, where, "%s", "");
	*ret = obj;
	for (const char *p = path, *end = path + len, *e; p < end && *ret; p = e + 1) {
		e = memchr(p, '.', (size_t)(end - p));
		e = e ? e : end;
		snprintf(key, sizeof(key), "%.*s", (int)(e - p), p);
		if ((r = kubejson_opt(*ret, key, JSON_OBJECT, ret, w, err, errlen)) < 0)
			return r;
		kubejson_at(w, w, ".%s", key);
	}
	return 0;
}

/* One row of a table; a key with a '.' (and no '/') is a member of the objects its path names. */
static int kubejson_field(const struct json *obj, const struct kubejson_field *f, char *dst, const char *where,
			  char *err, size_t errlen)
{
	const char *dot = strchr(f->key, '/') ? NULL : strrchr(f->key, '.');
	struct kubejson_field leaf;
	const struct json *v, *sub;
	char w[KUBEJSON_WHERE], in[KUBEJSON_WHERE];
	bool b = false;
	int r;

	if (dot) {
		if ((r = kubejson_in(obj, f->key, (size_t)(dot - f->key), &obj, in, where, err, errlen)) < 0)
			return r;
		leaf = *f;
		leaf.key = dot + 1;
		f = &leaf;
		where = in;
	}
	v = json_get(obj, f->key);
	switch (f->kind) {
	case KUBEJSON_DUP:
		if ((r = kubejson_dup(obj, f->key, f->max, (char **)(dst + f->off), where, err, errlen)) < 0)
			return r;
		if (f->required && !*(char **)(dst + f->off))
			return errmsg_set(err, errlen, -EINVAL, "%s.%s: missing", where, f->key);
		return 0;
	case KUBEJSON_TEXT:
		return kubejson_str(obj, f->key, dst + f->off, f->max + 1, where, err, errlen);
	case KUBEJSON_BOOL:
		if (v && json_type(v) != JSON_NULL && !json_bool(v, &b))
			return errmsg_set(err, errlen, -EINVAL, "%s.%s: expected a boolean, got %s", where, f->key,
					  kubejson_tname(v));
		*(bool *)(dst + f->off) = b;
		return 0;
	case KUBEJSON_TRUE:
		*(bool *)(dst + f->off) = json_bool(v, &b) && b;
		return 0;
	case KUBEJSON_STRINGS:
		return kubejson_strings(obj, f->key, f->max, f->len, (char ***)(dst + f->off), (size_t *)(dst + f->off_n),
					where, err, errlen);
	case KUBEJSON_OBJECT:
		if ((r = kubejson_opt(obj, f->key, JSON_OBJECT, &sub, where, err, errlen)) < 0 || !sub)
			return r;
		kubejson_at(w, where, ".%s", f->key);
		if ((r = kubejson_read(sub, f->sub, dst, w, err, errlen)) < 0 || !f->fn)
			return r;
		return f->fn(sub, f, dst, w, err, errlen);
	case KUBEJSON_OBJECTS:
		return kubejson_objects(obj, f, dst, where, err, errlen);
	case KUBEJSON_CALL:
		return f->fn(obj, f, dst, where, err, errlen);
	}
	return -EINVAL;
}

int kubejson_read(const struct json *obj, const struct kubejson_field *f, void *dst, const char *where,
		  char *err, size_t errlen)
{
	int r = 0;

	for (; r == 0 && f && f->key; f++)
		r = kubejson_field(obj, f, dst, where, err, errlen);
	return r;
}

int kubejson_items(const struct json *const *items, size_t n, size_t max, const char *what,
		   const struct kubejson_field *f, size_t size, int (*cmp)(const void *, const void *), void **ret,
		   char *err, size_t errlen)
{
	char where[32], *v;
	int r = 0;

	*ret = NULL;
	if (n > max)
		return errmsg_set(err, errlen, -EINVAL, "items: more than %zu %s", max, what);
	if (!(v = *ret = calloc(n ? n : 1, size)))
		return errmsg_set(err, errlen, -ENOMEM, "%s: out of memory", what);
	for (size_t i = 0; r == 0 && i < n; i++) {
		snprintf(where, sizeof(where), "items[%zu]", i);
		if ((r = kubejson_elem(items[i], where, err, errlen)) == 0)
			r = kubejson_read(items[i], f, v + i * size, where, err, errlen);
	}
	if (r == 0 && n > 1)
		qsort(v, n, size, cmp);
	return r;
}
