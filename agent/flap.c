/* flap.c - link flap damping for the daemon: each link's up/down history, held not ready while it flaps (pure). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/flap.h"

static struct flap_link *flap_find(struct flap *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].name, name) == 0)
			return &f->v[i];
	return NULL;
}

/* A new entry for @name; when full, the quietest link not held makes room (NULL if all are held). */
static struct flap_link *flap_add(struct flap *f, const char *name)
{
	struct flap_link *l = NULL;

	if (f->n < FLAP_LINKS_MAX) {
		l = &f->v[f->n++];
	} else {
		for (size_t i = 0; i < f->n; i++)
			if (!f->v[i].held && (!l || f->v[i].last_change < l->last_change))
				l = &f->v[i];
		if (!l)
			return NULL;
	}
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	return l;
}

enum flap_news flap_state(struct flap *f, const char *name, bool up, uint64_t now)
{
	struct flap_link *l;
	unsigned n = 0;

	if (!name || !*name)
		return FLAP_NEWS_NONE;
	l = flap_find(f, name);
	if (!l)
		l = flap_add(f, name);
	if (!l)
		return FLAP_NEWS_NONE;
	if (!l->known || l->up == up) {
		l->known = true;
		l->up = up;
		return FLAP_NEWS_NONE;
	}
	l->up = up;
	l->last_change = now;
	if (l->held) {
		if (l->changes < UINT_MAX)
			l->changes++;
		return FLAP_NEWS_NONE;
	}
	/* The changes still inside the window, then this one. */
	for (unsigned i = 0; i < l->n_recent; i++)
		if (now - l->recent[i] <= FLAP_WINDOW_MS)
			l->recent[n++] = l->recent[i];
	if (n == FLAP_THRESHOLD) {
		memmove(l->recent, l->recent + 1, (FLAP_THRESHOLD - 1) * sizeof(l->recent[0]));
		n--;
	}
	l->recent[n++] = now;
	l->n_recent = n;
	if (n < FLAP_THRESHOLD)
		return FLAP_NEWS_NONE;
	l->held = true;
	l->changes = n;
	l->n_recent = 0;
	return FLAP_NEWS_HELD;
}

void flap_removed(struct flap *f, const char *name)
{
	struct flap_link *l = flap_find(f, name);

	if (!l)
		return;
	if (l->held) {
		l->known = false;       /* its hold-down runs on: gone and back is no proof of health */
		return;
	}
	*l = f->v[--f->n];
}

void flap_keep_only(struct flap *f, bool (*present)(const char *name, void *arg), void *arg)
{
	for (size_t i = 0; i < f->n;) {
		if (!f->v[i].held && !present(f->v[i].name, arg))
			f->v[i] = f->v[--f->n];
		else
			i++;
	}
}

size_t flap_release(struct flap *f, uint64_t now, void (*released)(const struct flap_link *l, void *arg),
		    void *arg)
{
	size_t n = 0;

	for (size_t i = 0; i < f->n; i++) {
		struct flap_link *l = &f->v[i];

		if (!l->held || now - l->last_change < FLAP_HOLD_MS)
			continue;
		if (released)
			released(l, arg);
		l->held = false;
		l->changes = 0;
		l->n_recent = 0;
		n++;
	}
	return n;
}

uint64_t flap_next_release(const struct flap *f)
{
	uint64_t at = 0;

	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].held && (!at || f->v[i].last_change + FLAP_HOLD_MS < at))
			at = f->v[i].last_change + FLAP_HOLD_MS;
	return at;
}

bool flap_any_held(const struct flap *f)
{
	return flap_next_release(f) != 0;       /* a held link's release is never at 0 (FLAP_HOLD_MS > 0) */
}

static int flap_cmp(const void *a, const void *b)
{
	return strcmp(((const struct obs_link_flap *)a)->name, ((const struct obs_link_flap *)b)->name);
}

void flap_fill(const struct flap *f, struct obs_flaps *out)
{
	struct obs_link_flap all[FLAP_LINKS_MAX];
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	out->threshold = FLAP_THRESHOLD;
	out->window_s = FLAP_WINDOW_MS / 1000u;
	out->hold_s = FLAP_HOLD_MS / 1000u;
	for (size_t i = 0; i < f->n; i++) {
		if (!f->v[i].held)
			continue;
		memcpy(all[n].name, f->v[i].name, sizeof(all[n].name));
		all[n++].changes = f->v[i].changes;
	}
	if (n)
		qsort(all, n, sizeof(all[0]), flap_cmp);
	out->n = n < OBS_FLAPS_MAX ? n : OBS_FLAPS_MAX;
	out->n_more = n - out->n;
	memcpy(out->v, all, out->n * sizeof(all[0]));
}
