/* test_timetext.c - the one reader of the API's RFC 3339 times (startedAt, lastHeartbeatTime). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "probes/model/timetext.h"

#define NOW 1796428800LL        /* 2026-12-05T00:00:00Z */

static void test_accepted(void **state)
{
	static const struct { const char *s; long long v; } cases[] = {
		{ "2026-12-02T14:31:17Z", 1796221877LL },
		{ "2026-12-02T14:31:17.123456Z", 1796221877LL },
		{ "1970-01-01T00:00:00Z", 0 },
		{ "2028-02-29T12:00:00Z", 1835438400LL },
		{ "2000-02-29T12:00:00Z", 951825600LL },
		{ "2026-12-05T01:30:00+01:30", NOW },
		{ "2026-12-04T23:00:00-01:00", NOW },
		{ "2024-02-29T00:00:00Z", 1709164800LL },
		{ "2026-12-05t00:00:00z", NOW },
		{ "2026-12-05T00:00:60Z", NOW + 59 },
		{ "2026-12-05T00:00:00.123456789Z", NOW },
		{ "2026-12-04T11:00:00.5+01:00", 1796378400LL },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long long v = -7;

		if (timetext_parse(cases[i].s, &v) != 0 || v != cases[i].v)
			fail_msg("'%s': %lld, want %lld", cases[i].s, v, cases[i].v);
	}
}

/* Refused, and the result untouched. */
static void test_refused(void **state)
{
	static const char *const bad[] = {
		"",
		"2026-12-02",
		"2026-12-02T14:31:17",
		"2026-12-02 14:31:17Z",
		"2026-13-02T14:31:17Z",
		"2026-12-32T14:31:17Z",
		"2026-12-02T24:31:17Z",
		"2026-12-02T14:60:17Z",
		"2026-12-02T14:31:61Z",
		"1969-12-31T23:59:59Z",
		"2026-12-02T14:31:17.Z",
		"2026-12-02T14:31:17Zx",
		"+026-12-02T14:31:17Z",
		" 2026-12-02T14:31:17Z",
		"2026-12-02T14:31:17.1234567890Z",
		"x",
		"2026-02-29T00:00:00Z",
		"2100-02-29T00:00:00Z",
		"2026-04-31T00:00:00Z",
		"2026-12-05T00:00:00+0100",
		"2026-12-05T00:00:00+24:00",
		"2026-12-05T00:00:00+01:60",
		"2026-12-05T00:00:00+01:00x",
		"2026-12-05T00:00:00-1:00",
	};
	long long v = 42;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (timetext_parse(bad[i], &v) != -EINVAL || v != 42)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(timetext_parse(NULL, &v), -EINVAL);
}

/* Only 64 bytes are looked at: a time followed by a long tail is refused, not read past. */
static void test_bounded(void **state)
{
	char s[200];
	long long v = 42;

	(void)state;
	memset(s, '0', sizeof(s) - 1);
	s[sizeof(s) - 1] = '\0';
	memcpy(s, "2026-12-05T00:00:00.", 20);
	assert_int_equal(timetext_parse(s, &v), -EINVAL);
	assert_int_equal(v, 42);
}

static void test_duration(void **state)
{
	static const struct {
		long long s;
		const char *coarse, *fine;
	} cases[] = {
		{ -1, "-", "-" },
		{ 0, "0s", "0s" },
		{ 119, "119s", "119s" },
		{ 120, "2m", "2m" },
		{ 7199, "119m", "119m" },
		{ 7200, "2h", "2h00m" },
		{ 7500, "2h", "2h05m" },
		{ 48 * 3600 - 1, "47h", "47h59m" },
		{ 48 * 3600, "2d", "48h00m" },
	};
	char b[32], small[3];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		timetext_duration(cases[i].s, TIMETEXT_COARSE, b, sizeof(b));
		assert_string_equal(b, cases[i].coarse);
		timetext_duration(cases[i].s, TIMETEXT_FINE, b, sizeof(b));
		assert_string_equal(b, cases[i].fine);
	}
	timetext_duration(7500, TIMETEXT_FINE, small, sizeof(small));
	assert_string_equal(small, "2h");
}

