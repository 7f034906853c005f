/* coherence.c - collect the TCPXO nodes of NodeLists and judge whether their published mappings agree. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/nodelist.h"
#include "probes/model/errmsg.h"
#include "probes/model/strbuf.h"
#include "report/fleet/coherence.h"
#include "report/fleet/coherence_node.h"

#define COHERENCE_PREFIX_MAX 254

struct coherence {
	char *prefix;                   /* of our annotations: the messages name them */
	struct coherence_node *nodes;
	size_t n, cap;
	bool any_names;                 /* AICR's naming rule not applied (--any-network-names) */
	bool ready_apart;               /* readiness is reported, not required (the runtime check) */
	const char *only;               /* the one node name kept, NULL: all (the caller's string) */
};

int coherence_new(const char *prefix, struct coherence **ret)
{
	struct coherence *c;

	if (!prefix || !*prefix || strlen(prefix) > COHERENCE_PREFIX_MAX)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->prefix = strdup(prefix);
	if (!c->prefix) {
		coherence_free(c);
		return -ENOMEM;
	}
	*ret = c;
	return 0;
}

/* Drop the nodes from index @from on. */
static void coherence_truncate(struct coherence *c, size_t from)
{
	while (c->n > from)
		coherence_node_clear(&c->nodes[--c->n]);
}

void coherence_set_any_names(struct coherence *c, bool any)
{
	c->any_names = any;
}

void coherence_set_ready_apart(struct coherence *c, bool apart)
{
	c->ready_apart = apart;
}

void coherence_set_only(struct coherence *c, const char *name)
{
	c->only = name;
}

void coherence_reset(struct coherence *c)
{
	if (c)
		coherence_truncate(c, 0);
}

void coherence_free(struct coherence *c)
{
	if (!c)
		return;
	coherence_truncate(c, 0);
	free(c->nodes);
	free(c->prefix);
	free(c);
}

/* Read one node the NodeList scan hands on. Return: 0; -EINVAL (with @err) beyond COHERENCE_MAX_NODES; -ENOMEM. */
static int coherence_on_item(void *ctx, size_t idx, const struct nodelist_item *it, char *err, size_t errlen)
{
	struct coherence *c = ctx;
	struct coherence_node *n;

	(void)idx;

	if (c->only && strcmp(it->name.s, c->only) != 0)
		return 0;
	if (c->n >= COHERENCE_MAX_NODES)
		return errmsg_set(err, errlen, -EINVAL, "more than %d nodes", COHERENCE_MAX_NODES);
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct coherence_node *nn = realloc(c->nodes, cap * sizeof(*nn));

		if (!nn)
			return -ENOMEM;
		c->nodes = nn;
		c->cap = cap;
	}
	n = &c->nodes[c->n++];
	return coherence_node_read(n, it);
}

int coherence_add_nodelist(struct coherence *c, const char *text, size_t len, char **ret_continue,
			   char *err, size_t errlen)
{
	size_t start = c->n;
	int r;

	r = nodelist_scan(text, len, c->prefix, coherence_on_item, c, ret_continue, err, errlen);
	if (r < 0)
		coherence_truncate(c, start);   /* a refused page adds nothing */
	return r;
}

const struct coherence_node *coherence_nodes(const struct coherence *c, size_t *ret_n)
{
	*ret_n = c->n;
	return c->nodes;
}

/* ---- evaluation ---- */

static int coherence_cmp_node(const void *a, const void *b)
{
	const struct coherence_node *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

int coherence_by_name(const struct coherence *c, const struct coherence_node ***ret, char *err, size_t errlen)
{
	const struct coherence_node **v = calloc(c->n ? c->n : 1, sizeof(*v));

	*ret = v;
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < c->n; i++)
		v[i] = &c->nodes[i];
	qsort(v, c->n, sizeof(*v), coherence_cmp_node);
	for (size_t i = 1; i < c->n; i++)
		if (strcmp(v[i]->name, v[i - 1]->name) == 0)
			return errmsg_set(err, errlen, -EINVAL, "node '%s' appears more than once in the list", v[i]->name);
	return 0;
}

