/* test_reflector.c - the list-then-watch state machine on a fake clock, and when it backs off (the policy: test_retry.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/reflector.h"
#include "probes/kube/retry.h"

#define PATH "/api/v1/pods"
#define QUERY "fieldSelector=spec.nodeName%3Dnode-a"
#define T0 1000000u

static const char LIST[] =
	"{\"kind\":\"PodList\",\"apiVersion\":\"v1\",\"metadata\":{\"resourceVersion\":\"10\"},\"items\":["
	"{\"metadata\":{\"name\":\"p2\",\"namespace\":\"ml\",\"resourceVersion\":\"8\"}},"
	"{\"metadata\":{\"name\":\"p1\",\"namespace\":\"ml\",\"resourceVersion\":\"9\"}}]}";

/* The relists of every reason (the metrics' relists_by summed): fills of the store after the first. */
static unsigned long relists(const struct reflector_stats *st)
{
	unsigned long n = 0;

	for (size_t k = 0; k < REFLECTOR_RELIST__COUNT; k++)
		n += st->relists_by[k];
	return n;
}

static struct reflector *make(bool watchlist)
{
	struct reflector_config cfg = { .path = PATH, .query = QUERY, .kind = "Pod", .watchlist = watchlist, .seed = 42 };
	struct reflector *r = NULL;

	assert_int_equal(reflector_new(&cfg, &r), 0);
	return r;
}

/* The next step must be @want; returns its path (freed by the caller) or NULL. */
static char *step(struct reflector *r, uint64_t now, enum reflector_step want, uint64_t *wake)
{
	uint64_t w = 0;
	char *path = NULL;
	enum reflector_step got = reflector_next(r, now, &path, &w);

	if (got != want)
		fail_msg("step at %llu: got %d, want %d (state %d; error: %s)", (unsigned long long)now, got, want,
			 (int)reflector_state(r), reflector_error(r));
	if (wake)
		*wake = w;
	assert_true((path != NULL) == (want == REFLECTOR_LIST || want == REFLECTOR_WATCH));
	return path;
}

static void step_free(struct reflector *r, uint64_t now, enum reflector_step want)
{
	free(step(r, now, want, NULL));
}

static int line(struct reflector *r, uint64_t now, const char *type, const char *name, const char *rv)
{
	char buf[512];

	if (name)
		snprintf(buf, sizeof(buf), "{\"type\":\"%s\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\","
			 "\"namespace\":\"ml\",\"resourceVersion\":\"%s\"}}}", type, name, rv);
	else
		snprintf(buf, sizeof(buf), "{\"type\":\"%s\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
			 "{\"resourceVersion\":\"%s\"}}}", type, rv);
	return reflector_watch_line(r, now, buf, strlen(buf));
}

/* Start: list (RV 10, two pods), then the watch step. Returns the watch path. */
static char *listed(struct reflector *r, uint64_t now)
{
	char *p = step(r, now, REFLECTOR_LIST, NULL);

	assert_string_equal(p, PATH "?" QUERY "&resourceVersion=0");   /* any state: the cache answers */
	free(p);
	assert_int_equal(reflector_list_done(r, now, 200, LIST, strlen(LIST), 1, 0), 0);
	return step(r, now, REFLECTOR_WATCH, NULL);
}

static unsigned timeout_of(const char *path)
{
	const char *t = strstr(path, "timeoutSeconds=");

	assert_non_null(t);
	return (unsigned)strtoul(t + 15, NULL, 10);
}

/* The ceiling of the @n-th backoff in a row by the one policy (retry.h), with the defaults. */
static uint64_t ceiling(unsigned n)
{
	uint64_t d = RETRY_BACKOFF_BASE_MS;

	while (n-- > 1 && d < RETRY_BACKOFF_CAP_MS)
		d *= 2;
	return d < RETRY_BACKOFF_CAP_MS ? d : RETRY_BACKOFF_CAP_MS;
}

/* The next step is a wait: how long from @now; the wait of the @n-th backoff in a row (0: any). */
static uint64_t waited(struct reflector *r, uint64_t now, unsigned n)
{
	uint64_t wake;

	free(step(r, now, REFLECTOR_WAIT, &wake));
	assert_true(wake > now && wake != UINT64_MAX);
	if (n && (wake - now < ceiling(n) / 2 || wake - now > ceiling(n)))
		fail_msg("backoff %u: waited %llu ms, want [%llu, %llu]", n, (unsigned long long)(wake - now),
			 (unsigned long long)ceiling(n) / 2, (unsigned long long)ceiling(n));
	assert_int_equal(reflector_state(r), REFLECTOR_BACKOFF);
	step_free(r, wake - 1, REFLECTOR_WAIT);         /* nothing before its end */
	return wake - now;
}

