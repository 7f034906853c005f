/* log.h - the daemon's log lines on stderr: one line per decision, plain text or one JSON object. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "agent/cli.h"
#include "probes/model/strbuf.h"

enum log_level {
	LOG_LEVEL_ERROR = 0,
	LOG_LEVEL_WARN,
	LOG_LEVEL_INFO,
	LOG_LEVEL_DEBUG,
};

#define LOG_VALUE_MAX 1024      /* a field value longer than this is cut, ending in "..." */
#define LOG_FIELDS_MAX 16       /* key/value pairs per line */

/*
 * Where and how lines go: @verbose 0 logs info and above; 1 or more (-v, -vv) adds the debug
 * lines (each event that wakes the loop, each API read and resync, writes held back, heartbeats).
 * @node: the node every JSON line names in its labels (NULL: none). @out NULL: stderr.
 */
void log_setup(enum cli_log_format format, int verbose, const char *node, FILE *out);

/* Where a line comes from: Cloud Logging's sourceLocation of a JSON line (NULL: none). */
struct log_source {
	const char *file, *func;
	unsigned line;
};

/**
 * log_emit() - write one line at @level (dropped below the configured level): @msg then
 * key, value string pairs, NULL-terminated (a NULL value is skipped). Never fails loudly: a
 * line that cannot be built is dropped. A macro: the caller's file, line and function go with it.
 */
#define log_emit(level, ...) log_emit_at(__FILE__, __LINE__, __func__, (level), __VA_ARGS__)
void log_emit_at(const char *file, unsigned line, const char *func, enum log_level level, const char *msg, ...)
	__attribute__((sentinel));

/**
 * log_format_line() - pure: the line for @ts, @level, @msg and @n pairs in @kv (kv[2i] the
 * key, kv[2i+1] the value; NULL values skipped), with its newline, appended to @out.
 * Text: "TS LEVEL MSG key=value ..." where a value holding a space, quote, '=' or control
 * character is quoted and escaped (@node and @src are not printed).
 * JSON, one object in Cloud Logging's structured-logging form, every field at the top level:
 * {"time":TS,"severity":"WARNING","message":MSG,"logging.googleapis.com/labels":{"node":NODE},
 * "logging.googleapis.com/sourceLocation":{"file":F,"line":"N","function":FN},key:value,...};
 * severity one of DEBUG, INFO, WARNING, ERROR (the text's LEVEL: debug, info, warn, error). The
 * node is a label, never a field: a "node" pair's value, else @node (no labels without either). A
 * key that Cloud Logging reserves (time, timestamp, timestampSeconds, timestampNanos, severity,
 * message, httpRequest, any logging.googleapis.com/ key) gets a trailing '_' ("time_"), so no
 * field can set the entry's own time, severity or message.
 * Control characters never pass through raw; values are cut at LOG_VALUE_MAX bytes.
 * Return: 0; -ENOMEM.
 */
int log_format_line(enum cli_log_format format, const char *ts, enum log_level level, const char *msg,
		    const char *const *kv, size_t n, const char *node, const struct log_source *src,
		    struct strbuf *out);

/**
 * log_time_text() - @ts as RFC 3339 UTC text with @digits (0, 3 or 6) fractional digits:
 * "2026-12-02T14:31:17Z", "2026-12-02T14:31:17.123Z", "2026-12-02T14:31:17.123456Z"; cut to @len.
 */
void log_time_text(const struct timespec *ts, unsigned digits, char *buf, size_t len);

/* A delay as a log value: "12.345s (2026-12-02T14:31:17Z)", the wall-clock time it ends. */
void log_delay_text(uint64_t delay_ms, char *buf, size_t len);
