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
