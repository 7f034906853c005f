/* schedule.h - the daemon loop's timers: debounce, API resync, backoff, start jitter, flap write spacing, heartbeat (pure, ms). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "probes/kube/retry.h"

#define SCHEDULE_DEBOUNCE_MS    1000u           /* events within this window make one re-observation */
#define SCHEDULE_WAKE_MS        10000u          /* the loop wakes at least this often (health file) */
#define SCHEDULE_OBSERVE_RETRY_MS 5000u         /* an observation that could not be made: again after */
#define SCHEDULE_FLAP_SPACING_MS 10000u         /* while a link flaps: at most one write this often */
#define SCHEDULE_RESYNC_JITTER  10u             /* watches: each resync comes up to 1/10 of the interval late */
#define SCHEDULE_TRANSPORT_MS   60000u          /* while GPU pods run: their transport is sampled this often */

/* How the loop learns the API facts. */
enum schedule_api {
	SCHEDULE_API_NONE = 0,          /* no API (or no node name): observe only */
	SCHEDULE_API_POLL,              /* --no-watch: read the node and its pods every interval */
	SCHEDULE_API_WATCH,             /* watches keep the facts; the interval is a full resync */
};

/* What an iteration of the loop must do now (a bit mask). */
enum schedule_task {
	SCHEDULE_OBSERVE = 1 << 0,      /* re-observe the node (debounced events, SIGHUP, start) */
	SCHEDULE_READ = 1 << 1,         /* poll: read the node and its pods (resync or retry);
					   watch: start the watches (the first time), else resync them */
	SCHEDULE_PUBLISH = 1 << 2,      /* a write waited for the start jitter, which has passed */
	SCHEDULE_EVENTS = 1 << 3,       /* Events wait to be posted again (their backoff ended) */
	SCHEDULE_RETRY = 1 << 4,        /* watch: a failed write's backoff has passed: try it again */
	SCHEDULE_TRANSPORT = 1 << 5,    /* sample the GPU pods' transport (with an observation) */
	SCHEDULE_HEARTBEAT = 1 << 6,    /* the condition's heartbeat is due (re-observe, then refresh it) */
};

/*
 * All deadlines are on one monotonic clock in milliseconds; 0 means "none". The struct is
 * plain data so that tests drive it with made-up times.
 */
struct schedule {
	enum schedule_api api;
	uint64_t interval_ms;           /* --interval */
	uint64_t observe_at;            /* debounce deadline */
	uint64_t read_at;               /* next API read (poll: resync or retry; watch: start or resync) */
	uint64_t retry_at;              /* watch: the failed write is tried again then */
	uint64_t publish_after;         /* no API write before this (start jitter) */
	bool publish_pending;           /* a write waits for publish_after (or the spacing) */
	struct retry_backoff backoff;   /* API failures in a row (watch: writes only; watches keep their own) */
	uint64_t damp_at;               /* re-observe then: a flapping link's hold-down ends */
	uint64_t spacing_ms;            /* writes at least this far apart (0: no limit) */
	uint64_t last_write;            /* when the last write was made (0: none yet) */
	uint64_t events_at;             /* post the waiting Events then (0: none); one iteration consumes it */
	uint64_t transport_at;          /* sample the GPU pods' transport then (0: no GPU pod runs) */
	uint64_t heartbeat_ms;          /* --heartbeat (0: off) */
	uint64_t heartbeat_at;          /* the condition's next heartbeat (0: not armed: not published yet) */
	bool writing;                   /* a write is in flight: no other is due until it ends */
	bool write_held;                /* ... and an observation wanted one meanwhile: re-observe at its end */
};

/**
 * schedule_init() - the schedule at start. Without an API: observe now. With one: nothing
 * before the start jitter, @now + (@rnd mod (@jitter_s * 1000 + 1)) ms, so that nodes started
 * together reach the API apart; then read (poll) or start the watches, and observe.
 * @rnd: a random number (injected so tests are deterministic); it seeds the backoff's jitter too.
 */
void schedule_init(struct schedule *s, uint64_t now, unsigned interval_s, unsigned jitter_s, enum schedule_api api,
		   uint64_t rnd);

/*
 * Watch: the watches were started or resynced at @now; the next resync comes after the
 * interval plus up to 1/SCHEDULE_RESYNC_JITTER of it (@rnd), so that a fleet does not align.
 */
void schedule_resynced(struct schedule *s, uint64_t now, uint64_t rnd);

/*
 * An event arrived: re-observe at the end of the debounce window (opened by the first event;
 * a later deadline, such as an observation retry, is brought forward to it).
 */
void schedule_event(struct schedule *s, uint64_t now);

/* The observation could not be made (nothing published): try again SCHEDULE_OBSERVE_RETRY_MS later. */
void schedule_observe_failed(struct schedule *s, uint64_t now);

struct flap;

/*
 * After an observation, the flap damping's timers from its history @f: re-observe when the first
 * held link's hold-down ends (only an observation releases it, and a stable link sends no event),
 * and keep writes SCHEDULE_FLAP_SPACING_MS apart while a link is held; neither once none is.
 */
void schedule_flaps(struct schedule *s, const struct flap *f);

