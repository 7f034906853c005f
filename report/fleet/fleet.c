/* fleet.c - group for one fabric the facts every node's agent published (read once, by coherence_node.c, into a coherence). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/errmsg.h"
#include "probes/model/strbuf.h"
#include "report/fleet/coherence.h"
#include "report/fleet/coherence_node.h"
#include "report/fleet/fleet.h"

int fleet_new(const char *prefix, struct coherence **ret)
{
	int r = coherence_new(prefix, ret);

	if (r < 0)
		return r;
	/* The runtime is held against the Networks the nodes are on, whatever else ails a node. */
	coherence_set_any_names(*ret, true);
	coherence_set_ready_apart(*ret, true);
	return 0;
}

/* The coherence kind of the nodes whose profile annotation is @kind's. */
static enum coherence_node_kind fleet_kind(enum profile_kind kind)
{
	/* The fleet's coherence does not judge rdma nodes yet: they count as other. */
	return kind == PROFILE_TCPXO ? COHERENCE_NODE_KIND_TCPXO :
	       kind == PROFILE_TCPX ? COHERENCE_NODE_KIND_TCPX :
	       kind == PROFILE_RDMA ? COHERENCE_NODE_KIND_OTHER : COHERENCE_NODE_KIND_NONE;
}

size_t fleet_count(const struct coherence *f, enum profile_kind kind)
{
	enum coherence_node_kind want = fleet_kind(kind);
	const struct coherence_node *nodes;
	size_t n_nodes, n = 0;

	nodes = coherence_nodes(f, &n_nodes);
	for (size_t i = 0; i < n_nodes; i++)
		n += nodes[i].kind == want;
	return n;
}

/* ---- grouping ---- */

/* One node's value of a fact; @pos its place in name order. */
struct fleet_vote {
	const char *value;              /* NULL: not published */
	const char *name;
	size_t pos;
};

static int fleet_cmp_vote(const void *a, const void *b)
{
	const struct fleet_vote *x = a, *y = b;
	int d;

	if (!x->value != !y->value)
		return x->value ? -1 : 1;
	d = x->value ? strcmp(x->value, y->value) : 0;
	if (d)
		return d;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int fleet_cmp_group(const void *a, const void *b)
{
	const struct fleet_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->value, y->value);
}

/* "a, b, c, …" of @n votes (in name order). */
static char *fleet_names(const struct fleet_vote *v, size_t n)
{
	struct strbuf sb = { 0 };

	for (size_t i = 0; i < n && i < FLEET_NAMES_SHOWN; i++)
		strbuf_appendf(&sb, "%s%s", i ? ", " : "", v[i].name);
	if (n > FLEET_NAMES_SHOWN)
		strbuf_append(&sb, ", …");
	return strbuf_take(&sb);
}

/* Group @n votes (sorted here) into @g. */
static int fleet_group(struct fleet_vote *v, size_t n, struct fleet_groups *g)
{
	size_t i = 0;

	qsort(v, n, sizeof(*v), fleet_cmp_vote);
	g->v = calloc(n ? n : 1, sizeof(*g->v));
	if (!g->v)
		return -ENOMEM;
	while (i < n && v[i].value) {
		size_t j = i;

		while (j < n && v[j].value && strcmp(v[j].value, v[i].value) == 0)
			j++;
		g->v[g->n] = (struct fleet_group){ .value = strdup(v[i].value), .count = j - i,
						   .names = fleet_names(&v[i], j - i) };
		if (!g->v[g->n].value || !g->v[g->n++].names)
			return -ENOMEM;
		i = j;
	}
	if (i < n) {
		g->unknown = n - i;
		if (!(g->unknown_names = fleet_names(&v[i], n - i)))
			return -ENOMEM;
	}
	qsort(g->v, g->n, sizeof(*g->v), fleet_cmp_group);
	return 0;
}

static void fleet_groups_free(struct fleet_groups *g)
{
	for (size_t i = 0; i < g->n; i++) {
		free(g->v[i].value);
		free(g->v[i].names);
	}
	free(g->v);
	free(g->unknown_names);
	memset(g, 0, sizeof(*g));
}

const char *fleet_groups_top(const struct fleet_groups *g)
{
	return g->n ? g->v[0].value : NULL;
}

bool fleet_groups_has(const struct fleet_groups *g, const char *value)
{
	for (size_t i = 0; value && i < g->n; i++)
		if (strcmp(g->v[i].value, value) == 0)
			return true;
	return false;
}

