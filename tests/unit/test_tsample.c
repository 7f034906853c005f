/* test_tsample.c - the daemon's transport samples: a GPU pod started, the previous sample and history per uid (pure). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent/tsample.h"
#include "tests/unit/podbuild.h"

/* A sample of @n pods "uid-0".. read from pid 100+i, eth0 at @rx bytes, taken at @ms. */
static void sample(struct obs_transport *t, size_t n, uint64_t rx, uint64_t ms)
{
	memset(t, 0, sizeof(*t));
	t->sampled = true;
	t->pods = calloc(n, sizeof(*t->pods));
	t->n = n;
	for (size_t i = 0; i < n; i++) {
		struct obs_pod_transport *s = &t->pods[i];

		snprintf(s->uid, sizeof(s->uid), "uid-%zu", i);
		s->read = OBS_TRANSPORT_READ;
		s->pid = 100 + (int)i;
		s->n_devs = 1;
		strcpy(s->devs[0].name, "eth0");
		s->devs[0].rx_bytes = rx;
		s->sampled_ms = ms;
	}
}

static void test_carry(void **state)
{
	struct tsample ts = { 0 };
	struct obs_transport t;

	(void)state;
	/* The first sample has no previous one. */
	sample(&t, 2, 1000, 10000);
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_false(t.pods[0].has_prev);
	assert_int_equal(ts.n, 2);
	obs_transport_free(&t);

	/* The next: the same uid gets the counters of the last one. */
	sample(&t, 2, 5000, 70000);
	t.pods[1].pid = 999;            /* restarted: another process of the pod, the same network namespace */
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_true(t.pods[0].has_prev);
	assert_int_equal(t.pods[0].prev_ms, 10000);
	assert_int_equal(t.pods[0].n_prev, 1);
	assert_string_equal(t.pods[0].prev[0].name, "eth0");
	assert_int_equal(t.pods[0].prev[0].rx_bytes, 1000);
	assert_true(t.pods[1].has_prev);
	assert_int_equal(t.pods[1].prev[0].rx_bytes, 1000);
	assert_int_equal(ts.v[1].pid, 999);     /* the pid read now: the next sample's hint */
	obs_transport_free(&t);

	/* A pod not read this time keeps no counters: the next read has no previous one. */
	sample(&t, 2, 9000, 130000);
	t.pods[0].read = OBS_TRANSPORT_NO_PROCESS;
	t.pods[0].pid = 0;
	t.pods[1].pid = 999;
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_false(t.pods[0].has_prev);
	assert_true(t.pods[1].has_prev);        /* read both times: rates from the last sample */
	obs_transport_free(&t);
	sample(&t, 1, 9000, 190000);
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_false(t.pods[0].has_prev);
	assert_int_equal(ts.n, 1);              /* uid-1 left: forgotten */
	obs_transport_free(&t);

	/* A clock that did not move gives no previous sample (no division by zero later). */
	sample(&t, 1, 9000, 190000);
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_false(t.pods[0].has_prev);
	obs_transport_free(&t);
	tsample_free(&ts);
	assert_int_equal(ts.n, 0);
	tsample_free(NULL);
}

