/* render_runtime.h - `tcpxo-agent runtime`'s output: the summary and findings table, or its JSON (pure). */
#pragma once

#include <stdio.h>

#include "report/checks/rtresult.h"

/**
 * render_runtime_human() - the summary as the first line, then one row per finding (FINDING,
 * JOB, STATUS, DETAIL), runtime-level ones first; a failed or warned one has its remedy below it.
 * Return: 0 or -EIO when the stream failed.
 */
int render_runtime_human(const struct rtresult *r, FILE *out);

/**
 * render_runtime_json() - {"schema", "runtime", "fabric", "nodes", "matches", "summary",
 * "findings": [{"id", "status", "message", "template", "remedy"}]} (docs/schema/runtime.schema.json),
 * pretty-printed with a trailing newline; "template" is the replicated job of a pod-template
 * finding, null for a runtime-level one.
 * Return: malloc'd text, or NULL on -ENOMEM.
 */
char *render_runtime_json(const struct rtresult *r);
