/* test_flap.c - link flap damping: when a link counts as flapping, how long it is held, what the checks get (pure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/flap.h"

#define T0 5000000u     /* an arbitrary monotonic start */

static struct flap *flap_new(void)
{
	struct flap *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	return f;
}

static const struct flap_link *get(const struct flap *f, const char *name)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].name, name) == 0)
			return &f->v[i];
	return NULL;
}

/* One down and one up is a bounce, not a flap; the first state seen only records it. */
static void test_bounce_is_not_flapping(void **state)
{
	struct flap *f = flap_new();
	struct obs_flaps o;

	assert_int_equal(flap_state(f, "eth3", true, T0), FLAP_NEWS_NONE);
	assert_int_equal(flap_state(f, "eth3", true, T0 + 10), FLAP_NEWS_NONE);     /* no change */
	assert_int_equal(flap_state(f, "eth3", false, T0 + 100), FLAP_NEWS_NONE);
	assert_int_equal(flap_state(f, "eth3", true, T0 + 4500), FLAP_NEWS_NONE);
	assert_false(flap_any_held(f));
	assert_int_equal(flap_next_release(f), 0);
	flap_fill(f, &o);
	assert_int_equal(o.n, 0);
	assert_int_equal(o.hold_s, 30);
	free(f);
}

/* The third change within the window starts an episode; every later one is counted in it. */
static void test_third_change_holds(void **state)
{
	struct flap *f = flap_new();
	struct obs_flaps o;

	flap_state(f, "eth3", true, T0);
	assert_int_equal(flap_state(f, "eth3", false, T0 + 100), FLAP_NEWS_NONE);
	assert_int_equal(flap_state(f, "eth3", true, T0 + 200), FLAP_NEWS_NONE);
	assert_int_equal(flap_state(f, "eth3", false, T0 + 300), FLAP_NEWS_HELD);
	assert_true(get(f, "eth3")->held);
	assert_int_equal(get(f, "eth3")->changes, 3);
	for (unsigned i = 0; i < 100; i++)
		assert_int_equal(flap_state(f, "eth3", i % 2 == 0, T0 + 400 + i * 100), FLAP_NEWS_NONE);
	assert_int_equal(get(f, "eth3")->changes, 103);
	flap_fill(f, &o);
	assert_int_equal(o.n, 1);
	assert_string_equal(o.v[0].name, "eth3");
	assert_int_equal(o.v[0].changes, 103);
	assert_int_equal(o.threshold, FLAP_THRESHOLD);
	assert_int_equal(o.window_s, 60);
	free(f);
}

/* Changes spread wider than the window never add up to a flap. */
static void test_window_slides(void **state)
{
	struct flap *f = flap_new();
	uint64_t t = T0;

	flap_state(f, "eth2", true, t);
	for (int i = 0; i < 20; i++) {
		t += FLAP_WINDOW_MS / 2 + 1;    /* two changes per window at most */
		assert_int_equal(flap_state(f, "eth2", i % 2 == 0 ? false : true, t), FLAP_NEWS_NONE);
	}
	assert_false(flap_any_held(f));
	/* ... and three inside one window do (the last state was up: i = 19) */
	t += FLAP_WINDOW_MS + 1;
	assert_int_equal(flap_state(f, "eth2", false, t), FLAP_NEWS_NONE);
	assert_int_equal(flap_state(f, "eth2", true, t + 1000), FLAP_NEWS_NONE);
	assert_int_equal(flap_state(f, "eth2", false, t + FLAP_WINDOW_MS), FLAP_NEWS_HELD);
	free(f);
}

/* Held until stable for the hold-down time, counted from the last change, then released once. */
static void test_hold_down(void **state)
{
	struct flap *f = flap_new();
	uint64_t last = T0 + 300;
	size_t released = 0;

	flap_state(f, "eth3", true, T0);
	flap_state(f, "eth3", false, T0 + 100);
	flap_state(f, "eth3", true, T0 + 200);
	flap_state(f, "eth3", false, last);
	assert_int_equal(flap_next_release(f), last + FLAP_HOLD_MS);
	assert_int_equal(flap_release(f, last + FLAP_HOLD_MS - 1, NULL, NULL), 0);
	/* a change during the hold-down starts it again */
	last += 20000;
	flap_state(f, "eth3", true, last);
	assert_int_equal(flap_next_release(f), last + FLAP_HOLD_MS);
	assert_int_equal(flap_release(f, last + FLAP_HOLD_MS - 1, NULL, NULL), 0);
	assert_true(flap_any_held(f));
	assert_int_equal(flap_release(f, last + FLAP_HOLD_MS, NULL, &released), 1);
	assert_false(flap_any_held(f));
	assert_int_equal(flap_next_release(f), 0);
	assert_int_equal(flap_release(f, last + 2 * FLAP_HOLD_MS, NULL, NULL), 0);
	/* a fresh episode needs the threshold again */
	assert_int_equal(flap_state(f, "eth3", false, last + FLAP_HOLD_MS + 10), FLAP_NEWS_NONE);
	free(f);
}

