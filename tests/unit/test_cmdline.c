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
	strbuf_strv_free(argv, argc);

	/* Cut mid-argument (a bounded read): the last one still counts. */
	assert_int_equal(cmdline_split(buf, 20, 16, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 1);
	assert_string_equal(argv[0], "/fts/fastrak_gpumem_");
	strbuf_strv_free(argv, argc);
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
	strbuf_strv_free(argv, argc);
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
	strbuf_strv_free(argv, argc);
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
	strbuf_strv_free(argv, argc);
	/* Only NULs: a million empty arguments, capped. */
	memset(buf, 0, len);
	assert_int_equal(cmdline_split(buf, len, 1024, &argv, &argc, &trunc), 0);
	assert_int_equal(argc, 1024);
	assert_true(trunc);
	strbuf_strv_free(argv, argc);
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
	assert_int_equal(cmdline_daemon_kind("tcpgpudmarxd", ARGV("/tcpgpudmarxd/build/app/tcpgpudmarxd",
								 "--gpu_nic_preset", "a3vm")), CMDLINE_DAEMON_TCPX);
	assert_int_equal(cmdline_daemon_kind("tcpgpudmarxd", NULL, 0), CMDLINE_DAEMON_TCPX);
	assert_true(cmdline_comm_candidate("tcpgpudmarxd"));
	assert_int_equal(cmdline_daemon_fabric(CMDLINE_DAEMON_TCPX), CMDLINE_FABRIC_TCPX);
	assert_int_equal(cmdline_daemon_fabric(CMDLINE_DAEMON_MANAGER), CMDLINE_FABRIC_TCPXO);
	assert_string_equal(cmdline_daemon_name(CMDLINE_DAEMON_TCPX), "tcpgpudmarxd");
	assert_string_equal(cmdline_daemon_name(CMDLINE_DAEMON_MANAGER), "fastrak_gpumem_manager");
	assert_null(cmdline_daemon_name(CMDLINE_NOT_DAEMON));
}

/* Run the findings on @argv, compare the count, the worst severity and the joined text. */
static void check_findings_at(const char *const *argv, size_t argc, enum cmdline_fabric fabric,
			      const char *version, int want, int worst, const char *text)
{
	struct cmdline_findings f = { 0 };
	struct strbuf sb = { 0 };

	assert_int_equal(cmdline_daemon_findings(argv, argc, fabric, version, &f), want);
	assert_int_equal(f.n, (size_t)want);
	assert_int_equal(cmdline_findings_worst(&f), worst);
	assert_int_equal(cmdline_findings_join(&f, CMDLINE_SEVERITY_WARN, &sb), want);
	assert_string_equal(sb.s ? sb.s : "", text);
	strbuf_free(&sb);
	cmdline_findings_free(&f);
	assert_null(f.v);
	assert_int_equal(f.n, 0);
}

/* TCPXO rules with the version unknown (a process in /proc). */
static void check_findings(const char *const *argv, size_t argc, int want, const char *text)
{
	check_findings_at(argv, argc, CMDLINE_FABRIC_TCPXO, NULL, want, want ? CMDLINE_SEVERITY_WARN : 0, text);
}

#define NUM_NICS_RETIRED "--num_nics was retired in daemon v1.0.20 (accepted, no effect); remove it"

static void test_findings(void **state)
{
	check_findings(ARGV("/fts/entrypoint_rxdm_container.sh", "--num_hops=2"), 0, "");
	check_findings(ARGV("x", "--num_hops", "2"), 0, "");
	check_findings(ARGV("x"), 0, "");
	/* argv[0] is never a flag. */
	check_findings(ARGV("--num_nics=8"), 0, "");
	check_findings(ARGV("x", "--num_hops=2", "--num_nics=8"), 1, "--num_nics=8: " NUM_NICS_RETIRED);
	check_findings(ARGV("x", "-num_nics", "8"), 1, "-num_nics: " NUM_NICS_RETIRED);
	check_findings(ARGV("x", "--num_hops=3"), 1, "--num_hops=3: TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--num_hops", "1"), 1, "--num_hops=1: TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--num_hops"), 1, "--num_hops has no value; TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--num_hops", "--num_nics=8"), 2,
		       "--num_hops has no value; TCPXO expects --num_hops=2; --num_nics=8: " NUM_NICS_RETIRED);
	/* Values are escaped; "--" ends the flags; similar names are not the flag. */
	check_findings(ARGV("x", "--num_hops=2\n3"), 1, "--num_hops=\"2\\n3\": TCPXO expects --num_hops=2");
	check_findings(ARGV("x", "--", "--num_nics=8"), 0, "");
	check_findings(ARGV("x", "--num_nics_extra=1", "num_nics=8", "-", "--=1", "--uidx", "--alsologtostderrs"),
		       0, "");
}

