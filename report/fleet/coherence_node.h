/* coherence_node.h - pure: one NodeList node's published facts, read once for the coherence judgement and the runtime check. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/kube/nodelist.h"
#include "report/checks/ifacemap.h"
#include "report/checks/profile.h"

#define COHERENCE_NODE_INSTANCE_TYPE "a3-megagpu-8g"
#define COHERENCE_NODE_FAILS_MAX 32     /* failed checks kept per node */
#define COHERENCE_NODE_VALUE_MAX 64     /* bytes of one published value kept (a tag, a label value) */

enum coherence_node_kind {
	COHERENCE_NODE_KIND_TCPXO = 0,  /* profile annotation "tcpxo" */
	COHERENCE_NODE_KIND_UNOBSERVED, /* labelled a3-megagpu-8g, no profile annotation yet */
	COHERENCE_NODE_KIND_TCPX,
	COHERENCE_NODE_KIND_NONE,
	COHERENCE_NODE_KIND_OTHER,      /* no profile and another machine type, or an unknown profile */
};

enum coherence_node_ready {
	COHERENCE_NODE_READY_TRUE = 0,
	COHERENCE_NODE_READY_FALSE,
	COHERENCE_NODE_READY_MISSING,
	COHERENCE_NODE_READY_BAD,
};

enum coherence_node_map {
	COHERENCE_NODE_MAP_VALID = 0,
	COHERENCE_NODE_MAP_MISSING,
	COHERENCE_NODE_MAP_MALFORMED,
	COHERENCE_NODE_MAP_INVALID,     /* parses, breaks the renderer's rules */
};

enum coherence_node_attach {
	COHERENCE_NODE_ATTACH_OK = 0,
	COHERENCE_NODE_ATTACH_MISSING,
	COHERENCE_NODE_ATTACH_BAD,
};

/* Our condition (FabricReady) as the node carries it. */
enum coherence_node_cond {
	COHERENCE_NODE_COND_MISSING = 0,        /* no entry of our type */
	COHERENCE_NODE_COND_TRUE,
	COHERENCE_NODE_COND_FALSE,
	COHERENCE_NODE_COND_UNKNOWN,            /* "Unknown", or a status that is none of the three */
};

struct coherence_node_fail {
	char *id;                       /* printable, owned */
	char *message;                  /* printable, cut, owned; "" when the check gave none */
};

/* A spec.taints entry; owned, printable, NULL when absent or not a string. */
struct coherence_node_taint {
	char *key, *value, *effect;
};

/*
 * One node as its agent published it. The mapping and a bad ready value are kept for TCPXO nodes
 * only (the coherence judgement weighs those alone); the failed checks for every node that carries
 * a profile annotation (the fleet's status lists them); the rest for every node (the runtime check
 * groups the nodes of either fabric). Strings owned and printable; a published
 * value NULL when the node does not publish it.
 */
struct coherence_node {
	char *name;                     /* printable (control bytes replaced), owned */
	enum coherence_node_kind kind;
	bool dranet;                    /* labelled cloud.google.com/gke-networking-dra-driver=true: GKE managed DRANET */
	char *profile;                  /* the profile annotation when a string, printable, cut to COHERENCE_NODE_VALUE_MAX; NULL otherwise */
	enum coherence_node_ready ready;
	char *ready_value;              /* TCPXO, COHERENCE_NODE_READY_BAD: the value, printable */
	enum coherence_node_map map;    /* TCPXO */
	struct profile_iface ifaces[IFACEMAP_ENTRIES];  /* COHERENCE_NODE_MAP_VALID, sorted eth1..eth8 */
	char *map_why;                  /* COHERENCE_NODE_MAP_INVALID: the broken rules, printable */
	char *names_why;                /* COHERENCE_NODE_MAP_VALID but AICR's naming rule broken: which names */
	enum coherence_node_attach attach;      /* a profile annotation: the attachment readable or not */
	struct coherence_node_fail *fails;  /* a profile annotation: the attachment's checks with status "fail", in its order */
	size_t n_fails;
	char *itype, *accel, *pool;     /* labels, cut to COHERENCE_NODE_VALUE_MAX */
	char *installer, *expected;     /* attachment versions.installer, versions.expectedDaemon (not empty) */
	char *gpus, *nics;              /* counted from the attachment's GPU<->NIC pairs (distinct NICs), as text */
	struct coherence_node_taint *taints;    /* the first NODELIST_TAINTS_MAX */
	size_t n_taints;
	enum coherence_node_cond cond;  /* our condition's status */
	char *heartbeat;                /* its lastHeartbeatTime, printable, cut; NULL when absent */
};

/**
 * coherence_node_read() - the facts of one NodeList item: its name and kind (the profile
 * annotation, else the instance-type label), readiness, labels, taints, and what its attachment
 * says (versions and GPU<->NIC pairs; the attachment is parsed here and nowhere else), our
 * condition's status and heartbeat; for a node with a profile annotation the failed checks of its
 * attachment (at most COHERENCE_NODE_FAILS_MAX); for a TCPXO node also its mapping parsed and held
 * to the renderer's rules (ifacemap_validate(), and AICR's naming rule noted apart in names_why)
 * and a bad ready value.
 * An annotation that is absent, not a string or unreadable is a fact, not an error.
 * @n: written in every case; on error it may hold part of the facts. Free with coherence_node_clear().
 *
 * Return: 0; -ENOMEM.
 */
int coherence_node_read(struct coherence_node *n, const struct nodelist_item *it);

/* Free what coherence_node_read() kept; @n is zeroed. */
void coherence_node_clear(struct coherence_node *n);
