/* log.c - the daemon's log lines on stderr: one line per decision, plain text or one JSON object. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log.h"
#include "probes/model/json.h"

static enum cli_log_format log_format = CLI_LOG_TEXT;
static enum log_level log_max = LOG_LEVEL_INFO;
static FILE *log_out;

void log_setup(enum cli_log_format format, int verbose, FILE *out)
{
	log_format = format;
	log_max = verbose > 0 ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO;
	log_out = out;
}

const char *log_level_name(enum log_level level)
{
	switch (level) {
	case LOG_LEVEL_ERROR: return "error";
	case LOG_LEVEL_WARN: return "warn";
	case LOG_LEVEL_INFO: return "info";
	case LOG_LEVEL_DEBUG: return "debug";
	}
	return "info";
}

const char *log_severity_name(enum log_level level)
{
	switch (level) {
	case LOG_LEVEL_ERROR: return "ERROR";
	case LOG_LEVEL_WARN: return "WARNING";
	case LOG_LEVEL_INFO: return "INFO";
	case LOG_LEVEL_DEBUG: return "DEBUG";
	}
	return "INFO";
}

/* The length of @s cut to at most LOG_VALUE_MAX bytes on a UTF-8 boundary; *cut says whether it was. */
static size_t log_cut(const char *s, bool *cut)
{
	size_t n = strnlen(s, LOG_VALUE_MAX + 1);

	*cut = n > LOG_VALUE_MAX;
	if (!*cut)
		return n;
	n = LOG_VALUE_MAX - 3;
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

static bool log_needs_quotes(const char *s, size_t n)
{
	if (n == 0)
		return true;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c <= ' ' || c == '"' || c == '=' || c == '\\' || c == 0x7f)
			return true;
	}
	return false;
}

static int log_text_value(struct strbuf *out, const char *s)
{
	bool cut;
	size_t n = log_cut(s, &cut);

	if (!log_needs_quotes(s, n) && !cut) {
		strbuf_appendf(out, "%.*s", (int)n, s);
		return out->oom ? -ENOMEM : 0;
	}
	strbuf_append(out, "\"");
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			strbuf_appendf(out, "\\%c", c);
		else if (c == '\n')
			strbuf_append(out, "\\n");
		else if (c == '\t')
			strbuf_append(out, "\\t");
		else if (c < ' ' || c == 0x7f)
			strbuf_appendf(out, "\\x%02x", c);
		else
			strbuf_appendf(out, "%c", c);
	}
	strbuf_append(out, cut ? "...\"" : "\"");
	return out->oom ? -ENOMEM : 0;
}

/* A copy of @s cut like log_cut() (JSON values: the serialiser escapes the rest). */
static char *log_json_value(const char *s)
{
	bool cut;
	size_t n = log_cut(s, &cut);
	char *v = malloc(n + 4);

	if (!v)
		return NULL;
	memcpy(v, s, n);
	strcpy(v + n, cut ? "..." : "");
	return v;
}

static int log_format_json(const char *ts, enum log_level level, const char *msg, const char *const *kv,
			   size_t n, struct strbuf *out)
{
	struct json *line = json_new_object(), *fields = json_new_object();
	char *text = NULL, *m = NULL;
	int r = -ENOMEM;

	if (!line || !fields)
		goto out;
	m = log_json_value(msg);
	if (!m || json_add_string(line, "time", ts) < 0 ||
	    json_add_string(line, "severity", log_severity_name(level)) < 0 || json_add_string(line, "message", m) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		char *v;
		int ra;

		if (!kv[2 * i] || !kv[2 * i + 1])
			continue;
		v = log_json_value(kv[2 * i + 1]);
		if (!v)
			goto out;
		ra = json_add_string(fields, kv[2 * i], v);
		free(v);
		if (ra < 0)
			goto out;
	}
	r = json_add(line, "fields", fields);
	fields = NULL;          /* taken, even on error */
	if (r < 0)
		goto out;
	text = json_print(line, false);
	r = -ENOMEM;
	if (!text)
		goto out;
	/* cJSON leaves U+2028/2029 and DEL raw; none of them breaks a line, so one object stays one line. */
	strbuf_append(out, text);
	strbuf_append(out, "\n");
	r = out->oom ? -ENOMEM : 0;
out:
	free(text);
	free(m);
	json_free(fields);
	json_free(line);
	return r;
}

int log_format_line(enum cli_log_format format, const char *ts, enum log_level level, const char *msg,
		    const char *const *kv, size_t n, struct strbuf *out)
{
	if (format == CLI_LOG_JSON)
		return log_format_json(ts, level, msg, kv, n, out);
	strbuf_appendf(out, "%s %s ", ts, log_level_name(level));
	/* The message is ours, but may quote a host or API string: escape it like a value, unquoted. */
	for (const char *p = msg; *p && p - msg < LOG_VALUE_MAX; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < ' ' || c == 0x7f)
			strbuf_appendf(out, "\\x%02x", c);
		else
			strbuf_appendf(out, "%c", c);
	}
	for (size_t i = 0; i < n; i++) {
		if (!kv[2 * i] || !kv[2 * i + 1])
			continue;
		strbuf_appendf(out, " %s=", kv[2 * i]);
		log_text_value(out, kv[2 * i + 1]);
	}
	strbuf_append(out, "\n");
	return out->oom ? -ENOMEM : 0;
}

void log_time_text(const struct timespec *ts, unsigned digits, char *buf, size_t len)
{
	unsigned long frac = (unsigned long)ts->tv_nsec;
	struct tm tm;
	char sec[32];

	gmtime_r(&ts->tv_sec, &tm);
	strftime(sec, sizeof(sec), "%Y-%m-%dT%H:%M:%S", &tm);
	if (!digits) {
		snprintf(buf, len, "%sZ", sec);
		return;
	}
	for (unsigned i = digits; i < 9; i++)
		frac /= 10;
	snprintf(buf, len, "%s.%0*luZ", sec, (int)digits, frac);
}

void log_emit(enum log_level level, const char *msg, ...)
{
	const char *kv[2 * LOG_FIELDS_MAX];
	struct strbuf sb = { 0 };
	struct timespec now;
	char ts[48];
	size_t n = 0;
	va_list ap;

	if (level > log_max)
		return;
	va_start(ap, msg);
	for (;;) {
		const char *k = va_arg(ap, const char *), *v;

		if (!k)
			break;
		v = va_arg(ap, const char *);
		if (n < LOG_FIELDS_MAX) {
			kv[2 * n] = k;
			kv[2 * n + 1] = v;
			n++;
		}
	}
	va_end(ap);
	clock_gettime(CLOCK_REALTIME, &now);
	log_time_text(&now, 3, ts, sizeof(ts));
	if (log_format_line(log_format, ts, level, msg, kv, n, &sb) == 0) {
		FILE *out = log_out ? log_out : stderr;

		fputs(sb.s, out);
		fflush(out);
	}
	strbuf_free(&sb);
}

void log_delay_text(uint64_t delay_ms, char *buf, size_t len)
{
	const struct timespec at = { .tv_sec = time(NULL) + (time_t)((delay_ms + 999) / 1000) };
	char ts[48];

	log_time_text(&at, 0, ts, sizeof(ts));
	snprintf(buf, len, "%llu.%03llus (%s)", (unsigned long long)(delay_ms / 1000),
		 (unsigned long long)(delay_ms % 1000), ts);
}
