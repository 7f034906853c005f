/* check_versions.c - the version-pair check: installer and daemon releases per fabric, daemons that do not run. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/cmdline.h"
#include "probes/kube/imageref.h"
#include "probes/model/strbuf.h"
#include "report/checks/checks.h"
#include "report/checks/kubefacts.h"
#include "report/checks/releases.h"

static int check_kube_strcmp_version(const void *a, const void *b)
{
	return imageref_version_cmp(*(char *const *)a, *(char *const *)b);
}

static void check_kube_free_daemons(struct profile *p)
{
	for (size_t i = 0; i < p->n_daemons; i++)
		free(p->daemons[i]);
	free(p->daemons);
	p->daemons = NULL;
	p->n_daemons = 0;
}

/*
 * A daemon container that does not run: waiting for a reason other than starting up
 * (CrashLoopBackOff, ImagePullBackOff, ...), terminated non-zero, or running again after a
 * non-zero exit. Its pod, reason, exit code and restart count go into @a as a failure.
 */
static int check_kube_daemon_failed(struct finding_acc *a, const struct kube_container *ct,
				    const struct pod_container *pc, struct strbuf *remedy, size_t n_failed)
{
	struct strbuf why = { 0 };

	if (kubefacts_run_text(pc, &why) < 0)
		return -ENOMEM;
	finding_acc_add(a, CHECK_FAIL, NULL, "daemon %s/%s container %s does not run: %s", ct->ns, ct->pod,
		       ct->name, why.s ? why.s : "");
	strbuf_free(&why);
	if (n_failed == 0)
		strbuf_appendf(remedy, "see why with kubectl -n %s logs %s -c %s --previous (a flag the daemon does "
			       "not take stops it at start: see daemon-args; without the host /sys it finds no GPU)",
			       ct->ns, ct->pod, ct->name);
	return remedy->oom ? -ENOMEM : 0;
}

/* What check_version_pair() gathers, phase by phase, and what it says. */
struct check_kube_pair {
	const struct obs_kube *k;
	const struct releases *t;
	struct profile *p;
	unsigned procs;                 /* daemon manager processes in /proc (each daemon once) */
	struct finding_acc a;
	struct strbuf installers;       /* the distinct installer releases, ", "-joined */
	struct strbuf remedy;           /* the daemon pods to upgrade */
	struct strbuf fail_remedy;      /* how to see why a daemon does not run */
	const char *installer, *expected;
	enum releases_fabric fabric;
	size_t n_inst, n_running, n_unknown, n_bad_pods, n_failed, n_starting;
	bool installer_unknown_digest;
};

/* A daemon container of a pod that has not ended. */
static bool check_kube_live_daemon(const struct obs_kube *k, const struct kube_container *ct)
{
	return ct->role == KUBE_IMAGE_DAEMON && !kubefacts_pod_ended(kubefacts_pod(k, ct));
}

/* How a daemon container is doing: from its pod's status, else from the running flag alone. */
static enum kubefacts_run check_kube_daemon_run(const struct obs_kube *k, const struct kube_container *ct)
{
	const struct pod_container *pc = kubefacts_container(k, ct);

	return pc ? kubefacts_run(pc) : ct->running ? KUBEFACTS_RUN_RUNNING : KUBEFACTS_RUN_UNKNOWN;
}

/* An installer container of a pod that has not ended. */
static bool check_kube_live_installer(const struct obs_kube *k, const struct kube_container *ct)
{
	return kubefacts_is_installer(k, ct) && !kubefacts_pod_ended(kubefacts_pod(k, ct));
}

/*
 * Installer: every distinct release among the installer DaemonSet's init containers. Other
 * containers running the plugin image (NCCL test pods) are workloads: they never count.
 */
static void check_kube_pair_installers(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;

	for (size_t i = 0; i < k->n_containers; i++) {
		const struct kube_container *ct = &k->containers[i];
		const char *ver;
		bool seen = false;

		if (!check_kube_live_installer(k, ct))
			continue;
		ver = kubefacts_version_of(k, ct);
		if (!ver[0]) {
			s->installer_unknown_digest = true;
			continue;
		}
		for (size_t j = 0; j < i && !seen; j++)
			if (check_kube_live_installer(k, &k->containers[j]) &&
			    imageref_version_equal(kubefacts_version_of(k, &k->containers[j]), ver))
				seen = true;
		if (seen)
			continue;
		strbuf_appendf(&s->installers, "%s%s", s->n_inst ? ", " : "", ver);
		if (!s->n_inst) {
			s->installer = ver;
			s->fabric = kubefacts_fabric(ct, s->p->kind);
		}
		s->n_inst++;
	}
}

