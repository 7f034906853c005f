/* render_runtime.c - the runtime check's report: summary line and findings table, or JSON. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "report/render/render.h"
#include "report/render/render_runtime.h"

#define RENDER_RUNTIME_ID_WIDTH 18      /* "networks-published" */
#define RENDER_RUNTIME_JOB_MAX 24       /* a job column wider than this is not padded further */

int render_runtime_human(const struct rtresult *r, FILE *out)
{
	int job_width = 3;

	render_safe(out, r->summary ? r->summary : "runtime: no verdict");
	fputc('\n', out);
	for (size_t i = 0; i < r->n_findings; i++) {
		int n = r->findings[i].job ? (int)strlen(r->findings[i].job) : 1;

		if (n > job_width)
			job_width = n > RENDER_RUNTIME_JOB_MAX ? RENDER_RUNTIME_JOB_MAX : n;
	}
	fprintf(out, "\n  %-*s  %-*s  STATUS  DETAIL\n", RENDER_RUNTIME_ID_WIDTH, "FINDING", job_width, "JOB");
	for (size_t i = 0; i < r->n_findings; i++) {
		const struct rtresult_finding *f = &r->findings[i];

		fputs("  ", out);
		render_cell(out, f->id, RENDER_RUNTIME_ID_WIDTH);
		render_cell(out, f->job, job_width);
		fprintf(out, "%-6s  ", render_status_word(f->f.status));
		render_safe(out, f->f.message);
		fputc('\n', out);
		if (f->f.remedy && f->f.status >= CHECK_WARN) {
			fprintf(out, "  %-*s  %-*s  %-6s  remedy: ", RENDER_RUNTIME_ID_WIDTH, "", job_width, "", "");
			render_safe(out, f->f.remedy);
			fputc('\n', out);
		}
	}
	fflush(out);
	return ferror(out) ? -EIO : 0;
}

char *render_runtime_json(const struct rtresult *r)
{
	struct json *root = json_new_object(), *arr = json_new_array();
	int rc = json_add_string(root, "schema", RENDER_SCHEMA);

	rc |= json_add_string(root, "runtime", r->runtime);
	rc |= json_add_string(root, "fabric", profile_kind_name(r->kind));
	rc |= json_add_int(root, "nodes", (long long)r->n_nodes);
	rc |= json_add_bool(root, "matches", r->verdict == RTRESULT_MATCHES);
	rc |= json_add_string(root, "summary", r->summary);
	for (size_t i = 0; arr && i < r->n_findings; i++) {
		const struct rtresult_finding *f = &r->findings[i];
		struct json *e = json_new_object();

		rc |= json_append(arr, e);
		rc |= json_add_string(e, "id", f->id);
		rc |= json_add_string(e, "status", check_status_name(f->f.status));
		rc |= json_add_string(e, "message", f->f.message);
		rc |= json_add_string(e, "template", f->job);
		rc |= json_add_string(e, "remedy", f->f.remedy);
	}
	rc |= json_add(root, "findings", arr);
	return render_json_take(root, rc);
}
