/* attach_worker.c - workload findings of the pod and its GPU containers: GPUs, interfaces, aperture, plugin path, NCCL env, IPC_LOCK. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/imageref.h"
#include "probes/model/json.h"
#include "probes/model/obs_kube.h"
#include "report/checks/attach_daemon.h"
#include "report/checks/attach_worker.h"
#include "report/checks/releases_env.h"

#define ATTACH_WORKER_LIST_MAX 5        /* names listed in one message; the rest are counted */
#define ATTACH_DEVICE_PLUGIN_LIB64 "/usr/local/nvidia/lib64"   /* where GKE mounts the driver for GPU containers */
#define ATTACH_PROFILE "nccl-env-profile.sh"
#define ATTACH_LLCM_DIR "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY"

int attach_all_gpus(const struct attach_pod *w, struct finding *f)
{
	const struct attach_node *n = w->n;
	char remedy[400];

	if (w->gpus >= w->node_gpus)
		return finding_set(f, CHECK_PASS, NULL, "requests %lld of the node's %u GPUs", w->gpus, w->node_gpus);
	attach_remedy(n, remedy, sizeof(remedy), "request nvidia.com/gpu: %u (resources.limits of the GPU container), "
		      "or drop the fabric wiring for a single-node job", w->node_gpus);
	return finding_set(f, CHECK_FAIL, remedy,
				  "requests %lld of the node's %u GPUs: %s needs all GPUs and all %u GPU NICs", w->gpus,
				  w->node_gpus, profile_fabric_name(n->kind),
				  n->gpu_nics ? n->gpu_nics : attach_fabric_of(n->kind)->gpu_nics);
}

/* ---- interfaces ---- */

static bool attach_worker_is_gpu_nic(const char *name)
{
	/* eth1, eth2, ...: every interface but the primary eth0. */
	return strncmp(name, "eth", 3) == 0 && name[3] >= '1' && name[3] <= '9';
}

bool attach_interfaces_wired(const struct pod *p)
{
	struct json *list;
	bool wired = attach_ifaces_list(p, &list) < 0;  /* written, but unreadable: an attempt at wiring */

	for (const struct json *e = json_first(list); e && !wired; e = json_next(e)) {
		const char *name = json_get_string(e, "interfaceName");

		wired = !name || attach_worker_is_gpu_nic(name);
	}
	json_free(list);
	return wired;
}

/* Every entry an object with string interfaceName and network, each name once. Return: 0 ok, 1 reported. */
static int attach_worker_ifaces_shape(const struct json *list, const char *remedy, struct finding_acc *a)
{
	size_t i = 0;

	if (json_type(list) != JSON_ARRAY) {
		finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s is a JSON %s, not a list", ATTACH_IFACES_KEY,
			       json_type_name(json_type(list)));
		return 1;
	}
	if (json_size(list) > ATTACH_IFACES_ENTRIES_MAX) {
		finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s lists %zu interfaces, more than %d", ATTACH_IFACES_KEY,
			       json_size(list), ATTACH_IFACES_ENTRIES_MAX);
		return 1;
	}
	for (const struct json *e = json_first(list); e; e = json_next(e), i++) {
		const char *name = json_get_string(e, "interfaceName"), *net = json_get_string(e, "network");
		size_t j = 0;

		if (!name || !net) {
			finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s: entry %zu lacks a string %s", ATTACH_IFACES_KEY,
				       i, name ? "network" : "interfaceName");
			return 1;
		}
		for (const struct json *d = json_first(list); d != e; d = json_next(d), j++) {
			char q[64];

			if (strcmp(json_get_string(d, "interfaceName"), name) == 0) {
				finding_acc_add(a, CHECK_FAIL, remedy, "annotation %s lists %s twice (entries %zu and %zu)",
					       ATTACH_IFACES_KEY, attach_quote(name, q, sizeof(q)), j, i);
				return 1;
			}
		}
	}
	return 0;
}

