/* test_procnet.c - probes/host/procnet.c: net/unix, net/udp and net/dev as the kernel prints them. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/host/procnet.h"

#define UNIX_HEADER "Num       RefCount Protocol Flags    Type St Inode Path\n"
#define PAD40 "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@"
/* "@rxdm_uds_buf_op:10.64.1.7" padded with '@' to the 108 bytes of sun_path, as RxDM binds it. */
#define BUFOP(ip) "@rxdm_uds_buf_op:" ip

static char text[1 << 16];

/* Build a net/unix line: listener (L), accepted client (C), unbound client end (U), other path (O). */
static size_t unix_add(size_t o, char kind, const char *path, int padded)
{
	char p[200];
	const char *flags = kind == 'L' ? "00010000" : "00000000", *st = kind == 'L' ? "01" : "03";

	snprintf(p, sizeof(p), "%s", path ? path : "");
	if (padded)
		while (strlen(p) < 108)
			strcat(p, "@");
	o += (size_t)snprintf(text + o, sizeof(text) - o, "0000000000000000: 00000002 00000000 %s 0001 %s %5zu%s%s\n",
			      flags, st, o % 99991, path ? " " : "", path ? p : "");
	return o;
}

static struct procnet_unix parse_unix_ok(size_t len, bool cut)
{
	struct procnet_unix u;
	char err[256] = "";

	if (procnet_unix_parse(text, len, cut, &u, err, sizeof(err)) != 0)
		fail_msg("refused: %s", err);
	return u;
}

static void test_unix_rails(void **state)
{
	size_t o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER);
	struct procnet_unix u;

	o = unix_add(o, 'L', "/run/containerd/containerd.sock", 0);
	o = unix_add(o, 'L', "@rxdm_uds_nic_mapping", 1);
	o = unix_add(o, 'C', "@rxdm_uds_nic_mapping", 1);
	for (int i = 10; i >= 1; i--) {
		char ip[32];

		snprintf(ip, sizeof(ip), BUFOP("10.64.1.%d"), i);
		o = unix_add(o, 'L', ip, 1);
		o = unix_add(o, 'C', ip, 1);
		o = unix_add(o, 'C', ip, 1);    /* two connections to one rail: one rail */
		o = unix_add(o, 'U', NULL, 0);
	}
	u = parse_unix_ok(o, false);
	assert_int_equal(u.sockets, 3 + 40);
	assert_int_equal(u.listeners, 10);
	assert_int_equal(u.clients, 20);
	assert_int_equal(u.n_rails, 10);
	assert_int_equal(u.n_rails_dropped, 0);
	/* Sorted as addresses, not as text. */
	assert_string_equal(u.rails[0], "10.64.1.1");
	assert_string_equal(u.rails[1], "10.64.1.2");
	assert_string_equal(u.rails[9], "10.64.1.10");

	/* Short abstract names and the file-based form count the same; IPv6 sorts after IPv4. */
	o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER);
	o = unix_add(o, 'C', BUFOP("10.0.0.2"), 0);
	o = unix_add(o, 'C', "/run/tcpxo/uds/rxdm_uds_buf_op:10.0.0.1", 0);
	o = unix_add(o, 'C', "rxdm_uds_buf_op:fd00::1", 0);
	o = unix_add(o, 'L', "/run/tcpxo/rxdm_uds_buf_op:10.0.0.1", 0);
	u = parse_unix_ok(o, false);
	assert_int_equal(u.clients, 3);
	assert_int_equal(u.listeners, 1);
	assert_int_equal(u.n_rails, 3);
	assert_string_equal(u.rails[0], "10.0.0.1");
	assert_string_equal(u.rails[1], "10.0.0.2");
	assert_string_equal(u.rails[2], "fd00::1");
}

