/* cmd.h - the commands (agent/cmd_*.c), each run with parsed options; main.c dispatches to them. */
#pragma once

#include "agent/cli.h"

/* Each returns the process exit code (EXIT_READY, EXIT_NOT_READY, EXIT_UNKNOWN). */
int cmd_once(const struct cli_options *opt);
int cmd_daemon(const struct cli_options *opt);
int cmd_interfaces(const struct cli_options *opt);
int cmd_health(const struct cli_options *opt);
int cmd_cleanup(const struct cli_options *opt);
int cmd_workloads(const struct cli_options *opt);
int cmd_runtime(const struct cli_options *opt);
int cmd_status(const struct cli_options *opt);
