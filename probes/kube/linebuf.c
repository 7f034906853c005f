/* linebuf.c - pure: a byte stream cut into lines, with a limit on the length of one line (watch streams). */
#include <errno.h>
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
	strbuf_free(&lb->sb);
	linebuf_init(lb, max);
}

int linebuf_feed(struct linebuf *lb, const char *data, size_t n)
{
	struct strbuf *sb = &lb->sb;
	size_t len = sb->len;
	const char *nl;

	if (n == 0)
		return 0;
	/* Drop what was returned before growing: the held bytes move to the front. */
	if (lb->start > 0 && sb->len + n + 1 > sb->cap) {
		memmove(sb->s, sb->s + lb->start, sb->len - lb->start);
		sb->len -= lb->start;
		lb->scan -= lb->start;
		lb->tail -= lb->start;
		lb->start = 0;
		len = sb->len;
	}
	nl = memrchr(data, '\n', n);
	if ((nl ? (size_t)(data + n - nl - 1) : len - lb->tail + n) > lb->max)
		return -EMSGSIZE;
	if (strbuf_appendn(sb, data, n) < 0)
		return -ENOMEM;
	if (nl)
		lb->tail = len + (size_t)(nl - data) + 1;
	return 0;
}

int linebuf_next(struct linebuf *lb, const char **line, size_t *len)
{
	char *p, *nl;
	size_t n;

	if (lb->scan < lb->start)
		lb->scan = lb->start;
	if (lb->scan >= lb->sb.len)
		return 0;
	nl = memchr(lb->sb.s + lb->scan, '\n', lb->sb.len - lb->scan);
	if (!nl) {
		lb->scan = lb->sb.len;
		return 0;
	}
	p = lb->sb.s + lb->start;
	n = (size_t)(nl - p);
	*nl = '\0';
	lb->start = (size_t)(nl - lb->sb.s) + 1;
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
	return lb->sb.len - lb->start;
}

size_t linebuf_partial(const struct linebuf *lb)
{
	return lb->sb.len - (lb->tail > lb->start ? lb->tail : lb->start);
}
