/* yamlcore.h - pure: what a plain YAML scalar means in the YAML 1.2 core schema, and its JSON node. */
#pragma once

#include <stdbool.h>

#include "probes/model/json.h"

enum yamlcore_kind {
	YAMLCORE_NULL,
	YAMLCORE_BOOL,
	YAMLCORE_INT,
	YAMLCORE_FLOAT,
	YAMLCORE_STR,
};

/*
 * yamlcore_resolve() - what the plain scalar @s means in the core schema (null, bool, int, float
 * or a string): its number in *@ret_d, its truth in *@ret_b.
 */
enum yamlcore_kind yamlcore_resolve(const char *s, double *ret_d, bool *ret_b);

/* yamlcore_kind_node() - the JSON node of a scalar of kind @k (@s, @d, @bv as resolved); NULL: -ENOMEM. */
struct json *yamlcore_kind_node(enum yamlcore_kind k, const char *s, double d, bool bv);
