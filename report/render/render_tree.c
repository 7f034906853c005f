/* render_tree.c - the node as a tree: GPU PCIe switches by NUMA node, their GPUs and GPU NICs, marks. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/bar4.h"
#include "report/checks/pairing.h"

#include "report/render/render_tree.h"

#define TREE_FIELDS 12
#define TREE_FIELD_MAX 320      /* a field: our words around one host name (OBS_HOST_NAME_MAX) */
#define TREE_MARK_MAX 160
#define TREE_INDENT "  "        /* the human report's left margin */
#define TREE_WRAP_INDENT "     "        /* a wrapped row continues under its first field's end */
#define TREE_CUT_MIN 8          /* columns a cut word keeps at least, before its "…" */

/* One row: its fields in order, each padded to a column width so equal rows align. */
struct tree_row {
	char f[TREE_FIELDS][TREE_FIELD_MAX];
	int pad[TREE_FIELDS];
	size_t n;
};

struct tree {
	const struct observation *o;
	const struct profile *p;
	const struct pairing *pr;
	struct strbuf *sb;
	int w_name, w_state, w_ipv4;    /* NIC rows' column widths */
	int numa;                       /* the group's NUMA node; -1 unknown, -2 outside the switches */
	size_t k, n;                    /* rows printed in the current list, and its length (for └─) */
	bool dry;                       /* count rows only */
};

/* Host or API text as the tree prints it: visible ASCII kept, any other byte (space too) '?'. Return: @buf. */
static char *tree_clean(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; s[i] && i + 1 < len; i++)
		buf[i] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* Columns of @n bytes of our text: one per UTF-8 character (host text is ASCII by tree_clean()). */
