/* attach_rdma.h - a GPU pod judged against an RDMA node (profile rdma): networks or claims, gIB, NCCL_NET. */
#pragma once

#include "report/checks/attach.h"

/* Whether @p carries RDMA wiring: a ResourceClaim on a DRANET node, else any of rdma-0..7 bound (or an unreadable list). */
bool attach_rdma_wired(const struct pod *p, const struct attach_node *n);

/*
 * The findings on an RDMA node (rows of attach_judge.c's table): all-gpus, daemon-sidecar (no
 * TCPX(O) daemon), interfaces (the RDMA Networks or a ResourceClaim), plugin-path (the gIB mount),
 * nccl-env (NCCL_NET=gIB or set_nccl_env.sh).
 */
int attach_rdma_all_gpus(const struct attach_pod *w, struct finding *f);
int attach_rdma_no_daemon(const struct attach_pod *w, struct finding *f);
int attach_rdma_interfaces(const struct attach_pod *w, struct finding *f);
int attach_rdma_gib(const struct attach_pod *w, struct finding *f);
int attach_rdma_env(const struct attach_pod *w, struct finding *f);
