/* test_strbuf.c - the growable string: formatted appends, byte appends (the HTTP client's bodies), take. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "probes/model/strbuf.h"

static void test_appendf_and_take(void **state)
{
	struct strbuf sb = { 0 };
	char *s;

	assert_int_equal(strbuf_appendf(&sb, "%s=%d", "a", 1), 0);
	assert_int_equal(strbuf_append(&sb, ";"), 0);
	s = strbuf_take(&sb);
	assert_string_equal(s, "a=1;");
	assert_null(sb.s);
	free(s);
	s = strbuf_take(&sb);
	assert_string_equal(s, "");
	free(s);
}

static void test_appendn_bytes(void **state)
{
	struct strbuf sb = { 0 };
	char big[5000];

	assert_int_equal(strbuf_appendn(&sb, "", 0), 0);
	assert_int_equal(sb.len, 0);
	assert_int_equal(strbuf_appendn(&sb, "ab\0cd", 5), 0);
	assert_int_equal(sb.len, 5);
	assert_memory_equal(sb.s, "ab\0cd", 6);         /* NUL-terminated after the bytes */
	memset(big, 'x', sizeof(big));
	assert_int_equal(strbuf_appendn(&sb, big, sizeof(big)), 0);    /* grows past any first capacity */
	assert_int_equal(sb.len, 5 + sizeof(big));
	assert_int_equal(sb.s[sb.len], '\0');
	assert_true(sb.cap > sb.len);
	strbuf_free(&sb);
	assert_null(sb.s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appendf_and_take),
		cmocka_unit_test(test_appendn_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
