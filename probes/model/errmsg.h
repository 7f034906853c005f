/* errmsg.h - the one shape of an error message: a caller's buffer (char *err, size_t errlen). */
#pragma once

#include <stdarg.h>
#include <stddef.h>

/*
 * Every function that can say why it failed takes `char *err, size_t errlen` (last, in that order)
 * and writes one NUL-terminated line there, cut to fit, only when it fails. The caller owns the
 * buffer (usually `char err[256]` on its stack): nothing to free, nothing that can fail to
 * allocate on the path that reports a failure. @err may be NULL or @errlen 0: nothing is written.
 */

/* errmsg_set() - format into @err (cut to @errlen). Return: @ret, so `return errmsg_set(...)` reads. */
int errmsg_set(char *err, size_t errlen, int ret, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
int errmsg_vset(char *err, size_t errlen, int ret, const char *fmt, va_list ap) __attribute__((format(printf, 4, 0)));
