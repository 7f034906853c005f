/* render_status.h - `tcpxo-agent status`'s output: one row per listed node and the not-ready nodes by cause, or its JSON (pure). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "report/checks/stresult.h"

#define RENDER_STATUS_NAMES_SHOWN 20    /* node names per cause line of the human output before "… (N more)" */

/**
 * render_status_table() - the summary, then one row per listed node by name (NODE, PROFILE,
 * READY yes/no/unobserved, AGE of the verdict with "(stale)", CAUSES; @wide adds MACHINE TYPE,
 * HEARTBEAT as published, TRANSPORT before CAUSES), then the not-ready nodes grouped by cause,
 * the most nodes first ("links: 2 nodes: a, b").
 * Return: 0 or -EIO when the stream failed.
 */
int render_status_table(const struct stresult *r, bool wide, FILE *out);

/* render_status_names() - -o name: "node/NAME" per listed node, by name. Return: 0 or -EIO. */
int render_status_names(const struct stresult *r, FILE *out);

/**
 * render_status_json() - {"schema", "summary", "heartbeatPeriodSeconds", "ready", "nodes": [{"name",
 * "profile", "machineType", "ready", "unobserved", "stale", "causes", "heartbeat", "ageSeconds",
 * "transport": {"path", "gpus", "nics"} or null}],
 * "causes": {id: [node names]}} (docs/schema/status.schema.json), pretty-printed with a trailing
 * newline; "ready" at the top is true when every listed node is.
 * Return: malloc'd text, or NULL on -ENOMEM.
 */
char *render_status_json(const struct stresult *r);
