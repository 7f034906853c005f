/* reflector.h - pure: the list-then-watch cycle of one API collection (client-go's reflector), time injected. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/json.h"

/*
 * The caller does the I/O the reflector asks for and reports what came back:
 *
 *   for (;;) {
 *       step = reflector_next(r, now, &path, &wake);
 *       LIST:  GET path (http_request() or a whole-body stream) -> reflector_list_done()
 *       WATCH: open a line stream on path; each line -> reflector_watch_line() (non-zero: close
 *              the stream, report nothing more); its end -> reflector_watch_done()
 *       CLOSE: close the open watch stream; report nothing
 *       WAIT:  come back at wake (or when a result is reported)
 *   }
 *
 * The objects seen are kept, sorted by namespace/name, for the caller to read after each change
 * (reflector_generation() tells when). Nothing here reads a clock, a socket or a file.
 */

enum reflector_step {
	REFLECTOR_WAIT,         /* nothing to send before *wake_ms (UINT64_MAX: until a result comes) */
	REFLECTOR_LIST,         /* GET the path returned: a list; report with reflector_list_done() */
	REFLECTOR_WATCH,        /* open a streaming GET on the path returned: a watch */
	REFLECTOR_CLOSE,        /* close the watch stream now (resync, or initial events that never ended) */
};

enum reflector_state {          /* what the collection is doing, for logs and health */
	REFLECTOR_STARTING,
	REFLECTOR_LISTING,
	REFLECTOR_WATCHING,
	REFLECTOR_BACKOFF,      /* a request failed, or a 410 or a broken stream asks a relist: the next
				   request waits (probes/kube/retry.h; growing until a watch stays healthy) */
	REFLECTOR_FORBIDDEN,    /* 403: RBAC does not allow it; retried slowly */
	REFLECTOR_ABSENT,       /* 404: the resource (a CRD) does not exist; retried slowly */
};

struct reflector_config {
	const char *path;               /* the collection: "/api/v1/pods" (no query) */
	const char *query;              /* its selector, escaped: "fieldSelector=spec.nodeName%3Dnode-a"; NULL none */
	const char *kind;               /* the objects' kind ("Pod"): watch events of another kind are malformed; NULL any */
	bool watchlist;                 /* fill the store with one watch (sendInitialEvents) instead of a list;
					   a server that refuses it (400/422) gets list+watch from then on */
	unsigned timeout_min_s;         /* watches ask timeoutSeconds in [min, 2*min) (client-go); 0: 300 */
	unsigned backoff_base_ms;       /* 0: RETRY_BACKOFF_BASE_MS (give another only with a reason) */
	unsigned backoff_cap_ms;        /* 0: RETRY_BACKOFF_CAP_MS (likewise) */
	unsigned slow_retry_ms;         /* the wait after 403 or 404; 0: RETRY_SLOW_MS */
	unsigned initial_wait_ms;       /* watchlist: the initial events must end within this; 0: 30,000 */
	unsigned max_objects;           /* the store's limit; 0: 10,000 */
	uint64_t seed;                  /* jitter (backoff, timeoutSeconds); 0: a fixed seed */
};

/* What asked a relist (a fill of the store after the first). */
enum reflector_relist {
	REFLECTOR_RELIST_GONE = 0,      /* 410: the resourceVersion was too old */
	REFLECTOR_RELIST_RESYNC,        /* reflector_resync(): the caller's safety net */
	REFLECTOR_RELIST_ERROR,         /* anything else: a failed request, a broken or malformed stream */
	REFLECTOR_RELIST__COUNT,
};