static void test_unix_not_counted(void **state)
{
	size_t o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER);
	struct procnet_unix u;

	/* Not an address, an address with junk, a datagram socket, a listener in the wrong state,
	 * a connecting socket (state 02), another RxDM name: none is a client or a listener. */
	o = unix_add(o, 'C', BUFOP("eth0"), 1);
	o = unix_add(o, 'C', BUFOP("10.0.0.1x"), 1);
	o = unix_add(o, 'C', BUFOP(""), 1);
	o = unix_add(o, 'C', "@xrxdm_uds_buf_op:10.0.0.1", 0);
	o = unix_add(o, 'C', "/a/rxdm_uds_buf_op:10.0.0.1/b", 0);
	o += (size_t)snprintf(text + o, sizeof(text) - o,
			      "0000000000000000: 00000002 00000000 00000000 0002 03 11 @rxdm_uds_buf_op:10.0.0.1\n"
			      "0000000000000000: 00000002 00000000 00010000 0001 03 12 @rxdm_uds_buf_op:10.0.0.1\n"
			      "0000000000000000: 00000002 00000000 00000000 0001 02 13 @rxdm_uds_buf_op:10.0.0.1\n"
			      "ffff8a0b12345678: 00000002 00000000 00000000 0001 03 14 @rxdm_uds_nic_ip:0000_06_00_0\n");
	u = parse_unix_ok(o, false);
	assert_int_equal(u.sockets, 9);
	assert_int_equal(u.clients, 0);
	assert_int_equal(u.listeners, 0);
	assert_int_equal(u.n_rails, 0);
}

static void test_unix_cap(void **state)
{
	size_t o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER);
	struct procnet_unix u;

	for (int i = 0; i < OBS_TRANSPORT_RAILS_MAX + 5; i++) {
		char ip[40];

		snprintf(ip, sizeof(ip), BUFOP("10.0.%d.1"), 40 - i);
		o = unix_add(o, 'C', ip, 0);
	}
	u = parse_unix_ok(o, false);
	assert_int_equal(u.n_rails, OBS_TRANSPORT_RAILS_MAX);
	assert_int_equal(u.n_rails_dropped, 5);
	assert_string_equal(u.rails[0], "10.0.20.1");   /* the smallest are kept */
	assert_int_equal(u.clients, OBS_TRANSPORT_RAILS_MAX + 5);
}

/* A '\n' in a bound name: the next line is the rest of that name, and makes it no RxDM name. */
static void test_unix_newline_in_name(void **state)
{
	size_t o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER
				    "0000000000000000: 00000002 00000000 00000000 0001 03 11 @rxdm_uds_buf_op:10.0.0.1\n"
				    "x\n"
				    "0000000000000000: 00000002 00000000 00000000 0001 03 12 @rxdm_uds_buf_op:10.0.0.2\n");
	struct procnet_unix u = parse_unix_ok(o, false);
	char err[256] = "";

	assert_int_equal(u.sockets, 2);
	assert_int_equal(u.clients, 1);
	assert_string_equal(u.rails[0], "10.0.0.2");

	/* After a socket without a path nothing can continue. */
	o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER
			     "0000000000000000: 00000002 00000000 00000000 0001 03 11\nx\n");
	assert_int_equal(procnet_unix_parse(text, o, false, &u, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "line 3: not a socket line");
}

static void expect_unix_error(const char *in, bool cut, const char *msg)
{
	struct procnet_unix u;
	char err[256] = "";

	if (procnet_unix_parse(in, strlen(in), cut, &u, err, sizeof(err)) != -EBADMSG)
		fail_msg("accepted: %s", in);
	assert_string_equal(err, msg);
}

static void test_unix_errors(void **state)
{
	char big[1024];

	expect_unix_error("", false, "line 1: not the net/unix header");
	expect_unix_error("Num RefCount\n", false, "line 1: not the net/unix header");
	expect_unix_error(UNIX_HEADER "0000000000000000: 00000002 00000000 00000000 0001 03 11", false,
			  "line 2: no end of line");
	expect_unix_error(UNIX_HEADER "0000000000000000: 0000002 00000000 00000000 0001 03 11\n", false,
			  "line 2: not a socket line");
	expect_unix_error(UNIX_HEADER "00000000000000000: 00000002 00000000 00000000 0001 03 11\n", false,
			  "line 2: not a socket line");
	expect_unix_error(UNIX_HEADER "0000000000000000: 00000002 00000000 00000000 0001 03 \n", false,
			  "line 2: not a socket line");
	/* A path longer than sun_path cannot come from the kernel. */
	snprintf(big, sizeof(big), UNIX_HEADER "0000000000000000: 00000002 00000000 00000000 0001 03 11 @%0109d\n", 0);
	expect_unix_error(big, false, "line 2: not a socket line");
	/* Longer than a line can be. */
	memset(big, 'a', sizeof(big) - 2);
	big[sizeof(big) - 2] = '\n';
	big[sizeof(big) - 1] = '\0';
	memcpy(big, UNIX_HEADER, strlen(UNIX_HEADER));
	expect_unix_error(big, false, "line 2: longer than 512 bytes");
}

