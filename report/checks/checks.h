/* checks.h - the check table: one function per check id, each pure over (observation, profile). */
#pragma once

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

/*
 * A check function fills p->checks[id] with finding_set(), and records with profile_mark() its
 * finding on each part (GPU, GPU NIC, aperture entry, LLCM function) that the human report's tree
 * shows on that part's row. It may read the observation and the rows evaluate.c already built
 * (gpus, nics, pairing). It returns 0 or -ENOMEM.
 */
typedef int (*check_fn)(const struct observation *o, struct profile *p, struct finding *c);

/*
 * evaluate_check() - run check @id as profile_evaluate() does (report/checks/evaluate.c): skipped,
 * with the same message for every check, when the profile is one it does not judge or what it needs
 * (the PCI bus, the Node or the pods from the API) was not read. Return: 0 or -ENOMEM.
 */
int evaluate_check(enum check_id id, const struct observation *o, struct profile *p, struct finding *c);

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

/*
 * check_nvpath_read() - decide @c when /home/kubernetes/bin/nvidia was not observed (skip), could
 * not be read or is not a directory (fail). Return: 1 when it did, 0 when the folder is there, -ENOMEM.
 */
int check_nvpath_read(const struct obs_nvpath *n, struct finding *c);

/* The daemon's arguments, from /proc and pod specs (report/checks/check_daemon.c). */
int check_daemon_args(const struct observation *o, struct profile *p, struct finding *c);

/* The daemon pods' wiring and the NRI device injector (report/checks/check_daemonpod.c). */
int check_daemon_pod(const struct observation *o, struct profile *p, struct finding *c);

/*
 * Profile rdma's rows (report/checks/check_rdma.c), called by the checks above for PROFILE_RDMA:
 * the GPUs (8 H200 or B200), the GPU NICs (8 mlx5, mlx5_core, an RDMA device each), the gIB
 * files (the plugin-files row). check_rdma_names() adds to the pairing check's @sb each GPU N
 * whose NIC is not named gpu<N>rdma0 and returns how many; check_rdma_ports() adds to the links
 * check's @sb each RDMA port not ACTIVE, LinkUp, Ethernet with a RoCE v2 GID for the NIC's
 * address, returns how many, and counts the good ones in *@ret_ok. *@ret: 0 or -ENOMEM.
 */
int check_rdma_gpus(const struct observation *o, struct profile *p, struct finding *c);
int check_rdma_nics(const struct observation *o, struct profile *p, struct finding *c);
int check_rdma_gib(const struct observation *o, struct profile *p, struct finding *c);
int check_rdma_networks(const struct observation *o, struct profile *p, struct finding *c);  /* sets p->mode, p->ifaces */
size_t check_rdma_names(struct profile *p, struct strbuf *sb, int *ret);
size_t check_rdma_ports(const struct observation *o, struct profile *p, struct strbuf *sb, size_t *ret_ok, int *ret);

/* API-derived checks (report/checks/check_kube.c; version-pair in report/checks/check_versions.c). */
int check_machine_type(const struct observation *o, struct profile *p, struct finding *c);
int check_networks(const struct observation *o, struct profile *p, struct finding *c);
int check_version_pair(const struct observation *o, struct profile *p, struct finding *c);

/*
 * check_machine_kind() - whether @machine (node.kubernetes.io/instance-type) is one of the A3 GPU
 * machine types whose hardware the agent knows (the machine-type check's table: a3-megagpu-8g for
 * tcpxo, a3-highgpu-8g and a3-edgegpu-8g for tcpx, a3-ultragpu-8g and a4-highgpu-8g for rdma);
 * false for NULL.
 */
bool check_machine_kind(const char *machine);

/* The profile the machine type @machine has by the same table; PROFILE_NONE when unknown or NULL. */
enum profile_kind check_machine_profile(const char *machine);

/*
 * Fill NIC rows from the API facts before the checks run (report/checks/check_kube.c): interface
 * names of NICs not in this namespace (nic-info birthName by PCI address), their IPv4
 * (birthIP), and each NIC's GKE Network (north-interfaces joined on IP). Never overwrites
 * what the kernel showed. Return: 0 or -ENOMEM.
 */
int check_kube_enrich(const struct observation *o, struct profile *p);