/* Google's TCPXO README lists --uid and --alsologtostderr as removed with --num_nics (ABSL_RETIRED_FLAG). */
static void test_findings_retired(void **state)
{
	const char *const g[] = { "/fts/entrypoint_rxdm_container.sh", "--num_hops=2", "--num_nics=8", "--uid=",
				  "--alsologtostderr" };
	static const char all3[] = "--num_nics=8: " NUM_NICS_RETIRED "; --uid=: --uid was retired in daemon "
		"v1.0.18 (accepted, no effect); remove it; --alsologtostderr: --alsologtostderr was retired in "
		"daemon v1.0.18 (accepted, no effect); remove it";

	check_findings(g, 5, 3, all3);
	check_findings_at(g, 5, CMDLINE_FABRIC_TCPXO, "v1.0.21", 3, CMDLINE_SEVERITY_WARN, all3);
	/* v1.0.18 and v1.0.19: --num_nics is still a flag (Google's Aug 2025 command passes it). */
	check_findings_at(g, 5, CMDLINE_FABRIC_TCPXO, "v1.0.18", 2, CMDLINE_SEVERITY_WARN,
			  "--uid=: --uid was retired in daemon v1.0.18 (accepted, no effect); remove it; "
			  "--alsologtostderr: --alsologtostderr was retired in daemon v1.0.18 (accepted, no effect); "
			  "remove it");
	/* Before the open-source RxDM all three were real flags. */
	check_findings_at(g, 5, CMDLINE_FABRIC_TCPXO, "v1.0.13_1", 0, 0, "");
	check_findings_at(ARGV("x", "-uid", "1000"), CMDLINE_FABRIC_TCPXO, "v1.0.20", 1, CMDLINE_SEVERITY_WARN,
			  "-uid: --uid was retired in daemon v1.0.18 (accepted, no effect); remove it");
}

/* The daemon's flag parser exits on an unknown flag: fatal from v1.0.18, said when unknown. */
static void test_findings_enforce_ipv6(void **state)
{
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support=false"), CMDLINE_FABRIC_TCPXO, "v1.0.21", 1,
			  CMDLINE_SEVERITY_FAIL, "--enforce_kernel_ipv6_support=false: daemons v1.0.18 and "
			  "later do not define this flag and exit at start on an unknown flag; remove it");
	check_findings_at(ARGV("x", "--noenforce_kernel_ipv6_support"), CMDLINE_FABRIC_TCPXO, "v1.0.18", 1,
			  CMDLINE_SEVERITY_FAIL, "--noenforce_kernel_ipv6_support: daemons v1.0.18 and later do not "
			  "define this flag and exit at start on an unknown flag; remove it");
	/* Unknown version (a process, an unknown digest, a non-version tag): a warning that says why. */
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support=false"), CMDLINE_FABRIC_TCPXO, NULL, 1,
			  CMDLINE_SEVERITY_WARN, "--enforce_kernel_ipv6_support=false: daemons v1.0.18 and later do "
			  "not define this flag and exit at start on an unknown flag (this daemon's version is "
			  "unknown); remove it");
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support"), CMDLINE_FABRIC_TCPXO, "latest", 1,
			  CMDLINE_SEVERITY_WARN, "--enforce_kernel_ipv6_support: daemons v1.0.18 and later do not "
			  "define this flag and exit at start on an unknown flag (this daemon's version is unknown); "
			  "remove it");
	/* v1.0.3 .. v1.0.17: Google's own startup script passed it. */
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support=false"), CMDLINE_FABRIC_TCPXO, "v1.0.17", 0, 0, "");
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support=false"), CMDLINE_FABRIC_TCPXO, "v1.0.6-sctp", 0,
			  0, "");
	/* Versions as tags write them. */
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support"), CMDLINE_FABRIC_TCPXO, "1.0.18", 1,
			  CMDLINE_SEVERITY_FAIL, "--enforce_kernel_ipv6_support: daemons v1.0.18 and later do not "
			  "define this flag and exit at start on an unknown flag; remove it");
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support"), CMDLINE_FABRIC_TCPXO, "v1.1", 1,
			  CMDLINE_SEVERITY_FAIL, "--enforce_kernel_ipv6_support: daemons v1.0.18 and later do not "
			  "define this flag and exit at start on an unknown flag; remove it");
	check_findings_at(ARGV("x", "--enforce_kernel_ipv6_support"), CMDLINE_FABRIC_TCPXO, "v1.0.018x", 1,
			  CMDLINE_SEVERITY_WARN, "--enforce_kernel_ipv6_support: daemons v1.0.18 and later do not "
			  "define this flag and exit at start on an unknown flag (this daemon's version is unknown); "
			  "remove it");
	/* A fatal finding beside a warning: the worst wins, both are listed in order. */
	check_findings_at(ARGV("x", "--num_nics=8", "--enforce_kernel_ipv6_support=false"), CMDLINE_FABRIC_TCPXO,
			  "v1.0.21", 2, CMDLINE_SEVERITY_FAIL, "--num_nics=8: " NUM_NICS_RETIRED
			  "; --enforce_kernel_ipv6_support=false: daemons v1.0.18 and later do not define this flag "
			  "and exit at start on an unknown flag; remove it");
}