const char *coherence_nodes_word(size_t n)
{
	return n == 1 ? "node" : "nodes";
}

/* " (a, b, c, …)": the first COHERENCE_NAMES_SHOWN of @v (already in name order). */
static void coherence_names(struct strbuf *sb, const struct coherence_node *const *v, size_t n)
{
	if (!n)
		return;
	strbuf_append(sb, " (");
	for (size_t i = 0; i < n && i < COHERENCE_NAMES_SHOWN; i++)
		strbuf_appendf(sb, "%s%s", i ? ", " : "", v[i]->name);
	if (n > COHERENCE_NAMES_SHOWN)
		strbuf_append(sb, ", …");
	strbuf_append(sb, ")");
}

/* A (label, message, node) triple; grouped by label into one diagnostic line each. */
struct coherence_item {
	const char *label;
	const char *message;            /* may be NULL */
	const struct coherence_node *node;
	size_t pos;                     /* node's place in name order */
};

struct coherence_group {
	size_t first, count;            /* a run of items with one label */
	const char *label;              /* the run's label: the sort needs no context (qsort_r is not POSIX) */
};

/* One evaluation: the nodes in name order, scratch sized for them, the counts each phase finds. */
struct coherence_eval {
	const struct coherence *c;
	const struct coherence_node **by_name;  /* every node, sorted by name */
	size_t n;
	struct strbuf *out;                     /* the diagnostics */
	const struct coherence_node **sel;      /* a phase's selection */
	const struct coherence_node **valid;    /* the TCPXO nodes with a valid mapping, in name order */
	size_t *valid_pos;                      /* their places in by_name */
	struct coherence_item *items;           /* a phase's (label, message, node) lines */
	size_t n_tcpxo, n_tcpx, n_none, n_other;
	size_t n_dranet;                        /* TCPXO (or unobserved) nodes whose NICs DRANET allocates: not counted */
	size_t n_unobs, n_notready, n_nomap, n_malformed, n_invalid, n_names, nv;
	int differ;                             /* interfaces the valid mappings disagree on */
};

