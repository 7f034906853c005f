/* test_links.c - links_query() (every link, or those named) against veth links in private namespaces made by the test, and answers in memory. */
#include <arpa/inet.h>
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
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
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

		assert_int_equal(links_query(NULL, 0, 0, ls, NULL), 0);
		l = test_links_find(ls, name);
		if (l && l->oper == want)
			return;
		free(ls->v);
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

	assert_int_equal(links_query(NULL, 0, 0, &ls, NULL), 0);
	assert_int_equal(ls.status.state, PROBE_OK);
	assert_int_equal(ls.status.err, 0);
	assert_string_equal(ls.status.message, "");
	assert_true(ls.n >= 1);
	assert_non_null(test_links_find(&ls, "lo"));
	test_links_assert_sorted(&ls);
	for (size_t i = 0; i < ls.n; i++)
		assert_int_equal(ls.v[i].ifindex, (int)if_nametoindex(ls.v[i].name));

	{
		struct observation o = { .links = ls };

		observation_free(&o);   /* what frees a probe's links */
		assert_null(o.links.v);
		assert_int_equal(o.links.n, 0);
	}
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
	free(ls.v);
	test_links_dump_when(&ls, "eth1", LINK_OPER_UP);
	free(ls.v);
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
	free(ls.v);
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
	assert_int_equal(links_query(NULL, 0, 0, &ls, NULL), 0);
	l = test_links_find(&ls, "eth1");
	assert_non_null(l);
	assert_int_equal(l->n_ipv4, 1);
	test_links_assert_ipv4(l, 0, "10.0.16.3/32");
	free(ls.v);
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
	assert_int_equal(links_query(NULL, 0, 0, &ls, NULL), 0);
	l = test_links_find(&ls, "eth1");
	assert_non_null(l);
	assert_int_equal(l->n_ipv4, OBS_IPV4_MAX);
	for (unsigned i = 0; i < OBS_IPV4_MAX; i++)
		test_links_assert_ipv4(l, i, want[i]);
	free(ls.v);
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
	assert_int_equal(links_query(NULL, 0, 0, &ls, NULL), 0);
	for (size_t i = 0; i < ls.n; i++)
		assert_false(ls.v[i].default_route);
	free(ls.v);

	test_links_ip("route add default nexthop dev eth0 nexthop dev eth1\n");
	assert_int_equal(links_query(NULL, 0, 0, &ls, NULL), 0);
	assert_true(test_links_find(&ls, "eth0")->default_route);
	assert_true(test_links_find(&ls, "eth1")->default_route);
	assert_false(test_links_find(&ls, "eth2")->default_route);
	assert_false(test_links_find(&ls, "eth3")->default_route);
	assert_false(test_links_find(&ls, "eth4")->default_route);
	free(ls.v);
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

	assert_int_equal(links_query(NULL, 0, 0, &ls, NULL), 0);
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
	free(ls.v);
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
	r = links_query(NULL, 0, 0, &ls, NULL);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);

	assert_int_equal(r, -EMFILE);
	assert_int_equal(ls.status.state, PROBE_FAILED);
	assert_int_equal(ls.status.err, -EMFILE);
	assert_non_null(strstr(ls.status.message, "NETLINK_ROUTE"));
	assert_non_null(strstr(ls.status.message, strerror(EMFILE)));
	assert_null(ls.v);
	assert_int_equal(ls.n, 0);
	free(ls.v);
}

static const char *const test_links_nics[] = { "eth0", "eth1", "eth2", "eth3", "eth4", "eth5", "eth6", "eth7", "eth8" };
#define TEST_LINKS_NICS (sizeof(test_links_nics) / sizeof(test_links_nics[0]))

