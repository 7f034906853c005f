/* render_tree.c - the node as a tree: GPU PCIe switches by NUMA node, their GPUs and GPU NICs. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/render_tree.h"
#include "report/render/treemarks.h"

#define TREE_INDENT "  "        /* the human report's left margin */
#define TREE_WRAP_INDENT "     "        /* a wrapped row continues under its first field's end */
#define TREE_NIC_FIELDS 8       /* tree_nic_row()'s own: NIC, BDF, name, state, IPv4, aperture, network, numa */

_Static_assert(TREE_NIC_FIELDS + TREEMARKS_NIC_MAX <= TREEROW_FIELDS, "a GPU NIC row's fields and marks fit a row");

struct tree {
	const struct observation *o;
	const struct profile *p;
	struct strbuf *sb;
	int w_name, w_state, w_ipv4;    /* NIC rows' column widths */
	int numa;                       /* the group's NUMA node; -1 unknown, -2 outside the switches */
	size_t k, n;                    /* rows printed in the current list, and its length (for └─) */
	bool count_only;                /* tree_item() counts the rows, prints none (the length of a list) */
};

/* One row of the current list: under a switch when @bar is its bar ("│  " or "   "), else under a group. */
static void tree_item(struct tree *t, const char *bar, const struct treerow *r)
{
	bool last = t->k + 1 == t->n;
	char prefix[32], cont[40];

	t->k++;
	if (t->count_only)
		return;
	snprintf(prefix, sizeof(prefix), "%s%s%s", TREE_INDENT, bar, last ? "└─ " : "├─ ");
	snprintf(cont, sizeof(cont), "%s%s%s%s", TREE_INDENT, bar, last ? "   " : "│  ", TREE_WRAP_INDENT);
	treerow_emit(r, prefix, cont, t->sb);
}

static void tree_numa(const struct tree *t, struct treerow *r, int numa)
{
	/* Only where it differs from the group's: a member on another node than its switch. */
	if (t->numa == -2 ? numa < 0 : numa == t->numa)
		return;
	if (numa < 0)
		treerow_add(r, 0, "numa unknown");
	else
		treerow_add(r, 0, "numa %d", numa);
}

static void tree_gpu_row(const struct tree *t, const struct profile_gpu *g, struct treerow *r)
{
	treerow_add(r, 0, "GPU");
	treerow_add(r, 0, "%s", g->bdf);
	if (g->nic >= 0) {
		const struct profile_nic *n = &t->p->nics[g->nic];
		char name[OBS_IFNAME_MAX];

		treerow_add(r, 0, "→ %s", treerow_clean(n->name[0] ? n->name : n->bdf, name, sizeof(name)));
	}
	tree_numa(t, r, g->numa);
	treemarks_row(t->p, MARK_GPU, (size_t)(g - t->p->gpus), r);
}

static void tree_nic_row(const struct tree *t, const struct profile_nic *n, struct treerow *r)
{
	const struct obs_aperture *a = &t->o->host.aperture;
	char name[OBS_IFNAME_MAX], net[PROFILE_NET_MAX];
	const char *state = nic_state_name(n->state);
	const struct obs_aperture_entry *e;

	treerow_clean(n->name, name, sizeof(name));
	treerow_add(r, 0, "NIC");
	treerow_add(r, 0, "%s", n->bdf);
	treerow_add(r, t->w_name, "%s", name[0] ? name : "-");
	treerow_add(r, t->w_state, "%s", state ? state : "-");
	treerow_add(r, t->w_ipv4, "%s", n->ipv4[0] ? n->ipv4 : "-");
	if (t->p->kind == PROFILE_TCPXO)
		treerow_add(r, 0, "aperture %s", n->aperture[0] ? n->aperture : "-");
	if (n->network[0])
		treerow_add(r, 0, "network %s", treerow_clean(n->network, net, sizeof(net)));
	tree_numa(t, r, n->numa);
	treemarks_row(t->p, MARK_NIC, (size_t)(n - t->p->nics), r);
	if (n->aperture[0] && (e = obs_aperture_find(a, n->aperture)))      /* the entry it claims is on its row */
		treemarks_row(t->p, MARK_ENTRY, (size_t)(e - a->v), r);
}

