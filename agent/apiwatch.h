/* apiwatch.h - the daemon's API facts kept current by watches: its Node, the pods on it, the Networks. */
#pragma once

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/apiwatch_log.h"
#include "probes/kube/http.h"
#include "probes/model/obs_kube.h"

/*
 * One reflector per resource (probes/kube/reflector.h) over non-blocking streams of the
 * publisher's HTTP client; the loop polls their sockets beside its own and drives them. Each
 * store is filled by one watch with sendInitialEvents (list + watch where the server refuses
 * it), follows from the newest resourceVersion, resumes when the server ends a watch and
 * relists on 410 after the reflector's backoff (longer with each 410 or failure in a row, until
 * a watch stays healthy for RETRY_HEALTHY_MS). Networks are listed every interval instead when
 * watching them is forbidden, and looked for every interval while the resource is absent (no GKE
 * multi-networking CRD).
 * Failures are logged here, one line per failed request with the backoff before the next.
 */

struct apiwatch_config {
	struct http_client *http;       /* not owned; outlives the apiwatch */
	const char *node;               /* this node's name (a DNS subdomain) */
	const char *prefix;             /* our annotation key prefix (kubeparse_node()) */
	unsigned interval_s;            /* --interval: a watch asks timeoutSeconds in [1.2, 2.4) intervals,
					   so that the resync ends it first; the Networks list period */
	uint64_t seed;                  /* jitter */
};

struct apiwatch;

/**
 * apiwatch_new() - the three reflectors for @cfg; nothing is sent before apiwatch_resync().
 * Return: 0; -EINVAL for a missing client or an invalid node name; -ENOMEM.
 */
int apiwatch_new(const struct apiwatch_config *cfg, struct apiwatch **ret);

/* Close every stream (no request is sent) and free. NULL is fine. */
void apiwatch_free(struct apiwatch *aw);

/* The first call starts following; later ones refill every store now (the --interval resync). */
void apiwatch_resync(struct apiwatch *aw, uint64_t now_ms);

/*
 * The client's streams (its sockets and timer) are the loop's to poll and drive
 * (http_streams_pollfds(), http_streams_drive()): the watches' lines reach the reflectors there,
 * beside the daemon's writes (agent/apiwrite.c) on the same client.
 */

/*
 * apiwatch_clock() - the time of this turn, before the client's streams are driven: the watches'
 * lines and ends run there and are timed with it (a watch's age, the silence timer), not with the
 * last apiwatch_drive()'s time, which is as old as the loop's sleep. NULL is fine.
 */
void apiwatch_clock(struct apiwatch *aw, uint64_t now_ms);

/* Milliseconds until a reflector wants apiwatch_drive() (a backoff's end, the Networks' list); -1 none. */
int apiwatch_timeout(struct apiwatch *aw, uint64_t now_ms);

/*
 * apiwatch_drive() - after the client's streams were driven: the reflectors' timers due, the
 * streams they ask opened and closed, failures logged. A store that could not proceed ends its
 * stream (out of memory shows in the next apiwatch_update()).
 */
void apiwatch_drive(struct apiwatch *aw, uint64_t now_ms);

/* Grows whenever apiwatch_update() would change the facts (a store changed, a read failed). */
unsigned long apiwatch_changes(const struct apiwatch *aw);

/*
 * apiwatch_relists() - each resource's relists ("nodes", "pods", "networks") by what asked them
 * ("gone", "resync", "error"), every pair once (zeros too), since the watches were made.
 */
void apiwatch_relists(const struct apiwatch *aw,
		      void (*fn)(const char *resource, const char *reason, unsigned long n, void *arg), void *arg);

/* Every resource has been read or has failed once: the facts say something about each. */
bool apiwatch_settled(const struct apiwatch *aw);

/* The node and its pods were read (their stores filled): the facts are the API's. */
bool apiwatch_ready(const struct apiwatch *aw);

/**
 * apiwatch_update() - bring the parts of @k whose store changed up to date, through the same
 * parsers as GET answers (probes/kube/kubefeed.h); a resource never read yet gets its failure.
 * Parts that did not change are left alone (so what the loop remembers after a write stands).
 * Return: 0; -ENOMEM.
 */
int apiwatch_update(struct apiwatch *aw, struct obs_kube *k);