static int tree_cols(const char *s, size_t n)
{
	int w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Bytes of @s (@n long) that fill at most @cols columns, never splitting a character. */
static size_t tree_fit(const char *s, size_t n, int cols)
{
	size_t i = 0;
	int w = 0;

	while (i < n) {
		size_t j = i + 1;

		while (j < n && ((unsigned char)s[j] & 0xc0) == 0x80)
			j++;
		if (w + 1 > cols)
			break;
		w++;
		i = j;
	}
	return i;
}

static void tree_add(struct tree_row *r, int pad, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void tree_add(struct tree_row *r, int pad, const char *fmt, ...)
{
	va_list ap;

	if (r->n == TREE_FIELDS)
		return;
	va_start(ap, fmt);
	vsnprintf(r->f[r->n], sizeof(r->f[r->n]), fmt, ap);
	va_end(ap);
	r->pad[r->n++] = pad;
}

/* A mark for check @id on the row, only while that check failed or warned: "FAIL links: down". */
static void tree_mark(const struct tree *t, struct tree_row *r, enum check_id id, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void tree_mark(const struct tree *t, struct tree_row *r, enum check_id id, const char *fmt, ...)
{
	enum check_status st = t->p->checks[id].status;
	char text[TREE_MARK_MAX];
	va_list ap;

	if (st != CHECK_FAIL && st != CHECK_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	tree_add(r, 0, "%s %s: %s", st == CHECK_FAIL ? "FAIL" : "WARN", check_id_name(id), text);
}

/*
 * The row after @prefix: fields two spaces apart (plus padding), words one. A field that does not
 * fit the line starts a new one after @cont; one too wide for a line of its own wraps between its
 * words, and a word too wide for a line of its own is cut with "…".
 */
static void tree_emit(struct strbuf *sb, const char *prefix, const char *cont, const struct tree_row *r)
{
	int cstart = tree_cols(cont, strlen(cont)), col = tree_cols(prefix, strlen(prefix)), gap = 0;
	bool fresh = true;

	strbuf_append(sb, prefix);
	for (size_t i = 0; i < r->n; i++) {
		const char *s = r->f[i];
		int fw = tree_cols(s, strlen(s));
		bool first = true;

		for (;;) {
			size_t n = strcspn(s, " ");
			int w = tree_cols(s, n), g = first ? gap : 1;

			/* A word that fits no line is cut where it is, unless barely a few characters remain. */
			bool wrap = col + g + w > RENDER_TREE_WIDTH &&
				    (cstart + w <= RENDER_TREE_WIDTH || col + g + TREE_CUT_MIN > RENDER_TREE_WIDTH);

			if (first && col + g + fw > RENDER_TREE_WIDTH && cstart + fw <= RENDER_TREE_WIDTH)
				wrap = true;
			if (!fresh && wrap) {
				strbuf_appendf(sb, "\n%s", cont);
				col = cstart;
				fresh = true;
			}
			if (!fresh) {
				strbuf_appendf(sb, "%*s", g, "");
				col += g;
			}
			if (col + w > RENDER_TREE_WIDTH) {
				size_t k = tree_fit(s, n, RENDER_TREE_WIDTH - col - 1);

				strbuf_appendn(sb, s, k);
				strbuf_append(sb, "…");
				col += tree_cols(s, k) + 1;
			} else {
				strbuf_appendn(sb, s, n);
				col += w;
			}
			fresh = false;
			first = false;
			if (!s[n])
				break;
			s += n + 1;
		}
		gap = 2 + (r->pad[i] > fw ? r->pad[i] - fw : 0);
	}
	strbuf_append(sb, "\n");
}

/* One row of the current list: under a switch when @bar is its bar ("│  " or "   "), else under a group. */
static void tree_item(struct tree *t, const char *bar, const struct tree_row *r)
{
	bool last = t->k + 1 == t->n;
	char prefix[32], cont[40];

	t->k++;
	if (t->dry)
		return;
	snprintf(prefix, sizeof(prefix), "%s%s%s", TREE_INDENT, bar, last ? "└─ " : "├─ ");
	snprintf(cont, sizeof(cont), "%s%s%s%s", TREE_INDENT, bar, last ? "   " : "│  ", TREE_WRAP_INDENT);
	tree_emit(t->sb, prefix, cont, r);
}

static const struct profile_gpu *tree_gpu_by_bdf(const struct profile *p, const char *bdf)
{
	for (size_t i = 0; i < p->n_gpus; i++)
		if (strcmp(p->gpus[i].bdf, bdf) == 0)
			return &p->gpus[i];
	return NULL;
}

/* The switch (pairing index) of the function at @bdf, or -1. */
static int tree_sw_of(const struct tree *t, const char *bdf)
{
	const struct obs_pci_func *f = observation_pci_find(t->o, bdf);

	return f ? t->pr->sw_of[f - t->o->pci.v] : -1;
}

static void tree_numa(const struct tree *t, struct tree_row *r, int numa)
{
	/* Only where it differs from the group's: a member on another node than its switch. */
	if (t->numa == -2 ? numa < 0 : numa == t->numa)
		return;
	if (numa < 0)
		tree_add(r, 0, "numa unknown");
	else
		tree_add(r, 0, "numa %d", numa);
}

static void tree_gpu_row(const struct tree *t, const struct profile_gpu *g, struct tree_row *r)
{
	tree_add(r, 0, "GPU");
	tree_add(r, 0, "%s", g->bdf);
	if (g->nic >= 0) {
		const struct profile_nic *n = &t->p->nics[g->nic];
		char name[OBS_IFNAME_MAX];

		tree_clean(n->name[0] ? n->name : n->bdf, name, sizeof(name));
		tree_add(r, 0, "→ %s", name);
	}
	tree_numa(t, r, g->numa);
	if (g->nic < 0 && tree_sw_of(t, g->bdf) >= 0)
		tree_mark(t, r, CHECK_PAIRING, "no GPU NIC in its switch");
	else if (g->nic < 0)
		tree_mark(t, r, CHECK_PAIRING, "in no PCIe switch");
}

static const struct obs_aperture_entry *tree_entry(const struct obs_aperture *a, const char *name)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].name, name) == 0)
			return &a->v[i];
	return NULL;
}

static bool tree_live(const struct observation *o, const char *name)
{
	const struct obs_pci_func *f = observation_pci_find(o, name);

	return f && f->kind == PCI_KIND_LLCM;
}

/* The probe's "resource0 0644": its file name cleaned, the space before the mode kept. */
static const char *tree_narrow(const struct obs_aperture_entry *e, char *buf, size_t len)
{
	const char *sp = strrchr(e->narrow, ' ');

	tree_clean(e->narrow, buf, len);
	if (sp && (size_t)(sp - e->narrow) < strlen(buf))
		buf[sp - e->narrow] = ' ';
	return buf;
}

