/*
 * loop.c - the daemon loop: one poll() over the signals, the host sources (sources.c), /metrics and
 * the API client's streams, and what one wake-up does: observe, judge, publish, tell. What it
 * dispatches to is its own unit: schedule.c (when), apifacts.c (the API facts, polled or watched),
 * apiwrite.c (the writes, never waited for), flapin.c (link flaps), sampler.c (transport samples).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/apifacts.h"
#include "agent/apiwrite.h"
#include "agent/cmd_health.h"
#include "agent/daemon_metrics.h"
#include "agent/flap.h"
#include "agent/flapin.h"
#include "agent/log.h"
#include "agent/metrics_http.h"
#include "agent/loop.h"
#include "agent/observe.h"
#include "agent/schedule.h"
#include "agent/workload_events.h"
#include "agent/sampler.h"
#include "agent/signals.h"
#include "agent/sources.h"
#include "agent/tsample.h"
#include "agent/verdict.h"
#include "probes/host/hostfs.h"
#include "probes/model/clockms.h"
#include "report/checks/evaluate.h"

#define LOOP_HUP_LOG_MS         60000   /* SIGHUP is logged at info at most this often, else debug */


struct loop_state {
	const struct cli_options *opt;
	struct publisher *pb;
	struct schedule sched;
	bool api;                       /* an API and a node name: reads happen */
	bool publish;                   /* ... and writes are allowed */
	struct apifacts af;             /* the API facts: polled, or kept by the watches */
	struct pollfd *fds;             /* the poll set: ours, then the streams' sockets */
	size_t fds_cap;
	struct verdict last;
	bool health_failed;             /* the last health-file touch failed (logged once) */
	bool observe_failed;            /* the last observation could not be made (nothing published) */
	char observe_why[2 * OBS_MSG_MAX + 32]; /* ... and why, as logged (logged again when it changes) */
	uint64_t hup_logged_at;         /* the last SIGHUP logged at info */
	struct flap flap;               /* each link's up/down history: flap damping */
	int sig_fd;                     /* readable after a signal (signals.h) */
	struct sources src;             /* netlink, uevents, inotify, the --releases file */
	struct tsample tsample;         /* the last transport sample: a GPU pod new to it, rates */
	struct daemon_metrics *metrics; /* --metrics-address: /metrics, served from this poll() (NULL: none) */
	struct apiwrite *wr;            /* the writes in flight on the client's streams (one at a time) */
};

/* ---- one iteration: observe, maybe read, evaluate, maybe publish ---- */

static void loop_log_change(struct loop_state *st, const struct profile *p)
{
	struct strbuf sb = { 0 };
	int n = verdict_diff(&st->last, p, &sb);
	/* While a link flaps, its samples and counts change each time: only verdict changes are info. */
	enum log_level level = flap_any_held(&st->flap) && !verdict_moved(&st->last, p) ? LOG_LEVEL_DEBUG
											      : LOG_LEVEL_INFO;

	if (n > 0)
		log_emit(level, st->last.valid ? "observed change" : "observed", "changes", sb.s,
			 "summary", p->summary, NULL);
	strbuf_free(&sb);
	if (n != 0)
		verdict_set(&st->last, p);
}

/*
 * The node could not be observed (--once would say unknown, exit 2): nothing is published, the
 * last published values stand, and the observation is tried again. Logged when the cause
 * changes, not at every retry.
 */
static void loop_observe_failed(struct loop_state *st, const struct observation *o, uint64_t now)
{
	char why[sizeof(st->observe_why)], retry[16];

	snprintf(why, sizeof(why), "%s%s%s", o->pci.status.state != PROBE_OK ? o->pci.status.message : "",
		 o->pci.status.state != PROBE_OK && o->links.status.state != PROBE_OK ? "; " : "",
		 o->links.status.state != PROBE_OK ? o->links.status.message : "");
	schedule_observe_failed(&st->sched, now);
	if (st->observe_failed && strcmp(why, st->observe_why) == 0)
		return;
	snprintf(retry, sizeof(retry), "%us", SCHEDULE_OBSERVE_RETRY_MS / 1000u);
	log_emit(LOG_LEVEL_ERROR, "observation failed: nothing published, the node keeps its last values",
		 "error", why, "retry_in", retry, NULL);
	st->observe_failed = true;
	snprintf(st->observe_why, sizeof(st->observe_why), "%s", why);
}

/* ---- the release table ---- */

