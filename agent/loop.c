/* loop.c - the daemon loop: one poll() over netlink, uevents, inotify, signals and timers. */
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
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "agent/flap.h"
#include "agent/log.h"
#include "agent/loop.h"
#include "agent/observe.h"
#include "agent/schedule.h"
#include "agent/workload_events.h"
#include "probes/host/hostfs.h"
#include "probes/host/links.h"
#include "probes/host/uevents.h"
#include "probes/host/watch.h"
#include "report/checks/evaluate.h"
#include "report/render/condition.h"

#define LOOP_WHAT_MAX 128

#define LOOP_CANCEL_TICK_MS     20      /* SIGTERM during an API call: re-cancel this often */
#define LOOP_CANCEL_GIVEUP_MS   900     /* ... and leave at once after this long */
#define LOOP_HUP_LOG_MS         60000   /* SIGHUP is logged at info at most this often, else debug */

/* Set by the signal handler; read by the loop. */
static volatile sig_atomic_t loop_sig_term, loop_sig_hup, loop_in_api, loop_cancel_ticks;
static volatile int loop_sig_fd = -1;
static struct http_client *volatile loop_sig_http;

struct loop_state {
	const struct cli_options *opt;
	struct publisher *pb;
	struct schedule sched;
	bool api;                       /* an API and a node name: reads happen */
	bool publish;                   /* ... and writes are allowed */
	struct obs_kube facts;          /* the last API read: node, pods, our keys as published */
	bool have_facts;                /* facts came from a successful read */
	struct loop_verdict last;
	bool health_failed;             /* the last health-file touch failed (logged once) */
	bool observe_failed;            /* the last observation could not be made (nothing published) */
	char observe_why[2 * OBS_MSG_MAX + 32]; /* ... and why, as logged (logged again when it changes) */
	uint64_t hup_logged_at;         /* the last SIGHUP logged at info */
	struct flap *flap;              /* each link's up/down history: flap damping */
	int sig_pipe[2];
	struct links_watch *links;
	struct uevents *uevents;
	struct watch *watch;
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

/* ---- what changed ---- */

void loop_verdict_free(struct loop_verdict *v)
{
	for (size_t i = 0; i < CHECK__COUNT; i++)
		free(v->message[i]);
	memset(v, 0, sizeof(*v));
}

int loop_verdict_set(struct loop_verdict *v, const struct profile *p)
{
	loop_verdict_free(v);
	v->ready = p->ready;
	v->kind = p->kind;
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		v->status[i] = p->checks[i].status;
		v->message[i] = strdup(p->checks[i].message ? p->checks[i].message : "");
		if (!v->message[i]) {
			loop_verdict_free(v);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < p->n_nics && v->n_nics < LOOP_NICS_MAX; i++, v->n_nics++) {
		snprintf(v->nics[i].bdf, sizeof(v->nics[i].bdf), "%s", p->nics[i].bdf);
		snprintf(v->nics[i].name, sizeof(v->nics[i].name), "%s", p->nics[i].name);
		v->nics[i].state = p->nics[i].state;
	}
	v->valid = true;
	return 0;
}

static const char *loop_state_text(enum nic_state s)
{
	const char *n = nic_state_name(s);

	return n ? n : "unknown";
}

int loop_verdict_diff(const struct loop_verdict *old, const struct profile *p, struct strbuf *out)
{
	int n = 0;
	const char *sep = "";

	if (!old->valid) {
		strbuf_appendf(out, "profile %s, ready %s", profile_kind_name(p->kind), p->ready ? "true" : "false");
		return out->oom ? -ENOMEM : 1;
	}
	if (old->kind != p->kind) {
		strbuf_appendf(out, "%sprofile %s→%s", sep, profile_kind_name(old->kind), profile_kind_name(p->kind));
		sep = "; ";
		n++;
	}
	if (old->ready != p->ready) {
		strbuf_appendf(out, "%sready %s→%s", sep, old->ready ? "true" : "false", p->ready ? "true" : "false");
		sep = "; ";
		n++;
	}
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		const struct check *c = &p->checks[i];
		const char *msg = c->message ? c->message : "";

		if (old->status[i] == c->status && strcmp(old->message[i], msg) == 0)
			continue;
		if (old->status[i] != c->status)
			strbuf_appendf(out, "%s%s %s→%s: %s", sep, check_id_name(c->id),
				       check_status_name(old->status[i]), check_status_name(c->status), msg);
		else
			strbuf_appendf(out, "%s%s: %s", sep, check_id_name(c->id), msg);
		sep = "; ";
		n++;
	}
	/* NIC states by BDF: in-pod and back changes no check, yet it is worth a line. */
	for (size_t i = 0; i < p->n_nics && i < LOOP_NICS_MAX; i++) {
		const struct profile_nic *nic = &p->nics[i];
		enum nic_state was = NIC_STATE_UNKNOWN;
		const char *name = nic->name[0] ? nic->name : nic->bdf;
		bool found = false;
		size_t j_found = 0;

		for (size_t j = 0; j < old->n_nics; j++)
			if (strcmp(old->nics[j].bdf, nic->bdf) == 0) {
				was = old->nics[j].state;
				found = true;
				j_found = j;
			}
		if (found && was == nic->state)
			continue;
		/* A NIC in a pod has no name here without the API's nic-info: keep the one it had. */
		if (!nic->name[0] && found && old->nics[j_found].name[0])
			name = old->nics[j_found].name;
		strbuf_appendf(out, "%snic %s %s→%s", sep, name,
			       found ? loop_state_text(was) : "absent", loop_state_text(nic->state));
		sep = "; ";
		n++;
	}
	for (size_t j = 0; j < old->n_nics; j++) {
		bool found = false;

		for (size_t i = 0; i < p->n_nics; i++)
			found |= strcmp(old->nics[j].bdf, p->nics[i].bdf) == 0;
		if (found)
			continue;
		strbuf_appendf(out, "%snic %s %s→absent", sep, old->nics[j].name[0] ? old->nics[j].name : old->nics[j].bdf,
			       loop_state_text(old->nics[j].state));
		sep = "; ";
		n++;
	}
	return out->oom ? -ENOMEM : n;
}

