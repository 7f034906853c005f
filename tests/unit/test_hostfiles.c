/* test_hostfiles.c - lib64 name rules, NCCL versions, and quoting of host-supplied names. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "probes/host/hostfiles.h"

static void test_relevant(void **state)
{
	assert_true(hostfiles_relevant("libcuda.so"));
	assert_true(hostfiles_relevant("libcuda.so.535.104.05"));
	assert_true(hostfiles_relevant("libnvidia-ml.so.1"));
	assert_true(hostfiles_relevant("libnccl-net.so"));
	assert_true(hostfiles_relevant("nccl-env-profile.sh"));
	assert_true(hostfiles_relevant("libnccl.so.2.28.7"));
	assert_true(hostfiles_relevant("a3plus_guest_config.textproto"));
	/* Every NCCL, plugin, tuner and profile name is kept: a release table may name any of them. */
	assert_true(hostfiles_relevant("libnccl.so"));
	assert_true(hostfiles_relevant("libnccl.so.2"));
	assert_true(hostfiles_relevant("libnccl-profiler-comma.so"));
	assert_true(hostfiles_relevant("nccl-env-profile-simple.sh"));
	assert_true(hostfiles_relevant("a3plus_tuner_config_simple.textproto"));
	assert_false(hostfiles_relevant("libnvidia-encode.so.1"));
	assert_false(hostfiles_relevant("libGPUViz.so"));
	assert_false(hostfiles_relevant("nccl-env-profile.sh.swp"));
	assert_false(hostfiles_relevant(".libnccl.so.2"));
	assert_false(hostfiles_relevant(""));
}

static void test_resource(void **state)
{
	assert_true(hostfiles_is_resource("resource0"));
	assert_true(hostfiles_is_resource("resource4"));
	assert_true(hostfiles_is_resource("resource2_wc"));
	assert_true(hostfiles_is_resource("resource12"));
	assert_false(hostfiles_is_resource("resource"));
	assert_false(hostfiles_is_resource("resource_wc"));
	assert_false(hostfiles_is_resource("resource4x"));
	assert_false(hostfiles_is_resource("resource4_wcx"));
	assert_false(hostfiles_is_resource("rom"));
}

static void test_find(void **state)
{
	struct obs_host_file f[] = {
		{ "libcuda.so", OBS_FILE_BROKEN },
		{ "libcuda.so.1", OBS_FILE_REGULAR },
		{ "libnccl-net.so", OBS_FILE_DIR },
	};
	const char *name = NULL;

	assert_int_equal(hostfiles_find(f, 3, "libcuda.so*", &name), OBS_FILE_REGULAR);
	assert_string_equal(name, "libcuda.so.1");
	assert_int_equal(hostfiles_find(f, 1, "libcuda.so*", &name), OBS_FILE_BROKEN);
	assert_string_equal(name, "libcuda.so");
	assert_int_equal(hostfiles_find(f, 3, "libnccl-net.so", &name), OBS_FILE_DIR);
	name = NULL;
	assert_int_equal(hostfiles_find(f, 3, "libnvidia-ml.so*", &name), OBS_FILE_ABSENT);
	assert_null(name);
	assert_int_equal(hostfiles_find(NULL, 0, "x", NULL), OBS_FILE_ABSENT);
}

static void test_nccl_version(void **state)
{
	char v[16];

	assert_int_equal(hostfiles_nccl_version("libnccl.so.2.28.7", v, sizeof(v)), 0);
	assert_string_equal(v, "2.28.7");
	assert_int_equal(hostfiles_nccl_version("libnccl.so.2.21", v, sizeof(v)), 0);
	assert_string_equal(v, "2.21");
	assert_int_equal(hostfiles_nccl_version("libnccl.so.2", v, sizeof(v)), -EINVAL);
	assert_int_equal(hostfiles_nccl_version("libnccl.so.2.x", v, sizeof(v)), -EINVAL);
	assert_int_equal(hostfiles_nccl_version("libnccl.so.2..7", v, sizeof(v)), -EINVAL);
	assert_int_equal(hostfiles_nccl_version("libnccl.so.2.28.", v, sizeof(v)), -EINVAL);
	assert_int_equal(hostfiles_nccl_version("libnccl-net.so", v, sizeof(v)), -EINVAL);
	assert_int_equal(hostfiles_nccl_version("libnccl.so.2.28.7", v, 6), -EINVAL);
	assert_int_equal(hostfiles_nccl_version("libnccl.so.2.9999999.1", v, sizeof(v)), -EINVAL);
}

