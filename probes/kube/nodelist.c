/* nodelist.c - a NodeList read in one pass: each item's name, instance type, pool and accelerator, taints, our annotations and condition. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/nodelist.h"
#include "probes/model/errmsg.h"
#include "probes/model/json.h"
#include "probes/model/obs_kube.h"
#include "probes/model/strbuf.h"

#define NODELIST_PREFIX_MAX 254
#define NODELIST_KIND_SHOWN 64          /* bytes of a refused kind we print */

/*
 * A member kept (as ethtool's netlink parsers read attributes, one row each): its key, then the
 * struct jsonscan_field at base + off, or an object whose members .sub names, or its own reader.
 */
struct nodelist_row {
	const char *key;                /* NULL ends a table */
	size_t off;
	const struct nodelist_row *sub;
	jsonscan_member_fn fn;
};

#define NODELIST_FIELD(k, m) { .key = (k), .off = offsetof(struct nodelist_scan, m) }
#define NODELIST_OBJECT(k, s) { .key = (k), .sub = (s) }
#define NODELIST_FN(k, f) { .key = (k), .fn = (f) }

struct nodelist_scan {
	char key_profile[NODELIST_PREFIX_MAX + 16], key_ready[NODELIST_PREFIX_MAX + 16];
	char key_interfaces[NODELIST_PREFIX_MAX + 16], key_attachment[NODELIST_PREFIX_MAX + 16];
	nodelist_item_fn fn;
	void *ctx;
	char *err;
	size_t errlen;
	bool refused;                   /* err says why: not a NodeList (the JSON itself may be fine) */
	bool oom;
	bool bad_escape;                /* a string whose \u escape is no character (a lone surrogate) */
	struct jsonscan_field kind, cont;
	struct jsonscan_field item_kind;
	char items_type;
	bool items;
	size_t idx;
	struct nodelist_item item;      /* the item being read */
	struct jsonscan_field cond_type;        /* the status.conditions entry being read: its type ... */
	struct nodelist_condition cond;         /* ... and the rest, moved to item.condition when ours */
	size_t conds_seen;                      /* status.conditions entries of the item, looked at or not */
	const struct nodelist_row *rows;        /* the object being read: its members we keep ... */
	char *base;                             /* ... and where their fields are (this scan, or a taint) */
	struct nodelist_row ann[5];             /* our annotations (their keys carry the prefix) */
};

static const char *nodelist_field(struct nodelist_scan *sc, struct jsonscan_field *f, const char *v,
				  const char *end, int depth)
{
	int err = 0;
	const char *e = jsonscan_field(f, v, end, depth, &err);

	if (!e && err) {
		sc->oom = err == -ENOMEM;
		sc->bad_escape = err == -EILSEQ;
		sc->refused = true;
	}
	return e;
}

static const char *nodelist_on_row(void *ctx, const char *k, size_t klen, const char *v, const char *end, int depth);

/* The object at @v read by @rows, their fields at @base; anything else there is skipped. */
static const char *nodelist_rows(struct nodelist_scan *sc, const struct nodelist_row *rows, void *base, const char *v,
				 const char *end, int depth)
{
	const struct nodelist_row *rows_was = sc->rows;
	char *base_was = sc->base;
	const char *e;

	if (*v != '{')
		return jsonscan_value(v, end, depth);
	sc->rows = rows;
	sc->base = base;
	e = jsonscan_object(sc, v, end, depth, nodelist_on_row);
	sc->rows = rows_was;
	sc->base = base_was;
	return e;
}

static const char *nodelist_on_row(void *ctx, const char *k, size_t klen, const char *v, const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;
	const struct nodelist_row *row = sc->rows;

	while (row->key && !jsonscan_key_is(k, klen, row->key))
		row++;
	if (!row->key)
		return jsonscan_value(v, end, depth);
	if (row->fn)
		return row->fn(ctx, k, klen, v, end, depth);
	if (row->sub)
		return nodelist_rows(sc, row->sub, sc->base, v, end, depth);
	return nodelist_field(sc, (struct jsonscan_field *)(sc->base + row->off), v, end, depth);
}

static const struct nodelist_row nodelist_taint_rows[] = {
	{ .key = "key", .off = offsetof(struct nodelist_taint, key) },
	{ .key = "value", .off = offsetof(struct nodelist_taint, value) },
	{ .key = "effect", .off = offsetof(struct nodelist_taint, effect) },
	{ .key = NULL },
};