int attach_interfaces(const struct attach_pod *w, struct finding *f)
{
	const struct pod *p = w->p;
	const struct attach_node *n = w->n;
	const char *v = obs_pod_kv(&p->annotations, ATTACH_IFACES_KEY);
	struct finding_acc a = { 0 };
	struct strbuf wrong = { 0 };
	struct json *list = NULL;
	char remedy[400];
	size_t n_wrong = 0, n_gpu = 0;
	bool eth0 = false;

	attach_remedy(n, remedy, sizeof(remedy), "annotate the pod with %s binding eth0 to default and eth1..eth%u to "
		      "this node's Networks (tcpxo-agent interfaces prints the mapping)", ATTACH_IFACES_KEY,
		      n->gpu_nics ? n->gpu_nics : attach_fabric_of(n->kind)->gpu_nics);
	if (p->host_network)
		return finding_set(f, CHECK_PASS, NULL, "hostNetwork: the pod uses the node's own GPU NICs");
	if (n->dranet)
		return finding_set(f, CHECK_SKIP, NULL, "GPU NICs allocated by DRANET (node label "
					  OBS_KUBE_DRANET_LABEL "): they reach pods through ResourceClaims, not Networks "
					  "and the %s annotation; the pod's claims are not checked", ATTACH_IFACES_KEY);
	if (!v)
		return finding_set(f, CHECK_FAIL, remedy, "the pod has no %s annotation: it sees eth0 only, and NCCL "
					  "runs over TCP sockets there", ATTACH_IFACES_KEY);
	if (strlen(v) > ATTACH_ANN_MAX)
		return finding_set(f, CHECK_FAIL, remedy, "annotation %s is %zu bytes, more than %u", ATTACH_IFACES_KEY,
					  strlen(v), ATTACH_ANN_MAX);
	if (json_parse(v, strlen(v), &list) < 0)
		return finding_set(f, CHECK_FAIL, remedy, "annotation %s is not JSON", ATTACH_IFACES_KEY);
	if (attach_worker_ifaces_shape(list, remedy, &a) == 0) {
		for (const struct json *e = json_first(list); e; e = json_next(e)) {
			const char *name = json_get_string(e, "interfaceName"), *net = json_get_string(e, "network");
			const struct profile_iface *ni;
			char qn[64], qv[96];

			attach_quote(name, qn, sizeof(qn));
			attach_quote(net, qv, sizeof(qv));
			if (strcmp(name, "eth0") == 0) {
				eth0 = true;
				if (strcmp(net, "default") != 0)
					finding_acc_add(&a, CHECK_FAIL, remedy, "eth0 is bound to %s, not default", qv);
				continue;
			}
			n_gpu += attach_worker_is_gpu_nic(name);
			if (!n->ifaces_known)
				continue;
			ni = obs_find(n->ifaces, n->n_ifaces, sizeof(*n->ifaces), 0, false, name);
			if (!ni || strcmp(ni->network, net) != 0)
				finding_list_add(&wrong, &n_wrong, ATTACH_WORKER_LIST_MAX, ", ", "%s -> %s (%s)", qn, qv,
						 ni ? ni->network : "not a GPU NIC of this node");
		}
		if (!eth0)
			finding_acc_add(&a, CHECK_FAIL, remedy, "eth0 is not listed: bind it to default");
		for (size_t i = 0; n->ifaces_known && i < n->n_ifaces; i++) {
			bool listed = false;

			for (const struct json *e = json_first(list); e && !listed; e = json_next(e))
				listed = strcmp(json_get_string(e, "interfaceName"), n->ifaces[i].name) == 0;
			if (!listed)
				finding_list_add(&wrong, &n_wrong, ATTACH_WORKER_LIST_MAX, ", ", "%s not listed (%s)",
						 n->ifaces[i].name, n->ifaces[i].network);
		}
		if (n_wrong > ATTACH_WORKER_LIST_MAX)
			strbuf_appendf(&wrong, " and %zu more", n_wrong - ATTACH_WORKER_LIST_MAX);
		if (n_wrong)
			finding_acc_add(&a, CHECK_FAIL, remedy, "%s does not match the node's GPU NICs: %s",
				       ATTACH_IFACES_KEY, wrong.s ? wrong.s : "");
		if (!n->ifaces_known) {
			unsigned want = n->gpu_nics ? n->gpu_nics : attach_fabric_of(n->kind)->gpu_nics;

			if (n_gpu < want)
				finding_acc_add(&a, CHECK_FAIL, remedy, "annotation %s binds %zu of the node's %u GPU NICs",
					       ATTACH_IFACES_KEY, n_gpu, want);
			else
				finding_acc_skip(&a, "%zu GPU NICs bound; %s: the Networks are not compared", n_gpu,
						n->ifaces_why[0] ? n->ifaces_why : "the node's mapping is unknown");
		}
	}
	json_free(list);
	strbuf_free(&wrong);
	return finding_acc_finish(&a, f, "eth0 -> default and eth1..eth%zu on the node's Networks", n->n_ifaces);
}

/* ---- the GPU containers ---- */

