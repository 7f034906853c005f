/* strbuf.c - a growable NUL-terminated string for building messages, and the HTTP client's bodies. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"

static int strbuf_reserve(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;
	size_t cap;
	char *s;

	if (need <= sb->cap)
		return 0;
	cap = sb->cap ? sb->cap : 64;
	while (cap < need)
		cap *= 2;
	s = realloc(sb->s, cap);
	if (!s) {
		sb->oom = true;
		return -ENOMEM;
	}
	sb->s = s;
	sb->cap = cap;
	return 0;
}

int strbuf_vappendf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list aq;
	int n;

	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, aq);
	va_end(aq);
	if (n < 0)
		return -EINVAL;
	if (strbuf_reserve(sb, (size_t)n) < 0)
		return -ENOMEM;
	vsnprintf(sb->s + sb->len, (size_t)n + 1, fmt, ap);
	sb->len += (size_t)n;
	return 0;
}

int strbuf_appendf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = strbuf_vappendf(sb, fmt, ap);
	va_end(ap);
	return r;
}

char *strbuf_vprintf(const char *fmt, va_list ap)
{
	struct strbuf sb = { 0 };

	if (strbuf_vappendf(&sb, fmt, ap) < 0) {
		strbuf_free(&sb);
		return NULL;
	}
	return strbuf_take(&sb);
}

char *strbuf_printf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = strbuf_vprintf(fmt, ap);
	va_end(ap);
	return s;
}

int strbuf_append(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);

	if (strbuf_reserve(sb, n) < 0)
		return -ENOMEM;
	memcpy(sb->s + sb->len, s, n + 1);
	sb->len += n;
	return 0;
}

int strbuf_appendn(struct strbuf *sb, const char *data, size_t n)
{
	if (n == 0)
		return sb->oom ? -ENOMEM : 0;
	if (strbuf_reserve(sb, n) < 0)
		return -ENOMEM;
	memcpy(sb->s + sb->len, data, n);
	sb->len += n;
	sb->s[sb->len] = '\0';
	return 0;
}

char *strbuf_take(struct strbuf *sb)
{
	char *s;

	if (sb->oom) {
		strbuf_free(sb);
		return NULL;
	}
	s = sb->s ? sb->s : strdup("");
	*sb = (struct strbuf){ 0 };
	return s;
}

void strbuf_free(struct strbuf *sb)
{
	if (!sb)
		return;
	free(sb->s);
	*sb = (struct strbuf){ 0 };
}

char *strbuf_printable(const char *s, size_t max)
{
	size_t n = strlen(s), keep = n > max ? max : n;
	char *out;

	/* Never leave half a character before the "…". */
	while (keep < n && keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	out = malloc(keep + sizeof("…"));
	if (!out)
		return NULL;
	for (size_t i = 0; i < keep; i++) {
		unsigned char ch = (unsigned char)s[i];

		out[i] = (ch < 0x20 || ch == 0x7f) ? '?' : (char)ch;
	}
	out[keep] = '\0';
	if (keep < n)
		strcat(out, "…");
	return out;
}