struct reflector_stats {
	unsigned long requests;         /* HTTP requests sent (each step, plus the retries reported) */
	unsigned long lists;            /* LIST steps (a watchlist watch counts as a watch) */
	unsigned long relists_by[REFLECTOR_RELIST__COUNT];      /* fills of the store after the first (lists or
								   watchlist watches), by what asked them */
	unsigned long watches;          /* WATCH steps */
	unsigned long resumes;          /* watches resumed from the newest resourceVersion after a clean close */
	unsigned long gone;             /* 410: the resourceVersion was too old (answer or ERROR event) */
	unsigned long events;           /* ADDED / MODIFIED / DELETED applied */
	unsigned long bookmarks;
	unsigned long errors;           /* failed requests, malformed lines or lists, ERROR events */
	unsigned long watchlist_fallbacks;  /* the server refused (or never ended) a watchlist watch */
	unsigned long aside;            /* objects of a list or an event set aside: no name to keep them by */
};

struct reflector;

/**
 * reflector_new() - a reflector for @cfg (strings are copied).
 * Return: 0; -EINVAL when cfg->path is missing or does not start with '/'; -ENOMEM.
 */
int reflector_new(const struct reflector_config *cfg, struct reflector **ret);

void reflector_free(struct reflector *r);

/**
 * reflector_next() - what to do at @now_ms.
 * @path: for LIST and WATCH, a malloc'd request path with its query (caller frees); else NULL.
 * @wake_ms: for WAIT, when to ask again (UINT64_MAX: not before a result is reported).
 */
enum reflector_step reflector_next(struct reflector *r, uint64_t now_ms, char **path, uint64_t *wake_ms);

/**
 * reflector_list_done() - the LIST's answer: @status (0: none came; @body then NULL), its body,
 * the @attempts the HTTP client made (0 counts as 1) and the Retry-After it saw.
 * Return: 0 when the list replaced the store; -EINVAL for a malformed list; -EIO for a failed
 * request (reflector_error() says why; the next step is already scheduled either way).
 */
int reflector_list_done(struct reflector *r, uint64_t now_ms, long status, const char *body, size_t len,
			unsigned attempts, unsigned retry_after_s);

/**
 * reflector_watch_line() - one line of the open watch.
 * Return: 0 to keep reading; 1 to close the stream (410: the store is refilled after the
 * backoff, which grows with each 410 or failure until a watch stays healthy for
 * RETRY_HEALTHY_MS); -EINVAL for a malformed line, -EIO for an ERROR event other than 410,
 * -E2BIG past max_objects: close the stream, reflector_error() says why. After non-zero, report
 * nothing more for this stream.
 */
int reflector_watch_line(struct reflector *r, uint64_t now_ms, const char *line, size_t len);

/**
 * reflector_watch_done() - the watch ended by itself: @status is the HTTP status (0: none), @err
 * 0 for a clean end of the stream or the transport's -errno, @attempts and @retry_after_s as for
 * lists. A clean end resumes from the newest resourceVersion at once (unless the watch lasted
 * under a second without a line: then it backs off); a 410 relists, a broken stream watches
 * again, both after the backoff.
 */
void reflector_watch_done(struct reflector *r, uint64_t now_ms, long status, int err, unsigned attempts,
			  unsigned retry_after_s);

/* Refill the store now (the --interval safety net): a watch in progress is closed (CLOSE) first. */
void reflector_resync(struct reflector *r);

bool reflector_synced(const struct reflector *r);               /* the store was filled at least once */
unsigned long reflector_generation(const struct reflector *r);  /* changes whenever the store does */
size_t reflector_count(const struct reflector *r);
const struct json *reflector_object(const struct reflector *r, size_t i);   /* by namespace/name */
const struct json *reflector_find(const struct reflector *r, const char *ns, const char *name);
unsigned reflector_watch_timeout_s(const struct reflector *r);  /* the open watch's timeoutSeconds; 0 none */
enum reflector_state reflector_state(const struct reflector *r);
const char *reflector_relist_name(enum reflector_relist why);   /* "gone", "resync", "error" */
const char *reflector_error(const struct reflector *r);         /* the last failure; "" none */
const struct reflector_stats *reflector_stats(const struct reflector *r);
