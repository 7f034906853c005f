/* reflector.c - pure: the list-then-watch cycle of one API collection (client-go's reflector), time injected. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/objstore.h"
#include "probes/kube/reflector.h"
#include "probes/kube/retry.h"
#include "probes/kube/watchevent.h"
#include "probes/model/strbuf.h"

#define REFLECTOR_TIMEOUT_MIN_S     300u
#define REFLECTOR_INITIAL_WAIT_MS   30000u
#define REFLECTOR_MAX_OBJECTS       10000u
#define REFLECTOR_SHORT_WATCH_MS    1000u   /* a watch that ends sooner with nothing in it failed */

enum reflector_phase {
	PHASE_NEED_LIST,        /* fill the store next (a list, or a watchlist watch) */
	PHASE_NEED_WATCH,       /* watch from rv next */
	PHASE_IN_LIST,
	PHASE_IN_WATCH,
	PHASE_WAIT,             /* until wake, then after_wait */
};

struct reflector {
	char *path, *query, *kind;
	bool watchlist;
	unsigned timeout_min_s, slow_ms, initial_ms, max_objects;

	enum reflector_phase phase, after_wait;
	uint64_t wake;
	enum reflector_state state;
	char rv[WATCHEVENT_RV_MAX];     /* newest resourceVersion seen; "" none */
	bool list_consistent;           /* the next list asks the newest state (after a 410 on a list) */
	bool filled_once;               /* a fill (list or watchlist) was asked before: the next is a relist */
	enum reflector_relist relist_why;       /* what asked the next relist (gone, resync; else error) */
	bool in_initial;                /* a watchlist watch before its initial-events-end bookmark */
	bool close_wanted;
	uint64_t watch_start, initial_deadline;
	unsigned watch_timeout_s;       /* of the watch last asked for */
	unsigned long watch_lines;
	struct retry_backoff backoff;   /* failures and 410s since the last healthy watch; the jitter */
	uint64_t healthy_since;         /* watches followed since then (resumes too); 0: none since the last backoff */

	struct objstore store, pending;
	bool synced;
	unsigned long generation;
	char error[256];
	struct reflector_stats st;
};

