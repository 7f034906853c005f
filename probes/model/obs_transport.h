/* obs_transport.h - what the node's GPU pods' own processes show of the TCPXO daemon's sockets (host /proc). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/probe_status.h"

/*
 * Filled by probes/host/podnet.c from ROOT/proc, read by report/checks/transport.c. One entry per
 * running GPU pod the caller asked about (by metadata.uid). The kernel lists a network
 * namespace's Unix and UDP sockets in /proc/<pid>/net/{unix,udp} of any process in it, readable
 * by any user; so one live process of the pod is enough to see its namespace.
 *
 * RxDM (the TCPXO daemon) binds abstract names "rxdm_uds_buf_op:<nic address>"; every connection
 * a loaded NCCL plugin keeps to it shows as an accepted socket (flags 00000000, state 03) with
 * the listener's path. The plugin's DXS clients are connected UDP sockets to 169.254.169.254:55555.
 */

#define OBS_TRANSPORT_UID_MAX 64        /* a pod uid (36) with room */
#define OBS_TRANSPORT_ADDR_MAX 48       /* a NIC address as RxDM names it (INET6_ADDRSTRLEN) */
#define OBS_TRANSPORT_RAILS_MAX 16      /* distinct NIC addresses kept per pod; more are counted */
#define OBS_TRANSPORT_DEVS_MAX 32       /* interfaces kept from a pod's net/dev */
#define OBS_TRANSPORT_IFNAME_MAX 16     /* IFNAMSIZ */
#define OBS_TRANSPORT_WHY_MAX 256
#define OBS_TRANSPORT_PODS_MAX 256      /* pods sampled per observation */

/* Whether the pod's files were read. */
enum obs_transport_read {
	OBS_TRANSPORT_NOT_READ = 0,     /* not sampled */
	OBS_TRANSPORT_READ,             /* a process of the pod found and its net files read */
	OBS_TRANSPORT_NO_PROCESS,       /* no process of the pod under ROOT/proc */
	OBS_TRANSPORT_UNREADABLE,       /* found, but a file could not be read: why */
};

/* One interface of the pod's /proc/<pid>/net/dev. */
struct obs_transport_dev {
	char name[OBS_TRANSPORT_IFNAME_MAX];
	uint64_t rx_bytes, tx_bytes;
};

/* One pod's sample. */
struct obs_pod_transport {
	char uid[OBS_TRANSPORT_UID_MAX];        /* the pod's metadata.uid, as asked */
	enum obs_transport_read read;
	char why[OBS_TRANSPORT_WHY_MAX];        /* NO_PROCESS / UNREADABLE: printable reason; READ: a note when cut, else "" */
	int pid;                                /* the process whose files were read; 0 none */

	/* net/unix */
	size_t listeners;                       /* rxdm_uds_buf_op listeners (flags 00010000, state 01) */
	size_t clients;                         /* accepted connections on a buffer-op path (flags 0, state 03) */
	char rails[OBS_TRANSPORT_RAILS_MAX][OBS_TRANSPORT_ADDR_MAX];    /* distinct NIC addresses with a client, sorted */
	size_t n_rails;                         /* kept in rails[] */
	size_t n_rails_dropped;                 /* beyond OBS_TRANSPORT_RAILS_MAX */

	/* net/udp */
	size_t flows;                           /* connected UDP sockets to 169.254.169.254:55555 (state 01) */

	bool cut;                               /* a net file was longer than the probe reads (podnet.h caps): counted over its first part */

	/* net/dev, sorted by name */
	struct obs_transport_dev devs[OBS_TRANSPORT_DEVS_MAX];
	size_t n_devs;
	uint64_t sampled_ms;                    /* CLOCK_MONOTONIC ms of the read */

	/*
	 * The previous reading of the pod's net/dev, for rates: the daemon's last sample of the same
	 * pod (a pod's containers share one network namespace), or the one-shot commands' first
	 * reading a window before this one.
	 */
	bool has_prev;
	struct obs_transport_dev prev[OBS_TRANSPORT_DEVS_MAX];
	size_t n_prev;
	uint64_t prev_ms;

	/* The daemon's history of the pod (agent/tsample.c); absent in --once and workloads. */
	bool prev_read;                         /* its previous sample read the pod's files */
	size_t prev_rails;                      /* then: distinct NIC addresses with a client */
	size_t had_clients, had_rails;          /* the last sample that saw a client: clients, NIC addresses */
	long long had_until_s;                  /* that sample's wall clock (0: no sample saw a client) */
	long long since_s;                      /* the wall clock of the daemon's first sample of the pod (0: none) */
};
_Static_assert(offsetof(struct obs_pod_transport, uid) == 0, "sorted and found by uid with strbuf_cmp_names()");

/* The transport sample of one observation. */
struct obs_transport {
	bool sampled;                           /* the probe ran (some GPU pod was running) */
	struct probe_status status;             /* FAILED: ROOT/proc could not be listed (hidepid, absent) */
	long long wall_s;                       /* CLOCK_REALTIME seconds of the sample (against startedAt) */
	struct obs_pod_transport *pods;         /* one per pod asked about, sorted by uid; owned */
	size_t n;
};

/* Release what @t owns; leaves it zeroed. Accepts NULL. */
void obs_transport_free(struct obs_transport *t);

/* The sample of the pod with @uid (a binary search: pods are sorted by uid), or NULL. */
const struct obs_pod_transport *obs_transport_find(const struct obs_transport *t, const char *uid);
