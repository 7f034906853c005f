/* podbuild.h - build pods (struct pod) and attachment node facts in memory for unit tests. */
#pragma once

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/obs_pod.h"
#include "report/checks/attach.h"

#define PB_CAP 64       /* entries of every list: enough for a test pod, never reallocated */

static inline char *pb_dup(const char *s)
{
	return s ? strdup(s) : NULL;
}

static inline void pb_kv(struct pod_kvs *kv, const char *k, const char *v)
{
	if (!kv->v)
		kv->v = calloc(PB_CAP, sizeof(*kv->v));
	/* A later key replaces an earlier one (maps), except for env lists (pb_env appends). */
	for (size_t i = 0; i < kv->n; i++)
		if (strcmp(kv->v[i].key, k) == 0) {
			free(kv->v[i].value);
			kv->v[i].value = pb_dup(v);
			return;
		}
	kv->v[kv->n].key = strdup(k);
	kv->v[kv->n].value = pb_dup(v);
	kv->n++;
}

static inline struct pod *pb_pod(const char *ns, const char *name, const char *phase)
{
	struct pod *p = calloc(1, sizeof(*p));

	p->ns = pb_dup(ns);
	p->name = pb_dup(name);
	p->uid = pb_dup("0f0e0d0c-0000-4000-8000-000000000001");
	p->phase = pb_dup(phase);
	p->node_name = pb_dup("node-1");
	p->containers = calloc(PB_CAP, sizeof(*p->containers));
	p->volumes = calloc(PB_CAP, sizeof(*p->volumes));
	return p;
}

static inline void pb_free(struct pod *p)
{
	obs_pod_free(p);
	free(p);
}

/* A container; init + sidecar for a native sidecar. Its status starts running for a Running pod. */
static inline struct pod_container *pb_container(struct pod *p, const char *name, const char *image, bool init,
						 bool sidecar)
{
	struct pod_container *c = &p->containers[p->n_containers++];

	c->name = strdup(name);
	c->image = pb_dup(image);
	c->init = init;
	c->sidecar = sidecar;
	c->gpu_limit = c->gpu_request = POD_GPUS_ABSENT;
	c->command = calloc(PB_CAP, sizeof(char *));
	c->args = calloc(PB_CAP, sizeof(char *));
	c->mounts = calloc(PB_CAP, sizeof(*c->mounts));
	c->cap_add = calloc(PB_CAP, sizeof(char *));
	if (p->phase && strcmp(p->phase, "Running") == 0)
		c->status.state = POD_CSTATE_RUNNING;
	return c;
}

static inline struct pod_container *pb_find(struct pod *p, const char *name)
{
	for (size_t i = 0; i < p->n_containers; i++)
		if (strcmp(p->containers[i].name, name) == 0)
			return &p->containers[i];
	return NULL;
}

static inline void pb_cmd(struct pod_container *c, const char *arg)
{
	c->command[c->n_command++] = strdup(arg);
}

static inline void pb_arg(struct pod_container *c, const char *arg)
{
	c->args[c->n_args++] = strdup(arg);
}

static inline void pb_env(struct pod_container *c, const char *k, const char *v)
{
	if (!c->env.v)
		c->env.v = calloc(PB_CAP, sizeof(*c->env.v));
	c->env.v[c->env.n].key = strdup(k);
	c->env.v[c->env.n].value = pb_dup(v);
	c->env.n++;
}

/* Remove every env entry named @k. */
static inline void pb_unenv(struct pod_container *c, const char *k)
{
	size_t j = 0;

	for (size_t i = 0; i < c->env.n; i++) {
		if (strcmp(c->env.v[i].key, k) == 0) {
			free(c->env.v[i].key);
			free(c->env.v[i].value);
			continue;
		}
		c->env.v[j++] = c->env.v[i];
	}
	c->env.n = j;
}

static inline void pb_mount(struct pod_container *c, const char *volume, const char *path)
{
	c->mounts[c->n_mounts].name = strdup(volume);
	c->mounts[c->n_mounts].path = strdup(path);
	c->n_mounts++;
}

/* Remove the mount at @path. */
static inline void pb_unmount(struct pod_container *c, const char *path)
{
	size_t j = 0;

	for (size_t i = 0; i < c->n_mounts; i++) {
		if (strcmp(c->mounts[i].path, path) == 0) {
			free(c->mounts[i].name);
			free(c->mounts[i].path);
			continue;
		}
		c->mounts[j++] = c->mounts[i];
	}
	c->n_mounts = j;
}

