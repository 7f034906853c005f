/* eventq.h - the Events the agent has to post: a queue with one backoff, dedupe keys, an age limit (pure, time injected). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/kube/retry.h"

#define EVENTQ_MAX              256             /* Events waiting at once; a new one beyond drops the oldest */
#define EVENTQ_KEYS_MAX         4096            /* dedupe keys remembered; beyond, the oldest are forgotten */
#define EVENTQ_MAX_AGE_MS       3600000u        /* an Event not posted within an hour is dropped (the API
						   server keeps Events for an hour: it would be gone anyway) */
#define EVENTQ_WHAT_MAX         160

struct eventq_item {
	char ns[64];                    /* the namespace the Event is posted in */
	char *body;                     /* the Event object (JSON), owned */
	char what[EVENTQ_WHAT_MAX];     /* for logs: "pod ml/train-0 TCPXOUnattached" */
	uint64_t queued_at;
};

struct eventq {
	struct eventq_item *v;          /* oldest first */
	size_t n;
	struct retry_backoff backoff;   /* failed POSTs in a row (the publisher seeds its jitter) */
	uint64_t hold_until;            /* no POST before this (backoff); 0: none */
	char **keys;                    /* dedupe keys of Events queued or posted, oldest first */
	size_t n_keys;
	unsigned dropped;               /* Events dropped (queue full, too old, refused), for logs and tests */
};

/**
 * eventq_add() - queue an Event. With @key, an Event of that key that was queued before (posted,
 * waiting, or dropped) makes this a no-op: at most one Event per key for the queue's lifetime.
 * @ns, @body, @what are copied (@what cut to fit).
 * Return: 1 queued; 0 a duplicate key (nothing queued); -EINVAL (namespace too long); -ENOMEM.
 */
int eventq_add(struct eventq *q, const char *key, const char *ns, const char *body, const char *what,
	       uint64_t now);

/* Whether an Event with @key was queued in this queue's lifetime (and the key not forgotten since). */
bool eventq_seen(const struct eventq *q, const char *key);

/**
 * eventq_forget() - forget the keys that @keep says are no longer needed (a pod that left the
 * node never comes back with the same uid).
 */
void eventq_forget(struct eventq *q, bool (*keep)(const char *key, void *arg), void *arg);

/* The oldest Event when a POST is allowed at @now (no backoff in force), else NULL. */
struct eventq_item *eventq_due(struct eventq *q, uint64_t now);

/* The head Event was posted (or exists already): remove it; the backoff ends. */
void eventq_posted(struct eventq *q);

/*
 * The head Event's POST failed for a reason worth retrying (no answer, 429, 5xx): it stays at the
 * head and the queue waits its backoff (probes/kube/retry.h: [d/2, d], d doubling from
 * RETRY_BACKOFF_BASE_MS to RETRY_BACKOFF_CAP_MS), after the server's @retry_after_s (0: none).
 * Return: the delay in ms.
 */
uint64_t eventq_retry(struct eventq *q, uint64_t now, unsigned retry_after_s);

/* The head Event was refused for good (400, 403, 422, ...): drop it. */
void eventq_drop(struct eventq *q);

/* Drop the Events queued more than EVENTQ_MAX_AGE_MS before @now. Return: how many. */
unsigned eventq_expire(struct eventq *q, uint64_t now);

/* When the queue next wants to post: 0 when empty, else the end of the backoff (or 1: at once). */
uint64_t eventq_wake_at(const struct eventq *q);

void eventq_free(struct eventq *q);     /* accepts NULL; leaves *q empty */