/* --releases changed (or SIGHUP): read it again; a bad file is refused and the table in use kept. */
static void loop_reload_releases(struct loop_state *st)
{
	char err[512];
	int r;

	st->src.releases_dirty = false;
	r = publisher_reload_releases(st->pb, err, sizeof(err));
	if (r > 0) {
		char rows[16];

		snprintf(rows, sizeof(rows), "%zu", st->pb->releases->n);
		st->af.k.releases = st->pb->releases;
		log_emit(LOG_LEVEL_INFO, "release table reloaded", "file", st->opt->releases, "rows", rows, NULL);
	} else if (r < 0) {
		log_emit(LOG_LEVEL_ERROR, "release table refused: the previous one stays in use", "file",
			 st->opt->releases, "error", err, NULL);
	}
}

static int loop_iteration(struct loop_state *st, unsigned due, uint64_t now)
{
	struct observation o;
	struct profile p = { 0 };
	struct workloads w = { 0 };
	bool read_ok = false, may_write, observed;
	bool beat = schedule_heartbeat_owed(&st->sched, now);
	int r;

	if (due & SCHEDULE_TRANSPORT)
		schedule_transport_taken(&st->sched);   /* set again after the observation */
	if (st->af.aw && !apifacts_watches(&st->af, &st->sched, due, now))
		return 0;
	if (st->src.releases_dirty)
		loop_reload_releases(st);
	if (st->af.aw && (r = apifacts_update(&st->af)) < 0)
		return r;
	daemon_metrics_start(st->metrics);
	r = observe_node(st->opt, &st->af.k, &o);     /* the API facts live across iterations: lent */
	schedule_observed(&st->sched);
	if (r == -ENOMEM) {
		observation_free(&o);
		return r;
	}
	observed = r == 0;
	flapin_observed(&st->flap, &o, o.links.status.state == PROBE_OK, now);
	schedule_flaps(&st->sched, &st->flap);   /* wake for the next release; space writes while one is held */
	if ((due & SCHEDULE_READ) && st->api && !st->af.aw) {
		r = apiwrite_read(st->wr, st->opt->node, &st->af.k, &st->af.have, now);
		if (r == -EINTR) {
			observation_free(&o);
			return r;
		}
		read_ok = r == 0;
	}
	if (!observed) {
		/* A heartbeat vouches for a verdict just made: none while the node cannot be observed. */
		if (beat)
			schedule_heartbeat_sent(&st->sched, now);
		daemon_metrics_unobserved(st->metrics);
		loop_observe_failed(st, &o, now);
		if (read_ok)
			schedule_api_ok(&st->sched, now);       /* the API answered: its schedule goes on */
		if (st->publish && st->af.have)
			apiwrite_unobserved(st->wr, &st->af.k, st->observe_why, now);
		observation_free(&o);
		return 0;
	}
	if (st->observe_failed) {
		log_emit(LOG_LEVEL_INFO, "observation made again", NULL);
		st->observe_failed = false;
	}
	st->pb->unobserved_since = 0;
	r = sampler_take(&st->tsample, &st->sched, &o, st->af.have, due & SCHEDULE_TRANSPORT, now);
	if (r == 0)
		r = profile_evaluate(&o, &p);
	/* The GPU pods judged once, for their Events and the metrics; transport only on a fresh sample. */
	if (r == 0 && (r = workloads_evaluate(&o, &p, &w)) == 0 && o.transport.sampled) {
		struct transport_limits lim = { st->opt->transport_grace, st->opt->transport_tcp_rate };

		workloads_transport(&w, &o, &lim);
		sampler_log(&st->tsample, &w);
	}
	if (r < 0)
		goto out;
	loop_log_change(st, &p);
	daemon_metrics_observed(st->metrics, &p, &w);   /* out of memory: the page keeps the last values */

	/* In backoff, only the retry may write (polling: a read first): events never hammer a failing API. */
	if (st->af.aw)
		may_write = apifacts_may_write(&st->af, &st->sched, st->publish, due);
	else
		may_write = st->publish && st->af.have &&
			    (read_ok || (!(due & SCHEDULE_READ) && !st->sched.backoff.failures));
	if (read_ok) {
		if (st->sched.backoff.failures)
			log_emit(LOG_LEVEL_INFO, "API answering again", NULL);
		schedule_api_ok(&st->sched, now);
	}
	/* The writes go on the client's streams: their answers come in loop_woken(), never waited for here. */
	r = apiwrite_observed(st->wr, &o, &p, &w, now, beat, may_write);
	if (st->af.aw && (due & SCHEDULE_RETRY) && r == 0 && !apiwrite_busy(st->wr))
		schedule_api_ok(&st->sched, now);       /* nothing to write: the node carries it already */
out:
	workloads_free(&w);
	profile_free(&p);
	observation_free(&o);
	return r == -ENOMEM ? r : 0;
}

