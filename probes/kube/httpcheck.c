/* httpcheck.c - pure: what the HTTP client checks and says (server URLs, request shapes, answers' messages, the token kept out of them). */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "probes/kube/httpcheck.h"
#include "probes/model/errmsg.h"
#include "probes/model/json.h"

static bool httpcheck_host_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '.' || ch == '-' || ch == '_';
}

int httpcheck_server(const char *url, char *err, size_t errlen)
{
	size_t n = strnlen(url, HTTPCHECK_URL_MAX + 1);
	const char *p, *host_end;

	if (n > HTTPCHECK_URL_MAX)
		return errmsg_set(err, errlen, -EINVAL, "API server URL longer than %u characters", HTTPCHECK_URL_MAX);
	if (strncasecmp(url, "https://", 8) != 0)
		return errmsg_set(err, errlen, -EINVAL, "API server URL must start with https:// (TLS is mandatory)");
	p = url + 8;
	if (*p == '[') {
		host_end = strchr(p, ']');
		if (!host_end || host_end == p + 1)
			goto bad_host;
		for (const char *q = p + 1; q < host_end; q++)
			if (!isxdigit((unsigned char)*q) && *q != ':' && *q != '.' && *q != '%')
				goto bad_host;
		p = host_end + 1;
	} else {
		const char *q = p;

		while (httpcheck_host_char(*q))
			q++;
		if (q == p)
			goto bad_host;
		p = q;
	}
	if (*p == ':') {
		unsigned long port = 0;
		const char *q = ++p;

		while (isdigit((unsigned char)*p) && p - q < 6)
			port = port * 10 + (unsigned long)(*p++ - '0');
		if (p == q || port == 0 || port > 65535)
			goto bad_port;
	}
	if (*p && *p != '/')
		goto bad_host;
	for (; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || *p == '?' || *p == '#' || *p == '\\')
			goto bad_path;
	while (n > 8 && url[n - 1] == '/')
		n--;
	return (int)n;

bad_host:
	return errmsg_set(err, errlen, -EINVAL, "API server URL has a malformed host (want https://HOST[:PORT])");
bad_port:
	return errmsg_set(err, errlen, -EINVAL, "API server URL has a malformed port");
bad_path:
	return errmsg_set(err, errlen, -EINVAL, "API server URL path may not contain spaces, controls, '?' or '#'");
}

bool httpcheck_method(const char *m)
{
	static const char *const allowed[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };

	for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		if (strcmp(m, allowed[i]) == 0)
			return true;
	return false;
}

bool httpcheck_text(const char *s, size_t max, bool allow_space)
{
	size_t n = 0;

	for (; *s; s++, n++)
		if (n >= max || (unsigned char)*s < (allow_space ? ' ' : '!') || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

/* The "message" of a Kubernetes Status body (at most 160 bytes), malloc'd; NULL when there is none. */
static char *httpcheck_status_message(const char *body, size_t len)
{
	struct json *v = NULL;
	const char *m;
	char *s = NULL;

	if (!body || len == 0 || json_parse(body, len, &v) < 0)
		return NULL;
	m = json_get_string(v, "message");
	if (m)
		s = strndup(m, 160);
	json_free(v);
	return s;
}

/* The reason phrase of an HTTP status the API answers ("Gone"), "" for others. */
static const char *httpcheck_reason(long status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 409: return "Conflict";
	case 410: return "Gone";
	case 415: return "Unsupported Media Type";
	case 422: return "Unprocessable Entity";
	case 429: return "Too Many Requests";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "";
	}
}

void httpcheck_status_error(char *buf, size_t size, const char *method, const char *path, long status,
			    const char *body, size_t len)
{
	char *msg = httpcheck_status_message(body, len);
	const char *reason = httpcheck_reason(status);

	snprintf(buf, size, "%s %s: HTTP %ld%s%s%s%s", method, path, status, *reason ? " " : "", reason,
		 msg ? ": " : "", msg ? msg : "");
	free(msg);
	for (char *p = buf; *p; p++)
		if ((unsigned char)*p < ' ' || *p == 0x7f)
			*p = ' ';
}

void httpcheck_scrub(char *s, const char *token, size_t token_len)
{
	static const char mark[] = "[token]";
	const size_t mlen = sizeof(mark) - 1;
	char *p = s;

	if (!token || token_len == 0)
		return;
	while ((p = strstr(p, token))) {
		if (token_len >= mlen) {
			memcpy(p, mark, mlen);
			memmove(p + mlen, p + token_len, strlen(p + token_len) + 1);
			p += mlen;
		} else {
			memset(p, '*', token_len);
			p += token_len;
		}
	}
}
