/* kubejson.h - typed reads of Kubernetes API JSON whose errors name the field (shared by the parsers). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/json.h"

/* The JSON type name of @v, or "nothing" when absent. */
const char *kubejson_tname(const struct json *v);

/*
 * kubejson_str() - copy the optional string member @key of @obj into @dst (@size bytes).
 * Absent or null leaves "". Return: 0, or -EINVAL (wrong type, too long) with @err naming
 * @where.@key.
 */
int kubejson_str(const struct json *obj, const char *key, char *dst, size_t size,
		 const char *where, char *err, size_t errlen);

/*
 * kubejson_opt() - an optional member that must be of @type (object or array) when present:
 * *@ret is it, or NULL when absent or null. Return: 0, or -EINVAL with @err naming the field.
 */
int kubejson_opt(const struct json *obj, const char *key, enum json_type type,
		 const struct json **ret, const char *where, char *err, size_t errlen);

/*
 * kubejson_dup() - a malloc'd copy of the optional string member @key of @obj, of at most @max
 * bytes. Absent or null gives *@ret = NULL. Return: 0; -EINVAL (wrong type, too long) with @err
 * naming @where.@key; -ENOMEM.
 */
int kubejson_dup(const struct json *obj, const char *key, size_t max, char **ret,
		 const char *where, char *err, size_t errlen);

/*
 * kubejson_list() - @body (@len bytes) as a list document: an object whose "kind", when present,
 * is one of @kinds (NULL-terminated, two named in the message; @kinds NULL: any), and whose items
 * are handed as *@items (malloc'd, *@n entries, pointing into *@root). @what names the document
 * in errors ("pods"). Free *@root (json_free) and *@items even on failure.
 * Return: 0; -EINVAL (not JSON, not an object, wrong kind, items not an array); -ENOMEM.
 */
int kubejson_list(const char *body, size_t len, const char *what, const char *const *kinds, struct json **root,
		  const struct json ***items, size_t *n, char *err, size_t errlen);

/*
 * Field tables (as ethtool's netlink parsers read attributes): an object is read by a const
 * table of the members the model holds, each row naming its key, its kind and where in the
 * destination struct it goes; kubejson_read() walks the table, and every error names the field
 * by its path ("pod.spec.containers[0].env[2].name: missing"). Absent and null members are alike
 * (as the API server's decoder reads them). A key with '.' and no '/' is a path ("spec.nodeName":
 * nodeName of the object spec; all absent when spec is); a qualified name ("dra.net/rdma") is one key.
 */
#define KUBEJSON_WHERE 256              /* a field's path in messages */
#define KUBEJSON_KEY 64                 /* one step of a row's path ("spec.template": two) */

enum kubejson_kind {
	KUBEJSON_DUP,           /* char *: a string of at most .max bytes, malloc'd; NULL when absent */
	KUBEJSON_TEXT,          /* char[.max + 1]: a string of at most .max bytes; "" when absent */
	KUBEJSON_BOOL,          /* bool: a boolean; false when absent; another type is refused */
	KUBEJSON_TRUE,          /* bool: whether it is the boolean true (nothing refused) */
	KUBEJSON_STRINGS,       /* char ** at .off, size_t at .off_n: at most .max strings of .len bytes */
	KUBEJSON_OBJECT,        /* an object whose members .sub reads into the same destination */
	KUBEJSON_OBJECTS,       /* an array of at most .max objects, each read by .sub into an element
				 * of .size bytes (calloc'd: pointer at .off, count at .off_n), then by
				 * .fn when set (the element's own rules) */
	KUBEJSON_CALL,          /* .fn reads the member (called even when it is absent) */
};

struct kubejson_field;

/* A row's own reader: the member .key of @obj into @dst (the destination struct, or the element). */
typedef int (*kubejson_fn)(const struct json *obj, const struct kubejson_field *f, void *dst, const char *where,
			   char *err, size_t errlen);

struct kubejson_field {
	const char *key;        /* NULL ends a table */
	enum kubejson_kind kind;
	size_t off, off_n;
	size_t max, len;
	bool required;          /* KUBEJSON_DUP: absent is refused ("missing") */
	const struct kubejson_field *sub;
	size_t size;
	kubejson_fn fn;
};