/* ---- sources ---- */

/* The poll set: the signals' pipe, the host sources, /metrics, then the client's streams. */
enum {
	LOOP_FD_SIGNAL = 0,
	LOOP_FD_SOURCES,
	LOOP_FD_METRICS = LOOP_FD_SOURCES + SOURCES__COUNT,     /* served after every poll(), never an event */
	LOOP_FD__COUNT,
};

static void loop_log_start(const struct loop_state *st, uint64_t now)
{
	const struct cli_options *opt = st->opt;
	char interval[16], jitter[16], first[32] = "", heartbeat[16];
	const char *api = st->pb->http ? (opt->node ? (st->af.aw ? "watch" : "poll") : "no: no node name (--node or NODE_NAME)")
				       : st->pb->http_why;

	snprintf(interval, sizeof(interval), "%us", opt->interval);
	snprintf(jitter, sizeof(jitter), "%us", opt->start_jitter);
	snprintf(heartbeat, sizeof(heartbeat), "%us", st->publish ? opt->heartbeat : 0);
	if (st->api)
		snprintf(first, sizeof(first), "%.1fs", (double)(st->sched.read_at - now) / 1000.0);
	log_emit(LOG_LEVEL_INFO, "started", "version", TCPXO_VERSION, "node", opt->node ? opt->node : "",
		 "root", opt->root, "paths", hostfs_kernel_resolution() ? "openat2" : "walk", "api", api,
		 "publish", st->publish ? "yes" : "no", "interval", interval, "start_jitter", jitter,
		 "heartbeat", heartbeat, "releases", st->pb->releases ? st->pb->releases->source : "built-in",
		 "first_request_in", first[0] ? first : NULL, NULL);
}

/* The poll set: our sources, then the client's streams' sockets, watches and writes (fetched until they all fit). Return: its size. */
static size_t loop_pollfds(struct loop_state *st)
{
	struct pollfd *f;
	size_t n;

	for (;;) {
		size_t room = st->fds_cap - LOOP_FD__COUNT;

		n = http_streams_pollfds(st->pb->http, st->fds + LOOP_FD__COUNT, room);
		if (n <= room)
			break;
		f = realloc(st->fds, (LOOP_FD__COUNT + n + 8) * sizeof(*f));
		if (!f) {
			n = room;       /* the rest wait for the next turn (the streams' timer still runs) */
			break;
		}
		st->fds = f;
		st->fds_cap = LOOP_FD__COUNT + n + 8;
	}
	st->fds[LOOP_FD_SIGNAL] = (struct pollfd){ .fd = st->sig_fd, .events = POLLIN };
	sources_pollfds(&st->src, st->fds + LOOP_FD_SOURCES);
	st->fds[LOOP_FD_METRICS] = (struct pollfd){ .fd = metrics_http_fd(daemon_metrics_http(st->metrics)), .events = POLLIN };
	return LOOP_FD__COUNT + n;
}

static int loop_timeout(struct loop_state *st)
{
	uint64_t now = clockms_now();
	int t = schedule_timeout(&st->sched, now), a = apiwatch_timeout(st->af.aw, now);     /* -1: no watches */
	int m = metrics_http_timeout(daemon_metrics_http(st->metrics)), h = http_streams_timeout(st->pb->http);

	if (a >= 0 && a < t)
		t = a;
	if (h >= 0 && h < t)
		t = h;
	return m >= 0 && m < t ? m : t;
}

/*
 * The client's streams' turn: the watches' lines to the stores (a change re-observes after the
 * debounce, the first at once), a write's answer to its job. Return: 0; -ENOMEM.
 */
static int loop_api_events(struct loop_state *st, size_t nfds, uint64_t now)
{
	int r;

	apiwatch_clock(st->af.aw, now);
	r = http_streams_drive(st->pb->http, st->fds + LOOP_FD__COUNT, nfds - LOOP_FD__COUNT);

	if (r == 0)
		r = apiwrite_drive(st->wr, &st->af.k, now);
	if (st->af.aw)
		apifacts_drive(&st->af, &st->sched, now);
	return r;
}

/* Release what loop_open() made (each part may be absent). */
static void loop_close(struct loop_state *st)
{
	daemon_metrics_free(st->metrics);
	apiwrite_free(st->wr);
	free(st->fds);
	sources_close(&st->src);
	signals_reset();
	verdict_free(&st->last);
	tsample_free(&st->tsample);
	apifacts_close(&st->af);
}