/*
 * Whether @c turns the plugin's LLCM on: NCCL_FASTRAK_USE_LLCM=1 in its env, or the env profile
 * (which exports it) sourced by its command. The plugin reads the LLCM devices only then, from
 * NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY or, unset, /sys/bus/pci/devices (plugin
 * tcpdirect_plugin/fastrak_offload/nic_client_router.cc, const_params.h: default 0).
 */
static bool attach_worker_llcm_on(const struct pod_container *c)
{
	bool set = false;
	const char *v = obs_pod_env(c, "NCCL_FASTRAK_USE_LLCM", &set);

	if (set)
		return v && strcmp(v, "0") != 0;
	return attach_sources_profile(c);
}

static void attach_aperture_one(const struct attach_pod *w, const struct pod_container *c, const char *q,
				const char *remedy, struct finding_acc *a)
{
	const struct pod_mount *m = obs_pod_mount_of_host(w->p, c, ATTACH_APERTURE_HOST);
	bool set = false;
	const char *v = obs_pod_env(c, ATTACH_LLCM_DIR, &set);
	char qv[160];

	if (c->privileged)
		return;
	if (!m) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s does not mount hostPath %s: the plugin then "
			       "reads /sys/bus/pci/devices, read-only in an unprivileged pod", q, ATTACH_APERTURE_HOST);
	} else if (!set && attach_argv_mentions(c, ATTACH_LLCM_DIR)) {
		return;         /* exported by the command's script */
	} else if (!set && attach_worker_llcm_on(c)) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s does not set %s (the aperture mount is at %s) "
			       "and turns LLCM on: the plugin opens the devices under /sys/bus/pci/devices instead, "
			       "read-only in an unprivileged pod", q, ATTACH_LLCM_DIR, m->path);
	} else if (!set) {
		finding_acc_add(a, CHECK_WARN, remedy, "container %s does not set %s (the aperture mount is at %s): "
			       "the plugin falls back to /sys/bus/pci/devices, read-only in an unprivileged pod; that "
			       "holds only while LLCM stays off (NCCL_FASTRAK_USE_LLCM, default 0; "
			       "nccl-env-profile.sh sets 1)", q, ATTACH_LLCM_DIR, m->path);
	} else if (!v) {
		finding_acc_add(a, CHECK_WARN, remedy, "container %s sets %s with valueFrom: not confirmed to be %s",
			       q, ATTACH_LLCM_DIR, m->path);
	} else if (!attach_path_has(v, m->path) || strchr(v, ':')) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s: %s is %s, but the aperture devices are mounted "
			       "at %s", q, ATTACH_LLCM_DIR, attach_quote(v, qv, sizeof(qv)), m->path);
	}
}

int attach_aperture(const struct attach_pod *w, struct finding *f)
{
	char remedy[400];

	if (w->n->kind != PROFILE_TCPXO)
		return finding_set(f, CHECK_SKIP, NULL, "no LLCM devices on %s nodes", profile_kind_name(w->n->kind));
	attach_remedy(w->n, remedy, sizeof(remedy), "mount hostPath %s at %s and set %s=%s in each GPU container",
		      ATTACH_APERTURE_HOST, ATTACH_APERTURE_HOST, ATTACH_LLCM_DIR, ATTACH_APERTURE_HOST);
	return attach_gpu_finding(w, f, attach_aperture_one, remedy, "every GPU container reaches the LLCM devices "
				  "(privileged, or the aperture mount and " ATTACH_LLCM_DIR ")");
}

bool attach_sources_profile(const struct pod_container *c)
{
	return attach_argv_mentions(c, ATTACH_PROFILE);
}

static void attach_plugin_path_one(const struct attach_pod *w, const struct pod_container *c, const char *q,
				   const char *remedy, struct finding_acc *a)
{
	char lib64[512], qv[200];
	bool mounted = attach_nvidia_lib64(w->p, c, lib64, sizeof(lib64)), set = false;
	const char *ld = obs_pod_env(c, "LD_LIBRARY_PATH", &set);

	if (attach_sources_profile(c))
		return;         /* the profile puts NCCL_LIB_DIR on LD_LIBRARY_PATH */
	if (set && !ld) {
		finding_acc_add(a, CHECK_WARN, remedy, "container %s sets LD_LIBRARY_PATH with valueFrom: not confirmed "
			       "to hold %s", q, mounted ? lib64 : ATTACH_DEVICE_PLUGIN_LIB64);
	} else if (set && !attach_path_has(ld, ATTACH_DEVICE_PLUGIN_LIB64) && !(mounted && attach_path_has(ld, lib64))) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s: LD_LIBRARY_PATH (%s) does not hold %s: NCCL loads "
			       "no net plugin and uses its Socket transport", q, attach_quote(ld, qv, sizeof(qv)),
			       mounted ? lib64 : ATTACH_DEVICE_PLUGIN_LIB64);
	} else if (!set && !mounted) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s neither mounts hostPath %s nor has %s on "
			       "LD_LIBRARY_PATH: NCCL loads no net plugin and uses its Socket transport", q,
			       ATTACH_NVIDIA_HOST, ATTACH_DEVICE_PLUGIN_LIB64);
	}
}