/* Google's A3 High daemon: /tcpgpudmarxd/build/app/tcpgpudmarxd and its own flags. */
static void test_findings_tcpx(void **state)
{
	const char *const google[] = { "/tcpgpudmarxd/build/app/tcpgpudmarxd", "--gpu_nic_preset", "a3vm",
				       "--gpu_shmem_type", "fd", "--uds_path", "/run/tcpx", "--setup_param",
				       "\\\"--verbose 128 2 0 \\\"" };
	const char *const script[] = { "bash", "-c", "set -x; /tcpgpudmarxd/build/app/tcpgpudmarxd --gpu_nic_preset "
				       "a3vm  --gpu_shmem_type fd --uds_path /run/tcpx --setup_param \"--verbose 128 2 0\" "
				       "& while [ ! -f /run/tcpx/terminated ]; do sleep 10; done;" };
	const char *const slurm[] = { "tcpgpudmarxd", "--setup_param", "\"--verbose 128 2 0\"", "--gpu_nic_preset",
				      "manual", "--gpu_nic_topology", "/tmp/topo.pb", "--gpu_shmem_type", "fd",
				      "--uds_path", "/run/tcpx" };

	check_findings_at(google, 9, CMDLINE_FABRIC_TCPX, "v2.0.12", 0, 0, "");
	check_findings_at(script, 3, CMDLINE_FABRIC_TCPX, "v2.0.11", 0, 0, "");
	check_findings_at(slurm, 11, CMDLINE_FABRIC_TCPX, NULL, 0, 0, "");
	check_findings_at(ARGV("tcpgpudmarxd", "--gpu_nic_preset=manual", "--gpu_shmem_type=fd", "--uds_path=/x"),
			  CMDLINE_FABRIC_TCPX, NULL, 1, CMDLINE_SEVERITY_WARN,
			  "--gpu_nic_preset manual without --gpu_nic_topology: the daemon has no GPU-NIC map");
	check_findings_at(ARGV("tcpgpudmarxd", "--gpu_nic_preset", "a2vm", "--gpu_shmem_type", "dmabuf",
			       "--uds_path", "/run/tcpx"), CMDLINE_FABRIC_TCPX, "v2.0.12", 2, CMDLINE_SEVERITY_WARN,
			  "--gpu_nic_preset a2vm: A3 High uses --gpu_nic_preset a3vm; --gpu_shmem_type dmabuf: the "
			  "TCPX plugin shares GPU memory with --gpu_shmem_type fd");
	check_findings_at(ARGV("tcpgpudmarxd"), CMDLINE_FABRIC_TCPX, "v2.0.12", 3, CMDLINE_SEVERITY_WARN,
			  "no --gpu_nic_preset: Google's A3 High manifests run tcpgpudmarxd --gpu_nic_preset a3vm; "
			  "no --gpu_shmem_type: the TCPX plugin shares GPU memory with --gpu_shmem_type fd; "
			  "no --uds_path: the workers reach the daemon through the socket directory it names "
			  "(Google's manifests: --uds_path /run/tcpx on a hostPath both mount)");
	/* TCPXO's flags on the TCPX daemon, and TCPX's rules never fire for TCPXO. */
	check_findings_at(ARGV("tcpgpudmarxd", "--gpu_nic_preset", "a3vm", "--gpu_shmem_type", "fd", "--uds_path",
			       "/run/tcpx", "--num_hops=2"), CMDLINE_FABRIC_TCPX, "v2.0.12", 1, CMDLINE_SEVERITY_WARN,
			  "--num_hops=2: a flag of the TCPXO daemon (RxDM); the TCPX daemon tcpgpudmarxd does not take it");
	check_findings_at(google, 9, CMDLINE_FABRIC_TCPXO, "v1.0.21", 0, 0, "");
}

