/* tsample.h - the daemon's transport samples: when a GPU pod starts, and the previous sample per pod for rates (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/obs_kube.h"
#include "probes/model/obs_transport.h"
#include "report/checks/transport.h"

/*
 * One pod of the last sample: who it was (uid, pid read), its interface counters and rails then,
 * and the last sample that saw it with a client (kept while the pod runs).
 */
struct tsample_pod {
	char uid[OBS_TRANSPORT_UID_MAX];
	int pid;                                /* 0: not read then */
	uint64_t ms;                            /* sampled_ms */
	struct obs_transport_dev devs[OBS_TRANSPORT_DEVS_MAX];
	size_t n_devs;
	size_t rails;                           /* distinct NIC addresses with a client then (pid != 0) */
	size_t had_clients, had_rails;          /* the last sample with a client: clients, NIC addresses */
	long long had_until_s;                  /* its wall clock; 0: no sample saw a client */
	long long since_s;                      /* the wall clock of the first sample of the pod */
	bool noted;                             /* a judgement was noted (tsample_note()) */
	enum transport_state state;             /* then: the last one, kept across samples */
};

/* What the daemon keeps of its last transport sample. Zero-initialised = none yet. */
struct tsample {
	struct tsample_pod *v;                  /* sorted by uid */
	size_t n;
};

/**
 * tsample_running() - the GPU pods that run on @node in @k (obs_transport_wants()), and whether
 * one of them was not in the last sample (@ret_new: a GPU pod started, sample at once).
 * Return: how many run.
 */
size_t tsample_running(const struct tsample *ts, const struct obs_kube *k, const char *node, bool *ret_new);

/**
 * tsample_carry() - give each pod of @t read now and in the last sample that sample's counters as
 * its previous ones (has_prev, prev, prev_ms: rates for the judgement; any process of the pod
 * will do, its containers share one network namespace), and its history: whether the last
 * sample read it and on how many NIC addresses it had clients (prev_read, prev_rails: a partial
 * seen twice in a row), and the last sample that saw a client (had_*, kept across samples that
 * did not read the pod), and since when it has been sampled (since_s). Then keep @t's pods as the
 * last sample (a pod not in @t is forgotten).
 * Return: 0; -ENOMEM (@ts then holds nothing, @t is filled as far as it went).
 */
int tsample_carry(struct tsample *ts, struct obs_transport *t);

/* The pod @uid of the last sample (a binary search: @ts is sorted by uid), or NULL. */
const struct tsample_pod *tsample_find(const struct tsample *ts, const char *uid);

/**
 * tsample_note() - note @state as the judged transport of the pod @uid of the last sample.
 * Return: true when it differs from the one noted before, or none was (a change to log); false
 * when the same, or @uid is not in the last sample.
 */
bool tsample_note(struct tsample *ts, const char *uid, enum transport_state state);

void tsample_free(struct tsample *ts);  /* accepts NULL; leaves *ts empty */