void fleet_groups_text(const struct fleet_groups *g, struct strbuf *sb)
{
	for (size_t i = 0; i < g->n; i++)
		strbuf_appendf(sb, "%s%s on %zu %s (%s)", i ? ", " : "", g->v[i].value, g->v[i].count,
			       coherence_nodes_word(g->v[i].count), g->v[i].names);
	if (g->unknown)
		strbuf_appendf(sb, "%s%zu %s without it (%s)", g->n ? ", " : "", g->unknown, coherence_nodes_word(g->unknown),
			       g->unknown_names);
}

/* ---- the facts of one fabric ---- */

struct fleet_eval {
	const struct coherence_node **sel;      /* the fabric's nodes, in name order */
	size_t n;
	struct fleet_vote *votes;
};

/* The facts grouped: a node's string at @node becomes the groups at @facts. */
static const struct {
	size_t node, facts;
} fleet_fact_rows[] = {
	{ offsetof(struct coherence_node, itype), offsetof(struct fleet_facts, machine_types) },
	{ offsetof(struct coherence_node, installer), offsetof(struct fleet_facts, installers) },
	{ offsetof(struct coherence_node, expected), offsetof(struct fleet_facts, expected_daemons) },
	{ offsetof(struct coherence_node, gpus), offsetof(struct fleet_facts, gpus) },
	{ offsetof(struct coherence_node, nics), offsetof(struct fleet_facts, nics) },
	{ offsetof(struct coherence_node, accel), offsetof(struct fleet_facts, accelerators) },
	{ offsetof(struct coherence_node, pool), offsetof(struct fleet_facts, pools) },
};

static struct fleet_groups *fleet_fact_groups(struct fleet_facts *ff, size_t k)
{
	return (struct fleet_groups *)((char *)ff + fleet_fact_rows[k].facts);
}

/* Each fact of every selected node, grouped. */
static int fleet_fact(struct fleet_eval *ev, struct fleet_facts *ff)
{
	for (size_t k = 0; k < sizeof(fleet_fact_rows) / sizeof(fleet_fact_rows[0]); k++) {
		int r;

		for (size_t i = 0; i < ev->n; i++) {
			const char *value = *(char *const *)((const char *)ev->sel[i] + fleet_fact_rows[k].node);

			ev->votes[i] = (struct fleet_vote){ value, ev->sel[i]->name, i };
		}
		r = fleet_group(ev->votes, ev->n, fleet_fact_groups(ff, k));
		if (r < 0)
			return r;
	}
	return 0;
}

static int fleet_cmp_taint(const void *a, const void *b)
{
	const struct fleet_taint *x = a, *y = b;
	int d;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if ((d = strcmp(x->key ? x->key : "", y->key ? y->key : "")) != 0 ||
	    (d = strcmp(x->value ? x->value : "", y->value ? y->value : "")) != 0)
		return d;
	return strcmp(x->effect, y->effect);
}

static bool fleet_same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool fleet_taint_is(const char *key, const char *value, const char *effect, const struct coherence_node_taint *t)
{
	return fleet_same(key, t->key) && fleet_same(value, t->value) && fleet_same(effect, t->effect);
}

/* The distinct blocking taints of the selected nodes, with the nodes that carry each. */
static int fleet_fact_taints(struct fleet_eval *ev, struct fleet_facts *ff)
{
	size_t cap = 0;

	for (size_t i = 0; i < ev->n; i++)
		cap += ev->sel[i]->n_taints;
	ff->taints = calloc(cap ? cap : 1, sizeof(*ff->taints));
	if (!ff->taints)
		return -ENOMEM;
	for (size_t i = 0; i < ev->n; i++)
		for (size_t k = 0; k < ev->sel[i]->n_taints; k++) {
			const struct coherence_node_taint *t = &ev->sel[i]->taints[k];
			struct fleet_taint *nt;
			size_t j = 0, n = 0;

			if (!t->effect || (strcmp(t->effect, "NoSchedule") != 0 && strcmp(t->effect, "NoExecute") != 0))
				continue;       /* not a blocking taint */
			while (j < ff->n_taints && !fleet_taint_is(ff->taints[j].key, ff->taints[j].value, ff->taints[j].effect, t))
				j++;
			if (j < ff->n_taints)
				continue;
			/* A new taint: every selected node that carries it, in name order. */
			for (size_t m = 0; m < ev->n; m++)
				for (size_t q = 0; q < ev->sel[m]->n_taints; q++)
					if (fleet_taint_is(t->key, t->value, t->effect, &ev->sel[m]->taints[q])) {
						ev->votes[n++] = (struct fleet_vote){ "", ev->sel[m]->name, m };
						break;
					}
			nt = &ff->taints[ff->n_taints++];
			*nt = (struct fleet_taint){ .key = t->key ? strdup(t->key) : NULL,
						    .value = t->value ? strdup(t->value) : NULL, .effect = strdup(t->effect),
						    .count = n, .names = fleet_names(ev->votes, n) };
			if ((t->key && !nt->key) || (t->value && !nt->value) || !nt->effect || !nt->names)
				return -ENOMEM;
		}
	qsort(ff->taints, ff->n_taints, sizeof(*ff->taints), fleet_cmp_taint);
	return 0;
}

