/* objstore.h - pure: API objects kept sorted by namespace/name, filled from a list and kept by watch events. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/kube/watchevent.h"
#include "probes/model/json.h"

struct objstore_item {
	char *key;              /* "namespace/name" ("/name" for cluster-scoped objects), owned */
	struct json *obj;       /* owned */
};

/* Zero-initialised it is empty; free with objstore_clear(). Its objects are v[0..n), in key order. */
struct objstore {
	struct objstore_item *v;        /* sorted by key (strcmp) */
	size_t n, cap;
	size_t aside;                   /* list items set aside: no metadata.name to keep them by */
};

/* Free every object; the store is empty (and usable) again. */
void objstore_clear(struct objstore *s);

/* Make @src the content of @dst (whose objects are freed); @src is left empty. */
void objstore_move(struct objstore *dst, struct objstore *src);

/**
 * objstore_apply() - one ADDED, MODIFIED or DELETED event: a copy of its object put under its
 * namespace/name, or that key removed. ADDED and MODIFIED are not told apart (a MODIFIED of an
 * unknown object adds it, an ADDED of a known one replaces it), as client-go's store does.
 * @max: the most objects the store may hold.
 * The name is kept as sent, whatever it holds: the parsers judge it with the rest of the object.
 * Return: 1 when the store changed; 0 when it did not (a DELETED of an absent object); -E2BIG
 * when the object is new and the store holds @max already (the store is left as it was);
 * -ENOKEY for an object without a name to keep it by (ev->name ""); -EINVAL for a BOOKMARK or
 * ERROR event (no object to keep); -ENOMEM.
 */
int objstore_apply(struct objstore *s, const struct watchevent *ev, size_t max);

/**
 * objstore_parse_list() - a list response (`{"metadata": {"resourceVersion"}, "items": [...]}`)
 * into @ret: a copy of every item, kept under "namespace/name" as sent (a later item with the same
 * key replaces an earlier one); an item that is no object with a string metadata.name is set
 * aside (counted in ret->aside), the others read.
 * @ret: an empty store, filled; on error it may hold some items (objstore_clear() it).
 * @rv: the list's metadata.resourceVersion (@rvsize bytes; WATCHEVENT_RV_MAX is enough).
 * @err: on error, why (@errlen bytes), naming the field or the item's index.
 * Return: 0; -EINVAL for a malformed list (not JSON, no valid resourceVersion, items not an array);
 * -E2BIG for more than @max items; -ENOMEM.
 */
int objstore_parse_list(const char *body, size_t len, size_t max, struct objstore *ret, char *rv, size_t rvsize,
			char *err, size_t errlen);

/* Whether two stores hold the same keys at the same metadata.resourceVersions (an object without one differs). */
bool objstore_same(const struct objstore *a, const struct objstore *b);

const struct json *objstore_find(const struct objstore *s, const char *ns, const char *name);  /* ns NULL: "" */
