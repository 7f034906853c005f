/* profile.h - the evaluated verdict: profile, GPU<->NIC rows, checks, mapping (pure data). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/observation.h"
#include "report/checks/finding.h"

/* Check ids in their fixed report order (DESIGN.md). New ids go at the end; never reuse one. */
enum check_id {
	CHECK_MACHINE_TYPE = 0,
	CHECK_GPUS,
	CHECK_GPU_NICS,
	CHECK_PAIRING,
	CHECK_LINKS,
	CHECK_NETWORKS,
	CHECK_APERTURE_DEVICES,
	CHECK_DEVICE_NODES,
	CHECK_NVIDIA_HOST_PATH,
	CHECK_PLUGIN_FILES,
	CHECK_VERSION_PAIR,
	CHECK_DAEMON_ARGS,
	CHECK_DAEMON_POD,
	CHECK__COUNT,
};



enum profile_kind {
	PROFILE_NONE = 0,
	PROFILE_TCPX,           /* A3 High/Edge: 8 GPUs, 4 GPU NICs 2:1, no LLCM */
	PROFILE_TCPXO,          /* A3 Mega: 8 GPUs, 8 GPU NICs 1:1, LLCM devices */
	PROFILE_RDMA,           /* A3 Ultra, A4: 8 H200/B200 GPUs, 8 mlx5 RDMA NICs 1:1 (2 + 2 per switch), gIB */
};

enum nic_state {
	NIC_STATE_UNKNOWN = 0,  /* rendered as null */
	NIC_STATE_UP,
	NIC_STATE_DOWN,
	NIC_STATE_IN_POD,       /* bound to its driver, not in this network namespace */
	NIC_STATE_MISSING,      /* function or driver absent */
};

#define PROFILE_MAX_GPUS_PER_NIC 8
#define PROFILE_NET_MAX 64
#define PROFILE_GPU_NIC_MTU 8244        /* the MTU of the GPU NIC networks (links check) */
#define PROFILE_RDMA_NIC_MTU 8896       /* the MTU of the RoCE VPC's subnets (profile rdma) */

struct profile_gpu {
	char bdf[OBS_BDF_MAX];
	uint16_t vendor, device;
	int numa;               /* -1 unknown */
	int nic;                /* index into profile.nics, -1 when unpaired */
	int sw;                 /* PCIe switch index into profile.switches, -1 in no GPU switch */
};

struct profile_nic {
	char name[OBS_IFNAME_MAX];      /* "" when unknown (in a pod, no API) */
	char bdf[OBS_BDF_MAX];
	uint16_t vendor, device;
	int numa;
	enum nic_state state;
	unsigned mtu;                   /* 0 unknown */
	char mac[18];                   /* "" unknown */
	char ipv4[OBS_IPV4_TEXT];       /* first IPv4 with prefix, "" unknown */
	char network[PROFILE_NET_MAX];  /* GKE Network name, "" unknown */
	char aperture[OBS_BDF_MAX];     /* LLCM function serving this NIC, "" unknown */
	int rdma;                       /* profile rdma: index into observation.host.rdma.v, -1 none */
	int sw;                         /* PCIe switch index into profile.switches, -1 outside every GPU switch */
	size_t n_gpus;
	int gpus[PROFILE_MAX_GPUS_PER_NIC];     /* indices into profile.gpus */
};

/* What a finding is about: a row of the human report's PCIe tree. */
enum mark_on {
	MARK_GPU = 0,        /* profile.gpus[idx] */
	MARK_NIC,            /* profile.nics[idx] */
	MARK_ENTRY,          /* observation.host.aperture.v[idx] */
	MARK_LLCM,           /* observation.pci.v[idx], an LLCM function */
};

#define MARK_TEXT_MAX 96
#define MARK_HOST_MAX 48     /* host text in a finding: an interface name, a resource file's name */

/*
 * One part's finding of a check, recorded by the check as it judges that part: its subject, and
 * the finding in short, "MTU 1460, expected 8244". Its status is its check's. Host text (@host) is
 * kept apart, at @at in @text, so that a renderer cleans it and nothing else.
 */
struct mark {
	enum check_id check;
	enum mark_on on;
	size_t idx;
	char text[MARK_TEXT_MAX];
	char host[MARK_HOST_MAX];
	size_t at;                      /* where @host goes in @text */
};

struct profile_iface {
	char name[OBS_IFNAME_MAX];      /* "eth1" */
	char network[PROFILE_NET_MAX];
};

struct profile {
	enum profile_kind kind;
	bool ready;
	char *summary;                  /* owned: the first line of the human report */
	struct profile_gpu *gpus;       /* sorted by BDF */
	size_t n_gpus;
	struct profile_nic *nics;       /* GPU NICs only (not the primary), sorted by BDF */
	size_t n_nics;
	size_t n_paired;                /* GPUs paired with a NIC in their switch */
	char (*switches)[OBS_BDF_MAX];  /* the GPU switches' upstream ports (pairing), by BDF; owned */
	size_t n_switches;
	struct profile_iface *ifaces;   /* eth1..eth8 -> Network: what is published; set by the networks check when it passes or warns */
	size_t n_ifaces;
	const char *mode;               /* profile rdma: "multi-network" or "dranet" (static), NULL unknown */
	char installer[32];             /* plugin installer version, "" unknown */
	char expected_daemon[32];       /* daemon version that pairs with the installer, "" unknown */
	char **daemons;                 /* running daemon versions, sorted, owned */
	size_t n_daemons;
	struct finding checks[CHECK__COUNT];      /* indexed by enum check_id */
	struct mark *marks;             /* owned: the checks' findings on parts, in check order */
	size_t n_marks;
};

void profile_free(struct profile *p);      /* accepts NULL; leaves *p zeroed */

const char *check_id_name(enum check_id id);   /* "machine-type", ...: the check table's (evaluate.c); "unknown" out of range */
const char *profile_kind_name(enum profile_kind k);
const char *profile_runtime_name(enum profile_kind k);   /* NULL for PROFILE_NONE */
const char *profile_fabric_name(enum profile_kind k);    /* for messages: "TCPX", "RDMA", else "TCPXO" */
unsigned profile_nic_mtu(enum profile_kind k);           /* the GPU NICs' MTU: 8896 for rdma, else 8244 */
const char *nic_state_name(enum nic_state s);            /* NULL for UNKNOWN */

/* "0000:06:00.0 (eth1)", or "0000:06:00.0" when the name is unknown, appended to @sb. */
void profile_nic_label(const struct profile_nic *n, struct strbuf *sb);

/* Find a NIC row by BDF; NULL when absent. */
const struct profile_nic *profile_nic_by_bdf(const struct profile *p, const char *bdf);

/**
 * profile_mark() - record check @id's finding on part @on/@idx: the formatted text, then host
 * text @host (may be NULL) and our words @tail (may be NULL). Return: 0 or -ENOMEM.
 */
int profile_mark(struct profile *p, enum check_id id, enum mark_on on, size_t idx, const char *host,
		 const char *tail, const char *fmt, ...) __attribute__((format(printf, 7, 8)));


