/* render_status.c - the fleet status: summary, one row per node, the not-ready nodes by cause; or JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/timetext.h"
#include "report/render/render.h"
#include "report/render/render_status.h"

#define RENDER_STATUS_NAME_MAX 48       /* a name column wider than this is not padded further */

void render_status_summary(const struct stresult *r, char *buf, size_t len)
{
	if (!r->n_nodes)
		snprintf(buf, len, "fleet: no A3 node and no node with a fabric profile");
	else if (r->n_unknown)
		snprintf(buf, len, "fleet: %zu node%s listed, %zu ready, %zu not ready (%zu unknown: not vouched for)",
			 r->n_nodes, r->n_nodes == 1 ? "" : "s", r->n_ready, r->n_nodes - r->n_ready, r->n_unknown);
	else
		snprintf(buf, len, "fleet: %zu node%s listed, %zu ready, %zu not ready", r->n_nodes,
			 r->n_nodes == 1 ? "" : "s", r->n_ready, r->n_nodes - r->n_ready);
}

static void render_status_row(const struct stresult_node *n, int name_w, FILE *out)
{
	char age[48];

	timetext_duration(n->age_s, TIMETEXT_COARSE, age, sizeof(age));
	if (n->stale)
		strncat(age, " (stale)", sizeof(age) - strlen(age) - 1);
	fputs("  ", out);
	render_cell(out, n->name, name_w);
	render_cell(out, n->profile, 7);
	render_cell(out, n->unobserved ? "unobserved" : n->ready ? "yes" : n->unknown ? "unknown" : "no", 10);
	render_cell(out, age, 11);
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

int render_status_human(const struct stresult *r, FILE *out)
{
	char summary[160];
	int name_w = 4;

	render_status_summary(r, summary, sizeof(summary));
	fprintf(out, "%s\n", summary);
	for (size_t i = 0; i < r->n_nodes; i++) {
		int n = (int)strlen(r->nodes[i].name);

		if (n > name_w)
			name_w = n > RENDER_STATUS_NAME_MAX ? RENDER_STATUS_NAME_MAX : n;
	}
	if (r->n_nodes)
		fprintf(out, "\n  %-*s  %-7s  %-10s  %-11s  CAUSES\n", name_w, "NODE", "PROFILE", "READY", "AGE");
	for (size_t i = 0; i < r->n_nodes; i++)
		render_status_row(&r->nodes[i], name_w, out);
	if (r->n_causes)
		fputs("\nnot ready, by cause:\n", out);
	for (size_t i = 0; i < r->n_causes; i++)
		render_status_cause(r, &r->causes[i], out);
	fflush(out);
	return ferror(out) ? -EIO : 0;
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
	return rc;
}

char *render_status_json(const struct stresult *r)
{
	struct json *root = json_new_object(), *nodes = json_new_array(), *causes = json_new_object();
	char *text = NULL, *out = NULL, summary[160];
	int rc = 0;

	render_status_summary(r, summary, sizeof(summary));
	if (!root || json_add(root, "schema", json_new_string(RENDER_SCHEMA)) < 0)
		goto out;
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
	nodes = causes = NULL;
	if (rc < 0)
		goto out;
	text = json_print(root, true);
	if (text && asprintf(&out, "%s\n", text) < 0)
		out = NULL;
out:
	json_free(nodes);
	json_free(causes);
	json_free(root);
	free(text);
	return out;
}
