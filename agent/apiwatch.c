/* apiwatch.c - the daemon's API facts kept current by watches: its Node, the pods on it, the Networks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/apiwatch.h"
#include "agent/apiwatch_log.h"
#include "agent/log.h"
#include "probes/kube/kube.h"
#include "probes/kube/kubefeed.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/kube/reflector.h"
#include "probes/kube/retry.h"

#define APIWATCH_LINE_MAX       (4u << 20)      /* one event: etcd keeps objects under 1.5 MiB */
#define APIWATCH_IDLE_MS        300000u         /* no line, not even a bookmark (about one a minute): reconnect */
#define APIWATCH_LIST_MS        60000u          /* a list's whole transfer */
#define APIWATCH_TIMEOUT_SLACK_S 60u            /* past timeoutSeconds, the client gives up on the server */
#define APIWATCH_NODE_MAX       4u              /* a name selects one Node; a few more are a hostile server */

static int apiwatch_reflector(struct apiwatch *aw, enum apiwatch_res which, enum apiwatch_mode mode,
			      struct reflector **ret)
{
	static const char *const kind[APIWATCH__COUNT] = { "Node", "Pod", "Network", "ResourceSlice" };
	static const unsigned max[APIWATCH__COUNT] = { APIWATCH_NODE_MAX, KUBEPARSE_PODS_MAX, KUBE_NETWORKS_MAX,
						       KUBE_SLICES_MAX };
	uint64_t interval_ms = (uint64_t)aw->interval_s * 1000u;
	char query[sizeof("fieldSelector=" KUBE_SLICES_SELECTOR) + KUBE_NODE_NAME_MAX];
	struct reflector_config cfg = {
		.path = apiwatch_path[which],
		.kind = kind[which],
		.watchlist = mode == APIWATCH_WATCHED,
		/* [1.2, 2.4) intervals: past the resync (at most 1.1 intervals after the last), which ends it. */
		.timeout_min_s = aw->interval_s + aw->interval_s / 5,
		/* The one policy's cap, or the interval when shorter: a retry never waits past the resync. */
		.backoff_cap_ms = (unsigned)(interval_ms < RETRY_BACKOFF_CAP_MS ? interval_ms : RETRY_BACKOFF_CAP_MS),
		.slow_retry_ms = which == APIWATCH_NETWORKS ? (unsigned)interval_ms : RETRY_SLOW_MS,
		.max_objects = max[which],
		.seed = aw->seed ^ (0x9E3779B97F4A7C15ull * (which + 1u)),
	};

	if (mode == APIWATCH_LISTED)    /* its waits are this file's (apiwatch_listed_next()) */
		cfg.backoff_base_ms = cfg.backoff_cap_ms = cfg.slow_retry_ms = 1;
	if (which == APIWATCH_NODE)
		snprintf(query, sizeof(query), "fieldSelector=metadata.name%%3D%s", aw->node);
	else if (which == APIWATCH_PODS)
		snprintf(query, sizeof(query), "fieldSelector=spec.nodeName%%3D%s", aw->node);
	else if (which == APIWATCH_SLICES)
		snprintf(query, sizeof(query), "fieldSelector=%s%s", KUBE_SLICES_SELECTOR, aw->node);
	cfg.query = which == APIWATCH_NETWORKS ? NULL : query;
	return reflector_new(&cfg, ret);
}

int apiwatch_new(const struct apiwatch_config *cfg, struct apiwatch **ret)
{
	struct apiwatch *aw;
	int r = 0;

	if (!cfg->http || !kubename_valid(cfg->node) || !cfg->interval_s)
		return -EINVAL;
	aw = calloc(1, sizeof(*aw));
	if (!aw)
		return -ENOMEM;
	aw->http = cfg->http;
	snprintf(aw->node, sizeof(aw->node), "%s", cfg->node);
	aw->prefix = cfg->prefix ? strdup(cfg->prefix) : NULL;
	aw->interval_s = cfg->interval_s;
	aw->seed = cfg->seed ? cfg->seed : 1;
	for (size_t i = 0; i < APIWATCH__COUNT && r == 0; i++) {
		struct apiwatch_one *o = &aw->res[i];

		o->aw = aw;
		o->which = (enum apiwatch_res)i;
		o->wake = UINT64_MAX;
		o->report = APIWATCH_NO_REPORT;
		o->backoff.rng = aw->seed + i + 1;
		/* A DRANET node's ResourceSlices: listed every interval (list is all the ClusterRole grants). */
		o->mode = o->which == APIWATCH_SLICES ? APIWATCH_LISTED : APIWATCH_WATCHED;
		r = apiwatch_reflector(aw, o->which, o->mode, &o->r);
	}
	if (r == 0 && cfg->prefix && !aw->prefix)
		r = -ENOMEM;
	if (r < 0) {
		apiwatch_free(aw);
		return r;
	}
	*ret = aw;
	return 0;
}

