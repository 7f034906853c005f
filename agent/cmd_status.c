/* cmd_status.c - `tcpxo-agent status`: the fleet's verdicts as the agents published them on the Nodes, grouped by cause. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/nodesread.h"
#include "agent/output.h"
#include "report/fleet/coherence.h"
#include "report/fleet/status.h"
#include "report/render/render_status.h"

static const struct nodesread_words status_words = {
	.cmd = "status", .file_label = "--nodes-file ", .noapi_hint = " (kubectl fabric status does)",
};

static int status_print(const struct cli_options *opt, const struct stresult *res)
{
	if (!opt->json)
		render_status_human(res, stdout);
	else if (output_json("status: ", render_status_json(res)) < 0)
		return -ENOMEM;
	return output_flush("status: ");
}

int cmd_status(const struct cli_options *opt)
{
	struct coherence *c = NULL;
	struct stresult res = { 0 };
	const struct coherence_node *nodes;
	char err[512] = "";
	size_t n = 0;
	int code = EXIT_UNKNOWN;

	if (coherence_new(opt->prefix, &c) < 0) {
		fprintf(stderr, "tcpxo-agent: status: out of memory\n");
		return EXIT_UNKNOWN;
	}
	if (nodesread(opt, c, &status_words) < 0)
		goto out;
	nodes = coherence_nodes(c, &n);
	/* --heartbeat: the period the agents run with (the DaemonSet's, 5 min by default). */
	if (status_judge(nodes, n, (long long)time(NULL), opt->heartbeat, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "tcpxo-agent: status: %s\n", err[0] ? err : "refused");
		goto out;
	}
	if (!res.n_nodes)
		fprintf(stderr, "tcpxo-agent: status: none of the %zu nodes is an A3 GPU machine type or carries a fabric "
			"profile (%sprofile)\n", n, opt->prefix);
	if (status_print(opt, &res) < 0)
		goto out;
	/* Not ready, and unknown (2) when not one listed node's verdict can be vouched for. */
	code = res.n_ready == res.n_nodes ? EXIT_READY : res.n_unknown == res.n_nodes ? EXIT_UNKNOWN : EXIT_NOT_READY;
out:
	stresult_free(&res);
	coherence_free(c);
	return code;
}
