/* cmd_status.c - `tcpxo-agent status`: the fleet's verdicts as the agents published them on the Nodes, grouped by cause. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/infile.h"
#include "agent/output.h"
#include "probes/kube/http.h"
#include "probes/kube/kubenodes.h"
#include "report/fleet/coherence.h"
#include "report/fleet/status.h"
#include "report/render/render_status.h"

#define STATUS_FILE_MAX ((size_t)256 << 20)    /* a NodeList of ~30,000 fat nodes (as interfaces) */

static int status_page(void *userdata, const char *body, size_t len, char **ret_continue, char *err, size_t errlen)
{
	return coherence_add_nodelist(userdata, body, len, ret_continue, err, errlen);
}

static void status_restart(void *userdata)
{
	coherence_reset(userdata);
}

static int status_from_file(const struct cli_options *opt, struct coherence *c)
{
	char why[512] = "", err[512] = "", *text = NULL;
	size_t len = 0;
	int r;

	if (opt->selector) {
		fprintf(stderr, "tcpxo-agent: status: --selector filters the API's node list; with --nodes-file, "
			"select the nodes with kubectl get nodes -l SELECTOR -o json\n");
		return -EINVAL;
	}
	r = infile_read_input(opt->nodes_file, STATUS_FILE_MAX, "NodeList", &text, &len, why, sizeof(why));
	if (r >= 0)
		r = coherence_add_nodelist(c, text, len, NULL, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: status: --nodes-file %s: %s\n", infile_name(opt->nodes_file),
			why[0] ? why : err[0] ? err : strerror(-r));
	free(text);
	return r < 0 ? r : 0;
}

static int status_from_api(const struct cli_options *opt, struct coherence *c)
{
	const struct http_config cfg = {
		.server = opt->api_server,
		.token_file = opt->token_file,
		.ca_file = opt->ca_file,
	};
	const struct kubenodes_sink sink = { status_page, status_restart, c };
	struct http_client *client = NULL;
	char why[256] = "", err[512] = "";
	int r;

	r = http_client_new(&cfg, &client, why, sizeof(why));
	if (r == -ENOENT) {
		fprintf(stderr, "tcpxo-agent: status: no API server configured (not in a cluster, no --api-server); "
			"or read kubectl get nodes -o json with --nodes-file F or - (kubectl fabric status does)\n");
		return r;
	}
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: status: API client: %s\n", why[0] ? why : strerror(-r));
		return r;
	}
	r = kubenodes_list(client, opt->selector, &sink, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: status: %s\n", err[0] ? err : strerror(-r));
	http_client_free(client);
	return r < 0 ? r : 0;
}

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
	if ((opt->nodes_file ? status_from_file(opt, c) : status_from_api(opt, c)) < 0)
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
	code = res.n_ready == res.n_nodes ? EXIT_READY : EXIT_NOT_READY;
out:
	stresult_free(&res);
	coherence_free(c);
	return code;
}
