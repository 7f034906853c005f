/* daemon_metrics.c - the daemon's /metrics: the last verdict, the pods, the timings, the counters and the process, rendered per scrape. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/daemon_metrics.h"
#include "agent/metrics_http.h"
#include "probes/host/procself.h"
#include "probes/kube/reflector.h"
#include "report/checks/workloads.h"
#include "report/render/metrics.h"

struct daemon_metrics {
	struct metrics_http *http;
	const struct publisher *pb;
	const struct apiwatch *aw;
	bool observed, ready;
	enum profile_kind profile;
	enum check_status checks[CHECK__COUNT];
	struct metrics_pod *pods;
	size_t n_pods;
	double last_s;
	struct metrics_histogram duration;      /* count > 0: a verdict exists (ready, profile, checks) */
	struct timespec started;
	unsigned long long btime;               /* the boot time, read on the first scrape (process_start_time_seconds) */
};

/* A scrape's relists: apiwatch_relists() names every resource and reason once. */
struct daemon_metrics_relists {
	struct metrics_relist v[APIWATCH__COUNT * REFLECTOR_RELIST__COUNT];
	size_t n;
};

static void daemon_metrics_pods_free(struct metrics_pod *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].ns);
		free(v[i].name);
	}
	free(v);
}

static void daemon_metrics_relist(const char *resource, const char *reason, unsigned long n, void *arg)
{
	struct daemon_metrics_relists *rl = arg;

	rl->v[rl->n++] = (struct metrics_relist){ resource, reason, n };
}

static int daemon_metrics_page(void *arg, struct strbuf *out)
{
	struct daemon_metrics *m = arg;
	struct daemon_metrics_relists rl = { .n = 0 };
	struct procstat ps;
	struct metrics_input in = {
		.version = TCPXO_VERSION, .evaluated = m->duration.count > 0, .observed = m->observed,
		.ready = m->ready, .profile = m->profile,
		.pods = m->pods, .n_pods = m->n_pods, .last_observation_s = m->last_s, .duration = &m->duration,
		.api = http_client_counts(m->pb->http),                 /* NULL without a client */
		.publish = !m->pb->http || !m->pb->node || !m->pb->publish ? METRICS_PUBLISH_OFF :
			   m->pb->in_sync ? METRICS_PUBLISH_IN_SYNC : METRICS_PUBLISH_OWED,
		.process = &ps,
	};

	memcpy(in.checks, m->checks, sizeof(in.checks));
	memcpy(in.writes, m->pb->writes, sizeof(in.writes));
	procself_read("/proc", &m->btime, &ps);        /* the agent's own /proc, never --root's */
	apiwatch_relists(m->aw, daemon_metrics_relist, &rl);
	in.relists = rl.v;
	in.n_relists = rl.n;
	return metrics_render(&in, out);
}

int daemon_metrics_new(const char *address, const struct publisher *pb, struct daemon_metrics **ret,
		       char *err, size_t errlen)
{
	struct daemon_metrics *m = calloc(1, sizeof(*m));
	struct metrics_http_page page = { daemon_metrics_page, m };
	int r;

	if (!m)
		return -ENOMEM;
	m->pb = pb;
	r = metrics_http_new(address, &page, &m->http, err, errlen);
	if (r < 0) {
		free(m);
		return r;
	}
	*ret = m;
	return 0;
}

void daemon_metrics_free(struct daemon_metrics *m)
{
	if (!m)
		return;
	metrics_http_free(m->http);
	daemon_metrics_pods_free(m->pods, m->n_pods);
	free(m);
}

void daemon_metrics_watches(struct daemon_metrics *m, const struct apiwatch *aw)
{
	if (m)
		m->aw = aw;
}

void daemon_metrics_start(struct daemon_metrics *m)
{
	if (m)
		clock_gettime(CLOCK_MONOTONIC, &m->started);
}

/* The row of the pod @ns/@name on the page now, or NULL. */
static const struct metrics_pod *daemon_metrics_pod(const struct daemon_metrics *m, const char *ns, const char *name)
{
	for (size_t i = 0; i < m->n_pods; i++)
		if (strcmp(m->pods[i].ns, ns) == 0 && strcmp(m->pods[i].name, name) == 0)
			return &m->pods[i];
	return NULL;
}

/*
 * The GPU pods of @w (judged by the loop) as the page's rows. A pod whose transport @w did not
 * judge (no fresh sample) keeps its last one: nothing new is known.
 * Return: 0 (*ret NULL, *n 0 when none); -ENOMEM; 1 not judged.
 */
static int daemon_metrics_rows(const struct daemon_metrics *m, const struct workloads *w, struct metrics_pod **ret,
			       size_t *ret_n)
{
	struct metrics_pod *v = NULL;

	if (!w->judged)
		return 1;
	if (w->n && !(v = calloc(w->n, sizeof(*v))))
		return -ENOMEM;
	for (size_t i = 0; i < w->n; i++) {
		const struct pod *pod = w->pods[i].pod;
		const struct metrics_pod *last;
		struct metrics_pod *row = &v[i];

		row->ns = strdup(pod->ns ? pod->ns : "");
		row->name = strdup(pod->name ? pod->name : "");
		row->verdict = w->pods[i].result.verdict;
		row->gpus = w->pods[i].result.gpus;
		if (!row->ns || !row->name) {
			daemon_metrics_pods_free(v, i + 1);
			return -ENOMEM;
		}
		if (w->transport_judged) {
			row->has_transport = true;
			row->transport = w->pods[i].transport.state;
			row->rails = w->pods[i].transport.rails;
		} else if ((last = daemon_metrics_pod(m, row->ns, row->name))) {
			row->has_transport = last->has_transport;
			row->transport = last->transport;
			row->rails = last->rails;
		}
	}
	*ret = v;
	*ret_n = w->n;
	return 0;
}

int daemon_metrics_observed(struct daemon_metrics *m, const struct profile *p, const struct workloads *w)
{
	struct metrics_pod *pods = NULL;
	struct timespec now, wall;
	size_t n = 0;
	int r;

	if (!m)
		return 0;
	r = daemon_metrics_rows(m, w, &pods, &n);
	if (r < 0)
		return r;
	if (r == 0) {           /* the pod list was read: the pods that left the node go */
		daemon_metrics_pods_free(m->pods, m->n_pods);
		m->pods = pods;
		m->n_pods = n;
	}
	m->observed = true;
	m->ready = p->ready;
	m->profile = p->kind;
	for (unsigned c = 0; c < CHECK__COUNT; c++)
		m->checks[c] = p->checks[c].status;
	clock_gettime(CLOCK_MONOTONIC, &now);
	clock_gettime(CLOCK_REALTIME, &wall);
	metrics_histogram_observe(&m->duration, (double)(now.tv_sec - m->started.tv_sec) +
						(double)(now.tv_nsec - m->started.tv_nsec) / 1e9);
	m->last_s = (double)wall.tv_sec + (double)(wall.tv_nsec / 1000000) / 1e3;
	return 0;
}

void daemon_metrics_unobserved(struct daemon_metrics *m)
{
	if (m)
		m->observed = false;
}

struct metrics_http *daemon_metrics_http(const struct daemon_metrics *m)
{
	return m ? m->http : NULL;
}
