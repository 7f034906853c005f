/* check_host.c - host wiring checks: aperture devices, device nodes, NVIDIA host path. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/bar4.h"
#include "probes/host/hostfiles.h"
#include "probes/model/strbuf.h"
#include "report/checks/checks.h"

#define CHECK_HOST_LIST_MAX 8           /* findings named in one message; the rest are counted */
#define CHECK_HOST_NVIDIA "/home/kubernetes/bin/nvidia"

#define CHECK_HOST_REMEDY_INSTALLER \
	"re-run the nccl-tcpxo-installer on this node (delete its pod in kube-system, label " \
	"k8s-app=nccl-tcpxo-installer): it bind-mounts each LLCM function's sysfs directory into " \
	"/dev/aperture_devices with resource* files a+rw; mounts taken before a PCI reset go stale"
#define CHECK_HOST_REMEDY_DRIVER \
	"GKE's NVIDIA driver installer writes " CHECK_HOST_NVIDIA ": check its pod on this node " \
	"(kube-system, nvidia-driver-installer) and the node pool's gpu-driver-version"

/* A "; "-separated (or sep-separated) list of findings that names the first few and counts the rest. */
struct check_host_list {
	struct strbuf sb;
	unsigned n;
	const char *sep;                /* NULL: "; " */
};