static void test_list_then_watch(void **state)
{
	struct reflector *r = make(false);
	const struct reflector_stats *st = reflector_stats(r);
	char *p, *json;
	unsigned long g;

	assert_false(reflector_synced(r));
	assert_null(reflector_object(r, 0));    /* nothing before the first list */
	assert_int_equal(reflector_state(r), REFLECTOR_STARTING);
	p = listed(r, T0);
	assert_non_null(strstr(p, PATH "?" QUERY "&watch=1&resourceVersion=10&allowWatchBookmarks=true&timeoutSeconds="));
	assert_true(timeout_of(p) >= 300 && timeout_of(p) < 600);
	assert_int_equal(reflector_watch_timeout_s(r), timeout_of(p));    /* for the caller's own timeout */
	free(p);
	assert_true(reflector_synced(r));
	assert_int_equal(reflector_count(r), 2);
	assert_string_equal(json_get_string(json_get(reflector_object(r, 0), "metadata"), "name"), "p1");  /* sorted */
	assert_non_null(reflector_find(r, "ml", "p2"));
	assert_null(reflector_find(r, "ml", "p3"));
	assert_int_equal(reflector_state(r), REFLECTOR_WATCHING);
	/* While the watch is open there is nothing to send. */
	step_free(r, T0 + 5, REFLECTOR_WAIT);

	g = reflector_generation(r);
	assert_int_equal(line(r, T0 + 10, "ADDED", "p3", "11"), 0);
	assert_int_equal(line(r, T0 + 20, "MODIFIED", "p1", "12"), 0);
	assert_int_equal(line(r, T0 + 30, "DELETED", "p2", "13"), 0);
	assert_int_equal(line(r, T0 + 40, "DELETED", "never-seen", "14"), 0);
	assert_int_equal(reflector_generation(r), g + 3);
	assert_int_equal(reflector_count(r), 2);
	assert_string_equal(json_get_string(json_get(reflector_find(r, "ml", "p1"), "metadata"), "resourceVersion"), "12");
	assert_int_equal(line(r, T0 + 50, "BOOKMARK", NULL, "20"), 0);
	assert_int_equal(reflector_generation(r), g + 3);               /* a bookmark changes no object */

	/* The server ends the watch (timeoutSeconds): resume at once from the newest version. */
	reflector_watch_done(r, T0 + 400000, 200, 0, 1, 0);
	p = step(r, T0 + 400000, REFLECTOR_WATCH, NULL);
	assert_non_null(strstr(p, "&resourceVersion=20&"));
	free(p);
	assert_int_equal(st->lists, 1);
	assert_int_equal(st->watches, 2);
	assert_int_equal(st->resumes, 1);
	assert_int_equal(st->requests, 3);
	assert_int_equal(st->events, 4);
	assert_int_equal(st->bookmarks, 1);
	assert_int_equal(relists(st), 0);
	assert_int_equal(st->errors, 0);

	/* The store, in key order, as the parsers are handed it (kubefeed). */
	assert_int_equal(reflector_count(r), 2);
	for (size_t i = 0; i < 2; i++) {
		json = json_print(reflector_object(r, i), false);
		assert_string_equal(json, i == 0 ? "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"namespace\":\"ml\","
				    "\"resourceVersion\":\"12\"}}" : "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p3\","
				    "\"namespace\":\"ml\",\"resourceVersion\":\"11\"}}");
		free(json);
	}
	assert_null(reflector_object(r, 2));
	reflector_free(r);
	reflector_free(NULL);
}

