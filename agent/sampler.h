/* sampler.h - when the daemon samples the GPU pods' transport (a pod new to it, the timer, SIGHUP), and one log line per judged change. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "agent/schedule.h"
#include "agent/tsample.h"
#include "probes/model/observation.h"
#include "report/checks/workloads.h"

/*
 * sampler_take() - the GPU pods' transport (observe_transport()) into @o, whose API facts are the
 * daemon's (@have_facts: they were read): sampled when its timer is @due (every 60 s while they
 * run, SIGHUP), and at once when a GPU pod starts running; nothing is read under /proc/<pid>/net
 * while none runs. @ts keeps the last sample; @sched's transport timer is set again.
 * Return: 0; -ENOMEM.
 */
int sampler_take(struct tsample *ts, struct schedule *sched, struct observation *o, bool have_facts, bool due,
		 uint64_t now);

/*
 * sampler_log() - one line per GPU pod whose judged transport changed (a pod's first judgement
 * included), with the evidence: the daemon's only record of an idle pod's history ("it had 8
 * clients ... until").
 */
void sampler_log(struct tsample *ts, const struct workloads *w);
