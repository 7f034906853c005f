/* nodesread.c - the NodeList a fleet command reads (--nodes-file or the API, page by page) into a coherence. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/infile.h"
#include "agent/nodesread.h"
#include "probes/kube/http.h"
#include "probes/kube/kubenodes.h"

#define NODESREAD_FILE_MAX ((size_t)256 << 20)        /* a NodeList of ~30,000 fat nodes */

static int nodesread_page(void *userdata, const char *body, size_t len, char **ret_continue, char *err,
			  size_t errlen)
{
	return coherence_add_nodelist(userdata, body, len, ret_continue, err, errlen);
}

static void nodesread_restart(void *userdata)
{
	coherence_reset(userdata);
}

static int nodesread_file(const struct cli_options *opt, struct coherence *c, const struct nodesread_words *w)
{
	char why[512] = "", err[512] = "", *text = NULL;
	size_t len = 0;
	int r;

	if (opt->selector) {
		fprintf(stderr, "tcpxo-agent: %s: --selector filters the API's node list; with --nodes-file, "
			"select the nodes with kubectl get nodes -l SELECTOR -o json\n", w->cmd);
		return -EINVAL;
	}
	r = infile_read_input(opt->nodes_file, NODESREAD_FILE_MAX, "NodeList", &text, &len, why, sizeof(why));
	if (r >= 0)
		r = coherence_add_nodelist(c, text, len, NULL, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: %s: %s%s: %s\n", w->cmd, w->file_label, infile_name(opt->nodes_file),
			why[0] ? why : err[0] ? err : strerror(-r));
	free(text);
	return r < 0 ? r : 0;
}

static int nodesread_api(const struct cli_options *opt, struct coherence *c, const struct nodesread_words *w)
{
	const struct http_config cfg = {
		.server = opt->api_server,
		.token_file = opt->token_file,
		.ca_file = opt->ca_file,
	};
	const struct kubenodes_sink sink = { nodesread_page, nodesread_restart, c };
	struct http_client *client = NULL;
	char why[256] = "", err[512] = "";
	int r;

	r = http_client_new(&cfg, &client, why, sizeof(why));
	if (r == -ENOENT) {
		fprintf(stderr, "tcpxo-agent: %s: no API server configured (not in a cluster, no --api-server); "
			"or read kubectl get nodes -o json with --nodes-file F or -%s\n", w->cmd, w->noapi_hint);
		return r;
	}
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: %s: API client: %s\n", w->cmd, why[0] ? why : strerror(-r));
		return r;
	}
	r = kubenodes_list(client, opt->selector, &sink, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: %s: %s\n", w->cmd, err[0] ? err : strerror(-r));
	http_client_free(client);
	return r < 0 ? r : 0;
}

int nodesread(const struct cli_options *opt, struct coherence *c, const struct nodesread_words *w)
{
	return opt->nodes_file ? nodesread_file(opt, c, w) : nodesread_api(opt, c, w);
}
