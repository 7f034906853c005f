/* attach.h - workload attachment: the node facts a pod is judged against, the findings, the verdict (pure data and names). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/json.h"
#include "probes/model/obs_pod.h"
#include "probes/model/strbuf.h"
#include "report/checks/profile.h"
#include "report/checks/releases.h"

/*
 * One pure checker judges a pod (realized on the node, or a runtime's pod template) against
 * struct attach_node: attach_judge() in attach_judge.h. The facts are plain values, each with
 * its own "unknown", so they can be built from this node's observation (attach_node.h) or from
 * what a fleet's agents published (the runtime command): the checker never reads an observation.
 */

#define ATTACH_NICS_MAX 16
#define ATTACH_DEVICES_MAX 72           /* /dev/nvidia0..63, nvidiactl, nvidia-uvm, dmabuf_import_helper */
#define ATTACH_DEVNAME_MAX 40
#define ATTACH_FILES_MAX 16
#define ATTACH_FILE_MAX 64
#define ATTACH_WHY_MAX 200
#define ATTACH_VERSION_MAX 32
#define ATTACH_ANN_MAX (16u << 10)      /* the device and interfaces annotations read: both are < 2 KiB when sane */
#define ATTACH_IFACES_ENTRIES_MAX 64    /* entries of networking.gke.io/interfaces read */

enum attach_injector {
	ATTACH_INJECTOR_UNKNOWN = 0,    /* not observed (no pod list) */
	ATTACH_INJECTOR_ABSENT,         /* no device-injector pod on the node */
	ATTACH_INJECTOR_NOT_RUNNING,    /* there, but not running: injector_found says how */
	ATTACH_INJECTOR_RUNNING,
};

/* What a pod on (or for) a node is judged against. Zero-initialised = everything unknown. */
struct attach_node {
	enum profile_kind kind;                 /* PROFILE_NONE: not a fabric node, nothing is judged */
	unsigned gpus;                          /* GPUs of the node; 0 unknown (the profile's 8 is assumed) */
	unsigned gpu_nics;                      /* GPU NICs; 0 unknown */
	bool dranet;                            /* GKE managed DRANET allocates the GPU NICs (no Networks) */
	bool ifaces_known;                      /* ifaces holds every GPU NIC's Network */
	struct profile_iface ifaces[ATTACH_NICS_MAX];   /* eth1..ethN -> Network, sorted (ifacemap_sort()) */
	size_t n_ifaces;
	char ifaces_why[ATTACH_WHY_MAX];        /* unknown: why */
	char installer[ATTACH_VERSION_MAX];     /* the installed plugin's release, "" unknown */
	char expected_daemon[ATTACH_VERSION_MAX];       /* the daemon it pairs with, "" unknown */
	char versions_why[ATTACH_WHY_MAX];      /* expected daemon unknown: why */
	char devices[ATTACH_DEVICES_MAX][ATTACH_DEVNAME_MAX];  /* the daemon's devices: "/dev/nvidia0", ... */
	size_t n_devices;                       /* 0 unknown */
	enum attach_injector injector;
	char injector_found[ATTACH_WHY_MAX];    /* what was found: "kube-system/device-injector-x: phase Pending" */
	bool plugin_files_known;                /* plugin_files lists the plugin's files present in lib64 */
	char plugin_files[ATTACH_FILES_MAX][ATTACH_FILE_MAX];
	size_t n_plugin_files;
	const struct releases *releases;        /* digests and pairs; NULL: the built-in table */
};

/* Finding ids, in their fixed report order (DESIGN.md). New ones at the end; never reused. */
enum attach_finding_id {
	ATTACH_ALL_GPUS = 0,
	ATTACH_DAEMON_SIDECAR,
	ATTACH_DAEMON_VERSION,
	ATTACH_DAEMON_ARGS,
	ATTACH_DAEMON_MOUNTS,
	ATTACH_DEVICE_INJECTION,
	ATTACH_INTERFACES,
	ATTACH_APERTURE,
	ATTACH_PLUGIN_PATH,
	ATTACH_NCCL_ENV,
	ATTACH_IPC_LOCK,
	ATTACH__COUNT,
};

enum attach_verdict {
	ATTACH_ATTACHED = 0,            /* no failed finding (warnings allowed) */
	ATTACH_PARTIAL,                 /* some wiring, and a finding fails */
	ATTACH_UNATTACHED,              /* all the node's GPUs, no wiring at all: NCCL over TCP on eth0 */
	ATTACH_NOT_FABRIC,              /* fewer GPUs than the node, no wiring: listed, not judged */
	ATTACH_VERDICT__COUNT,
};

struct attach_result {
	enum attach_verdict verdict;
	long long gpus;                 /* the pod's effective nvidia.com/gpu request */
	bool wired;                     /* a daemon container, or a GPU NIC in networking.gke.io/interfaces */
	struct finding findings[ATTACH__COUNT];  /* indexed by enum attach_finding_id */
};