/* What the daemon remembers of a pod's clients: a partial twice in a row, and when it last had any. */
static void test_history(void **state)
{
	struct tsample ts = { 0 };
	struct obs_transport t;

	(void)state;
	/* 8 clients on 8 NIC addresses at 14:02. */
	sample(&t, 1, 1000, 10000);
	t.wall_s = 1800000000;
	t.pods[0].clients = 8;
	t.pods[0].n_rails = 8;
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_false(t.pods[0].prev_read);
	assert_int_equal(t.pods[0].had_until_s, 0);     /* no sample before: no history */
	assert_int_equal(t.pods[0].since_s, 1800000000);
	obs_transport_free(&t);

	/* None on the next: the sample before is its history. */
	sample(&t, 1, 1000, 70000);
	t.wall_s = 1800000060;
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_true(t.pods[0].prev_read);
	assert_int_equal(t.pods[0].prev_rails, 8);
	assert_int_equal(t.pods[0].had_clients, 8);
	assert_int_equal(t.pods[0].had_rails, 8);
	assert_int_equal(t.pods[0].had_until_s, 1800000000);
	assert_int_equal(t.pods[0].since_s, 1800000000);        /* sampled since the first */
	obs_transport_free(&t);

	/* A sample that could not read the pod keeps its history, but breaks "in a row". */
	sample(&t, 1, 1000, 130000);
	t.wall_s = 1800000120;
	t.pods[0].read = OBS_TRANSPORT_UNREADABLE;
	t.pods[0].pid = 0;
	assert_int_equal(tsample_carry(&ts, &t), 0);
	obs_transport_free(&t);
	sample(&t, 1, 1000, 190000);
	t.wall_s = 1800000180;
	t.pods[0].clients = 2;
	t.pods[0].n_rails = 2;
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_false(t.pods[0].prev_read);
	assert_int_equal(t.pods[0].had_until_s, 1800000000);
	obs_transport_free(&t);

	/* 2 rails again: the sample before was partial too; the history now is that sample. */
	sample(&t, 1, 1000, 250000);
	t.wall_s = 1800000240;
	t.pods[0].clients = 2;
	t.pods[0].n_rails = 2;
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_true(t.pods[0].prev_read);
	assert_int_equal(t.pods[0].prev_rails, 2);
	assert_int_equal(t.pods[0].had_clients, 2);
	assert_int_equal(t.pods[0].had_until_s, 1800000180);
	obs_transport_free(&t);

	/* A pod that left and came back under a new uid starts without history. */
	sample(&t, 1, 1000, 310000);
	strcpy(t.pods[0].uid, "uid-new");
	assert_int_equal(tsample_carry(&ts, &t), 0);
	assert_false(t.pods[0].prev_read);
	assert_int_equal(t.pods[0].had_until_s, 0);
	obs_transport_free(&t);
	tsample_free(&ts);
}

static void test_running(void **state)
{
	struct tsample ts = { 0 };
	struct obs_transport t;
	struct obs_kube k = { 0 };
	bool fresh;

	(void)state;
	k.pods = calloc(4, sizeof(*k.pods));
	k.n_pods = 4;
	for (size_t i = 0; i < 4; i++) {
		struct pod *p = pb_pod("ml", "p", i == 3 ? "Pending" : "Running");
		struct pod_container *c = pb_container(p, "w", "img", false, false);

		pb_gpus(c, i == 2 ? 0 : 8);     /* pod 2 has no GPU */
		free(p->uid);
		p->uid = malloc(16);
		snprintf(p->uid, 16, "uid-%zu", i);
		k.pods[i] = *p;
		free(p);
	}
	/* Nothing sampled yet: two GPU pods run, both new. */
	assert_int_equal(tsample_running(&ts, &k, "node-1", &fresh), 2);
	assert_true(fresh);
	assert_int_equal(tsample_running(&ts, &k, "node-2", &fresh), 0);   /* bound elsewhere */
	assert_false(fresh);
	/* Sampled: not new any more. */
	sample(&t, 2, 0, 1000);
	assert_int_equal(tsample_carry(&ts, &t), 0);
	obs_transport_free(&t);
	assert_int_equal(tsample_running(&ts, &k, "node-1", &fresh), 2);
	assert_false(fresh);
	/* The Pending one starts running: new. */
	free(k.pods[3].phase);
	k.pods[3].phase = strdup("Running");
	assert_int_equal(tsample_running(&ts, &k, "node-1", &fresh), 3);
	assert_true(fresh);
	obs_pods_free(k.pods, k.n_pods);
	tsample_free(&ts);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_carry),
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_running),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