static int coherence_cmp_item(const void *a, const void *b)
{
	const struct coherence_item *x = a, *y = b;
	int d = strcmp(x->label, y->label);

	if (d)
		return d;
	return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int coherence_cmp_group(const void *a, const void *b)
{
	const struct coherence_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* Sort @items by label, then name order, into runs of one label in @g (room for @n): largest first, ties by label. */
static size_t coherence_group(struct coherence_item *items, size_t n, struct coherence_group *g)
{
	size_t ng = 0;

	qsort(items, n, sizeof(*items), coherence_cmp_item);
	for (size_t i = 0; i < n; i++) {
		if (i == 0 || strcmp(items[i].label, items[i - 1].label) != 0)
			g[ng++] = (struct coherence_group){ .first = i, .label = items[i].label };
		g[ng - 1].count++;
	}
	qsort(g, ng, sizeof(*g), coherence_cmp_group);
	return ng;
}

/*
 * One line per label, largest groups first, ties by label. Without @head:
 * "  <label>: N nodes (a, b, c, …)" then ": <message>" when every node of the group says the
 * same, else ", e.g. <first node>: <its message>". With @head: "<head>: N nodes (…): <label>".
 */
static int coherence_print_groups(struct strbuf *sb, const char *head, struct coherence_item *items, size_t n)
{
	struct coherence_group *g;
	const struct coherence_node **names;
	size_t ng = 0;

	if (!n)
		return 0;
	g = calloc(n, sizeof(*g));
	names = calloc(n, sizeof(*names));
	if (!g || !names) {
		free(g);
		free(names);
		return -ENOMEM;
	}
	ng = coherence_group(items, n, g);
	for (size_t k = 0; k < ng; k++) {
		const struct coherence_item *it = &items[g[k].first];
		const char *m0 = it->message ? it->message : "";
		bool same = true;

		for (size_t i = 0; i < g[k].count; i++) {
			names[i] = it[i].node;
			if (strcmp(m0, it[i].message ? it[i].message : "") != 0)
				same = false;
		}
		strbuf_appendf(sb, "%s%s: %zu %s", head ? "" : "  ", head ? head : it->label, g[k].count,
			       coherence_nodes_word(g[k].count));
		coherence_names(sb, names, g[k].count);
		if (head)
			strbuf_appendf(sb, ": %s", it->label);
		else if (same && *m0)
			strbuf_appendf(sb, ": %s", m0);
		else if (!same)
			strbuf_appendf(sb, ", e.g. %s: %s", it->node->name, *m0 ? m0 : "(no message)");
		strbuf_append(sb, "\n");
	}
	free(g);
	free(names);
	return 0;
}

/*
 * For each of eth1..eth8, the networks the valid mappings give it:
 * "eth1: 14 nodes → gpu-nic-0, 2 nodes → gpu-nic-7 (a, b)". The majority's names are left out
 * unless another network ties with it. Return: interfaces in disagreement, or -ENOMEM.
 */
static int coherence_disagreement(struct coherence_eval *ev, const struct coherence_node **valid,
				  const size_t *valid_pos, size_t nv)
{
	struct coherence_item *votes = NULL;     /* label: the network */
	struct coherence_group *t = NULL;
	const struct coherence_node **names = NULL;
	int differ = 0;

	if (nv < 2)
		return 0;
	votes = calloc(nv, sizeof(*votes));
	t = calloc(nv, sizeof(*t));
	names = calloc(nv, sizeof(*names));
	if (!votes || !t || !names) {
		differ = -ENOMEM;
		goto out;
	}
	for (size_t k = 0; k < IFACEMAP_ENTRIES; k++) {
		size_t nt;

		for (size_t i = 0; i < nv; i++)
			votes[i] = (struct coherence_item){ valid[i]->ifaces[k].network, NULL, valid[i], valid_pos[i] };
		nt = coherence_group(votes, nv, t);
		if (nt < 2)
			continue;
		differ++;
		strbuf_appendf(ev->out, "%s: ", valid[0]->ifaces[k].name);
		for (size_t j = 0; j < nt; j++) {
			const struct coherence_item *v = &votes[t[j].first];

			strbuf_appendf(ev->out, "%s%zu %s → %s", j ? ", " : "", t[j].count,
				       coherence_nodes_word(t[j].count), v->label);
			if (j == 0 && t[0].count > t[1].count)
				continue;
			for (size_t i = 0; i < t[j].count; i++)
				names[i] = v[i].node;
			coherence_names(ev->out, names, t[j].count);
		}
		strbuf_append(ev->out, "\n");
	}
out:
	free(votes);
	free(t);
	free(names);
	return differ;
}

/* Collect the nodes of @kind (and, for TCPXO nodes, @map) into @sel in name order. */
static size_t coherence_select(const struct coherence_eval *ev, enum coherence_node_kind kind, int map,
			       const struct coherence_node **sel)
{
	size_t k = 0;

	for (size_t i = 0; i < ev->n; i++)
		if (ev->by_name[i]->kind == kind && !ev->by_name[i]->dranet &&
		    (map < 0 || (int)ev->by_name[i]->map == map))
			sel[k++] = ev->by_name[i];
	return k;
}

/* "<head>: N nodes (a, b, c, …)<tail>\n" for a non-empty selection. */
static void coherence_print_list(struct strbuf *sb, const char *head, const struct coherence_node **sel,
				 size_t n, const char *tail)
{
	if (!n)
		return;
	strbuf_appendf(sb, "%s: %zu %s", head, n, coherence_nodes_word(n));
	coherence_names(sb, sel, n);
	strbuf_appendf(sb, "%s\n", tail);
}

/* Sort the nodes by name and size the scratch. Return: 0; -EINVAL (with @err) for a name listed twice; -ENOMEM. */
static int coherence_eval_start(struct coherence_eval *ev, char *err, size_t errlen)
{
	const struct coherence *c = ev->c;
	size_t need = 1, slots = c->n ? c->n : 1;
	int r;

	for (size_t i = 0; i < c->n; i++)
		need += c->nodes[i].n_fails ? c->nodes[i].n_fails : 1;
	ev->sel = calloc(slots, sizeof(*ev->sel));
	ev->valid = calloc(slots, sizeof(*ev->valid));
	ev->valid_pos = calloc(slots, sizeof(*ev->valid_pos));
	ev->items = calloc(need, sizeof(*ev->items));
	if (!ev->sel || !ev->valid || !ev->valid_pos || !ev->items)
		return -ENOMEM;
	r = coherence_by_name(c, &ev->by_name, err, errlen);
	if (r < 0)
		return r;
	for (size_t i = 0; i < c->n; i++) {
		enum coherence_node_kind k = ev->by_name[i]->kind;
		bool tcpxo = k == COHERENCE_NODE_KIND_TCPXO || k == COHERENCE_NODE_KIND_UNOBSERVED;

		/* GKE managed DRANET: the NICs reach pods through ResourceClaims; no mapping to weigh. */
		ev->n_dranet += tcpxo && ev->by_name[i]->dranet;
		ev->n_tcpxo += tcpxo && !ev->by_name[i]->dranet;
		ev->n_tcpx += k == COHERENCE_NODE_KIND_TCPX;
		ev->n_none += k == COHERENCE_NODE_KIND_NONE;
		ev->n_other += k == COHERENCE_NODE_KIND_OTHER;
	}
	return 0;
}

/*
 * The not yet observed nodes, and the not ready ones: one line per failing check (or per reason
 * the checks are unknown).
 */
static int coherence_eval_ready(struct coherence_eval *ev)
{
	const struct coherence *c = ev->c;
	char *no_ready = NULL, *no_attach = NULL, *bad_attach = NULL, *unobs = NULL;
	size_t ni = 0;
	int r = -ENOMEM;

	if (!(unobs = strbuf_printf(": labelled %s, no %sprofile annotation yet", COHERENCE_NODE_INSTANCE_TYPE, c->prefix)) ||
	    !(no_ready = strbuf_printf("no %sready annotation", c->prefix)) ||
	    !(no_attach = strbuf_printf("no %sattachment annotation", c->prefix)) ||
	    !(bad_attach = strbuf_printf("the %sattachment annotation is not JSON with a checks list", c->prefix)))
		goto out;
	ev->n_unobs = coherence_select(ev, COHERENCE_NODE_KIND_UNOBSERVED, -1, ev->sel);
	coherence_print_list(ev->out, "not yet observed", ev->sel, ev->n_unobs, unobs);
	for (size_t i = 0; i < ev->n; i++) {
		const struct coherence_node *n = ev->by_name[i];

		if (n->kind != COHERENCE_NODE_KIND_TCPXO || n->dranet || n->ready == COHERENCE_NODE_READY_TRUE)
			continue;
		ev->sel[ev->n_notready++] = n;
		if (n->ready == COHERENCE_NODE_READY_MISSING)
			ev->items[ni++] = (struct coherence_item){ "ready unknown", no_ready, n, i };
		else if (n->ready == COHERENCE_NODE_READY_BAD)
			ev->items[ni++] = (struct coherence_item){ "ready unknown", n->ready_value, n, i };
		else if (n->n_fails)
			for (size_t f = 0; f < n->n_fails; f++)
				ev->items[ni++] = (struct coherence_item){ n->fails[f].id, n->fails[f].message, n, i };
		else
			ev->items[ni++] = (struct coherence_item){ "failing checks unknown",
				n->attach == COHERENCE_NODE_ATTACH_MISSING ? no_attach :
				n->attach == COHERENCE_NODE_ATTACH_BAD ? bad_attach :
				"the attachment lists no failed check", n, i };
	}
	coherence_print_list(ev->out, "not ready", ev->sel, ev->n_notready, "");
	r = coherence_print_groups(ev->out, NULL, ev->items, ni);
out:
	free(unobs);
	free(no_ready);
	free(no_attach);
	free(bad_attach);
	return r;
}

/* The mapping each observed TCPXO node publishes: missing, unreadable, breaking the renderer's rules, or valid. */
static int coherence_eval_mappings(struct coherence_eval *ev)
{
	const struct coherence *c = ev->c;
	char *nomap = NULL, *malformed = NULL;
	size_t ni = 0;
	int r = -ENOMEM;

	if (!(nomap = strbuf_printf("no %sinterfaces annotation", c->prefix)) ||
	    !(malformed = strbuf_printf("unreadable %sinterfaces annotation", c->prefix)))
		goto out;
	ev->n_nomap = coherence_select(ev, COHERENCE_NODE_KIND_TCPXO, COHERENCE_NODE_MAP_MISSING, ev->sel);
	coherence_print_list(ev->out, nomap, ev->sel, ev->n_nomap, "");
	ev->n_malformed = coherence_select(ev, COHERENCE_NODE_KIND_TCPXO, COHERENCE_NODE_MAP_MALFORMED, ev->sel);
	coherence_print_list(ev->out, malformed, ev->sel, ev->n_malformed,
			     ": not a JSON list of {\"interfaceName\", \"network\"} entries");
	for (size_t i = 0; i < ev->n; i++) {
		const struct coherence_node *n = ev->by_name[i];

		if (n->kind != COHERENCE_NODE_KIND_TCPXO || n->dranet)
			continue;
		if (n->map == COHERENCE_NODE_MAP_VALID) {
			ev->valid_pos[ev->nv] = i;
			ev->valid[ev->nv++] = n;
		} else if (n->map == COHERENCE_NODE_MAP_INVALID) {
			ev->items[ni++] = (struct coherence_item){ n->map_why, NULL, n, i };
			ev->n_invalid++;
		}
	}
	if (coherence_print_groups(ev->out, "mapping breaks the renderer's rules", ev->items, ni) < 0)
		goto out;
	/* AICR's naming rule: a renderer's rule, checked unless --any-network-names lifts it. */
	ni = 0;
	for (size_t i = 0; i < ev->nv && !c->any_names; i++)
		if (ev->valid[i]->names_why)
			ev->items[ni++] = (struct coherence_item){ ev->valid[i]->names_why, NULL, ev->valid[i],
								   ev->valid_pos[i] };
	ev->n_names = ni;
	if (coherence_print_groups(ev->out, "mapping breaks the renderer's naming rule", ev->items, ni) < 0)
		goto out;
	if (ev->n_names)
		strbuf_append(ev->out, "  the nodes work: the names are AICR's rule, not the fabric's; "
			      "--any-network-names checks the mapping without it\n");
	r = 0;
out:
	free(nomap);
	free(malformed);
	return r;
}

/* A count and what it counts, in the verdict's lists. */
struct coherence_count {
	size_t n;
	const char *what;
};

/* " N what" for each non-zero count, the first after @first, the others after ","; return how many. */
static size_t coherence_counts(struct strbuf *out, const struct coherence_count *v, size_t n, const char *first)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++)
		if (v[i].n)
			strbuf_appendf(out, "%s %zu %s", k++ ? "," : first, v[i].n, v[i].what);
	return k;
}