/* The a3-mega fixture's links: eth0 (default route) and eight GPU NICs, each a veth with its peer up. */
static void test_links_make_nics(void)
{
	struct obs_links ls = { 0 };
	FILE *f = popen("ip -batch -", "w");

	assert_non_null(f);
	for (int i = 0; i < 9; i++)
		fprintf(f, "link add eth%d type veth peer name p%d\n"
			   "link set eth%d address 42:01:0a:00:%02x:03 mtu %d\n"
			   "address add 10.0.%d.3/32 dev eth%d\n"
			   "link set p%d up\nlink set eth%d up\n",
			i, i, i, 0x10 + i, i ? 8244 : 1460, 16 + i, i, i, i);
	fprintf(f, "route add default dev eth0\n");
	assert_int_equal(pclose(f), 0);
	/* Every one up before a test compares two reads of them. */
	for (size_t i = 0; i < TEST_LINKS_NICS; i++) {
		test_links_dump_when(&ls, test_links_nics[i], LINK_OPER_UP);
		free(ls.v);
	}
}

/* @n veth pairs xbN/ybN, each xb with an IPv4 address (the pods' veths of a grown node). */
static void test_links_make_veths(int n)
{
	FILE *f = popen("ip -batch -", "w");

	assert_non_null(f);
	for (int i = 1; i <= n; i++)
		fprintf(f, "link add xb%d type veth peer name yb%d\naddress add 10.200.%d.%d/32 dev xb%d\nlink set xb%d up\n",
			i, i, i / 250, i % 250 + 1, i, i);
	assert_int_equal(pclose(f), 0);
}

/* Two observations of the same link agree on every fact. */
static void test_links_assert_same(const struct obs_link *a, const struct obs_link *b)
{
	assert_non_null(a);
	assert_non_null(b);
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->ifindex, b->ifindex);
	assert_int_equal(a->oper, b->oper);
	assert_int_equal(a->admin_up, b->admin_up);
	assert_int_equal(a->mtu, b->mtu);
	assert_string_equal(a->mac, b->mac);
	assert_int_equal(a->n_ipv4, b->n_ipv4);
	assert_memory_equal(a->ipv4, b->ipv4, sizeof(a->ipv4[0]) * a->n_ipv4);
	assert_memory_equal(a->ipv4_prefix, b->ipv4_prefix, a->n_ipv4);
	assert_int_equal(a->default_route, b->default_route);
}

/* links_query() for @names gives exactly the full dump's entries of those names that exist. */
static void test_links_assert_query_matches_dump(const char *const *names, size_t n, unsigned flags)
{
	struct obs_links all = { 0 }, some = { 0 };
	struct links_stats st;
	size_t found = 0;

	assert_int_equal(links_query(NULL, 0, 0, &all, NULL), 0);
	assert_int_equal(links_query(names, n, flags, &some, &st), 0);
	assert_int_equal(some.status.state, PROBE_OK);
	test_links_assert_sorted(&some);
	for (size_t i = 0; i < n; i++) {
		const struct obs_link *l = test_links_find(&all, names[i]);
		bool dup = false;

		for (size_t j = 0; j < i; j++)
			dup |= strcmp(names[j], names[i]) == 0;
		if (!l) {
			assert_null(test_links_find(&some, names[i]));
			continue;
		}
		test_links_assert_same(test_links_find(&some, names[i]), l);
		found += !dup;
	}
	assert_int_equal(some.n, found);
	free(all.v);
	free(some.v);
}

/* The NICs asked for by name read the same facts as the full dump, strict or not. */
static void test_query_same_facts(void **state)
{
	static const char *const mixed[] = { "eth3", "eth0", "p1", "lo", "eth9", "eth3" };
	struct obs_links ls = { 0 };

	test_links_enter_netns();
	test_links_make_nics();
	test_links_ip("link set eth2 down\nlink set p3 down\naddress add 192.168.7.1/24 dev eth5\n"
		      "route add table 100 default nexthop dev eth6 nexthop dev eth7\n");
	test_links_dump_when(&ls, "eth2", LINK_OPER_DOWN);
	free(ls.v);
	test_links_dump_when(&ls, "eth3", LINK_OPER_LOWERLAYERDOWN);
	free(ls.v);
	test_links_assert_query_matches_dump(test_links_nics, TEST_LINKS_NICS, 0);
	test_links_assert_query_matches_dump(test_links_nics, TEST_LINKS_NICS, LINKS_QUERY_NO_STRICT);
	test_links_assert_query_matches_dump(mixed, sizeof(mixed) / sizeof(mixed[0]), 0);
	test_links_assert_query_matches_dump(mixed, sizeof(mixed) / sizeof(mixed[0]), LINKS_QUERY_NO_STRICT);
}

