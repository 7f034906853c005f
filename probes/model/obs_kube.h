/* obs_kube.h - node and pod facts read from the Kubernetes API (filled by probes/kube/kube.c and the kubeparse parsers). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/obs_pod.h"

#define KUBE_NAME_MAX 254               /* DNS subdomain (253) + NUL: node, pod, Network names */
#define KUBE_LABEL_MAX 64               /* label values are at most 63 characters */
/* GKE managed DRANET's node label: the node's NICs are allocated through DRA ResourceClaims. */
#define OBS_KUBE_DRANET_LABEL "cloud.google.com/gke-networking-dra-driver=true"
#define KUBE_CNAME_MAX 64               /* container names and namespaces: DNS labels */
#define KUBE_IFNAME_MAX 16              /* IFNAMSIZ */
#define KUBE_BDF_MAX 16
#define KUBE_IPV4_MAX 16                /* "255.255.255.255" + NUL */
#define KUBE_IPV6_MAX 46                /* INET6_ADDRSTRLEN */
#define KUBE_NET_MAX 64                 /* = PROFILE_NET_MAX */
#define KUBE_NICS_MAX 64                /* nic-info / north-interfaces entries */
#define KUBE_IMAGE_MAX 512              /* a whole image reference */
#define KUBE_TAG_MAX 129                /* OCI tags are at most 128 characters */
#define KUBE_DIGEST_MAX 72              /* "sha256:" + 64 hex + NUL */
#define KUBE_CONTAINERS_MAX 256         /* installer/daemon containers kept from one pod list */
#define KUBE_ANN_VALUE_MAX 16384        /* our own annotation values; larger ones are rewritten */
#define KUBE_GKE_ANN_MAX 65536          /* nic-info / north-interfaces values */
#define KUBE_NETWORKS_MAX 256
#define KUBE_MSG_MAX 512
#define KUBE_UID_MAX 128                /* metadata.uid (a UUID: 36 characters) */
#define KUBE_COND_REASON_MAX 128        /* a condition's reason we keep; longer ones differ */
#define KUBE_COND_MESSAGE_MAX 4096      /* a condition's message we keep; longer ones differ */
#define KUBE_COND_TIME_MAX 64           /* an RFC 3339 time */
#define KUBE_CONDITIONS_MAX 256         /* status.conditions entries looked at */

/* How one API read went. The probe (probes/kube/kube.c) sets it; the parsers set FAILED on bad bodies. */
enum kube_fetch_state {
	KUBE_FETCH_NOT_RUN = 0,         /* not attempted (no API configured, or not needed) */
	KUBE_FETCH_OK,
	KUBE_FETCH_FAILED,              /* transport error, bad status or unparsable body */
	KUBE_FETCH_FORBIDDEN,           /* 403: RBAC does not allow it (optional facts only) */
};

struct kube_fetch {
	enum kube_fetch_state state;
	int err;                        /* -errno when FAILED */
	long http_status;               /* 0 when no response */
	char message[KUBE_MSG_MAX];
};

/* One networking.gke.io/nic-info entry, joined with north-interfaces on its IPv4 address. */
struct kube_nic {
	char name[KUBE_IFNAME_MAX];     /* birthName, "" when absent */
	char bdf[KUBE_BDF_MAX];         /* pciAddress, "" when absent */
	char ipv4[KUBE_IPV4_MAX];       /* birthIP, dotted quad, "" when absent */
	char ipv6[KUBE_IPV6_MAX];       /* birthIPv6, "" when absent */
	char network[KUBE_NET_MAX];     /* GKE Network carrying ipv4 (north-interfaces), "" unknown */
};

/* One networking.gke.io/north-interfaces entry. */
struct kube_north {
	char network[KUBE_NET_MAX];
	char ip[KUBE_IPV6_MAX];
};

/* Our own keys under the prefix, in the DESIGN table's order. */
enum kube_ann_key {
	KUBE_ANN_PROFILE = 0,
	KUBE_ANN_RUNTIME,
	KUBE_ANN_READY,
	KUBE_ANN_INTERFACES,
	KUBE_ANN_ATTACHMENT,
	KUBE_ANN__COUNT,
};

struct kube_annotation {
	bool present;                   /* the node carries the key */
	char *value;                    /* owned; NULL when absent or over KUBE_ANN_VALUE_MAX */
};

/* Our own labels under the prefix (scheduling: nodeAffinity selects on them). */
enum kube_label_key {
	KUBE_LABEL_PROFILE = 0,
	KUBE_LABEL_READY,
	KUBE_LABEL__COUNT,
};

#define KUBE_CONDITION_TYPE "FabricReady"       /* our node condition's type */

