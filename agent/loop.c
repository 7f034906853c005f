/*
 * loop.c - the daemon loop: one poll() over netlink, uevents, inotify, signals, API streams and timers.
 *
 * About 700 lines and whole on purpose: it is the dispatcher, and what one wake-up does (read the
 * due sources, observe, judge, publish, tell) reads best in one place. Each thing it dispatches to
 * is its own unit: schedule.c (when), apiwatch.c (the watches), apiwrite.c (the writes in flight,
 * never waited for), publish.c (what is written), workload_events.c and eventq.c (Events), flap.c
 * (damping), signals.c, verdict.c, observe.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/apiwatch.h"
#include "agent/apiwrite.h"
#include "agent/filewatch.h"
#include "agent/daemon_metrics.h"
#include "agent/flap.h"
#include "agent/log.h"
#include "agent/loop.h"
#include "agent/observe.h"
#include "agent/schedule.h"
#include "agent/workload_events.h"
#include "agent/signals.h"
#include "agent/tsample.h"
#include "agent/verdict.h"
#include "probes/host/hostfs.h"
#include "probes/host/links.h"
#include "probes/host/uevents.h"
#include "probes/host/watch.h"
#include "report/checks/evaluate.h"

#define LOOP_WHAT_MAX 128

#define LOOP_HUP_LOG_MS         60000   /* SIGHUP is logged at info at most this often, else debug */


struct loop_state {
	const struct cli_options *opt;
	struct publisher *pb;
	struct schedule sched;
	bool api;                       /* an API and a node name: reads happen */
	bool publish;                   /* ... and writes are allowed */
	struct obs_kube facts;          /* the API facts: node, pods, our keys as published */
	bool have_facts;                /* facts came from a successful read (or filled watches) */
	struct apiwatch *aw;            /* the watches keeping the facts (NULL: --no-watch or no API) */
	unsigned long aw_seen;          /* apiwatch_changes() acted upon */
	bool aw_started;                /* the watches were started (the start jitter passed) */
	bool aw_settled;                /* the watches' first facts (or failures) came */
	struct pollfd *fds;             /* the poll set: ours, then the streams' sockets */
	size_t fds_cap;
	struct verdict last;
	bool health_failed;             /* the last health-file touch failed (logged once) */
	bool observe_failed;            /* the last observation could not be made (nothing published) */
	char observe_why[2 * OBS_MSG_MAX + 32]; /* ... and why, as logged (logged again when it changes) */
	char unread_why[KUBE_MSG_MAX];  /* watches: why the node's or pods' facts are not read ("": they are) */
	uint64_t hup_logged_at;         /* the last SIGHUP logged at info */
	struct flap *flap;              /* each link's up/down history: flap damping */
	int sig_fd;                     /* readable after a signal (signals.h) */
	struct links_watch *links;
	struct uevents *uevents;
	struct watch *watch;
	struct tsample tsample;         /* the last transport sample: a GPU pod new to it, rates */
	struct filewatch *relwatch;     /* --releases: its directory (NULL: no file, or no inotify) */
	bool releases_dirty;            /* it changed (or SIGHUP): re-read before the next observation */
	struct daemon_metrics *metrics; /* --metrics-address: /metrics, served from this poll() (NULL: none) */
	struct apiwrite *wr;            /* the writes in flight on the client's streams (one at a time) */
};

static uint64_t loop_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint64_t loop_random(void)
{
	uint64_t x;

	if (getrandom(&x, sizeof(x), GRND_NONBLOCK) == (ssize_t)sizeof(x))
		return x;
	/* No entropy yet (early boot): the clock and pid still spread nodes apart. */
	return loop_now_ms() * 2654435761u ^ (uint64_t)getpid() << 32;
}

/* ---- the health file ---- */

static void loop_touch_health(struct loop_state *st)
{
	const char *f = st->opt->health_file;
	int r = 0;

	if (!f)
		return;
	if (utimensat(AT_FDCWD, f, NULL, 0) < 0) {
		r = -errno;
		if (r == -ENOENT) {
			int fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0644);

			r = fd < 0 ? -errno : 0;
			if (fd >= 0)
				close(fd);
		}
	}
	if (r < 0 && !st->health_failed)
		log_emit(LOG_LEVEL_ERROR, "cannot touch the health file", "file", f, "error", strerror(-r), NULL);
	else if (r == 0 && st->health_failed)
		log_emit(LOG_LEVEL_INFO, "health file touched again", "file", f, NULL);
	st->health_failed = r < 0;
}