static void test_version_cmp(void **state)
{
	assert_true(hostfiles_version_cmp("2.28.7", "2.100.0") < 0);
	assert_true(hostfiles_version_cmp("2.28.7", "2.28.7") == 0);
	assert_true(hostfiles_version_cmp("2.28", "2.28.1") < 0);
	assert_true(hostfiles_version_cmp("2.28.1", "2.28") > 0);
	assert_true(hostfiles_version_cmp("3.0", "2.99.99") > 0);
}

static void test_nccl_versions(void **state)
{
	struct obs_host_file f[] = {
		{ "libnccl.so.2.28.7", OBS_FILE_REGULAR },
		{ "libnccl.so.2", OBS_FILE_REGULAR },
		{ "libnccl.so.2.100.1", OBS_FILE_REGULAR },
		{ "libnccl.so.2.21.5", OBS_FILE_REGULAR },
		{ "libnccl.so.2.30.1", OBS_FILE_BROKEN },
	};
	struct strbuf sb = {0};

	assert_int_equal(hostfiles_nccl_versions(f, 5, &sb), 3);
	assert_string_equal(sb.s, "2.21.5, 2.28.7, 2.100.1");
	strbuf_free(&sb);
	assert_int_equal(hostfiles_nccl_versions(f, 0, &sb), 0);
	assert_null(sb.s);
}

static void test_quote(void **state)
{
	char b[64];

	obs_host_quote("0000:00:10.0", b, sizeof(b));
	assert_string_equal(b, "0000:00:10.0");
	obs_host_quote("a b", b, sizeof(b));
	assert_string_equal(b, "\"a b\"");
	obs_host_quote("a\nb\t\"\\\x01\xff", b, sizeof(b));
	assert_string_equal(b, "\"a\\nb\\t\\\"\\\\\\x01\\xff\"");
	obs_host_quote("\r\x7f", b, sizeof(b));
	assert_string_equal(b, "\"\\r\\x7f\"");
	obs_host_quote("", b, sizeof(b));
	assert_string_equal(b, "");
	obs_host_quote("0123456789012345678901234567890123456789", b, 16);
	assert_string_equal(b, "0123456789...");
	obs_host_quote("\n\n\n\n\n\n\n\n", b, 16);
	assert_string_equal(b, "\"\\n\\n\\n\\n...\"");
	assert_true(strlen(b) < 16);
	obs_host_quote("abc", b, 4);
	assert_string_equal(b, "");
}

static void test_version_cmp_non_numeric(void **state)
{
	/* Terminates and orders on text the parser would never pass, too (found by fuzzing review). */
	assert_int_equal(hostfiles_version_cmp("a", "a"), 0);
	assert_int_equal(hostfiles_version_cmp("1a", "1b"), -1);
	assert_int_equal(hostfiles_version_cmp("x.1", "x.1"), 0);
	assert_int_equal(hostfiles_version_cmp("2.28.7", "2.28.10"), -1);
	assert_int_equal(hostfiles_version_cmp("2.28.7", "2.28.7"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_relevant),
		cmocka_unit_test(test_resource),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_nccl_version),
		cmocka_unit_test(test_version_cmp),
		cmocka_unit_test(test_nccl_versions),
		cmocka_unit_test(test_quote),
		cmocka_unit_test(test_version_cmp_non_numeric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