/* ---- signals ---- */

/*
 * http_cancel() stops the call in flight, but a publisher function makes several calls in a
 * row and the flag is consumed by the first. So after SIGTERM during an API call, a timer
 * cancels again every tick (its signal also interrupts the poll() inside libcurl, so the
 * cancel is seen at once), and if the call still has not returned, the process leaves: the
 * annotations stay as they are either way.
 */
static void loop_on_alarm(int sig)
{
	int saved = errno;

	if (loop_sig_http)
		http_cancel(loop_sig_http);
	if (loop_in_api && ++loop_cancel_ticks * LOOP_CANCEL_TICK_MS >= LOOP_CANCEL_GIVEUP_MS)
		_exit(0);
	errno = saved;
}

static void loop_on_signal(int sig)
{
	int saved = errno;

	if (sig == SIGHUP) {
		loop_sig_hup = 1;
	} else {
		loop_sig_term = sig;
		if (loop_sig_http)
			http_cancel(loop_sig_http);
		if (loop_in_api) {
			struct itimerval tick = {
				.it_interval = { .tv_usec = LOOP_CANCEL_TICK_MS * 1000 },
				.it_value = { .tv_usec = LOOP_CANCEL_TICK_MS * 1000 },
			};

			setitimer(ITIMER_REAL, &tick, NULL);
		}
	}
	if (loop_sig_fd >= 0)
		(void)!write(loop_sig_fd, "s", 1);
	errno = saved;
}

