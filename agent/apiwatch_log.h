/*
 * apiwatch_log.h - the watches' state and what happened to each resource: the resources, and the
 * structs only apiwatch.c and apiwatch_log.c read (apiwatch.h's users go through its functions).
 */
#pragma once

#include "agent/log.h"
#include "probes/kube/http.h"
#include "probes/kube/kube.h"
#include "probes/kube/reflector.h"
#include "probes/kube/retry.h"
#include "probes/model/obs_kube.h"

enum apiwatch_res {
	APIWATCH_NODE = 0,      /* GET /api/v1/nodes?fieldSelector=metadata.name=NODE */
	APIWATCH_PODS,          /* GET /api/v1/pods?fieldSelector=spec.nodeName=NODE */
	APIWATCH_NETWORKS,      /* GET /apis/networking.gke.io/v1/networks */
	APIWATCH_SLICES,        /* GET /apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.driver=dra.net,spec.nodeName=NODE:
				   listed every interval (LISTED from the start), and only while the node is DRANET */
	APIWATCH__COUNT,
};

/*
 * Networks are watched (WATCHED) unless watching them is forbidden: then they are listed every
 * interval (LISTED) by a reflector that never waits by itself, on this file's schedule. While the
 * resource is absent (404: no GKE multi-networking), the watching reflector waits an interval
 * between tries, which is "looked for every interval".
 */
enum apiwatch_mode {
	APIWATCH_WATCHED = 0,
	APIWATCH_LISTED,
};

struct apiwatch_one {
	struct apiwatch *aw;
	enum apiwatch_res which;
	struct reflector *r;
	struct http_stream *s;
	bool s_watch;                   /* the open stream is a watch (else a list) */
	uint64_t s_heard;               /* its last line (or its start) */
	uint64_t wake;                  /* step again then (UINT64_MAX: when a result comes) */
	unsigned long seen_gen;         /* the store generation counted in aw->changes */
	unsigned long fed_gen;          /* ... and the one fed into the facts */
	bool fed;                       /* the facts hold a filling of this store */
	bool ever_fed;                  /* ... or held one (Networks: a reflector replaced) */
	unsigned fails;                 /* failed requests in a row */
	long status;                    /* the last failure's HTTP status (0: no answer) */
	int err;
	char why[KUBE_MSG_MAX];         /* ... what the facts say about it (no volatile part) */
	char said[KUBE_MSG_MAX];        /* ... what the log says (the client's own words) */
	unsigned long why_seq, why_fed_seq;     /* failures worth telling the facts, and told */
	enum log_level report;          /* a line to log once the next step is known; LOG_LEVEL_DEBUG + 1: none */
	const char *report_msg;         /* "API error" (with status, failures, retry_in) or another line */
	bool report_err;                /* ... which carries o->said as its error */
	bool report_wait;               /* ... and the wait before the next request (retry_in) */
	bool absent_said;               /* Networks: "absent" logged (until they exist) */
	bool missing_said;              /* Node: "does not exist" logged (until it does) */
	enum apiwatch_mode mode;
	uint64_t list_at;               /* LISTED: the next list */
	struct retry_backoff backoff;   /* LISTED: the wait after a failed list (its jitter; @fails its run) */
	unsigned long relists_before[REFLECTOR_RELIST__COUNT];  /* of the reflectors replaced */
};

struct apiwatch {
	struct http_client *http;
	char node[KUBE_NODE_NAME_MAX + 1];
	char *prefix;
	unsigned interval_s;
	uint64_t seed;
	bool started;
	bool dranet;                    /* the watched Node carries the DRANET label: its slices are listed */
	uint64_t now;                   /* of the drive in progress: the callbacks' clock */
	unsigned long changes;
	struct apiwatch_one res[APIWATCH__COUNT];
};

#define APIWATCH_NO_REPORT ((enum log_level)(LOG_LEVEL_DEBUG + 1))

extern const char *const apiwatch_name[APIWATCH__COUNT];       /* "nodes", "pods", "networks", "resourceslices" */
extern const char *const apiwatch_path[APIWATCH__COUNT];       /* their API paths */

/* A store that changed is news for the loop. */
void apiwatch_note(struct apiwatch_one *o);

/* A failed request: counted, told to the facts while the store was never filled, logged after the step. */
void apiwatch_failed(struct apiwatch_one *o, long status, int err, const char *why, const char *said,
		     enum log_level level);

/* A 410: the reflector relists after its backoff (growing while 410s come in a row); said with the wait. */
void apiwatch_expired(struct apiwatch_one *o);

/* What the facts say about a failed answer: stable words (no resourceVersion, no port), the Status message. */
void apiwatch_why(const struct apiwatch_one *o, const struct http_stream_end *end, char *buf, size_t len);

/* An answer after failures: "API answering again" (unless another line is owed), the count reset. */
void apiwatch_recovered(struct apiwatch_one *o);

/* The line owed after a step, with the wait before the next request. */
void apiwatch_log(struct apiwatch_one *o, uint64_t now);
