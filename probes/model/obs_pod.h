/* obs_pod.h - a pod, or a pod template, as the attachment checks read it: spec, wiring, status. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * One model for the realized pods on the node (GET /api/v1/pods, with status) and for the pod
 * templates of a training runtime (no status), so that one pure checker judges both. Strings
 * are owned and NUL-terminated; absent optional strings are NULL. Lists keep the spec's order.
 * Everything is bounded by the parser (probes/kube/kubepod.c).
 */

/* A name/value pair: labels, annotations, nodeSelector, env. */
struct pod_kv {
	char *key;
	char *value;            /* NULL: not a literal (env valueFrom), or an env value too long to hold */
};

struct pod_kvs {
	struct pod_kv *v;
	size_t n;
};

struct pod_mount {
	char *name;             /* the volume */
	char *path;             /* mountPath */
	bool read_only;
};

struct pod_volume {
	char *name;
	char *host_path;        /* hostPath.path, NULL when not a hostPath volume */
	bool empty_dir;
	char *medium;           /* emptyDir.medium ("Memory"), NULL otherwise */
};

/* The state a container status reports (state.waiting / .running / .terminated). */
enum pod_cstate {
	POD_CSTATE_NONE = 0,    /* no status entry (a template, or not reported yet) */
	POD_CSTATE_WAITING,
	POD_CSTATE_RUNNING,
	POD_CSTATE_TERMINATED,
};

struct pod_cstatus {
	enum pod_cstate state;
	char *reason;           /* waiting or terminated reason ("CrashLoopBackOff"), NULL none */
	int exit_code;          /* terminated: exitCode */
	bool has_last;          /* lastState.terminated present */
	int last_exit_code;
	char *last_reason;
	unsigned restarts;      /* restartCount */
	bool ready;
	char *image_id;         /* imageID as reported ("...@sha256:..."), NULL none */
	char *container_id;     /* containerID as reported ("containerd://<id>"), NULL none */
	long long started_at;   /* state.running.startedAt, seconds since the epoch; 0 unknown or not running */
};

#define POD_GPUS_ABSENT (-1LL)

struct pod_container {
	char *name;
	char *image;            /* as written in the spec, NULL when absent */
	bool init;              /* from spec.initContainers */
	bool sidecar;           /* an init container with restartPolicy: Always (native sidecar) */
	char **command;
	size_t n_command;
	char **args;
	size_t n_args;
	struct pod_kvs env;     /* spec order; a later duplicate name overrides an earlier one */
	bool env_from;          /* envFrom present: variables this model cannot see */
	struct pod_mount *mounts;
	size_t n_mounts;
	bool privileged;        /* securityContext.privileged: true */
	char **cap_add;         /* securityContext.capabilities.add, as written */
	size_t n_cap_add;
	long long gpu_limit;    /* resources.limits["nvidia.com/gpu"], POD_GPUS_ABSENT when unset */
	long long gpu_request;  /* resources.requests["nvidia.com/gpu"], POD_GPUS_ABSENT when unset */
	struct pod_cstatus status;
};

/* One entry of spec.resourceClaims (DRA): the claim's name in the pod and where it comes from. */
struct pod_claim {
	char *name;
	char *template_name;    /* resourceClaimTemplateName, NULL when absent */
	char *claim_name;       /* resourceClaimName, NULL when absent */
};

struct pod_toleration {
	char *key, *op, *value, *effect;        /* NULL when absent */
};

/* One matchExpression of a required node-affinity term. */
struct pod_affinity_expr {
	size_t term;            /* index of its nodeSelectorTerm */
	char *key, *op;
	char **values;
	size_t n_values;
};

struct pod_owner {
	char *kind, *name;
	bool controller;
};

struct pod {
	char *ns, *name, *uid;  /* NULL in a template that has none */
	char *phase;            /* status.phase; NULL for a template */
	char *node_name;        /* spec.nodeName */
	bool host_network;
	struct pod_kvs labels, annotations, node_selector;
	struct pod_owner *owners;
	size_t n_owners;
	struct pod_container *containers;       /* init containers first, each list in spec order */
	size_t n_containers;
	struct pod_volume *volumes;
	size_t n_volumes;
	struct pod_claim *claims;               /* spec.resourceClaims */
	size_t n_claims;
	struct pod_toleration *tolerations;
	size_t n_tolerations;
	struct pod_affinity_expr *affinity;     /* requiredDuringSchedulingIgnoredDuringExecution */
	size_t n_affinity;
};

/*
 * obs_find() - the first of the @n elements of @size bytes at @v whose name equals @name: a char
 * array at offset @off, or with @ptr a char * there (NULL matches nothing). NULL when none matches
 * or @name is NULL or "". The one lookup by name of the observation's arrays.
 */
const void *obs_find(const void *v, size_t n, size_t size, size_t off, bool ptr, const char *name);

/* Release what @p owns (not @p); leaves it zeroed. Accepts NULL. */
void obs_pod_free(struct pod *p);

/* Free @n pods of @v and @v itself. */
void obs_pods_free(struct pod *v, size_t n);

/* The value of @key in @kv, or NULL when absent (or not a literal). */
const char *obs_pod_kv(const struct pod_kvs *kv, const char *key);

/* Whether @key is in @kv at all (a literal or not). */
bool obs_pod_has_kv(const struct pod_kvs *kv, const char *key);

/*
 * obs_pod_env() - the value a container's process sees for @name: the last literal entry of that
 * name. @ret_set: whether the name is set at all (also by valueFrom, whose value is unknown).
 */
const char *obs_pod_env(const struct pod_container *c, const char *name, bool *ret_set);

const struct pod_volume *obs_pod_volume(const struct pod *p, const char *name);
const struct pod_container *obs_pod_container(const struct pod *p, const char *name);

/* The container's mount at @path (exactly), or NULL. */
const struct pod_mount *obs_pod_mount_at(const struct pod_container *c, const char *path);

/*
 * obs_pod_mount_of_host() - a mount of @c whose volume is the hostPath @host_path (compared
 * without trailing slashes), or NULL.
 */
const struct pod_mount *obs_pod_mount_of_host(const struct pod *p, const struct pod_container *c,
					      const char *host_path);

/* Whether securityContext.capabilities.add names @cap (with or without the "CAP_" prefix). */
bool obs_pod_has_cap(const struct pod_container *c, const char *cap);

/* A container's nvidia.com/gpu request: requests, else limits (Kubernetes' defaulting), else 0. */
long long obs_pod_container_gpus(const struct pod_container *c);

/*
 * obs_pod_gpus() - the pod's effective nvidia.com/gpu request, Kubernetes' rule with native
 * sidecars: the larger of (the regular containers + every sidecar) and, for each non-sidecar init
 * container, its own request plus the sidecars started before it.
 */
long long obs_pod_gpus(const struct pod *p);

/* Whether @p is Pending or Running (@running: Running only). */
bool obs_pod_active(const struct pod *p, bool running);

/*
 * obs_pod_on_node() - whether @p is bound to node @node (NULL or "": any node); a pod not bound
 * yet (no spec.nodeName) counts when @unbound (one the node's own pod list holds).
 */
bool obs_pod_on_node(const struct pod *p, const char *node, bool unbound);

/*
 * obs_transport_wants() - whether the transport probe samples @p: a GPU pod Running on @node
 * (obs_pod_gpu_on_node(); NULL or "" any), with a uid the sample holds, in a network namespace of
 * its own (a hostNetwork pod shares the host's with every host-network process: not sampled).
 */
bool obs_transport_wants(const struct pod *p, const char *node);