/* The last line: coherent, or every reason it is not; the nodes not counted. */
static void coherence_eval_verdict(const struct coherence_eval *ev, struct coherence_result *res)
{
	struct strbuf *out = ev->out;

	res->coherent = ev->n_tcpxo > 0 && !ev->n_unobs && (!ev->n_notready || ev->c->ready_apart) && !ev->n_nomap &&
			!ev->n_malformed && !ev->n_invalid && !ev->n_names && !ev->differ;
	if (res->coherent) {
		memcpy(res->ifaces, ev->valid[0]->ifaces, sizeof(res->ifaces));
		res->n_ifaces = IFACEMAP_ENTRIES;
		strbuf_appendf(out, "coherent: %zu TCPXO %s the same mapping", ev->n_tcpxo,
			       ev->n_tcpxo == 1 ? "node carries" : "nodes carry");
	} else if (!ev->n_tcpxo && ev->n_dranet) {
		strbuf_appendf(out, "no mapping: the GPU NICs of %zu TCPXO %s are allocated by DRANET (node label "
			       "cloud.google.com/gke-networking-dra-driver=true): they reach pods through ResourceClaims, "
			       "not Networks and the networking.gke.io/interfaces annotation; no mapping printed",
			       ev->n_dranet, coherence_nodes_word(ev->n_dranet));
	} else if (!ev->n_tcpxo) {
		strbuf_appendf(out, "incoherent: no TCPXO nodes among %zu %s; no mapping printed",
			       ev->n, coherence_nodes_word(ev->n));
	} else {
		const struct coherence_count why[] = {
			{ ev->n_unobs, "not yet observed" }, { ev->n_notready, "not ready" },
			{ ev->n_nomap, "without a mapping" }, { ev->n_malformed, "with an unreadable mapping" },
			{ ev->n_invalid, "breaking the renderer's rules" }, { ev->n_names, "breaking the renderer's naming rule" },
		};
		size_t k;

		strbuf_appendf(out, "incoherent: %zu TCPXO %s", ev->n_tcpxo, coherence_nodes_word(ev->n_tcpxo));
		k = coherence_counts(out, why, sizeof(why) / sizeof(why[0]), ":");
		if (ev->differ)
			strbuf_appendf(out, "%s mappings differ on %d %s", k ? "," : ":", ev->differ,
				       ev->differ == 1 ? "interface" : "interfaces");
		strbuf_append(out, "; no mapping printed");
	}
	if ((ev->n_tcpx || ev->n_none || ev->n_other || ev->n_dranet) && (ev->n_tcpxo || !ev->n_dranet)) {
		const struct coherence_count nc[] = {
			{ ev->n_dranet, "DRANET" }, { ev->n_tcpx, "tcpx" }, { ev->n_none, "none" }, { ev->n_other, "other" },
		};

		strbuf_append(out, " (not counted:");
		coherence_counts(out, nc, sizeof(nc) / sizeof(nc[0]), "");
		strbuf_append(out, ")");
	}
	strbuf_append(out, "\n");
}

