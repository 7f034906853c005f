/* strbuf.h - a growable NUL-terminated string for building messages, and the HTTP client's bodies. */
#pragma once

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct strbuf {
	char *s;        /* NUL-terminated; NULL until the first append */
	size_t len;
	size_t cap;
	bool oom;       /* an append failed: the content is truncated */
};

/* Append formatted text. Return: 0 or -ENOMEM (then sb->oom stays set). */
int strbuf_appendf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int strbuf_vappendf(struct strbuf *sb, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
int strbuf_append(struct strbuf *sb, const char *s);
/* Append @n bytes (any bytes, NUL included; the string stays NUL-terminated). Return: 0 or -ENOMEM. */
int strbuf_appendn(struct strbuf *sb, const char *data, size_t n);

/*
 * strbuf_printf() - a new string, formatted: asprintf() without its extension (POSIX.1-2008 has
 * none), so that the portable program (kubectl-fabric) builds from the same sources.
 * Caller frees; NULL on OOM or a format error.
 */
char *strbuf_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *strbuf_vprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Take the string (never NULL on success: "" for an empty buffer); the buffer is reset. NULL on OOM. */
char *strbuf_take(struct strbuf *sb);

void strbuf_free(struct strbuf *sb);

/*
 * strbuf_grow_array() - room for element @n in the array at *@arrayp (a pointer to the array's
 * pointer) of *@cap elements of @size bytes: doubled when full, @first the first time. The one
 * growth rule of the probes' arrays. Return: 0; -ENOMEM (*@arrayp and *@cap unchanged).
 */
int strbuf_grow_array(void *arrayp, size_t *cap, size_t n, size_t size, size_t first);

/*
 * strbuf_cmp_names() - qsort()/bsearch() order of records whose first member is their name, a
 * NUL-terminated char array (a bsearch key may be the name itself): strcmp() of the names.
 */
int strbuf_cmp_names(const void *a, const void *b);

/* strbuf_strv_free() - free @n strings of @v (NULL ones too) and @v itself; @v may be NULL. */
void strbuf_strv_free(char **v, size_t n);

/*
 * strbuf_char() - the character at @s (@n > 0 bytes left), and in *@ret_unsafe whether a terminal
 * must never be given it raw: a C0 control or DEL, a C1 control encoded in UTF-8 (U+0080-U+009F:
 * CSI, OSC, ...), a mark that reorders what is shown (U+061C, U+200E, U+200F, U+202A-U+202E,
 * U+2066-U+2069), or a byte that is not well-formed UTF-8 (taken alone). The one rule of every
 * human output. Return: its length in bytes (0 only when @n is 0).
 */
size_t strbuf_char(const char *s, size_t n, bool *ret_unsafe);

/*
 * strbuf_printable() - a printable copy of hostile text: what strbuf_char() calls unsafe becomes one '?'
 * each, at most @max bytes (cut at a UTF-8 character boundary), then "…" when cut. Caller frees;
 * NULL on OOM.
 */
char *strbuf_printable(const char *s, size_t max);

/* strbuf_printable_into() - strbuf_printable() of @s (NULL: "") cut to fit @dst (@size bytes, "…" included); "" on OOM. */
void strbuf_printable_into(char *dst, size_t size, const char *s);
