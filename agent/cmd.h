/* cmd.h - the commands (agent/cmd_*.c), each run with parsed options; main.c (and fabric/main.c) dispatch to them. */
#pragma once

#include "agent/cli.h"

struct kubesrc;

/* Each returns the process exit code (EXIT_READY, EXIT_NOT_READY, EXIT_UNKNOWN). */
int cmd_once(const struct cli_options *opt);
int cmd_daemon(const struct cli_options *opt);
int cmd_health(const struct cli_options *opt);
int cmd_cleanup(const struct cli_options *opt);

/*
 * The fleet commands: what they read of the cluster comes from @src (agent/kubesrc.h) unless a
 * file option names it. Portable: kubectl-fabric runs them too (fabric/main.c).
 */
int cmd_interfaces(const struct cli_options *opt, struct kubesrc *src);
int cmd_runtime(const struct cli_options *opt, struct kubesrc *src);
int cmd_status(const struct cli_options *opt, struct kubesrc *src);
/* workloads over a published node: --node's pods judged against what it published (--nodes-file, or @src). */
int cmd_workloads_published(const struct cli_options *opt, struct kubesrc *src);

/* workloads on this node (the host under --root); with --nodes-file, cmd_workloads_published(). */
int cmd_workloads(const struct cli_options *opt, struct kubesrc *src);
