/* test_linebuf.c - a stream cut into lines: split and joined chunks, the limit per line. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/linebuf.h"

static void feed(struct linebuf *lb, const char *s)
{
	assert_int_equal(linebuf_feed(lb, s, strlen(s)), 0);
}

static void next_is(struct linebuf *lb, const char *want)
{
	const char *line;
	size_t len;

	assert_int_equal(linebuf_next(lb, &line, &len), 1);
	assert_string_equal(line, want);
	assert_int_equal(len, strlen(want));
}

static void next_none(struct linebuf *lb)
{
	const char *line;
	size_t len;

	assert_int_equal(linebuf_next(lb, &line, &len), 0);
}

static void test_linebuf_split_and_joined(void **state)
{
	struct linebuf lb;

	linebuf_init(&lb, 0);
	next_none(&lb);
	feed(&lb, "{\"a\"");                    /* a line across three pieces */
	next_none(&lb);
	assert_int_equal(linebuf_partial(&lb), 4);
	feed(&lb, ":1");
	next_none(&lb);
	feed(&lb, "}\n{\"b\":2}\r\n{\"c\"");    /* the end of one, a whole one, the start of one */
	next_is(&lb, "{\"a\":1}");
	next_is(&lb, "{\"b\":2}");
	next_none(&lb);
	assert_int_equal(linebuf_partial(&lb), 4);
	feed(&lb, ":3}\n\n");
	next_is(&lb, "{\"c\":3}");
	next_is(&lb, "");                       /* an empty line is a line: the parser refuses it */
	next_none(&lb);
	assert_int_equal(linebuf_held(&lb), 0);
	assert_int_equal(linebuf_partial(&lb), 0);
	linebuf_free(&lb);
	linebuf_free(&lb);
	linebuf_free(NULL);
}

static void test_linebuf_limit(void **state)
{
	struct linebuf lb;
	char big[64];

	linebuf_init(&lb, 10);
	feed(&lb, "0123456789\n");              /* exactly the limit */
	next_is(&lb, "0123456789");
	feed(&lb, "01234");
	assert_int_equal(linebuf_feed(&lb, "567890", 6), -EMSGSIZE);    /* the open line grows past it */
	linebuf_free(&lb);

	/* A complete over-long line inside one piece: skipped with -EMSGSIZE, the next still comes. */
	linebuf_init(&lb, 10);
	feed(&lb, "ok\n0123456789abc\nafter\n");
	next_is(&lb, "ok");
	{
		const char *line;
		size_t len;

		assert_int_equal(linebuf_next(&lb, &line, &len), -EMSGSIZE);
	}
	next_is(&lb, "after");
	linebuf_free(&lb);

	/* Many lines through a small buffer: memory is reused, not grown without end. */
	linebuf_init(&lb, 100);
	for (int i = 0; i < 10000; i++) {
		snprintf(big, sizeof(big), "line-%d\n", i);
		feed(&lb, big);
		snprintf(big, sizeof(big), "line-%d", i);
		next_is(&lb, big);
	}
	assert_true(lb.sb.cap <= 8192);
	linebuf_free(&lb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_linebuf_split_and_joined),
		cmocka_unit_test(test_linebuf_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
