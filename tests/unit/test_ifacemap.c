/* test_ifacemap.c - the renderer's mapping rules, parsing and printing. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/checks/ifacemap.h"
#include "report/render/render_mapping.h"

static void good(struct profile_iface *v)
{
	for (int i = 0; i < 8; i++) {
		snprintf(v[i].name, sizeof(v[i].name), "eth%d", i + 1);
		snprintf(v[i].network, sizeof(v[i].network), "gpu-nic-%d", i);
	}
}

static void expect_invalid(struct profile_iface *v, size_t n, const char *needle)
{
	struct strbuf why = { 0 };

	assert_int_equal(ifacemap_validate(v, n, &why), -EINVAL);
	if (!strstr(why.s, needle))
		fail_msg("'%s' not in '%s'", needle, why.s);
	strbuf_free(&why);
}

static void test_valid(void **state)
{
	struct profile_iface v[8];

	good(v);
	assert_int_equal(ifacemap_validate(v, 8, NULL), 0);
}

static void test_rules(void **state)
{
	struct profile_iface v[9];

	good(v);
	expect_invalid(v, 7, "7 entries, the renderer needs exactly 8");
	good(v);
	strcpy(v[2].network, "default");
	expect_invalid(v, 8, "eth3 is on network 'default'");
	good(v);
	strcpy(v[3].network, "gpu-nic-0");
	expect_invalid(v, 8, "eth1 and eth4 share network 'gpu-nic-0'");
	good(v);
	strcpy(v[4].network, "GPU-nic-4");
	expect_invalid(v, 8, "is not a DNS label");
	good(v);
	strcpy(v[4].network, "gpu-nic-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
	expect_invalid(v, 8, "longer than 41 characters");
	good(v);
	strcpy(v[7].name, "eth1");
	expect_invalid(v, 8, "eth1 appears more than once");
}

/* Google names the Networks vpc1..vpc8: a valid mapping; only AICR's renderer refuses the names. */
static void test_renderer_names(void **state)
{
	struct profile_iface v[8];
	struct strbuf why = { 0 };

	good(v);
	assert_int_equal(ifacemap_renderer_names(v, 8, &why), 0);
	assert_null(why.s);
	for (int i = 0; i < 8; i++)
		snprintf(v[i].network, sizeof(v[i].network), "vpc%d", i + 1);
	assert_int_equal(ifacemap_validate(v, 8, NULL), 0);
	assert_int_equal(ifacemap_renderer_names(v, 8, NULL), -EINVAL);
	assert_int_equal(ifacemap_renderer_names(v, 8, &why), -EINVAL);
	assert_string_equal(why.s, "AICR's renderer requires 'gpu-nic' in each Network name: 'vpc1', 'vpc2', "
			    "'vpc3', 'vpc4', 'vpc5', 'vpc6', 'vpc7', 'vpc8' do not contain it");
	strbuf_free(&why);
	good(v);
	strcpy(v[4].network, "gvnic-5");
	assert_int_equal(ifacemap_renderer_names(v, 8, &why), -EINVAL);
	assert_string_equal(why.s, "AICR's renderer requires 'gpu-nic' in each Network name: 'gvnic-5' does not "
			    "contain it");
	strbuf_free(&why);
}

static void test_missing_named(void **state)
{
	struct profile_iface v[8];

	good(v);
	strcpy(v[5].name, "eth9");
	expect_invalid(v, 8, "interface 'eth9' is not one of eth1..eth8");
	expect_invalid(v, 8, "eth6 is missing");
}

static void test_parse_print(void **state)
{
	const char *t = "[{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"},{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"}]";
	struct profile_iface *v;
	size_t n;
	char *s;

	assert_int_equal(ifacemap_parse(t, strlen(t), &v, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(v[0].name, "eth1");
	s = render_mapping_json(v, n);
	assert_string_equal(s, "[{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"},{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"}]");
	free(s);
	free(v);
	assert_int_equal(ifacemap_parse("{}", 2, &v, &n), -EINVAL);
	assert_int_equal(ifacemap_parse("[{\"interfaceName\":1}]", 21, &v, &n), -EINVAL);
	assert_int_equal(ifacemap_parse("[", 1, &v, &n), -EINVAL);
}

static void test_sort_numeric(void **state)
{
	struct profile_iface v[3] = { { "eth10", "a" }, { "eth2", "b" }, { "eth1", "c" } };

	ifacemap_sort(v, 3);
	assert_string_equal(v[0].name, "eth1");
	assert_string_equal(v[1].name, "eth2");
	assert_string_equal(v[2].name, "eth10");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_valid),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_renderer_names),
		cmocka_unit_test(test_missing_named),
		cmocka_unit_test(test_parse_print),
		cmocka_unit_test(test_sort_numeric),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