static void test_gone_relists(void **state)
{
	static const char ERR410[] = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,"
		"\"reason\":\"Expired\",\"message\":\"too old resource version: 10 (15)\"}}";
	struct reflector *r = make(false);
	const struct reflector_stats *st = reflector_stats(r);
	char *p;

	free(listed(r, T0));
	assert_int_equal(line(r, T0 + 1, "ADDED", "p3", "11"), 0);
	uint64_t now;

	/* The ERROR event: close, relist "not older than" what we saw, after a backoff. */
	assert_int_equal(reflector_watch_line(r, T0 + 2, ERR410, strlen(ERR410)), 1);
	assert_non_null(strstr(reflector_error(r), "410 Expired: too old resource version"));
	now = T0 + 2 + waited(r, T0 + 2, 1);
	p = step(r, now, REFLECTOR_LIST, NULL);
	assert_string_equal(p, PATH "?" QUERY "&resourceVersion=11");
	free(p);
	/* That version is gone from the cache too: the newest state, a consistent list, at once (once). */
	assert_int_equal(reflector_list_done(r, now + 1, 410, NULL, 0, 1, 0), -EIO);
	p = step(r, now + 1, REFLECTOR_LIST, NULL);
	assert_string_equal(p, PATH "?" QUERY);
	free(p);
	assert_int_equal(reflector_list_done(r, now + 2, 200, LIST, strlen(LIST), 1, 0), 0);
	step_free(r, now + 2, REFLECTOR_WATCH);
	/* A 410 answer to the watch itself: relist as well; the list between did not end the run. */
	reflector_watch_done(r, now + 3, 410, -EIO, 1, 0);
	now += 3 + waited(r, now + 3, 2);
	p = step(r, now, REFLECTOR_LIST, NULL);
	assert_string_equal(p, PATH "?" QUERY "&resourceVersion=10");
	free(p);
	assert_int_equal(st->gone, 3);
	assert_int_equal(relists(st), 3);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_GONE], 3);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_RESYNC], 0);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_ERROR], 0);
	assert_int_equal(st->lists, 4);
	assert_int_equal(reflector_count(r), 2);        /* p3 fell out with the relist */
	assert_int_equal(st->errors, 0);                /* a 410 is no error, but waits like one */
	reflector_free(r);
}

static void test_backoff_grows_capped_and_resets(void **state)
{
	struct reflector *r = make(false);
	uint64_t now = T0, w;
	char *p;

	free(listed(r, now));
	for (unsigned i = 1; i <= 30; i++) {
		reflector_watch_done(r, now, 0, -ECONNREFUSED, 1, 0);
		w = waited(r, now, i);                  /* [d/2, d], d doubling from the base */
		if (i >= 7)
			assert_true(w >= RETRY_BACKOFF_CAP_MS / 2);     /* 320 s capped: the cap is reached */
		now += w;
		p = step(r, now, REFLECTOR_WATCH, NULL);   /* from the same version: no relist */
		assert_non_null(strstr(p, "resourceVersion=10&"));
		free(p);
	}
	assert_non_null(strstr(reflector_error(r), "no answer"));
	/* An event is not health: a watch that failed after 1 s goes on from the cap. */
	assert_int_equal(line(r, now, "ADDED", "p3", "11"), 0);
	reflector_watch_done(r, now + 1000, 0, -ECONNRESET, 1, 0);
	now += 1000 + waited(r, now + 1000, 31);
	/* Nor is a watch that followed for just under RETRY_HEALTHY_MS. */
	step_free(r, now, REFLECTOR_WATCH);
	reflector_watch_done(r, now + RETRY_HEALTHY_MS - 1, 0, -ECONNRESET, 1, 0);
	now += RETRY_HEALTHY_MS - 1 + waited(r, now + RETRY_HEALTHY_MS - 1, 32);
	/* One that followed for RETRY_HEALTHY_MS ends the run: the next failure waits the first backoff. */
	step_free(r, now, REFLECTOR_WATCH);
	reflector_watch_done(r, now + RETRY_HEALTHY_MS, 0, -ECONNRESET, 1, 0);
	now += RETRY_HEALTHY_MS + waited(r, now + RETRY_HEALTHY_MS, 1);
	step_free(r, now, REFLECTOR_WATCH);
	reflector_watch_done(r, now, 0, -ECONNRESET, 1, 0);
	waited(r, now, 2);                              /* and the run grows again from there */
	assert_int_equal(reflector_stats(r)->errors, 34);
	reflector_free(r);
}

static const char GONE[] = "{\"type\":\"ERROR\",\"object\":{\"kind\":\"Status\",\"code\":410,"
	"\"reason\":\"Expired\",\"message\":\"too old resource version\"}}";

/*
 * The storm: a server that refuses watch-list and answers every resumed watch with an ERROR 410.
 * Each relist waits longer than the last (a list that succeeds does not end the run), so 30 s
 * cost a few requests, not a loop.
 */