/* Daemons: the distinct releases of the running ones; one that does not run is a failure. Return: 0, -ENOMEM. */
static int check_kube_pair_daemons(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;
	struct profile *p = s->p;

	p->daemons = calloc(k->n_containers ? k->n_containers : 1, sizeof(*p->daemons));
	if (!p->daemons)
		return -ENOMEM;
	for (size_t i = 0; i < k->n_containers; i++) {
		const struct kube_container *ct = &k->containers[i];
		enum kubefacts_run run;
		const char *ver;
		bool seen = false;

		if (!check_kube_live_daemon(k, ct))
			continue;
		run = check_kube_daemon_run(k, ct);
		if (run == KUBEFACTS_RUN_FAILED) {
			if (check_kube_daemon_failed(&s->a, ct, kubefacts_container(k, ct), &s->fail_remedy,
						     s->n_failed) < 0)
				return -ENOMEM;
			s->n_failed++;
			continue;
		}
		if (run == KUBEFACTS_RUN_STARTING)
			s->n_starting++;
		if (run != KUBEFACTS_RUN_RUNNING)
			continue;
		s->n_running++;
		ver = kubefacts_version_of(k, ct);
		if (!ver[0]) {
			s->n_unknown++;
			continue;
		}
		for (size_t j = 0; j < p->n_daemons && !seen; j++)
			seen = strcmp(p->daemons[j], ver) == 0;
		if (seen)
			continue;
		p->daemons[p->n_daemons] = strdup(ver);
		if (!p->daemons[p->n_daemons])
			return -ENOMEM;
		p->n_daemons++;
	}
	if (p->n_daemons > 1)
		qsort(p->daemons, p->n_daemons, sizeof(*p->daemons), check_kube_strcmp_version);
	return 0;
}

/* The one installer release, and the daemon it pairs with; why not when there is none. */
static void check_kube_pair_expected(struct check_kube_pair *s)
{
	struct profile *p = s->p;
	enum releases_fabric fabric = s->fabric;

	if (s->n_inst > 1) {
		finding_acc_add(&s->a, CHECK_WARN, fabric == RELEASES_FABRIC_TCPX ?
			       "let the nccl-tcpx-installer DaemonSet finish its rollout on this node" :
			       "let the nccl-tcpxo-installer DaemonSet finish its rollout on this node",
			       "installer pods disagree: %s", s->installers.s);
		s->installer = NULL;
	} else if (s->n_inst == 0) {
		finding_acc_add(&s->a, CHECK_WARN, fabric == RELEASES_FABRIC_TCPX ?
			       "check that the nccl-tcpx-installer DaemonSet runs on this node" :
			       "check that the nccl-tcpxo-installer DaemonSet runs on this node",
			       s->installer_unknown_digest ?
			       "installer version unknown: its image digest is not in the release table (%s)" :
			       "installer version unknown: no %s pod on this node (a DaemonSet pod labelled k8s-app=%s "
			       "whose init container %s runs nccl-plugin-gpudirecttcpx-dev)",
			       s->installer_unknown_digest ? s->t->source : releases_installer_name(fabric),
			       releases_installer_name(fabric), releases_installer_name(fabric));
	} else if (strlen(s->installer) >= sizeof(p->installer)) {
		finding_acc_add(&s->a, CHECK_WARN, NULL, "installer tag '%.40s...' is longer than %zu characters: not a release",
			       s->installer, sizeof(p->installer) - 1);
		s->installer = NULL;
	} else {
		const struct releases_row *row = releases_find_installer(s->t, fabric, s->installer);

		snprintf(p->installer, sizeof(p->installer), "%s", s->installer);
		s->expected = row ? row->daemon : NULL;
		if (s->expected)
			snprintf(p->expected_daemon, sizeof(p->expected_daemon), "%s", s->expected);
		if (row && row->unverified)
			finding_acc_add(&s->a, CHECK_WARN, "confirm the pair in Google's release notes, or pass --releases "
				       "FILE with a row for this installer",
				       "%s installer %s <-> daemon %s is an unverified row of the release table (%s): %s",
				       releases_fabric_upper(fabric), row->installer, row->daemon, s->t->source,
				       row->source ? row->source : "no source");
		if (!s->expected)
			finding_acc_add(&s->a, CHECK_WARN, "pass --releases FILE with a row for this installer",
				       "%s installer %s is not in the release table (%s): the daemon it pairs with is unknown",
				       releases_fabric_upper(fabric), s->installer, s->t->source);
	}
}