/*
 * What is wrong with aperture entry @e by itself, in check_host.c's order; false when nothing.
 * Liveness is known: the tree is only drawn when the PCI bus was read.
 */
static bool tree_entry_problem(const struct observation *o, const struct obs_aperture_entry *e, char *buf,
			       size_t len)
{
	char narrow[sizeof(e->narrow)];

	if (e->type != OBS_FILE_DIR)
		snprintf(buf, len, "is %s, not a directory", obs_file_type_name(e->type));
	else if (!tree_live(o, e->name))
		snprintf(buf, len, "stale: no live LLCM function behind it");
	else if (!e->ids_known)
		snprintf(buf, len, "vendor/device unreadable");
	else if (e->vendor != 0x1ae0 || e->device != 0x0084)
		snprintf(buf, len, "shows %04x:%04x, not LLCM", e->vendor, e->device);
	else if (!e->n_resources)
		snprintf(buf, len, "no resource files");
	else if (e->n_narrow)
		snprintf(buf, len, "not a+rw: %s", tree_narrow(e, narrow, sizeof(narrow)));
	else if (e->bar4 == OBS_BAR4_MISSING)
		snprintf(buf, len, "no resource4 (BAR4)");
	else if (e->bar4 == OBS_BAR4_NOT_FILE)
		snprintf(buf, len, "resource4 is not a file");
	else if (e->bar4 == OBS_BAR4_EMPTY || e->bar4 == OBS_BAR4_SHORT)
		snprintf(buf, len, "resource4 holds fewer than 4 bytes");
	else if (e->bar4 == OBS_BAR4_UNREADABLE)
		snprintf(buf, len, "resource4 unreadable");
	else
		return false;
	return true;
}

/* Live, readable entries whose BAR4 holds @ip: how many serve that address. */
static size_t tree_claims(const struct observation *o, uint32_t ip)
{
	const struct obs_aperture *a = &o->host.aperture;
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += a->v[i].type == OBS_FILE_DIR && a->v[i].bar4 == OBS_BAR4_OK && a->v[i].bar4_ipv4 == ip &&
		     tree_live(o, a->v[i].name);
	return n;
}

/* What is wrong with a TCPXO NIC row's aperture entry, or with its lack of one. */
static void tree_nic_aperture(const struct tree *t, const struct profile_nic *n, struct tree_row *r)
{
	const struct obs_aperture *a = &t->o->host.aperture;
	char why[TREE_MARK_MAX];
	uint32_t ip;

	if (n->aperture[0]) {
		const struct obs_aperture_entry *e = tree_entry(a, n->aperture);

		if (e && tree_entry_problem(t->o, e, why, sizeof(why)))
			tree_mark(t, r, CHECK_APERTURE_DEVICES, "%s", why);
	} else if (a->status.state != PROBE_OK) {
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "/dev/aperture_devices not read");
	} else if (!a->present) {
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "/dev/aperture_devices missing");
	} else if (bar4_parse_ipv4_text(n->ipv4, &ip) < 0) {
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "IPv4 unknown: no entry matched");
	} else if (tree_claims(t->o, ip) > 1) {
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "claimed by %zu entries", tree_claims(t->o, ip));
	} else {
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "no entry serves its address");
	}
}

/* What is wrong with the Network object @name, in check_kube.c's order; false when nothing or not read. */
static bool tree_network_problem(const struct obs_kube *k, const char *name, char *buf, size_t len)
{
	const struct kube_network *net = obs_kube_network(k, name);

	if (k->networks_fetch.state != KUBE_FETCH_OK)
		return false;
	if (!net)
		snprintf(buf, len, "no such Network");
	else if (!net->type[0])
		snprintf(buf, len, "Network has no spec.type, not Device");
	else if (strcmp(net->type, "Device") != 0)
		snprintf(buf, len, "Network is not of type Device");
	else if (!net->ready)
		snprintf(buf, len, "Network not Ready");
	else if (!net->params_ready)
		snprintf(buf, len, "Network not ParamsReady");
	else if (!net->has_params_ref)
		snprintf(buf, len, "Network has no parametersRef");
	else
		return false;
	return true;
}

