/* linebuf.c - pure: a byte stream cut into lines, with a limit on the length of one line (watch streams). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/linebuf.h"

#define LINEBUF_DEFAULT_MAX (8u << 20)

void linebuf_init(struct linebuf *lb, size_t max)
{
	memset(lb, 0, sizeof(*lb));
	lb->max = max ? max : LINEBUF_DEFAULT_MAX;
}

void linebuf_free(struct linebuf *lb)
{
	size_t max;

	if (!lb)
		return;
	max = lb->max;
	free(lb->buf);
	linebuf_init(lb, max);
}

int linebuf_feed(struct linebuf *lb, const char *data, size_t n)
{
	const char *nl;

	if (n == 0)
		return 0;
	/* Drop what was returned before growing: the held bytes move to the front. */
	if (lb->start > 0 && lb->len + n + 1 > lb->cap) {
		memmove(lb->buf, lb->buf + lb->start, lb->len - lb->start);
		lb->len -= lb->start;
		lb->scan -= lb->start;
		lb->tail -= lb->start;
		lb->start = 0;
	}
	nl = memrchr(data, '\n', n);
	if ((nl ? (size_t)(data + n - nl - 1) : lb->len - lb->tail + n) > lb->max)
		return -EMSGSIZE;
	if (lb->len + n + 1 > lb->cap) {
		size_t cap = lb->cap ? lb->cap : 4096;
		char *b;

		while (cap < lb->len + n + 1)
			cap *= 2;
		b = realloc(lb->buf, cap);
		if (!b)
			return -ENOMEM;
		lb->buf = b;
		lb->cap = cap;
	}
	memcpy(lb->buf + lb->len, data, n);
	if (nl)
		lb->tail = lb->len + (size_t)(nl - data) + 1;
	lb->len += n;
	lb->buf[lb->len] = '\0';
	return 0;
}

int linebuf_next(struct linebuf *lb, const char **line, size_t *len)
{
	char *p, *nl;
	size_t n;

	if (lb->scan < lb->start)
		lb->scan = lb->start;
	if (lb->scan >= lb->len)
		return 0;
	nl = memchr(lb->buf + lb->scan, '\n', lb->len - lb->scan);
	if (!nl) {
		lb->scan = lb->len;
		return 0;
	}
	p = lb->buf + lb->start;
	n = (size_t)(nl - p);
	*nl = '\0';
	lb->start = (size_t)(nl - lb->buf) + 1;
	lb->scan = lb->start;
	if (n > 0 && p[n - 1] == '\r')
		p[--n] = '\0';
	if (n > lb->max)
		return -EMSGSIZE;       /* skipped: the next call returns the line after it */
	*line = p;
	*len = n;
	return 1;
}

size_t linebuf_held(const struct linebuf *lb)
{
	return lb->len - lb->start;
}

size_t linebuf_partial(const struct linebuf *lb)
{
	return lb->len - (lb->tail > lb->start ? lb->tail : lb->start);
}