/* Every running daemon release that does not pair with the installer's, and the pods to fix in the remedy. */
static void check_kube_pair_mismatch(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;
	const char *expected = s->expected;

	for (size_t i = 0; i < s->p->n_daemons; i++)
		if (!imageref_version_equal(s->p->daemons[i], expected))
			finding_acc_add(&s->a, CHECK_FAIL, NULL, "daemon %s does not pair with installer %s (expects %s)",
				       s->p->daemons[i], s->installer, expected);
	for (size_t i = 0; i < k->n_containers && s->a.status == CHECK_FAIL; i++) {
		const struct kube_container *ct = &k->containers[i];
		const char *ver;

		if (!check_kube_live_daemon(k, ct) || check_kube_daemon_run(k, ct) != KUBEFACTS_RUN_RUNNING)
			continue;
		ver = kubefacts_version_of(k, ct);
		if (!ver[0] || imageref_version_equal(ver, expected))
			continue;
		if (s->n_bad_pods < 3)
			strbuf_appendf(&s->remedy, "%s%s/%s", s->n_bad_pods ? ", " : "", ct->ns, ct->pod);
		s->n_bad_pods++;
	}
	if (s->n_bad_pods) {
		if (s->n_bad_pods > 3)
			strbuf_appendf(&s->remedy, " and %zu more", s->n_bad_pods - 3);
		strbuf_appendf(&s->remedy, ": run tcpgpudmarxd-dev:%s as the %s container "
			       "(upgrade the installer first, then the daemon)", expected, releases_daemon_name(s->fabric));
	}
}

/* The remedy of the failures, and the warnings about daemons of unknown version. Return: 0, -ENOMEM. */
static int check_kube_pair_remedy(struct check_kube_pair *s)
{
	unsigned procs = s->procs;

	if (s->n_failed) {
		/* A daemon that does not run is why a workload fails now: its remedy comes first. */
		if (s->remedy.len)
			strbuf_appendf(&s->fail_remedy, "; %s", s->remedy.s);
		if (s->fail_remedy.oom)
			return -ENOMEM;
		free(s->a.remedy);
		s->a.remedy = NULL;
		if (s->fail_remedy.s && !(s->a.remedy = strdup(s->fail_remedy.s)))
			return -ENOMEM;
	} else if (s->n_bad_pods) {
		if (s->remedy.oom)
			return -ENOMEM;
		free(s->a.remedy);
		s->a.remedy = NULL;
		if (s->remedy.s && !(s->a.remedy = strdup(s->remedy.s)))
			return -ENOMEM;
	}
	if (s->n_unknown)
		finding_acc_add(&s->a, CHECK_WARN, "use tagged daemon images, or a --releases file with their digests",
			       "%zu running daemon%s of unknown version (digest not in the release table)",
			       s->n_unknown, s->n_unknown == 1 ? "" : "s");
	if (procs > s->n_running)
		finding_acc_add(&s->a, CHECK_WARN, "find the process with: ps -e -o pid,comm | grep fastrak_gpumem_",
			       "%u daemon process%s in /proc, but %zu running daemon container%s in this node's pods: "
			       "version unknown", procs, procs == 1 ? "" : "es", s->n_running, s->n_running == 1 ? "" : "s");
	return 0;
}

/*
 * The pods that could not be read and cannot run the installer or the daemon (no image of theirs
 * under the spec, or the pod has ended), named: the versions stand; a warning.
 */