static void tree_nic_row(const struct tree *t, const struct profile_nic *n, struct tree_row *r)
{
	const struct obs_link *l = n->name[0] ? observation_link_find(t->o, n->name) : NULL;
	const struct obs_link_flap *flap = n->name[0] ? observation_flap_find(t->o, n->name) : NULL;
	unsigned per = t->p->kind == PROFILE_TCPX ? 2 : 1;
	char name[OBS_IFNAME_MAX], net[PROFILE_NET_MAX], why[TREE_MARK_MAX];
	const char *state = nic_state_name(n->state);

	tree_clean(n->name, name, sizeof(name));
	tree_add(r, 0, "NIC");
	tree_add(r, 0, "%s", n->bdf);
	tree_add(r, t->w_name, "%s", name[0] ? name : "-");
	tree_add(r, t->w_state, "%s", state ? state : "-");
	tree_add(r, t->w_ipv4, "%s", n->ipv4[0] ? n->ipv4 : "-");
	if (t->p->kind == PROFILE_TCPXO)
		tree_add(r, 0, "aperture %s", n->aperture[0] ? n->aperture : "-");
	if (n->network[0]) {
		tree_clean(n->network, net, sizeof(net));
		tree_add(r, 0, "network %s", net);
	}
	tree_numa(t, r, n->numa);
	/* Marks in the checks' order: gpu-nics, pairing, links, networks, aperture-devices. */
	if (n->state == NIC_STATE_MISSING)
		tree_mark(t, r, CHECK_GPU_NICS, "not bound to a driver");
	if (n->sw < 0)
		tree_mark(t, r, CHECK_PAIRING, "outside every GPU PCIe switch");
	else if (n->n_gpus != per)
		tree_mark(t, r, CHECK_PAIRING, "serves %zu GPU%s, expected %u", n->n_gpus, n->n_gpus == 1 ? "" : "s",
			  per);
	if (flap && n->state != NIC_STATE_IN_POD)
		tree_mark(t, r, CHECK_LINKS, "flapping: %u up/down change%s", flap->changes,
			  flap->changes == 1 ? "" : "s");
	else if (n->state == NIC_STATE_DOWN)
		tree_mark(t, r, CHECK_LINKS, "%s%s", l && !l->admin_up ? "admin down" : "oper ",
			  l && !l->admin_up ? "" : link_oper_name(l ? l->oper : LINK_OPER_UNKNOWN));
	if ((flap && n->state != NIC_STATE_IN_POD) || n->state == NIC_STATE_DOWN || n->state == NIC_STATE_UP) {
		if (n->mtu != PROFILE_GPU_NIC_MTU)
			tree_mark(t, r, CHECK_LINKS, "MTU %u, expected %d", n->mtu, PROFILE_GPU_NIC_MTU);
		if (!n->ipv4[0])
			tree_mark(t, r, CHECK_LINKS, "no IPv4 address");
	}
	if (n->network[0] && tree_network_problem(&t->o->kube, n->network, why, sizeof(why)))
		tree_mark(t, r, CHECK_NETWORKS, "%s", why);
	else if (!n->network[0] && t->o->kube.has_nic_info && t->o->kube.has_north)
		tree_mark(t, r, CHECK_NETWORKS, "no Network in nic-info");
	if (t->p->kind == PROFILE_TCPXO)
		tree_nic_aperture(t, n, r);
}

/* The members of switch @s (GPUs and GPU NICs merged in BDF order), under @bar. */
static void tree_switch_members(struct tree *t, const struct pairing_switch *s, const char *bar)
{
	size_t gi = 0, ni = 0;

	t->k = 0;
	t->n = s->n_gpus + s->n_nics;
	while (gi < s->n_gpus || ni < s->n_nics) {
		const char *gb = gi < s->n_gpus ? t->o->pci.v[s->gpus[gi]].bdf : NULL;
		const char *nb = ni < s->n_nics ? t->o->pci.v[s->nics[ni]].bdf : NULL;
		struct tree_row r = { 0 };

		if (gb && (!nb || strcmp(gb, nb) < 0)) {
			const struct profile_gpu *g = tree_gpu_by_bdf(t->p, gb);

			gi++;
			if (g)
				tree_gpu_row(t, g, &r);
			else
				tree_add(&r, 0, "GPU  %s", gb);
		} else {
			const struct profile_nic *n = profile_nic_by_bdf(t->p, nb);

			ni++;
			if (n)
				tree_nic_row(t, n, &r);
			else
				tree_add(&r, 0, "NIC  %s", nb);     /* not a GPU NIC row: cannot happen today */
		}
		tree_item(t, bar, &r);
	}
}

