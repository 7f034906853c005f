/* render_status.h - `tcpxo-agent status`'s output: one row per listed node and the not-ready nodes by cause, or its JSON (pure). */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "report/checks/stresult.h"

#define RENDER_STATUS_NAMES_SHOWN 20    /* node names per cause line of the human output before "… (N more)" */

/*
 * render_status_summary() - the first line: "fleet: N nodes listed, R ready, K not ready" (or
 * "fleet: no A3 node and no node with a fabric profile"), into @buf of @len bytes.
 */
void render_status_summary(const struct stresult *r, char *buf, size_t len);


/**
 * render_status_table() - the summary, then one row per listed node by name (NODE, PROFILE,
 * READY yes/no/unobserved, AGE of the verdict with "(stale)", CAUSES; @wide adds MACHINE TYPE,
 * HEARTBEAT as published, TRANSPORT before CAUSES), then the not-ready nodes grouped by cause,
 * the most nodes first ("links: 2 nodes: a, b").
 * Return: 0 or -EIO when the stream failed.
 */
int render_status_table(const struct stresult *r, bool wide, FILE *out);

/* render_status_human() - render_status_table() without @wide (-o wide has it). */
int render_status_human(const struct stresult *r, FILE *out);

/*
 * render_status_transport() - a node's TRANSPORT cell: "fastrak (8 GPUs, 8 NICs)" from its
 * published profile and GPU<->NIC pairs; "fastrak" without pairs, "-" for a profile with none.
 */
void render_status_transport(const struct stresult_node *n, char *buf, size_t len);

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