/* The one reader of a duration on the command line: units in order, bare seconds, no wrap past the limit. */
static void test_duration_parse(void **state)
{
	static const struct {
		const char *s;
		unsigned long long max;
		int r;
		unsigned long long v;
	} cases[] = {
		{ "90s", 86400, 0, 90 }, { "5m", 86400, 0, 300 }, { "1h", 86400, 0, 3600 },
		{ "1h30m", 86400, 0, 5400 }, { "2m30s", 86400, 0, 150 }, { "1h0m5s", 86400, 0, 3605 },
		{ "1h5s", 86400, 0, 3605 }, { "90", 86400, 0, 90 }, { "0", 86400, 0, 0 }, { "0s", 86400, 0, 0 },
		{ "000120", 86400, 0, 120 }, { "24h", 86400, 0, 86400 }, { "1440m", 86400, 0, 86400 },
		{ "86400", 86400, 0, 86400 }, { "23h59m60s", 86400, 0, 86400 },
		/* Over the limit, however it is written. */
		{ "24h1s", 86400, -ERANGE, 0 }, { "86401", 86400, -ERANGE, 0 }, { "25h", 86400, -ERANGE, 0 },
		{ "1441m", 86400, -ERANGE, 0 },
		/* 5124095576030432 h is 2^64 + 3584 s: a product checked after it is made wraps to 3584. */
		{ "5124095576030432h", 86400, -ERANGE, 0 }, { "5124095576030432h", ~0ULL, -ERANGE, 0 },
		{ "99999999999999999999s", 86400, -ERANGE, 0 }, { "99999999999999999999", 86400, -ERANGE, 0 },
		{ "184467440737095516160", ~0ULL, -ERANGE, 0 }, { "18446744073709551615", ~0ULL, -ERANGE, 0 },
		{ "18446744073709551614", ~0ULL, 0, 18446744073709551614ULL }, { "10", 5, -ERANGE, 0 },
		{ "5", 5, 0, 5 }, { "9", 5, -ERANGE, 0 },
		/* Not a duration. */
		{ "", 86400, -EINVAL, 0 }, { "m", 86400, -EINVAL, 0 }, { "5x", 86400, -EINVAL, 0 },
		{ "5mm", 86400, -EINVAL, 0 }, { "30m1h", 86400, -EINVAL, 0 }, { "1h30", 86400, -EINVAL, 0 },
		{ "-5m", 86400, -EINVAL, 0 }, { "+5m", 86400, -EINVAL, 0 }, { " 5m", 86400, -EINVAL, 0 },
		{ "5m ", 86400, -EINVAL, 0 }, { "1.5h", 86400, -EINVAL, 0 }, { "5d", 86400, -EINVAL, 0 },
		{ "5ms", 86400, -EINVAL, 0 }, { "1h1h", 86400, -EINVAL, 0 }, { "5M", 86400, -EINVAL, 0 },
		{ "0x10", 86400, -EINVAL, 0 }, { "99999999999999999999x", 86400, -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned long long v = 12345;
		int r = timetext_duration_parse(cases[i].s, cases[i].max, &v);

		if (r != cases[i].r)
			fail_msg("'%s' (max %llu): %d, expected %d", cases[i].s, cases[i].max, r, cases[i].r);
		if (!r && v != cases[i].v)
			fail_msg("'%s': %llu, expected %llu", cases[i].s, v, cases[i].v);
		if (r && v != 12345)
			fail_msg("'%s': written on failure", cases[i].s);
	}
	assert_int_equal(timetext_duration_parse(NULL, 60, &(unsigned long long){ 0 }), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_accepted),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_duration_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
