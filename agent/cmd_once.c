/* cmd_once.c - `tcpxo-agent --once`: observe, evaluate, print, exit with the verdict. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/observe.h"
#include "report/profile.h"
#include "report/render.h"

int cmd_once(const struct cli_options *opt)
{
	struct observation o;
	struct profile p;
	int observed, code;

	observed = observe_node(opt, &o);
	if (profile_evaluate(&o, &p) < 0) {
		fprintf(stderr, "tcpxo-agent: out of memory while evaluating the observation\n");
		observation_free(&o);
		return EXIT_UNKNOWN;
	}
	if (opt->json) {
		char *text = render_json(&o, &p);

		if (!text) {
			fprintf(stderr, "tcpxo-agent: out of memory while rendering JSON\n");
			code = EXIT_UNKNOWN;
			goto out;
		}
		fputs(text, stdout);
		free(text);
	} else {
		render_human(&o, &p, stdout);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "tcpxo-agent: writing the report failed: %s\n", strerror(errno));
		code = EXIT_UNKNOWN;
		goto out;
	}
	if (o.pci.status.state != PROBE_OK)
		fprintf(stderr, "tcpxo-agent: PCI probe failed: %s\n", o.pci.status.message);
	if (o.links.status.state != PROBE_OK)
		fprintf(stderr, "tcpxo-agent: links probe failed: %s\n", o.links.status.message);
	/* A node whose PCI bus or links could not be read is unknown, not "not ready". */
	code = observed < 0 ? EXIT_UNKNOWN : p.ready ? EXIT_READY : EXIT_NOT_READY;
out:
	profile_free(&p);
	observation_free(&o);
	return code;
}
