/* workload_events.h - the daemon's Events on GPU pods: one per pod uid and verdict, for unattached and partially attached pods. */
#pragma once

#include <stdint.h>

#include "agent/publish.h"
#include "report/checks/profile.h"
#include "report/checks/workloads.h"

/**
 * workload_events_queue() - from the GPU pods of o->kube as the loop judged them into @w (nothing
 * when the pod list was not read; transport only after a fresh sample), queue one Event per pod
 * uid and verdict for the unattached and partially attached ones, and per pod uid and transport
 * state none or partial (never twice in the publisher's lifetime: a pod that stays partial across
 * resyncs gets one Event, a pod that turns attached gets none), and forget the pods that left the
 * node. They are posted by the next job that posts (agent/apiwrite.c).
 * Return: 0; -ENOMEM.
 */
int workload_events_queue(struct publisher *pb, const struct observation *o, const struct profile *p,
			  const struct workloads *w, uint64_t now);
