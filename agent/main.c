/* main.c - tcpxo-agent entry point: make fds 0-2 safe, parse the command line and dispatch. */
#include <stdio.h>

#include "agent/cli.h"
#include "agent/cli_help.h"
#include "agent/cmd.h"
#include "agent/kubesrc_api.h"
#include "agent/output.h"

/* A fleet command, reading the cluster with the agent's own API client (made when first needed). */
static int main_fleet(int (*cmd)(const struct cli_options *, struct kubesrc *), const struct cli_options *opt)
{
	struct kubesrc src;
	int code;

	if (kubesrc_api_open(opt, &src) < 0) {
		fprintf(stderr, "tcpxo-agent: out of memory\n");
		return EXIT_UNKNOWN;
	}
	code = cmd(opt, &src);
	kubesrc_close(&src);
	return code;
}

int main(int argc, char **argv)
{
	struct cli_options opt;
	int closed = output_guard_fds();

	if (closed < 0 || cli_parse(argc, argv, &opt) < 0)
		return EXIT_UNKNOWN;
	/* stdout closed at start: a report has nowhere to go (the daemon writes none). */
	if (closed && opt.cmd != CLI_CMD_DAEMON) {
		fprintf(stderr, "tcpxo-agent: standard output is closed: nowhere to write the report\n");
		return EXIT_UNKNOWN;
	}
	switch (opt.cmd) {
	case CLI_CMD_ONCE: return cmd_once(&opt);
	case CLI_CMD_DAEMON: return cmd_daemon(&opt);
	case CLI_CMD_INTERFACES: return main_fleet(cmd_interfaces, &opt);
	case CLI_CMD_HEALTH: return cmd_health(&opt);
	case CLI_CMD_CLEANUP: return cmd_cleanup(&opt);
	case CLI_CMD_WORKLOADS: return main_fleet(cmd_workloads, &opt);
	case CLI_CMD_RUNTIME: return main_fleet(cmd_runtime, &opt);
	case CLI_CMD_STATUS: return main_fleet(cmd_status, &opt);
	case CLI_CMD_HELP:
	case CLI_CMD_VERSION: return cli_help_run(&opt);
	case CLI_CMD__COUNT:
		break;
	}
	return EXIT_UNKNOWN;
}
