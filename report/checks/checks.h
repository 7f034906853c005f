/* checks.h - the check table: one function per check id, each pure over (observation, profile). */
#pragma once

#include "report/checks/profile.h"

/*
 * A check function fills p->checks[id] with check_set(). It may read the observation and
 * the rows evaluate.c already built (gpus, nics, pairing). It returns 0 or -ENOMEM.
 */
typedef int (*check_fn)(const struct observation *o, struct profile *p, struct check *c);

/* Topology checks (report/checks/check_topology.c). */
int check_gpus(const struct observation *o, struct profile *p, struct check *c);
int check_gpu_nics(const struct observation *o, struct profile *p, struct check *c);
int check_pairing(const struct observation *o, struct profile *p, struct check *c);
int check_links(const struct observation *o, struct profile *p, struct check *c);

/* The links check's rule for one GPU NIC, shared with the human report's tree. */
struct check_links_nic {
	const struct obs_link_flap *flap;       /* held not ready by flap damping (never in a pod), else NULL */
	bool in_pod;            /* moved into a pod's network namespace: not judged from the host */
	bool judged;            /* its link is judged: held, down or up (not in a pod, unbound or unknown) */
	bool down;              /* down, and not held */
	char down_text[32];     /* when down: "admin down" or "oper STATE" */
	bool mtu;               /* judged, MTU not PROFILE_GPU_NIC_MTU */
	bool no_ipv4;           /* judged, no IPv4 address */
};

/*
 * check_links_nic() - judge GPU NIC @n's link in @o (the links probe ran) into *@ret. A NIC held
 * by the daemon's flap damping is judged as up whatever state this sample caught, so its findings
 * do not alternate with each sample; a NIC in a pod is not held. Return: whether anything is wrong.
 */
bool check_links_nic(const struct observation *o, const struct profile_nic *n, struct check_links_nic *ret);

/* Host wiring checks (report/checks/check_host.c; plugin-files in report/checks/check_plugin.c). */
int check_aperture_devices(const struct observation *o, struct profile *p, struct check *c);
int check_device_nodes(const struct observation *o, struct profile *p, struct check *c);
int check_nvidia_host_path(const struct observation *o, struct profile *p, struct check *c);
int check_plugin_files(const struct observation *o, struct profile *p, struct check *c);

/*
 * check_aperture_live() - whether aperture entry @name has a live LLCM function behind it: the
 * function of that BDF is on the bus and is an LLCM one (meaningful when the PCI bus was read).
 */
bool check_aperture_live(const struct observation *o, const char *name);

/* What is wrong with one aperture entry by itself: one bit each, in the order the check names them. */
enum check_aperture_problem {
	CHECK_APT_NOT_DIR = 1u << 0,            /* not a directory: nothing else is looked at */
	CHECK_APT_STALE = 1u << 1,              /* no live LLCM function behind it */
	CHECK_APT_IDS_UNKNOWN = 1u << 2,        /* vendor/device unreadable */
	CHECK_APT_NOT_LLCM = 1u << 3,           /* its ids are not 1ae0:0084 */
	CHECK_APT_NO_RESOURCES = 1u << 4,
	CHECK_APT_NARROW = 1u << 5,             /* a resource file not readable and writable by all */
	CHECK_APT_BAR4_MISSING = 1u << 6,
	CHECK_APT_BAR4_NOT_FILE = 1u << 7,
	CHECK_APT_BAR4_EMPTY = 1u << 8,
	CHECK_APT_BAR4_SHORT = 1u << 9,
	CHECK_APT_BAR4_UNREADABLE = 1u << 10,
};

/*
 * check_aperture_entry_problems() - the aperture-devices check's rule for entry @e alone: the
 * enum check_aperture_problem bits that hold. @live: check_aperture_live(); @pci_ok: the PCI bus
 * was read (else liveness is unknown and never a problem). Return: 0 when nothing is wrong.
 */
unsigned check_aperture_entry_problems(const struct obs_aperture_entry *e, bool live, bool pci_ok);

/*
 * check_aperture_entry_claims() - whether entry @e's BAR4 claims a GPU NIC's address: a directory
 * whose resource4 was read, live when @pci_ok (the PCI bus was read; else liveness is unknown).
 */
bool check_aperture_entry_claims(const struct observation *o, const struct obs_aperture_entry *e, bool pci_ok);

/* The daemon's arguments, from /proc and pod specs (report/checks/check_daemon.c). */
int check_daemon_args(const struct observation *o, struct profile *p, struct check *c);

/* The daemon pods' wiring and the NRI device injector (report/checks/check_daemonpod.c). */
int check_daemon_pod(const struct observation *o, struct profile *p, struct check *c);

/* API-derived checks (report/checks/check_kube.c). */
int check_machine_type(const struct observation *o, struct profile *p, struct check *c);
int check_networks(const struct observation *o, struct profile *p, struct check *c);
int check_version_pair(const struct observation *o, struct profile *p, struct check *c);

/* What is wrong with one GPU NIC's Network object: one bit each, in the order the check names them. */
enum check_network_problem {
	CHECK_NET_MISSING = 1u << 0,            /* no such Network: nothing else is looked at */
	CHECK_NET_NO_TYPE = 1u << 1,            /* no spec.type (L3 by default) */
	CHECK_NET_NOT_DEVICE = 1u << 2,         /* of another type than Device */
	CHECK_NET_NOT_READY = 1u << 3,
	CHECK_NET_NOT_PARAMS_READY = 1u << 4,
	CHECK_NET_NO_PARAMS_REF = 1u << 5,      /* no parametersRef (GKENetworkParamSet) */
};

/*
 * check_network_problems() - the networks check's rule for the Network named @name: the enum
 * check_network_problem bits that hold; 0 when nothing is wrong or the Networks were not read.
 */
unsigned check_network_problems(const struct obs_kube *k, const char *name);

/*
 * check_machine_kind() - whether @machine (node.kubernetes.io/instance-type) is one of the A3 GPU
 * machine types whose hardware the agent knows (the machine-type check's table: a3-megagpu-8g for
 * tcpxo, a3-highgpu-8g and a3-edgegpu-8g for tcpx); false for NULL.
 */
bool check_machine_kind(const char *machine);

/*
 * Fill NIC rows from the API facts before the checks run (report/checks/check_kube.c): interface
 * names of NICs not in this namespace (nic-info birthName by PCI address), their IPv4
 * (birthIP), and each NIC's GKE Network (north-interfaces joined on IP). Never overwrites
 * what the kernel showed. Return: 0 or -ENOMEM.
 */
int check_kube_enrich(const struct observation *o, struct profile *p);