/* A bounded read cut the file: its partial last line is dropped, not an error. */
static void test_unix_cut(void **state)
{
	size_t o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER);
	struct procnet_unix u;

	o = unix_add(o, 'C', BUFOP("10.0.0.1"), 1);
	o = unix_add(o, 'C', BUFOP("10.0.0.2"), 1);
	u = parse_unix_ok(o - 20, true);
	assert_int_equal(u.clients, 1);
	assert_int_equal(u.sockets, 1);
	u = parse_unix_ok(o, true);
	assert_int_equal(u.clients, 2);
}

/* Which paths are RxDM buffer-op names: a client bound to one is a rail with its address, the others none. */
static void test_buf_op(void **state)
{
	static const char *const paths[] = {
		"@rxdm_uds_buf_op:10.64.1.7@@@", "/p/rxdm_uds_buf_op:::1",
		"@rxdm_uds_buf_op:10.64.1.8@x",         /* padding, then not '@' */
		"rxdm_uds_buf_op:",                     /* no address */
		"/p/rxdm_uds_buf_op:10.64.1.300",       /* not an address */
		NULL,                                   /* no path */
	};
	size_t o = (size_t)snprintf(text, sizeof(text), UNIX_HEADER);
	struct procnet_unix u;

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		o = unix_add(o, 'C', paths[i], 0);
	u = parse_unix_ok(o, false);
	assert_int_equal(u.n_rails, 2);
	assert_string_equal(u.rails[0], "10.64.1.7");
	assert_string_equal(u.rails[1], "::1");
	assert_int_equal(u.clients, 2);         /* of the 6 sockets */
	assert_int_equal(u.sockets, 6);
}

#define UDP_HEADER "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops            \n"
#define UDP(l, r, st) "  %3d: " l " " r " " st " 00000000:00000000 00:00000000 00000000     0        0 %d 2 0000000000000000 0         \n"

