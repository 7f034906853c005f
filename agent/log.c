/* log.c - the daemon's log lines on stderr: one line per decision, plain text or one JSON object. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/log.h"
#include "probes/model/json.h"
#include "report/render/render.h"

static enum cli_log_format log_format = CLI_LOG_TEXT;
static enum log_level log_max = LOG_LEVEL_INFO;
static const char *log_node;
static FILE *log_out;

void log_setup(enum cli_log_format format, int verbose, const char *node, FILE *out)
{
	log_format = format;
	log_max = verbose > 0 ? LOG_LEVEL_DEBUG : LOG_LEVEL_INFO;
	log_node = node;
	log_out = out;
}

/*
 * Whether Cloud Logging takes the top-level JSON key @key for a field of the LogEntry rather than
 * of its jsonPayload: time, timestamp, timestampSeconds, timestampNanos, severity, message,
 * httpRequest, and every logging.googleapis.com/ key.
 */
static bool log_key_reserved(const char *key)
{
	/* https://cloud.google.com/logging/docs/structured-logging#special-payload-fields */
	static const char *const reserved[] = {
		"time", "timestamp", "timestampSeconds", "timestampNanos", "severity", "message", "httpRequest",
	};

	for (size_t i = 0; i < sizeof(reserved) / sizeof(reserved[0]); i++)
		if (strcmp(key, reserved[i]) == 0)
			return true;
	return strncmp(key, "logging.googleapis.com/", 23) == 0;
}

/* Each level's word in text lines and its Cloud Logging severity in JSON ones (another level: info's). */
static const struct log_level_words {
	const char *name, *severity;
} log_levels[] = {
	[LOG_LEVEL_ERROR] = { "error", "ERROR" }, [LOG_LEVEL_WARN] = { "warn", "WARNING" },
	[LOG_LEVEL_INFO] = { "info", "INFO" }, [LOG_LEVEL_DEBUG] = { "debug", "DEBUG" },
};

static const struct log_level_words *log_words(enum log_level level)
{
	return &log_levels[level <= LOG_LEVEL_DEBUG ? level : LOG_LEVEL_INFO];
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
	size_t n = render_cut(s, LOG_VALUE_MAX);
	bool cut = s[n] != '\0';

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

/* One string member of @obj, cut to LOG_VALUE_MAX bytes (the serialiser escapes the rest). */
static int log_json_add(struct json *obj, const char *key, const char *value)
{
	char *v = render_cut_dup(value, LOG_VALUE_MAX);
	int r;

	if (!v)
		return -ENOMEM;
	r = json_add_string(obj, key, v);
	free(v);
	return r;
}

/* Cloud Logging's labels ({"node": NODE}) and sourceLocation of a line. */
static int log_json_special(struct json *line, const char *node, const struct log_source *src)
{
	struct json *o;
	char num[16];
	int r = 0;

	/* json_add() takes @o even on error (and refuses a NULL one): an incomplete object is freed with the line. */
	if (node) {
		o = json_new_object();
		r |= log_json_add(o, "node", node);
		r |= json_add(line, "logging.googleapis.com/labels", o);
	}
	if (src && src->file) {
		o = json_new_object();
		snprintf(num, sizeof(num), "%u", src->line);
		/* LogEntrySourceLocation: line is an int64, which proto3's JSON writes as a string. */
		if (json_add_string(o, "file", src->file) < 0 || json_add_string(o, "line", num) < 0 ||
		    (src->func && json_add_string(o, "function", src->func) < 0))
			r = -ENOMEM;
		r |= json_add(line, "logging.googleapis.com/sourceLocation", o);
	}
	return r < 0 ? -ENOMEM : 0;
}

static int log_format_json(const char *ts, enum log_level level, const char *msg, const char *const *kv,
			   size_t n, const char *node, const struct log_source *src, struct strbuf *out)
{
	struct json *line = json_new_object();
	char *text = NULL;
	int r = -ENOMEM;

	if (!line || json_add_string(line, "time", ts) < 0 ||
	    json_add_string(line, "severity", log_words(level)->severity) < 0 || log_json_add(line, "message", msg) < 0)
		goto out;
	/* The node is a label (Cloud Logging indexes labels): a "node" pair names it, else the daemon's. */
	for (size_t i = 0; i < n; i++)
		if (kv[2 * i] && kv[2 * i + 1] && strcmp(kv[2 * i], "node") == 0)
			node = kv[2 * i + 1];
	if (log_json_special(line, node, src) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *key = kv[2 * i];
		char renamed[128];

		if (!key || !kv[2 * i + 1] || strcmp(key, "node") == 0)
			continue;
		if (log_key_reserved(key)) {
			snprintf(renamed, sizeof(renamed), "%s_", key);
			key = renamed;
		}
		if (log_json_add(line, key, kv[2 * i + 1]) < 0)
			goto out;
	}
	text = json_print(line, false);
	if (!text)
		goto out;
	/* cJSON leaves U+2028/2029 and DEL raw; none of them breaks a line, so one object stays one line. */
	strbuf_append(out, text);
	strbuf_append(out, "\n");
	r = out->oom ? -ENOMEM : 0;
out:
	free(text);
	json_free(line);
	return r;
}

int log_format_line(enum cli_log_format format, const char *ts, enum log_level level, const char *msg,
		    const char *const *kv, size_t n, const char *node, const struct log_source *src,
		    struct strbuf *out)
{
	if (format == CLI_LOG_JSON)
		return log_format_json(ts, level, msg, kv, n, node, src, out);
	strbuf_appendf(out, "%s %s ", ts, log_words(level)->name);
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

void log_emit_at(const char *file, unsigned line, const char *func, enum log_level level, const char *msg, ...)
{
	const struct log_source src = { .file = file, .func = func, .line = line };
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
	if (log_format_line(log_format, ts, level, msg, kv, n, log_node, &src, &sb) == 0) {
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