static inline void pb_host_volume(struct pod *p, const char *name, const char *host)
{
	p->volumes[p->n_volumes].name = strdup(name);
	p->volumes[p->n_volumes].host_path = pb_dup(host);
	p->n_volumes++;
}

static inline void pb_cap(struct pod_container *c, const char *cap)
{
	c->cap_add[c->n_cap_add++] = strdup(cap);
}

/* Remove capability @cap from the container's add list. */
static inline void pb_uncap(struct pod_container *c, const char *cap)
{
	size_t j = 0;

	for (size_t i = 0; i < c->n_cap_add; i++) {
		if (strcmp(c->cap_add[i], cap) == 0) {
			free(c->cap_add[i]);
			continue;
		}
		c->cap_add[j++] = c->cap_add[i];
	}
	c->n_cap_add = j;
}

static inline void pb_ann(struct pod *p, const char *k, const char *v)
{
	pb_kv(&p->annotations, k, v);
}

/* Remove annotation @k. */
static inline void pb_unann(struct pod *p, const char *k)
{
	size_t j = 0;

	for (size_t i = 0; i < p->annotations.n; i++) {
		if (strcmp(p->annotations.v[i].key, k) == 0) {
			free(p->annotations.v[i].key);
			free(p->annotations.v[i].value);
			continue;
		}
		p->annotations.v[j++] = p->annotations.v[i];
	}
	p->annotations.n = j;
}

static inline void pb_gpus(struct pod_container *c, long long n)
{
	c->gpu_limit = n;
}

/* The TCPXO node of REFERENCE §1: 8 GPUs, eth1..eth8 on gpu-nic-0..7, installer v1.0.15, injector up. */
static inline void pb_node_tcpxo(struct attach_node *n)
{
	static const char *const files[] = { "a3plus_guest_config.textproto", "a3plus_tuner_config.textproto",
					     "libnccl-net.so", "libnccl-net_internal.so", "libnccl-tuner.so",
					     "libnccl.so.2.28.7", "nccl-env-profile.sh" };

	memset(n, 0, sizeof(*n));
	n->kind = PROFILE_TCPXO;
	n->gpus = 8;
	n->gpu_nics = 8;
	n->ifaces_known = true;
	for (int i = 0; i < 8; i++) {
		snprintf(n->ifaces[i].name, sizeof(n->ifaces[i].name), "eth%d", i + 1);
		snprintf(n->ifaces[i].network, sizeof(n->ifaces[i].network), "gpu-nic-%d", i);
	}
	n->n_ifaces = 8;
	strcpy(n->installer, "v1.0.15");
	strcpy(n->expected_daemon, "v1.0.21");
	for (int i = 0; i < 8; i++)
		snprintf(n->devices[n->n_devices++], ATTACH_DEVNAME_MAX, "/dev/nvidia%d", i);
	strcpy(n->devices[n->n_devices++], "/dev/nvidiactl");
	strcpy(n->devices[n->n_devices++], "/dev/nvidia-uvm");
	strcpy(n->devices[n->n_devices++], "/dev/dmabuf_import_helper");
	n->injector = ATTACH_INJECTOR_RUNNING;
	strcpy(n->injector_found, "kube-system/device-injector-x running");
	n->plugin_files_known = true;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		strcpy(n->plugin_files[n->n_plugin_files++], files[i]);
}

#define PB_DAEMON_IMAGE "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"
#define PB_DEVICES_8 \
	"- path: /dev/nvidia0\n- path: /dev/nvidia1\n- path: /dev/nvidia2\n- path: /dev/nvidia3\n" \
	"- path: /dev/nvidia4\n- path: /dev/nvidia5\n- path: /dev/nvidia6\n- path: /dev/nvidia7\n" \
	"- path: /dev/nvidiactl\n- path: /dev/nvidia-uvm\n- path: /dev/dmabuf_import_helper\n"
#define PB_IFACES_8 \
	"[{\"interfaceName\":\"eth0\",\"network\":\"default\"},{\"interfaceName\":\"eth1\",\"network\":\"gpu-nic-0\"}," \
	"{\"interfaceName\":\"eth2\",\"network\":\"gpu-nic-1\"},{\"interfaceName\":\"eth3\",\"network\":\"gpu-nic-2\"}," \
	"{\"interfaceName\":\"eth4\",\"network\":\"gpu-nic-3\"},{\"interfaceName\":\"eth5\",\"network\":\"gpu-nic-4\"}," \
	"{\"interfaceName\":\"eth6\",\"network\":\"gpu-nic-5\"},{\"interfaceName\":\"eth7\",\"network\":\"gpu-nic-6\"}," \
	"{\"interfaceName\":\"eth8\",\"network\":\"gpu-nic-7\"}]"

