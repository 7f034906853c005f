/* json.h - the JSON adapter: parse and build JSON values (the only face of cJSON). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define JSON_MAX_DEPTH 64       /* deeper input is rejected: nothing we read nests that far */

struct json;                    /* opaque value; a tree is owned by its root */

enum json_type {
	JSON_INVALID = 0,
	JSON_NULL,
	JSON_BOOL,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

/**
 * json_parse() - parse @len bytes of JSON text (need not be NUL-terminated).
 * @ret: written on success; free with json_free().
 *
 * Return: 0; -EINVAL for malformed or too deeply nested input; -ENOMEM.
 */
int json_parse(const char *text, size_t len, struct json **ret);

void json_free(struct json *v);

enum json_type json_type(const struct json *v);        /* JSON_INVALID for NULL */
const char *json_type_name(enum json_type t);

/* Object member by key (first match), or NULL when absent or @obj is not an object. */
const struct json *json_get(const struct json *obj, const char *key);
/* Member's string value, or NULL when absent or not a string. */
const char *json_get_string(const struct json *obj, const char *key);

const char *json_string(const struct json *v);          /* NULL unless a string */
bool json_bool(const struct json *v, bool *ret);       /* false unless a bool */
bool json_number(const struct json *v, double *ret);   /* false unless a number */

/* Iterate the elements of an array or the members of an object: first, then next until NULL. */
const struct json *json_first(const struct json *v);
const struct json *json_next(const struct json *v);
const char *json_key(const struct json *member);       /* member key inside an object */
size_t json_size(const struct json *v);                 /* elements/members; 0 otherwise */

/* Building. Every json_add_* returns 0 or -ENOMEM; on error nothing is leaked. */
struct json *json_new_object(void);
struct json *json_new_array(void);
struct json *json_new_string(const char *s);            /* s NULL gives null */
struct json *json_new_number(double d);
struct json *json_new_bool(bool b);
struct json *json_new_null(void);
int json_add(struct json *obj, const char *key, struct json *child);   /* takes child, even on error */
int json_add_string(struct json *obj, const char *key, const char *s); /* s NULL gives null */
int json_add_int(struct json *obj, const char *key, long long n);
int json_add_bool(struct json *obj, const char *key, bool b);
int json_add_null(struct json *obj, const char *key);
int json_append(struct json *arr, struct json *child);                 /* takes child, even on error */
int json_append_string(struct json *arr, const char *s);

/* Deep copy; NULL on -ENOMEM. */
struct json *json_dup(const struct json *v);

/**
 * json_print() - serialise @v.
 * @pretty: two-space indentation and "key": value; otherwise compact without spaces.
 *
 * Return: a malloc'd NUL-terminated string (caller frees), or NULL on -ENOMEM.
 */
char *json_print(const struct json *v, bool pretty);