static void test_gone_storm_backs_off(void **state)
{
	struct reflector *r = make(true);
	const struct reflector_stats *st = reflector_stats(r);
	uint64_t now = T0, prev = 0, w;
	unsigned long in30 = 0;

	step_free(r, now, REFLECTOR_WATCH);
	reflector_watch_done(r, now, 422, -EIO, 1, 0);  /* watch-list refused: list+watch from then on */
	for (unsigned n = 1; n <= 12; n++) {
		step_free(r, now, REFLECTOR_LIST);
		assert_int_equal(reflector_list_done(r, now, 200, LIST, strlen(LIST), 1, 0), 0);
		step_free(r, now, REFLECTOR_WATCH);
		/* Half of them as an ERROR event, half as a 410 answer: one run either way. */
		if (n % 2)
			assert_int_equal(reflector_watch_line(r, now + 5, GONE, strlen(GONE)), 1);
		else
			reflector_watch_done(r, now + 5, 410, -EIO, 1, 0);
		if (now < T0 + 30000)
			in30 = st->requests;
		w = waited(r, now + 5, n);
		assert_true(n == 1 || w >= prev / 2);       /* growing: each at least the last's lower half */
		assert_true(n > 6 || w >= ceiling(n) / 2);
		prev = w;
		now += 5 + w;
	}
	/* 30 s: the refused watch-list, then a list and a watch at 0, 2.5-5, 7.5-15, 17.5-35 s. */
	print_message("410 on every resumed watch: %lu requests in the first 30 s\n", in30);
	assert_true(in30 >= 5 && in30 <= 9);
	assert_int_equal(st->gone, 12);
	assert_int_equal(relists(st), 12);
	assert_int_equal(st->errors, 0);
	/* After 12 in a row the wait is the cap's. */
	assert_true(prev >= RETRY_BACKOFF_CAP_MS / 2 && prev <= RETRY_BACKOFF_CAP_MS);
	reflector_free(r);
}

/*
 * Only a watch that stayed healthy RETRY_HEALTHY_MS ends the run (client-go's reset); resumes
 * when the server ends a watch carry the streak on; in watch-list mode it counts from the end of
 * the initial events.
 */
static void test_healthy_watch_resets(void **state)
{
	static const char END[] = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
		"{\"resourceVersion\":\"30\",\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}";
	struct reflector *r = make(false);
	uint64_t now = T0;

	free(listed(r, now));
	for (unsigned n = 1; n <= 3; n++) {             /* three 410s in a row */
		assert_int_equal(reflector_watch_line(r, now + 10, GONE, strlen(GONE)), 1);
		now += 10 + waited(r, now + 10, n);
		step_free(r, now, REFLECTOR_LIST);
		assert_int_equal(reflector_list_done(r, now, 200, LIST, strlen(LIST), 1, 0), 0);
		step_free(r, now, REFLECTOR_WATCH);
	}
	/* Healthy just short of it, with events: the fourth waits longer still. */
	assert_int_equal(line(r, now + 1000, "ADDED", "p3", "11"), 0);
	assert_int_equal(line(r, now + 50000, "MODIFIED", "p3", "12"), 0);
	assert_int_equal(reflector_watch_line(r, now + RETRY_HEALTHY_MS - 1, GONE, strlen(GONE)), 1);
	now += RETRY_HEALTHY_MS - 1 + waited(r, now + RETRY_HEALTHY_MS - 1, 4);
	step_free(r, now, REFLECTOR_LIST);
	assert_int_equal(reflector_list_done(r, now, 200, LIST, strlen(LIST), 1, 0), 0);
	step_free(r, now, REFLECTOR_WATCH);
	/* 40 s, ended by the server, resumed, 20 s more: healthy for 60 s; the next 410 waits the first backoff. */
	reflector_watch_done(r, now + 40000, 200, 0, 1, 0);
	step_free(r, now + 40000, REFLECTOR_WATCH);
	assert_int_equal(reflector_watch_line(r, now + RETRY_HEALTHY_MS, GONE, strlen(GONE)), 1);
	now += RETRY_HEALTHY_MS + waited(r, now + RETRY_HEALTHY_MS, 1);
	step_free(r, now, REFLECTOR_LIST);
	assert_int_equal(reflector_list_done(r, now, 200, LIST, strlen(LIST), 1, 0), 0);
	step_free(r, now, REFLECTOR_WATCH);
	reflector_watch_done(r, now + 5, 200, -ECONNRESET, 1, 0);      /* a broken stream continues the run */
	waited(r, now + 5, 2);
	reflector_free(r);

	/* Watch-list (each 410 refills with one): health counts from the end of the initial events. */
	r = make(true);
	now = T0;
	for (unsigned n = 1; n <= 2; n++) {
		char *p = step(r, now, REFLECTOR_WATCH, NULL);

		assert_non_null(strstr(p, "sendInitialEvents=true"));
		free(p);
		/* The initial events took 20 s; 50 s of following after them are not 60. */
		assert_int_equal(reflector_watch_line(r, now + 20000, END, strlen(END)), 0);
		assert_int_equal(reflector_watch_line(r, now + 70000, GONE, strlen(GONE)), 1);
		now += 70000 + waited(r, now + 70000, n);
	}
	/* ... 60 are. */
	step_free(r, now, REFLECTOR_WATCH);
	assert_int_equal(reflector_watch_line(r, now + 20000, END, strlen(END)), 0);
	assert_int_equal(reflector_watch_line(r, now + 20000 + RETRY_HEALTHY_MS, GONE, strlen(GONE)), 1);
	waited(r, now + 20000 + RETRY_HEALTHY_MS, 1);
	assert_int_equal(relists(reflector_stats(r)), 2);
	reflector_free(r);
}

