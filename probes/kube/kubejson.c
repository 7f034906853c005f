/* kubejson.c - typed reads of Kubernetes API JSON whose errors name the field (shared by the parsers). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probes/kube/kubejson.h"

void kubejson_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

const char *kubejson_tname(const struct json *v)
{
	return v ? json_type_name(json_type(v)) : "nothing";
}

int kubejson_str(const struct json *obj, const char *key, char *dst, size_t size,
		 const char *where, char *err, size_t errlen)
{
	const struct json *v = json_get(obj, key);
	const char *s;
	size_t n;

	dst[0] = '\0';
	if (!v || json_type(v) == JSON_NULL)
		return 0;
	s = json_string(v);
	if (!s) {
		kubejson_err(err, errlen, "%s.%s: expected a string, got %s", where, key, kubejson_tname(v));
		return -EINVAL;
	}
	n = strnlen(s, size);
	if (n >= size) {
		kubejson_err(err, errlen, "%s.%s: longer than %zu characters", where, key, size - 1);
		return -EINVAL;
	}
	memcpy(dst, s, n + 1);
	return 0;
}

int kubejson_opt(const struct json *obj, const char *key, enum json_type type,
		 const struct json **ret, const char *where, char *err, size_t errlen)
{
	const struct json *v = json_get(obj, key);

	*ret = NULL;
	if (!v || json_type(v) == JSON_NULL)
		return 0;
	if (json_type(v) != type) {
		kubejson_err(err, errlen, "%s%s%s: expected an %s, got %s", where, *where ? "." : "", key,
			      json_type_name(type), kubejson_tname(v));
		return -EINVAL;
	}
	*ret = v;
	return 0;
}
