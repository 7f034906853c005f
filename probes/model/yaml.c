/*
 * yaml.c - the YAML adapter over libyaml's event parser: documents into JSON trees, with limits.
 *
 * One concern, libyaml's event stream built into trees: the limits (depth, size, aliases),
 * anchors, duplicate keys and tags are all checked as the events arrive, and the adapter rule
 * keeps every libyaml call in this one file; what a plain scalar means is yamlcore.c's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "probes/model/yaml.h"
#include "probes/model/strbuf.h"
#include "probes/model/yamlcore.h"

#define YAML_TAG_PREFIX "tag:yaml.org,2002:"

/* The keys of one mapping, for the duplicate check: open addressing over owned copies. */
struct yaml_keyset {
	char **slot;
	size_t cap, n;
};

/* One collection being built. */
struct yaml_frame {
	struct json *node;
	bool map;
	char *key;              /* mapping: the key waiting for its value; NULL when a key comes next */
	char *anchor;           /* registered when the collection ends (an alias inside it is an error) */
	size_t nodes_at_start;
	int height;             /* levels below this node: 0 for an empty collection */
	struct yaml_keyset keys;
};

struct yaml_anchor {
	char *name;
	const struct json *node;        /* inside the document's tree, or owned (a key's anchor) */
	struct json *owned;
	size_t nodes;
	int height;
};

struct yaml_builder {
	const char *text;
	size_t len;
	struct yaml_frame stack[JSON_MAX_DEPTH + 1];
	int depth;                      /* open collections */
	struct json *root;
	struct yaml_anchor *anchors;
	size_t n_anchors, cap_anchors;
	size_t nodes, alias_nodes;
	char *err;
	size_t errlen;
	yaml_doc_fn fn;                 /* where each finished document goes */
	void *ctx;
	size_t n_docs;                  /* documents handed on */
	size_t doc_max;                 /* characters of one document, 0 unlimited */
	size_t doc_start, doc_line;     /* where the current document starts (index, 1-based line) */
};