static void test_retry_after_and_slow_statuses(void **state)
{
	struct reflector *r = make(false);
	uint64_t wake;

	free(listed(r, T0));
	reflector_watch_done(r, T0, 429, -EIO, 4, 5);
	free(step(r, T0, REFLECTOR_WAIT, &wake));
	/* Retry-After honoured, the backoff on top (retry_wait_ms()). */
	assert_true(wake >= T0 + 5000 + RETRY_BACKOFF_BASE_MS / 2 && wake <= T0 + 5000 + RETRY_BACKOFF_BASE_MS);
	assert_int_equal(reflector_stats(r)->requests, 2 + 3);  /* the client's retries are counted */
	step_free(r, wake, REFLECTOR_WATCH);
	reflector_watch_done(r, wake, 403, -EIO, 1, 0);
	assert_int_equal(reflector_state(r), REFLECTOR_FORBIDDEN);
	free(step(r, wake, REFLECTOR_WAIT, &wake));
	step_free(r, wake, REFLECTOR_LIST);                     /* slowly, then a fresh list */
	assert_int_equal(reflector_list_done(r, wake, 404, "{}", 2, 1, 0), -EIO);
	assert_int_equal(reflector_state(r), REFLECTOR_ABSENT);
	{
		uint64_t w2;

		free(step(r, wake, REFLECTOR_WAIT, &w2));
		assert_int_equal(w2, wake + RETRY_SLOW_MS);
	}
	reflector_free(r);
}

static void test_short_watch_and_broken_stream(void **state)
{
	struct reflector *r = make(false);
	uint64_t wake;

	free(listed(r, T0));
	/* Closed at once with nothing in it: not a resume loop, a backoff. */
	reflector_watch_done(r, T0 + 100, 200, 0, 1, 0);
	free(step(r, T0 + 100, REFLECTOR_WAIT, &wake));
	assert_non_null(strstr(reflector_error(r), "without an event"));
	step_free(r, wake, REFLECTOR_WATCH);
	/* A stream cut short: back off, watch again from the version we have. */
	assert_int_equal(line(r, wake + 1, "ADDED", "p3", "11"), 0);
	reflector_watch_done(r, wake + 2, 200, -ECONNRESET, 1, 0);
	free(step(r, wake + 2, REFLECTOR_WAIT, &wake));
	free(step(r, wake, REFLECTOR_WATCH, NULL));
	/* An event over the line limit: the stream cannot go on; relist after the backoff. */
	reflector_watch_done(r, wake, 200, -EMSGSIZE, 1, 0);
	free(step(r, wake, REFLECTOR_WAIT, &wake));
	free(step(r, wake, REFLECTOR_LIST, NULL));
	reflector_free(r);
}

static void test_malformed_lines(void **state)
{
	static const char *const bad[] = {
		"not json",
		"{\"type\":\"ADDED\",\"object\":{\"kind\":\"Node\",\"metadata\":{\"name\":\"n\",\"resourceVersion\":\"3\"}}}",
		"{\"type\":\"ERROR\",\"object\":{\"code\":500,\"message\":\"etcd down\"}}",
	};
	static const int want[] = { -EINVAL, -EINVAL, -EIO };
	static const char *const msg[] = { "malformed event: not JSON", "of kind Node, expected Pod", "ERROR event 500" };

	for (size_t i = 0; i < 3; i++) {
		struct reflector *r = make(false);
		uint64_t wake;

		free(listed(r, T0));
		assert_int_equal(reflector_watch_line(r, T0, bad[i], strlen(bad[i])), want[i]);
		assert_non_null(strstr(reflector_error(r), msg[i]));
		assert_int_equal(reflector_count(r), 2);        /* the store is left as it was */
		free(step(r, T0, REFLECTOR_WAIT, &wake));
		free(step(r, wake, REFLECTOR_LIST, NULL));      /* a relist, after a backoff */
		/* Lines of the closed stream are refused. */
		assert_int_equal(line(r, wake, "ADDED", "late", "99"), -EINVAL);
		reflector_free(r);
	}
}