/* One spec.taints entry: an object is kept while there is room; anything else is skipped. */
static const char *nodelist_on_taint(void *ctx, const char *v, const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;
	const char *e;

	if (v >= end)
		return NULL;
	sc->item.taints_seen++;
	if (*v != '{' || sc->item.n_taints >= NODELIST_TAINTS_MAX)
		return jsonscan_value(v, end, depth);
	e = nodelist_rows(sc, nodelist_taint_rows, &sc->item.taints[sc->item.n_taints], v, end, depth);
	if (e)
		sc->item.n_taints++;
	return e;
}

static const char *nodelist_on_taints(void *ctx, const char *k, size_t klen, const char *v, const char *end,
				      int depth)
{
	struct nodelist_scan *sc = ctx;

	/* The first taints list only: a duplicate key must not append to it. */
	if (*v == '[' && !sc->item.taints_seen)
		return jsonscan_array(sc, v, end, depth, nodelist_on_taint);
	return jsonscan_value(v, end, depth);
}

static void nodelist_condition_clear(struct nodelist_condition *c)
{
	jsonscan_field_clear(&c->status);
	jsonscan_field_clear(&c->heartbeat);
	c->present = false;
}

static const struct nodelist_row nodelist_cond_rows[] = {
	NODELIST_FIELD("type", cond_type),
	NODELIST_FIELD("status", cond.status),
	NODELIST_FIELD("lastHeartbeatTime", cond.heartbeat),
	{ .key = NULL },
};

/*
 * One status.conditions entry: an object of our type, the first one, becomes item.condition (its
 * members may come in any order, so they are read aside first); anything else is skipped.
 */
static const char *nodelist_on_condition(void *ctx, const char *v, const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;
	const char *e;

	if (v >= end)
		return NULL;
	if (*v != '{' || sc->item.condition.present || sc->conds_seen++ >= KUBE_CONDITIONS_MAX)
		return jsonscan_value(v, end, depth);
	e = nodelist_rows(sc, nodelist_cond_rows, sc, v, end, depth);
	if (e && sc->cond_type.s && strcmp(sc->cond_type.s, KUBE_CONDITION_TYPE) == 0) {
		sc->item.condition = sc->cond;
		sc->item.condition.present = true;
		memset(&sc->cond, 0, sizeof(sc->cond));
	}
	nodelist_condition_clear(&sc->cond);
	jsonscan_field_clear(&sc->cond_type);
	return e;
}

static const char *nodelist_on_conditions(void *ctx, const char *k, size_t klen, const char *v, const char *end,
					  int depth)
{
	struct nodelist_scan *sc = ctx;

	/* The first conditions list only, as the first taints list. */
	if (*v == '[' && !sc->conds_seen && !sc->item.condition.present)
		return jsonscan_array(sc, v, end, depth, nodelist_on_condition);
	return jsonscan_value(v, end, depth);
}

static const char *nodelist_on_annotations(void *ctx, const char *k, size_t klen, const char *v, const char *end,
					   int depth)
{
	struct nodelist_scan *sc = ctx;

	return nodelist_rows(sc, sc->ann, sc, v, end, depth);
}

static const struct nodelist_row nodelist_labels[] = {
	NODELIST_FIELD("node.kubernetes.io/instance-type", item.itype),
	NODELIST_FIELD("cloud.google.com/gke-accelerator", item.accelerator),
	NODELIST_FIELD("cloud.google.com/gke-nodepool", item.pool),
	NODELIST_FIELD("cloud.google.com/gke-networking-dra-driver", item.dranet),
	{ .key = NULL },
};

static const struct nodelist_row nodelist_node_meta[] = {
	NODELIST_FIELD("name", item.name),
	NODELIST_OBJECT("labels", nodelist_labels),
	NODELIST_FN("annotations", nodelist_on_annotations),
	{ .key = NULL },
};

static const struct nodelist_row nodelist_spec[] = { NODELIST_FN("taints", nodelist_on_taints), { .key = NULL } };
static const struct nodelist_row nodelist_status[] = { NODELIST_FN("conditions", nodelist_on_conditions), { .key = NULL } };

