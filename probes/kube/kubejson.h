/* kubejson.h - typed reads of Kubernetes API JSON whose errors name the field (shared by the parsers). */
#pragma once

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
 * kubejson_strings() - the optional member @key of @obj as an array of at most @max_n strings of
 * at most @max_len bytes each: *@ret (malloc'd, each element too) and *@ret_n; absent gives NULL
 * and 0. Return: 0; -EINVAL with @err naming the element; -ENOMEM (nothing is left allocated).
 */
int kubejson_strings(const struct json *obj, const char *key, size_t max_n, size_t max_len,
		     char ***ret, size_t *ret_n, const char *where, char *err, size_t errlen);

/*
 * kubejson_list() - @body (@len bytes) as a list document: an object whose "kind", when present,
 * is one of @kinds (NULL-terminated, two named in the message; @kinds NULL: any), and whose items
 * are handed as *@items (malloc'd, *@n entries, pointing into *@root). @what names the document
 * in errors ("pods"). Free *@root (json_free) and *@items even on failure.
 * Return: 0; -EINVAL (not JSON, not an object, wrong kind, items not an array); -ENOMEM.
 */
int kubejson_list(const char *body, size_t len, const char *what, const char *const *kinds, struct json **root,
		  const struct json ***items, size_t *n, char *err, size_t errlen);
