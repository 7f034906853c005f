/* schedule.c - the daemon loop's timers: debounce, API resync, backoff, start jitter, flap write spacing, heartbeat (pure). */
#include "agent/schedule.h"
#include "agent/flap.h"
#include "probes/kube/retry.h"

void schedule_init(struct schedule *s, uint64_t now, unsigned interval_s, unsigned jitter_s, enum schedule_api api,
		   uint64_t rnd)
{
	uint64_t jitter_ms = (uint64_t)jitter_s * 1000u, first = now + rnd % (jitter_ms + 1);

	*s = (struct schedule){
		.api = api,
		.interval_ms = (uint64_t)interval_s * 1000u,
		.observe_at = api != SCHEDULE_API_NONE ? (first ? first : 1) : (now ? now : 1),
		.read_at = api != SCHEDULE_API_NONE ? (first ? first : 1) : 0,
		.publish_after = first,
		/* The policy's cap, or the interval when shorter: a retry never comes later than the next read would. */
		.backoff = { .cap_ms = (unsigned)(interval_s && interval_s * 1000ull < RETRY_BACKOFF_CAP_MS ?
						  interval_s * 1000u : RETRY_BACKOFF_CAP_MS),
			     .rng = rnd ^ 0x9E3779B97F4A7C15ull },
	};
}

void schedule_resynced(struct schedule *s, uint64_t now, uint64_t rnd)
{
	s->read_at = now + s->interval_ms + rnd % (s->interval_ms / SCHEDULE_RESYNC_JITTER + 1);
}

void schedule_event(struct schedule *s, uint64_t now)
{
	if (!s->observe_at || s->observe_at > now + SCHEDULE_DEBOUNCE_MS)
		s->observe_at = now + SCHEDULE_DEBOUNCE_MS;
}

void schedule_observe_failed(struct schedule *s, uint64_t now)
{
	if (!s->observe_at || s->observe_at > now + SCHEDULE_OBSERVE_RETRY_MS)
		s->observe_at = now + SCHEDULE_OBSERVE_RETRY_MS;
}

void schedule_flaps(struct schedule *s, const struct flap *f)
{
	s->damp_at = flap_next_release(f);
	s->spacing_ms = flap_any_held(f) ? SCHEDULE_FLAP_SPACING_MS : 0;
}

void schedule_observe_now(struct schedule *s, uint64_t now)
{
	s->observe_at = now ? now : 1;
}

unsigned schedule_due(const struct schedule *s, uint64_t now)
{
	unsigned due = 0;

	if ((s->observe_at && now >= s->observe_at) || (s->damp_at && now >= s->damp_at))
		due |= SCHEDULE_OBSERVE;
	if (s->read_at && now >= s->read_at)
		due |= SCHEDULE_READ;
	if (s->transport_at && now >= s->transport_at)
		due |= SCHEDULE_TRANSPORT | SCHEDULE_OBSERVE;
	if (s->writing)
		return due;     /* what writes waits for the one in flight */
	if (s->publish_pending && now >= schedule_publish_at(s))
		due |= SCHEDULE_PUBLISH;
	if (s->events_at && now >= s->events_at)
		due |= SCHEDULE_EVENTS;
	if (s->retry_at && now >= s->retry_at)
		due |= SCHEDULE_RETRY | SCHEDULE_OBSERVE;
	/* In backoff the retry carries an owed heartbeat: it never writes to a failing API on its own. */
	if (schedule_heartbeat_owed(s, now) && !s->backoff.failures)
		due |= SCHEDULE_HEARTBEAT | SCHEDULE_OBSERVE;
	return due;
}

static void schedule_min(uint64_t *best, uint64_t at)
{
	if (at && at < *best)
		*best = at;
}

int schedule_timeout(const struct schedule *s, uint64_t now)
{
	uint64_t next = now + SCHEDULE_WAKE_MS;

	schedule_min(&next, s->observe_at);
	schedule_min(&next, s->read_at);
	schedule_min(&next, s->damp_at);
	schedule_min(&next, s->transport_at);
	if (s->writing)
		return next <= now ? 0 : (int)(next - now);
	schedule_min(&next, s->events_at);
	schedule_min(&next, s->retry_at);
	if (s->heartbeat_ms && !s->backoff.failures)
		schedule_min(&next, s->heartbeat_at);
	if (s->publish_pending)
		schedule_min(&next, schedule_publish_at(s));
	return next <= now ? 0 : (int)(next - now);
}

