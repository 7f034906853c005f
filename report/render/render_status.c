/* render_status.c - the fleet status: summary, one row per node, the not-ready nodes by cause; or JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "probes/model/timetext.h"
#include "report/render/render.h"
#include "report/render/render_status.h"

#define RENDER_STATUS_NAME_MAX 48       /* a name column wider than this is not padded further */

/* The first line: "fleet: N nodes listed, R ready, K not ready", or that no node is listed. */
static void render_status_summary(const struct stresult *r, char *buf, size_t len)
{
	char unknown[64] = "";

	if (r->n_unknown)
		snprintf(unknown, sizeof(unknown), " (%zu unknown: not vouched for)", r->n_unknown);
	if (!r->n_nodes)
		snprintf(buf, len, "fleet: no A3 node and no node with a fabric profile");
	else
		snprintf(buf, len, "fleet: %zu node%s listed, %zu ready, %zu not ready%s", r->n_nodes,
			 r->n_nodes == 1 ? "" : "s", r->n_ready, r->n_nodes - r->n_ready, unknown);
}

/* The wide table's column widths beyond the name's. */
struct render_status_widths {
	int name, machine, heartbeat, transport;
};

/* A TRANSPORT cell: "fastrak (8 GPUs, 8 NICs)"; "fastrak" without pairs, "-" for a profile with none. */
static void render_status_transport(const struct stresult_node *n, char *buf, size_t len)
{
	if (!n->transport)
		snprintf(buf, len, "-");
	else if (n->gpus < 0)
		snprintf(buf, len, "%s", n->transport);
	else
		snprintf(buf, len, "%s (%d GPU%s, %d NIC%s)", n->transport, n->gpus, n->gpus == 1 ? "" : "s", n->nics,
			 n->nics == 1 ? "" : "s");
}

static void render_status_row(const struct stresult_node *n, const struct render_status_widths *w, bool wide,
			      FILE *out)
{
	char age[48], transport[64];

	timetext_duration(n->age_s, TIMETEXT_COARSE, age, sizeof(age));
	if (n->stale)
		strncat(age, " (stale)", sizeof(age) - strlen(age) - 1);
	fputs("  ", out);
	render_cell(out, n->name, w->name);
	render_cell(out, n->profile, 7);
	render_cell(out, n->unobserved ? "unobserved" : n->ready ? "yes" : n->unknown ? "unknown" : "no", 10);
	render_cell(out, age, 11);
	if (wide) {
		render_status_transport(n, transport, sizeof(transport));
		render_cell(out, n->machine, w->machine);
		render_cell(out, n->heartbeat, w->heartbeat);
		render_cell(out, transport, w->transport);
	}
	if (!n->n_causes)
		fputc('-', out);
	for (size_t k = 0; k < n->n_causes; k++) {
		if (k)
			fputs(", ", out);
		render_safe(out, n->causes[k]);
	}
	fputc('\n', out);
}

static void render_status_cause(const struct stresult *r, const struct stresult_cause *c, FILE *out)
{
	size_t shown = c->n < RENDER_STATUS_NAMES_SHOWN ? c->n : RENDER_STATUS_NAMES_SHOWN;

	fputs("  ", out);
	render_safe(out, c->id);
	fprintf(out, ": %zu node%s: ", c->n, c->n == 1 ? "" : "s");
	for (size_t i = 0; i < shown; i++) {
		if (i)
			fputs(", ", out);
		render_safe(out, r->nodes[c->nodes[i]].name);
	}
	if (c->n > shown)
		fprintf(out, ", … (%zu more)", c->n - shown);
	fputc('\n', out);
}

/* @w widened to fit @s (at most @max; NULL prints as "-"). */
static void render_status_fit(int *w, const char *s, int max)
{
	int n = s ? (int)strlen(s) : 1;

	if (n > *w)
		*w = n > max ? max : n;
}