/* 512 more veth pairs (1,024 links, 512 addresses) change nothing the query reads or receives. */
static void test_query_cost_ignores_veths(void **state)
{
	struct obs_links before = { 0 }, after = { 0 }, fb = { 0 };
	struct links_stats s0, s1, sf0, sf1;

	test_links_enter_netns();
	test_links_make_nics();
	assert_int_equal(links_query(test_links_nics, TEST_LINKS_NICS, 0, &before, &s0), 0);
	assert_int_equal(links_query(test_links_nics, TEST_LINKS_NICS, LINKS_QUERY_NO_STRICT, &fb, &sf0), 0);
	free(fb.v);
	test_links_make_veths(512);
	assert_int_equal(links_query(test_links_nics, TEST_LINKS_NICS, 0, &after, &s1), 0);
	assert_int_equal(links_query(test_links_nics, TEST_LINKS_NICS, LINKS_QUERY_NO_STRICT, &fb, &sf1), 0);

	/* This kernel (>= 4.20) filters: the strict path is the one taken, and nothing in it grows. */
	assert_true(s0.strict);
	assert_null(s0.full_dump);
	assert_int_equal(s1.requests, s0.requests);
	assert_int_equal(s1.datagrams, s0.datagrams);
	assert_int_equal(s1.messages, s0.messages);
	/* 9 links, then per link one address dump and one route dump. */
	assert_int_equal(s0.requests, 3 * TEST_LINKS_NICS);
	assert_true(s0.messages < 5 * TEST_LINKS_NICS);
	assert_int_equal(after.n, TEST_LINKS_NICS);
	for (size_t i = 0; i < after.n; i++)
		test_links_assert_same(&after.v[i], &before.v[i]);
	assert_true(test_links_find(&after, "eth0")->default_route);

	/* The fallback reads the same, but its two full dumps grow with every veth and address. */
	assert_false(sf1.strict);
	assert_non_null(sf1.full_dump);
	assert_int_equal(sf1.requests, TEST_LINKS_NICS + 2);
	assert_true(sf1.messages >= sf0.messages + 512);
	assert_int_equal(fb.n, TEST_LINKS_NICS);
	for (size_t i = 0; i < fb.n; i++)
		test_links_assert_same(&fb.v[i], &after.v[i]);
	free(before.v);
	free(after.v);
	free(fb.v);
}

