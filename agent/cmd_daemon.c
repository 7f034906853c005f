/* cmd_daemon.c - `tcpxo-agent` without --once: the DaemonSet agent (set up, then the loop). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/log.h"
#include "agent/loop.h"
#include "agent/publish.h"

int cmd_daemon(const struct cli_options *opt)
{
	struct publisher pb;
	int r;

	log_setup(opt->log_format, opt->verbose, opt->node, stderr);
	/* Bad --releases or API settings are a configuration error: exit 2 before anything runs. */
	if (publisher_open(opt, &pb) < 0)
		return EXIT_UNKNOWN;
	/* A node name is there: cli_parse() refuses a daemon without one (exit 2). */
	if (!pb.http && !opt->no_publish)
		log_emit(LOG_LEVEL_WARN, "no Kubernetes API configured: observing only", "why", pb.http_why, NULL);
	r = loop_run(opt, &pb);
	publisher_close(&pb);
	return r < 0 ? EXIT_UNKNOWN : 0;
}