/* Re-observe at once (SIGHUP). */
void schedule_observe_now(struct schedule *s, uint64_t now);

/*
 * After an observation: whether GPU pods run on the node (@gpu_pods) and whether their transport
 * was @sampled now. A sample sets the next one SCHEDULE_TRANSPORT_MS later (an observation with
 * it); without GPU pods there is no timer at all, so nothing under /proc/<pid>/net is read.
 */
void schedule_transport(struct schedule *s, uint64_t now, bool gpu_pods, bool sampled);

/*
 * The sample that was due is being taken: the timer stops until schedule_transport() sets it
 * again, so that an iteration that ends before its observation never leaves it due (a busy loop).
 */
void schedule_transport_taken(struct schedule *s);

/* Sample the transport at once (SIGHUP), if GPU pods run (the next observation says). */
void schedule_transport_now(struct schedule *s, uint64_t now);

/* The tasks due at @now (enum schedule_task bits; 0: nothing, sleep). */
unsigned schedule_due(const struct schedule *s, uint64_t now);

/* The poll() timeout in ms until the next deadline, never more than SCHEDULE_WAKE_MS. */
int schedule_timeout(const struct schedule *s, uint64_t now);

/* The observation was made: the debounce window closes, and the Events' wake-up is consumed. */
void schedule_observed(struct schedule *s);

/* Wake at @at (0: not) to post the Events waiting (their backoff ends then). */
void schedule_events(struct schedule *s, uint64_t at);

/* Whether an API write is allowed at @now (the start jitter has passed, the spacing is kept). */
bool schedule_may_publish(const struct schedule *s, uint64_t now);

/* The earliest time a write is allowed: the start jitter's end or the last write + spacing. */
uint64_t schedule_publish_at(const struct schedule *s);

/* A write was wanted but the start jitter or the spacing holds it back: wake up for it then. */
void schedule_hold_publish(struct schedule *s);

/* The write held back happened (or is no longer needed). */
void schedule_publish_done(struct schedule *s);

/* A write was made at @now: the spacing counts from it. */
void schedule_wrote(struct schedule *s, uint64_t now);

/*
 * A write is in flight (@writing true) or has ended at @now: while one is, no other write's task
 * (PUBLISH, EVENTS, RETRY, HEARTBEAT) is due, so the loop never spins on what it cannot send
 * yet; at its end, an observation that wanted to write meanwhile (schedule_write_held()) is made
 * again at once.
 */
void schedule_writing(struct schedule *s, bool writing, uint64_t now);

/* An observation wanted to write while a write was in flight. */
void schedule_write_held(struct schedule *s);

/* Watch: the write retry that was due is being made (it is not due again unless it fails). */
void schedule_retry_taken(struct schedule *s);

/* The API read (and any write) succeeded: reset the backoff; poll: resync after the interval. */
void schedule_api_ok(struct schedule *s, uint64_t now);

/**
 * schedule_api_failed() - an API call failed with HTTP @status (0: no answer): count the failure
 * and read again (then write) after the backoff (watch: write again). The backoff is the one
 * policy's (probes/kube/retry.h, equal jitter: [d/2, d], its jitter seeded by schedule_init()):
 * 403 and 404 wait d = RETRY_SLOW_MS (a person has to fix RBAC or the node name); anything else
 * doubles from RETRY_BACKOFF_BASE_MS up to min(RETRY_BACKOFF_CAP_MS, the interval).
 * Return: the delay chosen, in ms.
 */
uint64_t schedule_api_failed(struct schedule *s, uint64_t now, long status);

/*
 * The heartbeat: one status patch every @heartbeat_ms that refreshes the condition's
 * lastHeartbeatTime and nothing else. It is armed once the condition is on the node as the
 * daemon wants it (schedule_heartbeat_start(), schedule_heartbeat_sent()), never before. While
 * writes fail, it is not due on its own: the backoff's retry carries it (schedule_heartbeat_owed()).
 */

/* Heartbeats every @heartbeat_ms (0: none; the heartbeat is then never due). */
void schedule_heartbeat(struct schedule *s, uint64_t heartbeat_ms);

/*
 * The condition was found on the node as wanted, its lastHeartbeatTime @age_ms old (UINT64_MAX:
 * unknown): unless the heartbeat is armed already, the next comes when the node's is one period
 * old (at once when it is older, or unknown).
 */
void schedule_heartbeat_start(struct schedule *s, uint64_t now, uint64_t age_ms);

/*
 * A status patch went through at @now (a heartbeat or a change), or the heartbeat owed then was
 * dealt with otherwise (not possible now: the node not observed, its facts not read, the
 * condition not ours any more): the next heartbeat one period later, so that the loop never
 * spins on it. A heartbeat sent that then fails calls schedule_heartbeat_failed().
 */
void schedule_heartbeat_sent(struct schedule *s, uint64_t now);

/* Whether a heartbeat is owed at @now: due, or due but held back by the write backoff. */
bool schedule_heartbeat_owed(const struct schedule *s, uint64_t now);

/* The heartbeat's status patch failed at @now: owed again, sent by the backoff's retry (schedule_api_failed()). */
void schedule_heartbeat_failed(struct schedule *s, uint64_t now);