/* A switch's NUMA node: its upstream port's, else its first member's that is known. */
static int tree_switch_numa(const struct observation *o, const struct pairing_switch *s)
{
	const struct obs_pci_func *f = observation_pci_find(o, s->bdf);

	if (f && f->numa >= 0)
		return f->numa;
	for (size_t i = 0; i < s->n_gpus; i++)
		if (o->pci.v[s->gpus[i]].numa >= 0)
			return o->pci.v[s->gpus[i]].numa;
	for (size_t i = 0; i < s->n_nics; i++)
		if (o->pci.v[s->nics[i]].numa >= 0)
			return o->pci.v[s->nics[i]].numa;
	return -1;
}

struct tree_sw {
	int numa;
	size_t i;               /* index into pairing.sw, which is in BDF order */
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
		const struct pairing_switch *s = &t->pr->sw[v[i].i];
		const struct obs_pci_func *f = observation_pci_find(t->o, s->bdf);
		bool last = i + 1 == n || v[i + 1].numa != v[i].numa;
		struct tree_row r = { 0 };

		if (i == 0 || v[i - 1].numa != v[i].numa) {
			if (v[i].numa >= 0)
				strbuf_appendf(t->sb, "%snuma %d\n", TREE_INDENT, v[i].numa);
			else
				strbuf_appendf(t->sb, "%snuma unknown\n", TREE_INDENT);
		}
		t->numa = v[i].numa;
		tree_add(&r, 0, "switch %s", s->bdf);
		if (f && f->has_bus_range)
			tree_add(&r, 0, "buses %02x-%02x", f->secondary, f->subordinate);
		tree_emit(t->sb, last ? TREE_INDENT "└─ " : TREE_INDENT "├─ ",
			  last ? TREE_INDENT "   " TREE_WRAP_INDENT : TREE_INDENT "│  " TREE_WRAP_INDENT, &r);
		tree_switch_members(t, s, last ? "   " : "│  ");
	}
}

/* The aperture entry row of @e, which no NIC row names: what it holds and why it serves none. */
static void tree_entry_row(const struct tree *t, const struct obs_aperture_entry *e, struct tree_row *r)
{
	char name[OBS_HOST_NAME_MAX], why[TREE_MARK_MAX], ipt[OBS_IPV4_TEXT];
	bool all_known = true;
	const char *served = NULL;

	tree_clean(e->name, name, sizeof(name));
	tree_add(r, 0, "aperture");
	tree_add(r, 0, "%s", name);
	if (e->type == OBS_FILE_DIR && e->bar4 == OBS_BAR4_OK) {
		obs_ipv4_format(e->bar4_ipv4, -1, ipt, sizeof(ipt));
		tree_add(r, 0, "BAR4 %s", ipt);
	}
	if (tree_entry_problem(t->o, e, why, sizeof(why))) {
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "%s", why);
		return;
	}
	for (size_t j = 0; j < t->p->n_nics; j++) {
		const struct profile_nic *n = &t->p->nics[j];
		uint32_t ip;

		if (bar4_parse_ipv4_text(n->ipv4, &ip) < 0)
			all_known = false;
		else if (ip == e->bar4_ipv4 && !served)
			served = n->name[0] ? n->name : n->bdf;
	}
	if (served) {
		tree_clean(served, name, sizeof(name));
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "serves %s, as another entry does", name);
	} else {
		tree_mark(t, r, CHECK_APERTURE_DEVICES, "serves no GPU NIC%s", all_known ? "" : " with a known address");
	}
}

