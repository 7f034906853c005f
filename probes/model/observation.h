/* observation.h - what the probes saw on the node: plain C data, no library types. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/obs_host.h"
#include "probes/model/obs_kube.h"
#include "probes/model/obs_transport.h"
#include "probes/model/probe_status.h"

#define OBS_IFNAME_MAX 16       /* IFNAMSIZ */
#define OBS_BDF_MAX 16          /* "dddd:bb:dd.f" + NUL, with room */
#define OBS_IPV4_MAX 8          /* IPv4 addresses kept per link */
#define OBS_IPV4_TEXT 19        /* "255.255.255.255/32" + NUL */
#define OBS_DRIVER_MAX 32

/* ---- links (netlink, probes/host/links.c) ---- */

enum link_oper {
	LINK_OPER_UNKNOWN = 0,
	LINK_OPER_UP,
	LINK_OPER_DOWN,
	LINK_OPER_LOWERLAYERDOWN,
	LINK_OPER_DORMANT,
	LINK_OPER_NOTPRESENT,
	LINK_OPER_TESTING,
};

struct obs_link {
	char name[OBS_IFNAME_MAX];
	int ifindex;
	enum link_oper oper;
	bool admin_up;                  /* IFF_UP */
	unsigned mtu;
	char mac[18];                   /* "aa:bb:cc:dd:ee:ff", "" if none */
	unsigned n_ipv4;
	uint32_t ipv4[OBS_IPV4_MAX];    /* network byte order */
	uint8_t ipv4_prefix[OBS_IPV4_MAX];
	bool default_route;             /* carries an IPv4 default route */
};
_Static_assert(offsetof(struct obs_link, name) == 0, "sorted by name with strbuf_cmp_names()");

struct obs_links {
	struct obs_link *v;             /* sorted by name */
	size_t n;
	struct probe_status status;
};

/* ---- PCI topology (sysfs, probes/host/pcitopo.c) ---- */

enum pci_kind {
	PCI_KIND_OTHER = 0,
	PCI_KIND_GPU,                   /* a fabric GPU: 10de:2330 H100, 10de:2335 H200, 10de:2901 B200 */
	PCI_KIND_OTHER_GPU,             /* any other NVIDIA display/3D controller */
	PCI_KIND_GVNIC,                 /* 1ae0:0042 */
	PCI_KIND_LLCM,                  /* 1ae0:0084 */
	PCI_KIND_BRIDGE,                /* PCI-to-PCI bridge, type-1 header */
	PCI_KIND_RDMA_NIC,              /* mlx5: 15b3:101e (the VF a GCE VM sees), 15b3:1021 (ConnectX-7 PF) */
};

struct obs_pci_func {
	char bdf[OBS_BDF_MAX];          /* "0000:06:00.0", domain-qualified */
	unsigned domain, bus, dev, func;
	uint16_t vendor, device;
	uint32_t class_code;            /* 24-bit, e.g. 0x030200 */
	int numa;                       /* -1 when unknown */
	enum pci_kind kind;
	bool has_bus_range;             /* bridges: secondary..subordinate read */
	uint8_t secondary, subordinate;
	char driver[OBS_DRIVER_MAX];    /* bound driver, "" when unbound */
	char netdev[OBS_IFNAME_MAX];    /* interface in the function's net/ folder, "" if none */
};

struct obs_pci {
	struct obs_pci_func *v;         /* sorted by BDF */
	size_t n;
	struct probe_status status;
};

/* ---- link flap damping (filled by the daemon from its link-event history; empty for --once) ---- */

#define OBS_FLAPS_MAX 64        /* held links named; more are only counted */

struct obs_link_flap {
	char name[OBS_IFNAME_MAX];
	unsigned changes;               /* up/down changes in this flapping episode (frozen once stable) */
};

/*
 * Links the daemon holds "not ready" because they flapped: threshold changes within window_s
 * started the episode, and each is held until it has been stable for hold_s. A pure function of
 * the daemon's history, so the checks stay pure; n 0 (and the rule 0) outside the daemon.
 */
struct obs_flaps {
	struct obs_link_flap v[OBS_FLAPS_MAX];  /* sorted by name */
	size_t n;
	size_t n_more;                  /* held links beyond OBS_FLAPS_MAX */
	unsigned threshold, window_s, hold_s;
};

/* The whole observation of one node at one moment. */
struct observation {
	char node[256];                 /* node name, "" when unknown */
	char root[4096];                /* --root the host files were read under */
	struct obs_links links;
	struct obs_pci pci;
	struct obs_host host;           /* files, devices, processes (obs_host.h) */
	/*
	 * Node and pod facts from the API (obs_kube.h), lent by their owner (the daemon's watches or
	 * polls, --once's read) and never changed through the observation; never NULL once observed.
	 */
	const struct obs_kube *kube;
	struct obs_transport transport; /* the GPU pods' sockets to the daemon, from /proc (obs_transport.h) */
	struct obs_flaps flaps;         /* held flapping links (daemon only; plain data, nothing owned) */
};

/**
 * observation_free() - release everything an observation owns (not the struct itself).
 * @o: may be NULL.
 */
void observation_free(struct observation *o);

/**
 * observation_link_find() - the link named @name, or NULL.
 */
const struct obs_link *observation_link_find(const struct observation *o, const char *name);

/**
 * observation_flap_find() - the held flapping link named @name, or NULL.
 */
const struct obs_link_flap *observation_flap_find(const struct observation *o, const char *name);

/**
 * observation_pci_find() - the PCI function at @bdf, or NULL.
 */
const struct obs_pci_func *observation_pci_find(const struct observation *o, const char *bdf);

/* Format an IPv4 address (network byte order) with prefix into buf (OBS_IPV4_TEXT bytes). */
void obs_ipv4_format(uint32_t addr, int prefix, char *buf, size_t len);

/* Names and parsing of enum values used in the report. */
const char *link_oper_name(enum link_oper op);
