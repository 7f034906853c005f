/* test_links.c - links_dump() against veth links in private network namespaces made by the test. */
#include <errno.h>
#include <net/if.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/host/links.h"

static bool test_links_netns;           /* root, unshare(CLONE_NEWNET) and ip work */
static char test_links_why[128];

/* Enter a fresh, empty namespace: the previous one vanishes with its links. */
static void test_links_enter_netns(void)
{
	if (!test_links_netns) {
		print_message("skipped: %s\n", test_links_why);
		skip();
	}
	assert_int_equal(unshare(CLONE_NEWNET), 0);
}

/* Feed ip -batch with the formatted commands; fail the test if ip fails. */
static void test_links_ip(const char *fmt, ...)
{
	FILE *f = popen("ip -batch -", "w");
	va_list ap;

	assert_non_null(f);
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	assert_int_equal(pclose(f), 0);
}

static const struct obs_link *test_links_find(const struct obs_links *ls, const char *name)
{
	for (size_t i = 0; i < ls->n; i++)
		if (strcmp(ls->v[i].name, name) == 0)
			return &ls->v[i];
	return NULL;
}

static void test_links_sleep_ms(long ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000 };

	nanosleep(&ts, NULL);
}

/* Dump until @name reaches @want (linkwatch sets oper state a few ms after "up"), at most 2 s. */
static void test_links_dump_when(struct obs_links *ls, const char *name, enum link_oper want)
{
	for (int i = 0; i < 400; i++) {
		const struct obs_link *l;

		assert_int_equal(links_dump(ls), 0);
		l = test_links_find(ls, name);
		if (l && l->oper == want)
			return;
		links_free(ls);
		test_links_sleep_ms(5);
	}
	fail_msg("%s never reached oper state %s", name, link_oper_name(want));
}

static void test_links_assert_sorted(const struct obs_links *ls)
{
	for (size_t i = 1; i < ls->n; i++)
		if (strcmp(ls->v[i - 1].name, ls->v[i].name) >= 0)
			fail_msg("not sorted at %zu: %s, %s", i, ls->v[i - 1].name, ls->v[i].name);
}

static void test_links_assert_ipv4(const struct obs_link *l, unsigned i, const char *want)
{
	char buf[OBS_IPV4_TEXT];

	assert_true(i < l->n_ipv4);
	obs_ipv4_format(l->ipv4[i], l->ipv4_prefix[i], buf, sizeof(buf));
	assert_string_equal(buf, want);
}

/* Whatever namespace the test starts in (the host's when not root): a clean dump and a clean free. */
static void test_status_ok_and_free(void **state)
{
	struct obs_links ls = { 0 };

	assert_int_equal(links_dump(&ls), 0);
	assert_int_equal(ls.status.state, PROBE_OK);
	assert_int_equal(ls.status.err, 0);
	assert_string_equal(ls.status.message, "");
	assert_true(ls.n >= 1);
	assert_non_null(test_links_find(&ls, "lo"));
	test_links_assert_sorted(&ls);
	for (size_t i = 0; i < ls.n; i++)
		assert_int_equal(ls.v[i].ifindex, (int)if_nametoindex(ls.v[i].name));

	links_free(&ls);
	assert_null(ls.v);
	assert_int_equal(ls.n, 0);
	assert_int_equal(ls.status.state, PROBE_NOT_RUN);
	links_free(&ls);
	links_free(NULL);
}