int attach_plugin_path(const struct attach_pod *w, struct finding *f)
{
	char remedy[400];

	attach_remedy(w->n, remedy, sizeof(remedy), "mount hostPath %s at /usr/local/nvidia and put "
		      "/usr/local/nvidia/lib64 on LD_LIBRARY_PATH in each GPU container", ATTACH_NVIDIA_HOST);
	return attach_gpu_finding(w, f, attach_plugin_path_one, remedy,
				  "every GPU container reaches the plugin in the host's NVIDIA lib64");
}

/* ---- nccl-env ---- */

static bool attach_worker_env_family(const struct pod_container *c, const char *family, const char **ret_name)
{
	for (size_t i = 0; i < c->env.n; i++)
		if (strncmp(c->env.v[i].key, family, strlen(family)) == 0) {
			*ret_name = c->env.v[i].key;
			return true;
		}
	return false;
}

/* A variable naming a file the installer writes (NCCL_TUNER_CONFIG_PATH): that file, where it is, present. */
static void attach_worker_lib_file(const struct pod *p, const struct pod_container *c, const struct attach_node *n,
				   const struct releases_env *e, const char *remedy, struct finding_acc *a)
{
	const char *v, *base;
	char lib64[512], q[96], qv[200], dir[512];
	bool set = false;

	v = obs_pod_env(c, e->name, &set);
	if (!set || !v || strstr(v, "$("))
		return;         /* unset (the finding's other half), or not known here */
	attach_quote(c->name, q, sizeof(q));
	attach_quote(v, qv, sizeof(qv));
	base = strrchr(v, '/') ? strrchr(v, '/') + 1 : v;
	snprintf(dir, sizeof(dir), "%.*s", (int)(base - v), v);
	if (strcmp(base, e->value) != 0) {
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s: %s=%s names a file the plugin does not install (it "
			       "installs %s): NCCL aborts when the file is missing", q, e->name, qv, e->value);
		return;
	}
	if (!(attach_nvidia_lib64(p, c, lib64, sizeof(lib64)) && attach_path_has(dir, lib64)) &&
	    !attach_path_has(dir, ATTACH_DEVICE_PLUGIN_LIB64)) {
		finding_acc_add(a, CHECK_WARN, remedy, "container %s: %s=%s is outside the NVIDIA lib64 the plugin is "
			       "installed in: not confirmed to exist", q, e->name, qv);
		return;
	}
	if (n->plugin_files_known &&
	    !obs_find(n->plugin_files, n->n_plugin_files, sizeof(n->plugin_files[0]), 0, false, e->value))
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s: %s=%s, but the node's lib64 has no %s (see the "
			       "plugin-files check): NCCL aborts", q, e->name, qv, e->value);
}

static void attach_worker_tcpxo_env(const struct pod *p, const struct pod_container *c, const struct attach_node *n,
				    const char *remedy, struct finding_acc *a)
{
	const struct releases_env *set;
	struct strbuf missing = { 0 };
	size_t n_set, n_missing = 0, n_required = 0;
	char q[96];

	attach_quote(c->name, q, sizeof(q));
	set = releases_env_of(n->releases, RELEASES_FABRIC_TCPXO, n->installer, &n_set);
	if (!set)
		set = releases_env_latest(&n_set);
	for (size_t i = 0; i < n_set; i++) {
		if (set[i].kind == RELEASES_ENV_LIB_FILE)
			attach_worker_lib_file(p, c, n, &set[i], remedy, a);
		if (set[i].kind == RELEASES_ENV_OPTIONAL)
			continue;
		n_required++;
		if (!obs_pod_has_kv(&c->env, set[i].name))
			finding_list_add(&missing, &n_missing, ATTACH_WORKER_LIST_MAX, ", ", "%s", set[i].name);
	}
	if (n_missing > ATTACH_WORKER_LIST_MAX)
		strbuf_appendf(&missing, " and %zu more", n_missing - ATTACH_WORKER_LIST_MAX);
	if (n_missing && !attach_sources_profile(c))
		finding_acc_add(a, CHECK_WARN, remedy, "container %s: %zu of the release's %zu TCPXO variables are not in "
			       "its env (%s)%s and its command does not source %s", q, n_missing, n_required,
			       missing.s ? missing.s : "", c->env_from ? ", envFrom is not visible here," : "", ATTACH_PROFILE);
	strbuf_free(&missing);
}

