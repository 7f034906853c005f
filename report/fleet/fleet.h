/* fleet.h - what a fleet's agents published, collected from NodeLists and grouped for one fabric (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/strbuf.h"
#include "report/checks/attach.h"
#include "report/checks/profile.h"
#include "report/fleet/coherence.h"

#define FLEET_NAMES_SHOWN 3             /* node names listed per group before "…" */

/* One value a fact takes on the fleet's nodes, and on which. */
struct fleet_group {
	char *value;                    /* owned, printable */
	size_t count;
	char *names;                    /* owned: "a, b, c, …", the first FLEET_NAMES_SHOWN by name */
};

/* Every value of one fact over the fleet: the most frequent first (ties by value). */
struct fleet_groups {
	struct fleet_group *v;
	size_t n;
	size_t unknown;                 /* nodes that do not publish the fact */
	char *unknown_names;            /* owned, as names above; NULL when unknown is 0 */
};

/* A NoSchedule or NoExecute taint some of the fleet's nodes carry. */
struct fleet_taint {
	char *key, *value, *effect;     /* owned, printable; value NULL when the taint has none */
	size_t count;
	char *names;
};

/* What the nodes of one fabric published: the facts the runtime is held against. */
struct fleet_facts {
	enum profile_kind kind;
	size_t n_nodes;                 /* nodes whose profile annotation names the fabric */
	size_t n_unobserved;            /* nodes of their machine types that publish no profile yet */
	size_t n_not_ready;             /* of n_nodes, those whose ready annotation is not "true" */
	bool ifaces_known;              /* TCPXO: every node observed and publishing one mapping */
	struct profile_iface ifaces[ATTACH_NICS_MAX];   /* eth1..eth8 -> Network, when known */
	size_t n_ifaces;
	char *mapping_why;              /* owned: why the mapping is unknown (the interfaces diagnostics); NULL when known */
	struct fleet_groups installers;         /* attachment versions.installer */
	struct fleet_groups expected_daemons;   /* attachment versions.expectedDaemon */
	struct fleet_groups gpus;               /* GPUs per node: the attachment's GPU<->NIC pairs */
	struct fleet_groups nics;               /* GPU NICs per node: the distinct NICs of those pairs */
	struct fleet_groups machine_types;      /* label node.kubernetes.io/instance-type */
	struct fleet_groups accelerators;       /* label cloud.google.com/gke-accelerator */
	struct fleet_groups pools;              /* label cloud.google.com/gke-nodepool */
	struct fleet_taint *taints;     /* by count, most first; then key, value, effect */
	size_t n_taints;
};

/**
 * fleet_new() - an empty coherence for the fleet, reading annotations under @prefix
 * ("fabric.aicr.run/"): its NodeLists go in with coherence_add_nodelist() (each node read once,
 * coherence_node_read()), and the mapping is judged by report/fleet/coherence.c over the same nodes,
 * readiness apart and without AICR's naming rule: a runtime is held against the Networks the nodes
 * are on. @ret: written on success; free with coherence_free().
 *
 * Return: 0; -EINVAL for an empty or over-long prefix; -ENOMEM.
 */
int fleet_new(const char *prefix, struct coherence **ret);

/* The nodes collected whose profile annotation is @kind's ("tcpxo", "tcpx"). */
size_t fleet_count(const struct coherence *f, enum profile_kind kind);

/**
 * fleet_facts() - the facts of the @kind nodes, grouped; nodes of other kinds are left out.
 * The result does not depend on the order the nodes came in.
 * @ret: written on success; free with fleet_facts_free().
 * @err: why it failed (@errlen bytes), written only on failure.
 *
 * Return: 0; -EINVAL when a node name appears twice; -ENOMEM.
 */
int fleet_facts(const struct coherence *f, enum profile_kind kind, struct fleet_facts *ret, char *err, size_t errlen);

void fleet_facts_free(struct fleet_facts *ff);

/*
 * fleet_groups_text() - "v1.0.15 on 60 nodes (a, b, c, …), v1.0.14 on 4 nodes (d, e, f, …)",
 * then ", N nodes without it (…)" when some do not publish it. Appended to @sb.
 */
void fleet_groups_text(const struct fleet_groups *g, struct strbuf *sb);

/* The most frequent value of @g, or NULL when no node publishes it. */
const char *fleet_groups_top(const struct fleet_groups *g);

/* Whether @value is one of @g's values. */
bool fleet_groups_has(const struct fleet_groups *g, const char *value);
