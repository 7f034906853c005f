/* procstat.c - pure: a process's figures as Prometheus' client libraries export them (process_*), from /proc texts. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/procstat.h"
#include "probes/model/errmsg.h"

int procstat_number(const char *s, const char *lim, unsigned long long *ret, const char **end)
{
	unsigned long long v = 0;
	const char *p = s;

	if (p >= lim || *p < '0' || *p > '9')
		return -EBADMSG;
	for (; p < lim && *p >= '0' && *p <= '9'; p++) {
		if (v > (~0ull - (unsigned long long)(*p - '0')) / 10)
			return -EBADMSG;
		v = v * 10 + (unsigned long long)(*p - '0');
	}
	*ret = v;
	*end = p;
	return 0;
}

int procstat_parse_stat(const char *text, size_t len, long hz, long page, unsigned long long btime,
			struct procstat *ps, char *err, size_t errlen)
{
	/* Fields after comm, numbered as proc(5) numbers them: state is 3. */
	enum { F_UTIME = 14, F_STIME = 15, F_STARTTIME = 22, F_VSIZE = 23, F_RSS = 24 };
	unsigned long long v[F_RSS + 1] = { 0 };
	const char *lparen, *p = NULL, *lim = text + len;
	int field = 3;

	if (hz <= 0 || page <= 0)
		return errmsg_set(err, errlen, -EBADMSG, "clock ticks %ld, page size %ld", hz, page);
	if (len > PROCSTAT_STAT_MAX)
		return errmsg_set(err, errlen, -EBADMSG, "%zu bytes, a stat line has at most %d", len, PROCSTAT_STAT_MAX);
	lparen = len ? memchr(text, '(', len) : NULL;
	/* comm may hold ')' and spaces: the fields start after the last ')'. */
	for (const char *q = lim; lparen && q - 1 > lparen; q--) {
		if (q[-1] == ')') {
			p = q;
			break;
		}
	}
	if (!p)
		return errmsg_set(err, errlen, -EBADMSG, "no \"(comm)\" field");
	while (field <= F_RSS) {
		if (p >= lim || *p != ' ')
			return errmsg_set(err, errlen, -EBADMSG, "the line ends before field %d", field);
		p++;
		if (field == 3) {               /* state: one letter */
			if (p >= lim || *p == ' ' || *p == '\n')
				return errmsg_set(err, errlen, -EBADMSG, "field 3 (state) is empty");
			p++;
		} else if (p < lim && *p == '-') {         /* a signed field (priority, nice, ...): none of ours */
			unsigned long long ignored;

			if (field == F_UTIME || field == F_STIME || field == F_STARTTIME || field == F_VSIZE ||
			    field == F_RSS || procstat_number(p + 1, lim, &ignored, &p) < 0)
				return errmsg_set(err, errlen, -EBADMSG, "field %d is not a number", field);
		} else if (procstat_number(p, lim, &v[field], &p) < 0) {
			return errmsg_set(err, errlen, -EBADMSG, "field %d is not a number", field);
		}
		field++;
	}
	if (p < lim && *p != ' ' && *p != '\n')
		return errmsg_set(err, errlen, -EBADMSG, "field %d is not a number", F_RSS);
	ps->cpu_seconds = (double)(v[F_UTIME] + v[F_STIME]) / (double)hz;
	ps->virtual_bytes = v[F_VSIZE];
	ps->resident_bytes = v[F_RSS] * (unsigned long long)page;
	ps->have |= PROCSTAT_CPU | PROCSTAT_VIRTUAL | PROCSTAT_RESIDENT;
	if (btime) {
		/* Whole ticks first: the same process gives the same value at every scrape. */
		ps->start_time = (double)btime + (double)(v[F_STARTTIME] / (unsigned long long)hz) +
				 (double)(v[F_STARTTIME] % (unsigned long long)hz) / (double)hz;
		ps->have |= PROCSTAT_START;
	}
	return 0;
}

/* The line of @text starting with @key (a whole word), its rest after the blanks in *@rest..*@rest_end. Return: 0; -ENOENT. */
static int procstat_line(const char *text, size_t len, const char *key, const char **rest, const char **rest_end)
{
	const char *p = text, *lim = text + len;
	size_t klen = strlen(key);

	while (p < lim) {
		const char *nl = memchr(p, '\n', (size_t)(lim - p));
		const char *end = nl ? nl : lim;

		/* A last line without its newline may be cut: only a whole line counts. */
		if (!nl)
			break;
		if ((size_t)(end - p) > klen && memcmp(p, key, klen) == 0 && p[klen] == ' ') {
			for (p += klen; p < end && *p == ' '; p++)
				;
			*rest = p;
			*rest_end = end;
			return 0;
		}
		p = end + 1;
	}
	return -ENOENT;
}

int procstat_parse_btime(const char *text, size_t len, unsigned long long *ret)
{
	const char *p, *end;
	unsigned long long v;

	if (procstat_line(text, len, "btime", &p, &end) < 0)
		return -ENOENT;
	if (procstat_number(p, end, &v, &p) < 0 || p != end || !v)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int procstat_parse_limits(const char *text, size_t len, unsigned long long *ret)
{
	const char *p, *end;
	unsigned long long v;

	/* "Max open files            1048576              1048576              files" */
	if (procstat_line(text, len, "Max open files", &p, &end) < 0)
		return -ENOENT;
	if ((size_t)(end - p) >= 9 && memcmp(p, "unlimited", 9) == 0)
		return -ENOENT;
	if (procstat_number(p, end, &v, &p) < 0 || p >= end || *p != ' ')
		return -EBADMSG;
	*ret = v;
	return 0;
}
