/* render_human.c - the human report: summary line, GPU<->NIC table, checks with remedies. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report/render/render.h"

/* Print a host- or API-supplied string with control characters replaced: it may be hostile. */
static void render_safe(FILE *out, const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		fputc(*c < 0x20 || *c == 0x7f ? '?' : *c, out);
}

static const char *render_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

static void render_cell(FILE *out, const char *s, int width)
{
	const char *v = render_or_dash(s);
	int n = (int)strlen(v);

	render_safe(out, v);
	if (width > 0)
		fprintf(out, "%*s", n < width ? width - n + 2 : 2, "");
}

static void render_row(FILE *out, const struct profile *p, const struct profile_gpu *g, const struct profile_nic *n)
{
	char numa[12] = "-", mtu[12] = "-";

	if (g && g->numa >= 0)
		snprintf(numa, sizeof(numa), "%d", g->numa);
	else if (!g && n && n->numa >= 0)
		snprintf(numa, sizeof(numa), "%d", n->numa);
	if (n && n->mtu)
		snprintf(mtu, sizeof(mtu), "%u", n->mtu);
	fputs("  ", out);
	render_cell(out, g ? g->bdf : NULL, 12);
	render_cell(out, numa, 4);
	render_cell(out, n ? n->name : NULL, 5);
	render_cell(out, n ? n->bdf : NULL, 12);
	render_cell(out, n ? nic_state_name(n->state) : NULL, 7);
	render_cell(out, mtu, 4);
	render_cell(out, n ? n->ipv4 : NULL, 15);
	render_cell(out, n ? n->network : NULL, 12);
	render_cell(out, n ? n->aperture : NULL, 0);
	fputc('\n', out);
	(void)p;
}

int render_human(const struct observation *o, const struct profile *p, FILE *out)
{
	const char *mt = obs_kube_machine_type(&o->kube);

	render_safe(out, p->summary ? p->summary : "tcpxo: no verdict");
	fputc('\n', out);
	fputs("node ", out);
	render_safe(out, render_or_dash(o->node));
	fprintf(out, "  profile %s  runtime %s  machine type ", profile_kind_name(p->kind),
		render_or_dash(profile_runtime_name(p->kind)));
	render_safe(out, render_or_dash(mt));
	fputc('\n', out);
	if (*p->installer || p->n_daemons) {
		fputs("versions: installer ", out);
		render_safe(out, render_or_dash(p->installer));
		fputs("  daemon", out);
		for (size_t i = 0; i < p->n_daemons; i++) {
			fputc(' ', out);
			render_safe(out, p->daemons[i]);
		}
		if (!p->n_daemons)
			fputs(" -", out);
		fputs("  expected daemon ", out);
		render_safe(out, render_or_dash(p->expected_daemon));
		fputc('\n', out);
	}

	if (p->n_gpus || p->n_nics) {
		fputs("\n  GPU           NUMA  NIC    NIC PCI       STATE    MTU   IPV4             NETWORK       APERTURE\n", out);
		for (size_t i = 0; i < p->n_gpus; i++)
			render_row(out, p, &p->gpus[i], p->gpus[i].nic >= 0 ? &p->nics[p->gpus[i].nic] : NULL);
		for (size_t i = 0; i < p->n_nics; i++)
			if (!p->nics[i].n_gpus)
				render_row(out, p, NULL, &p->nics[i]);
	}

	fputs("\n  CHECK             STATUS  DETAIL\n", out);
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		const struct check *c = &p->checks[i];
		const char *st = check_status_name(c->status);

		fprintf(out, "  %-16s  %-6s  ", check_id_name(c->id),
			c->status == CHECK_FAIL ? "FAIL" : c->status == CHECK_WARN ? "WARN" : st);
		render_safe(out, c->message ? c->message : "");
		fputc('\n', out);
		if (c->remedy && (c->status == CHECK_FAIL || c->status == CHECK_WARN)) {
			fprintf(out, "  %-16s  %-6s  remedy: ", "", "");
			render_safe(out, c->remedy);
			fputc('\n', out);
		}
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