/* Findings are appended; a failed call leaves what was there. */
static void test_findings_append(void **state)
{
	struct cmdline_findings f = { 0 };
	struct strbuf sb = { 0 };

	assert_int_equal(cmdline_daemon_findings(ARGV("x", "--num_nics=1"), CMDLINE_FABRIC_TCPXO, NULL, &f), 1);
	assert_int_equal(cmdline_daemon_findings(ARGV("x", "--enforce_kernel_ipv6_support"), CMDLINE_FABRIC_TCPXO,
						 "v1.0.21", &f), 1);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.v[0].severity, CMDLINE_SEVERITY_WARN);
	assert_int_equal(f.v[1].severity, CMDLINE_SEVERITY_FAIL);
	assert_int_equal(cmdline_findings_join(&f, CMDLINE_SEVERITY_FAIL, &sb), 1);
	assert_non_null(strstr(sb.s, "--enforce_kernel_ipv6_support: "));
	assert_null(strstr(sb.s, "num_nics"));
	strbuf_free(&sb);
	cmdline_findings_free(&f);
	cmdline_findings_free(NULL);
	assert_int_equal(cmdline_findings_worst(NULL), 0);
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
	const char *nested[] = { "sh", "-c", "sh -c --enforce_kernel_ipv6_support" };
	struct cmdline_findings f = { 0 };

	assert_int_equal(cmdline_daemon_findings(spec, 3, CMDLINE_FABRIC_TCPXO, "v1.0.21", &f), 3);
	assert_non_null(strstr(f.v[0].text, "--num_nics=8: --num_nics was retired in daemon v1.0.20"));
	assert_non_null(strstr(f.v[1].text, "--uid=: --uid was retired"));
	assert_non_null(strstr(f.v[2].text, "--alsologtostderr: --alsologtostderr was retired"));
	cmdline_findings_free(&f);
	assert_int_equal(cmdline_daemon_findings(clean, 3, CMDLINE_FABRIC_TCPXO, "v1.0.21", &f), 0);
	/* "-c" is only a script for a shell; elsewhere the next argument is an ordinary flag. */
	assert_int_equal(cmdline_daemon_findings(not_shell, 3, CMDLINE_FABRIC_TCPXO, NULL, &f), 1);
	cmdline_findings_free(&f);
	/* Words of a script inside a script are examined too (bounded depth). */
	assert_int_equal(cmdline_daemon_findings(nested, 3, CMDLINE_FABRIC_TCPXO, "v1.0.21", &f), 1);
	assert_int_equal(f.v[0].severity, CMDLINE_SEVERITY_FAIL);
	cmdline_findings_free(&f);
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
		cmocka_unit_test(test_findings_retired),
		cmocka_unit_test(test_findings_enforce_ipv6),
		cmocka_unit_test(test_findings_tcpx),
		cmocka_unit_test(test_findings_append),
		cmocka_unit_test(test_findings_shell_script),
		cmocka_unit_test(test_format),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
