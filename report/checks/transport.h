/* transport.h - whether a running GPU pod's processes really talk to the TCPXO daemon (pure, time injected). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/obs_transport.h"
#include "report/checks/attach.h"

/*
 * The judgement of one pod's transport sample (probes/model/obs_transport.h, read from the
 * pod's own /proc/<pid>/net files). It never changes the node's verdict; `tcp` and `partial`
 * make `workloads` exit 1 like an unattached or partially attached pod. No client is not a
 * failure by itself: only bulk traffic both ways over a window of two readings says `tcp`.
 */

#define TRANSPORT_EVIDENCE_MAX 512
#define TRANSPORT_GRACE_DEFAULT_S 600u  /* --transport-grace's default: 10 minutes */
#define TRANSPORT_WINDOW_DEFAULT_S 3u   /* --transport-window's default: the one-shot commands' two readings */
#define TRANSPORT_WINDOW_MAX_S 60u
/*
 * --transport-tcp-rate's default, bytes/s each way: above the asymmetric traffic of a job that is
 * not running collectives (a data load receives, a checkpoint sends: one direction bulk, the other
 * acknowledgements), far below what NCCL's socket transport moves on eth0 (gigabytes per second,
 * as much sent as received) when a job falls back to TCP.
 */
#define TRANSPORT_TCP_RATE_DEFAULT 100000000ull

/* The states, in their report order (metrics' state label too). */
enum transport_state {
	TRANSPORT_NOT_OBSERVED = 0,     /* no signal applies (TCPX node, hostNetwork, not Running) */
	TRANSPORT_FASTRAK,              /* buffer-op clients on every NIC address its GPUs need */
	TRANSPORT_PARTIAL,              /* on fewer (at least one) */
	TRANSPORT_TCP,                  /* none after the grace, and bulk traffic both ways: NCCL's socket transport */
	TRANSPORT_IDLE,                 /* none after the grace, no such traffic: no communicator yet, or between runs */
	TRANSPORT_PENDING,              /* none yet, within the grace (or past it with one reading: no rates yet) */
	TRANSPORT_UNKNOWN,              /* the pod's processes or files could not be read */
	TRANSPORT__COUNT,
};

struct transport_result {
	enum transport_state state;
	enum check_status status;       /* as reported: fail (tcp, partial), skip (unknown, idle: cannot say, or why), pass */
	size_t rails;                   /* distinct NIC addresses with a live buffer-op client */
	size_t clients;                 /* buffer-op client connections */
	size_t flows;                   /* DXS flows (connected UDP to 169.254.169.254:55555) */
	unsigned need;                  /* NIC addresses the pod's GPUs need (0: not judged) */
	bool repeated;                  /* partial: the pod's previous sample (the daemon's) was partial too */
	bool unmeasured;                /* pending only because no rates exist yet (no client, past the grace, one reading) */
	char evidence[TRANSPORT_EVIDENCE_MAX];  /* what was seen, printable; never empty once judged */
};

/* What the judgement is held to: the command line's --transport-grace and --transport-tcp-rate. */
struct transport_limits {
	unsigned grace_s;               /* 0: no client is judged at once */
	uint64_t tcp_rate;              /* bytes/s each way (0: TRANSPORT_TCP_RATE_DEFAULT) */
};

/* What one pod is judged from. */
struct transport_input {
	const struct pod *pod;
	long long gpus;                         /* the pod's effective GPU request */
	enum attach_verdict verdict;            /* its attachment verdict (not-fabric: not judged) */
	const struct attach_node *node;         /* the node's facts: kind, GPUs, GPU NICs and their names */
	const struct obs_transport *sample;     /* NULL or not sampled: unknown */
	struct transport_limits limits;
};

/* "not-observed", "fastrak", "partial", "tcp", "idle", "pending", "unknown"; "unknown" out of range. */
const char *transport_state_name(enum transport_state s);

/*
 * transport_rails_needed() - the NIC addresses a pod with @gpus GPUs needs on node @n. A3 Mega
 * pairs GPUs and GPU NICs 1:1 (each GPU's NCCL rank uses the NIC on its PCIe switch), so a pod
 * needs ceil(@gpus * NICs / GPUs) of them, at least 1 and at most every GPU NIC: 8 for 8 GPUs, 4
 * for 4, 1 for 1. Unknown counts are the fabric's (8 and 8). 0 for @gpus < 1 or a non-fabric node.
 */
unsigned transport_rails_needed(const struct attach_node *n, long long gpus);

/**
 * transport_judge() - the state of @in->pod, its counts and the evidence (hostile text made
 * printable). In order: not Running, not a fabric node, a TCPX node, a not-fabric pod or
 * hostNetwork → not-observed; the probe failed, or the pod was not read (no process, a file
 * unreadable, not sampled) → unknown; clients on every needed NIC address → fastrak, on fewer →
 * partial (repeated when the previous sample was partial too); no client: the youngest running
 * GPU container's age against the grace (the sample's wall clock against startedAt) → pending
 * within it (unknown when startedAt is unknown); past it, the rates between the pod's previous
 * reading and this one on its interfaces but lo → tcp when both the received and the sent rate
 * reach the limit, else idle; pending and unmeasured when there is no previous reading yet.
 * @ret: written in every case.
 */
void transport_judge(const struct transport_input *in, struct transport_result *ret);

/* Whether @s makes `workloads` exit 1 (tcp, partial). */
bool transport_state_fails(enum transport_state s);
