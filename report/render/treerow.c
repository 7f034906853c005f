/* treerow.c - one row of the human report's PCIe tree: fields laid out within RENDER_WIDTH columns. */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "report/render/treerow.h"

#define TREEROW_CUT_MIN 8       /* columns a cut word keeps at least, before its "…" */

char *treerow_clean(const char *s, char *buf, size_t len)
{
	size_t i = 0;

	for (; s[i] && i + 1 < len; i++)
		buf[i] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
	buf[i] = '\0';
	return buf;
}

/* Columns of @n bytes of our text: one per UTF-8 character (host text is ASCII by treerow_clean()). */
static int treerow_cols(const char *s, size_t n)
{
	int w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Bytes of @s (@n long) that fill at most @cols columns, never splitting a character. */
static size_t treerow_fit(const char *s, size_t n, int cols)
{
	size_t i = 0;

	for (int w = 0; i < n && w < cols; w++) {
		i++;
		while (i < n && ((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
	}
	return i;
}

void treerow_add(struct treerow *r, int pad, const char *fmt, ...)
{
	va_list ap;

	if (r->n == TREEROW_FIELDS)    /* ruled out by the rows' bound (treerow.h); never written past */
		return;
	va_start(ap, fmt);
	vsnprintf(r->f[r->n], sizeof(r->f[r->n]), fmt, ap);
	va_end(ap);
	r->pad[r->n++] = pad;
}

void treerow_emit(const struct treerow *r, const char *prefix, const char *cont, struct strbuf *sb)
{
	int cstart = treerow_cols(cont, strlen(cont)), col = treerow_cols(prefix, strlen(prefix)), gap = 0;
	bool fresh = true;

	strbuf_append(sb, prefix);
	for (size_t i = 0; i < r->n; i++) {
		const char *s = r->f[i];
		int fw = treerow_cols(s, strlen(s));
		bool first = true;

		for (;;) {
			size_t n = strcspn(s, " ");
			int w = treerow_cols(s, n), g = first ? gap : 1;

			/* A word that fits no line is cut where it is, unless barely a few characters remain. */
			bool wrap = col + g + w > RENDER_WIDTH &&
				    (cstart + w <= RENDER_WIDTH || col + g + TREEROW_CUT_MIN > RENDER_WIDTH);

			if (first && col + g + fw > RENDER_WIDTH && cstart + fw <= RENDER_WIDTH)
				wrap = true;
			if (!fresh && wrap) {
				strbuf_appendf(sb, "\n%s", cont);
				col = cstart;
				fresh = true;
			}
			if (!fresh) {
				strbuf_appendf(sb, "%*s", g, "");
				col += g;
			}
			if (col + w > RENDER_WIDTH) {
				size_t k = treerow_fit(s, n, RENDER_WIDTH - col - 1);

				strbuf_appendn(sb, s, k);
				strbuf_append(sb, "…");
				col += treerow_cols(s, k) + 1;
			} else {
				strbuf_appendn(sb, s, n);
				col += w;
			}
			fresh = false;
			first = false;
			if (!s[n])
				break;
			s += n + 1;
		}
		gap = 2 + (r->pad[i] > fw ? r->pad[i] - fw : 0);
	}
	strbuf_append(sb, "\n");
}

