/* eventq.c - the Events waiting to be posted: FIFO, one backoff for the queue, dedupe keys, an age limit. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/eventq.h"
#include "probes/kube/retry.h"

/* Remove item @i, keeping the order. */
static void eventq_remove(struct eventq *q, size_t i)
{
	free(q->v[i].body);
	memmove(&q->v[i], &q->v[i + 1], (q->n - i - 1) * sizeof(q->v[0]));
	q->n--;
}

bool eventq_seen(const struct eventq *q, const char *key)
{
	for (size_t i = 0; key && i < q->n_keys; i++)
		if (strcmp(q->keys[i], key) == 0)
			return true;
	return false;
}

static int eventq_remember(struct eventq *q, const char *key)
{
	char *k = strdup(key), **v;

	if (!k)
		return -ENOMEM;
	if (q->n_keys == EVENTQ_KEYS_MAX) {
		free(q->keys[0]);
		memmove(&q->keys[0], &q->keys[1], (q->n_keys - 1) * sizeof(q->keys[0]));
		q->n_keys--;
	} else {
		v = realloc(q->keys, (q->n_keys + 1) * sizeof(*v));
		if (!v) {
			free(k);
			return -ENOMEM;
		}
		q->keys = v;
	}
	q->keys[q->n_keys++] = k;
	return 0;
}

void eventq_drop(struct eventq *q)
{
	if (!q->n)
		return;
	eventq_remove(q, 0);
	q->dropped++;
}

int eventq_add(struct eventq *q, const char *key, const char *ns, const char *body, const char *what,
	       uint64_t now)
{
	struct eventq_item it = { .queued_at = now }, *v;

	if (eventq_seen(q, key))
		return 0;
	if (strlen(ns) >= sizeof(it.ns))
		return -EINVAL;
	snprintf(it.ns, sizeof(it.ns), "%s", ns);
	snprintf(it.what, sizeof(it.what), "%s", what ? what : "");
	it.body = strdup(body);
	if (!it.body)
		return -ENOMEM;
	/* Room first, the key next: a failure leaves nothing half done. */
	if (q->n < EVENTQ_MAX) {
		v = realloc(q->v, (q->n + 1) * sizeof(*v));
		if (!v) {
			free(it.body);
			return -ENOMEM;
		}
		q->v = v;
	}
	if (key && eventq_remember(q, key) < 0) {
		free(it.body);
		return -ENOMEM;
	}
	if (q->n == EVENTQ_MAX)
		eventq_drop(q);
	q->v[q->n++] = it;
	return 1;
}

void eventq_forget(struct eventq *q, bool (*keep)(const char *key, void *arg), void *arg)
{
	size_t k = 0;

	for (size_t i = 0; i < q->n_keys; i++) {
		if (keep(q->keys[i], arg))
			q->keys[k++] = q->keys[i];
		else
			free(q->keys[i]);
	}
	q->n_keys = k;
}

struct eventq_item *eventq_due(struct eventq *q, uint64_t now)
{
	if (!q->n || (q->hold_until && now < q->hold_until))
		return NULL;
	return &q->v[0];
}

void eventq_posted(struct eventq *q)
{
	if (q->n)
		eventq_remove(q, 0);
	retry_backoff_reset(&q->backoff);
	q->hold_until = 0;
}

uint64_t eventq_retry(struct eventq *q, uint64_t now, unsigned retry_after_s)
{
	uint64_t d = retry_backoff_fail(&q->backoff, retry_after_s);

	q->hold_until = now + d;
	return d;
}

unsigned eventq_expire(struct eventq *q, uint64_t now)
{
	unsigned n = 0;

	for (; q->n && now >= q->v[0].queued_at && now - q->v[0].queued_at > EVENTQ_MAX_AGE_MS; n++)
		eventq_drop(q);
	return n;
}

uint64_t eventq_wake_at(const struct eventq *q)
{
	if (!q->n)
		return 0;
	return q->hold_until ? q->hold_until : 1;
}

void eventq_free(struct eventq *q)
{
	if (!q)
		return;
	for (size_t i = 0; i < q->n; i++)
		free(q->v[i].body);
	free(q->v);
	for (size_t i = 0; i < q->n_keys; i++)
		free(q->keys[i]);
	free(q->keys);
	memset(q, 0, sizeof(*q));
}
