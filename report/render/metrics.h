/* metrics.h - pure: the daemon's /metrics page in the Prometheus text format, from plain inputs. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/host/procstat.h"
#include "probes/kube/apicount.h"
#include "probes/model/strbuf.h"
#include "report/checks/attach.h"
#include "report/checks/transport.h"
#include "report/checks/profile.h"

/* tcpxo_observation_duration_seconds: upper bounds 1 ms .. 10 s (the +Inf bucket is the count). */
#define METRICS_DURATION_BUCKETS 13
extern const double metrics_duration_bounds[METRICS_DURATION_BUCKETS];

struct metrics_histogram {
	unsigned long long bucket[METRICS_DURATION_BUCKETS];    /* observations <= each bound (not cumulative) */
	unsigned long long count;
	double sum;
};

/* Count one observation of @seconds (negative or not finite: counted as 0). */
void metrics_histogram_observe(struct metrics_histogram *h, double seconds);

/*
 * One judged pod on the node. A new per-pod family is a field here and a row in metrics.c's
 * table of pod families: a state set (as the attachment verdict) or a gauge (as the GPUs).
 */
struct metrics_pod {
	char *ns, *name;                /* owned by the caller */
	enum attach_verdict verdict;
	long long gpus;                 /* its effective nvidia.com/gpu request */
	bool has_transport;             /* its transport was judged (a sample was taken since it came) */
	enum transport_state transport; /* then: the last judgement, and its rails */
	size_t rails;
};

/* Relists of one watched resource for one reason ("nodes", "gone"). */
struct metrics_relist {
	const char *resource, *reason;
	unsigned long long n;
};

/* tcpxo_node_writes_total{kind}: in this order. */
enum metrics_write {
	METRICS_WRITE_MERGE_PATCH = 0,
	METRICS_WRITE_STATUS_PATCH,
	METRICS_WRITE_EVENT,
	METRICS_WRITE__COUNT,
};

/* tcpxo_node_publish_in_sync: whether the node carries what the last verdict wants, as far as the agent knows. */
enum metrics_publish {
	METRICS_PUBLISH_OFF = 0,        /* the daemon publishes nothing (--no-publish, no API): no series */
	METRICS_PUBLISH_IN_SYNC,        /* 1: the last look found it equal, or the last write of it went through */
	METRICS_PUBLISH_OWED,           /* 0: a write is owed: it failed, was refused, waits, or none went through yet */
};

struct metrics_input {
	const char *version;
	bool evaluated;                 /* a verdict exists: @ready and @checks say it (else 0 everywhere) */
	bool observed;                  /* the last observation attempt succeeded */
	bool ready;
	enum profile_kind profile;      /* the verdict's fabric profile */
	enum check_status checks[CHECK__COUNT];
	const struct metrics_pod *pods; /* the GPU pods judged, any order */
	size_t n_pods;
	double last_observation_s;      /* Unix time of the last observation made; 0: none yet */
	const struct metrics_histogram *duration;       /* NULL: empty */
	const struct apicount *api;     /* NULL: none */
	const struct metrics_relist *relists;   /* any order */
	size_t n_relists;
	unsigned long long writes[METRICS_WRITE__COUNT];
	enum metrics_publish publish;
	const struct procstat *process; /* the process_* families: the figures read (NULL: none) */
};

/**
 * metrics_render() - the page: every family with its # HELP and # TYPE, series sorted (pods by
 * namespace and name, API requests by verb, resource and code, relists by resource and reason),
 * label values escaped (\\, \", \n; other control and non-ASCII bytes as '?', cut to 253 bytes);
 * the process_* families as Prometheus' client libraries name them, each only when read.
 * The same input gives the same bytes.
 * Return: 0; -ENOMEM (@out then holds a part of it).
 */
int metrics_render(const struct metrics_input *in, struct strbuf *out);