int render_status_table(const struct stresult *r, bool wide, FILE *out)
{
	struct render_status_widths w = { 4, 12, 9, 9 };
	char summary[160], transport[64];

	render_status_summary(r, summary, sizeof(summary));
	fprintf(out, "%s\n", summary);
	for (size_t i = 0; i < r->n_nodes; i++) {
		render_status_fit(&w.name, r->nodes[i].name, RENDER_STATUS_NAME_MAX);
		render_status_transport(&r->nodes[i], transport, sizeof(transport));
		render_status_fit(&w.machine, r->nodes[i].machine, RENDER_STATUS_NAME_MAX);
		render_status_fit(&w.heartbeat, r->nodes[i].heartbeat, RENDER_STATUS_NAME_MAX);
		render_status_fit(&w.transport, transport, RENDER_STATUS_NAME_MAX);
	}
	if (r->n_nodes) {
		fprintf(out, "\n  %-*s  %-7s  %-10s  %-11s  ", w.name, "NODE", "PROFILE", "READY", "AGE");
		if (wide)
			fprintf(out, "%-*s  %-*s  %-*s  ", w.machine, "MACHINE TYPE", w.heartbeat, "HEARTBEAT",
				w.transport, "TRANSPORT");
		fputs("CAUSES\n", out);
	}
	for (size_t i = 0; i < r->n_nodes; i++)
		render_status_row(&r->nodes[i], &w, wide, out);
	if (r->n_causes)
		fputs("\nnot ready, by cause:\n", out);
	for (size_t i = 0; i < r->n_causes; i++)
		render_status_cause(r, &r->causes[i], out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

int render_status_names(const struct stresult *r, FILE *out)
{
	for (size_t i = 0; i < r->n_nodes; i++) {
		fputs("node/", out);
		render_safe(out, r->nodes[i].name);
		fputc('\n', out);
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

/* {"path", "gpus", "nics"}, or null for a node whose profile gives none. */
static struct json *render_status_transport_json(const struct stresult_node *n)
{
	struct json *t;
	int rc = 0;

	if (!n->transport)
		return json_new_null();
	t = json_new_object();
	rc |= json_add_string(t, "path", n->transport);
	rc |= n->gpus < 0 ? json_add_null(t, "gpus") : json_add_int(t, "gpus", n->gpus);
	rc |= n->nics < 0 ? json_add_null(t, "nics") : json_add_int(t, "nics", n->nics);
	return render_built(t, rc);
}

static int render_status_node(struct json *arr, const struct stresult_node *n)
{
	struct json *e = json_new_object(), *causes = json_new_array();
	int rc = json_append(arr, e);

	rc |= json_add_string(e, "name", n->name);
	rc |= json_add_string(e, "profile", n->profile);
	rc |= json_add_string(e, "machineType", n->machine);
	rc |= json_add_bool(e, "ready", n->ready);
	rc |= json_add_bool(e, "unobserved", n->unobserved);
	rc |= json_add_bool(e, "stale", n->stale);
	rc |= json_add_bool(e, "unknown", n->unknown);
	for (size_t k = 0; causes && k < n->n_causes; k++)
		rc |= json_append_string(causes, n->causes[k]);
	rc |= json_add(e, "causes", causes);
	rc |= json_add_string(e, "heartbeat", n->heartbeat);
	if (n->age_s >= 0)
		rc |= json_add_int(e, "ageSeconds", n->age_s);
	else
		rc |= json_add_null(e, "ageSeconds");
	rc |= json_add(e, "transport", render_status_transport_json(n));
	return rc;
}

char *render_status_json(const struct stresult *r)
{
	struct json *root = json_new_object(), *nodes = json_new_array(), *causes = json_new_object();
	char summary[160];
	int rc = json_add_string(root, "schema", RENDER_SCHEMA);

	render_status_summary(r, summary, sizeof(summary));
	rc |= json_add_string(root, "summary", summary);
	rc |= json_add_int(root, "heartbeatPeriodSeconds", r->period_s);
	rc |= json_add_bool(root, "ready", r->n_ready == r->n_nodes);
	for (size_t i = 0; nodes && i < r->n_nodes; i++)
		rc |= render_status_node(nodes, &r->nodes[i]);
	for (size_t i = 0; causes && i < r->n_causes; i++) {
		struct json *names = json_new_array();

		for (size_t k = 0; names && k < r->causes[i].n; k++)
			rc |= json_append_string(names, r->nodes[r->causes[i].nodes[k]].name);
		rc |= json_add(causes, r->causes[i].id, names);
	}
	rc |= json_add(root, "nodes", nodes);
	rc |= json_add(root, "causes", causes);
	return render_json_take(root, rc);
}
