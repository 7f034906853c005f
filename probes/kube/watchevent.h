/* watchevent.h - pure: one line of a Kubernetes watch stream, {"type": ..., "object": {...}}. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/json.h"

#define WATCHEVENT_KIND_MAX     64
#define WATCHEVENT_RV_MAX       64      /* resourceVersion: opaque, but it goes into a query */
#define WATCHEVENT_REASON_MAX   64
#define WATCHEVENT_MESSAGE_MAX  256

enum watchevent_type {
	WATCHEVENT_ADDED,
	WATCHEVENT_MODIFIED,
	WATCHEVENT_DELETED,
	WATCHEVENT_BOOKMARK,
	WATCHEVENT_ERROR,
};

struct watchevent {
	enum watchevent_type type;
	char kind[WATCHEVENT_KIND_MAX];         /* the object's kind ("Pod", "Status"); "" when absent */
	const char *name;                       /* metadata.name as sent (in root, any length): ADDED/MODIFIED/
						   DELETED; "" when the object has none a store can key it by */
	const char *ns;                         /* metadata.namespace as sent; "" for cluster-scoped objects */
	char resource_version[WATCHEVENT_RV_MAX];  /* metadata.resourceVersion; "" for ERROR */
	bool initial_events_end;                /* BOOKMARK with annotation k8s.io/initial-events-end: "true" */
	long code;                              /* ERROR: the Status code (410: resourceVersion too old) */
	char reason[WATCHEVENT_REASON_MAX];     /* ERROR: the Status reason ("Expired"), printable */
	char message[WATCHEVENT_MESSAGE_MAX];   /* ERROR: the Status message, printable, cut */
	struct json *root;                      /* the parsed line (owned) */
	const struct json *object;              /* root's "object" */
};

/**
 * watchevent_parse() - parse one event line (@len bytes, need not be NUL-terminated; trailing
 * whitespace is ignored). ADDED/MODIFIED/DELETED/BOOKMARK need a metadata.resourceVersion, ERROR a
 * Status code. A resourceVersion must be 1..63 URL-safe characters ([A-Za-z0-9._~-]): it is sent
 * back in the next request's query. The name and namespace are taken as sent (the parsers judge
 * them with the rest of the object); an object without a string metadata.name (or with a namespace
 * that is no string) has ev->name "": one object to set aside, not a broken stream.
 * @ev: filled on success (free with watchevent_free()); zeroed on error.
 * @err: on error, a message naming the field (@errlen bytes).
 *
 * Return: 0; -EINVAL for a malformed line; -ENOMEM.
 */
int watchevent_parse(const char *line, size_t len, struct watchevent *ev, char *err, size_t errlen);

/* Frees what watchevent_parse() allocated; the event can be parsed into again. NULL is fine. */
void watchevent_free(struct watchevent *ev);

/* "ADDED", "MODIFIED", "DELETED", "BOOKMARK", "ERROR". */
const char *watchevent_type_name(enum watchevent_type t);

/* Whether @s is a resourceVersion this client accepts (see watchevent_parse()). */
bool watchevent_rv_valid(const char *s);

/*
 * watchevent_key() - the namespace (*@ns, "" when none) and name (*@name) an object is kept by,
 * as sent, whatever they hold: the one rule of a watch event and of a list's items. Return:
 * false when there is none to key it by (no object, a name that is no string or empty, a
 * namespace that is neither a string nor null).
 */
bool watchevent_key(const struct json *obj, const char **ns, const char **name);
