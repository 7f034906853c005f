/* jsonscan.h - a strict single-pass JSON scanner that hands chosen members to callbacks (no tree). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * Large documents are mostly bytes a reader never looks at (a NodeList's status, images, GKE's
 * own annotations): a full tree of 5,000 nodes costs half a second and 130 MiB. The scanner walks
 * the text once, validates it against the RFC 8259 grammar (depth-limited to JSON_MAX_DEPTH), and
 * calls back only for the objects and arrays a reader asks for; only the values it keeps go to
 * the JSON adapter. Keys are matched byte for byte (a key written with escapes is not recognised).
 *
 * Every walker takes [p, end) with p at the value and returns the byte after it, or NULL when
 * the text is not valid JSON there (or a callback returned NULL to stop).
 */

/* A member callback: @key (not NUL-terminated, escapes kept) and its value at @v (< @end). */
typedef const char *(*jsonscan_member_fn)(void *ctx, const char *key, size_t klen, const char *v,
					  const char *end, int depth);
/* An element callback: the element at @v (may be == @end on truncated input). */
typedef const char *(*jsonscan_element_fn)(void *ctx, const char *v, const char *end, int depth);

/* A value kept by jsonscan_field(): the first of duplicate keys wins, as in json_get(). */
struct jsonscan_field {
	bool present;
	char *s;                /* the decoded string, owned; NULL when present but not a string */
	char type;              /* the value's first byte: its JSON type (see jsonscan_type_name) */
};

const char *jsonscan_ws(const char *p, const char *end);

/* Skip one value of any type. */
const char *jsonscan_value(const char *p, const char *end, int depth);

/* @p at '{': each member's value goes to @fn (NULL: skipped). */
const char *jsonscan_object(void *ctx, const char *p, const char *end, int depth, jsonscan_member_fn fn);

/* @p at '[': each element goes to @fn (NULL: skipped). */
const char *jsonscan_array(void *ctx, const char *p, const char *end, int depth, jsonscan_element_fn fn);

/**
 * jsonscan_field() - skip the value at @v and keep it in @f unless @f already holds one.
 * @ret_err: when a string cannot be kept (then NULL is returned): -ENOMEM when decoding it ran out
 * of memory, -EILSEQ when an escape is no character (a lone UTF-16 surrogate such as \ud800, which
 * no UTF-8 text can hold).
 */
const char *jsonscan_field(struct jsonscan_field *f, const char *v, const char *end, int depth, int *ret_err);

void jsonscan_field_clear(struct jsonscan_field *f);

/* "string", "object", "array", "boolean", "null" or "number", from a value's first byte. */
const char *jsonscan_type_name(char type);

/* Whether the key @k of @klen bytes is exactly @want. */
bool jsonscan_key_is(const char *k, size_t klen, const char *want);