/* Our node condition (FabricReady) as the node carries it. */
struct kube_condition {
	bool present;                           /* status.conditions has an entry of our type */
	char status[16];                        /* "True", "False", "Unknown" (or what the node says, cut) */
	char reason[KUBE_COND_REASON_MAX];      /* "" absent */
	char *message;                          /* owned; NULL when absent or over KUBE_COND_MESSAGE_MAX */
	bool message_long;                      /* present, but longer than we keep: differs from ours */
	bool reason_long;                       /* the same for the reason */
	char last_transition[KUBE_COND_TIME_MAX];       /* lastTransitionTime, "" absent */
	char last_heartbeat[KUBE_COND_TIME_MAX];        /* lastHeartbeatTime, "" absent (or too long to be a time) */
};

enum kube_image_role {
	KUBE_IMAGE_INSTALLER = 0,       /* .../nccl-plugin-gpudirecttcpx-dev */
	KUBE_IMAGE_DAEMON,              /* .../tcpgpudmarxd-dev */
};

enum kube_fabric {
	KUBE_FABRIC_UNKNOWN = 0,        /* an image path in neither folder (a flattened mirror) */
	KUBE_FABRIC_TCPXO,
	KUBE_FABRIC_TCPX,
};

/* A container (or init container) of a pod on this node running one of our two images. */
struct kube_container {
	enum kube_image_role role;
	enum kube_fabric fabric;        /* by the image's folder (gpudirect-tcpxo/ or gpudirect-tcpx/) */
	char pod[KUBE_NAME_MAX];
	char ns[KUBE_CNAME_MAX];
	char name[KUBE_CNAME_MAX];
	bool init;                      /* from spec.initContainers */
	bool sidecar;                   /* init container with restartPolicy: Always (native sidecar) */
	bool running;                   /* its status has state.running */
	char image[KUBE_IMAGE_MAX];     /* as written in the spec */
	char tag[KUBE_TAG_MAX];         /* "" when the image has none */
	char digest[KUBE_DIGEST_MAX];   /* from the spec image, "" none */
	char image_id_digest[KUBE_DIGEST_MAX]; /* from status imageID ("...@sha256:..."), "" none */
	char **argv;                    /* command then args, owned (daemon containers only) */
	size_t argc;
};

#define KUBE_ASIDE_NAMED 8               /* pods set aside that are named; the rest are counted */

/* A pod of the node's PodList that could not be read: set aside, named, never the whole list. */
struct kube_pod_aside {
	char ns[KUBE_CNAME_MAX];        /* "" when not readable */
	char name[KUBE_NAME_MAX];       /* "" when not readable: then items[item] names it */
	size_t item;                    /* its index in the list */
	bool ours;                      /* it may run the installer or the daemon image */
	bool gpu;                       /* it may be a GPU pod that runs (a workload `workloads` cannot judge) */
	char why[256];                  /* the parser's message, naming the field */
};

/* A networks.networking.gke.io object (cluster-scoped). */
struct kube_network {
	char name[KUBE_NAME_MAX];
	char type[32];                  /* spec.type, e.g. "Device"; "" absent */
	bool has_params_ref;            /* spec.parametersRef names a GKENetworkParamSet */
	bool ready;                     /* status condition Ready=True */
	bool params_ready;              /* status condition ParamsReady=True */
};
_Static_assert(offsetof(struct kube_network, name) == 0, "sorted by name with strbuf_cmp_names()");

/*
 * ResourceSlices (resource.k8s.io/v1) of this node: what the rdma check reads of them. Sizes are the
 * API's own limits (driver and device names: 63; attribute strings: 64; devices per slice: 128).
 */
#define KUBE_SLICES_MAX 256             /* slices of one node read */
#define KUBE_SLICE_DEVICES_MAX 128      /* resource.k8s.io/v1 ResourceSliceMaxDevices */
#define KUBE_DRA_STRING_MAX 65          /* DeviceAttribute string: at most 64 bytes + NUL */

/* One device of a slice, with the dra.net attributes (kubernetes-sigs/dranet pkg/apis/attributes.go). */
struct kube_slice_device {
	char name[64];                          /* "pci-0000-91-00-0" */
	bool rdma;                              /* dra.net/rdma {"bool": true} */
	char ifname[KUBE_DRA_STRING_MAX];       /* dra.net/ifName {"string": "gpu0rdma0"}, "" absent */
	char bdf[KUBE_DRA_STRING_MAX];          /* dra.net/pciAddress {"string": "0000:91:00.0"}, "" absent */
};

/* One ResourceSlice. */
struct kube_slice {
	char name[KUBE_NAME_MAX];               /* metadata.name */
	char driver[64];                        /* spec.driver, e.g. "dra.net" */
	char pool[KUBE_NAME_MAX];               /* spec.pool.name (dranet: the node's name) */
	long long generation;                   /* spec.pool.generation: only a pool's newest counts; 0 absent */
	char node[KUBE_NAME_MAX];               /* spec.nodeName, "" for a slice not bound to one node */
	struct kube_slice_device *devices;      /* in the slice's order */
	size_t n_devices;
};
_Static_assert(offsetof(struct kube_slice, name) == 0, "sorted by name with strbuf_cmp_names()");

struct releases;

struct obs_kube {
	bool configured;                /* API settings present: the kube probe may run */

