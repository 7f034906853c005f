/* rtresult.h - the runtime check's result: its finding ids, each finding (runtime-level or of a replicated job), the verdict (pure data). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report/checks/attach.h"
#include "report/checks/profile.h"

/*
 * `tcpxo-agent runtime` holds a named runtime (a ClusterTrainingRuntime) against the facts the
 * fleet's agents published. Its findings are of two kinds: runtime-level ones (the ids below,
 * DESIGN.md's order) and, for each replicated job's pod template, the eleven findings of the
 * workload checker (attach_judge(), attach.h's ids), the job named. report/fleet/runtime.c fills
 * it; report/render/render_runtime.c prints it.
 */

/* Runtime-level finding ids, in their fixed order. New ones at the end; never reused. */
enum rtresult_id {
	RTRESULT_NAME = 0,
	RTRESULT_NETWORKS_PUBLISHED,
	RTRESULT_MAPPING,
	RTRESULT_DAEMON_PIN,
	RTRESULT_ENV_PIN,
	RTRESULT_GPUS,
	RTRESULT_SCHEDULING,
	RTRESULT_EMPTY_MAPPING,
	RTRESULT__COUNT,
};

enum rtresult_verdict {
	RTRESULT_MATCHES = 0,           /* no finding fails (warnings allowed) */
	RTRESULT_FAILS,                 /* a finding fails */
};

struct rtresult_finding {
	const char *id;                 /* static: a runtime_checks[] row's name or attach_finding_name() */
	char *job;                      /* owned: the replicated job of a pod-template finding; NULL runtime-level */
	struct finding f;               /* message never NULL; remedy NULL for pass and skip */
};

struct rtresult {
	char *runtime;                  /* owned: the runtime's name, printable */
	enum profile_kind kind;         /* the fleet's fabric */
	size_t n_nodes;                 /* the fleet's nodes of that fabric (observed) */
	enum rtresult_verdict verdict;
	char *summary;                  /* owned: the first line of the report */
	struct rtresult_finding *findings;      /* runtime-level first (id order), then each job's */
	size_t n_findings;
};

/**
 * rtresult_add() - append a finding taking @f's message and remedy (@f is left empty).
 * @id: a static name; @job: copied, NULL for a runtime-level finding.
 * Return: 0 or -ENOMEM (@f is freed either way).
 */
int rtresult_add(struct rtresult *r, const char *id, const char *job, struct finding *f);

/* The findings of @status, and the first of them in report order (NULL when none). */
size_t rtresult_count(const struct rtresult *r, enum check_status status);
const struct rtresult_finding *rtresult_first(const struct rtresult *r, enum check_status status);

/* Release what @r owns (not @r) and zero it. Accepts NULL. */
void rtresult_free(struct rtresult *r);