/* ---- one iteration: observe, maybe read, evaluate, maybe publish ---- */

/* Read node and pods into st->facts. Return: 0 or -EIO (logged, backoff scheduled). */
static int loop_read(struct loop_state *st, uint64_t now)
{
	struct obs_kube k = { 0 };
	const struct kube_fetch *bad;
	int r;

	signals_api(true);
	r = !signals_term() ? publisher_read(st->pb, st->opt->node, &k) : -EINTR;
	signals_api(false);
	if (signals_term()) {
		obs_kube_free(&k);
		return -EINTR;
	}
	if (r == 0) {
		obs_kube_free(&st->facts);
		st->facts = k;
		log_emit(LOG_LEVEL_DEBUG, "API read", "node", st->opt->node, NULL);
		st->have_facts = true;
		return 0;
	}
	bad = k.node_fetch.state != KUBE_FETCH_OK ? &k.node_fetch : &k.pods_fetch;
	apiwrite_failed(st->wr, now, bad == &k.node_fetch ? "read node" : "list pods", bad->http_status, bad->message);
	if (st->have_facts) {
		obs_kube_free(&k);      /* the last good facts stand: an API failure removes nothing */
	} else {
		obs_kube_free(&st->facts);
		st->facts = k;          /* the report then says why the API facts are missing */
	}
	return -EIO;
}

static void loop_log_change(struct loop_state *st, const struct profile *p)
{
	struct strbuf sb = { 0 };
	int n = verdict_diff(&st->last, p, &sb);
	/* While a link flaps, its samples and counts change each time: only verdict changes are info. */
	enum log_level level = flap_any_held(st->flap) && !verdict_moved(&st->last, p) ? LOG_LEVEL_DEBUG
											      : LOG_LEVEL_INFO;

	if (n > 0)
		log_emit(level, st->last.valid ? "observed change" : "observed", "changes", sb.s,
			 "summary", p->summary, NULL);
	strbuf_free(&sb);
	if (n != 0)
		verdict_set(&st->last, p);
}

/* ---- flap damping: the link-event history, held links, the write spacing ---- */

static void loop_flap_news(const char *name, enum flap_news news, const struct flap *f)
{
	char changes[16] = "", window[16], hold[16];

	if (news != FLAP_NEWS_HELD)
		return;
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].name, name) == 0)
			snprintf(changes, sizeof(changes), "%u", f->v[i].changes);
	snprintf(window, sizeof(window), "%us", FLAP_WINDOW_MS / 1000u);
	snprintf(hold, sizeof(hold), "%us", FLAP_HOLD_MS / 1000u);
	log_emit(LOG_LEVEL_INFO, "link flapping: held not ready until stable", "link", name, "changes", changes,
		 "window", window, "hold_down", hold, NULL);
}

static void loop_flap_released(const struct flap_link *l, void *arg)
{
	char changes[16];

	snprintf(changes, sizeof(changes), "%u", l->changes);
	log_emit(LOG_LEVEL_INFO, "link stable again: released", "link", l->name, "changes", changes, NULL);
}

/* The netlink notifications of the last drain, in order, into the history. */
static void loop_flap_events(struct loop_state *st, uint64_t now)
{
	const struct links_event *ev;
	bool lost;
	size_t n = links_watch_events(st->links, &ev, &lost);

	for (size_t i = 0; i < n; i++) {
		if (ev[i].removed)
			flap_removed(st->flap, ev[i].name);
		else
			loop_flap_news(ev[i].name, flap_state(st->flap, ev[i].name, ev[i].up, now), st->flap);
	}
	/* Lost notifications: the next observation's dump tells the states (a difference counts). */
}

static bool loop_flap_present(const char *name, void *arg)
{
	return observation_link_find(arg, name) != NULL;
}