static void test_basic(void **state)
{
	struct obs_links ls = { 0 };
	const struct obs_link *l;
	static const char *const names[] = { "eth0", "eth1", "eth2", "eth3", "lo", "p0", "p1", "p2", "p3" };

	test_links_enter_netns();
	test_links_ip(
		"link add eth1 type veth peer name p1\n"
		"link set eth1 address 42:01:0a:00:10:03 mtu 8244\n"
		"address add 10.0.16.3/32 dev eth1\n"
		"link add eth0 type veth peer name p0\n"
		"link set eth0 address 42:01:0a:80:00:02 mtu 1460\n"
		"address add 10.128.0.2/32 dev eth0\n"
		"link add eth2 type veth peer name p2\n"
		"link set eth2 mtu 8244\n"
		"link add eth3 type veth peer name p3\n"
		"link set p0 up\nlink set eth0 up\nlink set p1 up\nlink set eth1 up\n"
		"link set p2 up\n"
		"link set eth3 up\n"
		"route add default dev eth0\n");

	test_links_dump_when(&ls, "eth0", LINK_OPER_UP);
	links_free(&ls);
	test_links_dump_when(&ls, "eth1", LINK_OPER_UP);
	links_free(&ls);
	test_links_dump_when(&ls, "eth3", LINK_OPER_LOWERLAYERDOWN);

	assert_int_equal(ls.status.state, PROBE_OK);
	assert_int_equal(ls.n, sizeof(names) / sizeof(names[0]));
	for (size_t i = 0; i < ls.n; i++)
		assert_string_equal(ls.v[i].name, names[i]);

	l = test_links_find(&ls, "eth1");
	assert_int_equal(l->ifindex, (int)if_nametoindex("eth1"));
	assert_int_equal(l->oper, LINK_OPER_UP);
	assert_true(l->admin_up);
	assert_int_equal(l->mtu, 8244);
	assert_string_equal(l->mac, "42:01:0a:00:10:03");
	assert_int_equal(l->n_ipv4, 1);
	test_links_assert_ipv4(l, 0, "10.0.16.3/32");
	assert_false(l->default_route);

	l = test_links_find(&ls, "eth0");
	assert_int_equal(l->mtu, 1460);
	assert_true(l->default_route);
	test_links_assert_ipv4(l, 0, "10.128.0.2/32");

	l = test_links_find(&ls, "eth2");
	assert_int_equal(l->oper, LINK_OPER_DOWN);
	assert_false(l->admin_up);
	assert_int_equal(l->n_ipv4, 0);
	assert_false(l->default_route);

	l = test_links_find(&ls, "eth3");
	assert_int_equal(l->oper, LINK_OPER_LOWERLAYERDOWN);
	assert_true(l->admin_up);
	assert_int_equal(l->n_ipv4, 0);

	l = test_links_find(&ls, "lo");
	assert_false(l->admin_up);
	assert_int_equal(l->n_ipv4, 0);

	for (size_t i = 0; i < ls.n; i++)
		if (strcmp(ls.v[i].name, "eth0") != 0)
			assert_false(ls.v[i].default_route);
	links_free(&ls);
}

/* veth's IPv6 link-local addresses are there, and are not reported. */
static void test_no_ipv6(void **state)
{
	struct obs_links ls = { 0 };
	const struct obs_link *l;
	int i;

	test_links_enter_netns();
	if (access("/proc/sys/net/ipv6", F_OK) != 0)
		skip();
	test_links_ip("link add eth1 type veth peer name p1\nlink set p1 up\nlink set eth1 up\n"
		      "address add 10.0.16.3/32 dev eth1\naddress add 2001:db8::3/64 dev eth1 nodad\n");
	for (i = 0; i < 400; i++) {
		if (system("ip -6 address show dev eth1 scope link | grep -q fe80") == 0)
			break;
		test_links_sleep_ms(5);
	}
	assert_true(i < 400);
	assert_int_equal(links_dump(&ls), 0);
	l = test_links_find(&ls, "eth1");
	assert_non_null(l);
	assert_int_equal(l->n_ipv4, 1);
	test_links_assert_ipv4(l, 0, "10.0.16.3/32");
	links_free(&ls);
}

/* At most OBS_IPV4_MAX kept: the lowest, ascending by address (host order), then prefix. */
static void test_ipv4_order_and_cap(void **state)
{
	static const char *const want[] = {
		"9.0.0.1/8", "10.0.0.1/32", "10.0.0.2/32", "10.0.0.3/31",
		"10.0.0.3/32", "10.0.0.4/32", "10.0.0.5/32", "10.0.0.6/32",
	};
	struct obs_links ls = { 0 };
	const struct obs_link *l;

	_Static_assert(sizeof(want) / sizeof(want[0]) == OBS_IPV4_MAX, "want OBS_IPV4_MAX entries");
	test_links_enter_netns();
	/* 10.0.1.0 sorts after every 10.0.0.x only when compared in host byte order. */
	test_links_ip("link add eth1 type veth peer name p1\n"
		      "address add 10.0.0.9/32 dev eth1\naddress add 10.0.1.0/32 dev eth1\n"
		      "address add 10.0.0.5/32 dev eth1\naddress add 192.168.1.1/24 dev eth1\n"
		      "address add 10.0.0.3/32 dev eth1\naddress add 10.0.0.7/32 dev eth1\n"
		      "address add 10.0.0.2/32 dev eth1\naddress add 10.0.0.8/32 dev eth1\n"
		      "address add 10.0.0.4/32 dev eth1\naddress add 10.0.0.6/32 dev eth1\n"
		      "address add 9.0.0.1/8 dev eth1\naddress add 10.0.0.1/32 dev eth1\n"
		      "address add 10.0.0.3/31 dev eth1\n");
	assert_int_equal(links_dump(&ls), 0);
	l = test_links_find(&ls, "eth1");
	assert_non_null(l);
	assert_int_equal(l->n_ipv4, OBS_IPV4_MAX);
	for (unsigned i = 0; i < OBS_IPV4_MAX; i++)
		test_links_assert_ipv4(l, i, want[i]);
	links_free(&ls);
}

