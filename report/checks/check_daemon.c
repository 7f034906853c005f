/* check_daemon.c - daemon-args from the TCPXO daemon processes on the node and the pod specs that run them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/cmdline.h"
#include "probes/model/strbuf.h"
#include "report/checks/checks.h"

#define CHECK_DAEMON_ARGV_SHOWN 160     /* bytes of each command line shown in a pass message */
#define CHECK_DAEMON_REMEDY \
	"fix the tcpxo-daemon container's command in the workload's pod spec: TCPXO expects " \
	"/fts/entrypoint_rxdm_container.sh --num_hops=2 and nothing retired"

/* Findings of one daemon command line (a process or a container spec) appended to @warn or @info. */
static int check_daemon_one(const char *const *argv, size_t argc, const char *label, const char *info_label,
			    bool truncated, struct strbuf *warn, struct strbuf *info, size_t *n_warn)
{
	struct strbuf f = {0};
	int n, r;

	n = cmdline_daemon_findings(argv, argc, &f);
	if (n < 0 || f.oom) {
		strbuf_free(&f);
		return -ENOMEM;
	}
	if (n > 0) {
		(*n_warn)++;
		r = strbuf_appendf(warn, "%s%s: %s", warn->len ? "; " : "", label, f.s);
	} else {
		r = strbuf_appendf(info, "%s%s ", info->len ? "; " : "", info_label);
		if (r == 0)
			r = cmdline_format(argv, argc, CHECK_DAEMON_ARGV_SHOWN, info);
	}
	if (r == 0 && truncated)
		r = strbuf_append(n > 0 ? warn : info, " (command line truncated)");
	strbuf_free(&f);
	return r;
}

int check_daemon_args(const struct observation *o, struct profile *p, struct check *c)
{
	const struct obs_procs *ps = &o->host.procs;
	const struct obs_kube *k = &o->kube;
	struct strbuf warn = {0}, info = {0};
	size_t n_warn = 0, n_unreadable = 0, n_specs = 0, n_procs = 0;
	int r = 0;

	if (p->kind == PROFILE_NONE)
		return check_set(c, CHECK_SKIP, NULL, "no TCPX/TCPXO hardware");
	if (ps->status.state == PROBE_OK)
		n_procs = ps->n;
	if (k->pods_fetch.state == KUBE_FETCH_OK)
		for (size_t i = 0; i < k->n_containers; i++)
			n_specs += k->containers[i].role == KUBE_IMAGE_DAEMON && k->containers[i].argc > 0;
	if (!n_procs && !n_specs) {
		if (ps->status.state == PROBE_FAILED)
			return check_set(c, CHECK_SKIP, "mount the host's /proc into the agent (read-only)",
					 "daemon processes not observable: %s", ps->status.message);
		if (ps->status.state == PROBE_NOT_RUN && k->pods_fetch.state != KUBE_FETCH_OK)
			return check_set(c, CHECK_SKIP, NULL, "daemon processes not observed");
		return check_set(c, CHECK_SKIP, NULL, "no TCPXO daemon running (normal on an idle node)");
	}

	for (size_t i = 0; r == 0 && i < n_procs; i++) {
		const struct obs_process *pr = &ps->v[i];
		const char *const *argv = (const char *const *)pr->argv;
		enum cmdline_daemon kind = cmdline_daemon_kind(pr->comm, argv, pr->argc);
		const char *what = cmdline_daemon_name(kind) ? cmdline_daemon_name(kind) : pr->comm;
		char label[96], info_label[32];

		if (pr->argc == 0) {
			n_unreadable++;
			r = strbuf_appendf(&info, "%spid %d %s: arguments unreadable%s%s", info.len ? "; " : "",
					   pr->pid, what, pr->cmdline_err ? ": " : "",
					   pr->cmdline_err ? strerror(-pr->cmdline_err) : "");
			continue;
		}
		snprintf(label, sizeof(label), "pid %d %s", pr->pid, what);
		snprintf(info_label, sizeof(info_label), "pid %d", pr->pid);
		r = check_daemon_one(argv, pr->argc, label, info_label, pr->cmdline_truncated, &warn, &info, &n_warn);
	}
	/* The same argument rules on the pod specs: a daemon that exits at start has no process. */
	for (size_t i = 0; r == 0 && n_specs && i < k->n_containers; i++) {
		const struct kube_container *kc = &k->containers[i];
		char label[KUBE_NAME_MAX + 2 * KUBE_CNAME_MAX + 16];

		if (kc->role != KUBE_IMAGE_DAEMON || kc->argc == 0)
			continue;
		snprintf(label, sizeof(label), "pod %s/%s container %s", kc->ns, kc->pod, kc->name);
		r = check_daemon_one((const char *const *)kc->argv, kc->argc, label, label, false, &warn, &info, &n_warn);
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
	else if (!n_specs && n_unreadable == n_procs)
		r = check_set(c, CHECK_SKIP, NULL, "TCPXO daemon running, %s", info.s);
	else
		r = check_set(c, CHECK_PASS, NULL, "%zu TCPXO daemon command line%s as expected: %s",
			      n_procs + n_specs - n_unreadable, n_procs + n_specs - n_unreadable == 1 ? "" : "s", info.s);
out:
	strbuf_free(&warn);
	strbuf_free(&info);
	return r;
}
