/* strbuf.c - a growable NUL-terminated string for building messages, and the HTTP client's bodies. */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdint.h>
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

int strbuf_grow_array(void *arrayp, size_t *cap, size_t n, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *v;

	if (n < *cap)
		return 0;
	if (*cap ? *cap > SIZE_MAX / 2 / size : first > SIZE_MAX / size)
		return -ENOMEM;
	memcpy(&v, arrayp, sizeof(v));
	if (!(v = realloc(v, c * size)))
		return -ENOMEM;
	memcpy(arrayp, &v, sizeof(v));
	*cap = c;
	return 0;
}

int strbuf_cmp_names(const void *a, const void *b)
{
	return strcmp(a, b);
}

void strbuf_strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
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

size_t strbuf_char(const char *s, size_t n, bool *ret_unsafe)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len;
	uint32_t cp;

	*ret_unsafe = true;
	if (!n)
		return 0;
	if (u[0] < 0x80) {
		*ret_unsafe = u[0] < 0x20 || u[0] == 0x7f;
		return 1;
	}
	/* A UTF-8 sequence: its length by the lead byte, each continuation checked; malformed is one byte. */
	len = u[0] >= 0xf0 && u[0] < 0xf5 ? 4 : u[0] >= 0xe0 && u[0] < 0xf0 ? 3 : u[0] >= 0xc2 && u[0] < 0xe0 ? 2 : 0;
	if (!len || len > n)
		return 1;
	cp = u[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((u[i] & 0xc0) != 0x80)
			return 1;
		cp = cp << 6 | (u[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
		return 1;       /* overlong, out of range, a surrogate: not UTF-8 */
	/* C1 controls (CSI U+009B, OSC U+009D, ...), and the marks that reorder what a terminal shows. */
	*ret_unsafe = (cp >= 0x80 && cp <= 0x9f) || cp == 0x061c || cp == 0x200e || cp == 0x200f ||
		      (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
	return len;
}

char *strbuf_printable(const char *s, size_t max)
{
	size_t n = strlen(s), keep = n > max ? max : n, o = 0;
	char *out;

	/* Never leave half a character before the "…". */
	while (keep < n && keep > 0 && ((unsigned char)s[keep] & 0xc0) == 0x80)
		keep--;
	out = malloc(keep + sizeof("…"));
	if (!out)
		return NULL;
	for (size_t i = 0; i < keep;) {
		bool bad;
		size_t len = strbuf_char(s + i, keep - i, &bad);

		if (bad) {
			out[o++] = '?';         /* one mark for the whole character: never longer than the input */
		} else {
			memcpy(out + o, s + i, len);
			o += len;
		}
		i += len;
	}
	out[o] = '\0';
	if (keep < n)
		strcat(out, "…");
	return out;
}

void strbuf_printable_into(char *dst, size_t size, const char *s)
{
	char *p = s ? strbuf_printable(s, size - 4) : NULL;

	snprintf(dst, size, "%s", p ? p : "");
	free(p);
}