/* The members of switch @s (its GPUs and GPU NICs, both lists in BDF order, merged), under @bar. */
static void tree_switch_members(struct tree *t, int s, const char *bar)
{
	const struct profile *p = t->p;
	size_t gi = 0, ni = 0;

	t->k = 0;
	t->n = 0;
	for (size_t i = 0; i < p->n_gpus; i++)
		t->n += p->gpus[i].sw == s;
	for (size_t i = 0; i < p->n_nics; i++)
		t->n += p->nics[i].sw == s;
	for (;;) {
		struct treerow r = { 0 };

		while (gi < p->n_gpus && p->gpus[gi].sw != s)
			gi++;
		while (ni < p->n_nics && p->nics[ni].sw != s)
			ni++;
		if (gi == p->n_gpus && ni == p->n_nics)
			break;
		if (gi < p->n_gpus && (ni == p->n_nics || strcmp(p->gpus[gi].bdf, p->nics[ni].bdf) < 0))
			tree_gpu_row(t, &p->gpus[gi++], &r);
		else
			tree_nic_row(t, &p->nics[ni++], &r);
		tree_item(t, bar, &r);
	}
}

/* Switch @s's NUMA node: its upstream port's, else its first GPU's that is known, else its first GPU NIC's. */
static int tree_switch_numa(const struct observation *o, const struct profile *p, int s)
{
	const struct obs_pci_func *f = observation_pci_find(o, p->switches[s]);

	if (f && f->numa >= 0)
		return f->numa;
	for (size_t i = 0; i < p->n_gpus; i++)
		if (p->gpus[i].sw == s && p->gpus[i].numa >= 0)
			return p->gpus[i].numa;
	for (size_t i = 0; i < p->n_nics; i++)
		if (p->nics[i].sw == s && p->nics[i].numa >= 0)
			return p->nics[i].numa;
	return -1;
}

struct tree_sw {
	int numa;
	size_t i;               /* index into profile.switches, which is in BDF order */
};

static int tree_sw_cmp(const void *a, const void *b)
{
	const struct tree_sw *x = a, *y = b;

	if (x->numa != y->numa)
		return x->numa < 0 ? 1 : y->numa < 0 ? -1 : x->numa < y->numa ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static void tree_switches(struct tree *t, const struct tree_sw *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const char *bdf = t->p->switches[v[i].i];
		const struct obs_pci_func *f = observation_pci_find(t->o, bdf);
		bool last = i + 1 == n || v[i + 1].numa != v[i].numa;
		struct treerow r = { 0 };

		if (i == 0 || v[i - 1].numa != v[i].numa) {
			if (v[i].numa >= 0)
				strbuf_appendf(t->sb, "%snuma %d\n", TREE_INDENT, v[i].numa);
			else
				strbuf_appendf(t->sb, "%snuma unknown\n", TREE_INDENT);
		}
		t->numa = v[i].numa;
		treerow_add(&r, 0, "switch %s", bdf);
		if (f && f->has_bus_range)
			treerow_add(&r, 0, "buses %02x-%02x", f->secondary, f->subordinate);
		treerow_emit(&r, last ? TREE_INDENT "└─ " : TREE_INDENT "├─ ",
			     last ? TREE_INDENT "   " TREE_WRAP_INDENT : TREE_INDENT "│  " TREE_WRAP_INDENT, t->sb);
		tree_switch_members(t, (int)v[i].i, last ? "   " : "│  ");
	}
}

/* The aperture entry row of @e, which no NIC row names: what it holds, and why it serves none. */
static void tree_entry_row(const struct tree *t, const struct obs_aperture_entry *e, struct treerow *r)
{
	char name[OBS_HOST_NAME_MAX], ipt[OBS_IPV4_TEXT];

	treerow_add(r, 0, "aperture");
	treerow_add(r, 0, "%s", treerow_clean(e->name, name, sizeof(name)));
	if (e->type == OBS_FILE_DIR && e->bar4 == OBS_BAR4_OK) {
		obs_ipv4_format(e->bar4_ipv4, -1, ipt, sizeof(ipt));
		treerow_add(r, 0, "BAR4 %s", ipt);
	}
	treemarks_row(t->p, MARK_ENTRY, (size_t)(e - t->o->host.aperture.v), r);
}

