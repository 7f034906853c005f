/* tsample.h - the daemon's transport samples: when a GPU pod starts, and the previous sample per pod for rates (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/obs_kube.h"
#include "probes/model/obs_transport.h"

/* One pod of the last sample: who it was (uid, pid read) and its interface counters then. */
struct tsample_pod {
	char uid[OBS_TRANSPORT_UID_MAX];
	int pid;                                /* 0: not read then */
	uint64_t ms;                            /* sampled_ms */
	struct obs_transport_dev devs[OBS_TRANSPORT_DEVS_MAX];
	size_t n_devs;
};

/* What the daemon keeps of its last transport sample. Zero-initialised = none yet. */
struct tsample {
	struct tsample_pod *v;                  /* sorted by uid */
	size_t n;
};

/**
 * tsample_running() - the GPU pods that run on @node in @k (transport_pod_sampled()), and whether
 * one of them was not in the last sample (@ret_new: a GPU pod started, sample at once).
 * Return: how many run.
 */
size_t tsample_running(const struct tsample *ts, const struct obs_kube *k, const char *node, bool *ret_new);

/**
 * tsample_carry() - give each pod of @t read from the same process as in the last sample
 * (same uid and pid) that sample's counters as its previous one (has_prev, prev, prev_ms: rates
 * for the judgement), then keep @t's pods as the last sample (a pod not in @t is forgotten).
 * Return: 0; -ENOMEM (@ts then holds nothing, @t is filled as far as it went).
 */
int tsample_carry(struct tsample *ts, struct obs_transport *t);

/* The pod @uid of the last sample (a binary search: @ts is sorted by uid), or NULL. */
const struct tsample_pod *tsample_find(const struct tsample *ts, const char *uid);

void tsample_free(struct tsample *ts);  /* accepts NULL; leaves *ts empty */