/*
 * Bring the history up to the observation: a dumped state that differs from the last known one
 * is a change a notification has not told yet (or one lost); links gone are forgotten. Then
 * release what is stable, wake for the next release, space writes while anything is held, and
 * hand the held links to the checks through the observation.
 */
static void loop_flap_observed(struct loop_state *st, struct observation *o, bool dumped, uint64_t now)
{
	if (dumped) {
		for (size_t i = 0; i < o->links.n; i++)
			loop_flap_news(o->links.v[i].name,
				       flap_state(st->flap, o->links.v[i].name, o->links.v[i].oper == LINK_OPER_UP, now),
				       st->flap);
		flap_keep_only(st->flap, loop_flap_present, o);
	}
	flap_release(st->flap, now, loop_flap_released, NULL);
	schedule_flaps(&st->sched, st->flap);
	flap_fill(st->flap, &o->flaps);
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

/* Watches: start or resync them (SCHEDULE_READ); whether the iteration may go on (their first facts came). */
static bool loop_watches(struct loop_state *st, unsigned due, uint64_t now)
{
	if (due & SCHEDULE_READ) {
		log_emit(LOG_LEVEL_DEBUG, st->aw_started ? "API resync: refilling every store" : "API: starting the watches",
			 NULL);
		st->aw_started = true;
		apiwatch_resync(st->aw, now);
		schedule_resynced(&st->sched, now, loop_random());
	}
	if (st->aw_settled)
		return true;
	schedule_observed(&st->sched);  /* the first facts bring the first observation */
	return false;
}

/*
 * Watches: whether the node and its pods are read. A store the parsers refuse as a whole (a Node
 * that is no Node) leaves the checks that read it unknown: nothing is published, the node keeps
 * its values, and the next change of the store (or the resync) reads it again; one pod that
 * cannot be read is only set aside and named (check_version_pair()). Logged when the cause changes.
 */
static bool loop_watch_facts_read(struct loop_state *st)
{
	const struct kube_fetch *bad = st->facts.node_fetch.state != KUBE_FETCH_OK ? &st->facts.node_fetch :
				       st->facts.pods_fetch.state != KUBE_FETCH_OK ? &st->facts.pods_fetch : NULL;

	if (!bad) {
		if (st->unread_why[0])
			log_emit(LOG_LEVEL_INFO, "API facts read again", NULL);
		st->unread_why[0] = '\0';
		return true;
	}
	if (strcmp(st->unread_why, bad->message) != 0) {
		snprintf(st->unread_why, sizeof(st->unread_why), "%s", bad->message[0] ? bad->message : "failed");
		log_emit(LOG_LEVEL_ERROR, "API facts not read: nothing published, the node keeps its last values",
			 "what", bad == &st->facts.node_fetch ? "node" : "pods", "error", st->unread_why, NULL);
	}
	return false;
}

/* Watches: a write may go when the node and pods were read, unless a failed write waits for its retry. */
static bool loop_watch_may_write(struct loop_state *st, unsigned due)
{
	bool retry = due & SCHEDULE_RETRY;

	if (retry)
		schedule_retry_taken(&st->sched);
	return st->publish && st->have_facts && loop_watch_facts_read(st) && (!st->sched.failures || retry);
}

/*
 * The GPU pods' transport (observe_transport()), with the pods lent to @o: sampled when its timer
 * is due (every 60 s while they run, SIGHUP), and at once when a GPU pod starts running; nothing
 * is read under /proc/<pid>/net while none runs. Return: 0; -ENOMEM.
 */
static int loop_transport(struct loop_state *st, struct observation *o, bool due, uint64_t now)
{
	bool fresh = false, sample;
	size_t n = 0;
	int r;

	if (st->have_facts && o->kube.pods_fetch.state == KUBE_FETCH_OK)
		n = tsample_running(&st->tsample, &o->kube, o->node, &fresh);
	sample = n && (due || fresh);
	if (sample) {
		r = observe_transport(o, &st->tsample);
		if (r == 0)
			r = tsample_carry(&st->tsample, &o->transport);
		if (r == -ENOMEM)
			return r;
	} else if (!n) {
		tsample_free(&st->tsample);
	}
	schedule_transport(&st->sched, now, n > 0, sample);
	return 0;
}

/*
 * One line per GPU pod whose judged transport changed (a pod's first judgement included), with the
 * evidence: the daemon's only record of an idle pod's history ("it had 8 clients ... until").
 */
static void loop_transport_log(struct loop_state *st, const struct workloads *w)
{
	char pod[320];

	for (size_t i = 0; i < w->n; i++) {
		const struct workloads_pod *wp = &w->pods[i];

		if (!wp->pod->uid || !tsample_note(&st->tsample, wp->pod->uid, wp->transport.state))
			continue;
		snprintf(pod, sizeof(pod), "%s/%s", wp->pod->ns ? wp->pod->ns : "", wp->pod->name ? wp->pod->name : "");
		log_emit(transport_state_fails(wp->transport.state) ? LOG_LEVEL_WARN : LOG_LEVEL_INFO, "pod transport",
			 "pod", pod, "state", transport_state_name(wp->transport.state), "evidence",
			 wp->transport.evidence, NULL);
	}
}

/* ---- the release table ---- */

/* --releases changed (or SIGHUP): read it again; a bad file is refused and the table in use kept. */
static void loop_reload_releases(struct loop_state *st)
{
	char err[512];
	int r;

	st->releases_dirty = false;
	r = publisher_reload_releases(st->pb, err, sizeof(err));
	if (r > 0) {
		char rows[16];

		snprintf(rows, sizeof(rows), "%zu", st->pb->releases->n);
		st->facts.releases = st->pb->releases;
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
	unsigned host_daemons;
	int r;

	if (due & SCHEDULE_TRANSPORT)
		schedule_transport_taken(&st->sched);   /* set again after the observation */
	if (st->aw && !loop_watches(st, due, now))
		return 0;
	if (st->releases_dirty)
		loop_reload_releases(st);
	if (st->aw) {
		r = apiwatch_update(st->aw, &st->facts);
		if (r < 0)
			return r;
		st->have_facts = apiwatch_ready(st->aw);
	}
	daemon_metrics_start(st->metrics);
	r = observe_node(st->opt, &o);
	schedule_observed(&st->sched);
	if (r == -ENOMEM) {
		observation_free(&o);
		return r;
	}
	observed = r == 0;
	loop_flap_observed(st, &o, o.links.status.state == PROBE_OK, now);
	if ((due & SCHEDULE_READ) && st->api && !st->aw) {
		r = loop_read(st, now);
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
		if (st->publish && st->have_facts)
			apiwrite_unobserved(st->wr, &st->facts, st->observe_why, now);
		observation_free(&o);
		return 0;
	}
	if (st->observe_failed) {
		log_emit(LOG_LEVEL_INFO, "observation made again", NULL);
		st->observe_failed = false;
	}
	st->pb->unobserved_since = 0;
	/* The API facts live across iterations: lend them to this observation, then take them back. */
	host_daemons = o.kube.host_daemon_processes;
	obs_kube_free(&o.kube);
	o.kube = st->facts;
	o.kube.releases = st->pb->releases;
	o.kube.host_daemon_processes = host_daemons;
	r = loop_transport(st, &o, due & SCHEDULE_TRANSPORT, now);
	if (r == 0)
		r = profile_evaluate(&o, &p);
	/* The GPU pods judged once, for their Events and the metrics; transport only on a fresh sample. */
	if (r == 0 && (r = workloads_evaluate(&o, &p, &w)) == 0 && o.transport.sampled) {
		struct transport_limits lim = { st->opt->transport_grace, st->opt->transport_tcp_rate };

		workloads_transport(&w, &o, &lim);
		loop_transport_log(st, &w);
	}
	if (r < 0) {
		st->facts = o.kube;
		memset(&o.kube, 0, sizeof(o.kube));
		workloads_free(&w);
		profile_free(&p);
		observation_free(&o);
		return r;
	}
	loop_log_change(st, &p);
	daemon_metrics_observed(st->metrics, &p, &w);   /* out of memory: the page keeps the last values */

	/* In backoff, only the retry may write (polling: a read first): events never hammer a failing API. */
	if (st->aw)
		may_write = loop_watch_may_write(st, due);
	else
		may_write = st->publish && st->have_facts &&
			    (read_ok || (!(due & SCHEDULE_READ) && !st->sched.failures));
	if (read_ok) {
		if (st->sched.failures)
			log_emit(LOG_LEVEL_INFO, "API answering again", NULL);
		schedule_api_ok(&st->sched, now);
	}
	/* The writes go on the client's streams: their answers come in loop_woken(), never waited for here. */
	r = apiwrite_observed(st->wr, &o, &p, &w, now, beat, may_write);
	if (st->aw && (due & SCHEDULE_RETRY) && r == 0 && !apiwrite_busy(st->wr))
		schedule_api_ok(&st->sched, now);       /* nothing to write: the node carries it already */
	st->facts = o.kube;
	memset(&o.kube, 0, sizeof(o.kube));
	workloads_free(&w);
	profile_free(&p);
	observation_free(&o);
	return r == -ENOMEM ? r : 0;
}

/* ---- sources ---- */

enum {
	LOOP_FD_SIGNAL = 0,
	LOOP_FD_LINKS,
	LOOP_FD_UEVENTS,
	LOOP_FD_WATCH,
	LOOP_FD_RELEASES,
	LOOP_FD_METRICS,                /* served after every poll() (its timeouts too), never an event */
	LOOP_FD__COUNT,
};

static void loop_sources(struct loop_state *st)
{
	char why[64];
	int r;

	r = links_watch_open(&st->links);
	if (r < 0)
		log_emit(LOG_LEVEL_WARN, "no link events: relying on the resync", "error", strerror(-r), NULL);
	r = uevents_open(&st->uevents);
	if (r < 0)
		log_emit(LOG_LEVEL_WARN, "no uevents: relying on the resync", "error", strerror(-r), NULL);
	r = watch_open(observe_rootfd(st->opt->root), st->opt->root, &st->watch);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", strerror(-r));
		log_emit(LOG_LEVEL_WARN, "no inotify watches: relying on the resync", "error", why, NULL);
	}
	if (st->opt->releases) {
		char err[512];

		if (filewatch_open(st->opt->releases, &st->relwatch, err, sizeof(err)) < 0)
			log_emit(LOG_LEVEL_WARN, "the release table is not followed: re-read on SIGHUP only", "file",
				 st->opt->releases, "error", err, NULL);
	}
}

/* Drain one source; it may say what happened. Return: events seen. */
static int loop_drain(struct loop_state *st, size_t which, uint64_t now, char *what, size_t len)
{
	int n = 0;

	switch (which) {
	case LOOP_FD_LINKS:
		n = links_watch_drain(st->links, what, len);
		loop_flap_events(st, now);
		break;
	case LOOP_FD_UEVENTS:
		n = uevents_drain(st->uevents, what, len);
		break;
	case LOOP_FD_WATCH:
		n = watch_drain(st->watch, what, len);
		if (n < 0) {
			log_emit(LOG_LEVEL_ERROR, "inotify read failed: watches dropped, relying on the resync",
				 "error", strerror(-n), NULL);
			watch_free(st->watch);
			st->watch = NULL;
			n = 1;
		}
		break;
	case LOOP_FD_RELEASES: {
		bool lost = false;

		n = filewatch_drain(st->relwatch, &lost);
		if (n < 0 || lost) {
			log_emit(LOG_LEVEL_WARN, "the release table's directory is no longer followed: re-read on SIGHUP only",
				 "file", st->opt->releases, "error", n < 0 ? strerror(-n) : "the directory was removed or moved",
				 NULL);
			filewatch_free(st->relwatch);
			st->relwatch = NULL;
			n = n < 0 ? 0 : n;
		}
		if (n > 0) {
			st->releases_dirty = true;
			snprintf(what, len, "%s", st->opt->releases);
		}
		break;
	}
	default:
		break;
	}
	return n;
}

static const char *const loop_source_name[LOOP_FD__COUNT] = {
	"signal", "netlink", "uevent", "inotify", "releases", "metrics",
};

static void loop_log_start(const struct loop_state *st, uint64_t now)
{
	const struct cli_options *opt = st->opt;
	char interval[16], jitter[16], first[32] = "", heartbeat[16];
	const char *api = st->pb->http ? (opt->node ? (st->aw ? "watch" : "poll") : "no: no node name (--node or NODE_NAME)")
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

/* Watches unless --no-watch; polling when they cannot be set up. */
static enum schedule_api loop_api_mode(struct loop_state *st)
{
	struct apiwatch_config cfg = {
		.http = st->pb->http, .node = st->opt->node, .prefix = st->opt->prefix,
		.interval_s = st->opt->interval, .seed = loop_random(),
	};
	int r;

	if (!st->api)
		return SCHEDULE_API_NONE;
	if (st->opt->no_watch)
		return SCHEDULE_API_POLL;
	r = apiwatch_new(&cfg, &st->aw);
	if (r == 0)
		return SCHEDULE_API_WATCH;
	log_emit(LOG_LEVEL_ERROR, "cannot set up the API watches: polling instead", "error", strerror(-r), NULL);
	return SCHEDULE_API_POLL;
}

/* The poll set: our sources, then the client's streams' sockets, watches and writes (fetched until they all fit). Return: its size. */
static size_t loop_pollfds(struct loop_state *st)
{
	size_t n;

	for (;;) {
		size_t room = st->fds_cap - LOOP_FD__COUNT;

		n = http_streams_pollfds(st->pb->http, st->fds + LOOP_FD__COUNT, room);
		if (n <= room)
			break;
		{
			struct pollfd *f = realloc(st->fds, (LOOP_FD__COUNT + n + 8) * sizeof(*f));

			if (!f) {
				n = room;       /* the rest wait for the next turn (the streams' timer still runs) */
				break;
			}
			st->fds = f;
			st->fds_cap = LOOP_FD__COUNT + n + 8;
		}
	}
	st->fds[LOOP_FD_SIGNAL] = (struct pollfd){ .fd = st->sig_fd, .events = POLLIN };
	st->fds[LOOP_FD_LINKS] = (struct pollfd){ .fd = st->links ? links_watch_fd(st->links) : -1, .events = POLLIN };
	st->fds[LOOP_FD_UEVENTS] = (struct pollfd){ .fd = st->uevents ? uevents_fd(st->uevents) : -1, .events = POLLIN };
	st->fds[LOOP_FD_WATCH] = (struct pollfd){ .fd = st->watch ? watch_fd(st->watch) : -1, .events = POLLIN };
	st->fds[LOOP_FD_RELEASES] = (struct pollfd){ .fd = st->relwatch ? filewatch_fd(st->relwatch) : -1,
						     .events = POLLIN };
	st->fds[LOOP_FD_METRICS] = (struct pollfd){ .fd = daemon_metrics_fd(st->metrics), .events = POLLIN };
	return LOOP_FD__COUNT + n;
}

static int loop_timeout(struct loop_state *st)
{
	uint64_t now = loop_now_ms();
	int t = schedule_timeout(&st->sched, now), a = st->aw ? apiwatch_timeout(st->aw, now) : -1;
	int m = daemon_metrics_timeout(st->metrics), h = http_streams_timeout(st->pb->http);

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
	int r = http_streams_drive(st->pb->http, st->fds + LOOP_FD__COUNT, nfds - LOOP_FD__COUNT);
	unsigned long changes;

	if (r == 0)
		r = apiwrite_drive(st->wr, &st->facts, now);
	if (!st->aw)
		return r;
	apiwatch_drive(st->aw, now);
	changes = apiwatch_changes(st->aw);
	if (changes == st->aw_seen)
		return r;
	st->aw_seen = changes;
	if (!st->aw_settled) {
		if (!apiwatch_settled(st->aw))
			return r;
		st->aw_settled = true;
		schedule_observe_now(&st->sched, now);
		return r;
	}
	log_emit(LOG_LEVEL_DEBUG, "event", "source", "api", NULL);
	schedule_event(&st->sched, now);
	return r;
}

/* Release what loop_open() made (each part may be absent). */
static void loop_close(struct loop_state *st)
{
	daemon_metrics_free(st->metrics);
	apiwrite_free(st->wr);
	apiwatch_free(st->aw);
	free(st->fds);
	links_watch_free(st->links);
	uevents_free(st->uevents);
	watch_free(st->watch);
	filewatch_free(st->relwatch);
	signals_reset();
	verdict_free(&st->last);
	tsample_free(&st->tsample);
	obs_kube_free(&st->facts);
	free(st->flap);
}

/* Set up /metrics, the signals, the schedule (the API's watches with it) and the sources. Return: 0; < 0 logged. */
static int loop_open(struct loop_state *st)
{
	const struct cli_options *opt = st->opt;
	uint64_t t0;
	int r;

	if (opt->metrics_address) {
		char err[256], addr[64];

		r = daemon_metrics_new(opt->metrics_address, st->pb, &st->metrics, err, sizeof(err));
		if (r < 0) {
			log_emit(LOG_LEVEL_ERROR, "cannot serve metrics: stopping", "error", err, NULL);
			return r;
		}
		daemon_metrics_address(st->metrics, addr, sizeof(addr));
		log_emit(LOG_LEVEL_INFO, "serving metrics", "address", addr, "path", "/metrics", NULL);
	}
	st->flap = calloc(1, sizeof(*st->flap));
	if (!st->flap) {
		log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
		return -ENOMEM;
	}
	st->api = st->pb->http && opt->node;
	st->publish = st->api && !opt->no_publish;
	st->facts.releases = st->pb->releases;
	st->fds = calloc(LOOP_FD__COUNT + 8, sizeof(*st->fds));
	r = st->fds ? signals_setup(st->pb->http, &st->sig_fd) : -ENOMEM;
	if (r < 0) {
		log_emit(LOG_LEVEL_ERROR, "cannot set up signal handling", "error", strerror(-r), NULL);
		return r;
	}
	st->fds_cap = LOOP_FD__COUNT + 8;
	t0 = loop_now_ms();
	schedule_init(&st->sched, t0, opt->interval, opt->start_jitter, loop_api_mode(st), loop_random());
	schedule_heartbeat(&st->sched, st->publish ? (uint64_t)opt->heartbeat * 1000u : 0);
	r = apiwrite_new(st->pb, &st->sched, loop_random(), &st->wr);
	if (r < 0) {
		log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
		return r;
	}
	daemon_metrics_watches(st->metrics, st->aw);
	loop_log_start(st, t0);
	loop_sources(st);
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
		st->releases_dirty = st->opt->releases != NULL;
		schedule_observe_now(&st->sched, now);
		schedule_transport_now(&st->sched, now);
	}
	for (size_t i = LOOP_FD_LINKS; i < LOOP_FD__COUNT; i++) {
		char what[LOOP_WHAT_MAX];
		int n;

		if (!fds[i].revents || fds[i].fd < 0)
			continue;
		n = loop_drain(st, i, now, what, sizeof(what));
		if (n > 0) {
			char count[16];

			snprintf(count, sizeof(count), "%d", n);
			log_emit(LOG_LEVEL_DEBUG, "event", "source", loop_source_name[i], "count", count, "first", what,
				 NULL);
			schedule_event(&st->sched, now);
		}
	}
	if (loop_api_events(st, nfds, now) == -ENOMEM)
		return -ENOMEM;
	daemon_metrics_serve(st->metrics);
	return 0;
}

int loop_run(const struct cli_options *opt, struct publisher *pb)
{
	struct loop_state st = { .opt = opt, .pb = pb, .sig_fd = -1 };
	int r, ret;

	ret = loop_open(&st);
	while (!ret && !signals_term()) {
		uint64_t now = loop_now_ms();
		unsigned due = schedule_due(&st.sched, now);
		size_t nfds;

		if (due && (r = loop_iteration(&st, due, now)) == -ENOMEM) {
			log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
			ret = r;
			break;
		}
		if (signals_term())
			break;
		loop_touch_health(&st);

		nfds = loop_pollfds(&st);
		r = poll(st.fds, nfds, loop_timeout(&st));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -errno;
			log_emit(LOG_LEVEL_ERROR, "poll failed: stopping", "error", strerror(-ret), NULL);
			break;
		}
		if (loop_woken(&st, nfds, loop_now_ms()) == -ENOMEM) {
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
