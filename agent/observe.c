/* observe.c - run every probe into one observation; one failing probe never drops the rest. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log.h"
#include "agent/observe.h"
#include "probes/host/cmdline.h"
#include "probes/host/hostprobe.h"
#include "probes/host/links.h"
#include "probes/host/pcitopo.h"
#include "probes/host/podcgroup.h"
#include "probes/host/podnet.h"

static bool observe_said_full_dump;

int observe_node(const struct cli_options *opt, struct observation *ret)
{
	struct observation *o = ret;
	struct links_stats ls;

	memset(o, 0, sizeof(*o));
	snprintf(o->root, sizeof(o->root), "%s", opt->root);
	if (opt->node)
		snprintf(o->node, sizeof(o->node), "%s", opt->node);
	if (pcitopo_scan(o->root, &o->pci) >= 0)
		o->pci.status.state = PROBE_OK;
	/* Only the links the PCI functions name: the cost does not grow with the pods' veths. */
	if (links_observe(&o->pci, &o->links, &ls) >= 0)
		o->links.status.state = PROBE_OK;
	if (ls.full_dump && !observe_said_full_dump) {
		observe_said_full_dump = true;  /* once per process: the kernel does not change */
		log_emit(LOG_LEVEL_DEBUG, "netlink: full dumps", "why", ls.full_dump, NULL);
	}
	/* Host files and processes: each part carries its own status; only -ENOMEM is fatal. */
	if (hostprobe_observe(o->root, &o->pci, &o->host) < 0)
		return -ENOMEM;
	/* version-pair warns when /proc shows more daemons than the pod list accounts for. */
	for (size_t i = 0; i < o->host.procs.n; i++) {
		const struct obs_process *p = &o->host.procs.v[i];

		if (cmdline_daemon_kind(p->comm, (const char *const *)p->argv, p->argc) == CMDLINE_DAEMON_MANAGER)
			o->kube.host_daemon_processes++;
	}
	if (o->pci.status.state != PROBE_OK || o->links.status.state != PROBE_OK)
		return -EIO;
	return 0;
}

/*
 * The process each pod's last sample read, tried first the next time (podnet checks its cgroup
 * again, so a pid reused by another process is never taken): the daemon's samples then read no
 * /proc listing at all. Process state, like observe_said_full_dump; one thread.
 */
static struct {
	char uid[OBS_TRANSPORT_UID_MAX];
	int pid;
} observe_transport_hints[OBS_TRANSPORT_PODS_MAX];
static size_t observe_transport_n_hints;

static int observe_transport_hint(const char *uid)
{
	for (size_t i = 0; i < observe_transport_n_hints; i++)
		if (strcmp(observe_transport_hints[i].uid, uid) == 0)
			return observe_transport_hints[i].pid;
	return 0;
}

static void observe_transport_remember(const struct obs_transport *t)
{
	observe_transport_n_hints = 0;
	for (size_t i = 0; i < t->n && i < OBS_TRANSPORT_PODS_MAX; i++) {
		if (!t->pods[i].pid)
			continue;
		memcpy(observe_transport_hints[observe_transport_n_hints].uid, t->pods[i].uid, OBS_TRANSPORT_UID_MAX);
		observe_transport_hints[observe_transport_n_hints++].pid = t->pods[i].pid;
	}
}

/* A pod whose transport is sampled: running here, with GPUs, and a uid the sample can hold. */
static bool observe_transport_wanted(const struct observation *o, const struct pod *p)
{
	return p->phase && strcmp(p->phase, "Running") == 0 && p->node_name && o->node[0] &&
	       strcmp(p->node_name, o->node) == 0 && p->uid && p->uid[0] &&
	       strlen(p->uid) < OBS_TRANSPORT_UID_MAX && obs_pod_gpus(p) > 0;
}

static uint64_t observe_clock_ms(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int observe_transport(struct observation *o)
{
	const struct obs_kube *k = &o->kube;
	struct podnet_pod *want = NULL;
	const char **ids = NULL;
	size_t n = 0, n_ids = 0, skipped = 0;
	uint64_t now_ms;
	int r = 0;

	obs_transport_free(&o->transport);
	for (size_t i = 0; i < k->n_pods; i++)
		if (observe_transport_wanted(o, &k->pods[i]))
			n++;
	if (!n) {
		observe_transport_n_hints = 0;
		return 0;       /* no GPU pod runs: nothing is read under /proc */
	}
	if (n > OBS_TRANSPORT_PODS_MAX) {
		skipped = n - OBS_TRANSPORT_PODS_MAX;
		n = OBS_TRANSPORT_PODS_MAX;
	}
	for (size_t i = 0; i < k->n_pods; i++)
		if (observe_transport_wanted(o, &k->pods[i]))
			n_ids += k->pods[i].n_containers;
	want = calloc(n, sizeof(*want));
	ids = calloc(n_ids ? n_ids : 1, sizeof(*ids));
	if (!want || !ids) {
		r = -ENOMEM;
		goto out;
	}
	n = 0;
	n_ids = 0;
	for (size_t i = 0; i < k->n_pods && n < OBS_TRANSPORT_PODS_MAX; i++) {
		const struct pod *p = &k->pods[i];

		if (!observe_transport_wanted(o, p))
			continue;
		want[n].uid = p->uid;
		want[n].pid_hint = observe_transport_hint(p->uid);
		want[n].container_ids = &ids[n_ids];
		for (size_t j = 0; j < p->n_containers; j++) {
			const char *id = podcgroup_container_id(p->containers[j].status.container_id);

			if (id && obs_pod_container_gpus(&p->containers[j]) > 0) {
				ids[n_ids++] = id;
				want[n].n_container_ids++;
			}
		}
		n++;
	}
	if (skipped) {
		char num[24];

		snprintf(num, sizeof(num), "%zu", skipped);
		log_emit(LOG_LEVEL_WARN, "transport: more running GPU pods than one sample holds", "skipped", num, NULL);
	}
	r = podnet_sample(o->root, want, n, &o->transport, NULL);
	if (r < 0)
		goto out;
	observe_transport_remember(&o->transport);
	now_ms = observe_clock_ms(CLOCK_MONOTONIC);
	o->transport.wall_s = (long long)(observe_clock_ms(CLOCK_REALTIME) / 1000);
	for (size_t i = 0; i < o->transport.n; i++)
		o->transport.pods[i].sampled_ms = now_ms;
out:
	free(want);
	free(ids);
	return r;
}