static const struct nodelist_row nodelist_node[] = {
	NODELIST_FIELD("kind", item_kind),
	NODELIST_OBJECT("metadata", nodelist_node_meta),
	NODELIST_OBJECT("spec", nodelist_spec),
	NODELIST_OBJECT("status", nodelist_status),
	{ .key = NULL },
};

static void nodelist_item_clear(struct nodelist_scan *sc)
{
	struct jsonscan_field *f[] = { &sc->item_kind, &sc->item.name, &sc->item.itype, &sc->item.accelerator,
				       &sc->item.pool, &sc->item.dranet, &sc->item.profile, &sc->item.ready,
				       &sc->item.interfaces, &sc->item.attachment };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		jsonscan_field_clear(f[i]);
	/* A taint left half-read by an error is cleared too: it sits at n_taints. */
	for (size_t i = 0; i <= sc->item.n_taints && i < NODELIST_TAINTS_MAX; i++) {
		jsonscan_field_clear(&sc->item.taints[i].key);
		jsonscan_field_clear(&sc->item.taints[i].value);
		jsonscan_field_clear(&sc->item.taints[i].effect);
	}
	sc->item.n_taints = 0;
	sc->item.taints_seen = 0;
	/* A condition entry left half-read by an error is cleared with the item's. */
	nodelist_condition_clear(&sc->item.condition);
	nodelist_condition_clear(&sc->cond);
	jsonscan_field_clear(&sc->cond_type);
	sc->conds_seen = 0;
}

/* The item read is a Node with a usable name: hand it on. */
static int nodelist_check_item(struct nodelist_scan *sc, size_t idx)
{
	const struct nodelist_item *it = &sc->item;

	if (sc->item_kind.s && strcmp(sc->item_kind.s, "Node") != 0) {
		char k[NODELIST_KIND_SHOWN + 4];

		strbuf_printable_into(k, sizeof(k), sc->item_kind.s);
		return errmsg_set(sc->err, sc->errlen, -EINVAL, "items[%zu] is a %s, not a Node", idx, k);
	}
	if (!it->name.s || !*it->name.s)
		return errmsg_set(sc->err, sc->errlen, -EINVAL, "items[%zu] has no metadata.name", idx);
	if (strlen(it->name.s) > NODELIST_NAME_MAX)
		return errmsg_set(sc->err, sc->errlen, -EINVAL, "items[%zu]: a node name has at most %d characters", idx,
				  NODELIST_NAME_MAX);
	return sc->fn(sc->ctx, idx, it, sc->err, sc->errlen);
}

static const char *nodelist_on_item(void *ctx, const char *v, const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;
	size_t idx = sc->idx++;
	const char *e;
	int r;

	if (v >= end)
		return NULL;
	if (*v != '{') {
		e = jsonscan_value(v, end, depth);
		if (e) {
			errmsg_set(sc->err, sc->errlen, 0, "items[%zu] is a JSON %s, not a Node object", idx,
				   jsonscan_type_name(*v));
			sc->refused = true;
		}
		return NULL;
	}
	nodelist_item_clear(sc);
	e = nodelist_rows(sc, nodelist_node, sc, v, end, depth);
	if (!e)
		return NULL;
	r = nodelist_check_item(sc, idx);
	if (r < 0) {
		sc->oom = r == -ENOMEM;
		sc->refused = true;
		return NULL;
	}
	return e;
}

/* Refuse a PodList before reading its items as nodes. */
static const char *nodelist_on_kind(void *ctx, const char *k, size_t klen, const char *v, const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;
	const char *e = nodelist_field(sc, &sc->kind, v, end, depth);
	char kind[NODELIST_KIND_SHOWN + 4];

	if (!e || !sc->kind.s || strcmp(sc->kind.s, "NodeList") == 0 || strcmp(sc->kind.s, "List") == 0)
		return e;
	strbuf_printable_into(kind, sizeof(kind), sc->kind.s);
	errmsg_set(sc->err, sc->errlen, 0, "expected kind NodeList or List (kubectl get nodes -o json), got '%s'", kind);
	sc->refused = true;
	return NULL;
}