/*
 * The worker pod of a TrainJob made from AICR's torch-distributed-tcpxo ClusterTrainingRuntime
 * (trimmed to what the checker reads): native sidecar, NRI devices, the release's env as env.
 */
static inline struct pod *pb_aicr_worker(void)
{
	static const char *const env[][2] = {
		{ "LD_LIBRARY_PATH", "/usr/lib/x86_64-linux-gnu:/usr/local/nvidia/lib64:/usr/local/cuda/lib64" },
		{ "NCCL_FASTRAK_CTRL_DEV", "eth0" }, { "NCCL_FASTRAK_IFNAME", "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8" },
		{ "NCCL_SOCKET_IFNAME", "eth0" }, { "NCCL_CROSS_NIC", "0" }, { "NCCL_PROTO", "Simple,LL128" },
		{ "NCCL_MIN_NCHANNELS", "4" }, { "NCCL_TUNER_PLUGIN", "libnccl-tuner.so" },
		{ "NCCL_TUNER_CONFIG_PATH", "/usr/local/nvidia/lib64/a3plus_tuner_config.textproto" },
		{ "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "/usr/local/nvidia/lib64/a3plus_guest_config.textproto" },
		{ "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7" }, { "NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072" },
		{ "NCCL_P2P_NET_CHUNKSIZE", "524288" }, { "NCCL_P2P_PCI_CHUNKSIZE", "524288" },
		{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576" }, { "NCCL_FASTRAK_NUM_FLOWS", "2" },
		{ "NCCL_FASTRAK_USE_SNAP", "1" }, { "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000" },
		{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0" }, { "NCCL_BUFFSIZE", "8388608" },
		{ "NCCL_NET_GDR_LEVEL", "PIX" }, { "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0" },
		{ "NCCL_FASTRAK_USE_LLCM", "1" }, { "NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY", "/dev/aperture_devices" },
		{ "NCCL_NVLS_ENABLE", "1" }, { "NCCL_DEBUG", "WARN" }, { "NCCL_DEBUG_SUBSYS", "INIT,NET,ENV,COLL,GRAPH" },
	};
	struct pod *p = pb_pod("ml-team", "llama-node-0-0-x2b9f", "Running");
	struct pod_container *d, *w;

	pb_kv(&p->labels, "jobset.sigs.k8s.io/jobset-name", "llama");
	pb_ann(p, "devices.gke.io/container.tcpxo-daemon", PB_DEVICES_8);
	pb_ann(p, "networking.gke.io/default-interface", "eth0");
	pb_ann(p, "networking.gke.io/interfaces", PB_IFACES_8);
	pb_host_volume(p, "dshm", NULL);
	pb_host_volume(p, "nvtcpxo-libraries", "/home/kubernetes/bin/nvidia");
	pb_host_volume(p, "nvtcpxo-sys", "/sys");
	pb_host_volume(p, "nvtcpxo-proc-sys", "/proc/sys");
	pb_host_volume(p, "nvtcpxo-aperture-devices", "/dev/aperture_devices");

	d = pb_container(p, "tcpxo-daemon", PB_DAEMON_IMAGE, true, true);
	pb_cmd(d, "/bin/sh");
	pb_cmd(d, "-c");
	pb_arg(d, "set -ex\nchmod 755 /fts/entrypoint_rxdm_container.sh\n/fts/entrypoint_rxdm_container.sh --num_hops=2\n");
	pb_cap(d, "NET_ADMIN");
	pb_cap(d, "NET_BIND_SERVICE");
	pb_mount(d, "nvtcpxo-libraries", "/usr/local/nvidia");
	pb_mount(d, "nvtcpxo-sys", "/hostsysfs");
	pb_mount(d, "nvtcpxo-proc-sys", "/hostprocsysfs");
	pb_env(d, "LD_LIBRARY_PATH", "/usr/local/nvidia/lib64");

	w = pb_container(p, "node", "pytorch/pytorch:2.11.0-cuda12.8-cudnn9-runtime", false, false);
	pb_cmd(w, "torchrun");
	pb_gpus(w, 8);
	pb_cap(w, "IPC_LOCK");
	for (size_t i = 0; i < sizeof(env) / sizeof(env[0]); i++)
		pb_env(w, env[i][0], env[i][1]);
	pb_mount(w, "dshm", "/dev/shm");
	pb_mount(w, "nvtcpxo-libraries", "/usr/local/nvidia");
	pb_mount(w, "nvtcpxo-aperture-devices", "/dev/aperture_devices");
	return p;
}
