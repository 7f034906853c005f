/* yamlcore.c - pure: what a plain YAML scalar means in the YAML 1.2 core schema, and its JSON node. */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/yamlcore.h"

static bool yamlcore_is(const char *s, const char *a, const char *b, const char *c)
{
	return strcmp(s, a) == 0 || strcmp(s, b) == 0 || strcmp(s, c) == 0;
}

static bool yamlcore_digits(const char *s, const char *set)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!strchr(set, *s))
			return false;
	return true;
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )? */
static bool yamlcore_float_shape(const char *s)
{
	size_t lead = 0, frac = 0;

	if (*s == '-' || *s == '+')
		s++;
	while (*s >= '0' && *s <= '9') {
		s++;
		lead++;
	}
	if (*s == '.') {
		s++;
		while (*s >= '0' && *s <= '9') {
			s++;
			frac++;
		}
		if (!lead && !frac)
			return false;
	} else if (!lead) {
		return false;
	}
	if (*s == 'e' || *s == 'E') {
		size_t exp = 0;

		s++;
		if (*s == '-' || *s == '+')
			s++;
		while (*s >= '0' && *s <= '9') {
			s++;
			exp++;
		}
		if (!exp)
			return false;
	}
	return *s == '\0';
}

enum yamlcore_kind yamlcore_resolve(const char *s, double *ret_d, bool *ret_b)
{
	const char *u = (*s == '-' || *s == '+') ? s + 1 : s;

	if (!*s || yamlcore_is(s, "~", "null", "Null") || strcmp(s, "NULL") == 0)
		return YAMLCORE_NULL;
	if (yamlcore_is(s, "true", "True", "TRUE")) {
		*ret_b = true;
		return YAMLCORE_BOOL;
	}
	if (yamlcore_is(s, "false", "False", "FALSE")) {
		*ret_b = false;
		return YAMLCORE_BOOL;
	}
	if (yamlcore_digits(u, "0123456789")) {
		*ret_d = strtod(s, NULL);
		return YAMLCORE_INT;
	}
	if (strncmp(s, "0o", 2) == 0 && yamlcore_digits(s + 2, "01234567")) {
		*ret_d = (double)strtoull(s + 2, NULL, 8);
		if (strlen(s + 2) > 21)
			*ret_d = INFINITY;
		return YAMLCORE_INT;
	}
	if (strncmp(s, "0x", 2) == 0 && yamlcore_digits(s + 2, "0123456789abcdefABCDEF")) {
		*ret_d = strlen(s + 2) > 16 ? INFINITY : (double)strtoull(s + 2, NULL, 16);
		return YAMLCORE_INT;
	}
	if (yamlcore_is(u, ".inf", ".Inf", ".INF")) {
		*ret_d = *s == '-' ? -INFINITY : INFINITY;
		return YAMLCORE_FLOAT;
	}
	if (yamlcore_is(s, ".nan", ".NaN", ".NAN")) {
		*ret_d = NAN;
		return YAMLCORE_FLOAT;
	}
	if (yamlcore_float_shape(s)) {
		*ret_d = strtod(s, NULL);
		return YAMLCORE_FLOAT;
	}
	return YAMLCORE_STR;
}

struct json *yamlcore_kind_node(enum yamlcore_kind k, const char *s, double d, bool bv)
{
	switch (k) {
	case YAMLCORE_NULL: return json_new_null();
	case YAMLCORE_BOOL: return json_new_bool(bv);
	case YAMLCORE_INT:
	case YAMLCORE_FLOAT: return json_new_number(d);
	case YAMLCORE_STR: return json_new_string(s);
	}
	return NULL;
}
