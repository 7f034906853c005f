/* json.c - the JSON adapter over cJSON: parsing with limits, building, a deterministic printer. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"

/* Our opaque type is cJSON itself; the cast stays inside this file. */
#define C(v) ((cJSON *)(v))
#define CC(v) ((const cJSON *)(v))

static int json_depth_ok(const cJSON *v, int depth)
{
	if (depth > JSON_MAX_DEPTH)
		return 0;
	for (const cJSON *c = v->child; c; c = c->next)
		if (!json_depth_ok(c, depth + 1))
			return 0;
	return 1;
}

int json_parse(const char *text, size_t len, struct json **ret)
{
	cJSON *v;

	if (!text)
		return -EINVAL;
	v = cJSON_ParseWithLength(text, len);
	if (!v)
		return -EINVAL;
	if (!json_depth_ok(v, 0)) {
		cJSON_Delete(v);
		return -EINVAL;
	}
	*ret = (struct json *)v;
	return 0;
}

void json_free(struct json *v)
{
	if (v)
		cJSON_Delete(C(v));
}

enum json_type json_type(const struct json *v)
{
	if (!v)
		return JSON_INVALID;
	switch (CC(v)->type & 0xff) {
	case cJSON_NULL: return JSON_NULL;
	case cJSON_False:
	case cJSON_True: return JSON_BOOL;
	case cJSON_Number: return JSON_NUMBER;
	case cJSON_String: return JSON_STRING;
	case cJSON_Array: return JSON_ARRAY;
	case cJSON_Object: return JSON_OBJECT;
	default: return JSON_INVALID;
	}
}

const char *json_type_name(enum json_type t)
{
	switch (t) {
	case JSON_INVALID: return "invalid";
	case JSON_NULL: return "null";
	case JSON_BOOL: return "boolean";
	case JSON_NUMBER: return "number";
	case JSON_STRING: return "string";
	case JSON_ARRAY: return "array";
	case JSON_OBJECT: return "object";
	}
	return "invalid";
}

const struct json *json_get(const struct json *obj, const char *key)
{
	if (json_type(obj) != JSON_OBJECT || !key)
		return NULL;
	/* Case-sensitive: JSON keys are; cJSON_GetObjectItem is not. */
	return (const struct json *)cJSON_GetObjectItemCaseSensitive(CC(obj), key);
}

const char *json_get_string(const struct json *obj, const char *key)
{
	return json_string(json_get(obj, key));
}

const char *json_string(const struct json *v)
{
	return json_type(v) == JSON_STRING ? CC(v)->valuestring : NULL;
}

bool json_bool(const struct json *v, bool *ret)
{
	if (json_type(v) != JSON_BOOL)
		return false;
	*ret = cJSON_IsTrue(CC(v));
	return true;
}

bool json_number(const struct json *v, double *ret)
{
	if (json_type(v) != JSON_NUMBER)
		return false;
	*ret = CC(v)->valuedouble;
	return true;
}

const struct json *json_first(const struct json *v)
{
	enum json_type t = json_type(v);

	if (t != JSON_ARRAY && t != JSON_OBJECT)
		return NULL;
	return (const struct json *)CC(v)->child;
}

const struct json *json_next(const struct json *v)
{
	return v ? (const struct json *)CC(v)->next : NULL;
}

const char *json_key(const struct json *member)
{
	return member ? CC(member)->string : NULL;
}

size_t json_size(const struct json *v)
{
	size_t n = 0;

	for (const struct json *c = json_first(v); c; c = json_next(c))
		n++;
	return n;
}

struct json *json_new_object(void)
{
	return (struct json *)cJSON_CreateObject();
}

struct json *json_new_array(void)
{
	return (struct json *)cJSON_CreateArray();
}

struct json *json_new_string(const char *s)
{
	return (struct json *)(s ? cJSON_CreateString(s) : cJSON_CreateNull());
}

struct json *json_new_number(double d)
{
	return (struct json *)cJSON_CreateNumber(d);
}

struct json *json_new_bool(bool b)
{
	return (struct json *)cJSON_CreateBool(b);
}

struct json *json_new_null(void)
{
	return (struct json *)cJSON_CreateNull();
}

int json_add(struct json *obj, const char *key, struct json *child)
{
	if (!obj || !child || !cJSON_AddItemToObject(C(obj), key, C(child))) {
		json_free(child);
		return -ENOMEM;
	}
	return 0;
}

