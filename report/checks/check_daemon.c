/* check_daemon.c - daemon-args from the GPUDirect daemon processes on the node and the pod specs that run them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/cmdline.h"
#include "probes/model/strbuf.h"
#include "report/checks/checks.h"
#include "report/checks/kubefacts.h"

#define CHECK_DAEMON_ARGV_SHOWN 160     /* bytes of each command line shown in a pass message */
#define CHECK_DAEMON_REMEDY_TCPXO \
	"fix the tcpxo-daemon container's command in the workload's pod spec: TCPXO expects " \
	"/fts/entrypoint_rxdm_container.sh --num_hops=2 and nothing retired"
#define CHECK_DAEMON_REMEDY_TCPX \
	"fix the tcpx-daemon container's command in the workload's pod spec: Google's A3 High manifests run " \
	"/tcpgpudmarxd/build/app/tcpgpudmarxd --gpu_nic_preset a3vm --gpu_shmem_type fd --uds_path /run/tcpx " \
	"--setup_param \"--verbose 128 2 0\""
#define CHECK_DAEMON_REMEDY_FATAL \
	"remove the flags named from the daemon container's command in the workload's pod spec: the daemon " \
	"exits at start on a flag it does not define (TCPXO expects /fts/entrypoint_rxdm_container.sh --num_hops=2)"

/* What the daemon command lines said, gathered over every process and pod spec. */
struct check_daemon_acc {
	struct strbuf fail, warn, info;
	size_t n_fail, n_warn;
	const char *remedy;             /* of the first worst finding */
	int worst;
	bool tcpxo, tcpx;               /* fabrics seen */
};

static const char *check_daemon_fabric_name(const struct check_daemon_acc *a)
{
	if (a->tcpx && !a->tcpxo)
		return "TCPX";
	if (a->tcpxo && !a->tcpx)
		return "TCPXO";
	return "GPUDirect";
}

/* Findings of one daemon command line (a process or a container spec) appended to @a. */
static int check_daemon_one(struct check_daemon_acc *a, const char *const *argv, size_t argc,
			    enum cmdline_fabric fabric, const char *version, const char *label,
			    const char *info_label, bool truncated)
{
	struct cmdline_findings f = { 0 };
	struct strbuf *sb;
	int n, worst, r;

	if (fabric == CMDLINE_FABRIC_TCPX)
		a->tcpx = true;
	else
		a->tcpxo = true;
	n = cmdline_daemon_findings(argv, argc, fabric, version, &f);
	if (n < 0)
		return -ENOMEM;
	worst = cmdline_findings_worst(&f);
	if (n == 0) {
		r = strbuf_appendf(&a->info, "%s%s ", a->info.len ? "; " : "", info_label);
		if (r == 0)
			r = cmdline_format(argv, argc, CHECK_DAEMON_ARGV_SHOWN, &a->info);
		if (r == 0 && truncated)
			r = strbuf_append(&a->info, " (command line truncated)");
		cmdline_findings_free(&f);
		return r;
	}
	sb = worst == CMDLINE_SEVERITY_FAIL ? &a->fail : &a->warn;
	if (worst == CMDLINE_SEVERITY_FAIL)
		a->n_fail++;
	else
		a->n_warn++;
	if (worst > a->worst) {
		a->worst = worst;
		a->remedy = worst == CMDLINE_SEVERITY_FAIL ? CHECK_DAEMON_REMEDY_FATAL :
			    fabric == CMDLINE_FABRIC_TCPX ? CHECK_DAEMON_REMEDY_TCPX : CHECK_DAEMON_REMEDY_TCPXO;
	}
	r = strbuf_appendf(sb, "%s%s: ", sb->len ? "; " : "", label);
	if (r == 0) {
		/* The fatal findings of a command line first: they are why the daemon does not run. */
		size_t mark = sb->len;

		r = cmdline_findings_join(&f, CMDLINE_SEVERITY_FAIL, sb) < 0 ? -ENOMEM : 0;
		for (size_t i = 0; r == 0 && i < f.n; i++)
			if (f.v[i].severity == CMDLINE_SEVERITY_WARN)
				r = strbuf_appendf(sb, "%s%s", sb->len > mark ? "; " : "", f.v[i].text);
	}
	if (r == 0 && truncated)
		r = strbuf_append(sb, " (command line truncated)");
	cmdline_findings_free(&f);
	return r;
}

/* The fabric whose rules a pod's daemon container follows: its image's folder, else the node's. */
static enum cmdline_fabric check_daemon_pod_fabric(const struct kube_container *kc, const struct profile *p)
{
	switch (kc->fabric) {
	case KUBE_FABRIC_TCPXO: return CMDLINE_FABRIC_TCPXO;
	case KUBE_FABRIC_TCPX: return CMDLINE_FABRIC_TCPX;
	case KUBE_FABRIC_UNKNOWN: break;
	}
	return p->kind == PROFILE_TCPX ? CMDLINE_FABRIC_TCPX : CMDLINE_FABRIC_TCPXO;
}

