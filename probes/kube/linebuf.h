/* linebuf.h - pure: a byte stream cut into lines (held in a strbuf), with a limit on the length of one line (watch streams). */
#pragma once

#include <stddef.h>

#include "probes/model/strbuf.h"

struct linebuf {
	struct strbuf sb;       /* the bytes held (sb.len of them), from the start of sb.s */
	size_t start;           /* first byte not yet returned by linebuf_next() */
	size_t scan;            /* [start, scan) holds no newline */
	size_t tail;            /* offset just after the last newline held (start of the partial line) */
	size_t max;             /* longest line accepted, newline excluded */
};

/* An empty buffer for lines of at most @max bytes (0: 8 MiB). No allocation until the first feed. */
void linebuf_init(struct linebuf *lb, size_t max);

/* Frees the memory; the buffer may be initialised again. NULL is fine. */
void linebuf_free(struct linebuf *lb);

/**
 * linebuf_feed() - append @n bytes of the stream.
 * Return: 0; -EMSGSIZE when the line still open would grow past the limit (nothing is
 * appended; the complete lines before it can still be taken); -ENOMEM.
 */
int linebuf_feed(struct linebuf *lb, const char *data, size_t n);

/**
 * linebuf_next() - the next complete line, NUL-terminated in place without its "\n" (nor a
 * "\r" before it); valid until the next feed or free.
 * Return: 1 with @line/@len set; 0 when no complete line is held; -EMSGSIZE for a complete
 * line longer than the limit (it is skipped).
 */
int linebuf_next(struct linebuf *lb, const char **line, size_t *len);

/* Bytes held that no linebuf_next() returned yet (complete lines and the open one). */
size_t linebuf_held(const struct linebuf *lb);

/* Bytes of the line still open (after the last newline): non-zero at the end of a stream = cut short. */
size_t linebuf_partial(const struct linebuf *lb);
