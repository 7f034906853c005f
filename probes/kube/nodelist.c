/* nodelist.c - a NodeList read in one pass: each item's name, instance type, pool and accelerator, taints, our annotations and condition. */
#include <errno.h>
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

struct nodelist_scan {
	const char *prefix;
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
};

#define NODELIST_KEY(k, klen, lit) ((klen) == sizeof(lit) - 1 && memcmp((k), (lit), sizeof(lit) - 1) == 0)

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

static const char *nodelist_on_label(void *ctx, const char *k, size_t klen, const char *v, const char *end,
				     int depth)
{
	struct nodelist_scan *sc = ctx;

	if (NODELIST_KEY(k, klen, "node.kubernetes.io/instance-type"))
		return nodelist_field(sc, &sc->item.itype, v, end, depth);
	if (NODELIST_KEY(k, klen, "cloud.google.com/gke-accelerator"))
		return nodelist_field(sc, &sc->item.accelerator, v, end, depth);
	if (NODELIST_KEY(k, klen, "cloud.google.com/gke-nodepool"))
		return nodelist_field(sc, &sc->item.pool, v, end, depth);
	if (NODELIST_KEY(k, klen, "cloud.google.com/gke-networking-dra-driver"))
		return nodelist_field(sc, &sc->item.dranet, v, end, depth);
	return jsonscan_value(v, end, depth);
}

static const char *nodelist_on_annotation(void *ctx, const char *k, size_t klen, const char *v,
					  const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;
	struct jsonscan_field *f = NULL;
	size_t plen = strlen(sc->prefix);

	/* Every one of ours starts with the prefix: one compare rejects GKE's own. */
	if (klen > plen && memcmp(k, sc->prefix, plen) == 0) {
		if (jsonscan_key_is(k, klen, sc->key_profile))
			f = &sc->item.profile;
		else if (jsonscan_key_is(k, klen, sc->key_ready))
			f = &sc->item.ready;
		else if (jsonscan_key_is(k, klen, sc->key_interfaces))
			f = &sc->item.interfaces;
		else if (jsonscan_key_is(k, klen, sc->key_attachment))
			f = &sc->item.attachment;
	}
	return f ? nodelist_field(sc, f, v, end, depth) : jsonscan_value(v, end, depth);
}

static const char *nodelist_on_node_meta(void *ctx, const char *k, size_t klen, const char *v,
					 const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;

	if (NODELIST_KEY(k, klen, "name"))
		return nodelist_field(sc, &sc->item.name, v, end, depth);
	if (NODELIST_KEY(k, klen, "labels") && *v == '{')
		return jsonscan_object(sc, v, end, depth, nodelist_on_label);
	if (NODELIST_KEY(k, klen, "annotations") && *v == '{')
		return jsonscan_object(sc, v, end, depth, nodelist_on_annotation);
	return jsonscan_value(v, end, depth);
}

static const char *nodelist_on_taint_member(void *ctx, const char *k, size_t klen, const char *v,
					    const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;
	struct nodelist_taint *t = &sc->item.taints[sc->item.n_taints];

	if (NODELIST_KEY(k, klen, "key"))
		return nodelist_field(sc, &t->key, v, end, depth);
	if (NODELIST_KEY(k, klen, "value"))
		return nodelist_field(sc, &t->value, v, end, depth);
	if (NODELIST_KEY(k, klen, "effect"))
		return nodelist_field(sc, &t->effect, v, end, depth);
	return jsonscan_value(v, end, depth);
}

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
	e = jsonscan_object(sc, v, end, depth, nodelist_on_taint_member);
	if (e)
		sc->item.n_taints++;
	return e;
}

static const char *nodelist_on_spec(void *ctx, const char *k, size_t klen, const char *v, const char *end,
				    int depth)
{
	struct nodelist_scan *sc = ctx;

	/* The first taints list only: a duplicate key must not append to it. */
	if (NODELIST_KEY(k, klen, "taints") && *v == '[' && !sc->item.taints_seen)
		return jsonscan_array(sc, v, end, depth, nodelist_on_taint);
	return jsonscan_value(v, end, depth);
}

static void nodelist_condition_clear(struct nodelist_condition *c)
{
	jsonscan_field_clear(&c->status);
	jsonscan_field_clear(&c->heartbeat);
	c->present = false;
}

