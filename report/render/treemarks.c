/* treemarks.c - the marks of the human report's PCIe tree: what fails or warns a check, on its row. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probes/host/bar4.h"
#include "report/checks/checks.h"

#include "report/render/treemarks.h"

#define TREEMARKS_TEXT_MAX 160

void treemarks_mark(const struct profile *p, struct treerow *r, enum check_id id, const char *fmt, ...)
{
	enum check_status st = p->checks[id].status;
	char text[TREEMARKS_TEXT_MAX];
	va_list ap;

	if (st != CHECK_FAIL && st != CHECK_WARN)
		return;
	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	treerow_add(r, 0, "%s %s: %s", st == CHECK_FAIL ? "FAIL" : "WARN", check_id_name(id), text);
}

/* The probe's "resource0 0644": its file name cleaned, the space before the mode kept. */
static const char *treemarks_narrow(const struct obs_aperture_entry *e, char *buf, size_t len)
{
	const char *sp = strrchr(e->narrow, ' ');

	treerow_clean(e->narrow, buf, len);
	if (sp && (size_t)(sp - e->narrow) < strlen(buf))
		buf[sp - e->narrow] = ' ';
	return buf;
}

/*
 * The first thing wrong with aperture entry @e by itself, by the check's rule
 * (check_aperture_entry_problems()), in short; false when nothing. Liveness is known: the tree is
 * only drawn when the PCI bus was read.
 */
static bool treemarks_entry_problem(const struct observation *o, const struct obs_aperture_entry *e, char *buf,
				    size_t len)
{
	unsigned bits = check_aperture_entry_problems(e, check_aperture_live(o, e->name), true);
	char narrow[sizeof(e->narrow)];

	switch (bits & -bits) {         /* the lowest bit: the check's first finding */
	case CHECK_APT_NOT_DIR:
		snprintf(buf, len, "is %s, not a directory", obs_file_type_name(e->type));
		break;
	case CHECK_APT_STALE:
		snprintf(buf, len, "stale: no live LLCM function behind it");
		break;
	case CHECK_APT_IDS_UNKNOWN:
		snprintf(buf, len, "vendor/device unreadable");
		break;
	case CHECK_APT_NOT_LLCM:
		snprintf(buf, len, "shows %04x:%04x, not LLCM", e->vendor, e->device);
		break;
	case CHECK_APT_NO_RESOURCES:
		snprintf(buf, len, "no resource files");
		break;
	case CHECK_APT_NARROW:
		snprintf(buf, len, "not a+rw: %s", treemarks_narrow(e, narrow, sizeof(narrow)));
		break;
	case CHECK_APT_BAR4_MISSING:
		snprintf(buf, len, "no resource4 (BAR4)");
		break;
	case CHECK_APT_BAR4_NOT_FILE:
		snprintf(buf, len, "resource4 is not a regular file");
		break;
	case CHECK_APT_BAR4_EMPTY:
		snprintf(buf, len, "resource4 is empty");
		break;
	case CHECK_APT_BAR4_SHORT:
		snprintf(buf, len, "resource4 holds fewer than 4 bytes");
		break;
	case CHECK_APT_BAR4_UNREADABLE:
		snprintf(buf, len, "cannot read resource4");
		break;
	default:
		return false;
	}
	return true;
}

/* Entries whose BAR4 claims @ip (the check's rule; the PCI bus was read): how many serve that address. */
static size_t treemarks_claims(const struct observation *o, uint32_t ip)
{
	const struct obs_aperture *a = &o->host.aperture;
	size_t n = 0;

	for (size_t i = 0; i < a->n; i++)
		n += a->v[i].bar4_ipv4 == ip && check_aperture_entry_claims(o, &a->v[i], true);
	return n;
}

/* A TCPXO NIC row's aperture entry @e, or its lack of one. */
static void treemarks_aperture(const struct observation *o, const struct profile *p, const struct profile_nic *n,
			       const struct obs_aperture_entry *e, struct treerow *r)
{
	const struct obs_aperture *a = &o->host.aperture;
	char why[TREEMARKS_TEXT_MAX];
	size_t claims;
	uint32_t ip;

	if (n->aperture[0]) {
		if (e && treemarks_entry_problem(o, e, why, sizeof(why)))
			treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "%s", why);
	} else if (a->status.state != PROBE_OK) {
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "/dev/aperture_devices not read");
	} else if (!a->present) {
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "/dev/aperture_devices missing");
	} else if (bar4_parse_ipv4_text(n->ipv4, &ip) < 0) {
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "IPv4 unknown: no entry matched");
	} else if ((claims = treemarks_claims(o, ip)) > 1) {
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "claimed by %zu entries", claims);
	} else {
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "no entry serves its address");
	}
}

