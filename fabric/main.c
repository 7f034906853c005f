/* main.c - kubectl-fabric: the fleet commands (status, interfaces, runtime, workloads NODE) on a workstation, reading the cluster with the user's kubectl. */
#include <stdio.h>

#include "agent/cli.h"
#include "agent/cli_help.h"
#include "agent/cmd.h"
#include "agent/output.h"
#include "fabric/kubectl.h"

/*
 * The same commands as tcpxo-agent's, from the same portable sources (agent/cmd_*.c, report/,
 * probes/model and the pure parsers): only where they read the cluster differs. kubectl does
 * the API: the user's kubeconfig, contexts and exec credential plugins work as they do for it.
 */
static int fabric_run(int (*cmd)(const struct cli_options *, struct kubesrc *), const struct cli_options *opt)
{
	struct kubesrc src;
	int code;

	if (kubectl_open(opt, &src) < 0) {
		fprintf(stderr, "kubectl-fabric: out of memory\n");
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

	if (closed < 0 || cli_parse_program(CLI_PROG_FABRIC, argc, argv, &opt) < 0)
		return EXIT_UNKNOWN;
	if (closed) {
		fprintf(stderr, "kubectl-fabric: standard output is closed: nowhere to write the report\n");
		return EXIT_UNKNOWN;
	}
	switch (opt.cmd) {
	case CLI_CMD_STATUS: return fabric_run(cmd_status, &opt);
	case CLI_CMD_INTERFACES: return fabric_run(cmd_interfaces, &opt);
	case CLI_CMD_RUNTIME: return fabric_run(cmd_runtime, &opt);
	case CLI_CMD_WORKLOADS: return fabric_run(cmd_workloads_published, &opt);
	case CLI_CMD_HELP:
	case CLI_CMD_VERSION: return cli_help_run(&opt);
	case CLI_CMD_DAEMON:
	case CLI_CMD_ONCE:
	case CLI_CMD_HEALTH:
	case CLI_CMD_CLEANUP:
	case CLI_CMD__COUNT:
		break;          /* the node's commands: cli_parse_program() refuses them here */
	}
	return EXIT_UNKNOWN;
}