static void count_released(const struct flap_link *l, void *arg)
{
	(*(size_t *)arg)++;
	assert_string_equal(l->name, "eth5");
	assert_int_equal(l->changes, 3);
}

/* Gone links are forgotten unless held; a held one keeps its hold-down (gone and back proves nothing). */
static void test_removed_and_kept(void **state)
{
	struct flap *f = flap_new();
	size_t released = 0;

	flap_state(f, "veth1", true, T0);
	flap_removed(f, "veth1");
	assert_null(get(f, "veth1"));
	flap_state(f, "eth5", true, T0);
	flap_state(f, "eth5", false, T0 + 1);
	flap_state(f, "eth5", true, T0 + 2);
	flap_state(f, "eth5", false, T0 + 3);
	flap_removed(f, "eth5");
	assert_non_null(get(f, "eth5"));
	assert_true(get(f, "eth5")->held);
	/* back: its first state is recorded, not counted */
	assert_int_equal(flap_state(f, "eth5", true, T0 + 10), FLAP_NEWS_NONE);
	assert_int_equal(get(f, "eth5")->changes, 3);
	assert_int_equal(flap_release(f, T0 + 3 + FLAP_HOLD_MS, count_released, &released), 1);
	assert_int_equal(released, 1);
	free(f);
}

static bool only_eth(const char *name, void *arg)
{
	return strncmp(name, "eth", 3) == 0;
}

static void test_keep_only_and_capacity(void **state)
{
	struct flap *f = flap_new();
	char name[OBS_IFNAME_MAX];
	struct obs_flaps o;

	flap_state(f, "eth1", true, T0);
	flap_state(f, "vethaaa", true, T0);
	flap_state(f, "vethbbb", true, T0);
	flap_state(f, "vethbbb", false, T0 + 1);
	flap_state(f, "vethbbb", true, T0 + 2);
	flap_state(f, "vethbbb", false, T0 + 3);       /* held */
	flap_keep_only(f, only_eth, NULL);
	assert_non_null(get(f, "eth1"));
	assert_null(get(f, "vethaaa"));
	assert_non_null(get(f, "vethbbb"));
	/* full: the quietest link not held makes room; held ones are never evicted */
	for (unsigned i = 0; f->n < FLAP_LINKS_MAX; i++) {
		snprintf(name, sizeof(name), "v%u", i);
		flap_state(f, name, true, T0 + 100 + i);
	}
	flap_state(f, "newcomer", true, T0 + 100000);
	assert_non_null(get(f, "newcomer"));
	assert_non_null(get(f, "vethbbb"));
	assert_int_equal(f->n, FLAP_LINKS_MAX);
	/* more held links than the model names: counted */
	for (unsigned i = 0; i < OBS_FLAPS_MAX + 3; i++) {
		snprintf(name, sizeof(name), "v%u", i);
		flap_state(f, name, false, T0 + 200000);
		flap_state(f, name, true, T0 + 200001);
		flap_state(f, name, false, T0 + 200002);
	}
	flap_fill(f, &o);
	assert_int_equal(o.n, OBS_FLAPS_MAX);
	assert_true(o.n_more >= 3);
	for (size_t i = 1; i < o.n; i++)
		assert_true(strcmp(o.v[i - 1].name, o.v[i].name) < 0);
	assert_int_equal(flap_state(f, "", true, T0), FLAP_NEWS_NONE);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounce_is_not_flapping),
		cmocka_unit_test(test_third_change_holds),
		cmocka_unit_test(test_window_slides),
		cmocka_unit_test(test_hold_down),
		cmocka_unit_test(test_removed_and_kept),
		cmocka_unit_test(test_keep_only_and_capacity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
