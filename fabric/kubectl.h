/* kubectl.h - kubectl fabric's cluster: the user's kubectl, run once per read, its global flags passed as typed. */
#pragma once

#include <stddef.h>
#include <sys/types.h>

#include "agent/cli.h"
#include "agent/kubesrc.h"

#define KUBECTL_STDERR_MAX ((size_t)64 << 10)  /* kubectl's messages kept (the first bytes) */

/* One kubectl run. */
struct kubectl_run {
	char *out;                      /* owned: its stdout, NUL-terminated */
	size_t len;
	char err[2048];                 /* the start of its stderr, printable, one line ("" when passed through) */
	int exit_code;                  /* its exit status; 128 + N when killed by signal N; -1 not run */
};

/**
 * kubectl_exec() - run @bin (looked up on PATH) with @argv (argv[0] included, NULL-terminated),
 * reading its stdout (at most @max bytes: beyond, it is stopped) and, unless @pass_stderr, its
 * stderr at once (so neither pipe can fill and stall it); stdin is shared.
 * @ret: filled in every case; free ret->out.
 * Return: 0 when it ran and exited 0; -ENOENT when @bin is not found; -EFBIG when its output
 * passed @max; -EIO when it exited otherwise (ret->exit_code, ret->err); another -errno.
 */
int kubectl_exec(const char *bin, char *const argv[], size_t max, bool pass_stderr, struct kubectl_run *ret);

/**
 * kubectl_open() - @ret reads the cluster by running $KUBECTL (default kubectl) with
 * opt->kubectl_args before each command: get nodes (-l S, or --field-selector
 * metadata.name=NODE), get pods --all-namespaces --field-selector spec.nodeName=NODE, get
 * clustertrainingruntimes.trainer.kubeflow.org NAME, get networks.networking.gke.io, each -o json.
 * With -v, kubectl's stderr is the user's. Close with kubesrc_close().
 * Return: 0; -ENOMEM.
 */
int kubectl_open(const struct cli_options *opt, struct kubesrc *ret);