static const char *nodelist_on_items(void *ctx, const char *k, size_t klen, const char *v, const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;

	if (sc->items)
		return jsonscan_value(v, end, depth);
	sc->items = true;
	sc->items_type = *v;
	return *v == '[' ? jsonscan_array(sc, v, end, depth, nodelist_on_item) : jsonscan_value(v, end, depth);
}

static const struct nodelist_row nodelist_list_meta[] = { NODELIST_FIELD("continue", cont), { .key = NULL } };

static const struct nodelist_row nodelist_list[] = {
	NODELIST_FN("kind", nodelist_on_kind),
	NODELIST_OBJECT("metadata", nodelist_list_meta),
	NODELIST_FN("items", nodelist_on_items),
	{ .key = NULL },
};

static int nodelist_keys(struct nodelist_scan *sc, const char *prefix)
{
	const struct { char *buf; const char *name; size_t off; } k[] = {
		{ sc->key_profile, "profile", offsetof(struct nodelist_scan, item.profile) },
		{ sc->key_ready, "ready", offsetof(struct nodelist_scan, item.ready) },
		{ sc->key_interfaces, "interfaces", offsetof(struct nodelist_scan, item.interfaces) },
		{ sc->key_attachment, "attachment", offsetof(struct nodelist_scan, item.attachment) },
	};

	if (!prefix || !*prefix || strlen(prefix) > NODELIST_PREFIX_MAX)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++) {
		snprintf(k[i].buf, NODELIST_PREFIX_MAX + 16, "%s%s", prefix, k[i].name);
		sc->ann[i] = (struct nodelist_row){ .key = k[i].buf, .off = k[i].off };
	}
	return 0;
}

int nodelist_scan(const char *text, size_t len, const char *prefix, nodelist_item_fn fn, void *ctx,
		  char **ret_continue, char *err, size_t errlen)
{
	struct nodelist_scan sc = { .fn = fn, .ctx = ctx, .err = err, .errlen = errlen };
	const char *p, *end = text + len;
	int r = -EINVAL;

	if (nodelist_keys(&sc, prefix) < 0) {
		errmsg_set(err, errlen, 0, "the annotation prefix is empty or too long");
		goto out;
	}
	p = jsonscan_ws(text, end);
	if (p < end && *p != '{') {
		const char *e = jsonscan_value(p, end, 0);

		if (e && jsonscan_ws(e, end) == end)
			errmsg_set(err, errlen, 0, "expected a NodeList object, got a JSON %s", jsonscan_type_name(*p));
		else
			errmsg_set(err, errlen, 0, "not valid JSON (or nested deeper than %d levels)", JSON_MAX_DEPTH);
		goto out;
	}
	p = p < end ? nodelist_rows(&sc, nodelist_list, &sc, p, end, 0) : NULL;
	if (p)
		p = jsonscan_ws(p, end);
	if (!p || p != end) {
		if (sc.oom) {
			r = errmsg_set(err, errlen, -ENOMEM, "out of memory");
		} else if (sc.bad_escape) {
			errmsg_set(err, errlen, 0, "not valid JSON text: a string's \\u escape is no character (a lone "
				   "UTF-16 surrogate such as \\ud800, which no UTF-8 text can hold)");
		} else if (!sc.refused) {
			errmsg_set(err, errlen, 0, "not valid JSON (or nested deeper than %d levels)", JSON_MAX_DEPTH);
		}
		goto out;
	}
	if (!sc.items) {
		errmsg_set(err, errlen, 0, "no \"items\" list: not a NodeList");
		goto out;
	}
	if (sc.items_type != '[' && sc.items_type != 'n') {
		errmsg_set(err, errlen, 0, "\"items\" is a JSON %s, not a list", jsonscan_type_name(sc.items_type));
		goto out;
	}
	if (sc.cont.s && strlen(sc.cont.s) > NODELIST_CONTINUE_MAX) {
		errmsg_set(err, errlen, 0, "metadata.continue is longer than %u bytes", NODELIST_CONTINUE_MAX);
		goto out;
	}
	if (ret_continue) {
		*ret_continue = sc.cont.s && *sc.cont.s ? sc.cont.s : NULL;
		if (*ret_continue)
			sc.cont.s = NULL;
	}
	r = (int)sc.idx;
out:
	nodelist_item_clear(&sc);
	jsonscan_field_clear(&sc.kind);
	jsonscan_field_clear(&sc.cont);
	return r;
}