static const char *nodelist_on_cond_member(void *ctx, const char *k, size_t klen, const char *v,
					   const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;

	if (NODELIST_KEY(k, klen, "type"))
		return nodelist_field(sc, &sc->cond_type, v, end, depth);
	if (NODELIST_KEY(k, klen, "status"))
		return nodelist_field(sc, &sc->cond.status, v, end, depth);
	if (NODELIST_KEY(k, klen, "lastHeartbeatTime"))
		return nodelist_field(sc, &sc->cond.heartbeat, v, end, depth);
	return jsonscan_value(v, end, depth);
}

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
	e = jsonscan_object(sc, v, end, depth, nodelist_on_cond_member);
	if (e && sc->cond_type.s && strcmp(sc->cond_type.s, KUBE_CONDITION_TYPE) == 0) {
		sc->item.condition = sc->cond;
		sc->item.condition.present = true;
		memset(&sc->cond, 0, sizeof(sc->cond));
	}
	nodelist_condition_clear(&sc->cond);
	jsonscan_field_clear(&sc->cond_type);
	return e;
}

static const char *nodelist_on_status(void *ctx, const char *k, size_t klen, const char *v, const char *end,
				      int depth)
{
	struct nodelist_scan *sc = ctx;

	/* The first conditions list only, as the first taints list. */
	if (NODELIST_KEY(k, klen, "conditions") && *v == '[' && !sc->conds_seen && !sc->item.condition.present)
		return jsonscan_array(sc, v, end, depth, nodelist_on_condition);
	return jsonscan_value(v, end, depth);
}

static const char *nodelist_on_node(void *ctx, const char *k, size_t klen, const char *v, const char *end,
				    int depth)
{
	struct nodelist_scan *sc = ctx;

	if (NODELIST_KEY(k, klen, "kind"))
		return nodelist_field(sc, &sc->item_kind, v, end, depth);
	if (NODELIST_KEY(k, klen, "metadata") && *v == '{')
		return jsonscan_object(sc, v, end, depth, nodelist_on_node_meta);
	if (NODELIST_KEY(k, klen, "spec") && *v == '{')
		return jsonscan_object(sc, v, end, depth, nodelist_on_spec);
	if (NODELIST_KEY(k, klen, "status") && *v == '{')
		return jsonscan_object(sc, v, end, depth, nodelist_on_status);
	return jsonscan_value(v, end, depth);
}

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
		char *k = strbuf_printable(sc->item_kind.s, NODELIST_KIND_SHOWN);

		errmsg_set(sc->err, sc->errlen, -EINVAL, "items[%zu] is a %s, not a Node", idx, k ? k : "?");
		free(k);
		return -EINVAL;
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
	e = jsonscan_object(sc, v, end, depth, nodelist_on_node);
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

static const char *nodelist_on_list_meta(void *ctx, const char *k, size_t klen, const char *v,
					 const char *end, int depth)
{
	struct nodelist_scan *sc = ctx;

	if (NODELIST_KEY(k, klen, "continue"))
		return nodelist_field(sc, &sc->cont, v, end, depth);
	return jsonscan_value(v, end, depth);
}

static const char *nodelist_on_list(void *ctx, const char *k, size_t klen, const char *v, const char *end,
				    int depth)
{
	struct nodelist_scan *sc = ctx;

	if (NODELIST_KEY(k, klen, "kind")) {
		const char *e = nodelist_field(sc, &sc->kind, v, end, depth);

		/* Refuse a PodList before reading its items as nodes. */
		if (e && sc->kind.s && strcmp(sc->kind.s, "NodeList") != 0 && strcmp(sc->kind.s, "List") != 0) {
			char *kind = strbuf_printable(sc->kind.s, NODELIST_KIND_SHOWN);

			errmsg_set(sc->err, sc->errlen, 0, "expected kind NodeList or List (kubectl get nodes -o json), got '%s'",
				   kind ? kind : "?");
			free(kind);
			sc->refused = true;
			return NULL;
		}
		return e;
	}
	if (NODELIST_KEY(k, klen, "metadata") && *v == '{')
		return jsonscan_object(sc, v, end, depth, nodelist_on_list_meta);
	if (NODELIST_KEY(k, klen, "items") && !sc->items) {
		sc->items = true;
		sc->items_type = *v;
		if (*v == '[')
			return jsonscan_array(sc, v, end, depth, nodelist_on_item);
	}
	return jsonscan_value(v, end, depth);
}

static int nodelist_keys(struct nodelist_scan *sc, const char *prefix)
{
	const struct { char *buf; const char *name; } k[] = {
		{ sc->key_profile, "profile" }, { sc->key_ready, "ready" },
		{ sc->key_interfaces, "interfaces" }, { sc->key_attachment, "attachment" },
	};

	if (!prefix || !*prefix || strlen(prefix) > NODELIST_PREFIX_MAX)
		return -EINVAL;
	sc->prefix = prefix;
	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		snprintf(k[i].buf, NODELIST_PREFIX_MAX + 16, "%s%s", prefix, k[i].name);
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
	p = p < end ? jsonscan_object(&sc, p, end, 0, nodelist_on_list) : NULL;
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