static void reflector_errf(struct reflector *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void reflector_errf(struct reflector *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
}

/* A fill (a list, or a watchlist's initial events): @fresh becomes the store; a new generation only if it differs. */
static void reflector_store_replace(struct reflector *r, struct objstore *fresh)
{
	if (!r->synced || !objstore_same(&r->store, fresh))
		r->generation++;
	objstore_move(&r->store, fresh);
	r->synced = true;
}

/* --- lifecycle ---------------------------------------------------------------------------- */

int reflector_new(const struct reflector_config *cfg, struct reflector **ret)
{
	struct reflector *r;

	if (!cfg || !ret || !cfg->path || cfg->path[0] != '/' || strchr(cfg->path, '?'))
		return -EINVAL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	r->path = strdup(cfg->path);
	r->query = cfg->query && *cfg->query ? strdup(cfg->query) : NULL;
	r->kind = cfg->kind && *cfg->kind ? strdup(cfg->kind) : NULL;
	if (!r->path || (cfg->query && *cfg->query && !r->query) || (cfg->kind && *cfg->kind && !r->kind)) {
		reflector_free(r);
		return -ENOMEM;
	}
	r->watchlist = cfg->watchlist;
	r->timeout_min_s = cfg->timeout_min_s ? cfg->timeout_min_s : REFLECTOR_TIMEOUT_MIN_S;
	r->backoff = (struct retry_backoff){ .base_ms = cfg->backoff_base_ms, .cap_ms = cfg->backoff_cap_ms,
					     .rng = cfg->seed ? cfg->seed : 0x853C49E6748FEA9BULL };
	r->slow_ms = cfg->slow_retry_ms ? cfg->slow_retry_ms : RETRY_SLOW_MS;
	r->initial_ms = cfg->initial_wait_ms ? cfg->initial_wait_ms : REFLECTOR_INITIAL_WAIT_MS;
	r->max_objects = cfg->max_objects ? cfg->max_objects : REFLECTOR_MAX_OBJECTS;
	r->phase = PHASE_NEED_LIST;
	r->state = REFLECTOR_STARTING;
	*ret = r;
	return 0;
}

void reflector_free(struct reflector *r)
{
	if (!r)
		return;
	objstore_clear(&r->store);
	objstore_clear(&r->pending);
	free(r->path);
	free(r->query);
	free(r->kind);
	free(r);
}

/* --- scheduling --------------------------------------------------------------------------- */

static void reflector_after(struct reflector *r, uint64_t now, uint64_t wait_ms, enum reflector_phase next,
			   enum reflector_state state)
{
	if (next == PHASE_NEED_WATCH && !r->rv[0])
		next = PHASE_NEED_LIST;
	if (r->in_initial) {
		objstore_clear(&r->pending);
		r->in_initial = false;
	}
	if (wait_ms == 0) {
		r->phase = next;
		return;
	}
	r->phase = PHASE_WAIT;
	r->after_wait = next;
	r->wake = now + wait_ms;
	r->state = state;
}

/*
 * Back off, then @next: after a failure, and before the relist that a 410 or a broken stream asks
 * for (client-go's reflector). The wait grows with each one in a row; only a watch that followed
 * for RETRY_HEALTHY_MS since the last one ends the run, not a list or an event that succeeded: an
 * API that answers every watch with 410 is asked less and less often, not in a loop.
 */
static void reflector_backoff(struct reflector *r, uint64_t now, enum reflector_phase next, unsigned retry_after_s)
{
	uint64_t wait;

	if (r->healthy_since && now - r->healthy_since >= RETRY_HEALTHY_MS)
		retry_backoff_reset(&r->backoff);
	r->healthy_since = 0;
	wait = retry_backoff_fail(&r->backoff, retry_after_s);
	reflector_after(r, now, wait ? wait : 1, next, REFLECTOR_BACKOFF);
}

/* A failure: count it and back off. */
static void reflector_fail(struct reflector *r, uint64_t now, enum reflector_phase next, unsigned retry_after_s)
{
	r->st.errors++;
	reflector_backoff(r, now, next, retry_after_s);
}

/* A watch follows the collection from @now (a resumed one goes on with the streak). */
static void reflector_following(struct reflector *r, uint64_t now)
{
	if (!r->healthy_since)
		r->healthy_since = now ? now : 1;
}

/* A 410: the resourceVersion was too old; the next fill of the store is a relist for it. */
static void reflector_gone(struct reflector *r)
{
	r->st.gone++;
	r->relist_why = REFLECTOR_RELIST_GONE;
}

/* A fill of the store is asked: after the first, a relist counted by what asked it. */
static void reflector_relisting(struct reflector *r)
{
	if (r->filled_once)
		r->st.relists_by[r->relist_why]++;
	r->filled_once = true;
	r->relist_why = REFLECTOR_RELIST_ERROR;
}

static char *reflector_build(struct reflector *r, bool watch)
{
	struct strbuf sb = { 0 };
	const char *sep = "?";

	strbuf_append(&sb, r->path);
	if (r->query) {
		strbuf_appendf(&sb, "?%s", r->query);
		sep = "&";
	}
	if (!watch) {
		if (!r->rv[0])
			strbuf_appendf(&sb, "%sresourceVersion=0", sep);    /* any state: served from the cache */
		else if (!r->list_consistent)
			strbuf_appendf(&sb, "%sresourceVersion=%s", sep, r->rv);  /* not older than what we saw */
	} else {
		r->watch_timeout_s = r->timeout_min_s + (unsigned)(retry_random(&r->backoff.rng) % r->timeout_min_s);
		if (r->in_initial)
			strbuf_appendf(&sb, "%swatch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
				       "&allowWatchBookmarks=true&timeoutSeconds=%u", sep, r->watch_timeout_s);
		else
			strbuf_appendf(&sb, "%swatch=1&resourceVersion=%s&allowWatchBookmarks=true&timeoutSeconds=%u",
				       sep, r->rv, r->watch_timeout_s);
	}
	return strbuf_take(&sb);
}

enum reflector_step reflector_next(struct reflector *r, uint64_t now_ms, char **path, uint64_t *wake_ms)
{
	bool initial;

	*path = NULL;
	*wake_ms = UINT64_MAX;
	if (r->phase == PHASE_IN_WATCH && r->close_wanted) {
		r->close_wanted = false;
		reflector_after(r, now_ms, 0, PHASE_NEED_LIST, r->state);
		return REFLECTOR_CLOSE;
	}
	if (r->phase == PHASE_IN_WATCH && r->in_initial && now_ms >= r->initial_deadline) {
		reflector_errf(r, "the initial events of %s did not end within %u ms: listing instead",
			       r->path, r->initial_ms);
		r->watchlist = false;
		r->st.watchlist_fallbacks++;
		reflector_after(r, now_ms, 0, PHASE_NEED_LIST, r->state);
		return REFLECTOR_CLOSE;
	}
	if (r->phase == PHASE_IN_LIST || r->phase == PHASE_IN_WATCH) {
		if (r->phase == PHASE_IN_WATCH && r->in_initial)
			*wake_ms = r->initial_deadline;
		return REFLECTOR_WAIT;
	}
	if (r->phase == PHASE_WAIT) {
		if (now_ms < r->wake) {
			*wake_ms = r->wake;
			return REFLECTOR_WAIT;
		}
		r->phase = r->after_wait;
	}
	/* A list is a watch with its initial events (WatchList) while the server gives them. */
	initial = r->phase == PHASE_NEED_LIST && r->watchlist;
	if (initial)
		r->in_initial = true;
	*path = reflector_build(r, initial || r->phase == PHASE_NEED_WATCH);
	if (!*path) {
		if (initial)
			r->in_initial = false;
		reflector_errf(r, "out of memory");
		reflector_fail(r, now_ms, r->phase, 0);
		*wake_ms = r->wake;
		return REFLECTOR_WAIT;
	}
	r->st.requests++;
	if (r->phase == PHASE_NEED_LIST && !initial) {
		r->st.lists++;
		reflector_relisting(r);
		r->phase = PHASE_IN_LIST;
		r->state = REFLECTOR_LISTING;
		return REFLECTOR_LIST;
	}
	if (initial) {
		r->initial_deadline = now_ms + r->initial_ms;
		reflector_relisting(r);
	}
	r->st.watches++;
	r->watch_start = now_ms;
	r->watch_lines = 0;
	r->phase = PHASE_IN_WATCH;
	r->state = initial ? REFLECTOR_LISTING : REFLECTOR_WATCHING;
	if (!initial)
		reflector_following(r, now_ms);
	return REFLECTOR_WATCH;
}

/*
 * The reason is set only where the resync itself asks the relist: a list already asked (or in
 * flight) keeps its own reason (a 410's "gone", else "error" should it fail).
 */
void reflector_resync(struct reflector *r)
{
	switch (r->phase) {
	case PHASE_IN_WATCH:
		r->close_wanted = true;
		r->relist_why = REFLECTOR_RELIST_RESYNC;
		break;
	case PHASE_NEED_WATCH:
		r->phase = PHASE_NEED_LIST;
		r->relist_why = REFLECTOR_RELIST_RESYNC;
		break;
	case PHASE_WAIT:
		if (r->after_wait != PHASE_NEED_LIST) {
			r->after_wait = PHASE_NEED_LIST;
			r->relist_why = REFLECTOR_RELIST_RESYNC;
		}
		break;
	case PHASE_NEED_LIST:
	case PHASE_IN_LIST:
		break;
	}
}

/* A failed request's status: what comes next. */
static void reflector_status(struct reflector *r, uint64_t now, long status, unsigned retry_after_s,
			     enum reflector_phase retry)
{
	if (status == 403 || status == 404) {
		r->st.errors++;
		r->healthy_since = 0;
		reflector_after(r, now, r->slow_ms, PHASE_NEED_LIST,
				status == 403 ? REFLECTOR_FORBIDDEN : REFLECTOR_ABSENT);
	} else if (status == 0 || status == 401 || retry_status_retryable(status)) {
		reflector_fail(r, now, retry, retry_after_s);
	} else {
		reflector_fail(r, now, PHASE_NEED_LIST, retry_after_s);
	}
}

/* --- lists -------------------------------------------------------------------------------- */

int reflector_list_done(struct reflector *r, uint64_t now_ms, long status, const char *body, size_t len,
			unsigned attempts, unsigned retry_after_s)
{
	struct objstore fresh = { 0 };
	char rv[WATCHEVENT_RV_MAX], err[200];
	int k;

	if (r->phase != PHASE_IN_LIST)
		return -EINVAL;
	if (attempts > 1)
		r->st.requests += attempts - 1;
	if (status < 200 || status > 299) {
		if (status == 410 && !r->list_consistent && r->rv[0]) {
			/*
			 * The resourceVersion we asked "not older than" is gone: ask the newest state
			 * at once. Only once: a consistent list names no version that could be gone.
			 */
			reflector_gone(r);
			r->list_consistent = true;
			reflector_errf(r, "list %s: 410 Gone: listing the newest state", r->path);
			reflector_after(r, now_ms, 0, PHASE_NEED_LIST, r->state);
			return -EIO;
		}
		if (status)
			reflector_errf(r, "list %s: HTTP %ld", r->path, status);
		else
			reflector_errf(r, "list %s: no answer", r->path);
		reflector_status(r, now_ms, status, retry_after_s, PHASE_NEED_LIST);
		return -EIO;
	}
	k = objstore_parse_list(body, len, r->max_objects, &fresh, rv, sizeof(rv), err, sizeof(err));
	if (k < 0) {
		reflector_errf(r, "list %s: %s", r->path, err);
		objstore_clear(&fresh);
		reflector_fail(r, now_ms, PHASE_NEED_LIST, 0);
		return k == -ENOMEM ? k : -EINVAL;
	}
	r->st.aside += fresh.aside;
	reflector_store_replace(r, &fresh);
	snprintf(r->rv, sizeof(r->rv), "%s", rv);
	r->list_consistent = false;
	r->error[0] = '\0';
	r->phase = PHASE_NEED_WATCH;
	r->state = REFLECTOR_WATCHING;
	return 0;
}

/* --- watches ------------------------------------------------------------------------------ */

static int reflector_apply(struct reflector *r, const struct watchevent *ev)
{
	int k = objstore_apply(r->in_initial ? &r->pending : &r->store, ev, r->max_objects);

	if (k > 0 && !r->in_initial)
		r->generation++;
	return k < 0 ? k : 0;
}

int reflector_watch_line(struct reflector *r, uint64_t now_ms, const char *line, size_t len)
{
	struct watchevent ev;
	char err[200];
	int k = 0;

	if (r->phase != PHASE_IN_WATCH)
		return -EINVAL;
	if (watchevent_parse(line, len, &ev, err, sizeof(err)) < 0) {
		reflector_errf(r, "watch %s: malformed event: %s", r->path, err);
		reflector_fail(r, now_ms, PHASE_NEED_LIST, 0);
		return -EINVAL;
	}
	r->watch_lines++;
	switch (ev.type) {
	case WATCHEVENT_ERROR:
		if (ev.code == 410) {
			reflector_gone(r);
			reflector_errf(r, "watch %s: 410 %s: %s", r->path, ev.reason, ev.message);
			reflector_backoff(r, now_ms, PHASE_NEED_LIST, 0);
			k = 1;
		} else {
			reflector_errf(r, "watch %s: ERROR event %ld %s: %s", r->path, ev.code, ev.reason, ev.message);
			reflector_status(r, now_ms, ev.code, 0, PHASE_NEED_LIST);
			k = -EIO;
		}
		goto out;
	case WATCHEVENT_BOOKMARK:
		r->st.bookmarks++;
		if (r->in_initial && ev.initial_events_end) {
			reflector_store_replace(r, &r->pending);
			r->in_initial = false;
			r->state = REFLECTOR_WATCHING;
			reflector_following(r, now_ms);
		}
		if (!r->in_initial)
			snprintf(r->rv, sizeof(r->rv), "%s", ev.resource_version);
		goto out;
	case WATCHEVENT_ADDED:
	case WATCHEVENT_MODIFIED:
	case WATCHEVENT_DELETED:
		break;
	}
	if (r->kind && ev.kind[0] && strcmp(ev.kind, r->kind) != 0) {
		char p[44];

		strbuf_printable_into(p, sizeof(p), ev.kind);
		reflector_errf(r, "watch %s: malformed event: %s of kind %s, expected %s", r->path,
			       watchevent_type_name(ev.type), p, r->kind);
		reflector_fail(r, now_ms, PHASE_NEED_LIST, 0);
		k = -EINVAL;
		goto out;
	}
	k = reflector_apply(r, &ev);
	if (k == -ENOKEY) {
		/* An object without a name to keep it by: set aside, counted; the stream goes on. */
		r->st.aside++;
		k = 0;
	}
	if (k < 0) {
		reflector_errf(r, "watch %s: %s", r->path, k == -E2BIG ? "more objects than the limit" : "out of memory");
		reflector_fail(r, now_ms, PHASE_NEED_LIST, 0);
		k = k == -ENOMEM ? -ENOMEM : -E2BIG;
		goto out;
	}
	r->st.events++;
	if (!r->in_initial)
		snprintf(r->rv, sizeof(r->rv), "%s", ev.resource_version);
out:
	watchevent_free(&ev);
	return k;
}

void reflector_watch_done(struct reflector *r, uint64_t now_ms, long status, int err, unsigned attempts,
			  unsigned retry_after_s)
{
	bool initial = r->in_initial;

	if (r->phase != PHASE_IN_WATCH)
		return;
	if (attempts > 1)
		r->st.requests += attempts - 1;
	if (status >= 200 && status <= 299 && err == 0) {
		if (initial) {
			reflector_errf(r, "watch %s: ended before its initial events did", r->path);
			reflector_fail(r, now_ms, PHASE_NEED_LIST, 0);
		} else if (now_ms - r->watch_start < REFLECTOR_SHORT_WATCH_MS && r->watch_lines == 0) {
			reflector_errf(r, "watch %s: closed after %llu ms without an event", r->path,
				       (unsigned long long)(now_ms - r->watch_start));
			reflector_fail(r, now_ms, PHASE_NEED_WATCH, 0);
		} else {
			r->st.resumes++;
			reflector_after(r, now_ms, 0, PHASE_NEED_WATCH, REFLECTOR_WATCHING);
		}
		return;
	}
	if (status >= 200 && status <= 299) {
		reflector_errf(r, "watch %s: stream broken: %s", r->path, strerror(-err));
		reflector_fail(r, now_ms, err == -EMSGSIZE ? PHASE_NEED_LIST : PHASE_NEED_WATCH, 0);
		return;
	}
	if (status == 410) {
		reflector_gone(r);
		reflector_errf(r, "watch %s: 410 Gone", r->path);
		reflector_backoff(r, now_ms, PHASE_NEED_LIST, retry_after_s);
		return;
	}
	if (initial && (status == 400 || status == 422)) {
		reflector_errf(r, "watch %s: HTTP %ld to sendInitialEvents: listing instead", r->path, status);
		r->watchlist = false;
		r->st.watchlist_fallbacks++;
		reflector_after(r, now_ms, 0, PHASE_NEED_LIST, r->state);
		return;
	}
	if (status)
		reflector_errf(r, "watch %s: HTTP %ld", r->path, status);
	else
		reflector_errf(r, "watch %s: no answer: %s", r->path, strerror(err < 0 ? -err : EIO));
	reflector_status(r, now_ms, status, retry_after_s, initial ? PHASE_NEED_LIST : PHASE_NEED_WATCH);
}

/* --- reading ------------------------------------------------------------------------------ */

bool reflector_synced(const struct reflector *r)
{
	return r->synced;
}

unsigned long reflector_generation(const struct reflector *r)
{
	return r->generation;
}

size_t reflector_count(const struct reflector *r)
{
	return r->store.n;
}

const struct json *reflector_object(const struct reflector *r, size_t i)
{
	return i < r->store.n ? r->store.v[i].obj : NULL;
}

const struct json *reflector_find(const struct reflector *r, const char *ns, const char *name)
{
	return objstore_find(&r->store, ns, name);
}

unsigned reflector_watch_timeout_s(const struct reflector *r)
{
	return r->phase == PHASE_IN_WATCH ? r->watch_timeout_s : 0;
}

enum reflector_state reflector_state(const struct reflector *r)
{
	return r->state;
}

const char *reflector_relist_name(enum reflector_relist why)
{
	switch (why) {
	case REFLECTOR_RELIST_GONE: return "gone";
	case REFLECTOR_RELIST_RESYNC: return "resync";
	case REFLECTOR_RELIST_ERROR: return "error";
	case REFLECTOR_RELIST__COUNT: break;
	}
	return "unknown";
}

const char *reflector_error(const struct reflector *r)
{
	return r->error;
}

const struct reflector_stats *reflector_stats(const struct reflector *r)
{
	return &r->st;
}
