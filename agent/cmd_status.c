/* cmd_status.c - `tcpxo-agent status`: the fleet's verdicts as the agents published them on the Nodes, grouped by cause. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/kubesrc.h"
#include "agent/output.h"
#include "report/fleet/coherence.h"
#include "report/fleet/status.h"
#include "report/render/render_status.h"

static int status_print(const struct cli_options *opt, const struct stresult *res)
{
	/* -o takes json, name and wide here (cli_parse.c); the rest is the table. */
	if (opt->output == CLI_OUTPUT_JSON) {
		if (output_json(opt->prog_name, "status: ", render_status_json(res)) < 0)
			return -ENOMEM;
	} else if (opt->output == CLI_OUTPUT_NAME) {
		render_status_names(res, stdout);
	} else {
		render_status_table(res, opt->output == CLI_OUTPUT_WIDE, stdout);
	}
	return output_flush(opt->prog_name, "status: ");
}

int cmd_status(const struct cli_options *opt, struct kubesrc *src)
{
	struct coherence *c = NULL;
	struct stresult res = { 0 };
	const struct coherence_node *nodes;
	char err[512] = "";
	size_t n = 0;
	int code = EXIT_UNKNOWN;

	if (coherence_new(opt->prefix, &c) < 0) {
		fprintf(stderr, "%s: status: out of memory\n", opt->prog_name);
		return EXIT_UNKNOWN;
	}
	if (kubesrc_nodes(src, opt, "status", NULL, c) < 0)
		goto out;
	nodes = coherence_nodes(c, &n);
	/* --heartbeat: the period the agents run with (the DaemonSet's, 5 min by default). */
	if (status_judge(nodes, n, (long long)time(NULL), opt->heartbeat, &res, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: status: %s\n", opt->prog_name, err[0] ? err : "refused");
		goto out;
	}
	if (!res.n_nodes)
		fprintf(stderr, "%s: status: none of the %zu nodes is an A3 GPU machine type or carries a fabric "
			"profile (%sprofile)\n", opt->prog_name, n, opt->prefix);
	if (status_print(opt, &res) < 0)
		goto out;
	/* Not ready, and unknown (2) when not one listed node's verdict can be vouched for. */
	code = res.n_ready == res.n_nodes ? EXIT_READY : res.n_unknown == res.n_nodes ? EXIT_UNKNOWN : EXIT_NOT_READY;
out:
	stresult_free(&res);
	coherence_free(c);
	return code;
}
