/* timetext.c - pure: RFC 3339 date-times into seconds since the epoch (the API's times); a duration as text, and read back. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "probes/model/timetext.h"

/* Exactly @n digits at @s as a number; -1 when one is not a digit. */
static int timetext_digits(const char *s, int n)
{
	int v = 0;

	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/* Days from 1970-01-01 to @y-@m-@d of the proleptic Gregorian calendar (Howard Hinnant's days_from_civil). */
static long long timetext_days(long long y, int m, int d)
{
	long long era, yoe, doy;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

int timetext_parse(const char *s, long long *ret)
{
	static const unsigned char mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
	int y, mo, d, h, mi, sec, off = 0;
	const char *p;

	if (!s || strnlen(s, 64) < 20 || strnlen(s, 64) == 64 || s[4] != '-' || s[7] != '-' ||
	    (s[10] != 'T' && s[10] != 't') || s[13] != ':' || s[16] != ':')
		return -EINVAL;
	y = timetext_digits(s, 4);
	mo = timetext_digits(s + 5, 2);
	d = timetext_digits(s + 8, 2);
	h = timetext_digits(s + 11, 2);
	mi = timetext_digits(s + 14, 2);
	sec = timetext_digits(s + 17, 2);
	if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    sec < 0 || sec > 60)
		return -EINVAL;
	if (mo == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
		return -EINVAL;
	p = s + 19;
	if (*p == '.') {
		const char *f = ++p;

		while (*p >= '0' && *p <= '9' && p - f < 9)
			p++;
		if (p == f || (*p >= '0' && *p <= '9'))
			return -EINVAL;
	}
	if ((*p == 'Z' || *p == 'z') && !p[1]) {
		off = 0;
	} else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
		int oh = timetext_digits(p + 1, 2), om = timetext_digits(p + 4, 2);

		if (oh < 0 || oh > 23 || om < 0 || om > 59)
			return -EINVAL;
		off = (oh * 60 + om) * 60 * (*p == '-' ? -1 : 1);
	} else {
		return -EINVAL;
	}
	*ret = timetext_days(y, mo, d) * 86400 + h * 3600 + mi * 60 + (sec > 59 ? 59 : sec) - off;
	return 0;
}

void timetext_duration(long long s, enum timetext_precision prec, char *buf, size_t len)
{
	if (s < 0)
		snprintf(buf, len, "-");
	else if (s < 120)
		snprintf(buf, len, "%llds", s);
	else if (s < 120 * 60)
		snprintf(buf, len, "%lldm", s / 60);
	else if (prec == TIMETEXT_FINE)
		snprintf(buf, len, "%lldh%02lldm", s / 3600, s % 3600 / 60);
	else if (s < 48 * 3600)
		snprintf(buf, len, "%lldh", s / 3600);
	else
		snprintf(buf, len, "%lldd", s / 86400);
}

/*
 * The whole number at *@p (advanced past its digits), or more than @max when it exceeds @max:
 * reading stops counting there, never wrapping. Return: false when no digit is there.
 */
static bool timetext_number(const char **p, unsigned long long max, unsigned long long *ret)
{
	const char *s = *p;
	unsigned long long v = 0;

	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		if (v <= max)
			v = max < d || v > (max - d) / 10 ? max + 1 : v * 10 + d;
	}
	*p = s;
	*ret = v;
	return true;
}

int timetext_duration_parse(const char *s, unsigned long long max_s, unsigned long long *ret_s)
{
	static const struct {
		char unit;
		unsigned long long secs;
	} units[] = { { 'h', 3600 }, { 'm', 60 }, { 's', 1 } };
	unsigned long long sum = 0, v;
	size_t next = 0;                /* the first unit still allowed: h, m, s in that order */
	bool range = false;
	const char *p = s;

	if (max_s == ~0ULL)
		max_s--;                /* room for timetext_number()'s "more than max" */
	if (!s || !timetext_number(&p, max_s, &v))
		return -EINVAL;
	if (!*p) {                      /* a bare number: seconds */
		if (v > max_s)
			return -ERANGE;
		*ret_s = v;
		return 0;
	}
	for (;;) {
		unsigned long long secs = 0;

		for (size_t k = next; k < sizeof(units) / sizeof(units[0]) && !secs; k++)
			if (*p == units[k].unit) {
				secs = units[k].secs;
				next = k + 1;
			}
		if (!secs)
			return -EINVAL;
		/* Checked before it is added: v * secs is never made when it could pass max_s. */
		if (range || v > (max_s - sum) / secs)
			range = true;
		else
			sum += v * secs;
		if (!*++p)
			break;
		if (!timetext_number(&p, max_s, &v))
			return -EINVAL;
	}
	if (range)
		return -ERANGE;
	*ret_s = sum;
	return 0;
}