void apiwatch_free(struct apiwatch *aw)
{
	if (!aw)
		return;
	for (size_t i = 0; i < APIWATCH__COUNT; i++) {
		http_stream_close(aw->res[i].s);
		reflector_free(aw->res[i].r);
	}
	free(aw->prefix);
	free(aw);
}

/* ---- Networks: watched, or listed every interval when watching them is forbidden ---- */

/* A fresh reflector of @mode for @o: an empty store, the relist counts kept. Return: 0; -ENOMEM (@o unchanged). */
static int apiwatch_renew(struct apiwatch_one *o, enum apiwatch_mode mode)
{
	struct reflector *r;

	if (apiwatch_reflector(o->aw, o->which, mode, &r) < 0)
		return -ENOMEM;
	for (size_t k = 0; o->r && k < REFLECTOR_RELIST__COUNT; k++)
		o->relists_before[k] += reflector_stats(o->r)->relists_by[k];
	reflector_free(o->r);
	o->r = r;
	o->seen_gen = o->fed_gen = 0;
	o->fed = false;         /* the facts keep what they hold until the first list answers */
	o->mode = mode;
	return 0;
}

static void apiwatch_listed(struct apiwatch_one *o, uint64_t now)
{
	struct apiwatch *aw = o->aw;
	char every[16];

	if (apiwatch_renew(o, APIWATCH_LISTED) < 0) {
		/* Out of memory: the watching reflector goes on, retrying slowly. */
		reflector_watch_done(o->r, now, 403, -EIO, 1, 0);
		return;
	}
	o->list_at = now;
	o->fails = 0;
	snprintf(every, sizeof(every), "%us", aw->interval_s);
	log_emit(LOG_LEVEL_WARN, "Networks: watching them is forbidden (RBAC): listed every interval instead",
		 "interval", every, NULL);
}

/* A list done in LISTED mode: the next one after the interval, or the backoff after a transient failure. */
static void apiwatch_listed_next(struct apiwatch_one *o, const struct http_stream_end *end, bool ok, uint64_t now)
{
	uint64_t wait = (uint64_t)o->aw->interval_s * 1000u;

	if (!ok && (end->status == 0 || retry_status_retryable(end->status))) {
		uint64_t b;

		o->backoff.failures = o->fails;         /* the run so far: every failure in a row counts */
		b = retry_backoff_fail(&o->backoff, end->retry_after_s);
		wait = b < wait ? b : wait;
	}
	o->list_at = now + (wait ? wait : 1);
}

/* ---- streams ---- */

static void apiwatch_line(void *data, struct http_stream *s, const char *line, size_t len)
{
	struct apiwatch_one *o = data;
	int k = reflector_watch_line(o->r, o->aw->now, line, len);

	o->s_heard = o->aw->now;
	apiwatch_note(o);
	if (k == 0)
		return;
	http_stream_close(s);
	o->s = NULL;
	if (k == 1) {           /* 410: the store is refilled after the reflector's backoff */
		apiwatch_expired(o);
		return;
	}
	/* Malformed, an ERROR event, too many objects: the reflector relists after its backoff. */
	apiwatch_failed(o, 200, k, reflector_error(o->r), NULL, LOG_LEVEL_ERROR);
}

