/* tsample.c - the daemon's transport samples: a GPU pod started, and the previous sample per pod (pure). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agent/tsample.h"
#include "report/checks/transport.h"

static int tsample_cmp(const void *uid, const void *pod)
{
	return strcmp(uid, ((const struct tsample_pod *)pod)->uid);
}

const struct tsample_pod *tsample_find(const struct tsample *ts, const char *uid)
{
	return ts->n ? bsearch(uid, ts->v, ts->n, sizeof(ts->v[0]), tsample_cmp) : NULL;
}

size_t tsample_running(const struct tsample *ts, const struct obs_kube *k, const char *node, bool *ret_new)
{
	size_t n = 0;

	*ret_new = false;
	for (size_t i = 0; i < k->n_pods; i++) {
		const struct pod *p = &k->pods[i];

		if (!obs_transport_wants(p, node))
			continue;
		n++;
		if (!tsample_find(ts, p->uid))
			*ret_new = true;
	}
	return n;
}

int tsample_carry(struct tsample *ts, struct obs_transport *t)
{
	struct tsample_pod *next = NULL;
	size_t n = 0;

	if (t->n && !(next = calloc(t->n, sizeof(*next)))) {
		tsample_free(ts);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct obs_pod_transport *s = &t->pods[i];
		const struct tsample_pod *old = tsample_find(ts, s->uid);
		struct tsample_pod *keep = &next[n++];
		size_t nd = s->n_devs < OBS_TRANSPORT_DEVS_MAX ? s->n_devs : OBS_TRANSPORT_DEVS_MAX;
		bool read = s->read == OBS_TRANSPORT_READ;

		if (old) {
			s->prev_read = old->pid != 0;
			s->prev_rails = old->rails;
			s->had_clients = old->had_clients;
			s->had_rails = old->had_rails;
			s->had_until_s = old->had_until_s;
			keep->had_clients = old->had_clients;
			keep->had_rails = old->had_rails;
			keep->had_until_s = old->had_until_s;
			keep->since_s = old->since_s;
			keep->noted = old->noted;
			keep->state = old->state;
		}
		if (read && old && old->pid && old->ms < s->sampled_ms) {
			s->has_prev = true;
			memcpy(s->prev, old->devs, old->n_devs * sizeof(old->devs[0]));
			s->n_prev = old->n_devs;
			s->prev_ms = old->ms;
		}
		if (!keep->since_s)
			keep->since_s = t->wall_s;
		s->since_s = keep->since_s;
		memcpy(keep->uid, s->uid, sizeof(keep->uid));
		keep->uid[sizeof(keep->uid) - 1] = '\0';
		if (!read)
			continue;
		keep->pid = s->pid;
		keep->ms = s->sampled_ms;
		memcpy(keep->devs, s->devs, nd * sizeof(s->devs[0]));
		keep->n_devs = nd;
		keep->rails = s->n_rails + s->n_rails_dropped;
		if (s->clients) {
			/* This sample's own clients are what the judgement sees; the history starts with it. */
			keep->had_clients = s->clients;
			keep->had_rails = keep->rails;
			keep->had_until_s = t->wall_s;
		}
	}
	/* In @t's order: sorted by uid (obs_transport.h), as tsample_find() needs. */
	free(ts->v);
	ts->v = next;
	ts->n = n;
	return 0;
}

bool tsample_note(struct tsample *ts, const char *uid, enum transport_state state)
{
	struct tsample_pod *p = (struct tsample_pod *)tsample_find(ts, uid);
	bool changed;

	if (!p)
		return false;
	changed = !p->noted || p->state != state;
	p->noted = true;
	p->state = state;
	return changed;
}

void tsample_free(struct tsample *ts)
{
	if (!ts)
		return;
	free(ts->v);
	ts->v = NULL;
	ts->n = 0;
}