/* Only an IPv4 default route of the main table counts; multipath marks every nexthop's link. */
static void test_default_route_rules(void **state)
{
	struct obs_links ls = { 0 };

	test_links_enter_netns();
	test_links_ip("link add eth0 type veth peer name p0\nlink add eth1 type veth peer name p1\n"
		      "link add eth2 type veth peer name p2\nlink add eth3 type veth peer name p3\n"
		      "link add eth4 type veth peer name p4\n"
		      "link set eth0 up\nlink set eth1 up\nlink set eth2 up\nlink set eth3 up\n"
		      "link set eth4 up\n"
		      "route add default dev eth2 table 100\n"
		      "route add 0.0.0.0/1 dev eth3\n");
	if (access("/proc/sys/net/ipv6", F_OK) == 0)
		test_links_ip("route add ::/0 dev eth4\n");
	assert_int_equal(links_dump(&ls), 0);
	for (size_t i = 0; i < ls.n; i++)
		assert_false(ls.v[i].default_route);
	links_free(&ls);

	test_links_ip("route add default nexthop dev eth0 nexthop dev eth1\n");
	assert_int_equal(links_dump(&ls), 0);
	assert_true(test_links_find(&ls, "eth0")->default_route);
	assert_true(test_links_find(&ls, "eth1")->default_route);
	assert_false(test_links_find(&ls, "eth2")->default_route);
	assert_false(test_links_find(&ls, "eth3")->default_route);
	assert_false(test_links_find(&ls, "eth4")->default_route);
	links_free(&ls);
}

/* 1,000 veth pairs: all 2,000 ends seen, sorted, addresses on the right links. */
static void test_many(void **state)
{
	struct obs_links ls = { 0 };
	const struct obs_link *l;
	size_t nv = 0, nw = 0;
	FILE *f;

	test_links_enter_netns();
	f = popen("ip -batch -", "w");
	assert_non_null(f);
	for (int i = 999; i >= 0; i--)
		fprintf(f, "link add v%04d type veth peer name w%04d\naddress add 10.1.%d.%d/32 dev v%04d\n",
			i, i, i / 250, i % 250 + 1, i);
	assert_int_equal(pclose(f), 0);

	assert_int_equal(links_dump(&ls), 0);
	assert_int_equal(ls.n, 2001);
	test_links_assert_sorted(&ls);
	for (size_t i = 0; i < ls.n; i++) {
		nv += ls.v[i].name[0] == 'v';
		nw += ls.v[i].name[0] == 'w';
		assert_int_equal(ls.v[i].n_ipv4, ls.v[i].name[0] == 'v');
	}
	assert_int_equal(nv, 1000);
	assert_int_equal(nw, 1000);
	assert_string_equal(ls.v[0].name, "lo");
	assert_string_equal(ls.v[1].name, "v0000");
	l = test_links_find(&ls, "v0999");
	assert_non_null(l);
	test_links_assert_ipv4(l, 0, "10.1.3.250/32");
	links_free(&ls);
}

/* No descriptor left for the socket: a failed status with the reason, nothing allocated. */
static void test_failure_status(void **state)
{
	struct obs_links ls = { 0 };
	struct rlimit saved, none;
	int r;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	none = saved;
	none.rlim_cur = 0;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	r = links_dump(&ls);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);

	assert_int_equal(r, -EMFILE);
	assert_int_equal(ls.status.state, PROBE_FAILED);
	assert_int_equal(ls.status.err, -EMFILE);
	assert_non_null(strstr(ls.status.message, "NETLINK_ROUTE"));
	assert_non_null(strstr(ls.status.message, strerror(EMFILE)));
	assert_null(ls.v);
	assert_int_equal(ls.n, 0);
	links_free(&ls);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_ok_and_free),
		cmocka_unit_test(test_failure_status),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_no_ipv6),
		cmocka_unit_test(test_ipv4_order_and_cap),
		cmocka_unit_test(test_default_route_rules),
		cmocka_unit_test(test_many),
	};

	/* From here on the whole process lives in namespaces of its own: nothing to clean up. */
	if (geteuid() != 0)
		snprintf(test_links_why, sizeof(test_links_why), "not root");
	else if (unshare(CLONE_NEWNET) != 0)
		snprintf(test_links_why, sizeof(test_links_why), "unshare(CLONE_NEWNET): %s", strerror(errno));
	else if (system("ip -V >/dev/null 2>&1") != 0)
		snprintf(test_links_why, sizeof(test_links_why), "ip (iproute2) not installed");
	else
		test_links_netns = true;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
