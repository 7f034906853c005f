/* flap.h - link flap damping for the daemon: each link's up/down history, held not ready while it flaps (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/observation.h"

/*
 * Like a routing daemon damping a flapping route: FLAP_THRESHOLD up/down changes of one link
 * within FLAP_WINDOW_MS make it "flapping"; it is then held (reported not ready, whatever state
 * it happens to be in when sampled) until it has had no change for FLAP_HOLD_MS. One down and
 * one up (a maintenance bounce) is not flapping. Times are on one monotonic clock in ms, given
 * by the caller, so tests drive it with made-up times.
 */
#define FLAP_THRESHOLD 3u
#define FLAP_WINDOW_MS 60000u
#define FLAP_HOLD_MS 30000u
#define FLAP_LINKS_MAX 256u     /* links tracked; a pod's veth that left is forgotten first */

struct flap_link {
	char name[OBS_IFNAME_MAX];
	bool known;                     /* @up is a state seen (not just a name) */
	bool up;
	uint64_t recent[FLAP_THRESHOLD];        /* times of the last changes, oldest first */
	unsigned n_recent;
	uint64_t last_change;           /* 0: none seen */
	bool held;
	unsigned changes;               /* in this episode (held), the starting ones included */
};

struct flap {
	struct flap_link v[FLAP_LINKS_MAX];
	size_t n;
};

/* What flap_*() calls may report, for the caller's log. */
enum flap_news {
	FLAP_NEWS_NONE = 0,
	FLAP_NEWS_HELD,                 /* the link just started flapping: held */
	FLAP_NEWS_RELEASED,             /* stable for the hold-down time: released */
};

/**
 * flap_state() - a state of link @name seen at @now (a netlink notification, or a dump): a
 * change from the last known state counts; the first state seen of a link only records it.
 * Return: FLAP_NEWS_HELD when this change started an episode, else FLAP_NEWS_NONE.
 */
enum flap_news flap_state(struct flap *f, const char *name, bool up, uint64_t now);

/* Link @name is gone (removed, or moved to another namespace): forgotten unless held. */
void flap_removed(struct flap *f, const char *name);

/* After a dump: every link not held and not @present(name, @arg) is forgotten. */
void flap_keep_only(struct flap *f, bool (*present)(const char *name, void *arg), void *arg);

/**
 * flap_release() - release every held link stable for FLAP_HOLD_MS at @now.
 * @released: called with each released link's name and episode count (may be NULL).
 * Return: the number released.
 */
size_t flap_release(struct flap *f, uint64_t now, void (*released)(const struct flap_link *l, void *arg),
		    void *arg);

/* Whether any link is held. */
bool flap_any_held(const struct flap *f);

/* When the first held link would be released (its last change + FLAP_HOLD_MS); 0: none held. */
uint64_t flap_next_release(const struct flap *f);

/* The held links as the observation carries them (sorted by name), and the rule's numbers. */
void flap_fill(const struct flap *f, struct obs_flaps *out);
