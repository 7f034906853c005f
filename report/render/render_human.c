/* render_human.c - the human report: summary line, PCIe tree, GPU<->NIC table, checks with remedies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"

#include "report/render/render.h"
#include "report/render/render_tree.h"

/* @n bytes of @s, each control or reordering mark as '?' (hostile text never moves the terminal: strbuf_char()). */
static void render_safe_n(FILE *out, const char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		bool bad;
		size_t len = strbuf_char(s + i, n - i, &bad);

		if (bad)
			fputc('?', out);
		else
			fwrite(s + i, 1, len, out);
		i += len;
	}
}

void render_safe(FILE *out, const char *s)
{
	render_safe_n(out, s, strlen(s));
}

size_t render_cut(const char *s, size_t max)
{
	size_t n = strnlen(s, max + 1);

	if (n <= max)
		return n;
	n = max > 3 ? max - 3 : 0;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

char *render_cut_dup(const char *s, size_t max)
{
	size_t n = render_cut(s, max);
	char *out = malloc(n + 4);

	if (out) {
		memcpy(out, s, n);
		strcpy(out + n, s[n] ? "..." : "");
	}
	return out;
}


/*
 * @s through render_safe()'s rule, wrapped at spaces: the caller has printed up to column @col, and
 * every further line starts there too; no line passes RENDER_WIDTH unless a single word does (it is
 * never cut). Columns count UTF-8 characters. The summary line is never wrapped: scripts read it.
 */
static void render_wrapped(FILE *out, const char *s, int col)
{
	int cur = col;

	for (const char *p = s;;) {
		size_t n = strcspn(p, " ");
		int w = 0;

		for (size_t i = 0; i < n; i++)
			w += ((unsigned char)p[i] & 0xc0) != 0x80;
		if (p != s && cur + 1 + w > RENDER_WIDTH && cur > col) {
			fprintf(out, "\n%*s", col, "");
			cur = col;
		} else if (p != s) {
			fputc(' ', out);
			cur++;
		}
		render_safe_n(out, p, n);
		cur += w;
		if (!p[n])
			break;
		p += n + 1;
	}
}

static const char *render_or_dash(const char *s)
{
	return s && *s ? s : "-";
}

void render_cell(FILE *out, const char *s, int width)
{
	const char *v = render_or_dash(s);
	int n = (int)strlen(v);

	render_safe(out, v);
	if (width > 0)
		fprintf(out, "%*s", n < width ? width - n + 2 : 2, "");
}

const char *render_status_word(enum check_status st)
{
	return st == CHECK_FAIL ? "FAIL" : st == CHECK_WARN ? "WARN" : check_status_name(st);
}

/* The NIC column's width: 5 ("eth1" and the header), or the longest name ("gpu0rdma0" on profile rdma). */
static int render_nic_width(const struct profile *p)
{
	size_t w = 5;

	for (size_t i = 0; i < p->n_nics; i++)
		if (strlen(p->nics[i].name) > w)
			w = strlen(p->nics[i].name);
	return (int)w;
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
	render_cell(out, n ? n->name : NULL, render_nic_width(p));
	render_cell(out, n ? n->bdf : NULL, 12);
	render_cell(out, n ? nic_state_name(n->state) : NULL, 7);
	render_cell(out, mtu, 4);
	render_cell(out, n ? n->ipv4 : NULL, 15);
	render_cell(out, n ? n->network : NULL, 11);
	render_cell(out, n ? n->aperture : NULL, 0);
	fputc('\n', out);
}

/* The PCIe tree (render_tree.c), after a blank line; nothing for a node without GPUs or GPU NICs. */
static int render_human_tree(const struct observation *o, const struct profile *p, FILE *out)
{
	struct strbuf sb = { 0 };
	int r = render_tree(o, p, &sb);

	if (r == 0 && sb.len) {
		fputc('\n', out);
		fputs(sb.s, out);
	}
	strbuf_free(&sb);
	return r;
}

int render_human(const struct observation *o, const struct profile *p, const struct workloads *w, FILE *out)
{
	const char *mt = obs_kube_machine_type(o->kube);

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

	if (render_human_tree(o, p, out) < 0)
		return -ENOMEM;
	if (p->n_gpus || p->n_nics) {
		fprintf(out, "\n  GPU           NUMA  %-*s  NIC PCI       STATE    MTU   IPV4             NETWORK      APERTURE\n",
			render_nic_width(p), "NIC");
		for (size_t i = 0; i < p->n_gpus; i++)
			render_row(out, p, &p->gpus[i], p->gpus[i].nic >= 0 ? &p->nics[p->gpus[i].nic] : NULL);
		for (size_t i = 0; i < p->n_nics; i++)
			if (!p->nics[i].n_gpus)
				render_row(out, p, NULL, &p->nics[i]);
	}

	fputs("\n  CHECK             STATUS  DETAIL\n", out);
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		const struct finding *c = &p->checks[i];

		/* The DETAIL column starts at 28: "  " + 16 + "  " + 6 + "  "; "remedy: " takes 8 more. */
		fprintf(out, "  %-16s  %-6s  ", check_id_name((enum check_id)i),
			render_status_word(c->status));
		render_wrapped(out, c->message ? c->message : "", 28);
		fputc('\n', out);
		if (c->remedy && (c->status == CHECK_FAIL || c->status == CHECK_WARN)) {
			fprintf(out, "  %-16s  %-6s  remedy: ", "", "");
			render_wrapped(out, c->remedy, 36);
			fputc('\n', out);
		}
	}
	if (w) {
		fputc('\n', out);
		if (render_workloads_human(w, o->node, out) < 0)
			return -EIO;
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

char *render_workloads_summary(const struct workloads *w, const char *node)
{
	struct strbuf sb = { 0 };

	if (!w->judged) {
		strbuf_appendf(&sb, "workloads: not judged: %s", w->why);
		return strbuf_take(&sb);
	}
	strbuf_appendf(&sb, "workloads: %zu unattached, %zu partial, %zu attached", w->counts[ATTACH_UNATTACHED],
		       w->counts[ATTACH_PARTIAL], w->counts[ATTACH_ATTACHED]);
	if (w->counts[ATTACH_NOT_FABRIC])
		strbuf_appendf(&sb, ", %zu not-fabric", w->counts[ATTACH_NOT_FABRIC]);
	strbuf_appendf(&sb, " on %s", node && *node ? node : "this node");
	return strbuf_take(&sb);
}

/* "ns/name" of a pod, into @sb (emptied first). */
static void render_pod_name(const struct pod *pod, struct strbuf *sb)
{
	sb->len = 0;
	if (sb->s)
		sb->s[0] = '\0';
	strbuf_appendf(sb, "%s/%s", pod->ns ? pod->ns : "", pod->name ? pod->name : "");
}

/* The FINDINGS cell: failed ids, then "(warn: ids)"; "-" when nothing failed or warned. */
static void render_finding_ids(const struct attach_result *r, struct strbuf *sb)
{
	size_t n_warn = 0;

	for (size_t i = 0; i < ATTACH__COUNT; i++)
		if (r->findings[i].status == CHECK_FAIL)
			strbuf_appendf(sb, "%s%s", sb->len ? ", " : "", attach_finding_name((enum attach_finding_id)i));
	for (size_t i = 0; i < ATTACH__COUNT; i++) {
		if (r->findings[i].status != CHECK_WARN)
			continue;
		strbuf_appendf(sb, "%s%s%s", sb->len && !n_warn ? " " : "", n_warn ? ", " : "(warn: ",
			       attach_finding_name((enum attach_finding_id)i));
		n_warn++;
	}
	if (n_warn)
		strbuf_append(sb, ")");
	if (!sb->len)
		strbuf_append(sb, "-");
}

static void render_finding_lines(const struct attach_result *r, enum check_status st, FILE *out)
{
	for (size_t i = 0; i < ATTACH__COUNT; i++) {
		const struct finding *f = &r->findings[i];

		if (f->status != st)
			continue;
		/* The finding's column starts at 30: "      " + 16 + "  " + 4 + "  ". */
		fprintf(out, "      %-16s  %-4s  ", attach_finding_name((enum attach_finding_id)i), render_status_word(st));
		render_wrapped(out, f->message ? f->message : "", 30);
		fputc('\n', out);
		/* A warning gets no remedy line: the table is for what breaks; JSON and the guide have the rest. */
		if (f->remedy && st == CHECK_FAIL) {
			fprintf(out, "      %-16s  %-4s  remedy: ", "", "");
			render_wrapped(out, f->remedy, 38);
			fputc('\n', out);
		}
	}
}

int render_workloads_human(const struct workloads *w, const char *node, FILE *out)
{
	struct strbuf name = { 0 }, ids = { 0 };
	char *summary = render_workloads_summary(w, node);
	int width = 3;

	if (!summary)
		return -ENOMEM;
	render_safe(out, summary);
	fputc('\n', out);
	free(summary);
	/* The columns before FINDINGS stay within 100 (52 + 44 with TRANSPORT). */
	for (size_t i = 0; w->judged && i < w->n; i++) {
		int cap = w->transport_judged ? 52 : 60;

		render_pod_name(w->pods[i].pod, &name);
		if ((int)name.len > width)
			width = (int)name.len > cap ? cap : (int)name.len;
	}
	if (w->judged && w->n)
		fprintf(out, "\n  %-*s  GPUS  VERDICT     %sFINDINGS\n", width, "POD",
			w->transport_judged ? "TRANSPORT     " : "");
	for (size_t i = 0; w->judged && i < w->n; i++) {
		const struct attach_result *r = &w->pods[i].result;
		const struct transport_result *t = &w->pods[i].transport;

		render_pod_name(w->pods[i].pod, &name);
		ids.len = 0;
		if (ids.s)
			ids.s[0] = '\0';
		render_finding_ids(r, &ids);
		if (name.oom || ids.oom)
			break;
		fputs("  ", out);
		render_cell(out, name.s, width);
		fprintf(out, "%-4lld  %-10s  ", r->gpus, attach_verdict_name(r->verdict));
		if (w->transport_judged)
			fprintf(out, "%-12s  ", transport_state_name(t->state));
		fputs(ids.s, out);
		fputc('\n', out);
		render_finding_lines(r, CHECK_FAIL, out);
		render_finding_lines(r, CHECK_WARN, out);
		/* The evidence of a pod's transport under its row: tcp and partial fail, unknown cannot say, idle says why. */
		if (w->transport_judged && (t->status == CHECK_FAIL || t->status == CHECK_SKIP)) {
			fprintf(out, "      %-16s  %-4s  ", "transport", t->status == CHECK_FAIL ? "FAIL" : "SKIP");
			render_wrapped(out, t->evidence, 30);
			fputc('\n', out);
		}
	}
	if (w->judged && w->n_unscheduled)
		fprintf(out, "(%zu GPU pod%s not yet scheduled: not judged)\n", w->n_unscheduled,
			w->n_unscheduled == 1 ? "" : "s");
	strbuf_free(&name);
	strbuf_free(&ids);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}