static void apiwatch_done(void *data, struct http_stream *s, const struct http_stream_end *end)
{
	struct apiwatch_one *o = data;
	uint64_t now = o->aw->now;
	bool watch = o->s_watch, ok = end->status >= 200 && end->status <= 299 && end->err == 0;
	char why[KUBE_MSG_MAX];

	o->s = NULL;
	if (end->err == -EINTR)
		return;         /* cancelled: the daemon is stopping */
	if (o->which == APIWATCH_NETWORKS && o->mode == APIWATCH_WATCHED && watch && end->status == 403) {
		apiwatch_listed(o, now);
		return;
	}
	if (watch) {
		enum reflector_state before = reflector_state(o->r);

		reflector_watch_done(o->r, now, end->status, end->err, end->attempts, end->retry_after_s);
		/* A clean end that lasted under a second without an event is a failure too. */
		if (ok && reflector_state(o->r) == REFLECTOR_BACKOFF && before != REFLECTOR_BACKOFF)
			ok = false;
		if (ok)
			log_emit(LOG_LEVEL_DEBUG, "API watch ended by the server: resumed", "op", apiwatch_name[o->which], NULL);
	} else if (reflector_list_done(o->r, now, end->status, end->body, end->len, end->attempts,
				       end->retry_after_s) < 0) {
		ok = false;
	}
	apiwatch_note(o);
	if (o->mode == APIWATCH_LISTED)
		apiwatch_listed_next(o, end, ok || end->status == 403 || end->status == 404, now);
	if (ok) {
		o->absent_said = false;
		apiwatch_recovered(o);
		return;
	}
	if (end->status == 410) {       /* the reflector relists after its backoff */
		apiwatch_expired(o);
		return;
	}
	apiwatch_why(o, end, why, sizeof(why));
	if ((o->which == APIWATCH_NETWORKS || o->which == APIWATCH_SLICES) && (end->status == 404 || end->status == 403)) {
		/* Optional facts, absent or not allowed: said once, then looked for every interval. */
		apiwatch_failed(o, end->status, end->err, why, NULL, o->absent_said ? LOG_LEVEL_DEBUG : LOG_LEVEL_WARN);
		if (o->which == APIWATCH_SLICES)
			o->report_msg = end->status == 404 ? "ResourceSlices: resource.k8s.io/v1 is not served: "
							     "looked for every interval"
							   : "ResourceSlices: listing them is forbidden (RBAC): tried every interval";
		else
			o->report_msg = end->status == 404 ? "Networks: the resource is absent (no GKE multi-networking): "
							     "looked for every interval"
							   : "Networks: listing them is forbidden (RBAC): tried every interval";
		o->absent_said = true;
		return;
	}
	/* The log has the client's own words for a transport failure (the server's address, TLS details). */
	apiwatch_failed(o, end->status, end->err, why, end->status ? NULL : end->error, LOG_LEVEL_ERROR);
}

static int apiwatch_open(struct apiwatch_one *o, const char *path, bool watch)
{
	static const struct http_stream_ops ops = { .line = apiwatch_line, .done = apiwatch_done };
	struct http_stream_config cfg = {
		.mode = watch ? HTTP_STREAM_LINES : HTTP_STREAM_WHOLE,
		.line_max = APIWATCH_LINE_MAX,
		.timeout_ms = watch ? (reflector_watch_timeout_s(o->r) + APIWATCH_TIMEOUT_SLACK_S) * 1000u : APIWATCH_LIST_MS,
		.max_attempts = 1,      /* the reflector's backoff is the only retry policy */
	};
	int r = http_stream_open(o->aw->http, path, &cfg, &ops, o, &o->s);

	/* Silence is timed here, not by libcurl's speed check: that one wakes the loop every second. */
	o->s_watch = watch;
	o->s_heard = o->aw->now;
	if (r < 0) {
		char why[KUBE_MSG_MAX];

		o->s = NULL;
		snprintf(why, sizeof(why), "GET %s: cannot send: %s", apiwatch_path[o->which], strerror(-r));
		if (watch)
			reflector_watch_done(o->r, o->aw->now, 0, r, 1, 0);
		else
			reflector_list_done(o->r, o->aw->now, 0, NULL, 0, 1, 0);
		if (r != -EINTR)
			apiwatch_failed(o, 0, r, why, NULL, LOG_LEVEL_ERROR);
		if (o->mode == APIWATCH_LISTED)
			o->list_at = o->aw->now + RETRY_BACKOFF_BASE_MS;
	}
	return r;
}

