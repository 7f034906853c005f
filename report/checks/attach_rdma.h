/* attach_rdma.h - a GPU pod judged against an RDMA node (profile rdma): networks or claims, gIB, NCCL_NET. */
#pragma once

#include "report/checks/attach.h"

/*
 * attach_rdma_judge() - judge @p against @n (n->kind PROFILE_RDMA) into @r (r->gpus set by the
 * caller): every finding set, the verdict and r->wired too. Return: 0 or -ENOMEM.
 */
int attach_rdma_judge(const struct pod *p, const struct attach_node *n, struct attach_result *r);