/* The first thing wrong with the Network object @name, by the check's rule (check_network_problems()), in short. */
static const char *treemarks_network_problem(const struct obs_kube *k, const char *name)
{
	unsigned bits = check_network_problems(k, name);

	switch (bits & -bits) {         /* the lowest bit: the check's first finding */
	case CHECK_NET_MISSING: return "no such Network";
	case CHECK_NET_NO_TYPE: return "Network has no spec.type, not Device";
	case CHECK_NET_NOT_DEVICE: return "Network is not of type Device";
	case CHECK_NET_NOT_READY: return "Network not Ready";
	case CHECK_NET_NOT_PARAMS_READY: return "Network not ParamsReady";
	case CHECK_NET_NO_PARAMS_REF: return "Network has no parametersRef";
	}
	return NULL;
}

void treemarks_gpu(const struct profile *p, const struct profile_gpu *g, bool in_switch, struct treerow *r)
{
	if (g->nic >= 0)
		return;
	treemarks_mark(p, r, CHECK_PAIRING, in_switch ? "no GPU NIC in its switch" : "in no PCIe switch");
}

void treemarks_nic(const struct observation *o, const struct profile *p, const struct profile_nic *n,
		   const struct obs_aperture_entry *e, struct treerow *r)
{
	unsigned per = p->kind == PROFILE_TCPX ? 2 : 1;
	const char *why;
	struct check_links_nic j;

	if (n->state == NIC_STATE_MISSING)
		treemarks_mark(p, r, CHECK_GPU_NICS, "not bound to a driver");
	if (n->sw < 0)
		treemarks_mark(p, r, CHECK_PAIRING, "outside every GPU PCIe switch");
	else if (n->n_gpus != per)
		treemarks_mark(p, r, CHECK_PAIRING, "serves %zu GPU%s, expected %u", n->n_gpus,
			       n->n_gpus == 1 ? "" : "s", per);
	if (check_links_nic(o, n, &j)) {
		if (j.flap)
			treemarks_mark(p, r, CHECK_LINKS, "flapping: %u up/down change%s", j.flap->changes,
				       j.flap->changes == 1 ? "" : "s");
		if (j.down)
			treemarks_mark(p, r, CHECK_LINKS, "%s", j.down_text);
		if (j.mtu)
			treemarks_mark(p, r, CHECK_LINKS, "MTU %u, expected %d", n->mtu, PROFILE_GPU_NIC_MTU);
		if (j.no_ipv4)
			treemarks_mark(p, r, CHECK_LINKS, "no IPv4 address");
	}
	if (n->network[0] && (why = treemarks_network_problem(&o->kube, n->network)))
		treemarks_mark(p, r, CHECK_NETWORKS, "%s", why);
	else if (!n->network[0] && o->kube.has_nic_info && o->kube.has_north)
		treemarks_mark(p, r, CHECK_NETWORKS, "no Network in nic-info");
	if (p->kind == PROFILE_TCPXO)
		treemarks_aperture(o, p, n, e, r);
}

void treemarks_entry(const struct observation *o, const struct profile *p, const struct obs_aperture_entry *e,
		     struct treerow *r)
{
	char why[TREEMARKS_TEXT_MAX], name[OBS_IFNAME_MAX];
	const char *served = NULL;
	bool all_known = true;

	if (treemarks_entry_problem(o, e, why, sizeof(why))) {
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "%s", why);
		return;
	}
	for (size_t j = 0; j < p->n_nics; j++) {
		const struct profile_nic *n = &p->nics[j];
		uint32_t ip;

		if (bar4_parse_ipv4_text(n->ipv4, &ip) < 0)
			all_known = false;
		else if (ip == e->bar4_ipv4 && !served)
			served = n->name[0] ? n->name : n->bdf;
	}
	if (served)
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "serves %s, as another entry does",
			       treerow_clean(served, name, sizeof(name)));
	else
		treemarks_mark(p, r, CHECK_APERTURE_DEVICES, "serves no GPU NIC%s", all_known ? "" : " with a known address");
}