/* A NIC moved into another namespace (a pod), one never there, odd names: absent, not failures. */
static void test_query_absent(void **state)
{
	static const char *const names[] = { "eth4", "eth9", "", "eth1", "a-name-far-too-long", "../eth1", "eth1" };
	struct obs_links ls = { 0 };
	struct links_stats st;
	int pipefd[2];
	char c;
	pid_t pod;

	test_links_enter_netns();
	test_links_make_nics();
	assert_int_equal(pipe(pipefd), 0);
	pod = fork();
	assert_true(pod >= 0);
	if (pod == 0) {
		/* The "pod": a namespace of its own that lives until killed. */
		if (unshare(CLONE_NEWNET) != 0)
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	assert_int_equal(read(pipefd[0], &c, 1), 1);
	test_links_ip("link set eth4 netns %d\n", (int)pod);
	assert_int_equal(links_query(names, sizeof(names) / sizeof(names[0]), 0, &ls, &st), 0);
	kill(pod, SIGKILL);
	waitpid(pod, NULL, 0);
	close(pipefd[0]);
	close(pipefd[1]);

	assert_int_equal(ls.status.state, PROBE_OK);
	assert_int_equal(ls.n, 1);
	assert_string_equal(ls.v[0].name, "eth1");
	test_links_assert_ipv4(&ls.v[0], 0, "10.0.17.3/32");
	/* eth4, eth9 and eth1 once asked; the rest never reach the kernel. */
	assert_int_equal(st.requests, 3 + 2);
	free(ls.v);

	assert_int_equal(links_query(names, 0, 0, &ls, &st), 0);
	assert_int_equal(ls.n, 0);
	assert_int_equal(st.requests, 0);
	free(ls.v);
}

/* More names than LINKS_NAMES_MAX: one full dump, and still only the links asked for. */
static void test_query_many_names(void **state)
{
	const char *names[LINKS_NAMES_MAX + 10];
	char buf[LINKS_NAMES_MAX + 10][OBS_IFNAME_MAX];
	struct obs_links ls = { 0 };
	struct links_stats st;

	test_links_enter_netns();
	test_links_make_nics();
	test_links_make_veths(100);
	for (size_t i = 0; i < LINKS_NAMES_MAX + 10; i++) {
		snprintf(buf[i], sizeof(buf[i]), "xb%zu", 2 * i + 1);
		names[i] = buf[i];
	}
	names[0] = "eth0";
	assert_int_equal(links_query(names, LINKS_NAMES_MAX + 10, 0, &ls, &st), 0);
	assert_non_null(st.full_dump);
	assert_int_equal(st.requests, 3);
	/* eth0 and xb3..xb99 odd (48 of them); xb101 and above do not exist. */
	assert_int_equal(ls.n, 1 + 49);
	test_links_assert_sorted(&ls);
	assert_true(test_links_find(&ls, "eth0")->default_route);
	assert_non_null(test_links_find(&ls, "xb99"));
	assert_null(test_links_find(&ls, "xb2"));
	assert_null(test_links_find(&ls, "eth1"));
	free(ls.v);
	test_links_assert_query_matches_dump(names, LINKS_NAMES_MAX + 10, 0);
}

/* No routes at all (no main table yet) and a link whose only route is elsewhere: no default, no failure. */
static void test_query_no_main_table(void **state)
{
	static const char *const names[] = { "eth1", "eth2" };
	struct obs_links ls = { 0 };

	test_links_enter_netns();
	test_links_ip("link add eth1 type veth peer name p1\nlink add eth2 type veth peer name p2\n"
		      "address add 10.0.16.3/32 dev eth1\n");
	for (int strict = 0; strict < 2; strict++) {
		assert_int_equal(links_query(names, 2, strict ? 0 : LINKS_QUERY_NO_STRICT, &ls, NULL), 0);
		assert_int_equal(ls.n, 2);
		assert_false(ls.v[0].default_route);
		assert_false(ls.v[1].default_route);
		test_links_assert_ipv4(&ls.v[0], 0, "10.0.16.3/32");
		free(ls.v);
	}
	test_links_ip("link set eth2 up\nroute add default dev eth2 table 100\n");
	test_links_assert_query_matches_dump(names, 2, 0);
}

/* The default-route rules hold for the query too, filtered or not. */
static void test_query_default_route_rules(void **state)
{
	static const char *const names[] = { "eth0", "eth1", "eth2", "eth3", "eth4" };
	struct obs_links ls = { 0 };

	test_links_enter_netns();
	test_links_ip("link add eth0 type veth peer name p0\nlink add eth1 type veth peer name p1\n"
		      "link add eth2 type veth peer name p2\nlink add eth3 type veth peer name p3\n"
		      "link add eth4 type veth peer name p4\n"
		      "link set eth0 up\nlink set eth1 up\nlink set eth2 up\nlink set eth3 up\nlink set eth4 up\n"
		      "route add default dev eth2 table 100\nroute add 0.0.0.0/1 dev eth3\n"
		      "route add default nexthop dev eth0 nexthop dev eth1\n");
	for (int strict = 0; strict < 2; strict++) {
		assert_int_equal(links_query(names, 5, strict ? 0 : LINKS_QUERY_NO_STRICT, &ls, NULL), 0);
		assert_int_equal(ls.n, 5);
		assert_true(test_links_find(&ls, "eth0")->default_route);
		assert_true(test_links_find(&ls, "eth1")->default_route);
		assert_false(test_links_find(&ls, "eth2")->default_route);
		assert_false(test_links_find(&ls, "eth3")->default_route);
		assert_false(test_links_find(&ls, "eth4")->default_route);
		free(ls.v);
	}
}

/* links_query() fails as links_query(NULL, 0, 0, , NULL) does when no socket can be had. */
static void test_query_failure_status(void **state)
{
	static const char *const names[] = { "eth0" };
	struct obs_links ls = { 0 };
	struct links_stats st;
	struct rlimit saved, none;
	int r;

	assert_int_equal(getrlimit(RLIMIT_NOFILE, &saved), 0);
	none = saved;
	none.rlim_cur = 0;
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &none), 0);
	r = links_query(names, 1, 0, &ls, &st);
	assert_int_equal(setrlimit(RLIMIT_NOFILE, &saved), 0);
	assert_int_equal(r, -EMFILE);
	assert_int_equal(ls.status.state, PROBE_FAILED);
	assert_non_null(strstr(ls.status.message, "NETLINK_ROUTE"));
	assert_int_equal(st.requests, 0);
	free(ls.v);
}

