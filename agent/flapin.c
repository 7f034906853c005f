/* flapin.c - the link flap input: netlink events and dumped link states into flap.c's history, with the log lines of held and released links. */
#include <stdio.h>
#include <string.h>

#include "agent/flapin.h"
#include "agent/log.h"

static void flapin_news(const char *name, enum flap_news news, const struct flap *f)
{
	char changes[16] = "", window[16], hold[16];

	if (news != FLAP_NEWS_HELD)
		return;
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].name, name) == 0)
			snprintf(changes, sizeof(changes), "%u", f->v[i].changes);
	snprintf(window, sizeof(window), "%us", FLAP_WINDOW_MS / 1000u);
	snprintf(hold, sizeof(hold), "%us", FLAP_HOLD_MS / 1000u);
	log_emit(LOG_LEVEL_INFO, "link flapping: held not ready until stable", "link", name, "changes", changes,
		 "window", window, "hold_down", hold, NULL);
}

static void flapin_released(const struct flap_link *l, void *arg)
{
	char changes[16];

	snprintf(changes, sizeof(changes), "%u", l->changes);
	log_emit(LOG_LEVEL_INFO, "link stable again: released", "link", l->name, "changes", changes, NULL);
}

void flapin_events(struct flap *f, const struct links_watch *lw, uint64_t now)
{
	const struct links_event *ev;
	bool lost;
	size_t n = links_watch_events(lw, &ev, &lost);

	for (size_t i = 0; i < n; i++) {
		if (ev[i].removed)
			flap_removed(f, ev[i].name);
		else
			flapin_news(ev[i].name, flap_state(f, ev[i].name, ev[i].up, now), f);
	}
	/* Lost notifications: the next observation's dump tells the states (a difference counts). */
}

static bool flapin_present(const char *name, void *arg)
{
	return observation_link_find(arg, name) != NULL;
}

void flapin_observed(struct flap *f, struct observation *o, bool dumped, uint64_t now)
{
	if (dumped) {
		for (size_t i = 0; i < o->links.n; i++)
			flapin_news(o->links.v[i].name,
				    flap_state(f, o->links.v[i].name, o->links.v[i].oper == LINK_OPER_UP, now), f);
		flap_keep_only(f, flapin_present, o);
	}
	flap_release(f, now, flapin_released, NULL);
	flap_fill(f, &o->flaps);
}