static int yaml_fail(struct yaml_builder *b, const yaml_mark_t *m, int r, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int yaml_fail(struct yaml_builder *b, const yaml_mark_t *m, int r, const char *fmt, ...)
{
	va_list ap;
	int n = 0;

	if (!b->err || !b->errlen)
		return r;
	if (m)
		n = snprintf(b->err, b->errlen, "line %zu, column %zu: ", m->line + 1, m->column + 1);
	if (n < 0 || (size_t)n >= b->errlen)
		return r;
	va_start(ap, fmt);
	vsnprintf(b->err + n, b->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return r;
}

/* ---- duplicate keys ---- */

static uint64_t yaml_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static void yaml_keyset_free(struct yaml_keyset *s)
{
	strbuf_strv_free(s->slot, s->cap);
	*s = (struct yaml_keyset){ 0 };
}

static int yaml_keyset_grow(struct yaml_keyset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 16;
	char **slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->slot[i])
			continue;
		for (j = yaml_hash(s->slot[i]) & (cap - 1); slot[j]; j = (j + 1) & (cap - 1))
			;
		slot[j] = s->slot[i];
	}
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

/* Return: 0 added; 1 already there; -ENOMEM. */
static int yaml_keyset_add(struct yaml_keyset *s, const char *key)
{
	size_t j;

	if ((s->n + 1) * 2 > s->cap && yaml_keyset_grow(s) < 0)
		return -ENOMEM;
	for (j = yaml_hash(key) & (s->cap - 1); s->slot[j]; j = (j + 1) & (s->cap - 1))
		if (strcmp(s->slot[j], key) == 0)
			return 1;
	if (!(s->slot[j] = strdup(key)))
		return -ENOMEM;
	s->n++;
	return 0;
}

/* ---- scalars: YAML 1.2 core schema (yamlcore.c) ---- */

/* The core tag @tag names, without its prefix ("int"), or NULL when it is not one. */
static const char *yaml_core_tag(const char *tag)
{
	static const char *const core[] = { "str", "int", "float", "bool", "null", "map", "seq" };
	size_t n = sizeof(YAML_TAG_PREFIX) - 1;

	if (strncmp(tag, YAML_TAG_PREFIX, n) != 0)
		return NULL;
	for (size_t i = 0; i < sizeof(core) / sizeof(core[0]); i++)
		if (strcmp(tag + n, core[i]) == 0)
			return core[i];
	return NULL;
}

/* A scalar event's value as a node, or NULL with @b's error set (r in *ret_r). */
static struct json *yaml_scalar(struct yaml_builder *b, const yaml_event_t *ev, int *ret_r)
{
	const char *s = (const char *)ev->data.scalar.value, *tag = (const char *)ev->data.scalar.tag;
	size_t len = ev->data.scalar.length;
	enum yamlcore_kind want, got;
	const char *core = NULL;
	struct json *v;
	double d = 0;
	bool bv = false;

	*ret_r = -EINVAL;
	if (strlen(s) != len) {
		yaml_fail(b, &ev->start_mark, -EINVAL, "a scalar holds a NUL character");
		return NULL;
	}
	if (tag && strcmp(tag, "!") != 0 && !(core = yaml_core_tag(tag))) {
		yaml_fail(b, &ev->start_mark, -EINVAL, "unsupported tag %.64s (only the core schema's tags)", tag);
		return NULL;
	}
	if (!core) {
		/* Untagged plain scalars resolve; quoted, block and "!"-tagged ones are strings. */
		got = (!tag && ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE) ? yamlcore_resolve(s, &d, &bv)
										   : YAMLCORE_STR;
		v = yamlcore_kind_node(got, s, d, bv);
	} else if (strcmp(core, "map") == 0 || strcmp(core, "seq") == 0) {
		yaml_fail(b, &ev->start_mark, -EINVAL, "tag !!%s on a scalar", core);
		return NULL;
	} else {
		want = strcmp(core, "str") == 0 ? YAMLCORE_STR : strcmp(core, "int") == 0 ? YAMLCORE_INT :
		       strcmp(core, "float") == 0 ? YAMLCORE_FLOAT : strcmp(core, "bool") == 0 ? YAMLCORE_BOOL :
		       YAMLCORE_NULL;
		got = want == YAMLCORE_STR ? YAMLCORE_STR : yamlcore_resolve(s, &d, &bv);
		if (want == YAMLCORE_FLOAT && got == YAMLCORE_INT)
			got = YAMLCORE_FLOAT;
		if (got != want) {
			yaml_fail(b, &ev->start_mark, -EINVAL, "\"%.40s\" is not a value of tag !!%s", s, core);
			return NULL;
		}
		v = yamlcore_kind_node(got, s, d, bv);
	}
	if (!v) {
		*ret_r = -ENOMEM;
		yaml_fail(b, NULL, -ENOMEM, "out of memory");
	}
	return v;
}

/* ---- anchors ---- */

static void yaml_anchors_clear(struct yaml_builder *b)
{
	for (size_t i = 0; i < b->n_anchors; i++) {
		free(b->anchors[i].name);
		json_free(b->anchors[i].owned);
	}
	b->n_anchors = 0;
}

/* Remember @name for @node (taking @owned, when given, even on error). */
static int yaml_anchor_add(struct yaml_builder *b, const char *name, const struct json *node,
			   struct json *owned, size_t nodes, int height)
{
	struct yaml_anchor *a;

	if (strbuf_grow_array(&b->anchors, &b->cap_anchors, b->n_anchors, sizeof(*b->anchors), 8) < 0) {
		json_free(owned);
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	}
	a = &b->anchors[b->n_anchors];
	*a = (struct yaml_anchor){ .name = strdup(name), .node = node, .owned = owned, .nodes = nodes,
				   .height = height };
	if (!a->name) {
		json_free(owned);
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	}
	b->n_anchors++;
	return 0;
}

/* The latest definition of @name (a later anchor of the same name replaces it), or NULL. */
static const struct yaml_anchor *yaml_anchor_find(const struct yaml_builder *b, const char *name)
{
	for (size_t i = b->n_anchors; i-- > 0;)
		if (strcmp(b->anchors[i].name, name) == 0)
			return &b->anchors[i];
	return NULL;
}

/* ---- building ---- */

static int yaml_count(struct yaml_builder *b, const yaml_mark_t *m, size_t n)
{
	if (b->nodes + n > YAML_NODES_MAX)
		return yaml_fail(b, m, -EINVAL, "more than %u nodes", YAML_NODES_MAX);
	b->nodes += n;
	return 0;
}

/* A key arrived in the mapping on top (a scalar, or an alias of a string). */
static int yaml_key(struct yaml_builder *b, const yaml_mark_t *m, const char *key)
{
	struct yaml_frame *f = &b->stack[b->depth - 1];
	int r;

	if (strlen(key) > YAML_KEY_MAX)
		return yaml_fail(b, m, -EINVAL, "a key longer than %u bytes", YAML_KEY_MAX);
	r = yaml_keyset_add(&f->keys, key);
	if (r < 0)
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	if (r > 0)
		return yaml_fail(b, m, -EINVAL, "duplicate key \"%.64s\" in a mapping", key);
	if (!(f->key = strdup(key)))
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	return 0;
}

/* Place a finished value @v (taken, even on error) with @height levels below it. */
static int yaml_place(struct yaml_builder *b, struct json *v, int height)
{
	struct yaml_frame *f;
	int r;

	if (b->depth == 0) {
		b->root = v;
		return 0;
	}
	f = &b->stack[b->depth - 1];
	if (f->map) {
		r = json_add(f->node, f->key, v);
		free(f->key);
		f->key = NULL;
	} else {
		r = json_append(f->node, v);
	}
	if (r < 0)
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	if (height + 1 > f->height)
		f->height = height + 1;
	return 0;
}

/* The top frame is a mapping waiting for a key. */
static bool yaml_wants_key(const struct yaml_builder *b)
{
	return b->depth > 0 && b->stack[b->depth - 1].map && !b->stack[b->depth - 1].key;
}

static int yaml_on_scalar(struct yaml_builder *b, const yaml_event_t *ev)
{
	const char *anchor = (const char *)ev->data.scalar.anchor;
	struct json *v;
	int r;

	if (b->depth > JSON_MAX_DEPTH)
		return yaml_fail(b, &ev->start_mark, -EINVAL, "nested deeper than %d levels", JSON_MAX_DEPTH);
	if ((r = yaml_count(b, &ev->start_mark, 1)) < 0)
		return r;
	v = yaml_scalar(b, ev, &r);
	if (!v)
		return r;
	if (yaml_wants_key(b)) {
		/* Keys are strings in JSON: the text as written, whatever it resolved to. */
		r = yaml_key(b, &ev->start_mark, (const char *)ev->data.scalar.value);
		if (r == 0 && anchor)
			return yaml_anchor_add(b, anchor, v, v, 1, 0);
		json_free(v);
		return r;
	}
	r = yaml_place(b, v, 0);
	if (r == 0 && anchor)
		r = yaml_anchor_add(b, anchor, v, NULL, 1, 0);
	return r;
}

static int yaml_on_alias(struct yaml_builder *b, const yaml_event_t *ev)
{
	const char *name = (const char *)ev->data.alias.anchor;
	const struct yaml_anchor *a = yaml_anchor_find(b, name);
	struct json *v;
	int r;

	if (!a) {
		/* An anchor of a collection still open is registered only when it ends: a cycle. */
		for (int i = 0; i < b->depth; i++)
			if (b->stack[i].anchor && strcmp(b->stack[i].anchor, name) == 0)
				return yaml_fail(b, &ev->start_mark, -EINVAL,
						 "alias *%.64s refers to the node that contains it", name);
		return yaml_fail(b, &ev->start_mark, -EINVAL, "alias *%.64s has no anchor before it", name);
	}
	if (yaml_wants_key(b)) {
		if (json_type(a->node) != JSON_STRING)
			return yaml_fail(b, &ev->start_mark, -EINVAL, "a key that is not a scalar (alias *%.64s)", name);
		return yaml_key(b, &ev->start_mark, json_string(a->node));
	}
	if (b->depth + a->height > JSON_MAX_DEPTH)
		return yaml_fail(b, &ev->start_mark, -EINVAL, "alias *%.64s nests deeper than %d levels", name,
				 JSON_MAX_DEPTH);
	if (b->alias_nodes + a->nodes > YAML_ALIAS_NODES_MAX)
		return yaml_fail(b, &ev->start_mark, -EINVAL,
				 "aliases expand to more than %u nodes (alias *%.64s of %zu nodes)",
				 YAML_ALIAS_NODES_MAX, name, a->nodes);
	if ((r = yaml_count(b, &ev->start_mark, a->nodes)) < 0)
		return r;
	b->alias_nodes += a->nodes;
	v = json_dup(a->node);
	if (!v)
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	return yaml_place(b, v, a->height);
}

static int yaml_check_collection_tag(struct yaml_builder *b, const yaml_event_t *ev, const char *tag, bool map)
{
	const char *core;

	if (!tag || strcmp(tag, "!") == 0)
		return 0;
	core = yaml_core_tag(tag);
	if (core && strcmp(core, map ? "map" : "seq") == 0)
		return 0;
	if (core)
		return yaml_fail(b, &ev->start_mark, -EINVAL, "tag !!%s on a %s", core, map ? "mapping" : "sequence");
	return yaml_fail(b, &ev->start_mark, -EINVAL, "unsupported tag %.64s (only the core schema's tags)", tag);
}

static int yaml_on_start(struct yaml_builder *b, const yaml_event_t *ev, bool map)
{
	const char *anchor = (const char *)(map ? ev->data.mapping_start.anchor : ev->data.sequence_start.anchor);
	const char *tag = (const char *)(map ? ev->data.mapping_start.tag : ev->data.sequence_start.tag);
	struct yaml_frame *f;
	int r;

	if (yaml_wants_key(b))
		return yaml_fail(b, &ev->start_mark, -EINVAL, "a key that is a %s, not a scalar",
				 map ? "mapping" : "sequence");
	if (b->depth >= JSON_MAX_DEPTH)
		return yaml_fail(b, &ev->start_mark, -EINVAL, "nested deeper than %d levels", JSON_MAX_DEPTH);
	if ((r = yaml_check_collection_tag(b, ev, tag, map)) < 0 || (r = yaml_count(b, &ev->start_mark, 1)) < 0)
		return r;
	f = &b->stack[b->depth];
	*f = (struct yaml_frame){ .map = map, .nodes_at_start = b->nodes - 1 };
	f->node = map ? json_new_object() : json_new_array();
	if (!f->node || (anchor && !(f->anchor = strdup(anchor)))) {
		json_free(f->node);
		f->node = NULL;
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	}
	b->depth++;
	return 0;
}

static void yaml_frame_clear(struct yaml_frame *f)
{
	json_free(f->node);
	free(f->key);
	free(f->anchor);
	yaml_keyset_free(&f->keys);
	*f = (struct yaml_frame){ 0 };
}

static int yaml_on_end(struct yaml_builder *b, const yaml_event_t *ev)
{
	struct yaml_frame f = b->stack[--b->depth];
	struct json *v = f.node;
	size_t nodes = b->nodes - f.nodes_at_start;
	int r;

	b->stack[b->depth] = (struct yaml_frame){ 0 };
	f.node = NULL;
	r = yaml_place(b, v, f.height);
	if (r == 0 && f.anchor)
		r = yaml_anchor_add(b, f.anchor, v, NULL, nodes, f.height);
	yaml_frame_clear(&f);
	return r;
}

static void yaml_builder_reset(struct yaml_builder *b)
{
	while (b->depth > 0)
		yaml_frame_clear(&b->stack[--b->depth]);
	json_free(b->root);
	b->root = NULL;
	yaml_anchors_clear(b);
}

/* Line and column (1-based) of byte @off of the text. */
static void yaml_position(const struct yaml_builder *b, size_t off, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off && i < b->len; i++) {
		if (b->text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)b->text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

static int yaml_parser_failed(struct yaml_builder *b, const yaml_parser_t *p)
{
	size_t line, col;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	case YAML_READER_ERROR:
		yaml_position(b, p->problem_offset, &line, &col);
		return yaml_fail(b, NULL, -EINVAL, "line %zu, column %zu: not UTF-8 text without control characters: %s",
				 line, col, p->problem ? p->problem : "unreadable");
	case YAML_SCANNER_ERROR:
	case YAML_PARSER_ERROR:
		if (p->context)
			return yaml_fail(b, &p->problem_mark, -EINVAL, "%s (%s, line %zu, column %zu)",
					 p->problem ? p->problem : "syntax error", p->context,
					 p->context_mark.line + 1, p->context_mark.column + 1);
		return yaml_fail(b, &p->problem_mark, -EINVAL, "%s", p->problem ? p->problem : "syntax error");
	case YAML_NO_ERROR:
	case YAML_COMPOSER_ERROR:
	case YAML_WRITER_ERROR:
	case YAML_EMITTER_ERROR:
		break;
	}
	return yaml_fail(b, NULL, -EINVAL, "not YAML");
}

/* A document ended: hand its tree to the consumer. */
static int yaml_push_doc(struct yaml_builder *b, const yaml_mark_t *m)
{
	struct json *doc = b->root ? b->root : json_new_null();
	int r;

	b->root = NULL;
	yaml_anchors_clear(b);
	if (b->n_docs >= YAML_DOCS_MAX) {
		json_free(doc);
		return yaml_fail(b, m, -EINVAL, "more than %u documents", YAML_DOCS_MAX);
	}
	if (!doc)
		return yaml_fail(b, NULL, -ENOMEM, "out of memory");
	r = b->fn(b->ctx, doc, b->n_docs++, b->doc_line, b->err, b->errlen);
	return r < 0 ? r : 0;
}

/* The document being read must stay within doc_max characters of its start. */
static int yaml_doc_size(struct yaml_builder *b, const yaml_event_t *ev)
{
	if (!b->doc_max || ev->end_mark.index <= b->doc_start || ev->end_mark.index - b->doc_start <= b->doc_max)
		return 0;
	return yaml_fail(b, NULL, -EINVAL, "document %zu (from line %zu) is larger than %zu bytes", b->n_docs + 1,
			 b->doc_line, b->doc_max);
}

static int yaml_event(struct yaml_builder *b, const yaml_event_t *ev)
{
	yaml_event_type_t t = ev->type;
	int r;

	if (t == YAML_DOCUMENT_START_EVENT) {
		yaml_builder_reset(b);
		b->doc_start = ev->start_mark.index;
		b->doc_line = ev->start_mark.line + 1;
		return 0;
	}
	if (t == YAML_DOCUMENT_END_EVENT)
		return yaml_push_doc(b, &ev->start_mark);
	if (t == YAML_STREAM_START_EVENT || t == YAML_STREAM_END_EVENT || t == YAML_NO_EVENT)
		return 0;
	if ((r = yaml_doc_size(b, ev)) < 0)
		return r;
	if (t == YAML_SCALAR_EVENT)
		return yaml_on_scalar(b, ev);
	if (t == YAML_ALIAS_EVENT)
		return yaml_on_alias(b, ev);
	if (t == YAML_SEQUENCE_START_EVENT || t == YAML_MAPPING_START_EVENT)
		return yaml_on_start(b, ev, t == YAML_MAPPING_START_EVENT);
	return yaml_on_end(b, ev);      /* the end of a sequence or a mapping */
}

int yaml_load_each(const char *text, size_t len, size_t doc_max, yaml_doc_fn fn, void *ctx, char *err,
		   size_t errlen)
{
	struct yaml_builder b = { .text = text, .len = len, .err = err, .errlen = errlen, .fn = fn, .ctx = ctx,
				  .doc_max = doc_max };
	yaml_parser_t parser;
	yaml_event_t ev;
	bool done = false;
	int r = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!text)
		return yaml_fail(&b, NULL, -EINVAL, "no text");
	if (len > YAML_TEXT_MAX)
		return yaml_fail(&b, NULL, -EINVAL, "%zu bytes, more than %u", len, YAML_TEXT_MAX);
	if (len >= 2 && (((unsigned char)text[0] == 0xfe && (unsigned char)text[1] == 0xff) ||
			 ((unsigned char)text[0] == 0xff && (unsigned char)text[1] == 0xfe)))
		return yaml_fail(&b, NULL, -EINVAL, "UTF-16 text (byte order mark): only UTF-8 is read");
	if (!yaml_parser_initialize(&parser))
		return yaml_fail(&b, NULL, -ENOMEM, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	yaml_parser_set_encoding(&parser, YAML_UTF8_ENCODING);
	while (!done) {
		if (!yaml_parser_parse(&parser, &ev)) {
			r = yaml_parser_failed(&b, &parser);
			break;
		}
		done = ev.type == YAML_STREAM_END_EVENT;
		r = yaml_event(&b, &ev);
		yaml_event_delete(&ev);
		if (r < 0)
			break;
	}
	yaml_parser_delete(&parser);
	yaml_builder_reset(&b);
	free(b.anchors);
	return r < 0 ? r : (int)b.n_docs;
}

/* yaml_load_one()'s consumer: the first document kept, a second one refused. */
static int yaml_keep_one(void *ctx, struct json *doc, size_t index, size_t line, char *err, size_t errlen)
{
	if (index == 0) {
		*(struct json **)ctx = doc;
		return 0;
	}
	json_free(doc);
	if (err && errlen)
		snprintf(err, errlen, "more than one document");
	return -EINVAL;
}

int yaml_load_one(const char *text, size_t len, struct json **ret, char *err, size_t errlen)
{
	struct json *doc = NULL;
	int r = yaml_load_each(text, len, 0, yaml_keep_one, &doc, err, errlen);

	if (r == 1) {
		*ret = doc;
		return 0;
	}
	json_free(doc);
	if (r == 0 && err && errlen)
		snprintf(err, errlen, "no document");
	return r < 0 ? r : -EINVAL;
}
