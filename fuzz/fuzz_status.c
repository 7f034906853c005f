/* fuzz_status.c - a NodeList judged for the fleet's status (conditions' times parsed), then printed both ways. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "report/fleet/coherence.h"
#include "probes/model/timetext.h"
#include "report/fleet/status.h"
#include "report/render/render_status.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct stresult res = { 0 };
	struct coherence *c = NULL;
	const struct coherence_node *nodes;
	char err[512], *out, *text = NULL;
	size_t n = 0, len = 0;
	long long t;
	FILE *f;

	if (coherence_new("fabric.aicr.run/", &c) < 0)
		abort();        /* the default prefix is valid: failing here would fuzz nothing */
	if (coherence_add_nodelist(c, (const char *)data, size, NULL, err, sizeof(err)) >= 0) {
		nodes = coherence_nodes(c, &n);
		/* Each node's heartbeat alone too, then the whole judgement at a fixed now and period. */
		for (size_t i = 0; i < n; i++)
			timetext_parse(nodes[i].heartbeat, &t);
		if (status_judge(nodes, n, 1796428800LL, 300, &res, err, sizeof(err)) == 0) {
			out = render_status_json(&res);
			free(out);
			f = open_memstream(&text, &len);
			if (f) {
				render_status_table(&res, false, f);
				fclose(f);
			}
			free(text);
		}
	}
	stresult_free(&res);
	coherence_free(c);
	return 0;
}