/* ---- answers in memory (links_parse_answer) ---- */

struct test_links_buf {
	unsigned char b[4096];
	size_t len;
};

/* Append a message of @type with @hdr and, when @attr, one attribute; returns the message. */
static struct nlmsghdr *test_links_put(struct test_links_buf *m, uint16_t type, uint16_t flags, uint32_t seq,
				       const void *hdr, size_t hdrlen, uint16_t atype, const void *adata, size_t alen)
{
	struct nlmsghdr *h = (struct nlmsghdr *)(m->b + m->len);

	memset(h, 0, NLMSG_SPACE(hdrlen) + (atype ? NLA_ALIGN(NLA_HDRLEN + alen) : 0));
	h->nlmsg_len = NLMSG_LENGTH(hdrlen);
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	h->nlmsg_seq = seq;
	memcpy(NLMSG_DATA(h), hdr, hdrlen);
	if (atype) {
		struct nlattr *a = (struct nlattr *)((unsigned char *)h + NLMSG_ALIGN(h->nlmsg_len));

		a->nla_type = atype;
		a->nla_len = (uint16_t)(NLA_HDRLEN + alen);
		memcpy((unsigned char *)a + NLA_HDRLEN, adata, alen);
		h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
	}
	m->len += NLMSG_ALIGN(h->nlmsg_len);
	return h;
}

static void test_links_put_link(struct test_links_buf *m, uint32_t seq, uint16_t flags, int ifindex, const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC, .ifi_index = ifindex, .ifi_flags = IFF_UP };

	test_links_put(m, RTM_NEWLINK, flags, seq, &ifi, sizeof(ifi), IFLA_IFNAME, name, strlen(name) + 1);
}

static void test_links_put_addr(struct test_links_buf *m, uint32_t seq, int ifindex, const char *ip)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_prefixlen = 32, .ifa_index = (uint32_t)ifindex };
	uint32_t a;

	assert_int_equal(inet_pton(AF_INET, ip, &a), 1);
	test_links_put(m, RTM_NEWADDR, NLM_F_MULTI, seq, &ifa, sizeof(ifa), IFA_LOCAL, &a, sizeof(a));
}

static void test_links_put_int(struct test_links_buf *m, uint16_t type, uint32_t seq, int v)
{
	test_links_put(m, type, 0, seq, &v, sizeof(v), 0, NULL, 0);
}

static void test_answer_link_reply(void **state)
{
	struct test_links_buf m = { .len = 0 };
	struct obs_links ls;
	int kerr;

	test_links_put_link(&m, 7, 0, 3, "eth1");
	test_links_put_link(&m, 7, 0, 4, "eth2");   /* after the reply: not part of the exchange */
	assert_int_equal(links_parse_answer(m.b, m.len, false, &ls, &kerr), 1);
	assert_int_equal(kerr, 0);
	assert_int_equal(ls.n, 1);
	assert_string_equal(ls.v[0].name, "eth1");
	assert_int_equal(ls.v[0].ifindex, 3);
	assert_true(ls.v[0].admin_up);
	free(ls.v);

	/* An unknown name: the kernel's -ENODEV, no link, no failure. */
	m.len = 0;
	test_links_put_int(&m, NLMSG_ERROR, 8, -ENODEV);
	assert_int_equal(links_parse_answer(m.b, m.len, false, &ls, &kerr), 1);
	assert_int_equal(kerr, -ENODEV);
	assert_int_equal(ls.n, 0);
	assert_int_equal(ls.status.state, PROBE_OK);
	free(ls.v);
}