/* Issue 30: an event whose object has no name to keep it by is set aside; the watch goes on, the rest is read. */
static void test_unnamed_event(void **state)
{
	struct reflector *r = make(false);
	char big[600];
	size_t n;

	free(listed(r, T0));
	assert_int_equal(line(r, T0 + 1, "ADDED", NULL, "7"), 0);
	assert_int_equal(reflector_stats(r)->aside, 1);
	assert_int_equal(reflector_count(r), 2);
	/* A name the parsers will refuse (300 bytes) is kept as sent: they name it. */
	n = (size_t)snprintf(big, sizeof(big), "{\"type\":\"ADDED\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"");
	memset(big + n, 'x', 300);
	snprintf(big + n + 300, sizeof(big) - n - 300, "\",\"namespace\":\"ml\",\"resourceVersion\":\"8\"}}}");
	assert_int_equal(reflector_watch_line(r, T0 + 2, big, strlen(big)), 0);
	assert_int_equal(line(r, T0 + 3, "ADDED", "after", "9"), 0);
	assert_int_equal(reflector_count(r), 4);
	assert_int_equal(reflector_stats(r)->errors, 0);
	reflector_free(r);
}

static void test_malformed_lists(void **state)
{
	static const char *const bad[] = {
		"", "[]", "{\"items\":[]}",
		"{\"metadata\":{\"resourceVersion\":\"1 2\"},\"items\":[]}",
		"{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":{}}",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct reflector *r = make(false);
		uint64_t wake;

		step_free(r, T0, REFLECTOR_LIST);
		assert_int_equal(reflector_list_done(r, T0, 200, bad[i], strlen(bad[i]), 1, 0), -EINVAL);
		assert_false(reflector_synced(r));
		assert_non_null(strstr(reflector_error(r), "list " PATH));
		free(step(r, T0, REFLECTOR_WAIT, &wake));
		step_free(r, wake, REFLECTOR_LIST);
		reflector_free(r);
	}
	/* Items that cannot be kept are set aside and counted: the list is read. */
	{
		struct reflector *r = make(false);
		static const char odd[] = "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{\"metadata\":{}},7,"
					  "{\"metadata\":{\"name\":\"a\"}}]}";

		step_free(r, T0, REFLECTOR_LIST);
		assert_int_equal(reflector_list_done(r, T0, 200, odd, strlen(odd), 1, 0), 0);
		assert_true(reflector_synced(r));
		assert_int_equal(reflector_count(r), 1);
		assert_int_equal(reflector_stats(r)->aside, 2);
		reflector_free(r);
	}
	/* null items is an empty list. */
	{
		struct reflector *r = make(false);
		static const char ok[] = "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":null}";

		step_free(r, T0, REFLECTOR_LIST);
		assert_int_equal(reflector_list_done(r, T0, 200, ok, strlen(ok), 1, 0), 0);
		assert_true(reflector_synced(r));
		assert_int_equal(reflector_count(r), 0);
		/* A result nobody asked for is ignored. */
		assert_int_equal(reflector_list_done(r, T0, 200, ok, strlen(ok), 1, 0), -EINVAL);
		reflector_free(r);
	}
}

