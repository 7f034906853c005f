/* check_daemon.c - daemon-args from the TCPXO daemon processes running on the node. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks.h"
#include "report/cmdline.h"
#include "report/strbuf.h"

#define CHECK_DAEMON_ARGV_SHOWN 160     /* bytes of each command line shown in a pass message */
#define CHECK_DAEMON_REMEDY \
	"fix the tcpxo-daemon container's command in the workload's pod spec: TCPXO expects " \
	"/fts/entrypoint_rxdm_container.sh --num_hops=2 and nothing retired"

int check_daemon_args(const struct observation *o, struct profile *p, struct check *c)
{
	const struct obs_procs *ps = &o->host.procs;
	struct strbuf warn = {0}, info = {0};
	size_t n_warn = 0, n_unreadable = 0;
	int r = 0;

	if (p->kind == PROFILE_NONE)
		return check_set(c, CHECK_SKIP, NULL, "no TCPX/TCPXO hardware");
	switch (ps->status.state) {
	case PROBE_NOT_RUN:
		return check_set(c, CHECK_SKIP, NULL, "daemon processes not observed");
	case PROBE_FAILED:
		return check_set(c, CHECK_SKIP, "mount the host's /proc into the agent (read-only)",
				 "daemon processes not observable: %s", ps->status.message);
	case PROBE_OK:
		break;
	}
	if (ps->n == 0)
		return check_set(c, CHECK_SKIP, NULL, "no TCPXO daemon running (normal on an idle node)");

	for (size_t i = 0; r == 0 && i < ps->n; i++) {
		const struct obs_process *pr = &ps->v[i];
		const char *const *argv = (const char *const *)pr->argv;
		enum cmdline_daemon kind = cmdline_daemon_kind(pr->comm, argv, pr->argc);
		const char *what = cmdline_daemon_name(kind) ? cmdline_daemon_name(kind) : pr->comm;
		struct strbuf f = {0};
		int n;

		if (pr->argc == 0) {
			n_unreadable++;
			r = strbuf_appendf(&info, "%spid %d %s: arguments unreadable%s%s", info.len ? "; " : "",
					   pr->pid, what, pr->cmdline_err ? ": " : "",
					   pr->cmdline_err ? strerror(-pr->cmdline_err) : "");
			continue;
		}
		n = cmdline_daemon_findings(argv, pr->argc, &f);
		if (n < 0 || f.oom) {
			strbuf_free(&f);
			r = -ENOMEM;
			break;
		}
		if (n > 0) {
			n_warn++;
			r = strbuf_appendf(&warn, "%spid %d %s: %s", warn.len ? "; " : "", pr->pid, what, f.s);
		} else {
			r = strbuf_appendf(&info, "%spid %d ", info.len ? "; " : "", pr->pid);
			if (r == 0)
				r = cmdline_format(argv, pr->argc, CHECK_DAEMON_ARGV_SHOWN, &info);
		}
		if (r == 0 && pr->cmdline_truncated)
			r = strbuf_append(n > 0 ? &warn : &info, " (command line truncated)");
		strbuf_free(&f);
	}
	if (r == 0 && ps->n_dropped)
		r = strbuf_appendf(&info, "%s%zu more daemon processes not examined", info.len ? "; " : "",
				   ps->n_dropped);
	if (r < 0 || warn.oom || info.oom) {
		r = -ENOMEM;
		goto out;
	}
	if (n_warn)
		r = check_set(c, CHECK_WARN, CHECK_DAEMON_REMEDY, "%s", warn.s);
	else if (n_unreadable == ps->n)
		r = check_set(c, CHECK_SKIP, NULL, "TCPXO daemon running, %s", info.s);
	else
		r = check_set(c, CHECK_PASS, NULL, "%zu TCPXO daemon process%s, arguments as expected: %s",
			      ps->n, ps->n == 1 ? "" : "es", info.s);
out:
	strbuf_free(&warn);
	strbuf_free(&info);
	return r;
}
