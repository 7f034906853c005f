/* cmd_interfaces.c - `tcpxo-agent interfaces`: the TCPXO nodes' published mapping, checked, printed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/infile.h"
#include "probes/kube/http.h"
#include "probes/kube/kubenodes.h"
#include "report/fleet/coherence.h"
#include "report/render/render_mapping.h"

#define INTERFACES_FILE_MAX ((size_t)256 << 20)        /* a NodeList of ~30,000 fat nodes */

static int interfaces_page(void *userdata, const char *body, size_t len, char **ret_continue, char *err,
			   size_t errlen)
{
	return coherence_add_nodelist(userdata, body, len, ret_continue, err, errlen);
}

static void interfaces_restart(void *userdata)
{
	coherence_reset(userdata);
}

static int interfaces_from_file(const struct cli_options *opt, struct coherence *c)
{
	size_t len = 0;
	char why[512] = "", err[512] = "", *text = NULL;
	int r;

	if (opt->selector) {
		fprintf(stderr, "tcpxo-agent: interfaces: --selector filters the API's node list; with --nodes-file, "
			"select the nodes with kubectl get nodes -l SELECTOR -o json\n");
		return -EINVAL;
	}
	r = infile_read_input(opt->nodes_file, INTERFACES_FILE_MAX, "NodeList", &text, &len, why, sizeof(why));
	if (r >= 0)
		r = coherence_add_nodelist(c, text, len, NULL, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: interfaces: %s: %s\n", infile_name(opt->nodes_file),
			why[0] ? why : err[0] ? err : strerror(-r));
	free(text);
	return r < 0 ? r : 0;
}

static int interfaces_from_api(const struct cli_options *opt, struct coherence *c)
{
	const struct http_config cfg = {
		.server = opt->api_server,
		.token_file = opt->token_file,
		.ca_file = opt->ca_file,
	};
	const struct kubenodes_sink sink = { interfaces_page, interfaces_restart, c };
	struct http_client *client = NULL;
	char why[256] = "", err[512] = "";
	int r;

	r = http_client_new(&cfg, &client, why, sizeof(why));
	if (r == -ENOENT) {
		fprintf(stderr, "tcpxo-agent: interfaces: no API server configured (not in a cluster, no --api-server); "
			"or read kubectl get nodes -o json with --nodes-file F or -\n");
		return r;
	}
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: interfaces: API client: %s\n", why[0] ? why : strerror(-r));
		return r;
	}
	r = kubenodes_list(client, opt->selector, &sink, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: interfaces: %s\n", err[0] ? err : strerror(-r));
	http_client_free(client);
	return r;
}

static enum render_mapping_format interfaces_format(enum cli_format f)
{
	switch (f) {
	case CLI_FORMAT_FLAG: return RENDER_MAPPING_FLAG;
	case CLI_FORMAT_YAML: return RENDER_MAPPING_YAML;
	case CLI_FORMAT_JSON: return RENDER_MAPPING_JSON;
	case CLI_FORMAT_AICRCONFIG: return RENDER_MAPPING_AICRCONFIG;
	}
	return RENDER_MAPPING_FLAG;
}

int cmd_interfaces(const struct cli_options *opt)
{
	struct coherence_result res = { 0 };
	struct coherence *c = NULL;
	char err[512] = "", *mapping = NULL;
	int r, code = EXIT_UNKNOWN;

	if (coherence_new(opt->prefix, &c) < 0) {
		fprintf(stderr, "tcpxo-agent: interfaces: out of memory\n");
		return EXIT_UNKNOWN;
	}
	coherence_set_any_names(c, opt->any_network_names);
	r = opt->nodes_file ? interfaces_from_file(opt, c) : interfaces_from_api(opt, c);
	if (r < 0)
		goto out;
	r = coherence_evaluate(c, &res, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: interfaces: %s\n", err[0] ? err : strerror(-r));
		goto out;
	}
	fputs(res.diagnostics, stderr);
	if (!res.coherent) {
		/* GKE managed DRANET alone: no Network mapping exists; said on stderr, not a failure. */
		code = !res.n_tcpxo && res.n_dranet ? EXIT_READY : EXIT_NOT_READY;
		goto out;
	}
	r = render_mapping(res.ifaces, res.n_ifaces, interfaces_format(opt->format), &mapping);
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: interfaces: %s\n", strerror(-r));
		goto out;
	}
	if (fputs(mapping, stdout) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "tcpxo-agent: interfaces: writing the mapping: %s\n", strerror(errno));
		goto out;
	}
	code = EXIT_READY;
out:
	free(mapping);
	coherence_result_free(&res);
	coherence_free(c);
	return code;
}
