/* cmd_interfaces.c - `tcpxo-agent interfaces`: the TCPXO nodes' published mapping, checked, printed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/kubesrc.h"
#include "report/fleet/coherence.h"
#include "report/render/render_mapping.h"

static const enum render_mapping_format interfaces_format[] = {
	[CLI_FORMAT_FLAG] = RENDER_MAPPING_FLAG, [CLI_FORMAT_YAML] = RENDER_MAPPING_YAML,
	[CLI_FORMAT_JSON] = RENDER_MAPPING_JSON, [CLI_FORMAT_AICRCONFIG] = RENDER_MAPPING_AICRCONFIG,
};

int cmd_interfaces(const struct cli_options *opt, struct kubesrc *src)
{
	struct coherence_result res = { 0 };
	struct coherence *c = NULL;
	char err[512] = "", *mapping = NULL;
	int r, code = EXIT_UNKNOWN;

	if (coherence_new(opt->prefix, &c) < 0) {
		fprintf(stderr, "%s: interfaces: out of memory\n", opt->prog_name);
		return EXIT_UNKNOWN;
	}
	coherence_set_any_names(c, opt->any_network_names);
	r = kubesrc_nodes(src, opt, "interfaces", NULL, c);
	if (r < 0)
		goto out;
	r = coherence_evaluate(c, &res, err, sizeof(err));
	if (r < 0) {
		fprintf(stderr, "%s: interfaces: %s\n", opt->prog_name, err[0] ? err : strerror(-r));
		goto out;
	}
	fputs(res.diagnostics, stderr);
	if (!res.coherent) {
		/* GKE managed DRANET alone: no Network mapping exists; said on stderr, not a failure. */
		code = !res.n_tcpxo && res.n_dranet ? EXIT_READY : EXIT_NOT_READY;
		goto out;
	}
	r = render_mapping(res.ifaces, res.n_ifaces, interfaces_format[opt->format], &mapping);
	if (r < 0) {
		fprintf(stderr, "%s: interfaces: %s\n", opt->prog_name, strerror(-r));
		goto out;
	}
	if (fputs(mapping, stdout) < 0 || fflush(stdout) != 0) {
		fprintf(stderr, "%s: interfaces: writing the mapping: %s\n", opt->prog_name, strerror(errno));
		goto out;
	}
	code = EXIT_READY;
out:
	free(mapping);
	coherence_result_free(&res);
	coherence_free(c);
	return code;
}