/* A watch silent for APIWATCH_IDLE_MS: a dead connection (or server); resumed after the backoff. */
static void apiwatch_silent(struct apiwatch_one *o, uint64_t now)
{
	char why[KUBE_MSG_MAX];

	http_stream_close(o->s);
	o->s = NULL;
	reflector_watch_done(o->r, now, 200, -ETIMEDOUT, 1, 0);
	snprintf(why, sizeof(why), "watch %s: nothing heard for %u s (not even a bookmark)", apiwatch_path[o->which],
		 APIWATCH_IDLE_MS / 1000u);
	apiwatch_failed(o, 200, -ETIMEDOUT, why, NULL, LOG_LEVEL_ERROR);
}

/* Do what the reflector asks until it waits. */
static void apiwatch_step(struct apiwatch_one *o, uint64_t now)
{
	if (o->s && o->s_watch && now - o->s_heard >= APIWATCH_IDLE_MS)
		apiwatch_silent(o, now);
	for (unsigned guard = 0; guard < 8; guard++) {
		enum reflector_step st;
		uint64_t wake;
		char *path = NULL;

		if (o->mode == APIWATCH_LISTED) {
			/* Not a DRANET node: nothing to list; a list in flight: its end steps again. */
			if ((o->which == APIWATCH_SLICES && !o->aw->dranet) || o->s) {
				o->wake = UINT64_MAX;
				return;
			}
			if (now < o->list_at) {
				o->wake = o->list_at;
				return;
			}
			reflector_resync(o->r);         /* a list, never a watch */
		}
		st = reflector_next(o->r, now, &path, &wake);
		switch (st) {
		case REFLECTOR_WAIT:
			o->wake = wake;
			if (o->s && o->s_watch && o->s_heard + APIWATCH_IDLE_MS < o->wake)
				o->wake = o->s_heard + APIWATCH_IDLE_MS;
			return;
		case REFLECTOR_CLOSE:
			http_stream_close(o->s);
			o->s = NULL;
			break;
		case REFLECTOR_LIST:
		case REFLECTOR_WATCH:
			apiwatch_open(o, path, st == REFLECTOR_WATCH);
			free(path);
			break;
		}
	}
	o->wake = now + 1;      /* never spin: come back at the next turn */
}

/* ---- the loop's side ---- */

void apiwatch_resync(struct apiwatch *aw, uint64_t now_ms)
{
	aw->now = now_ms;
	for (size_t i = 0; i < APIWATCH__COUNT; i++) {
		struct apiwatch_one *o = &aw->res[i];

		if (aw->started) {
			if (o->mode == APIWATCH_LISTED)
				o->list_at = now_ms;
			else
				reflector_resync(o->r);
		}
		apiwatch_step(o, now_ms);
		apiwatch_log(o, now_ms);
	}
	aw->started = true;
}

int apiwatch_timeout(struct apiwatch *aw, uint64_t now_ms)
{
	uint64_t best = UINT64_MAX, d;

	if (!aw || !aw->started)
		return -1;
	for (size_t i = 0; i < APIWATCH__COUNT; i++)
		if (aw->res[i].wake < best)
			best = aw->res[i].wake;
	if (best == UINT64_MAX)
		return -1;
	d = best > now_ms ? best - now_ms : 0;
	return d > 3600000u ? 3600000 : (int)d;
}

void apiwatch_clock(struct apiwatch *aw, uint64_t now_ms)
{
	if (aw)
		aw->now = now_ms;
}

/*
 * Whether the watched Node is a DRANET node, from its store (the parser's rule): the slices are
 * listed from the turn it becomes one, and their facts dropped when it stops being one.
 */
static void apiwatch_dranet(struct apiwatch *aw, uint64_t now_ms)
{
	struct apiwatch_one *o = &aw->res[APIWATCH_SLICES];
	bool d = kubeparse_node_dranet(reflector_find(aw->res[APIWATCH_NODE].r, NULL, aw->node));

	if (d == aw->dranet)
		return;
	aw->dranet = d;
	aw->changes++;
	if (d) {
		o->list_at = now_ms;
		return;
	}
	/*
	 * No longer DRANET: a list in flight is dropped and the store emptied (a fresh reflector), so
	 * the slices of before are never judged if the label comes back before a new list answers.
	 */
	http_stream_close(o->s);
	o->s = NULL;
	if (apiwatch_renew(o, APIWATCH_LISTED) < 0)     /* out of memory: the old one hears it ended unanswered */
		reflector_list_done(o->r, now_ms, 0, NULL, 0, 1, 0);
}

