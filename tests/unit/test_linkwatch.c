/* test_linkwatch.c - the netlink event socket: link and IPv4 address changes wake it, nothing else does. */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/host/links.h"

static bool test_lw_netns;
static char test_lw_why[128];

static void test_lw_enter_netns(void)
{
	if (!test_lw_netns) {
		print_message("skipped: %s\n", test_lw_why);
		skip();
	}
	assert_int_equal(unshare(CLONE_NEWNET), 0);
}

static void test_lw_ip(const char *cmds)
{
	FILE *f = popen("ip -batch -", "w");

	assert_non_null(f);
	fputs(cmds, f);
	assert_int_equal(pclose(f), 0);
}

/* Wait up to @ms for the socket to turn readable, then drain it. */
static int test_lw_wait_drain(struct links_watch *w, int ms, char *what, size_t len)
{
	struct pollfd p = { .fd = links_watch_fd(w), .events = POLLIN };

	/* Timing out is fine: the drain then says whether anything came. */
	(void)poll(&p, 1, ms);
	return links_watch_drain(w, what, len);
}

static void test_idle_is_silent(void **state)
{
	struct links_watch *w;
	char what[64];

	test_lw_enter_netns();
	assert_int_equal(links_watch_open(&w), 0);
	assert_true(links_watch_fd(w) >= 0);
	assert_int_equal(test_lw_wait_drain(w, 50, what, sizeof(what)), 0);
	assert_string_equal(what, "");
	links_watch_free(w);
	links_watch_free(NULL);
}

static void test_link_and_address_events(void **state)
{
	struct links_watch *w;
	char what[64];
	int n;

	test_lw_enter_netns();
	test_lw_ip("link add eth3 type veth peer name p3\nlink set p3 up\nlink set eth3 up\n");
	usleep(100000);
	assert_int_equal(links_watch_open(&w), 0);

	test_lw_ip("link set eth3 down\n");
	n = test_lw_wait_drain(w, 2000, what, sizeof(what));
	assert_true(n >= 1);
	assert_string_equal(what, "link changed eth3");
	/* The peer's carrier change may trail it: let it arrive and drop it before the next step. */
	usleep(100000);
	links_watch_drain(w, NULL, 0);

	test_lw_ip("address add 10.0.18.3/32 dev eth3\n");
	n = test_lw_wait_drain(w, 2000, what, sizeof(what));
	assert_true(n >= 1);
	assert_non_null(strstr(what, "address changed"));

	test_lw_ip("link del eth3\n");
	/* Deleting a veth takes its address and both ends: several notifications. */
	n = test_lw_wait_drain(w, 2000, what, sizeof(what));
	assert_true(n >= 2);

	/* Everything was read: quiet again. */
	usleep(50000);
	links_watch_drain(w, NULL, 0);
	assert_int_equal(test_lw_wait_drain(w, 50, NULL, 0), 0);
	links_watch_free(w);
}

static void test_ipv6_only_changes_ignored(void **state)
{
	struct links_watch *w;

	test_lw_enter_netns();
	test_lw_ip("link add eth4 type veth peer name p4\n");
	usleep(50000);
	assert_int_equal(links_watch_open(&w), 0);
	/* Not subscribed to IPv6 addresses: the agent reports IPv4 only. */
	test_lw_ip("address add 2001:db8::4/128 dev eth4 nodad\n");
	assert_int_equal(test_lw_wait_drain(w, 200, NULL, 0), 0);
	links_watch_free(w);
}

static void test_burst_is_drained(void **state)
{
	struct links_watch *w;
	char cmds[8192] = "";
	int n = 0;

	test_lw_enter_netns();
	assert_int_equal(links_watch_open(&w), 0);
	for (int i = 0; i < 60; i++)
		snprintf(cmds + strlen(cmds), sizeof(cmds) - strlen(cmds), "link add v%d type veth peer name q%d\n", i, i);
	test_lw_ip(cmds);
	for (int i = 0; i < 20; i++) {
		int r = test_lw_wait_drain(w, 100, NULL, 0);

		if (r == 0 && n > 0)
			break;
		n += r;
	}
	/* Each veth pair announces both ends at least once. */
	assert_true(n >= 120);
	links_watch_free(w);
}

/* The up/down history the daemon damps flaps with: each change of eth3, in order, and its removal. */
static void test_link_state_events(void **state)
{
	struct links_watch *w;
	const struct links_event *ev;
	bool lost = true, seen_down = false, seen_up_after = false, seen_removed = false;
	size_t n;

	test_lw_enter_netns();
	test_lw_ip("link add eth3 type veth peer name p3\nlink set p3 up\nlink set eth3 up\n");
	usleep(200000);
	assert_int_equal(links_watch_open(&w), 0);
	test_lw_ip("link set eth3 down\n");
	usleep(100000);
	test_lw_ip("link set eth3 up\n");
	usleep(300000);         /* oper UP follows a few ms after admin up (linkwatch) */
	test_lw_ip("link del eth3\n");
	for (int i = 0; i < 20 && !seen_removed; i++) {
		test_lw_wait_drain(w, 200, NULL, 0);
		n = links_watch_events(w, &ev, &lost);
		assert_false(lost);
		for (size_t k = 0; k < n; k++) {
			if (strcmp(ev[k].name, "eth3") != 0)
				continue;
			if (ev[k].removed)
				seen_removed = true;
			else if (!ev[k].up && !seen_removed)
				seen_down = true;
			else if (ev[k].up && seen_down)
				seen_up_after = true;
		}
	}
	assert_true(seen_down);
	assert_true(seen_up_after);
	assert_true(seen_removed);
	links_watch_free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_idle_is_silent),
		cmocka_unit_test(test_link_and_address_events),
		cmocka_unit_test(test_ipv6_only_changes_ignored),
		cmocka_unit_test(test_burst_is_drained),
		cmocka_unit_test(test_link_state_events),
	};

	if (geteuid() != 0)
		snprintf(test_lw_why, sizeof(test_lw_why), "not root");
	else if (unshare(CLONE_NEWNET) != 0)
		snprintf(test_lw_why, sizeof(test_lw_why), "unshare(CLONE_NEWNET): %s", strerror(errno));
	else if (system("ip -V >/dev/null 2>&1") != 0)
		snprintf(test_lw_why, sizeof(test_lw_why), "ip (iproute2) not installed");
	else
		test_lw_netns = true;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