/* Rows outside the GPU switches, in order: GPUs, GPU NICs, unclaimed aperture entries, LLCM functions without one. */
static void tree_outside(struct tree *t)
{
	const struct obs_aperture *a = &t->o->host.aperture;
	/* Whether the aperture entries are rows of the tree: on TCPXO, when the folder was read. */
	bool apt = t->p->kind == PROFILE_TCPXO && a->status.state == PROBE_OK && a->present;

	t->k = 0;
	for (size_t i = 0; i < t->p->n_gpus; i++) {
		struct treerow r = { 0 };

		if (t->p->gpus[i].sw >= 0)
			continue;
		tree_gpu_row(t, &t->p->gpus[i], &r);
		tree_item(t, "", &r);
	}
	for (size_t i = 0; i < t->p->n_nics; i++) {
		struct treerow r = { 0 };

		if (t->p->nics[i].sw >= 0)
			continue;
		tree_nic_row(t, &t->p->nics[i], &r);
		tree_item(t, "", &r);
	}
	for (size_t i = 0; apt && i < a->n; i++) {
		struct treerow r = { 0 };

		if (obs_find(t->p->nics, t->p->n_nics, sizeof(*t->p->nics), offsetof(struct profile_nic, aperture), false,
			     a->v[i].name))
			continue;
		tree_entry_row(t, &a->v[i], &r);
		tree_item(t, "", &r);
	}
	for (size_t i = 0; apt && i < t->o->pci.n; i++) {
		const struct obs_pci_func *f = &t->o->pci.v[i];
		struct treerow r = { 0 };

		if (f->kind != PCI_KIND_LLCM || obs_aperture_find(a, f->bdf))
			continue;
		treerow_add(&r, 0, "LLCM");
		treerow_add(&r, 0, "%s", f->bdf);
		treemarks_row(t->p, MARK_LLCM, i, &r);
		tree_item(t, "", &r);
	}
}

static int tree_width(const char *s, int cur)
{
	int w = (int)strlen(s);

	return w > cur ? w : cur;
}

int render_tree(const struct observation *o, const struct profile *p, struct strbuf *sb)
{
	struct tree t = { .o = o, .p = p, .sb = sb, .w_name = 1, .w_state = 1, .w_ipv4 = 1 };
	struct tree_sw *v = NULL;
	size_t outside;

	if (o->pci.status.state != PROBE_OK || (!p->n_gpus && !p->n_nics))
		return 0;
	v = calloc(p->n_switches ? p->n_switches : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < p->n_switches; i++)
		v[i] = (struct tree_sw){ .numa = tree_switch_numa(o, p, (int)i), .i = i };
	qsort(v, p->n_switches, sizeof(*v), tree_sw_cmp);
	for (size_t i = 0; i < p->n_nics; i++) {
		const char *state = nic_state_name(p->nics[i].state);

		t.w_name = tree_width(p->nics[i].name, t.w_name);
		t.w_state = tree_width(state ? state : "-", t.w_state);
		t.w_ipv4 = tree_width(p->nics[i].ipv4, t.w_ipv4);
	}

	/* The group outside is printed only when it has rows, its last with └─: counted first. */
	t.count_only = true;
	tree_outside(&t);
	outside = t.k;
	t.count_only = false;

	strbuf_appendf(sb, "%sPCIe tree: %zu GPU switch%s by NUMA node, %zu GPU%s, %zu GPU NIC%s\n", TREE_INDENT,
		       p->n_switches, p->n_switches == 1 ? "" : "es", p->n_gpus, p->n_gpus == 1 ? "" : "s", p->n_nics,
		       p->n_nics == 1 ? "" : "s");
	tree_switches(&t, v, p->n_switches);
	if (outside) {
		strbuf_appendf(sb, "%soutside the GPU switches\n", TREE_INDENT);
		t.numa = -2;
		t.n = outside;
		tree_outside(&t);
	}
	free(v);
	return sb->oom ? -ENOMEM : 0;
}
