/* errmsg.c - the one shape of an error message: a caller's buffer (char *err, size_t errlen). */
#include <stdio.h>
#include <string.h>

#include "probes/model/errmsg.h"

int errmsg_vset(char *err, size_t errlen, int ret, const char *fmt, va_list ap)
{
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	return ret;
}

int errmsg_set(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	errmsg_vset(err, errlen, ret, fmt, ap);
	va_end(ap);
	return ret;
}

int errmsg_prefix(char *err, size_t errlen, int ret, const char *fmt, ...)
{
	char head[256];
	size_t hl, bl;
	va_list ap;

	if (!err || !errlen)
		return ret;
	va_start(ap, fmt);
	vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	hl = strlen(head);
	if (hl + 2 >= errlen) {
		snprintf(err, errlen, "%s", head);
		return ret;
	}
	bl = strnlen(err, errlen - 1);
	if (bl == 0) {
		snprintf(err, errlen, "%s", head);
		return ret;
	}
	if (bl > errlen - 1 - hl - 2)
		bl = errlen - 1 - hl - 2;
	memmove(err + hl + 2, err, bl);
	memcpy(err, head, hl);
	err[hl] = ':';
	err[hl + 1] = ' ';
	err[hl + 2 + bl] = '\0';
	return ret;
}
