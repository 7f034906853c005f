/* render.h - the report for people (text) and for scripts (JSON). */
#pragma once

#include <stdio.h>

#include "report/checks/profile.h"
#include "report/checks/workloads.h"

#define RENDER_SCHEMA "fabric.aicr.run/v1"
#define RENDER_WIDTH 100        /* columns of the human report: no tree line is wider, nor a detail or
                                 * remedy line unless one word is longer */

struct json;

/* render_opt() - @key with the string @s, or null when @s is NULL or empty (unknown). Return: 0 or -ENOMEM. */
int render_opt(struct json *obj, const char *key, const char *s);

/* render_built() - @v, or NULL with @v freed when building it failed (@r < 0: -ENOMEM ORed in). */
struct json *render_built(struct json *v, int r);

/* render_json_take() - @root pretty-printed with a trailing newline, unless @rc < 0; frees @root. NULL on failure. */
char *render_json_take(struct json *root, int rc);

/**
 * render_json() - the DESIGN.md JSON report, pretty-printed with a trailing newline.
 * @w: the workloads judged with the same observation; "workloads" is null when @w is NULL or
 *     the pod list was not read.
 * Equal inputs give byte-identical output. Return: malloc'd text, or NULL on -ENOMEM.
 */
char *render_json(const struct observation *o, const struct profile *p, const struct workloads *w);

/**
 * render_human() - the human report: the summary as the first line, the node as a PCIe tree
 * (render_tree()), the GPU<->NIC table, then the checks, each failed or warned one with its cause and remedy, then (when @w is not
 * NULL) the workloads table of render_workloads_human().
 * Return: 0 or -errno from the stream.
 */
int render_human(const struct observation *o, const struct profile *p, const struct workloads *w, FILE *out);

/**
 * render_workloads_summary() - "workloads: 1 unattached, 0 partial, 2 attached on NODE" (and
 * ", N not-fabric" before " on" when there are any); "workloads: not judged: WHY" when the pod
 * list was not read. Return: malloc'd text, or NULL on -ENOMEM.
 */
char *render_workloads_summary(const struct workloads *w, const char *node);

/**
 * render_workloads_human() - the summary line, then one row per GPU pod (POD, GPUS, VERDICT,
 * FINDINGS: the failed finding ids, then the warned ones), each failed finding below its pod
 * with its message and remedy, each warned one with its message. Return: 0 or -errno from the stream.
 */
int render_workloads_human(const struct workloads *w, const char *node, FILE *out);

/*
 * render_workloads_value() - the "workloads" member of the JSON report: {"counts": {...},
 * "pods": [...]}, each pod's findings those that did not pass (none for not-fabric pods).
 * JSON null when @w is NULL or not judged. Return: NULL on -ENOMEM.
 */
struct json *render_workloads_value(const struct workloads *w);

/**
 * render_workloads_json() - the document of `tcpxo-agent workloads --json`: schema, node,
 * summary, then counts and pods as in render_workloads_value(); pretty, newline-terminated.
 * Return: malloc'd text, or NULL on -ENOMEM.
 */
char *render_workloads_json(const struct workloads *w, const char *node);

/* Print a host- or API-supplied string with control characters replaced: it may be hostile. */
void render_safe(FILE *out, const char *s);

/* One table cell: @s ("-" when empty or NULL) through render_safe(), padded to @width plus two spaces (0: last cell). */
void render_cell(FILE *out, const char *s, int width);

/*
 * render_cut() - how many bytes of @s to keep so that they and "..." fit in @max bytes, cut on a
 * UTF-8 boundary; when @s fits as it is, all of it (then @s[result] is its NUL). Reads at most
 * @max + 1 bytes of @s.
 */
size_t render_cut(const char *s, size_t max);

/* render_cut_dup() - a copy of @s cut by render_cut() with "..." marking a cut; NULL without memory. */
char *render_cut_dup(const char *s, size_t max);

/* A status as the human tables show it: "FAIL" and "WARN" in capitals, "pass" and "skip" as they are. */
const char *render_status_word(enum check_status st);