void schedule_observed(struct schedule *s)
{
	s->observe_at = 0;
	/* Every iteration runs the publish step: whoever posts the Events sets the next wake-up. */
	s->events_at = 0;
}

void schedule_transport(struct schedule *s, uint64_t now, bool gpu_pods, bool sampled)
{
	if (!gpu_pods)
		s->transport_at = 0;
	else if (sampled || !s->transport_at || s->transport_at <= now)
		s->transport_at = now + SCHEDULE_TRANSPORT_MS;
}

void schedule_transport_taken(struct schedule *s)
{
	s->transport_at = 0;
}

void schedule_transport_now(struct schedule *s, uint64_t now)
{
	s->transport_at = now ? now : 1;
}

void schedule_events(struct schedule *s, uint64_t at)
{
	s->events_at = at;
}

uint64_t schedule_publish_at(const struct schedule *s)
{
	uint64_t at = s->publish_after;

	if (s->spacing_ms && s->last_write && s->last_write + s->spacing_ms > at)
		at = s->last_write + s->spacing_ms;
	return at;
}

bool schedule_may_publish(const struct schedule *s, uint64_t now)
{
	return now >= schedule_publish_at(s);
}

void schedule_hold_publish(struct schedule *s)
{
	s->publish_pending = true;
}

void schedule_writing(struct schedule *s, bool writing, uint64_t now)
{
	s->writing = writing;
	if (!writing && s->write_held) {
		s->write_held = false;
		schedule_observe_now(s, now);
	}
}

void schedule_write_held(struct schedule *s)
{
	s->write_held = true;
}

void schedule_retry_taken(struct schedule *s)
{
	s->retry_at = 0;
}

void schedule_api_ok(struct schedule *s, uint64_t now)
{
	retry_backoff_reset(&s->backoff);
	s->retry_at = 0;
	if (s->api != SCHEDULE_API_WATCH)
		s->read_at = now + s->interval_ms;
}

void schedule_publish_done(struct schedule *s)
{
	s->publish_pending = false;
}

void schedule_wrote(struct schedule *s, uint64_t now)
{
	s->publish_pending = false;
	s->last_write = now ? now : 1;
}

uint64_t schedule_api_failed(struct schedule *s, uint64_t now, long status)
{
	uint64_t d = retry_backoff_fail(&s->backoff, 0);

	if (status == 403 || status == 404)
		d = retry_backoff_ms(retry_random(&s->backoff.rng), 1, RETRY_SLOW_MS, RETRY_SLOW_MS);
	if (s->api == SCHEDULE_API_WATCH)
		s->retry_at = now + d;
	else
		s->read_at = now + d;
	return d;
}

void schedule_heartbeat(struct schedule *s, uint64_t heartbeat_ms)
{
	s->heartbeat_ms = heartbeat_ms;
	s->heartbeat_at = 0;
}

void schedule_heartbeat_start(struct schedule *s, uint64_t now, uint64_t age_ms)
{
	if (!s->heartbeat_ms || s->heartbeat_at)
		return;
	s->heartbeat_at = age_ms >= s->heartbeat_ms ? now : now + (s->heartbeat_ms - age_ms);
	if (!s->heartbeat_at)
		s->heartbeat_at = 1;
}

void schedule_heartbeat_sent(struct schedule *s, uint64_t now)
{
	if (s->heartbeat_ms)
		s->heartbeat_at = now + s->heartbeat_ms;
}

bool schedule_heartbeat_owed(const struct schedule *s, uint64_t now)
{
	return s->heartbeat_ms && s->heartbeat_at && now >= s->heartbeat_at;
}

void schedule_heartbeat_failed(struct schedule *s, uint64_t now)
{
	if (s->heartbeat_ms)
		s->heartbeat_at = now ? now : 1;
}
