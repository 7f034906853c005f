/* test_verdict.c - what the daemon says changed between two verdicts, and the health probe's verdict. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "agent/cmd_health.h"
#include "agent/verdict.h"

/* A ready TCPXO verdict with two NICs, every check passing with message "ok". */
static void test_verdict_profile(struct profile *p, struct profile_nic nics[2])
{
	memset(p, 0, sizeof(*p));
	memset(nics, 0, 2 * sizeof(*nics));
	p->kind = PROFILE_TCPXO;
	p->ready = true;
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		p->checks[i].status = CHECK_PASS;
		p->checks[i].message = (char *)"ok";
	}
	strcpy(nics[0].bdf, "0000:06:00.0");
	strcpy(nics[0].name, "eth1");
	nics[0].state = NIC_STATE_UP;
	strcpy(nics[1].bdf, "0000:07:00.0");
	strcpy(nics[1].name, "eth2");
	nics[1].state = NIC_STATE_UP;
	p->nics = nics;
	p->n_nics = 2;
}

static char *test_verdict_diff(const struct verdict *v, const struct profile *p, int want_n)
{
	struct strbuf sb = { 0 };

	assert_int_equal(verdict_diff(v, p, &sb), want_n);
	return strbuf_take(&sb);
}

static void test_first_verdict(void **state)
{
	struct verdict v = { 0 };
	struct profile_nic nics[2];
	struct profile p;
	char *s;

	test_verdict_profile(&p, nics);
	s = test_verdict_diff(&v, &p, 1);
	assert_string_equal(s, "profile tcpxo, ready true");
	free(s);
}

static void test_nothing_changed(void **state)
{
	struct verdict v = { 0 };
	struct profile_nic nics[2];
	struct profile p;
	char *s;

	test_verdict_profile(&p, nics);
	assert_int_equal(verdict_set(&v, &p), 0);
	s = test_verdict_diff(&v, &p, 0);
	assert_string_equal(s, "");
	free(s);
	verdict_free(&v);
}

static void test_link_down(void **state)
{
	struct verdict v = { 0 };
	struct profile_nic nics[2];
	struct profile p;
	char *s;

	test_verdict_profile(&p, nics);
	assert_int_equal(verdict_set(&v, &p), 0);
	p.ready = false;
	p.checks[CHECK_LINKS].status = CHECK_FAIL;
	p.checks[CHECK_LINKS].message = (char *)"eth2 is down";
	nics[1].state = NIC_STATE_DOWN;
	s = test_verdict_diff(&v, &p, 3);
	assert_string_equal(s, "ready true→false; links pass→fail: eth2 is down; nic eth2 up→down");
	free(s);
	verdict_free(&v);
}

static void test_message_only_and_in_pod_name(void **state)
{
	struct verdict v = { 0 };
	struct profile_nic nics[2];
	struct profile p;
	char *s;

	test_verdict_profile(&p, nics);
	assert_int_equal(verdict_set(&v, &p), 0);
	p.checks[CHECK_LINKS].message = (char *)"1 in use by a pod";
	nics[0].state = NIC_STATE_IN_POD;
	nics[0].name[0] = '\0';         /* no name without the API: the old one is kept */
	s = test_verdict_diff(&v, &p, 2);
	assert_string_equal(s, "links: 1 in use by a pod; nic eth1 up→in-pod");
	free(s);
	verdict_free(&v);
}

static void test_nic_vanishes_and_profile_changes(void **state)
{
	struct verdict v = { 0 };
	struct profile_nic nics[2];
	struct profile p;
	char *s;

	test_verdict_profile(&p, nics);
	assert_int_equal(verdict_set(&v, &p), 0);
	p.kind = PROFILE_NONE;
	p.ready = false;
	p.n_nics = 1;
	s = test_verdict_diff(&v, &p, 3);
	assert_string_equal(s, "profile tcpxo→none; ready true→false; nic eth2 up→absent");
	free(s);
	verdict_free(&v);
}

static void test_health_verdict(void **state)
{
	struct timespec now = { .tv_sec = 1000000, .tv_nsec = 500000000 }, m;
	char msg[256];

	m = (struct timespec){ .tv_sec = 999990, .tv_nsec = 500000000 };
	assert_int_equal(cmd_health_verdict(&now, &m, 60, msg, sizeof(msg)), 0);
	assert_non_null(strstr(msg, "fresh: touched 10.000s ago"));
	m.tv_sec = 999940;
	assert_int_equal(cmd_health_verdict(&now, &m, 60, msg, sizeof(msg)), 0);       /* exactly 60 s */
	m.tv_nsec = 499000000;
	assert_int_equal(cmd_health_verdict(&now, &m, 60, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "stale: last touched 60.001s ago"));
	m.tv_sec = 1000005;
	assert_int_equal(cmd_health_verdict(&now, &m, 60, msg, sizeof(msg)), 0);       /* small clock step */
	m.tv_sec = 1000100;
	assert_int_equal(cmd_health_verdict(&now, &m, 60, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "in the future"));
	m = now;
	assert_int_equal(cmd_health_verdict(&now, &m, 0, msg, sizeof(msg)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_verdict),
		cmocka_unit_test(test_nothing_changed),
		cmocka_unit_test(test_link_down),
		cmocka_unit_test(test_message_only_and_in_pod_name),
		cmocka_unit_test(test_nic_vanishes_and_profile_changes),
		cmocka_unit_test(test_health_verdict),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