/* Set up /metrics, the signals, the schedule (the API's watches with it) and the sources. Return: 0; < 0 logged. */
static int loop_open(struct loop_state *st)
{
	const struct cli_options *opt = st->opt;
	struct apiwatch_config watches = {
		.http = st->pb->http, .node = opt->node, .prefix = opt->prefix, .interval_s = opt->interval,
		.seed = clockms_random(),
	};
	uint64_t t0;
	int r;

	if (opt->metrics_address) {
		char err[256], addr[64];

		r = daemon_metrics_new(opt->metrics_address, st->pb, &st->metrics, err, sizeof(err));
		if (r < 0) {
			log_emit(LOG_LEVEL_ERROR, "cannot serve metrics: stopping", "error", err, NULL);
			return r;
		}
		metrics_http_address(daemon_metrics_http(st->metrics), addr, sizeof(addr));
		log_emit(LOG_LEVEL_INFO, "serving metrics", "address", addr, "path", "/metrics", NULL);
	}
	st->api = st->pb->http && opt->node;
	st->publish = st->api && !opt->no_publish;
	st->af.k.releases = st->pb->releases;
	st->fds = calloc(LOOP_FD__COUNT + 8, sizeof(*st->fds));
	r = st->fds ? signals_setup(st->pb->http, &st->sig_fd) : -ENOMEM;
	if (r < 0) {
		log_emit(LOG_LEVEL_ERROR, "cannot set up signal handling", "error", strerror(-r), NULL);
		return r;
	}
	st->fds_cap = LOOP_FD__COUNT + 8;
	t0 = clockms_now();
	schedule_init(&st->sched, t0, opt->interval, opt->start_jitter,
		      apifacts_open(&st->af, st->api, opt->no_watch, &watches), clockms_random());
	schedule_heartbeat(&st->sched, st->publish ? (uint64_t)opt->heartbeat * 1000u : 0);
	r = apiwrite_new(st->pb, &st->sched, &st->wr);
	if (r < 0) {
		log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
		return r;
	}
	daemon_metrics_watches(st->metrics, st->af.aw);
	loop_log_start(st, t0);
	st->src = (struct sources){ .root = opt->root, .releases = opt->releases, .flap = &st->flap };
	sources_open(&st->src);
	return 0;
}

/* What one poll() brought: SIGHUP, the sources' events, the API streams, a scrape. Return: 0; -ENOMEM. */
static int loop_woken(struct loop_state *st, size_t nfds, uint64_t now)
{
	struct pollfd *fds = st->fds;

	if (fds[LOOP_FD_SIGNAL].revents && signals_take_hup()) {
		bool loud = !st->hup_logged_at || now - st->hup_logged_at >= LOOP_HUP_LOG_MS;

		/* A SIGHUP loop (a script, a probe) must not flood the log: info once a minute. */
		log_emit(loud ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG, "SIGHUP: re-observing now", NULL);
		if (loud)
			st->hup_logged_at = now;
		st->src.releases_dirty = st->src.releases != NULL;
		schedule_observe_now(&st->sched, now);
		schedule_transport_now(&st->sched, now);
	}
	if (sources_drain(&st->src, fds + LOOP_FD_SOURCES, now))
		schedule_event(&st->sched, now);
	if (loop_api_events(st, nfds, now) == -ENOMEM)
		return -ENOMEM;
	metrics_http_run(daemon_metrics_http(st->metrics));
	return 0;
}

int loop_run(const struct cli_options *opt, struct publisher *pb)
{
	struct loop_state st = { .opt = opt, .pb = pb, .sig_fd = -1 };
	int r, ret;

	ret = loop_open(&st);
	while (!ret && !signals_term()) {
		uint64_t now = clockms_now();
		unsigned due = schedule_due(&st.sched, now);
		size_t nfds;

		if (due && (r = loop_iteration(&st, due, now)) == -ENOMEM) {
			log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
			ret = r;
			break;
		}
		if (signals_term())
			break;
		cmd_health_touch(opt->health_file, &st.health_failed);

		nfds = loop_pollfds(&st);
		r = poll(st.fds, nfds, loop_timeout(&st));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			log_emit(LOG_LEVEL_ERROR, "poll failed: stopping", "error", strerror(-ret), NULL);
			break;
		}
		if (loop_woken(&st, nfds, clockms_now()) == -ENOMEM) {
			log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
			ret = -ENOMEM;
		}
	}
	if (signals_term())
		log_emit(LOG_LEVEL_INFO, "stopping: annotations left in place", "signal",
			 signals_term() == SIGINT ? "SIGINT" : "SIGTERM", NULL);
	loop_close(&st);
	return ret;
}