/* A daemon container spec worth judging: a command line, in a pod that has not ended. */
static bool check_daemon_spec(const struct obs_kube *k, const struct kube_container *kc)
{
	return kc->role == KUBE_IMAGE_DAEMON && kc->argc > 0 && !kubefacts_pod_ended(kubefacts_pod(k, kc));
}

int check_daemon_args(const struct observation *o, struct profile *p, struct finding *c)
{
	const struct obs_procs *ps = &o->host.procs;
	const struct obs_kube *k = o->kube;
	const char *kind = profile_fabric_name(p->kind);
	struct check_daemon_acc a = { 0 };
	size_t n_unreadable = 0, n_specs = 0, n_procs = 0;
	int r = 0;

	if (ps->status.state == PROBE_OK)
		n_procs = ps->n;
	if (k->pods_fetch.state == KUBE_FETCH_OK)
		for (size_t i = 0; i < k->n_containers; i++)
			n_specs += check_daemon_spec(k, &k->containers[i]);
	if (!n_procs && !n_specs) {
		if (ps->status.state == PROBE_FAILED)
			return finding_set(c, CHECK_SKIP, "mount the host's /proc into the agent (read-only)",
					 "daemon processes not observable: %s", ps->status.message);
		if (ps->status.state == PROBE_NOT_RUN && k->pods_fetch.state != KUBE_FETCH_OK)
			return finding_set(c, CHECK_SKIP, NULL, "daemon processes not observed");
		return finding_set(c, CHECK_SKIP, NULL, "no %s daemon running (normal on an idle node)", kind);
	}

	for (size_t i = 0; r == 0 && i < n_procs; i++) {
		const struct obs_process *pr = &ps->v[i];
		const char *const *argv = (const char *const *)pr->argv;
		enum cmdline_daemon dk = cmdline_daemon_kind(pr->comm, argv, pr->argc);
		const char *what = cmdline_daemon_name(dk) ? cmdline_daemon_name(dk) : pr->comm;
		char label[96], info_label[32];

		if (pr->argc == 0) {
			n_unreadable++;
			if (cmdline_daemon_fabric(dk) == CMDLINE_FABRIC_TCPX)
				a.tcpx = true;
			else
				a.tcpxo = true;
			r = strbuf_appendf(&a.info, "%spid %d %s: arguments unreadable%s%s", a.info.len ? "; " : "",
					   pr->pid, what, pr->cmdline_err ? ": " : "",
					   pr->cmdline_err ? strerror(-pr->cmdline_err) : "");
			continue;
		}
		snprintf(label, sizeof(label), "pid %d %s", pr->pid, what);
		snprintf(info_label, sizeof(info_label), "pid %d", pr->pid);
		/* A process does not say which release it is: the version-dependent rules say so. */
		r = check_daemon_one(&a, argv, pr->argc, cmdline_daemon_fabric(dk), NULL, label, info_label,
				     pr->cmdline_truncated);
	}
	/* The same argument rules on the pod specs: a daemon that exits at start has no process. */
	for (size_t i = 0; r == 0 && n_specs && i < k->n_containers; i++) {
		const struct kube_container *kc = &k->containers[i];
		char label[KUBE_NAME_MAX + 2 * KUBE_CNAME_MAX + 16];

		if (!check_daemon_spec(k, kc))
			continue;
		snprintf(label, sizeof(label), "pod %s/%s container %s", kc->ns, kc->pod, kc->name);
		r = check_daemon_one(&a, (const char *const *)kc->argv, kc->argc, check_daemon_pod_fabric(kc, p),
				     kubefacts_version_of(k, kc), label, label, false);
	}
	if (r == 0 && ps->n_dropped)
		r = strbuf_appendf(&a.info, "%s%zu more daemon processes not examined", a.info.len ? "; " : "",
				   ps->n_dropped);
	if (r < 0 || a.fail.oom || a.warn.oom || a.info.oom) {
		r = -ENOMEM;
		goto out;
	}
	if (a.n_fail)
		r = finding_set(c, CHECK_FAIL, a.remedy, "%s%s%s", a.fail.s, a.warn.len ? "; " : "",
			      a.warn.s ? a.warn.s : "");
	else if (a.n_warn)
		r = finding_set(c, CHECK_WARN, a.remedy, "%s", a.warn.s);
	else if (!n_specs && n_unreadable == n_procs)
		r = finding_set(c, CHECK_SKIP, NULL, "%s daemon running, %s", check_daemon_fabric_name(&a), a.info.s);
	else
		r = finding_set(c, CHECK_PASS, NULL, "%zu %s daemon command line%s as expected: %s",
			      n_procs + n_specs - n_unreadable, check_daemon_fabric_name(&a),
			      n_procs + n_specs - n_unreadable == 1 ? "" : "s", a.info.s);
out:
	strbuf_free(&a.fail);
	strbuf_free(&a.warn);
	strbuf_free(&a.info);
	return r;
}