/* One pod judged against one node: what every finding's function reads (attach_judge() fills it). */
struct attach_pod {
	const struct pod *p;
	const struct attach_node *n;
	const struct pod_container *daemon;     /* the daemon container of the node's fabric; NULL: none */
	const struct pod_container *other;      /* a daemon container of the other fabric; NULL: none */
	long long gpus;                         /* the pod's effective nvidia.com/gpu request */
	unsigned node_gpus;                     /* the node's GPUs (8 when unknown) */
};

/* A pod finding's function (a row of attach_judge.c's table): fills @f. Return: 0 or -ENOMEM. */
typedef int (*attach_fn)(const struct attach_pod *w, struct finding *f);

/*
 * attach_gpu_finding() - finding @f of @w's GPU containers: @one adds each one's problems to @a
 * (@q its quoted name, @remedy the finding's); a skip when the pod has no GPU container, else
 * @pass when nothing was added. Return: 0 or -ENOMEM.
 */
typedef void (*attach_gpu_fn)(const struct attach_pod *w, const struct pod_container *c, const char *q,
			      const char *remedy, struct finding_acc *a);
int attach_gpu_finding(const struct attach_pod *w, struct finding *f, attach_gpu_fn one, const char *remedy,
		       const char *pass);

const char *attach_finding_name(enum attach_finding_id id);   /* "all-gpus", ...; "unknown" out of range */
const char *attach_verdict_name(enum attach_verdict v);        /* "attached", "partial", "unattached", "not-fabric" */

/* Release what @r owns and zero it. Accepts NULL. */
void attach_result_free(struct attach_result *r);

/*
 * attach_ifaces_list() - @p's networking.gke.io/interfaces as a JSON list in *@ret (json_free() it).
 * Return: 1 a list; 0 no annotation; -1 one that is unreadable (longer than ATTACH_ANN_MAX, not
 * JSON or not a list), *@ret NULL then.
 */
int attach_ifaces_list(const struct pod *p, struct json **ret);

/* A hostile string (a name, a value from the API) quoted for a message, at most @max bytes shown. */
const char *attach_quote(const char *s, char *buf, size_t len);

#define ATTACH_DEVICE_PREFIX "devices.gke.io/container."
#define ATTACH_IFACES_KEY "networking.gke.io/interfaces"
#define ATTACH_NVIDIA_HOST "/home/kubernetes/bin/nvidia"
#define ATTACH_APERTURE_HOST "/dev/aperture_devices"
#define ATTACH_TCPX_SOCKETS "/run/tcpx"

/* What differs between the two fabrics, for the findings and their remedies. */
struct attach_fabric {
	enum profile_kind kind;
	const char *folder;             /* the image folder: "gpudirect-tcpxo" */
	const char *daemon_image;       /* the daemon's repository */
	const char *daemon_name;        /* the daemon container's usual name: "tcpxo-daemon" */
	const char *program;            /* what the daemon's command runs */
	const char *command;            /* the command line Google's manifests give it (for remedies) */
	bool bind_service;              /* NET_BIND_SERVICE needed besides NET_ADMIN */
	const char *env_family;         /* the plugin's variables: "NCCL_FASTRAK_" */
	const char *foreign_family;     /* the other fabric's: "NCCL_GPUDIRECTTCPX_" */
	const char *runtime;            /* the named runtime */
	unsigned gpu_nics;              /* GPU NICs of the shape */
};

/* The fabric of @kind; NULL for PROFILE_NONE. */
const struct attach_fabric *attach_fabric_of(enum profile_kind kind);

/* The remedy's tail naming the runtime: "or, in a TrainJob, reference runtimeRef torch-distributed-tcpxo". */
void attach_runtime_hint(const struct attach_fabric *fab, char *buf, size_t len);

/*
 * attach_remedy() - a remedy in @buf: the formatted advice, then "; " and the runtime hint of
 * @n's fabric (attach_runtime_hint()); cut to @len as one snprintf() of the whole would cut it.
 */
void attach_remedy(const struct attach_node *n, char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/*
 * attach_nvidia_lib64() - where @c sees the host's NVIDIA lib64: the mount of hostPath
 * /home/kubernetes/bin/nvidia plus "/lib64", or the mount of .../nvidia/lib64 itself.
 * Return: true with the path in @buf; false when @c mounts neither.
 */
bool attach_nvidia_lib64(const struct pod *p, const struct pod_container *c, char *buf, size_t len);

/* Whether the colon-separated @list (LD_LIBRARY_PATH) holds @dir (trailing slashes ignored). */
bool attach_path_has(const char *list, const char *dir);

/* Whether any command or args entry of @c contains @needle. */
bool attach_argv_mentions(const struct pod_container *c, const char *needle);

/* Whether @c runs a daemon image (tcpgpudmarxd-dev, either fabric), and which folder it is in. */
bool attach_is_daemon(const struct pod_container *c, enum profile_kind *ret_fabric);
