/* token.h - the API bearer token file: read bounded and non-blocking, re-read when it changes, never logged. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#define TOKEN_MAX (64u << 10)           /* a token file larger than this is refused */

struct token {
	char *path;                     /* owned */
	char *value;                    /* NULL until read; zeroed before it is freed */
	size_t len;
	dev_t dev;                      /* identity of the file the value came from */
	ino_t ino;
	off_t size;
	struct timespec mtime;
};

/**
 * token_init() - a token read from @path (copied); nothing is read yet.
 * Return: 0 or -ENOMEM.
 */
int token_init(struct token *t, const char *path);

/* Zero and free the value and the path; leaves @t empty. Accepts NULL. */
void token_clear(struct token *t);

/**
 * token_refresh() - read the file again when it changed since the last read (its identity, size
 * or mtime), or always with @force. A file that vanished or turned unreadable keeps the last good
 * value: projected tokens are swapped by symlink, and the next call sees the new one.
 * @err: on failure, @errlen bytes of "token file PATH: why" (never the token).
 *
 * The file's type is checked before it is opened (a FIFO would block), it is opened non-blocking,
 * read to at most TOKEN_MAX bytes; trailing whitespace is stripped and anything else outside
 * visible ASCII is refused.
 *
 * Return: 0 (a value is there); -EINVAL (empty, malformed, not a regular file), -EFBIG, or
 * another -errno, and only when there is no earlier value to keep (or on -ENOMEM).
 */
int token_refresh(struct token *t, bool force, char *err, size_t errlen);

/* Pure: the token from a token file's bytes (exported for the tests). Return: 0, -ENODATA, -EBADMSG, -ENOMEM. */
int token_parse(const char *buf, size_t len, char **ret);
