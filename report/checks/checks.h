/* checks.h - the check table: one function per check id, each pure over (observation, profile). */
#pragma once

#include "report/checks/profile.h"

/*
 * A check function fills p->checks[id] with finding_set(), and records with profile_mark() its
 * finding on each part (GPU, GPU NIC, aperture entry, LLCM function) that the human report's tree
 * shows on that part's row. It may read the observation and the rows evaluate.c already built
 * (gpus, nics, pairing). It returns 0 or -ENOMEM.
 */
typedef int (*check_fn)(const struct observation *o, struct profile *p, struct finding *c);

/* Topology checks (report/checks/check_topology.c). */
int check_gpus(const struct observation *o, struct profile *p, struct finding *c);
int check_gpu_nics(const struct observation *o, struct profile *p, struct finding *c);
int check_pairing(const struct observation *o, struct profile *p, struct finding *c);
int check_links(const struct observation *o, struct profile *p, struct finding *c);

/* Host wiring checks (report/checks/check_host.c; plugin-files in report/checks/check_plugin.c). */
int check_aperture_devices(const struct observation *o, struct profile *p, struct finding *c);
int check_device_nodes(const struct observation *o, struct profile *p, struct finding *c);
int check_nvidia_host_path(const struct observation *o, struct profile *p, struct finding *c);
int check_plugin_files(const struct observation *o, struct profile *p, struct finding *c);

/* The daemon's arguments, from /proc and pod specs (report/checks/check_daemon.c). */
int check_daemon_args(const struct observation *o, struct profile *p, struct finding *c);

/* The daemon pods' wiring and the NRI device injector (report/checks/check_daemonpod.c). */
int check_daemon_pod(const struct observation *o, struct profile *p, struct finding *c);

/* API-derived checks (report/checks/check_kube.c; version-pair in report/checks/check_versions.c). */
int check_machine_type(const struct observation *o, struct profile *p, struct finding *c);
int check_networks(const struct observation *o, struct profile *p, struct finding *c);
int check_version_pair(const struct observation *o, struct profile *p, struct finding *c);

/*
 * check_kube_need() - skip @c when the API facts @f (@object, read for @what) are not there.
 * Return: 1 when @c was set (skipped), 0 when the facts are there, -ENOMEM.
 */
int check_kube_need(const struct obs_kube *k, const struct kube_fetch *f, struct finding *c, const char *what,
		    const char *object);

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
