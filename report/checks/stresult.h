/* stresult.h - the fleet status's result: one row per listed node, the not-ready nodes grouped by cause (pure data). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * `tcpxo-agent status` lists the nodes of a fleet that matter to the fabric (a fabric profile
 * other than none, or an A3 GPU machine type) with the verdict their agents published.
 * report/fleet/status.c fills it from the NodeList's records; report/render/render_status.c
 * prints it. It sits one rank below both so that each can see it.
 *
 * A cause is a failed check's id as the node's attachment names it, or one of the words below,
 * which no check id takes.
 */
#define STRESULT_UNOBSERVED "unobserved"        /* an A3 node that carries nothing from the agent */
#define STRESULT_STALE "stale"                  /* the heartbeat is older than STRESULT_STALE_PERIODS periods */
#define STRESULT_READY_UNKNOWN "ready-unknown"  /* the ready annotation is absent or neither true nor false */
#define STRESULT_CHECKS_UNKNOWN "checks-unknown"        /* not ready, and the attachment names no failed check */
#define STRESULT_OBSERVATION_FAILED "observation-failed" /* FabricReady is Unknown: the daemon cannot observe the node */
#define STRESULT_CONDITION_MISSING "condition-missing"  /* a verdict published without its FabricReady condition */
#define STRESULT_HEARTBEAT_UNKNOWN "heartbeat-unknown"  /* FabricReady carries no lastHeartbeatTime, or one not RFC 3339 */
#define STRESULT_HEARTBEAT_FUTURE "heartbeat-in-future" /* ... one more than STRESULT_SKEW_S ahead of this clock */
#define STRESULT_STALE_PERIODS 3
#define STRESULT_SKEW_S 120                     /* clocks this far apart still agree: a heartbeat ahead by less is now */

struct stresult_node {
	char *name;                     /* owned, printable */
	char *profile;                  /* owned: the profile annotation; NULL when the node carries none */
	char *machine;                  /* owned: node.kubernetes.io/instance-type; NULL without the label */
	bool ready;                     /* published ready "true", FabricReady present and not Unknown, its
					   heartbeat readable, not in the future, not stale */
	bool unobserved;                /* no profile annotation: the agent never published here */
	bool stale;
	bool unknown;                   /* its verdict cannot be vouched for: stale, a heartbeat unreadable or in
					   the future, no condition, the condition Unknown, ready neither true nor false */
	char **causes;                  /* owned: failed check ids in the attachment's order, then our words */
	size_t n_causes;
	char *heartbeat;                /* owned: FabricReady's lastHeartbeatTime as published; NULL absent */
	long long age_s;                /* seconds since that heartbeat (0 when ahead by at most STRESULT_SKEW_S);
					   -1 unknown (absent, unreadable, further ahead) */
	const char *transport;          /* static: the data path the published profile gives the GPUs'
					   collectives (STRESULT_TRANSPORT_*); NULL for none or another profile */
	int gpus, nics;                 /* the published GPU<->NIC pairs: GPUs, distinct NICs; -1 not published */
};

#define STRESULT_TRANSPORT_TCPXO "fastrak"      /* GPUDirect-TCPXO: the FasTrak plugin over the RxDM daemon */
#define STRESULT_TRANSPORT_TCPX "tcpx"          /* GPUDirect-TCPX: the TCPX plugin over its RxDM daemon */
#define STRESULT_TRANSPORT_RDMA "rdma"          /* GPUDirect-RDMA: RoCE on the ConnectX-7 NICs (gIB) */

struct stresult_cause {
	char *id;                       /* owned */
	size_t *nodes;                  /* owned: indexes into stresult.nodes, by name */
	size_t n;
};

struct stresult {
	unsigned period_s;              /* the heartbeat period the staleness was judged with */
	struct stresult_node *nodes;    /* by name */
	size_t n_nodes;
	size_t n_ready;
	size_t n_unknown;               /* nodes whose verdict cannot be vouched for */
	struct stresult_cause *causes;  /* the most nodes first, then by id */
	size_t n_causes;
};

/* Release what @r owns (not @r) and zero it. Accepts NULL. */
void stresult_free(struct stresult *r);