/* The rows of a table, by kind: @t the destination's struct (its tag), @f and @n its members. */
#define KUBEJSON_ROW_DUP(k, t, f, m) { .key = (k), .kind = KUBEJSON_DUP, .off = offsetof(struct t, f), .max = (m) }
#define KUBEJSON_ROW_NEED(k, t, f, m) \
	{ .key = (k), .kind = KUBEJSON_DUP, .off = offsetof(struct t, f), .max = (m), .required = true }
#define KUBEJSON_ROW_TEXT(k, t, f) \
	{ .key = (k), .kind = KUBEJSON_TEXT, .off = offsetof(struct t, f), .max = sizeof(((struct t *)0)->f) - 1 }
#define KUBEJSON_ROW_BOOL(k, t, f) { .key = (k), .kind = KUBEJSON_BOOL, .off = offsetof(struct t, f) }
#define KUBEJSON_ROW_TRUE(k, t, f) { .key = (k), .kind = KUBEJSON_TRUE, .off = offsetof(struct t, f) }
#define KUBEJSON_ROW_STRINGS(k, t, f, n, m, l) \
	{ .key = (k), .kind = KUBEJSON_STRINGS, .off = offsetof(struct t, f), .off_n = offsetof(struct t, n), \
	  .max = (m), .len = (l) }
#define KUBEJSON_ROW_OBJECT(k, s, fn_) { .key = (k), .kind = KUBEJSON_OBJECT, .sub = (s), .fn = (fn_) }
#define KUBEJSON_ROW_OBJECTS(k, t, f, n, m, s, fn_) \
	{ .key = (k), .kind = KUBEJSON_OBJECTS, .off = offsetof(struct t, f), .off_n = offsetof(struct t, n), \
	  .max = (m), .sub = (s), .size = sizeof(*((struct t *)0)->f), .fn = (fn_) }
#define KUBEJSON_ROW_CALL(k, t, f, m, fn_) \
	{ .key = (k), .kind = KUBEJSON_CALL, .off = offsetof(struct t, f), .max = (m), .fn = (fn_) }
#define KUBEJSON_ROW_FN(k, fn_) { .key = (k), .kind = KUBEJSON_CALL, .fn = (fn_) }
#define KUBEJSON_ROW_END { .key = NULL }

/*
 * kubejson_read() - the members of @obj (an object, or NULL: all absent) that the table @f
 * (NULL: none) names, into @dst; @where is @obj's path. What was read before an error stays in @dst for the
 * caller to free. Return: 0; -EINVAL with @err naming the field; -ENOMEM.
 */
int kubejson_read(const struct json *obj, const struct kubejson_field *f, void *dst, const char *where,
		  char *err, size_t errlen);

/* kubejson_at() - @dst (KUBEJSON_WHERE bytes) = @base then @fmt: a path for messages, cut when too long. */
void kubejson_at(char *dst, const char *base, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* kubejson_array() - an optional array member of at most @max entries: *@ret (NULL when absent), *@ret_n. */
int kubejson_array(const struct json *obj, const char *key, size_t max, const struct json **ret, size_t *ret_n,
		   const char *where, char *err, size_t errlen);

/*
 * kubejson_in() - the object at the first @len bytes of @path (keys joined by '.': "spec.template")
 * under @obj: *@ret, NULL from the first step that is absent or null; @w (KUBEJSON_WHERE bytes) is
 * @where and the steps taken, the absent one included. Return: 0, or -EINVAL (a step is not an
 * object) with @err naming it.
 */
int kubejson_in(const struct json *obj, const char *path, size_t len, const struct json **ret, char *w,
		const char *where, char *err, size_t errlen);

/* kubejson_elem() - @e must be an object: 0, or -EINVAL naming @where. */
int kubejson_elem(const struct json *e, const char *where, char *err, size_t errlen);

/*
 * kubejson_items() - the @n @items of a list (at most @max; @what names them: "Networks"), each an
 * object read by the table @f into an element of @size bytes of *@ret (calloc'd, also on failure:
 * the caller frees what was read), then sorted by @cmp. Return: 0; -EINVAL naming the item's
 * field; -ENOMEM.
 */
int kubejson_items(const struct json *const *items, size_t n, size_t max, const char *what,
		   const struct kubejson_field *f, size_t size, int (*cmp)(const void *, const void *), void **ret,
		   char *err, size_t errlen);