static void test_udp(void **state)
{
	struct procnet_udp u;
	char err[256] = "";
	size_t o = (size_t)snprintf(text, sizeof(text), UDP_HEADER);

	o += (size_t)snprintf(text + o, sizeof(text) - o, UDP("0A400101:A028", "FEA9FEA9:D903", "01"), 1, 100);
	o += (size_t)snprintf(text + o, sizeof(text) - o, UDP("0A400102:A029", "FEA9FEA9:D903", "01"), 2, 101);
	/* RxDM's own (local port 338), not connected, another port, another address: not flows. */
	o += (size_t)snprintf(text + o, sizeof(text) - o, UDP("0A400101:0152", "FEA9FEA9:D903", "01"), 3, 102);
	o += (size_t)snprintf(text + o, sizeof(text) - o, UDP("00000000:D903", "00000000:0000", "07"), 4, 103);
	o += (size_t)snprintf(text + o, sizeof(text) - o, UDP("0A400101:A02A", "FEA9FEA9:0035", "01"), 5, 104);
	o += (size_t)snprintf(text + o, sizeof(text) - o, UDP("0A400101:A02B", "A9FEA9FE:D903", "01"), 6, 105);
	assert_int_equal(procnet_udp_parse(text, o, false, &u, err, sizeof(err)), 0);
	assert_int_equal(u.sockets, 6);
	assert_int_equal(u.flows, 2);

	assert_int_equal(procnet_udp_parse("x\n", 2, false, &u, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "line 1: not the net/udp header");
	o = (size_t)snprintf(text, sizeof(text), UDP_HEADER "    1: 0A400101:A02 FEA9FEA9:D903 01 \n");
	assert_int_equal(procnet_udp_parse(text, o, false, &u, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "line 2: not a socket line");
	/* Empty namespace: the header alone. */
	o = (size_t)snprintf(text, sizeof(text), UDP_HEADER);
	assert_int_equal(procnet_udp_parse(text, o, false, &u, err, sizeof(err)), 0);
	assert_int_equal(u.sockets, 0);
}

#define DEV_HEADER "Inter-|   Receive                            |  Transmit\n" \
	" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"

static void test_dev(void **state)
{
	struct procnet_dev d;
	char err[256] = "";
	size_t o = (size_t)snprintf(text, sizeof(text), DEV_HEADER
		"    lo:    1234       1    0    0    0     0          0         0     1234       1    0    0    0     0       0          0\n"
		"  eth1: 18446744073709551615 5 0 0 0 0 0 0 7 1 0 0 0 0 0 0\n"
		"eth0:1000       1    0    0    0     0          0         0     2000       2    0    0    0     0       0          0\n");

	assert_int_equal(procnet_dev_parse(text, o, false, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 3);
	assert_string_equal(d.v[0].name, "eth0");
	assert_int_equal(d.v[0].rx_bytes, 1000);
	assert_int_equal(d.v[0].tx_bytes, 2000);
	assert_string_equal(d.v[1].name, "eth1");
	assert_true(d.v[1].rx_bytes == UINT64_MAX);
	assert_int_equal(d.v[1].tx_bytes, 7);
	assert_string_equal(d.v[2].name, "lo");
}

static void expect_dev_error(const char *lines, const char *msg)
{
	struct procnet_dev d;
	char err[256] = "";

	snprintf(text, sizeof(text), DEV_HEADER "%s", lines);
	if (procnet_dev_parse(text, strlen(text), false, &d, err, sizeof(err)) != -EBADMSG)
		fail_msg("accepted: %s", lines);
	assert_string_equal(err, msg);
}

static void test_dev_errors_and_cap(void **state)
{
	struct procnet_dev d;
	char err[256] = "";
	size_t o;

	expect_dev_error("  eth0: 1 2 3\n", "line 3 (eth0): 3 counters, 16 expected");
	expect_dev_error("  eth0: 1 2x 3\n", "line 3 (eth0): counter 2 is not a number");
	expect_dev_error("  eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", "line 3 (eth0): more than 16 counters");
	expect_dev_error("  eth0: 18446744073709551616 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
			 "line 3 (eth0): counter 1 is not a number");
	expect_dev_error("  eth 0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "line 3: not an interface name and ':'");
	expect_dev_error("  a234567890123456: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n", "line 3: not an interface name and ':'");
	expect_dev_error("eth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\neth0: 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16\n",
			 "line 4: interface eth0 twice");
	assert_int_equal(procnet_dev_parse("Inter-|\n", 8, false, &d, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "line 1: not the net/dev header");

	/* More interfaces than kept: the first by name. */
	o = (size_t)snprintf(text, sizeof(text), DEV_HEADER);
	for (int i = OBS_TRANSPORT_DEVS_MAX + 3; i > 0; i--)
		o += (size_t)snprintf(text + o, sizeof(text) - o, "veth%03d: %d 0 0 0 0 0 0 0 %d 0 0 0 0 0 0 0\n", i, i, 2 * i);
	assert_int_equal(procnet_dev_parse(text, o, false, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, OBS_TRANSPORT_DEVS_MAX);
	assert_int_equal(d.n_dropped, 3);
	assert_string_equal(d.v[0].name, "veth001");
	assert_string_equal(d.v[OBS_TRANSPORT_DEVS_MAX - 1].name, "veth032");
	assert_int_equal(d.v[31].tx_bytes, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unix_rails),
		cmocka_unit_test(test_unix_not_counted),
		cmocka_unit_test(test_unix_cap),
		cmocka_unit_test(test_unix_newline_in_name),
		cmocka_unit_test(test_unix_errors),
		cmocka_unit_test(test_unix_cut),
		cmocka_unit_test(test_buf_op),
		cmocka_unit_test(test_udp),
		cmocka_unit_test(test_dev),
		cmocka_unit_test(test_dev_errors_and_cap),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