int json_add_string(struct json *obj, const char *key, const char *s)
{
	return json_add(obj, key, json_new_string(s));
}

int json_add_int(struct json *obj, const char *key, long long n)
{
	return json_add(obj, key, (struct json *)cJSON_CreateNumber((double)n));
}

int json_add_bool(struct json *obj, const char *key, bool b)
{
	return json_add(obj, key, (struct json *)cJSON_CreateBool(b));
}

int json_add_null(struct json *obj, const char *key)
{
	return json_add(obj, key, (struct json *)cJSON_CreateNull());
}

int json_append(struct json *arr, struct json *child)
{
	if (!arr || !child || !cJSON_AddItemToArray(C(arr), C(child))) {
		json_free(child);
		return -ENOMEM;
	}
	return 0;
}

int json_append_string(struct json *arr, const char *s)
{
	return json_append(arr, json_new_string(s));
}

struct json *json_dup(const struct json *v)
{
	return v ? (struct json *)cJSON_Duplicate(CC(v), 1) : NULL;
}

/* Our own printer: cJSON's pretty form uses tabs; ours is stable two-space JSON. */
/* Runs of characters that need no escape are appended whole (a character at a time cost a third of --once). */
static void json_print_string(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_append(sb, "\"");
	while (*p) {
		size_t run = 0;

		while (p[run] >= 0x20 && p[run] != '"' && p[run] != '\\')
			run++;
		if (run) {
			strbuf_appendn(sb, (const char *)p, run);
			p += run;
			continue;
		}
		switch (*p) {
		case '"': strbuf_append(sb, "\\\""); break;
		case '\\': strbuf_append(sb, "\\\\"); break;
		case '\b': strbuf_append(sb, "\\b"); break;
		case '\f': strbuf_append(sb, "\\f"); break;
		case '\n': strbuf_append(sb, "\\n"); break;
		case '\r': strbuf_append(sb, "\\r"); break;
		case '\t': strbuf_append(sb, "\\t"); break;
		default: strbuf_appendf(sb, "\\u%04x", *p); break;
		}
		p++;
	}
	strbuf_append(sb, "\"");
}

static void json_indent(struct strbuf *sb, int level)
{
	static const char spaces[] = "                                                                ";
	size_t n = (size_t)level * 2;

	strbuf_append(sb, "\n");
	for (; n > sizeof(spaces) - 1; n -= sizeof(spaces) - 1)
		strbuf_appendn(sb, spaces, sizeof(spaces) - 1);
	strbuf_appendn(sb, spaces, n);
}

static void json_print_value(struct strbuf *sb, const cJSON *v, bool pretty, int level)
{
	bool obj;

	switch (v->type & 0xff) {
	case cJSON_NULL: strbuf_append(sb, "null"); return;
	case cJSON_False: strbuf_append(sb, "false"); return;
	case cJSON_True: strbuf_append(sb, "true"); return;
	case cJSON_String: json_print_string(sb, v->valuestring ? v->valuestring : ""); return;
	case cJSON_Raw: strbuf_append(sb, v->valuestring ? v->valuestring : "null"); return;
	case cJSON_Number: {
		double d = v->valuedouble;

		if (!isfinite(d))
			strbuf_append(sb, "null");
		else if (d == floor(d) && fabs(d) < 9007199254740992.0)
			strbuf_appendf(sb, "%.0f", d);
		else
			strbuf_appendf(sb, "%.17g", d);
		return;
	}
	case cJSON_Array:
	case cJSON_Object:
		break;
	default:
		strbuf_append(sb, "null");
		return;
	}
	obj = (v->type & 0xff) == cJSON_Object;
	strbuf_append(sb, obj ? "{" : "[");
	for (const cJSON *c = v->child; c; c = c->next) {
		if (pretty)
			json_indent(sb, level + 1);
		if (obj) {
			json_print_string(sb, c->string ? c->string : "");
			strbuf_append(sb, pretty ? ": " : ":");
		}
		json_print_value(sb, c, pretty, level + 1);
		if (c->next)
			strbuf_append(sb, ",");
	}
	if (pretty && v->child)
		json_indent(sb, level);
	strbuf_append(sb, obj ? "}" : "]");
}

char *json_print(const struct json *v, bool pretty)
{
	struct strbuf sb = { 0 };

	if (!v)
		return NULL;
	json_print_value(&sb, CC(v), pretty, 0);
	return strbuf_take(&sb);
}