static void check_kube_pair_aside(struct check_kube_pair *s)
{
	const struct obs_kube *k = s->k;
	size_t named = k->n_aside < KUBE_ASIDE_NAMED ? k->n_aside : KUBE_ASIDE_NAMED, shown = 0, others = k->n_aside;

	for (size_t i = 0; i < named; i++) {
		const struct kube_pod_aside *a = &k->aside[i];

		if (a->ours)
			others--;       /* named by check_kube_pair_unknown() */
		if (a->ours || shown++ >= 3)
			continue;
		if (a->name[0])
			finding_acc_add(&s->a, CHECK_WARN, "see why the API server holds such a pod: kubectl get pod -o json",
				       "pod %s/%s could not be read (%s): set aside, it runs neither the installer nor the daemon",
				       a->ns, a->name, a->why);
		else
			finding_acc_add(&s->a, CHECK_WARN, "see why the API server holds such a pod: kubectl get pod -o json",
				       "pod items[%zu] could not be read (%s): set aside, it runs neither the installer nor "
				       "the daemon", a->item, a->why);
	}
	if (others > shown)
		finding_acc_add(&s->a, CHECK_WARN, NULL, "%zu more pods could not be read: set aside", others - shown);
}

/*
 * A pod that could not be read and may run the installer or the daemon (one of their images under
 * a spec that has not ended): its version is unknown, so a verdict that does not fail on what was
 * read cannot vouch for it: @c becomes "unknown" (skip), naming the pod, what was read kept after
 * it. A failure stands (what was read is evidence enough). The node is judged and published
 * either way. Return: 0; -ENOMEM.
 */
static int check_kube_pair_unknown(const struct obs_kube *k, struct finding *c)
{
	const struct kube_pod_aside *a = obs_kube_aside_ours(k);
	char item[32], *was;
	int r;

	if (!a || c->status == CHECK_FAIL)
		return 0;
	snprintf(item, sizeof(item), "items[%zu]", a->item);
	was = c->message ? strdup(c->message) : NULL;
	if (c->message && !was)
		return -ENOMEM;
	r = finding_set(c, CHECK_SKIP, "see why the API server holds such a pod: kubectl get pod -o json",
		      "unknown: pod %s%s%s could not be read (%s), and it may run the installer or the daemon: its "
		      "version is unknown%s%s", a->name[0] ? a->ns : "", a->name[0] ? "/" : "", a->name[0] ? a->name : item,
		      a->why, was && *was ? "; " : "", was ? was : "");
	free(was);
	return r;
}

/* The daemon processes /proc shows: the manager of each (comm "fastrak_gpumem_"), not its threads or children. */
static unsigned check_kube_daemon_processes(const struct obs_procs *procs)
{
	unsigned n = 0;

	for (size_t i = 0; i < procs->n; i++)
		if (cmdline_daemon_kind(procs->v[i].comm, (const char *const *)procs->v[i].argv, procs->v[i].argc) ==
		    CMDLINE_DAEMON_MANAGER)
			n++;
	return n;
}

int check_version_pair(const struct observation *o, struct profile *p, struct finding *c)
{
	struct check_kube_pair s = {
		.k = o->kube, .t = kubefacts_releases(o->kube), .p = p,
		.procs = check_kube_daemon_processes(&o->host.procs),
		.fabric = p->kind == PROFILE_TCPX ? RELEASES_FABRIC_TCPX : RELEASES_FABRIC_TCPXO,
	};
	char pass[256];
	int r;

	check_kube_free_daemons(p);
	p->installer[0] = '\0';
	p->expected_daemon[0] = '\0';
	check_kube_pair_installers(&s);
	r = check_kube_pair_daemons(&s);
	if (r == 0) {
		check_kube_pair_expected(&s);
		if (s.expected)
			check_kube_pair_mismatch(&s);
		r = check_kube_pair_remedy(&s);
		check_kube_pair_aside(&s);
	}
	if (r < 0) {
		check_kube_free_daemons(p);
	} else if (s.n_running == 0 && s.a.status < CHECK_WARN) {
		r = finding_set(c, CHECK_SKIP, NULL, "no daemon running: workloads must run daemon %s with installer %s%s",
			      s.expected ? s.expected : "?", s.installer ? s.installer : "?",
			      s.n_starting ? " (a daemon container is starting)" : "");
	} else {
		if (s.expected && p->n_daemons)
			snprintf(pass, sizeof(pass), "installer %s and daemon %s pair (%zu running)", s.installer,
				 s.expected, s.n_running);
		else
			snprintf(pass, sizeof(pass), "installer %s", s.installer ? s.installer : "unknown");
		r = finding_acc_finish(&s.a, c, "%s", pass);
	}
	if (r >= 0)
		r = check_kube_pair_unknown(s.k, c);
	finding_acc_free(&s.a);
	strbuf_free(&s.installers);
	strbuf_free(&s.remedy);
	strbuf_free(&s.fail_remedy);
	return r;
}