static void attach_nccl_env_one(const struct attach_pod *w, const struct pod_container *c, const char *q,
				const char *remedy, struct finding_acc *a)
{
	const struct attach_fabric *fab = attach_fabric_of(w->n->kind);
	const char *name = NULL;
	char qn[160];

	if (attach_worker_env_family(c, fab->foreign_family, &name))
		finding_acc_add(a, CHECK_FAIL, remedy, "container %s sets %s, a %s variable, on a %s node", q,
			       attach_quote(name, qn, sizeof(qn)), w->n->kind == PROFILE_TCPXO ? "TCPX" : "TCPXO",
			       profile_kind_name(w->n->kind));
	if (w->n->kind == PROFILE_TCPXO)
		attach_worker_tcpxo_env(w->p, c, w->n, remedy, a);
	else if (!attach_worker_env_family(c, fab->env_family, &name) && !attach_sources_profile(c))
		finding_acc_add(a, CHECK_WARN, remedy, "container %s sets no %s* variable%s", q, fab->env_family,
			       c->env_from ? " (envFrom is not visible here)" : "");
}

int attach_nccl_env(const struct attach_pod *w, struct finding *f)
{
	char remedy[500], pass[64];

	if (w->n->kind == PROFILE_TCPXO)
		attach_remedy(w->n, remedy, sizeof(remedy), "set the release's TCPXO variables as env (the user guide "
			      "lists them), or run NCCL_LIB_DIR=/usr/local/nvidia/lib64 source /usr/local/nvidia/lib64/%s "
			      "in the command; no NCCL_GPUDIRECTTCPX_* variables", ATTACH_PROFILE);
	else
		attach_remedy(w->n, remedy, sizeof(remedy), "set the TCPX plugin's NCCL_GPUDIRECTTCPX_* variables "
			      "(Google's gpudirect-tcpx manifests) and no NCCL_FASTRAK_* ones");
	snprintf(pass, sizeof(pass), "every GPU container has the %s variable set", profile_fabric_name(w->n->kind));
	return attach_gpu_finding(w, f, attach_nccl_env_one, remedy, pass);
}

static void attach_ipc_lock_one(const struct attach_pod *w, const struct pod_container *c, const char *q,
				const char *remedy, struct finding_acc *a)
{
	(void)w;
	if (!c->privileged && !obs_pod_has_cap(c, "IPC_LOCK"))
		finding_acc_add(a, CHECK_WARN, remedy, "container %s has neither IPC_LOCK nor privileged: NCCL cannot pin "
			       "its buffers beyond the memlock limit", q);
}

int attach_ipc_lock(const struct attach_pod *w, struct finding *f)
{
	char remedy[300];

	attach_remedy(w->n, remedy, sizeof(remedy), "add IPC_LOCK to securityContext.capabilities.add of each GPU container");
	return attach_gpu_finding(w, f, attach_ipc_lock_one, remedy, "every GPU container may lock memory");
}

int attach_mounts(const struct attach_pod *w, struct finding *f)
{
	const struct pod *p = w->p;
	struct finding_acc a = { 0 };
	char remedy[300], q[96];

	attach_daemon_mounts(p, w->daemon, w->n, &a);
	attach_remedy(w->n, remedy, sizeof(remedy), "mount hostPath " ATTACH_TCPX_SOCKETS " in each GPU container and "
		      "the daemon");
	for (size_t i = 0; w->n->kind == PROFILE_TCPX && i < p->n_containers; i++) {
		const struct pod_container *c = &p->containers[i];

		if (imageref_gpu_container(c) && !obs_pod_mount_of_host(p, c, ATTACH_TCPX_SOCKETS))
			finding_acc_add(&a, CHECK_FAIL, remedy, "GPU container %s does not mount hostPath %s, where the "
				       "daemon's socket is", attach_quote(c->name, q, sizeof(q)), ATTACH_TCPX_SOCKETS);
	}
	return finding_acc_finish(&a, f, "container %s has its host mounts and capabilities",
				  attach_quote(w->daemon->name, q, sizeof(q)));
}