int coherence_evaluate(const struct coherence *c, struct coherence_result *ret, char *err, size_t errlen)
{
	struct strbuf out = { 0 };
	struct coherence_eval ev = { .c = c, .n = c->n, .out = &out };
	struct coherence_result res = { .n_nodes = c->n };
	int r;

	r = coherence_eval_start(&ev, err, errlen);
	if (r == 0)
		r = coherence_eval_ready(&ev);
	if (r == 0)
		r = coherence_eval_mappings(&ev);
	if (r == 0) {
		ev.differ = coherence_disagreement(&ev, ev.valid, ev.valid_pos, ev.nv);
		r = ev.differ < 0 ? ev.differ : 0;
	}
	if (r == 0) {
		coherence_eval_verdict(&ev, &res);
		res.n_tcpxo = ev.n_tcpxo;
		res.n_dranet = ev.n_dranet;
		res.diagnostics = strbuf_take(&out);
		r = res.diagnostics ? 0 : -ENOMEM;
	}
	if (r == 0)
		*ret = res;
	if (r == -ENOMEM)
		errmsg_set(err, errlen, r, "out of memory");
	strbuf_free(&out);
	free(ev.by_name);
	free(ev.sel);
	free(ev.valid);
	free(ev.valid_pos);
	free(ev.items);
	return r;
}

void coherence_result_free(struct coherence_result *r)
{
	if (!r)
		return;
	free(r->diagnostics);
	r->diagnostics = NULL;
}
