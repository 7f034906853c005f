/* cmdline.h - /proc/<pid>/cmdline splitting and GPUDirect daemon argument findings (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/strbuf.h"

enum cmdline_daemon {
	CMDLINE_NOT_DAEMON = 0,
	CMDLINE_DAEMON_MANAGER,         /* /fts/fastrak_gpumem_manager (comm "fastrak_gpumem_") */
	CMDLINE_DAEMON_ENTRYPOINT,      /* /fts/entrypoint_rxdm_container.sh, directly or via a shell */
	CMDLINE_DAEMON_TCPX,            /* /tcpgpudmarxd/build/app/tcpgpudmarxd (comm "tcpgpudmarxd") */
};

/*
 * cmdline_comm_candidate() - whether a process with this comm may be a GPUDirect daemon, so its
 * cmdline is worth reading: the TCPXO manager, its entrypoint script, a shell running it, or
 * the TCPX daemon.
 */
bool cmdline_comm_candidate(const char *comm);

/**
 * cmdline_split() - split the bytes of a cmdline file into arguments.
 * @buf, @len: the bytes read (at most what the caller bounded its read to).
 * @max_args: arguments kept; later ones are dropped and reported as truncated.
 * @ret_argv: written on success: @ret_argc malloc'd strings in a malloc'd array (NULL when
 *            there are none); free with strbuf_strv_free().
 * @ret_truncated: set to true when arguments were dropped, untouched otherwise.
 *
 * Arguments are NUL-separated; a final NUL ends the last one. A cmdline without any NUL is a
 * title the process rewrote (setproctitle): it is split on blanks instead.
 *
 * Return: 0 or -ENOMEM.
 */
int cmdline_split(const char *buf, size_t len, size_t max_args, char ***ret_argv, size_t *ret_argc,
		  bool *ret_truncated);

/* Which daemon process (if any) @comm and @argv describe. */
enum cmdline_daemon cmdline_daemon_kind(const char *comm, const char *const *argv, size_t argc);

const char *cmdline_daemon_name(enum cmdline_daemon d);        /* NULL for NOT_DAEMON */

/* Which daemon a command line belongs to: the flags each one takes differ. */
enum cmdline_fabric {
	CMDLINE_FABRIC_TCPXO = 0,       /* RxDM: /fts/entrypoint_rxdm_container.sh, fastrak_gpumem_manager */
	CMDLINE_FABRIC_TCPX,            /* tcpgpudmarxd: /tcpgpudmarxd/build/app/tcpgpudmarxd */
};

/* The fabric a daemon kind belongs to (TCPX for CMDLINE_DAEMON_TCPX, else TCPXO). */
enum cmdline_fabric cmdline_daemon_fabric(enum cmdline_daemon d);

enum cmdline_severity {
	CMDLINE_SEVERITY_WARN = 1,      /* the daemon runs; the flag is useless or its effect unknown */
	CMDLINE_SEVERITY_FAIL,          /* the daemon cannot run with this command line */
};

struct cmdline_finding {
	enum cmdline_severity severity;
	char *text;                     /* one sentence an operator can act on; host values escaped */
};

/* Findings in the order they were found. Zero-initialise; free with cmdline_findings_free(). */
struct cmdline_findings {
	struct cmdline_finding *v;
	size_t n;
};

/**
 * cmdline_daemon_findings() - what is wrong with a GPUDirect daemon's command line.
 * @argv, @argc: the daemon's arguments; argv[0] (the program) is not examined. The same
 *               function serves a process's cmdline and a pod spec's command + args.
 * @fabric:  whose rules apply: the TCPXO daemon (RxDM) or the TCPX daemon (tcpgpudmarxd). The
 *           caller knows it from the image's folder (gpudirect-tcpxo/ or gpudirect-tcpx/), else
 *           from the node's profile.
 * @version: the daemon's release as its image names it ("v1.0.21", "v1.0.13_1"), or NULL / ""
 *           when unknown (a process seen in /proc, a digest the release table does not know).
 * @out:     findings are appended (it may already hold some).
 *
 * TCPXO: --num_nics (retired in v1.0.20), --uid and --alsologtostderr (retired in v1.0.18: the
 * open-source RxDM declares all three ABSL_RETIRED_FLAG: accepted, no effect) are warnings at
 * those versions and later, or when the version is unknown; --num_hops other than 2 or without
 * a value is a warning; --enforce_kernel_ipv6_support (or --no...) is a FAILURE at v1.0.18 and
 * later (no such flag, and the flag parser exits on unknown flags), a warning that says so when
 * the version is unknown, nothing before v1.0.18 (Google's startup script set it then).
 * TCPX: --gpu_nic_preset missing or not a3vm (manual needs --gpu_nic_topology), --gpu_shmem_type
 * missing or not fd, --uds_path missing, and TCPXO's own flags are warnings.
 * Flags take one or two dashes and "=value" or a following value, as gflags does; "--" ends the
 * flags. When argv[0] is a shell (sh, bash, dash, ash), the script after "-c" is split on blanks
 * and examined the same way (quoting is not interpreted).
 *
 * Return: the number of findings appended (0 when none), or -ENOMEM (@out keeps what it had).
 */
int cmdline_daemon_findings(const char *const *argv, size_t argc, enum cmdline_fabric fabric,
			    const char *version, struct cmdline_findings *out);

/* Free the findings' texts and array; leaves @f empty. Accepts NULL. */
void cmdline_findings_free(struct cmdline_findings *f);

/* The worst severity among @f's findings, or 0 when there are none. */
int cmdline_findings_worst(const struct cmdline_findings *f);

/*
 * cmdline_findings_join() - append the texts of the findings at @min_severity or worse to @out,
 * "; " between them (none before the first: the caller separates them from what @out holds).
 * Return: how many were appended, or -ENOMEM.
 */
int cmdline_findings_join(const struct cmdline_findings *f, enum cmdline_severity min_severity,
			  struct strbuf *out);

/*
 * cmdline_format() - append argv as one line, each argument escaped with obs_host_quote(), at most
 * @max_bytes of it (then "..."). Return: 0 or -ENOMEM.
 */
int cmdline_format(const char *const *argv, size_t argc, size_t max_bytes, struct strbuf *out);