static void test_object_limit(void **state)
{
	struct reflector_config cfg = { .path = PATH, .max_objects = 2 };
	static const char three[] = "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":[{\"metadata\":{\"name\":\"a\"}},"
		"{\"metadata\":{\"name\":\"b\"}},{\"metadata\":{\"name\":\"c\"}}]}";
	struct reflector *r = NULL;
	uint64_t wake;

	assert_int_equal(reflector_new(&cfg, &r), 0);
	step_free(r, T0, REFLECTOR_LIST);
	assert_int_equal(reflector_list_done(r, T0, 200, three, strlen(three), 1, 0), -EINVAL);
	assert_non_null(strstr(reflector_error(r), "more objects than the limit"));
	free(step(r, T0, REFLECTOR_WAIT, &wake));
	step_free(r, wake, REFLECTOR_LIST);
	assert_int_equal(reflector_list_done(r, wake, 200, LIST, strlen(LIST), 1, 0), 0);
	step_free(r, wake, REFLECTOR_WATCH);
	assert_int_equal(line(r, wake, "ADDED", "p9", "11"), -E2BIG);
	reflector_free(r);
}

static void test_watchlist_one_request(void **state)
{
	static const char END[] = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"resourceVersion\":\"30\","
		"\"annotations\":{\"k8s.io/initial-events-end\":\"true\"}}}}";
	struct reflector *r = make(true);
	const struct reflector_stats *st = reflector_stats(r);
	char *p = step(r, T0, REFLECTOR_WATCH, NULL);

	assert_non_null(strstr(p, PATH "?" QUERY "&watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
			       "&allowWatchBookmarks=true&timeoutSeconds="));
	assert_null(strstr(p, "resourceVersion="));
	free(p);
	assert_int_equal(line(r, T0 + 1, "ADDED", "a", "3"), 0);
	assert_int_equal(line(r, T0 + 2, "ADDED", "b", "7"), 0);
	assert_false(reflector_synced(r));              /* not before the initial events ended */
	assert_int_equal(reflector_count(r), 0);
	assert_int_equal(reflector_watch_line(r, T0 + 3, END, strlen(END)), 0);
	assert_true(reflector_synced(r));
	assert_int_equal(reflector_count(r), 2);
	/* Filled and following with one request. */
	assert_int_equal(st->requests, 1);
	assert_int_equal(st->lists, 0);
	/* The end bookmark's version is the one a resume starts from; then each event's. */
	reflector_watch_done(r, T0 + 10000, 200, 0, 1, 0);
	p = step(r, T0 + 10000, REFLECTOR_WATCH, NULL);
	assert_non_null(strstr(p, "&resourceVersion=30&"));
	free(p);
	assert_int_equal(line(r, T0 + 10001, "MODIFIED", "a", "31"), 0);
	reflector_watch_done(r, T0 + 400000, 200, 0, 1, 0);
	p = step(r, T0 + 400000, REFLECTOR_WATCH, NULL);
	assert_non_null(strstr(p, "&resourceVersion=31&"));   /* a resume is a plain watch */
	free(p);
	reflector_free(r);
}

static void test_watchlist_refused_or_stuck(void **state)
{
	struct reflector *r = make(true);
	uint64_t wake;

	/* A server without WatchList (1.33's default) answers 422: list+watch from then on. */
	step_free(r, T0, REFLECTOR_WATCH);
	assert_int_equal(line(r, T0, "ADDED", "a", "3"), 0);
	reflector_watch_done(r, T0 + 1, 422, -EIO, 1, 0);
	step_free(r, T0 + 1, REFLECTOR_LIST);
	assert_int_equal(reflector_stats(r)->watchlist_fallbacks, 1);
	assert_int_equal(reflector_count(r), 0);        /* the half-received initial state was dropped */
	reflector_free(r);

	/* A server that ignores sendInitialEvents sends ADDED events but never the end: give up. */
	r = make(true);
	step_free(r, T0, REFLECTOR_WATCH);
	assert_int_equal(line(r, T0 + 1, "ADDED", "a", "3"), 0);
	free(step(r, T0 + 2, REFLECTOR_WAIT, &wake));
	assert_int_equal(wake, T0 + 30000);             /* the caller is told when to come back */
	step_free(r, wake, REFLECTOR_CLOSE);
	assert_non_null(strstr(reflector_error(r), "did not end"));
	step_free(r, wake, REFLECTOR_LIST);
	assert_int_equal(reflector_stats(r)->watchlist_fallbacks, 1);
	reflector_free(r);
}

static void test_resync(void **state)
{
	struct reflector *r = make(false);
	unsigned long g;
	char *p;

	free(listed(r, T0));
	assert_int_equal(line(r, T0, "BOOKMARK", NULL, "15"), 0);
	g = reflector_generation(r);
	reflector_resync(r);
	step_free(r, T0 + 1, REFLECTOR_CLOSE);
	p = step(r, T0 + 1, REFLECTOR_LIST, NULL);
	assert_string_equal(p, PATH "?" QUERY "&resourceVersion=15");
	free(p);
	/* The same objects at the same versions: no change to report. */
	assert_int_equal(reflector_list_done(r, T0 + 2, 200, LIST, strlen(LIST), 1, 0), 0);
	assert_int_equal(reflector_generation(r), g);
	assert_int_equal(relists(reflector_stats(r)), 1);
	assert_int_equal(reflector_stats(r)->relists_by[REFLECTOR_RELIST_RESYNC], 1);
	assert_string_equal(reflector_relist_name(REFLECTOR_RELIST_RESYNC), "resync");
	reflector_free(r);
}

/*
 * A resync names only the relist it asks: one asked already (a list in flight, a 410's relist in
 * its backoff) keeps its own reason.
 */
static void test_resync_keeps_reason(void **state)
{
	struct reflector *r = make(false);
	const struct reflector_stats *st = reflector_stats(r);
	uint64_t now;

	/* A resync while a relist is in flight asks nothing: the list fails, its retry is an error's. */
	free(listed(r, T0));
	reflector_watch_done(r, T0 + 1, 200, -EMSGSIZE, 1, 0);  /* an event over the limit: relist */
	now = T0 + 1 + waited(r, T0 + 1, 1);
	step_free(r, now, REFLECTOR_LIST);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_ERROR], 1);
	reflector_resync(r);
	step_free(r, now, REFLECTOR_WAIT);                      /* the list is still in flight */
	assert_int_equal(reflector_list_done(r, now + 1, 500, NULL, 0, 1, 0), -EIO);
	now += 1 + waited(r, now + 1, 2);
	step_free(r, now, REFLECTOR_LIST);
	assert_int_equal(relists(st), 2);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_ERROR], 2);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_RESYNC], 0);
	assert_int_equal(reflector_list_done(r, now + 1, 200, LIST, strlen(LIST), 1, 0), 0);
	step_free(r, now + 1, REFLECTOR_WATCH);

	/* A 410, then a resync while its relist waits: the relist is still the 410's. */
	reflector_watch_done(r, now + 2, 410, -EIO, 1, 0);
	reflector_resync(r);
	now += 2 + waited(r, now + 2, 3);
	step_free(r, now, REFLECTOR_LIST);
	assert_int_equal(st->gone, 1);
	assert_int_equal(relists(st), 3);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_GONE], 1);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_RESYNC], 0);
	assert_int_equal(st->relists_by[REFLECTOR_RELIST_ERROR], 2);
	reflector_free(r);
}

