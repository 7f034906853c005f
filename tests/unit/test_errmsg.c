/* test_errmsg.c - the one error-message shape: set, cut, prefix. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "probes/model/errmsg.h"

static void test_set_returns_ret_and_formats(void **state)
{
	char err[32] = "";

	assert_int_equal(errmsg_set(err, sizeof(err), -EINVAL, "bad %s %d", "value", 7), -EINVAL);
	assert_string_equal(err, "bad value 7");
}

static void test_set_cuts_and_tolerates_null(void **state)
{
	char err[8];

	assert_int_equal(errmsg_set(err, sizeof(err), -EIO, "%s", "0123456789"), -EIO);
	assert_string_equal(err, "0123456");
	assert_int_equal(errmsg_set(NULL, 10, -ENOENT, "x"), -ENOENT);
	err[0] = 'k';
	assert_int_equal(errmsg_set(err, 0, 0, "x"), 0);
	assert_int_equal(err[0], 'k');
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_returns_ret_and_formats),
		cmocka_unit_test(test_set_cuts_and_tolerates_null),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
