/* test_strbuf.c - the growable string: formatted appends, byte appends (the HTTP client's bodies), take. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
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

/* The one growth rule: @first at first, doubled when full, untouched while there is room. */
static void test_grow_array(void **state)
{
	size_t cap = 0, n;
	int *v = NULL;

	(void)state;
	for (n = 0; n < 40; n++) {
		assert_int_equal(strbuf_grow_array(&v, &cap, n, sizeof(*v), 4), 0);
		assert_true(n < cap);
		v[n] = (int)n * 3;
	}
	assert_int_equal(cap, 64);      /* 4, 8, 16, 32, 64 */
	for (n = 0; n < 40; n++)
		assert_int_equal(v[n], (int)n * 3);
	assert_int_equal(strbuf_grow_array(&v, &cap, 10, sizeof(*v), 4), 0);
	assert_int_equal(cap, 64);
	/* A size whose doubling overflows: refused, the array kept. */
	cap = SIZE_MAX / 2 + 1;
	assert_int_equal(strbuf_grow_array(&v, &cap, cap, 2, 4), -ENOMEM);
	assert_int_equal(cap, SIZE_MAX / 2 + 1);
	assert_int_equal(v[39], 117);
	free(v);
}

/* Records led by their name sort by it, and are found by the name alone. */
static void test_cmp_names(void **state)
{
	struct rec {
		char name[8];
		int v;
	} r[] = { { "eth1", 1 }, { "eth10", 10 }, { "eth0", 0 }, { "a", -1 } };
	const struct rec *hit;

	(void)state;
	qsort(r, 4, sizeof(r[0]), strbuf_cmp_names);
	assert_string_equal(r[0].name, "a");
	assert_string_equal(r[1].name, "eth0");
	assert_string_equal(r[2].name, "eth1");
	assert_string_equal(r[3].name, "eth10");
	hit = bsearch("eth10", r, 4, sizeof(r[0]), strbuf_cmp_names);
	assert_non_null(hit);
	assert_int_equal(hit->v, 10);
	assert_null(bsearch("eth2", r, 4, sizeof(r[0]), strbuf_cmp_names));
}

static void printable_is(const char *in, size_t max, const char *want)
{
	char *out = strbuf_printable(in, max);

	assert_non_null(out);
	if (strcmp(out, want) != 0)
		fail_msg("'%s' (max %zu): got '%s', want '%s'", in, max, out, want);
	free(out);
}

/*
 * Issue 30: hostile text from annotations is made printable for every human output: C0 controls and
 * DEL as before, and now C1 controls encoded in UTF-8 (U+009B CSI, U+009D OSC), the marks that
 * reorder what a terminal shows (U+202E and the rest), and bytes that are not UTF-8; other UTF-8 passes.
 */
static void test_printable(void **state)
{
	(void)state;
	printable_is("links", 64, "links");
	printable_is("a\tb\x7f" "c", 64, "a?b?c");
	printable_is("x\xc2\x9b" "31m", 64, "x?31m");                 /* U+009B CSI */
	printable_is("\xc2\x9d" "0;title\xc2\x9c", 64, "?0;title?");    /* OSC ... ST */
	printable_is("\xc2\x80\xc2\x9f\xc2\xa0", 64, "??\xc2\xa0");     /* U+0080, U+009F; U+00A0 is printable */
	printable_is("evil\xe2\x80\xae" "gnp.exe", 64, "evil?gnp.exe"); /* U+202E RIGHT-TO-LEFT OVERRIDE */
	printable_is("\xe2\x80\xaa\xe2\x80\xab\xe2\x80\xac\xe2\x80\xad", 64, "????");   /* U+202A-U+202D */
	printable_is("\xe2\x81\xa6\xe2\x81\xa7\xe2\x81\xa8\xe2\x81\xa9", 64, "????");   /* U+2066-U+2069 isolates */
	printable_is("\xe2\x80\x8e\xe2\x80\x8f\xd8\x9c", 64, "???");   /* LRM, RLM, ALM */
	printable_is("\xe2\x80\x8d\xe2\x81\xa5\xe2\x80\xaf", 64, "\xe2\x80\x8d\xe2\x81\xa5\xe2\x80\xaf");  /* neighbours pass */
	printable_is("caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80", 64, "caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80");
	printable_is("\x9b" "31m", 64, "?31m");                        /* a lone C1 byte: not UTF-8 */
	printable_is("\xc0\xaf\xed\xa0\x80\xf4\x90\x80\x80", 64, "?????????");  /* overlong, surrogate, > U+10FFFF */
	printable_is("ab\xe2\x80", 64, "ab??");                        /* cut inside a character */
	/* Cut at a character boundary, never inside what is replaced. */
	printable_is("abcdef", 3, "abc…");
	printable_is("ab\xe2\x80\xae" "cd", 3, "ab…");
	printable_is("ab\xe2\x80\xae" "cd", 5, "ab?…");
}

/* Into a buffer: cut so that the "…" and the NUL fit; NULL is "". */
static void test_printable_into(void **state)
{
	char small[7], dst[16];

	(void)state;
	strbuf_printable_into(small, sizeof(small), "abcdef");
	assert_string_equal(small, "abc…");
	strbuf_printable_into(small, sizeof(small), "ab\x1b" "c");
	assert_string_equal(small, "ab?…");
	strbuf_printable_into(dst, sizeof(dst), "ab\x1b" "c");
	assert_string_equal(dst, "ab?c");
	strbuf_printable_into(dst, sizeof(dst), NULL);
	assert_string_equal(dst, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_appendf_and_take),
		cmocka_unit_test(test_appendn_bytes),
		cmocka_unit_test(test_grow_array),
		cmocka_unit_test(test_cmp_names),
		cmocka_unit_test(test_printable),
		cmocka_unit_test(test_printable_into),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