/*
 * An hour with nothing changing: each watch lasts its timeoutSeconds and is resumed. The count
 * is what a node costs the API per watched collection and hour; timeout_min_s sets it.
 */
static unsigned long steady_hour(unsigned timeout_min_s)
{
	struct reflector_config cfg = { .path = PATH, .query = QUERY, .timeout_min_s = timeout_min_s, .seed = 7 };
	struct reflector *r = NULL;
	uint64_t now = T0;
	unsigned long n;
	unsigned lo = 0, hi = 0;
	char *p;

	assert_int_equal(reflector_new(&cfg, &r), 0);
	p = listed(r, now);
	n = reflector_stats(r)->requests - 1;          /* the list is not steady state; the watch is */
	for (; now < T0 + 3600000u; p = step(r, now, REFLECTOR_WATCH, NULL)) {
		unsigned t = timeout_of(p);

		assert_true(t >= timeout_min_s && t < 2 * timeout_min_s);
		lo += t < timeout_min_s * 3 / 2;
		hi += t >= timeout_min_s * 3 / 2;
		free(p);
		now += t * 1000u;
		assert_int_equal(line(r, now - 1, "BOOKMARK", NULL, "10"), 0);
		reflector_watch_done(r, now, 200, 0, 1, 0);
	}
	free(p);
	n = reflector_stats(r)->requests - n - 1;      /* not the one that starts after the hour */
	if (timeout_min_s <= 600)
		assert_true(lo > 0 && hi > 0);          /* spread over the range, not one fixed value */
	reflector_free(r);
	return n;
}

static void test_requests_per_hour(void **state)
{
	unsigned long client_go = steady_hour(300), long_watches = steady_hour(1800);

	print_message("steady hour, one collection: %lu requests at 5-10 min watches, %lu at 30-60 min\n",
		      client_go, long_watches);
	assert_true(client_go >= 6 && client_go <= 12);         /* 3600 s / [300, 600) s */
	assert_true(long_watches >= 1 && long_watches <= 2);
}

static void test_config_rules(void **state)
{
	struct reflector_config cfg = { 0 };
	struct reflector *r = NULL;

	assert_int_equal(reflector_new(&cfg, &r), -EINVAL);
	cfg.path = "api/v1/pods";
	assert_int_equal(reflector_new(&cfg, &r), -EINVAL);
	cfg.path = "/api/v1/pods?watch=1";
	assert_int_equal(reflector_new(&cfg, &r), -EINVAL);
	assert_int_equal(reflector_new(NULL, &r), -EINVAL);
	cfg.path = "/apis/networking.gke.io/v1/networks";
	assert_int_equal(reflector_new(&cfg, &r), 0);
	{
		char *p = step(r, T0, REFLECTOR_LIST, NULL);

		assert_string_equal(p, "/apis/networking.gke.io/v1/networks?resourceVersion=0");   /* no query */
		free(p);
	}
	reflector_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_then_watch),
		cmocka_unit_test(test_gone_relists),
		cmocka_unit_test(test_backoff_grows_capped_and_resets),
		cmocka_unit_test(test_gone_storm_backs_off),
		cmocka_unit_test(test_healthy_watch_resets),
		cmocka_unit_test(test_retry_after_and_slow_statuses),
		cmocka_unit_test(test_short_watch_and_broken_stream),
		cmocka_unit_test(test_malformed_lines),
		cmocka_unit_test(test_malformed_lists),
		cmocka_unit_test(test_unnamed_event),
		cmocka_unit_test(test_object_limit),
		cmocka_unit_test(test_watchlist_one_request),
		cmocka_unit_test(test_watchlist_refused_or_stuck),
		cmocka_unit_test(test_resync),
		cmocka_unit_test(test_resync_keeps_reason),
		cmocka_unit_test(test_requests_per_hour),
		cmocka_unit_test(test_config_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
