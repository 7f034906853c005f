/* apiwrite.h - the daemon's writes to the API: one job at a time on the client's streams, never waited for; the backoff their failures start. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "agent/publish.h"
#include "agent/schedule.h"
#include "report/checks/profile.h"
#include "report/checks/workloads.h"

/*
 * The one owner of the daemon's writes in flight: the node's merge and status patches, the
 * heartbeat, the condition Unknown, the Events. Each is a publish_job (agent/publish.h) whose
 * requests go one at a time on the HTTP client's streams, which the loop polls and drives with
 * the watches'; the loop never waits for an answer. At most one job runs: what an observation
 * wants meanwhile is held, and re-observed once the job ends (its answer is then in the facts).
 * A request has the client's 15 s (3 attempts); a job that fails starts the schedule's backoff
 * from the moment it ended, and its retry is the schedule's (SCHEDULE_RETRY, or the next read).
 */
struct apiwrite;

/**
 * apiwrite_new() - the writer of @pb's client (pb->http may be NULL: nothing is ever written),
 * keeping @sched's write timers and backoff.
 * Return: 0; -ENOMEM.
 */
int apiwrite_new(struct publisher *pb, struct schedule *sched, struct apiwrite **ret);

/* Abandon the request in flight (no answer is waited for) and free. NULL is fine. */
void apiwrite_free(struct apiwrite *w);

/* Whether a job runs. */
bool apiwrite_busy(const struct apiwrite *w);

/**
 * apiwrite_read() - the polling read (--no-watch): GET the node and its pods into @facts, waiting
 * for the answers (SIGTERM cancels them); *@have_facts set once a read succeeded. A failure is
 * logged and backs the schedule off; the last good facts stand (without any, @facts says why).
 * Return: 0; -EIO failed; -EINTR stopped by a signal.
 */
int apiwrite_read(struct apiwrite *w, const char *node, struct obs_kube *facts, bool *have_facts, uint64_t now);

/**
 * apiwrite_observed() - after an observation the daemon may write on (@may_write: API facts read,
 * not in backoff, or the backoff's retry): start the one job it wants: what differs (with the
 * Events waiting), else the heartbeat owed (@beat), else the Events due; queue the GPU pods'
 * Events of @wl first. A job already running holds the rest until it ends.
 * Return: 0; -ENOMEM.
 */
int apiwrite_observed(struct apiwrite *w, const struct observation *o, const struct profile *p,
		      const struct workloads *wl, uint64_t now, bool beat, bool may_write);

/*
 * The node could not be observed (@why): once that has lasted PUBLISH_UNKNOWN_AFTER_MS, the
 * condition Unknown (one status patch) when @facts were read and nothing fails.
 */
void apiwrite_unobserved(struct apiwrite *w, const struct obs_kube *facts, const char *why, uint64_t now);

/**
 * apiwrite_drive() - after the client's streams were driven: an answer that came goes to its
 * job (remembered in @facts, the loop's API facts), the job's next request is sent, or the job
 * ends (logged; the schedule told).
 * Return: 0; -ENOMEM.
 */
int apiwrite_drive(struct apiwrite *w, struct obs_kube *facts, uint64_t now);
