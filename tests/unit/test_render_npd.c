/* test_render_npd.c - --once -o npd: one line of at most 80 bytes, the verdict and the first failed check. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/render/render_npd.h"

static char *npd(const char *summary, const char *why)
{
	struct profile p = { .summary = (char *)summary };
	struct strbuf sb = { 0 };
	char *s;

	assert_int_equal(render_npd(summary || !why ? &p : NULL, why, &sb), 0);
	s = strbuf_take(&sb);
	/* One line, its newline last, at most 80 bytes before it: what NPD's max_output_length keeps whole. */
	assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
	assert_true(strlen(s) - 1 <= RENDER_NPD_MAX);
	return s;
}

static void test_summary_whole(void **state)
{
	char *s = npd("tcpxo: not ready: links: eth3 is down (admin down)", NULL);

	assert_string_equal(s, "tcpxo: not ready: links: eth3 is down (admin down)\n");
	free(s);
	s = npd("tcpxo: ready (8/8 GPUs paired, 13 checks, 4 skipped)", NULL);
	assert_string_equal(s, "tcpxo: ready (8/8 GPUs paired, 13 checks, 4 skipped)\n");
	free(s);
}

/* Exactly 80 bytes stays whole; 81 is cut to 77 and "…", so the check's name always survives. */
static void test_cut_at_80(void **state)
{
	char eighty[81], *s;

	memset(eighty, 'x', 80);
	memcpy(eighty, "tcpxo: not ready: aperture-devices: ", 36);
	eighty[80] = '\0';
	s = npd(eighty, NULL);
	assert_int_equal(strlen(s), 81);
	assert_memory_equal(s, eighty, 80);
	free(s);
	s = npd("tcpxo: not ready: aperture-devices: 0000:00:10.0: 5 resource files not readable and "
		"writable by all (resource0 0644)", NULL);
	assert_string_equal(s, "tcpxo: not ready: aperture-devices: 0000:00:10.0: 5 resource files not readab…\n");
	assert_int_equal(strlen(s) - 1, 80);
	free(s);
}

/* A cut never splits a UTF-8 character; hostile control characters (a newline too) become '?'. */
static void test_hostile_text(void **state)
{
	char text[200], *s;

	snprintf(text, sizeof(text), "tcpxo: not ready: links: %s", "eth3\nis\tdown é é é é é é é é é é é é é é é é é é é é é é é é é");
	s = npd(text, NULL);
	assert_non_null(strstr(s, "eth3?is?down"));
	assert_int_equal(strcmp(s + strlen(s) - 4, "…\n"), 0);
	/* Every byte before "…" is whole: no 0xc3 without its 0xa9. */
	for (const char *p = s; p < s + strlen(s) - 4; p++)
		if ((unsigned char)*p == 0xc3)
			assert_int_equal((unsigned char)p[1], 0xa9);
	free(s);
}

/* The exit code is 2 for a reason the checks do not carry: the line says unknown and why. */
static void test_unknown(void **state)
{
	char *s = npd("tcpxo: ready (8/8 GPUs paired, 13 checks, 4 skipped)", "API not read: HTTP 403 Forbidden");

	assert_string_equal(s, "tcpxo: unknown: API not read: HTTP 403 Forbidden\n");
	free(s);
	s = npd(NULL, "the agent could not start (its stderr says why)");
	assert_string_equal(s, "tcpxo: unknown: the agent could not start (its stderr says why)\n");
	free(s);
	s = npd(NULL, NULL);
	assert_string_equal(s, "tcpxo: unknown: no verdict\n");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary_whole),
		cmocka_unit_test(test_cut_at_80),
		cmocka_unit_test(test_hostile_text),
		cmocka_unit_test(test_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
