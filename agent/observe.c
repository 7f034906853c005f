/* observe.c - run every probe into one observation; one failing probe never drops the rest. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/observe.h"
#include "agent/tsample.h"
#include "probes/host/hostprobe.h"
#include "probes/host/links.h"
#include "probes/host/pcitopo.h"
#include "probes/host/podcgroup.h"
#include "probes/host/podnet.h"
#include "probes/kube/imageref.h"
#include "probes/model/clockms.h"
#include "report/checks/workloads.h"

static bool observe_said_full_dump;

int observe_rootfd(const char *root)
{
	static int fd = -1;
	static char path[PATH_MAX];

	if (!*root)
		root = "/";
	if (fd >= 0 && strcmp(path, root) == 0)
		return fd;
	if (fd >= 0)
		close(fd);
	fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s", root);
	return fd;
}

int observe_node(const struct cli_options *opt, const struct obs_kube *facts, struct observation *ret)
{
	struct observation *o = ret;
	struct links_stats ls;

	memset(o, 0, sizeof(*o));
	o->kube = facts;
	snprintf(o->root, sizeof(o->root), "%s", opt->root);
	if (opt->node)
		snprintf(o->node, sizeof(o->node), "%s", opt->node);
	if (pcitopo_scan(observe_rootfd(o->root), o->root, &o->pci) >= 0)
		o->pci.status.state = PROBE_OK;
	/* Only the links the PCI functions name: the cost does not grow with the pods' veths. */
	if (links_observe(&o->pci, &o->links, &ls) >= 0)
		o->links.status.state = PROBE_OK;
	if (ls.full_dump && !observe_said_full_dump) {
		observe_said_full_dump = true;  /* once per process: the kernel does not change */
		log_emit(LOG_LEVEL_DEBUG, "netlink: full dumps", "why", ls.full_dump, NULL);
	}
	/* Host files and processes: each part carries its own status; only -ENOMEM is fatal. */
	if (hostprobe_observe(observe_rootfd(o->root), o->root, &o->pci, &o->host) < 0)
		return -ENOMEM;
	if (o->pci.status.state != PROBE_OK || o->links.status.state != PROBE_OK)
		return -EIO;
	return 0;
}

/* The pods of @t that @which names (NULL: all) sampled now: the daemon's clock, and the wall's second. */
static void observe_stamp(struct obs_transport *t, const bool *which)
{
	uint64_t now_ms = clockms_now();
	struct timespec wall;

	clock_gettime(CLOCK_REALTIME, &wall);
	t->wall_s = (long long)wall.tv_sec;
	for (size_t i = 0; i < t->n; i++)
		if (!which || which[i])
			t->pods[i].sampled_ms = now_ms;
}

int observe_transport(struct observation *o, const struct tsample *last)
{
	const struct obs_kube *k = o->kube;
	struct podnet_pod *want = NULL;
	const char **ids = NULL;
	size_t n = 0, n_ids = 0, skipped = 0;
	int r = 0;

	obs_transport_free(&o->transport);
	if (!o->node[0])
		return 0;       /* which pods run here is unknown: none is sampled */
	for (size_t i = 0; i < k->n_pods; i++)
		if (obs_transport_wants(&k->pods[i], o->node))
			n_ids += k->pods[i].n_containers;
	want = calloc(k->n_pods ? k->n_pods : 1, sizeof(*want));
	ids = calloc(n_ids ? n_ids : 1, sizeof(*ids));
	if (!want || !ids) {
		r = -ENOMEM;
		goto out;
	}
	n_ids = 0;
	for (size_t i = 0; i < k->n_pods; i++) {
		const struct pod *p = &k->pods[i];
		const struct tsample_pod *was;

		if (!obs_transport_wants(p, o->node))
			continue;
		if (n == OBS_TRANSPORT_PODS_MAX) {
			skipped++;
			continue;
		}
		was = last ? tsample_find(last, p->uid) : NULL;
		want[n].uid = p->uid;
		want[n].pid_hint = was ? was->pid : 0;
		want[n].container_ids = &ids[n_ids];
		for (size_t j = 0; j < p->n_containers; j++) {
			const char *id = podcgroup_container_id(p->containers[j].status.container_id);

			if (id && imageref_gpu_container(&p->containers[j])) {
				ids[n_ids++] = id;
				want[n].n_container_ids++;
			}
		}
		n++;
	}
	if (!n)
		goto out;       /* no GPU pod runs: nothing is read under /proc */
	if (skipped) {
		char num[24];

		snprintf(num, sizeof(num), "%zu", skipped);
		log_emit(LOG_LEVEL_WARN, "transport: more running GPU pods than one sample holds", "skipped", num, NULL);
	}
	r = podnet_sample(observe_rootfd(o->root), o->root, want, n, &o->transport, NULL);
	if (r < 0)
		goto out;
	observe_stamp(&o->transport, NULL);
out:
	free(want);
	free(ids);
	return r;
}

/* Sleep until CLOCK_MONOTONIC reaches @until_ms (a signal that interrupts it does not shorten it). */
static void observe_sleep_until(uint64_t until_ms)
{
	struct timespec ts = { .tv_sec = (time_t)(until_ms / 1000), .tv_nsec = (long)(until_ms % 1000) * 1000000L };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

int observe_transport_window(struct observation *o, const struct workloads *w, unsigned window_s)
{
	struct obs_transport *t = &o->transport;
	bool *which;
	uint64_t first_ms = 0;
	size_t n = 0;
	int r;

	if (!t->sampled || !t->n || !workloads_transport_unmeasured(w))
		return 0;
	which = calloc(t->n, sizeof(*which));
	if (!which)
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++) {
		const struct obs_pod_transport *s;

		if (!w->pods[i].transport.unmeasured || !w->pods[i].pod->uid)
			continue;
		s = obs_transport_find(t, w->pods[i].pod->uid);
		if (!s)
			continue;
		which[s - t->pods] = true;
		if (s->sampled_ms > first_ms)
			first_ms = s->sampled_ms;
		n++;
	}
	if (n) {
		observe_sleep_until(first_ms + (uint64_t)window_s * 1000u);
		r = podnet_again(observe_rootfd(o->root), o->root, t, which, NULL);
		if (r >= 0)
			r = (int)n;     /* read again or not (gone, unreadable: said), each waited for its judgement */
		observe_stamp(t, which);
	} else {
		r = 0;
	}
	free(which);
	return r;
}