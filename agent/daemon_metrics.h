/* daemon_metrics.h - the daemon's /metrics: what the loop notes after each observation, and the page it serves. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "agent/apiwatch.h"
#include "agent/publish.h"
#include "report/checks/profile.h"
#include "report/checks/workloads.h"

struct daemon_metrics;                  /* opaque */

/**
 * daemon_metrics_new() - serve /metrics on @address (--metrics-address) with what @pb counts
 * (its client's requests, its writes); the watches' relists once daemon_metrics_watches() names them.
 * Return: 0 with @ret; the errors of metrics_http_new() (an address refused, libmicrohttpd
 * missing, a port in use), @err saying why.
 */
int daemon_metrics_new(const char *address, const struct publisher *pb, struct daemon_metrics **ret,
		       char *err, size_t errlen);

void daemon_metrics_free(struct daemon_metrics *m);    /* accepts NULL */

/* The watches whose relists the page counts (NULL: none). */
void daemon_metrics_watches(struct daemon_metrics *m, const struct apiwatch *aw);

/* An observation starts now: its duration counts from here. NULL is fine (no metrics). */
void daemon_metrics_start(struct daemon_metrics *m);

/**
 * daemon_metrics_observed() - an observation was made and judged into @p, its GPU pods into @w
 * (the loop's one judgement, transport included when a sample was taken): keep the verdict, the
 * checks and the pods' rows (kept as they were while the pod list is not read; a pod's transport
 * as last judged between samples), the time (Unix) and the duration since
 * daemon_metrics_start(). NULL @m is fine.
 * Return: 0; -ENOMEM (the last values stand).
 */
int daemon_metrics_observed(struct daemon_metrics *m, const struct profile *p, const struct workloads *w);

/* The last observation could not be made: tcpxo_node_observed 0, the last verdict stands. NULL is fine. */
void daemon_metrics_unobserved(struct daemon_metrics *m);

/*
 * The server, for the poll() side: metrics_http_fd(), _timeout(), _run() and _address() (the port
 * resolved) take it, NULL (no --metrics-address) as none.
 */
struct metrics_http *daemon_metrics_http(const struct daemon_metrics *m);
