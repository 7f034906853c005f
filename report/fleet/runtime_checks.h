/* runtime_checks.h - the runtime check's inputs and its runtime-level findings, one function per id (implemented by runtime_*.c). */
#pragma once

#include "probes/kube/trainruntime.h"
#include "probes/model/obs_kube.h"
#include "report/checks/attach.h"
#include "report/checks/releases.h"
#include "report/fleet/fleet.h"

/* What a runtime is held against. */
struct runtime_input {
	const struct trainruntime *rt;
	const struct fleet_facts *ff;
	const struct attach_node *node;         /* fleet_node_build() of ff: what the templates are judged on */
	const struct obs_kube *networks;        /* networks_fetch and networks only: the cluster's Network objects */
	const struct releases *releases;        /* the table in effect (NULL: built in) */
	const char *prefix;                     /* our annotation and label prefix ("fabric.aicr.run/") */
};

/*
 * Each writes one finding into @f (pass, warn, fail or skip, with a remedy when it does not pass).
 * Return: 0 or -ENOMEM.
 */

/* runtime_net.c: the Networks of networking.gke.io/interfaces against the cluster's and the fleet's. */
int runtime_net_published(const struct runtime_input *in, struct finding *f);  /* networks-published */
int runtime_net_mapping(const struct runtime_input *in, struct finding *f);    /* mapping */
int runtime_net_empty(const struct runtime_input *in, struct finding *f);      /* empty-mapping */

/* runtime_pins.c: the daemon image and the NCCL environment against the release table. */
int runtime_pins_daemon(const struct runtime_input *in, struct finding *f);    /* daemon-pin */
int runtime_pins_env(const struct runtime_input *in, struct finding *f);       /* env-pin */

/* runtime_sched.c: where the pods can land. */
int runtime_sched_gpus(const struct runtime_input *in, struct finding *f);     /* gpus */
int runtime_sched_placement(const struct runtime_input *in, struct finding *f);        /* scheduling */
