/* test_cmdline.c - cmdline splitting, daemon recognition and daemon argument findings. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probes/host/cmdline.h"

#define ARGV(...) ((const char *const[]){ __VA_ARGS__ }), \
	(sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static void test_split_nul(void **state)
{
	static const char buf[] = "/fts/fastrak_gpumem_manager\0--num_hops=2\0\0x y\0";
	char **argv = NULL;
	size_t argc = 0;
	bool trunc = false;

	assert_int_equal(cmdline_split(buf, sizeof(buf) - 1, 16, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 4);
	assert_string_equal(argv[0], "/fts/fastrak_gpumem_manager");
	assert_string_equal(argv[1], "--num_hops=2");
	assert_string_equal(argv[2], "");
	assert_string_equal(argv[3], "x y");
	assert_false(trunc);
	cmdline_argv_free(argv, argc);

	/* Cut mid-argument (a bounded read): the last one still counts. */
	assert_int_equal(cmdline_split(buf, 20, 16, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 1);
	assert_string_equal(argv[0], "/fts/fastrak_gpumem_");
	cmdline_argv_free(argv, argc);
}

static void test_split_empty_and_max(void **state)
{
	char **argv = (char **)1;
	size_t argc = 9;
	bool trunc = false;

	assert_int_equal(cmdline_split("", 0, 16, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 0);
	assert_null(argv);
	assert_int_equal(cmdline_split("a\0b\0c\0d\0", 8, 2, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 2);
	assert_true(trunc);
	cmdline_argv_free(argv, argc);
}

static void test_split_rewritten(void **state)
{
	/* No NUL at all: a rewritten title, split on blanks. */
	static const char buf[] = "  fastrak_gpumem_manager --num_nics=8\t--num_hops=2\n";
	char **argv = NULL;
	size_t argc = 0;
	bool trunc = false;

	assert_int_equal(cmdline_split(buf, sizeof(buf) - 1, 16, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 3);
	assert_string_equal(argv[1], "--num_nics=8");
	cmdline_argv_free(argv, argc);
}

static void test_split_megabyte(void **state)
{
	size_t len = 2 * 1024 * 1024;
	char *buf = malloc(len);
	char **argv = NULL;
	size_t argc = 0;
	bool trunc = false;

	assert_non_null(buf);
	memset(buf, 'a', len);
	assert_int_equal(cmdline_split(buf, len, 16, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 1);
	assert_int_equal(strlen(argv[0]), len);
	cmdline_argv_free(argv, argc);
	/* Only NULs: a million empty arguments, capped. */
	memset(buf, 0, len);
	assert_int_equal(cmdline_split(buf, len, 1024, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 1024);
	assert_true(trunc);
	cmdline_argv_free(argv, argc);
	free(buf);
}

static void test_daemon_kind(void **state)
{
	assert_int_equal(cmdline_daemon_kind("fastrak_gpumem_", ARGV("/fts/fastrak_gpumem_manager", "--num_hops=2")),
			 CMDLINE_DAEMON_MANAGER);
	assert_int_equal(cmdline_daemon_kind("entrypoint_rxdm", ARGV("/fts/entrypoint_rxdm_container.sh")),
			 CMDLINE_DAEMON_ENTRYPOINT);
	assert_int_equal(cmdline_daemon_kind("bash", ARGV("/bin/bash", "-e", "/fts/entrypoint_rxdm_container.sh",
							  "--num_hops=2")), CMDLINE_DAEMON_ENTRYPOINT);
	assert_int_equal(cmdline_daemon_kind("bash", ARGV("/bin/bash", "/other.sh",
							  "/fts/entrypoint_rxdm_container.sh")), CMDLINE_NOT_DAEMON);
	assert_int_equal(cmdline_daemon_kind("bash", ARGV("bash")), CMDLINE_NOT_DAEMON);
	assert_int_equal(cmdline_daemon_kind("sleep", ARGV("sleep", "fastrak_gpumem_manager")), CMDLINE_NOT_DAEMON);
	/* Empty or rewritten cmdline: comm still names the manager. */
	assert_int_equal(cmdline_daemon_kind("fastrak_gpumem_", NULL, 0), CMDLINE_DAEMON_MANAGER);
	assert_int_equal(cmdline_daemon_kind(NULL, NULL, 0), CMDLINE_NOT_DAEMON);
	assert_true(cmdline_comm_candidate("fastrak_gpumem_"));
	assert_true(cmdline_comm_candidate("entrypoint_rxdm"));
	assert_true(cmdline_comm_candidate("sh"));
	assert_false(cmdline_comm_candidate("fastrak_gpumem"));
	assert_false(cmdline_comm_candidate("kworker/0:1"));
	assert_string_equal(cmdline_daemon_name(CMDLINE_DAEMON_MANAGER), "fastrak_gpumem_manager");
	assert_null(cmdline_daemon_name(CMDLINE_NOT_DAEMON));
}

/* Run the findings on @argv, compare the count and the text. */
static void check_findings(const char *const *argv, size_t argc, int want, const char *text)
{
	struct strbuf sb = {0};

	assert_int_equal(cmdline_daemon_findings(argv, argc, &sb), want);
	assert_string_equal(sb.s ? sb.s : "", text);
	strbuf_free(&sb);
}

static void test_findings(void **state)
{
	check_findings(ARGV("/fts/entrypoint_rxdm_container.sh", "--num_hops=2"), 0, "");
	check_findings(ARGV("x", "--num_hops", "2"), 0, "");
	check_findings(ARGV("x"), 0, "");
	/* argv[0] is never a flag. */
	check_findings(ARGV("--num_nics=8"), 0, "");
	check_findings(ARGV("x", "--num_hops=2", "--num_nics=8"), 1,
		       "--num_nics=8: --num_nics was retired in daemon v1.0.20 (accepted, no effect); remove it");
	check_findings(ARGV("x", "-num_nics", "8"), 1,
		       "-num_nics: --num_nics was retired in daemon v1.0.20 (accepted, no effect); remove it");
	check_findings(ARGV("x", "--num_hops=3"), 1, "--num_hops=3: TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--num_hops", "1"), 1, "--num_hops=1: TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--num_hops"), 1, "--num_hops has no value; TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--num_hops", "--num_nics=8"), 2,
		       "--num_hops has no value; TCPXO expects --num_hops=2; --num_nics=8: --num_nics was "
		       "retired in daemon v1.0.20 (accepted, no effect); remove it");
	check_findings(ARGV("x", "--enforce_kernel_ipv6_support=false"), 1,
		       "--enforce_kernel_ipv6_support=false: daemons v1.0.18 and later do not know this flag "
		       "and are believed to exit at start; remove it");
	check_findings(ARGV("x", "--noenforce_kernel_ipv6_support"), 1,
		       "--noenforce_kernel_ipv6_support: daemons v1.0.18 and later do not know this flag "
		       "and are believed to exit at start; remove it");
	/* Values are escaped; "--" ends the flags; similar names are not the flag. */
	check_findings(ARGV("x", "--num_hops=2\n3"), 1, "--num_hops=\"2\\n3\": TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--", "--num_nics=8"), 0, "");
	check_findings(ARGV("x", "--num_nics_extra=1", "num_nics=8", "-", "--=1"), 0, "");
}

static void test_format(void **state)
{
	struct strbuf sb = {0};

	assert_int_equal(cmdline_format(ARGV("/fts/x", "a b", "c\nd"), 100, &sb), 0);
	assert_string_equal(sb.s, "/fts/x \"a b\" \"c\\nd\"");
	strbuf_free(&sb);
	assert_int_equal(cmdline_format(ARGV("/fts/fastrak_gpumem_manager", "--num_hops=2", "--x=yyyyyyyy"),
				       45, &sb), 0);
	assert_string_equal(sb.s, "/fts/fastrak_gpumem_manager --num_hops=2 ...");
	strbuf_free(&sb);
}

static void test_findings_shell_script(void **state)
{
	const char *spec[] = { "/bin/sh", "-c",
		"set -ex\nchmod 755 /fts/entrypoint_rxdm_container.sh\n"
		"/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics=8 --uid= --alsologtostderr" };
	const char *clean[] = { "bash", "-c", "/fts/entrypoint_rxdm_container.sh --num_hops=2" };
	const char *not_shell[] = { "/fts/tool", "-c", "--num_nics=8" };
	struct strbuf sb = { 0 };

	assert_int_equal(cmdline_daemon_findings(spec, 3, &sb), 1);
	assert_non_null(strstr(sb.s, "--num_nics=8: --num_nics was retired in daemon v1.0.20"));
	strbuf_free(&sb);
	assert_int_equal(cmdline_daemon_findings(clean, 3, &sb), 0);
	strbuf_free(&sb);
	/* "-c" is only a script for a shell; elsewhere the next argument is an ordinary flag. */
	assert_int_equal(cmdline_daemon_findings(not_shell, 3, &sb), 1);
	strbuf_free(&sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_nul),
		cmocka_unit_test(test_split_empty_and_max),
		cmocka_unit_test(test_split_rewritten),
		cmocka_unit_test(test_split_megabyte),
		cmocka_unit_test(test_daemon_kind),
		cmocka_unit_test(test_findings),
		cmocka_unit_test(test_findings_shell_script),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
