/* apifacts.h - the daemon's API facts (its Node, the pods on it, the Networks): read by polling or kept by the watches; whether they are read; when a write may go. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "agent/apiwatch.h"
#include "agent/schedule.h"
#include "probes/model/obs_kube.h"

struct apifacts {
	struct obs_kube k;              /* the facts: node, pods, our keys as published */
	bool have;                      /* they came from a successful read (or filled watches) */
	struct apiwatch *aw;            /* the watches keeping them (NULL: --no-watch or no API) */
	unsigned long aw_seen;          /* apiwatch_changes() acted upon */
	bool aw_started;                /* the watches were started (the start jitter passed) */
	bool aw_settled;                /* the watches' first facts (or failures) came */
	char unread_why[KUBE_MSG_MAX];  /* watches: why the node's or pods' facts are not read ("": they are) */
};

/*
 * apifacts_open() - how @af gets its facts: none without @api, polling with @no_watch or when the
 * watches (@cfg) cannot be set up (logged), else watches. Return: the mode for schedule_init().
 */
enum schedule_api apifacts_open(struct apifacts *af, bool api, bool no_watch, const struct apiwatch_config *cfg);

void apifacts_close(struct apifacts *af);

/*
 * apifacts_watches() - watches: start or resync them when SCHEDULE_READ is in @due. Return:
 * whether the iteration may go on (their first facts came; until then the observation waits).
 */
bool apifacts_watches(struct apifacts *af, struct schedule *sched, unsigned due, uint64_t now);

/* apifacts_update() - watches: the stores into af->k. Return: 0; -ENOMEM. */
int apifacts_update(struct apifacts *af);

/*
 * apifacts_may_write() - watches: a write may go (@publish) when the node and its pods were read,
 * unless a failed write waits for its retry (SCHEDULE_RETRY in @due, taken here). A store the
 * parsers refuse as a whole leaves the checks that read it unknown: nothing is published, and the
 * next change of the store (or the resync) reads it again. Logged when the cause changes.
 */
bool apifacts_may_write(struct apifacts *af, struct schedule *sched, bool publish, unsigned due);

/* apifacts_drive() - watches: the stores' changes, after the client's streams ran (the first settles, the next are events). */
void apifacts_drive(struct apifacts *af, struct schedule *sched, uint64_t now);