void apiwatch_drive(struct apiwatch *aw, uint64_t now_ms)
{
	if (!aw || !aw->started)
		return;
	aw->now = now_ms;
	apiwatch_dranet(aw, now_ms);
	for (size_t i = 0; i < APIWATCH__COUNT; i++) {
		apiwatch_step(&aw->res[i], now_ms);
		apiwatch_log(&aw->res[i], now_ms);
	}
}

unsigned long apiwatch_changes(const struct apiwatch *aw)
{
	return aw->changes;
}

bool apiwatch_settled(const struct apiwatch *aw)
{
	for (const struct apiwatch_one *o = aw->res; o < aw->res + APIWATCH__COUNT; o++)
		if ((o->which != APIWATCH_SLICES || aw->dranet) && !reflector_synced(o->r) && !o->ever_fed && !o->why_seq)
			return false;
	return true;
}

bool apiwatch_ready(const struct apiwatch *aw)
{
	const struct apiwatch_one *node = &aw->res[APIWATCH_NODE];

	/* The node's store may be filled yet empty: the node does not exist (nothing to write to). */
	return node->ever_fed && reflector_find(node->r, NULL, aw->node) && aw->res[APIWATCH_PODS].ever_fed;
}

static struct kube_fetch *apiwatch_fetch(struct obs_kube *k, enum apiwatch_res which)
{
	return which == APIWATCH_NODE ? &k->node_fetch : which == APIWATCH_PODS ? &k->pods_fetch :
	       which == APIWATCH_NETWORKS ? &k->networks_fetch : &k->slices_fetch;
}

int apiwatch_update(struct apiwatch *aw, struct obs_kube *k)
{
	for (size_t i = 0; i < APIWATCH__COUNT; i++) {
		struct apiwatch_one *o = &aw->res[i];
		unsigned long g = reflector_generation(o->r);
		int r;

		k->configured = true;
		if (o->which == APIWATCH_SLICES && !aw->dranet) {
			/* Not a DRANET node: no slices are read, none are judged (as --once). */
			obs_kube_free_slices(k);
			k->slices_fetch = (struct kube_fetch){ .state = KUBE_FETCH_NOT_RUN };
			o->fed = false;
			continue;
		}
		if (reflector_synced(o->r) && (!o->fed || g != o->fed_gen)) {
			r = o->which == APIWATCH_NODE ? kubefeed_node(o->r, aw->node, aw->prefix, k) :
			    o->which == APIWATCH_PODS ? kubefeed_pods(o->r, k) :
			    o->which == APIWATCH_NETWORKS ? kubefeed_networks(o->r, k) : kubefeed_slices(o->r, k);
			if (r == -ENOMEM)
				return r;
			if (o->which == APIWATCH_NODE && (r == -ENOENT) != o->missing_said) {
				o->missing_said = r == -ENOENT;
				log_emit(o->missing_said ? LOG_LEVEL_ERROR : LOG_LEVEL_INFO,
					 o->missing_said ? "the node does not exist: nothing published until it does"
							 : "the node exists again", "node", aw->node, NULL);
			}
			/* A node that does not exist, or a refused object: its fetch says so; the store is read. */
			o->fed = o->ever_fed = true;
			o->fed_gen = g;
			o->why_fed_seq = o->why_seq;
		} else if (!o->ever_fed && o->why_seq != o->why_fed_seq) {
			kubefeed_failed(apiwatch_fetch(k, o->which), o->status, o->err, o->why);
			o->why_fed_seq = o->why_seq;
		}
	}
	return 0;
}

void apiwatch_relists(const struct apiwatch *aw,
		      void (*fn)(const char *resource, const char *reason, unsigned long n, void *arg), void *arg)
{
	for (size_t i = 0; aw && i < APIWATCH__COUNT; i++) {
		const struct apiwatch_one *o = &aw->res[i];

		for (size_t k = 0; k < REFLECTOR_RELIST__COUNT; k++) {
			unsigned long n = o->relists_before[k] + (o->r ? reflector_stats(o->r)->relists_by[k] : 0);

			fn(apiwatch_name[i], reflector_relist_name((enum reflector_relist)k), n, arg);
		}
	}
}
