/* treerow.h - one row of the human report's PCIe tree: fields laid out within RENDER_WIDTH columns (pure). */
#pragma once

#include <stddef.h>

#include "probes/model/strbuf.h"
#include "report/render/render.h"

#define TREEROW_FIELDS 15       /* the widest row, a GPU NIC's: 8 fields and 7 marks (render_tree.c asserts it) */
#define TREEROW_FIELD_MAX 320   /* a field: our words around one host name (OBS_HOST_NAME_MAX) */

/* One row: its fields in order, each padded to a column width so that rows alike align. */
struct treerow {
	char f[TREEROW_FIELDS][TREEROW_FIELD_MAX];
	int pad[TREEROW_FIELDS];
	size_t n;
};

/**
 * treerow_add() - append a formatted field, padded to @pad columns (0: its own width) when
 * another field follows on its line. A row has room for its widest kind (TREEROW_FIELDS, checked at
 * compile time by render_tree.c), so no field is dropped; one longer than TREEROW_FIELD_MAX is cut:
 * a row's text is ours, with host text cleaned by treerow_clean().
 */
void treerow_add(struct treerow *r, int pad, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/**
 * treerow_emit() - append @r to @sb after @prefix, newline-terminated: fields two spaces apart
 * (plus padding), the words of a field one. A field that does not fit the line starts a new one
 * after @cont; one too wide for a line of its own wraps between its words, and a word too wide for
 * any line is cut with "…". Columns count UTF-8 characters; no line passes RENDER_WIDTH as long
 * as @prefix and @cont are narrower than RENDER_WIDTH - 8. Allocation failures set @sb->oom.
 */
void treerow_emit(const struct treerow *r, const char *prefix, const char *cont, struct strbuf *sb);

/**
 * treerow_clean() - host or API text @s as the tree prints it, into @buf (@len bytes, always
 * NUL-terminated, cut when too small): visible ASCII kept, every other byte (space included) '?',
 * so one byte is one column and a name is one word. Return: @buf.
 */
char *treerow_clean(const char *s, char *buf, size_t len);