	/* GET /api/v1/nodes/<node> (kubeparse_node) */
	struct kube_fetch node_fetch;
	char node_name[KUBE_NAME_MAX];
	char instance_type[KUBE_LABEL_MAX];     /* node.kubernetes.io/instance-type, "" absent */
	char accelerator[KUBE_LABEL_MAX];       /* cloud.google.com/gke-accelerator, "" absent */
	bool dranet;                            /* cloud.google.com/gke-networking-dra-driver=true: GKE managed DRANET */
	bool has_nic_info;                      /* annotation present and well-formed */
	char nic_info_error[KUBE_MSG_MAX];      /* present but malformed: why; "" otherwise */
	struct kube_nic *nics;                  /* sorted by bdf */
	size_t n_nics;
	bool has_north;
	char north_error[KUBE_MSG_MAX];
	struct kube_north *north;
	size_t n_north;
	struct kube_annotation ours[KUBE_ANN__COUNT];   /* current values of our keys */
	struct kube_annotation labels[KUBE_LABEL__COUNT];       /* current values of our labels */
	struct kube_condition condition;        /* our condition (FabricReady) as the node carries it */
	char node_uid[KUBE_UID_MAX];            /* metadata.uid, "" unknown (an Event's regarding.uid) */

	/* GET /api/v1/pods?fieldSelector=spec.nodeName=<node> (kubeparse_pods) */
	struct kube_fetch pods_fetch;
	struct pod *pods;                       /* every pod on the node, sorted by namespace, name */
	size_t n_pods;
	struct kube_container *containers;      /* ours among them, sorted by namespace, pod, name */
	size_t n_containers;
	/* Pods that could not be read, in list order (those that may be ours kept first when over KUBE_ASIDE_NAMED). */
	struct kube_pod_aside aside[KUBE_ASIDE_NAMED];
	size_t n_aside;                         /* all of them: over KUBE_ASIDE_NAMED are counted only */
	size_t n_aside_gpu;                     /* ... those that may be GPU pods not ended, all counted */

	/* GET /apis/networking.gke.io/v1/networks (kubeparse_networks): optional facts */
	struct kube_fetch networks_fetch;
	struct kube_network *networks;          /* sorted by name */
	size_t n_networks;

	/*
	 * GET /apis/resource.k8s.io/v1/resourceslices?fieldSelector=spec.driver=dra.net,spec.nodeName=<node>
	 * (kubeslices_items()): read only on a DRANET node (@dranet), else NOT_RUN.
	 */
	struct kube_fetch slices_fetch;
	struct kube_slice *slices;              /* sorted by name */
	size_t n_slices;

	/*
	 * Release table in effect (--releases), not owned: the facts' owner sets it and keeps it
	 * alive as long as the facts. NULL means releases_builtin().
	 */
	const struct releases *releases;
};

/**
 * obs_kube_free() - release what @k owns (not @k itself); leaves the arrays empty.
 * @k: may be NULL.
 */
void obs_kube_free(struct obs_kube *k);

/* Parts of obs_kube_free(), used by the parsers before they replace a part. */
void obs_kube_free_node(struct obs_kube *k);
void obs_kube_free_pods(struct obs_kube *k);
void obs_kube_free_networks(struct obs_kube *k);
/* @n slices @v and their devices (NULL is fine); obs_kube_free_slices() frees the facts' own. */
void kube_slices_free(struct kube_slice *v, size_t n);
void obs_kube_free_slices(struct obs_kube *k);

/* Annotations or labels as the node carries them: free each value, mark each absent. */
void obs_kube_ann_clear(struct kube_annotation *a, size_t n);

/**
 * obs_kube_ann_copy() - @dst (cleared first) becomes a deep copy of @src, @n entries each.
 * Return: 0, or -ENOMEM with @dst cleared.
 */
int obs_kube_ann_copy(struct kube_annotation *dst, const struct kube_annotation *src, size_t n);

/* The first pod set aside that may run the installer or the daemon image, or NULL. */
const struct kube_pod_aside *obs_kube_aside_ours(const struct obs_kube *k);

/* Free one container's argv. */
void obs_kube_container_clear(struct kube_container *c);

/* The nic-info entry with PCI address @bdf, or NULL. */
const struct kube_nic *obs_kube_nic_by_bdf(const struct obs_kube *k, const char *bdf);

/* The Network object named @name, or NULL. */
const struct kube_network *obs_kube_network(const struct obs_kube *k, const char *name);

/* The key name of @key under the prefix: "profile", "runtime", "ready", "interfaces", "attachment". */
const char *obs_kube_ann_name(enum kube_ann_key key);

/* The key name of @key under the prefix: "profile", "ready". */
const char *obs_kube_label_name(enum kube_label_key key);

/* Release what @c owns and mark it absent. */
void obs_kube_condition_clear(struct kube_condition *c);

/* The node's instance-type label, or NULL when unknown. */
const char *obs_kube_machine_type(const struct obs_kube *k);
