/* jsonscan.c - a strict single-pass JSON scanner with member and element callbacks. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/jsonscan.h"

const char *jsonscan_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
		p++;
	return p;
}

/* @p at '"': the byte after the closing quote, or NULL. */
static const char *jsonscan_string(const char *p, const char *end)
{
	for (p++; p < end; p++) {
		unsigned char ch = (unsigned char)*p;

		if (ch == '"')
			return p + 1;
		if (ch < 0x20)
			return NULL;
		if (ch != '\\')
			continue;
		if (++p >= end)
			return NULL;
		switch (*p) {
		case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
			break;
		case 'u':
			if (end - p < 5 || !isxdigit((unsigned char)p[1]) || !isxdigit((unsigned char)p[2]) ||
			    !isxdigit((unsigned char)p[3]) || !isxdigit((unsigned char)p[4]))
				return NULL;
			p += 4;
			break;
		default:
			return NULL;
		}
	}
	return NULL;
}

static const char *jsonscan_digits(const char *p, const char *end)
{
	const char *s = p;

	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p > s ? p : NULL;
}

static const char *jsonscan_number(const char *p, const char *end)
{
	if (p < end && *p == '-')
		p++;
	if (p < end && *p == '0')
		p++;
	else if (!(p = jsonscan_digits(p, end)))
		return NULL;
	if (p < end && *p == '.' && !(p = jsonscan_digits(p + 1, end)))
		return NULL;
	if (p < end && (*p == 'e' || *p == 'E')) {
		p++;
		if (p < end && (*p == '+' || *p == '-'))
			p++;
		if (!(p = jsonscan_digits(p, end)))
			return NULL;
	}
	return p;
}

/*
 * After the opening bracket at @p: the first member's start; past @close when the container is
 * empty (*@empty); NULL past the depth limit.
 */
static const char *jsonscan_open(const char *p, const char *end, int depth, char close, bool *empty)
{
	if (depth >= JSON_MAX_DEPTH)
		return NULL;
	p = jsonscan_ws(p + 1, end);
	*empty = p < end && *p == close;
	return *empty ? p + 1 : p;
}

/* After a member or an element: the next one's start (*@more), or past @close; NULL for anything else. */
static const char *jsonscan_next(const char *p, const char *end, char close, bool *more)
{
	p = jsonscan_ws(p, end);
	*more = p < end && *p == ',';
	if (*more)
		return jsonscan_ws(p + 1, end);
	return p < end && *p == close ? p + 1 : NULL;
}

const char *jsonscan_object(void *ctx, const char *p, const char *end, int depth, jsonscan_member_fn fn)
{
	bool empty, more;

	p = jsonscan_open(p, end, depth, '}', &empty);
	if (!p || empty)
		return p;
	for (;;) {
		const char *key = p, *v;

		if (p >= end || *p != '"' || !(p = jsonscan_string(p, end)))
			return NULL;
		v = jsonscan_ws(p, end);
		if (v >= end || *v != ':')
			return NULL;
		v = jsonscan_ws(v + 1, end);
		if (v >= end)
			return NULL;    /* "key": at the end of input: callbacks may read *v */
		p = fn ? fn(ctx, key + 1, (size_t)(p - key - 2), v, end, depth + 1) :
			jsonscan_value(v, end, depth + 1);
		if (!p)
			return NULL;
		p = jsonscan_next(p, end, '}', &more);
		if (!p || !more)
			return p;
	}
}

const char *jsonscan_array(void *ctx, const char *p, const char *end, int depth, jsonscan_element_fn fn)
{
	bool empty, more;

	p = jsonscan_open(p, end, depth, ']', &empty);
	if (!p || empty)
		return p;
	for (;;) {
		p = fn ? fn(ctx, p, end, depth + 1) : jsonscan_value(p, end, depth + 1);
		if (!p)
			return NULL;
		p = jsonscan_next(p, end, ']', &more);
		if (!p || !more)
			return p;
	}
}

const char *jsonscan_value(const char *p, const char *end, int depth)
{
	if (p >= end)
		return NULL;
	switch (*p) {
	case '"': return jsonscan_string(p, end);
	case '{': return jsonscan_object(NULL, p, end, depth, NULL);
	case '[': return jsonscan_array(NULL, p, end, depth, NULL);
	case 't': return end - p >= 4 && memcmp(p, "true", 4) == 0 ? p + 4 : NULL;
	case 'f': return end - p >= 5 && memcmp(p, "false", 5) == 0 ? p + 5 : NULL;
	case 'n': return end - p >= 4 && memcmp(p, "null", 4) == 0 ? p + 4 : NULL;
	default: return jsonscan_number(p, end);
	}
}

const char *jsonscan_type_name(char type)
{
	switch (type) {
	case '"': return "string";
	case '{': return "object";
	case '[': return "array";
	case 't': case 'f': return "boolean";
	case 'n': return "null";
	default: return "number";
	}
}

const char *jsonscan_field(struct jsonscan_field *f, const char *v, const char *end, int depth, int *ret_err)
{
	const char *e = jsonscan_value(v, end, depth);
	struct json *str = NULL;
	int r = -ENOMEM;

	if (!e || f->present)
		return e;
	f->present = true;
	f->type = *v;
	if (*v != '"')
		return e;
	if (!memchr(v, '\\', (size_t)(e - v))) {
		f->s = strndup(v + 1, (size_t)(e - v - 2));
	} else {
		/* The scan checked the escapes' form; the decoder refuses what is no character (\ud800 alone). */
		r = json_parse(v, (size_t)(e - v), &str);
		if (r == 0 && json_string(str))
			f->s = strdup(json_string(str));
		r = r == -ENOMEM || r == 0 ? -ENOMEM : -EILSEQ;
	}
	json_free(str);
	if (!f->s) {
		*ret_err = r;
		return NULL;
	}
	return e;
}

void jsonscan_field_clear(struct jsonscan_field *f)
{
	free(f->s);
	memset(f, 0, sizeof(*f));
}

bool jsonscan_key_is(const char *k, size_t klen, const char *want)
{
	return strlen(want) == klen && memcmp(k, want, klen) == 0;
}
