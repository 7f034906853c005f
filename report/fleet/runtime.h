/* runtime.h - `tcpxo-agent runtime`'s judgement: a named runtime held against what the fleet's agents published (pure). */
#pragma once

#include "report/checks/rtresult.h"
#include "report/fleet/runtime_checks.h"

/**
 * runtime_judge() - hold @rt against the fleet @ff (one fabric's facts, report/fleet/fleet.h):
 * the runtime-level findings in their order (name, networks-published, mapping, daemon-pin,
 * env-pin, gpus, scheduling, empty-mapping; see runtime_checks.h), a daemon-version finding
 * when the fleet's nodes run more than one installer release, then every replicated job's pod
 * template judged by attach_judge() (the workload checker, unchanged) against the node facts
 * fleet_node_build() makes of @ff. The verdict fails when any finding fails; the summary is
 * "runtime NAME: matches N TCPXO nodes", or "runtime NAME: does not match: ID: MESSAGE" for
 * the first failure in that order.
 * @networks: the cluster's Network objects (networks_fetch, networks); NULL: not read.
 * @t: the release table in effect (NULL: built in); @prefix: our annotation and label prefix.
 * @ret: written on success; free with rtresult_free().
 *
 * Return: 0 or -ENOMEM.
 */
int runtime_judge(const struct trainruntime *rt, const struct fleet_facts *ff, const struct obs_kube *networks,
		  const struct releases *t, const char *prefix, struct rtresult *ret);

/*
 * runtime_fabric_of() - the fabric @rt is wired for: its daemon image's folder, else the NCCL
 * variable family of its GPU containers, else its name's suffix ("-tcpxo", "-tcpx"); PROFILE_NONE
 * when none says. Chooses the fleet in a cluster that has both.
 */
enum profile_kind runtime_fabric_of(const struct trainruntime *rt);
