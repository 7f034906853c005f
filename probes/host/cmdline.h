/* cmdline.h - /proc/<pid>/cmdline splitting and TCPXO daemon argument findings (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/strbuf.h"

enum cmdline_daemon {
	CMDLINE_NOT_DAEMON = 0,
	CMDLINE_DAEMON_MANAGER,         /* /fts/fastrak_gpumem_manager (comm "fastrak_gpumem_") */
	CMDLINE_DAEMON_ENTRYPOINT,      /* /fts/entrypoint_rxdm_container.sh, directly or via a shell */
};

/*
 * cmdline_comm_candidate() - whether a process with this comm may be a TCPXO daemon, so its
 * cmdline is worth reading: the manager, the entrypoint script, or a shell running it.
 */
bool cmdline_comm_candidate(const char *comm);

/**
 * cmdline_split() - split the bytes of a cmdline file into arguments.
 * @buf, @len: the bytes read (at most what the caller bounded its read to).
 * @max_args: arguments kept; later ones are dropped and reported as truncated.
 * @ret_argv: written on success: @ret_argc malloc'd strings in a malloc'd array (NULL when
 *            there are none); free with cmdline_argv_free().
 * @ret_truncated: set to true when arguments were dropped, untouched otherwise.
 *
 * Arguments are NUL-separated; a final NUL ends the last one. A cmdline without any NUL is a
 * title the process rewrote (setproctitle): it is split on blanks instead.
 *
 * Return: 0 or -ENOMEM.
 */
int cmdline_split(const char *buf, size_t len, size_t max_args, char ***ret_argv, size_t *ret_argc,
		  bool *ret_truncated);

void cmdline_argv_free(char **argv, size_t argc);

/* Which TCPXO daemon process (if any) @comm and @argv describe. */
enum cmdline_daemon cmdline_daemon_kind(const char *comm, const char *const *argv, size_t argc);

const char *cmdline_daemon_name(enum cmdline_daemon d);        /* NULL for NOT_DAEMON */

/**
 * cmdline_daemon_findings() - what is wrong with a TCPXO daemon's arguments.
 * @argv, @argc: the daemon's arguments; argv[0] (the program) is not examined. The same
 *               function serves a process's cmdline and a pod spec's command + args.
 * @out: each finding is appended as one sentence an operator can act on, "; "-separated.
 *
 * Findings: --num_nics (retired in daemon v1.0.20: accepted, no effect), --num_hops other
 * than 2 or without a value, --enforce_kernel_ipv6_support in any form (absent from daemons
 * >= v1.0.18, believed to stop them at start). Flags take one or two dashes and "=value" or
 * a following value, as gflags does; "--" ends the flags. When argv[0] is a shell (sh, bash,
 * dash), the script after "-c" is split on blanks and examined the same way.
 *
 * Return: the number of findings (0 when none), or -ENOMEM.
 */
int cmdline_daemon_findings(const char *const *argv, size_t argc, struct strbuf *out);

/*
 * cmdline_format() - append argv as one line, each argument escaped with obs_host_quote(), at most
 * @max_bytes of it (then "..."). Return: 0 or -ENOMEM.
 */
int cmdline_format(const char *const *argv, size_t argc, size_t max_bytes, struct strbuf *out);