/* The mapping the TCPXO nodes publish (coherence.c's verdict), or why there is none. */
static int fleet_mapping(const struct coherence *f, struct fleet_facts *ff, char *err, size_t errlen)
{
	struct coherence_result res = { 0 };
	int r;

	if (ff->kind != PROFILE_TCPXO) {
		ff->mapping_why = strdup("TCPX nodes publish no mapping (the agent publishes the eth1..eth8 mapping of "
					 "TCPXO nodes only)\n");
		return ff->mapping_why ? 0 : -ENOMEM;
	}
	r = coherence_evaluate(f, &res, err, errlen);
	if (r < 0)
		return r;
	if (res.coherent) {
		_Static_assert(IFACEMAP_ENTRIES <= ATTACH_NICS_MAX, "the fleet's mapping fits a node's");
		memcpy(ff->ifaces, res.ifaces, res.n_ifaces * sizeof(res.ifaces[0]));
		ff->n_ifaces = res.n_ifaces;
		ff->ifaces_known = true;
	} else {
		ff->mapping_why = res.diagnostics;
		res.diagnostics = NULL;
	}
	coherence_result_free(&res);
	return 0;
}

int fleet_facts(const struct coherence *f, enum profile_kind kind, struct fleet_facts *ret, char *err, size_t errlen)
{
	struct fleet_facts ff = { .kind = kind };
	struct fleet_eval ev = { 0 };
	const struct coherence_node **all = NULL;
	enum coherence_node_kind want = fleet_kind(kind);
	size_t n;
	int r = -ENOMEM;

	coherence_nodes(f, &n);
	ev.sel = calloc(n ? n : 1, sizeof(*ev.sel));
	ev.votes = calloc(n ? n : 1, sizeof(*ev.votes));
	if (!ev.sel || !ev.votes || (r = coherence_by_name(f, &all, err, errlen)) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (all[i]->kind == want) {
			ev.sel[ev.n++] = all[i];
			ff.n_not_ready += all[i]->ready != COHERENCE_NODE_READY_TRUE;
		}
	ff.n_nodes = ev.n;
	if ((r = fleet_fact(&ev, &ff)) < 0)
		goto out;
	/* Not observed yet: a node of the fleet's machine types without a profile annotation. */
	for (size_t i = 0; i < n; i++)
		ff.n_unobserved += !all[i]->profile && fleet_groups_has(&ff.machine_types, all[i]->itype);
	if ((r = fleet_fact_taints(&ev, &ff)) < 0 ||
	    (r = fleet_mapping(f, &ff, err, errlen)) < 0)
		goto out;
	*ret = ff;
	r = 0;
out:
	if (r == -ENOMEM)
		errmsg_set(err, errlen, r, "out of memory");
	if (r < 0)
		fleet_facts_free(&ff);
	free(all);
	free(ev.sel);
	free(ev.votes);
	return r;
}

void fleet_facts_free(struct fleet_facts *ff)
{
	if (!ff)
		return;
	for (size_t k = 0; k < sizeof(fleet_fact_rows) / sizeof(fleet_fact_rows[0]); k++)
		fleet_groups_free(fleet_fact_groups(ff, k));
	for (size_t i = 0; i < ff->n_taints; i++) {
		free(ff->taints[i].key);
		free(ff->taints[i].value);
		free(ff->taints[i].effect);
		free(ff->taints[i].names);
	}
	free(ff->taints);
	free(ff->mapping_why);
	memset(ff, 0, sizeof(*ff));
}