static int check_host_add(struct check_host_list *l, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int check_host_add(struct check_host_list *l, const char *fmt, ...)
{
	va_list ap;
	int r = 0;

	if (l->n++ >= CHECK_HOST_LIST_MAX)
		return 0;
	if (l->n > 1)
		r = strbuf_append(&l->sb, l->sep ? l->sep : "; ");
	if (r == 0) {
		va_start(ap, fmt);
		r = strbuf_vappendf(&l->sb, fmt, ap);
		va_end(ap);
	}
	return r;
}

/* Close the list ("and N more") and hand back its text; NULL on -ENOMEM. */
static char *check_host_take(struct check_host_list *l)
{
	if (l->n > CHECK_HOST_LIST_MAX)
		strbuf_appendf(&l->sb, "%sand %u more", l->sep ? l->sep : "; ", l->n - CHECK_HOST_LIST_MAX);
	if (l->sb.oom) {
		strbuf_free(&l->sb);
		return NULL;
	}
	return strbuf_take(&l->sb);
}

static int check_host_finish(struct finding *c, struct check_host_list *l, enum check_status st,
			     const char *remedy, const char *prefix)
{
	char *text = check_host_take(l);
	int r;

	if (!text)
		return -ENOMEM;
	r = finding_set(c, st, remedy, "%s%s", prefix, text);
	free(text);
	return r;
}

/* A probe part that did not run or failed decides the check alone. Return 1 when it did. */
static int check_host_status(struct finding *c, const struct probe_status *s, const char *what,
			     enum check_status on_fail, const char *remedy)
{
	switch (s->state) {
	case PROBE_NOT_RUN:
		return finding_set(c, CHECK_SKIP, NULL, "%s not observed", what) ?: 1;
	case PROBE_FAILED:
		/* The probes' messages start with the path they could not read: not said twice. */
		return finding_set(c, on_fail, remedy, "cannot read %s", *s->message ? s->message : what) ?: 1;
	case PROBE_OK:
		break;
	}
	return 0;
}

/* ---- aperture-devices ---- */

/* What is wrong with one aperture entry by itself: one bit each, in the order the check names them. */
enum check_host_apt_problem {
	CHECK_APT_NOT_DIR = 1u << 0,            /* not a directory: nothing else is looked at */
	CHECK_APT_STALE = 1u << 1,              /* no live LLCM function behind it */
	CHECK_APT_IDS_UNKNOWN = 1u << 2,        /* vendor/device unreadable */
	CHECK_APT_NOT_LLCM = 1u << 3,           /* its ids are not 1ae0:0084 */
	CHECK_APT_NO_RESOURCES = 1u << 4,
	CHECK_APT_NARROW = 1u << 5,             /* a resource file not readable and writable by all */
	CHECK_APT_BAR4_MISSING = 1u << 6,
	CHECK_APT_BAR4_NOT_FILE = 1u << 7,
	CHECK_APT_BAR4_EMPTY = 1u << 8,
	CHECK_APT_BAR4_SHORT = 1u << 9,
	CHECK_APT_BAR4_UNREADABLE = 1u << 10,
};

/* Whether aperture entry @name has a live LLCM function behind it (meaningful when the PCI bus was read). */
static bool check_aperture_live(const struct observation *o, const char *name)
{
	const struct obs_pci_func *f = observation_pci_find(o, name);

	return f && f->kind == PCI_KIND_LLCM;
}

static const char *check_host_nic_label(const struct profile_nic *n)
{
	return n->name[0] ? n->name : n->bdf;
}

/* Entry @e's problems by itself; @pci_ok: the PCI bus was read (else liveness is unknown, never a problem). */
static unsigned check_aperture_entry_problems(const struct obs_aperture_entry *e, bool live, bool pci_ok)
{
	unsigned bits = 0;

	if (e->type != OBS_FILE_DIR)
		return CHECK_APT_NOT_DIR;
	if (pci_ok && !live)
		bits |= CHECK_APT_STALE;
	if (!e->ids_known)
		bits |= CHECK_APT_IDS_UNKNOWN;
	else if (e->vendor != 0x1ae0 || e->device != 0x0084)
		bits |= CHECK_APT_NOT_LLCM;
	if (e->n_resources == 0)
		bits |= CHECK_APT_NO_RESOURCES;
	else if (e->n_narrow > 0)
		bits |= CHECK_APT_NARROW;
	switch (e->bar4) {
	case OBS_BAR4_OK:
	case OBS_BAR4_NOT_READ:
		break;
	case OBS_BAR4_MISSING:
		bits |= CHECK_APT_BAR4_MISSING;
		break;
	case OBS_BAR4_NOT_FILE:
		bits |= CHECK_APT_BAR4_NOT_FILE;
		break;
	case OBS_BAR4_EMPTY:
		bits |= CHECK_APT_BAR4_EMPTY;
		break;
	case OBS_BAR4_SHORT:
		bits |= CHECK_APT_BAR4_SHORT;
		break;
	case OBS_BAR4_UNREADABLE:
		bits |= CHECK_APT_BAR4_UNREADABLE;
		break;
	}
	return bits;
}

/* The problems worded alike everywhere, by bit number: after the entry's name in the finding, on its row. */
static const struct {
	const char *finding, *mark;
} check_apt_words[] = {
	[1] = { " has no live LLCM function behind it (stale bind mount after a PCI reset?)",
		"stale: no live LLCM function behind it" },
	[2] = { ": vendor/device unreadable", "vendor/device unreadable" },
	[4] = { " has no resource files", "no resource files" },
	[6] = { " has no resource4 (BAR4)", "no resource4 (BAR4)" },
	[7] = { ": resource4 is not a regular file", "resource4 is not a regular file" },
	[8] = { ": resource4 is empty", "resource4 is empty" },
	[9] = { ": resource4 holds fewer than 4 bytes", "resource4 holds fewer than 4 bytes" },
	[10] = { ": cannot read resource4", "cannot read resource4" },
};

/* The bit number of problem @bit (one bit). */
static unsigned check_apt_index(unsigned bit)
{
	unsigned k = 0;

	while (k < 10 && !(bit >> k & 1))
		k++;
	return k;
}

/* One finding of entry @e (quoted @q) for problem @bit. Return: 0, -ENOMEM. */
static int check_host_entry_finding(const struct obs_aperture_entry *e, const char *q, unsigned bit,
				    struct check_host_list *l)
{
	switch (bit) {
	case CHECK_APT_NOT_DIR:
		if (e->err)
			return check_host_add(l, "/dev/aperture_devices/%s is %s (%s)", q,
					      obs_file_type_name(e->type), strerror(-e->err));
		return check_host_add(l, "/dev/aperture_devices/%s is %s, not a directory", q,
				      obs_file_type_name(e->type));
	case CHECK_APT_NOT_LLCM:
		return check_host_add(l, "%s shows %04x:%04x, not an LLCM function (1ae0:0084)", q,
				      e->vendor, e->device);
	case CHECK_APT_NARROW:
		return check_host_add(l, "%s: %u resource file%s not readable and writable by all (%s)",
				      q, e->n_narrow, e->n_narrow == 1 ? "" : "s", e->narrow);
	case CHECK_APT_BAR4_UNREADABLE:
		return check_host_add(l, "%s: cannot read resource4: %s", q, strerror(-e->bar4_err));
	}
	return check_host_add(l, "%s%s", q, check_apt_words[check_apt_index(bit)].finding);
}

/* Entry @i's first problem @bit in short, on its row (the NIC's row, when the NIC claims it). */
static int check_host_entry_short(struct profile *p, const struct obs_aperture_entry *e, size_t i, unsigned bit)
{
	const char *sp = strrchr(e->narrow, ' ');
	char file[sizeof(e->narrow)];

	switch (bit) {
	case CHECK_APT_NOT_DIR:
		return profile_mark(p, CHECK_APERTURE_DEVICES, MARK_ENTRY, i, NULL, NULL, "is %s, not a directory",
				    obs_file_type_name(e->type));
	case CHECK_APT_NOT_LLCM:
		return profile_mark(p, CHECK_APERTURE_DEVICES, MARK_ENTRY, i, NULL, NULL, "shows %04x:%04x, not LLCM",
				    e->vendor, e->device);
	case CHECK_APT_NARROW:  /* "resource4 0644": the file's name is host text, the mode ours */
		snprintf(file, sizeof(file), "%.*s", sp ? (int)(sp - e->narrow) : (int)sizeof(file), e->narrow);
		return profile_mark(p, CHECK_APERTURE_DEVICES, MARK_ENTRY, i, file, sp, "not a+rw: ");
	}
	return profile_mark(p, CHECK_APERTURE_DEVICES, MARK_ENTRY, i, NULL, NULL, "%s",
			    check_apt_words[check_apt_index(bit)].mark);
}

static int check_host_entry_findings(struct profile *p, const struct obs_aperture *a, size_t i, bool live,
				     bool pci_ok, struct check_host_list *l)
{
	const struct obs_aperture_entry *e = &a->v[i];
	unsigned bits = check_aperture_entry_problems(e, live, pci_ok);
	char q[OBS_HOST_NAME_MAX * 4 + 8];
	int r = bits ? check_host_entry_short(p, e, i, bits & -bits) : 0;

	obs_host_quote(e->name, q, sizeof(q));
	for (unsigned bit = 1; r == 0 && bits; bit <<= 1)
		if (bits & bit) {
			bits &= ~bit;
			r = check_host_entry_finding(e, q, bit, l);
		}
	return r;
}

/* One aperture-devices evaluation: its inputs, the BAR4 claims, the findings. */
struct check_host_aperture {
	const struct observation *o;
	const struct obs_aperture *a;
	struct profile *p;
	bool pci_ok;                    /* the PCI probe ran: liveness of entries is known */
	size_t n_live, n_claimed;
	const struct obs_aperture_entry **claim;        /* per GPU NIC: the entry whose BAR4 is its address */
	size_t *claims;                 /* per GPU NIC: how many entries claim it */
	struct check_host_list bad, unknown;            /* findings; NICs whose IPv4 is unknown */
};

/* The entries against the LLCM functions on the bus, and each entry's own findings. Return: 0, -ENOMEM. */
static int check_host_aperture_entries(struct check_host_aperture *ap)
{
	const struct observation *o = ap->o;
	const struct obs_aperture *a = ap->a;
	size_t n_entries = a->n + a->n_dropped;
	int r = 0;

	if (ap->pci_ok && ap->n_live != n_entries)
		r = check_host_add(&ap->bad, "%zu entr%s for %zu LLCM function%s", n_entries,
				   n_entries == 1 ? "y" : "ies", ap->n_live, ap->n_live == 1 ? "" : "s");
	for (size_t i = 0; r == 0 && i < o->pci.n; i++)
		if (o->pci.v[i].kind == PCI_KIND_LLCM && !obs_aperture_find(a, o->pci.v[i].bdf)) {
			r = check_host_add(&ap->bad, "LLCM function %s has no entry", o->pci.v[i].bdf);
			if (r == 0)
				r = profile_mark(ap->p, CHECK_APERTURE_DEVICES, MARK_LLCM, i, NULL, NULL,
						 "no entry in /dev/aperture_devices");
		}
	if (r == 0 && a->n_dropped)
		r = check_host_add(&ap->bad, "%zu more entries not examined", a->n_dropped);
	for (size_t i = 0; r == 0 && i < a->n; i++)
		r = check_host_entry_findings(ap->p, a, i, check_aperture_live(o, a->v[i].name), ap->pci_ok, &ap->bad);
	return r;
}

/* Live entry @e's BAR4 against every GPU NIC's address: claim the NIC, or say it is claimed twice. */
static int check_host_aperture_claim(struct check_host_aperture *ap, const struct obs_aperture_entry *e,
				     bool *ret_matched)
{
	struct profile *p = ap->p;
	int r = 0;

	for (size_t j = 0; r == 0 && j < p->n_nics; j++) {
		char q[OBS_HOST_NAME_MAX * 4 + 8], q1[OBS_HOST_NAME_MAX * 4 + 8];
		uint32_t ip;

		if (bar4_parse_ipv4_text(p->nics[j].ipv4, &ip) < 0 || ip != e->bar4_ipv4)
			continue;
		*ret_matched = true;
		if (ap->claims[j]++ == 0) {
			ap->claim[j] = e;
			continue;
		}
		obs_host_quote(ap->claim[j]->name, q1, sizeof(q1));
		obs_host_quote(e->name, q, sizeof(q));
		if (ap->claims[j] == 2)
			r = check_host_add(&ap->bad, "%s (%s) is claimed by more than one entry: %s and %s",
					   check_host_nic_label(&p->nics[j]), p->nics[j].ipv4, q1, q);
	}
	return r;
}

/* BAR4 -> NIC: each live entry's address must be one GPU NIC's, each NIC claimed once. Return: 0, -ENOMEM. */
static int check_host_aperture_bar4(struct check_host_aperture *ap)
{
	const struct obs_aperture *a = ap->a;
	struct profile *p = ap->p;
	bool all_known = true;
	int r = 0;

	for (size_t j = 0; r == 0 && j < p->n_nics; j++) {
		uint32_t ip;

		if (bar4_parse_ipv4_text(p->nics[j].ipv4, &ip) < 0) {
			all_known = false;
			r = check_host_add(&ap->unknown, "%s", check_host_nic_label(&p->nics[j]));
		}
	}
	for (size_t i = 0; r == 0 && i < a->n; i++) {
		const struct obs_aperture_entry *e = &a->v[i];
		char ipt[OBS_IPV4_TEXT], q[OBS_HOST_NAME_MAX * 4 + 8];
		bool matched = false;

		/* Entries whose BAR4 claims a GPU NIC's address: directories whose resource4 was read, live if known. */
		if (e->type != OBS_FILE_DIR || e->bar4 != OBS_BAR4_OK || (ap->pci_ok && !check_aperture_live(ap->o, e->name)))
			continue;
		r = check_host_aperture_claim(ap, e, &matched);
		if (r == 0 && !matched && all_known) {
			obs_ipv4_format(e->bar4_ipv4, -1, ipt, sizeof(ipt));
			obs_host_quote(e->name, q, sizeof(q));
			r = check_host_add(&ap->bad, "%s: BAR4 holds %s, the address of no GPU NIC", q, ipt);
		}
	}
	/* Each NIC claimed once gets its entry's name in the profile; an address no entry holds is a finding. */
	for (size_t j = 0; r == 0 && j < p->n_nics; j++) {
		uint32_t ip;

		if (ap->claims[j] == 1 && strlen(ap->claim[j]->name) < sizeof(p->nics[j].aperture)) {
			snprintf(p->nics[j].aperture, sizeof(p->nics[j].aperture), "%s", ap->claim[j]->name);
			ap->n_claimed++;
		} else if (!ap->claim[j] && bar4_parse_ipv4_text(p->nics[j].ipv4, &ip) == 0) {
			r = check_host_add(&ap->bad, "%s (%s) has no aperture entry",
					   check_host_nic_label(&p->nics[j]), p->nics[j].ipv4);
		}
	}
	return r;
}

/*
 * Each GPU NIC that no entry serves alone, on its row: why (@claims: per NIC, how many entries
 * claim it; NULL when the folder was not read or is missing).
 */
static int check_host_nic_short(const struct observation *o, struct profile *p, const size_t *claims)
{
	const struct obs_aperture *a = &o->host.aperture;
	int r = 0;

	for (size_t j = 0; r == 0 && j < p->n_nics; j++) {
		uint32_t ip;

		if (p->nics[j].aperture[0])
			continue;
		if (a->status.state != PROBE_OK)
			r = profile_mark(p, CHECK_APERTURE_DEVICES, MARK_NIC, j, NULL, NULL, "/dev/aperture_devices not read");
		else if (!a->present)
			r = profile_mark(p, CHECK_APERTURE_DEVICES, MARK_NIC, j, NULL, NULL, "/dev/aperture_devices missing");
		else if (bar4_parse_ipv4_text(p->nics[j].ipv4, &ip) < 0)
			r = profile_mark(p, CHECK_APERTURE_DEVICES, MARK_NIC, j, NULL, NULL, "IPv4 unknown: no entry matched");
		else if (claims[j] > 1)
			r = profile_mark(p, CHECK_APERTURE_DEVICES, MARK_NIC, j, NULL, NULL, "claimed by %zu entries",
					 claims[j]);
		else
			r = profile_mark(p, CHECK_APERTURE_DEVICES, MARK_NIC, j, NULL, NULL, "no entry serves its address");
	}
	return r;
}

/* Each entry without a problem of its own that serves no GPU NIC alone, on its row: whom it serves. */
static int check_host_entry_serves(struct check_host_aperture *ap)
{
	const struct obs_aperture *a = ap->a;
	struct profile *p = ap->p;
	int r = 0;

	for (size_t i = 0; r == 0 && i < a->n; i++) {
		const struct obs_aperture_entry *e = &a->v[i];
		const char *served = NULL;
		bool all_known = true, alone = false;

		for (size_t j = 0; j < p->n_nics; j++) {
			const struct profile_nic *n = &p->nics[j];
			uint32_t ip;

			alone |= strcmp(n->aperture, e->name) == 0;
			if (bar4_parse_ipv4_text(n->ipv4, &ip) < 0)
				all_known = false;
			else if (ip == e->bar4_ipv4 && !served)
				served = check_host_nic_label(n);
		}
		if (alone || check_aperture_entry_problems(e, check_aperture_live(ap->o, e->name), ap->pci_ok))
			continue;
		if (served)
			r = profile_mark(p, CHECK_APERTURE_DEVICES, MARK_ENTRY, i, served, ", as another entry does",
					 "serves ");
		else
			r = profile_mark(p, CHECK_APERTURE_DEVICES, MARK_ENTRY, i, NULL, NULL, "serves no GPU NIC%s",
					 all_known ? "" : " with a known address");
	}
	return r;
}

/* The findings, else the NICs whose BAR4 could not be matched, else a pass. */
static int check_host_aperture_verdict(struct check_host_aperture *ap, struct finding *c)
{
	char *unk = NULL;
	int r;

	if (ap->unknown.n && !(unk = check_host_take(&ap->unknown)))
		return -ENOMEM;
	if (ap->bad.n) {
		r = unk ? check_host_add(&ap->bad, "BAR4 cannot be matched to %u NIC%s whose IPv4 is unknown: %s",
					 ap->unknown.n, ap->unknown.n == 1 ? "" : "s", unk) : 0;
		if (r == 0)
			r = check_host_finish(c, &ap->bad, CHECK_FAIL, CHECK_HOST_REMEDY_INSTALLER, "");
	} else if (unk) {
		r = finding_set(c, CHECK_WARN, "run the agent with API access (GKE's nic-info annotation "
			      "names the NICs' addresses) or look again when the NICs are back in the host "
			      "network namespace",
			      "%zu entries match the LLCM functions, but BAR4 cannot be matched to %u NIC%s whose "
			      "IPv4 is unknown (in a pod, no API facts): %s", ap->a->n, ap->unknown.n,
			      ap->unknown.n == 1 ? "" : "s", unk);
	} else {
		r = finding_set(c, CHECK_PASS, NULL, "%zu entries match the %zu LLCM functions; each of "
			      "the %zu GPU NICs has one (BAR4 = NIC address)", ap->a->n, ap->n_live, ap->n_claimed);
	}
	free(unk);
	return r;
}

int check_aperture_devices(const struct observation *o, struct profile *p, struct finding *c)
{
	struct check_host_aperture ap = {
		.o = o, .a = &o->host.aperture, .p = p, .pci_ok = o->pci.status.state == PROBE_OK,
		.unknown = { .sep = ", " },
	};
	int r;

	for (size_t i = 0; i < o->pci.n; i++)
		ap.n_live += o->pci.v[i].kind == PCI_KIND_LLCM;
	r = check_host_status(c, &ap.a->status, "/dev/aperture_devices", CHECK_FAIL,
			      CHECK_HOST_REMEDY_INSTALLER);
	if (r == 0 && !ap.a->present)
		r = finding_set(c, CHECK_FAIL, CHECK_HOST_REMEDY_INSTALLER,
			      "/dev/aperture_devices is missing (%zu LLCM function%s on the bus)",
			      ap.n_live, ap.n_live == 1 ? "" : "s") ?: 1;
	if (r)
		return r < 0 ? r : check_host_nic_short(o, p, NULL);

	ap.claim = calloc(p->n_nics ? p->n_nics : 1, sizeof(*ap.claim));
	ap.claims = calloc(p->n_nics ? p->n_nics : 1, sizeof(*ap.claims));
	r = ap.claim && ap.claims ? check_host_aperture_entries(&ap) : -ENOMEM;
	if (r == 0)
		r = check_host_aperture_bar4(&ap);
	if (r == 0)
		r = check_host_nic_short(o, p, ap.claims);
	if (r == 0)
		r = check_host_entry_serves(&ap);
	if (r < 0 || ap.bad.sb.oom || ap.unknown.sb.oom)
		r = -ENOMEM;
	else
		r = check_host_aperture_verdict(&ap, c);
	strbuf_free(&ap.bad.sb);
	strbuf_free(&ap.unknown.sb);
	free(ap.claim);
	free(ap.claims);
	return r;
}

/* ---- device-nodes ---- */

int check_device_nodes(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_devnodes *d = &o->host.devnodes;
	struct check_host_list bad = {0};
	bool need_dmabuf = p->kind == PROFILE_TCPXO;
	bool nv = false, uvm = false, dmabuf = false, ib = false;
	size_t ib_absent = 0;
	struct strbuf remedy = {0};
	size_t n_ok = 0;
	int r;

	r = check_host_status(c, &d->status, "/dev", CHECK_FAIL, NULL);
	if (r)
		return r < 0 ? r : 0;
	for (size_t i = 0; r == 0 && i < d->n; i++) {
		const struct obs_devnode *n = &d->v[i];
		bool is_dmabuf = strcmp(n->name, "dmabuf_import_helper") == 0;

		if (is_dmabuf && !need_dmabuf)
			continue;
		if (n->type == OBS_FILE_CHAR) {
			n_ok++;
			continue;
		}
		if (is_dmabuf)
			dmabuf = true;
		else if (strncmp(n->name, "infiniband/", 11) == 0 && (ib = true) && n->type == OBS_FILE_ABSENT) {
			ib_absent++;    /* named below: all of them missing is one finding */
			continue;
		} else if (strcmp(n->name, "nvidia-uvm") == 0)
			uvm = true;
		else
			nv = true;
		if (n->type == OBS_FILE_ABSENT)
			r = check_host_add(&bad, "/dev/%s is missing", n->name);
		else if (n->type == OBS_FILE_ERROR)
			r = check_host_add(&bad, "cannot stat /dev/%s: %s", n->name, strerror(-n->err));
		else
			r = check_host_add(&bad, "/dev/%s is %s, not a character device", n->name,
					   obs_file_type_name(n->type));
	}
	if (r == 0 && ib_absent && ib_absent == d->n_uverbs + 1)
		r = check_host_add(&bad, "/dev/infiniband has none of uverbs0..%zu and rdma_cm", d->n_uverbs - 1);
	for (size_t i = 0; r == 0 && ib_absent && ib_absent < d->n_uverbs + 1 && i < d->n; i++)
		if (strncmp(d->v[i].name, "infiniband/", 11) == 0 && d->v[i].type == OBS_FILE_ABSENT)
			r = check_host_add(&bad, "/dev/%s is missing", d->v[i].name);
	if (r == 0 && d->n_gpus < p->n_gpus)
		r = check_host_add(&bad, "only /dev/nvidia0..%zu examined for %zu GPUs",
				   d->n_gpus ? d->n_gpus - 1 : 0, p->n_gpus);
	if (r < 0)
		goto out;
	if (r == 0 && p->kind == PROFILE_RDMA && d->n_uverbs < p->n_nics)
		r = check_host_add(&bad, "only /dev/infiniband/uverbs0..%zu examined for %zu RDMA NICs",
				   d->n_uverbs ? d->n_uverbs - 1 : 0, p->n_nics);
	if (r < 0)
		goto out;
	if (!bad.n && p->kind == PROFILE_RDMA) {
		r = finding_set(c, CHECK_PASS, NULL, "%zu character devices present: /dev/nvidia0..%zu, nvidiactl, "
				"nvidia-uvm, infiniband/uverbs0..%zu, infiniband/rdma_cm", n_ok,
				d->n_gpus ? d->n_gpus - 1 : 0, d->n_uverbs ? d->n_uverbs - 1 : 0);
		goto out;
	}
	if (!bad.n) {
		r = finding_set(c, CHECK_PASS, NULL, "%zu character devices present: /dev/nvidia0..%zu, "
			      "nvidiactl, nvidia-uvm%s", n_ok, d->n_gpus ? d->n_gpus - 1 : 0,
			      need_dmabuf ? ", dmabuf_import_helper" :
			      " (dmabuf_import_helper is not used on TCPX nodes)");
		goto out;
	}
	if (nv)
		strbuf_append(&remedy, "re-run GKE's NVIDIA driver installer on this node "
			      "(kube-system, nvidia-driver-installer), which creates /dev/nvidia*");
	if (uvm)
		strbuf_appendf(&remedy, "%sload the nvidia-uvm module (nvidia-modprobe -u -c=0 on the "
			       "host)", remedy.len ? "; " : "");
	if (dmabuf)
		strbuf_appendf(&remedy, "%sload the import-helper kernel module (re-running the "
			       "nccl-tcpxo-installer loads it)", remedy.len ? "; " : "");
	if (ib)
		strbuf_appendf(&remedy, "%sload the RDMA user access modules on the host (ib_uverbs for "
			       "/dev/infiniband/uverbsN, rdma_ucm for rdma_cm) and check `ls -l /dev/infiniband`, `rdma link`",
			       remedy.len ? "; " : "");
	if (remedy.oom || !remedy.s) {
		r = -ENOMEM;
		goto out;
	}
	r = check_host_finish(c, &bad, CHECK_FAIL, remedy.s,
			      p->kind == PROFILE_RDMA ? "an RDMA workload's device injection will fail: "
			      : "the daemon container's device injection will fail: ");
out:
	strbuf_free(&bad.sb);
	strbuf_free(&remedy);
	return r;
}

/* ---- nvidia-host-path ---- */

static int check_host_want(struct check_host_list *l, const struct obs_nvpath *n, const char *pattern,
			   struct strbuf *found)
{
	const char *name = NULL;
	enum obs_file_type t = hostfiles_find(n->lib64, n->n_lib64, pattern, &name);
	char q[OBS_HOST_NAME_MAX * 4 + 8];

	if (t == OBS_FILE_REGULAR) {
		obs_host_quote(name, q, sizeof(q));
		return strbuf_appendf(found, "%s%s", found->len ? ", " : "", q);
	}
	if (t == OBS_FILE_ABSENT)
		return check_host_add(l, "lib64/%s is missing", pattern);
	obs_host_quote(name, q, sizeof(q));
	return check_host_add(l, "lib64/%s is %s", q, obs_file_type_name(t));
}

int check_nvpath_read(const struct obs_nvpath *n, struct finding *c)
{
	int r = check_host_status(c, &n->status, CHECK_HOST_NVIDIA, CHECK_FAIL, CHECK_HOST_REMEDY_DRIVER);

	if (r == 0 && n->dir != OBS_FILE_DIR)
		r = finding_set(c, CHECK_FAIL, CHECK_HOST_REMEDY_DRIVER, "%s is %s", CHECK_HOST_NVIDIA,
				obs_file_type_name(n->dir)) ?: 1;
	return r;
}

int check_nvidia_host_path(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_nvpath *n = &o->host.nvpath;
	struct check_host_list bad = {0};
	struct strbuf found = {0};
	int r;

	r = check_nvpath_read(n, c);
	if (r)
		return r < 0 ? r : 0;
	if (n->smi != OBS_FILE_REGULAR)
		r = check_host_add(&bad, "bin/nvidia-smi is %s", obs_file_type_name(n->smi));
	if (r == 0 && n->lib64_dir != OBS_FILE_DIR)
		r = check_host_add(&bad, "lib64 is %s", obs_file_type_name(n->lib64_dir));
	for (size_t i = 0; r == 0 && n->lib64_dir == OBS_FILE_DIR && hostfiles_nvidia_lib64[i]; i++)
		r = check_host_want(&bad, n, hostfiles_nvidia_lib64[i], &found);
	if (r < 0 || found.oom) {
		r = -ENOMEM;
		goto out;
	}
	if (bad.n)
		r = check_host_finish(c, &bad, CHECK_FAIL, CHECK_HOST_REMEDY_DRIVER,
				      CHECK_HOST_NVIDIA ": ");
	else
		r = finding_set(c, CHECK_PASS, NULL, "%s holds bin/nvidia-smi, %s", CHECK_HOST_NVIDIA,
			      found.s ? found.s : "");
out:
	strbuf_free(&bad.sb);
	strbuf_free(&found);
	return r;
}