static void test_answer_dump_parts(void **state)
{
	struct test_links_buf m = { .len = 0 };
	struct obs_links ls;
	int kerr;

	/* The link and its address in one datagram, without DONE: more would follow. */
	test_links_put_link(&m, 5, NLM_F_MULTI, 3, "eth1");
	test_links_put_addr(&m, 5, 3, "10.0.16.3");
	test_links_put_addr(&m, 9, 3, "10.9.9.9");          /* another exchange's: skipped */
	test_links_put_addr(&m, 5, 4, "10.0.17.3");         /* another link's: not ours */
	assert_int_equal(links_parse_answer(m.b, m.len, true, &ls, &kerr), 0);
	assert_int_equal(ls.n, 1);
	assert_int_equal(ls.v[0].n_ipv4, 1);
	test_links_assert_ipv4(&ls.v[0], 0, "10.0.16.3/32");
	free(ls.v);

	/* DONE ends it and carries the dump's error. */
	test_links_put_int(&m, NLMSG_DONE, 5, -ENOENT);
	assert_int_equal(links_parse_answer(m.b, m.len, true, &ls, &kerr), 1);
	assert_int_equal(kerr, -ENOENT);
	free(ls.v);

	/* A dump that raced a change ends in -EINTR: asked again. */
	m.len = 0;
	test_links_put_link(&m, 5, NLM_F_MULTI | NLM_F_DUMP_INTR, 3, "eth1");
	test_links_put_int(&m, NLMSG_DONE, 5, 0);
	assert_int_equal(links_parse_answer(m.b, m.len, true, &ls, &kerr), 1);
	assert_int_equal(kerr, -EINTR);
	free(ls.v);
}

static void test_answer_malformed(void **state)
{
	struct test_links_buf m = { .len = 0 };
	struct nlmsghdr *h;
	struct obs_links ls;
	int kerr;

	/* An error message too short to hold its error. */
	h = test_links_put(&m, NLMSG_ERROR, 0, 1, "\0\0", 2, 0, NULL, 0);
	assert_int_equal(links_parse_answer(m.b, m.len, false, &ls, &kerr), -EBADMSG);
	assert_int_equal(ls.status.state, PROBE_FAILED);
	free(ls.v);

	/* A length past the end of the datagram. */
	m.len = 0;
	h = test_links_put(&m, NLMSG_DONE, 0, 1, "\0\0\0\0", 4, 0, NULL, 0);
	h->nlmsg_len = 4000;
	assert_int_equal(links_parse_answer(m.b, m.len, true, &ls, &kerr), -EBADMSG);
	free(ls.v);

	/* Trailing bytes that are no message. */
	m.len = 0;
	test_links_put_link(&m, 1, NLM_F_MULTI, 3, "eth1");
	m.len += 8;
	assert_int_equal(links_parse_answer(m.b, m.len, true, &ls, &kerr), -EBADMSG);
	free(ls.v);

	/* Overrun, and a positive "error". */
	m.len = 0;
	test_links_put_int(&m, NLMSG_OVERRUN, 1, 0);
	assert_int_equal(links_parse_answer(m.b, m.len, true, &ls, &kerr), -EOVERFLOW);
	free(ls.v);
	m.len = 0;
	test_links_put_int(&m, NLMSG_ERROR, 1, 5);
	assert_int_equal(links_parse_answer(m.b, m.len, false, &ls, &kerr), 1);
	assert_int_equal(kerr, -EPROTO);
	free(ls.v);

	assert_int_equal(links_parse_answer(m.b, 0, true, &ls, &kerr), 0);
	assert_int_equal(links_parse_answer(m.b, LINKS_PARSE_MAX + 1, true, &ls, &kerr), -E2BIG);
	free(ls.v);
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
		cmocka_unit_test(test_query_same_facts),
		cmocka_unit_test(test_query_cost_ignores_veths),
		cmocka_unit_test(test_query_absent),
		cmocka_unit_test(test_query_many_names),
		cmocka_unit_test(test_query_no_main_table),
		cmocka_unit_test(test_query_default_route_rules),
		cmocka_unit_test(test_query_failure_status),
		cmocka_unit_test(test_answer_link_reply),
		cmocka_unit_test(test_answer_dump_parts),
		cmocka_unit_test(test_answer_malformed),
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