static bool tree_entry_claimed(const struct profile *p, const char *name)
{
	for (size_t j = 0; j < p->n_nics; j++)
		if (p->nics[j].aperture[0] && strcmp(p->nics[j].aperture, name) == 0)
			return true;
	return false;
}

/* Rows outside the GPU switches, in order: GPUs, GPU NICs, unclaimed aperture entries, LLCM functions without one. */
static void tree_outside(struct tree *t)
{
	const struct obs_aperture *a = &t->o->host.aperture;
	bool apt = t->p->kind == PROFILE_TCPXO && a->status.state == PROBE_OK && a->present;

	t->k = 0;
	for (size_t i = 0; i < t->p->n_gpus; i++) {
		struct tree_row r = { 0 };

		if (tree_sw_of(t, t->p->gpus[i].bdf) >= 0)
			continue;
		tree_gpu_row(t, &t->p->gpus[i], &r);
		tree_item(t, "", &r);
	}
	for (size_t i = 0; i < t->p->n_nics; i++) {
		struct tree_row r = { 0 };

		if (t->p->nics[i].sw >= 0)
			continue;
		tree_nic_row(t, &t->p->nics[i], &r);
		tree_item(t, "", &r);
	}
	for (size_t i = 0; apt && i < a->n; i++) {
		struct tree_row r = { 0 };

		if (tree_entry_claimed(t->p, a->v[i].name))
			continue;
		tree_entry_row(t, &a->v[i], &r);
		tree_item(t, "", &r);
	}
	for (size_t i = 0; apt && i < t->o->pci.n; i++) {
		const struct obs_pci_func *f = &t->o->pci.v[i];
		struct tree_row r = { 0 };

		if (f->kind != PCI_KIND_LLCM || tree_entry(a, f->bdf))
			continue;
		tree_add(&r, 0, "LLCM");
		tree_add(&r, 0, "%s", f->bdf);
		tree_mark(t, &r, CHECK_APERTURE_DEVICES, "no entry in /dev/aperture_devices");
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
	struct pairing pr = { 0 };
	struct tree t = { .o = o, .p = p, .sb = sb, .w_name = 1, .w_state = 1, .w_ipv4 = 1 };
	struct tree_sw *v = NULL;
	size_t outside;
	int r;

	if (o->pci.status.state != PROBE_OK || (!p->n_gpus && !p->n_nics))
		return 0;
	r = pairing_compute(&o->pci, &pr);
	if (r < 0)
		return r;
	t.pr = &pr;
	v = calloc(pr.n_sw ? pr.n_sw : 1, sizeof(*v));
	if (!v) {
		pairing_free(&pr);
		return -ENOMEM;
	}
	for (size_t i = 0; i < pr.n_sw; i++)
		v[i] = (struct tree_sw){ .numa = tree_switch_numa(o, &pr.sw[i]), .i = i };
	qsort(v, pr.n_sw, sizeof(*v), tree_sw_cmp);
	for (size_t i = 0; i < p->n_nics; i++) {
		const char *state = nic_state_name(p->nics[i].state);

		t.w_name = tree_width(p->nics[i].name, t.w_name);
		t.w_state = tree_width(state ? state : "-", t.w_state);
		t.w_ipv4 = tree_width(p->nics[i].ipv4, t.w_ipv4);
	}

	/* Count the rows outside first: the group is printed only when it has some, its last with └─. */
	t.dry = true;
	t.numa = -2;
	tree_outside(&t);
	outside = t.k;
	t.dry = false;

	strbuf_appendf(sb, "%sPCIe tree: %zu GPU switch%s by NUMA node, %zu GPU%s, %zu GPU NIC%s\n", TREE_INDENT,
		       pr.n_sw, pr.n_sw == 1 ? "" : "es", p->n_gpus, p->n_gpus == 1 ? "" : "s", p->n_nics,
		       p->n_nics == 1 ? "" : "s");
	tree_switches(&t, v, pr.n_sw);
	if (outside) {
		strbuf_appendf(sb, "%soutside the GPU switches\n", TREE_INDENT);
		t.numa = -2;
		t.n = outside;
		tree_outside(&t);
	}
	free(v);
	pairing_free(&pr);
	return sb->oom ? -ENOMEM : 0;
}