static int loop_signals(struct loop_state *st)
{
	struct sigaction sa = { .sa_handler = loop_on_signal }, alarm_sa = { .sa_handler = loop_on_alarm };
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };

	if (pipe2(st->sig_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	loop_sig_fd = st->sig_pipe[1];
	loop_sig_http = st->pb->http;
	sigemptyset(&sa.sa_mask);
	sigemptyset(&alarm_sa.sa_mask);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -errno;
	}
	if (sigaction(SIGALRM, &alarm_sa, NULL) < 0)
		return -errno;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

static void loop_signals_reset(struct loop_state *st)
{
	struct itimerval off = { 0 };

	setitimer(ITIMER_REAL, &off, NULL);
	signal(SIGALRM, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	loop_sig_fd = -1;
	loop_sig_http = NULL;
	for (int i = 0; i < 2; i++)
		if (st->sig_pipe[i] >= 0)
			close(st->sig_pipe[i]);
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

static void loop_retry_text(uint64_t delay_ms, char *buf, size_t len)
{
	time_t at = time(NULL) + (time_t)((delay_ms + 999) / 1000);
	struct tm tm;
	char ts[32];

	gmtime_r(&at, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(buf, len, "%llu.%03llus (%s)", (unsigned long long)(delay_ms / 1000),
		 (unsigned long long)(delay_ms % 1000), ts);
}

static void loop_api_failed(struct loop_state *st, uint64_t now, const char *op, long status, const char *err)
{
	uint64_t d = schedule_api_failed(&st->sched, now, status, loop_random());
	char retry[80], code[16], fails[16];

	loop_retry_text(d, retry, sizeof(retry));
	snprintf(code, sizeof(code), "%ld", status);
	snprintf(fails, sizeof(fails), "%u", st->sched.failures);
	log_emit(LOG_LEVEL_ERROR, "API error", "op", op, "status", status ? code : "none", "error", err,
		 "failures", fails, "retry_in", retry, NULL);
}

/* Read node and pods into st->facts. Return: 0 or -EIO (logged, backoff scheduled). */
static int loop_read(struct loop_state *st, uint64_t now)
{
	struct obs_kube k = { 0 };
	const struct kube_fetch *bad;
	int r;

	loop_in_api = 1;
	r = !loop_sig_term ? publisher_read(st->pb, st->opt->node, &k) : -EINTR;
	loop_in_api = 0;
	if (loop_sig_term) {
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
	loop_api_failed(st, now, bad == &k.node_fetch ? "read node" : "list pods", bad->http_status, bad->message);
	if (st->have_facts) {
		obs_kube_free(&k);      /* the last good facts stand: an API failure removes nothing */
	} else {
		obs_kube_free(&st->facts);
		st->facts = k;          /* the report then says why the API facts are missing */
	}
	return -EIO;
}

static int loop_publish(struct loop_state *st, struct observation *o, const struct profile *p, uint64_t now)
{
	struct publish_result res;
	char err[512], keys_text[16];
	int n, r;

	n = publisher_pending(st->pb, o, p);
	if (n <= 0) {
		if (n == 0)
			schedule_publish_done(&st->sched);
		return n == -ENOENT ? 0 : n;
	}
	if (!schedule_may_publish(&st->sched, now)) {
		log_emit(LOG_LEVEL_DEBUG, st->sched.spacing_ms ? "write held back: a link flaps, one write per 10 s"
							       : "write held back by the start jitter", NULL);
		schedule_hold_publish(&st->sched);
		return 0;
	}
	loop_in_api = 1;
	r = !loop_sig_term ? publisher_write(st->pb, o, p, now, &res, err, sizeof(err)) : -EINTR;
	loop_in_api = 0;
	if (loop_sig_term)
		return -EINTR;
	if (r < 0) {
		/* Status unknown here: the backoff then grows from the base, and the node is re-read first. */
		loop_api_failed(st, now, res.failed ? res.failed : "publish", 0, err);
		return r;
	}
	schedule_wrote(&st->sched, now);
	snprintf(keys_text, sizeof(keys_text), "%u", res.annotations + res.labels);
	log_emit(LOG_LEVEL_INFO, "published", "node", st->opt->node, "keys", keys_text,
		 "condition", res.condition ? res.status : "unchanged", "reason", res.reason,
		 "event", res.event ? (p->ready ? "FabricReady" : "FabricNotReady") : "none",
		 "ready", p->ready ? "true" : "false", NULL);
	if (res.events_failed)
		log_emit(LOG_LEVEL_ERROR, "Event not posted: retried later", "error", res.events_error, NULL);
	return 0;
}

/*
 * After the node's own writes: the daemon's Events on GPU pods, and any Event waiting for its
 * backoff. @allowed: the API may be written to now (else the next iteration that may will post).
 */
static int loop_events(struct loop_state *st, struct observation *o, const struct profile *p, uint64_t now,
		       bool allowed)
{
	uint64_t at;
	int r;

	if (!allowed)
		return 0;
	if (!schedule_may_publish(&st->sched, now)) {
		schedule_hold_publish(&st->sched);
		return 0;
	}
	loop_in_api = 1;
	r = !loop_sig_term ? workload_events_run(st->pb, o, p, now) : -EINTR;
	loop_in_api = 0;
	at = eventq_wake_at(&st->pb->events);
	schedule_events(&st->sched, at && at <= now ? now + SCHEDULE_DEBOUNCE_MS : at);
	return loop_sig_term ? -EINTR : r;
}

/* The node could not be observed for a while: its condition says Unknown (one write, then none). */
static void loop_unobserved(struct loop_state *st, uint64_t now)
{
	char err[512];
	int r;

	if (!st->publish || !st->have_facts || st->sched.failures || !schedule_may_publish(&st->sched, now))
		return;
	loop_in_api = 1;
	r = !loop_sig_term ? publisher_unobserved(st->pb, &st->facts, st->observe_why, now, err, sizeof(err)) : 0;
	loop_in_api = 0;
	if (r > 0)
		log_emit(LOG_LEVEL_INFO, "published", "node", st->opt->node, "condition", "Unknown",
			 "reason", CONDITION_UNKNOWN_REASON, NULL);
	else if (r < 0)
		loop_api_failed(st, now, "patch node status", 0, err);
}

/* Whether the verdict itself (profile, ready, a check's status) differs from @v's. */
static bool loop_verdict_moved(const struct loop_verdict *v, const struct profile *p)
{
	if (!v->valid || v->kind != p->kind || v->ready != p->ready)
		return true;
	for (size_t i = 0; i < CHECK__COUNT; i++)
		if (v->status[i] != p->checks[i].status)
			return true;
	return false;
}

static void loop_log_change(struct loop_state *st, const struct profile *p)
{
	struct strbuf sb = { 0 };
	int n = loop_verdict_diff(&st->last, p, &sb);
	/* While a link flaps, its samples and counts change each time: only verdict changes are info. */
	enum log_level level = flap_any_held(st->flap) && !loop_verdict_moved(&st->last, p) ? LOG_LEVEL_DEBUG
											      : LOG_LEVEL_INFO;

	if (n > 0)
		log_emit(level, st->last.valid ? "observed change" : "observed", "changes", sb.s,
			 "summary", p->summary, NULL);
	strbuf_free(&sb);
	if (n != 0)
		loop_verdict_set(&st->last, p);
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
	schedule_damp(&st->sched, flap_next_release(st->flap));
	schedule_spacing(&st->sched, flap_any_held(st->flap) ? SCHEDULE_FLAP_SPACING_MS : 0);
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

static int loop_iteration(struct loop_state *st, unsigned due, uint64_t now)
{
	struct observation o;
	struct profile p;
	bool read_ok = false, may_write, observed;
	unsigned host_daemons;
	int r;

	r = observe_node(st->opt, &o);
	schedule_observed(&st->sched);
	if (r == -ENOMEM) {
		observation_free(&o);
		return r;
	}
	observed = r == 0;
	loop_flap_observed(st, &o, o.links.status.state == PROBE_OK, now);
	if ((due & SCHEDULE_READ) && st->api) {
		r = loop_read(st, now);
		if (r == -EINTR) {
			observation_free(&o);
			return r;
		}
		read_ok = r == 0;
	}
	if (!observed) {
		loop_observe_failed(st, &o, now);
		if (read_ok)
			schedule_api_ok(&st->sched, now);       /* the API answered: its schedule goes on */
		loop_unobserved(st, now);
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
	r = profile_evaluate(&o, &p);
	if (r < 0) {
		st->facts = o.kube;
		memset(&o.kube, 0, sizeof(o.kube));
		observation_free(&o);
		return r;
	}
	loop_log_change(st, &p);

	/* In backoff, only the retry (a read first) may write: events never hammer a failing API. */
	may_write = st->publish && st->have_facts && (read_ok || (!(due & SCHEDULE_READ) && !st->sched.failures));
	r = may_write ? loop_publish(st, &o, &p, now) : 0;
	if (r == 0)
		r = loop_events(st, &o, &p, now, may_write);
	if (read_ok && r == 0) {
		if (st->sched.failures)
			log_emit(LOG_LEVEL_INFO, "API answering again", NULL);
		schedule_api_ok(&st->sched, now);
	}
	st->facts = o.kube;
	memset(&o.kube, 0, sizeof(o.kube));
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
	r = watch_open(st->opt->root, &st->watch);
	if (r < 0) {
		snprintf(why, sizeof(why), "%s", strerror(-r));
		log_emit(LOG_LEVEL_WARN, "no inotify watches: relying on the resync", "error", why, NULL);
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
	default:
		break;
	}
	return n;
}

static const char *const loop_source_name[LOOP_FD__COUNT] = { "signal", "netlink", "uevent", "inotify" };

static void loop_log_start(const struct loop_state *st)
{
	const struct cli_options *opt = st->opt;
	char interval[16], jitter[16];
	const char *api = st->pb->http ? (opt->node ? "yes" : "no: no node name (--node or NODE_NAME)")
				       : st->pb->http_why;

	snprintf(interval, sizeof(interval), "%us", opt->interval);
	snprintf(jitter, sizeof(jitter), "%us", opt->start_jitter);
	log_emit(LOG_LEVEL_INFO, "started", "version", TCPXO_VERSION, "node", opt->node ? opt->node : "",
		 "root", opt->root, "paths", hostfs_kernel_resolution() ? "openat2" : "walk", "api", api,
		 "publish", st->publish ? "yes" : "no", "interval", interval, "start_jitter", jitter, NULL);
}

int loop_run(const struct cli_options *opt, struct publisher *pb)
{
	struct loop_state st = { .opt = opt, .pb = pb, .sig_pipe = { -1, -1 } };
	int r, ret = 0;

	loop_sig_term = loop_sig_hup = 0;
	st.flap = calloc(1, sizeof(*st.flap));
	if (!st.flap) {
		log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
		return -ENOMEM;
	}
	st.api = pb->http && opt->node;
	st.publish = st.api && !opt->no_publish;
	st.facts.releases = pb->releases;
	r = loop_signals(&st);
	if (r < 0) {
		log_emit(LOG_LEVEL_ERROR, "cannot set up signal handling", "error", strerror(-r), NULL);
		loop_signals_reset(&st);
		free(st.flap);
		return r;
	}
	loop_log_start(&st);
	loop_sources(&st);
	schedule_init(&st.sched, loop_now_ms(), opt->interval, opt->start_jitter, st.api, loop_random());

	while (!loop_sig_term) {
		struct pollfd fds[LOOP_FD__COUNT];
		uint64_t now = loop_now_ms();
		unsigned due = schedule_due(&st.sched, now);

		if (due) {
			r = loop_iteration(&st, due, now);
			if (r == -ENOMEM) {
				log_emit(LOG_LEVEL_ERROR, "out of memory: stopping", NULL);
				ret = r;
				break;
			}
			if (loop_sig_term)
				break;
		}
		loop_touch_health(&st);

		fds[LOOP_FD_SIGNAL] = (struct pollfd){ .fd = st.sig_pipe[0], .events = POLLIN };
		fds[LOOP_FD_LINKS] = (struct pollfd){ .fd = st.links ? links_watch_fd(st.links) : -1, .events = POLLIN };
		fds[LOOP_FD_UEVENTS] = (struct pollfd){ .fd = st.uevents ? uevents_fd(st.uevents) : -1, .events = POLLIN };
		fds[LOOP_FD_WATCH] = (struct pollfd){ .fd = st.watch ? watch_fd(st.watch) : -1, .events = POLLIN };
		r = poll(fds, LOOP_FD__COUNT, schedule_timeout(&st.sched, loop_now_ms()));
		if (r < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			log_emit(LOG_LEVEL_ERROR, "poll failed: stopping", "error", strerror(-r), NULL);
			ret = r;
			break;
		}
		now = loop_now_ms();
		if (fds[LOOP_FD_SIGNAL].revents) {
			char buf[64];

			while (read(st.sig_pipe[0], buf, sizeof(buf)) > 0)
				;
			if (loop_sig_hup) {
				bool loud = !st.hup_logged_at || now - st.hup_logged_at >= LOOP_HUP_LOG_MS;

				/* A SIGHUP loop (a script, a probe) must not flood the log: info once a minute. */
				loop_sig_hup = 0;
				log_emit(loud ? LOG_LEVEL_INFO : LOG_LEVEL_DEBUG, "SIGHUP: re-observing now", NULL);
				if (loud)
					st.hup_logged_at = now;
				schedule_observe_now(&st.sched, now);
			}
		}
		for (size_t i = LOOP_FD_LINKS; i < LOOP_FD__COUNT; i++) {
			char what[LOOP_WHAT_MAX];
			int n;

			if (!fds[i].revents || fds[i].fd < 0)
				continue;
			n = loop_drain(&st, i, now, what, sizeof(what));
			if (n > 0) {
				char count[16];

				snprintf(count, sizeof(count), "%d", n);
				log_emit(LOG_LEVEL_DEBUG, "event", "source", loop_source_name[i], "count", count,
					 "first", what, NULL);
				schedule_event(&st.sched, now);
			}
		}
	}
	if (loop_sig_term)
		log_emit(LOG_LEVEL_INFO, "stopping: annotations left in place", "signal",
			 loop_sig_term == SIGINT ? "SIGINT" : "SIGTERM", NULL);
	links_watch_free(st.links);
	uevents_free(st.uevents);
	watch_free(st.watch);
	loop_signals_reset(&st);
	loop_verdict_free(&st.last);
	obs_kube_free(&st.facts);
	free(st.flap);
	return ret;
}
