/* attach_judge.h - the workload checker: one pod (or pod template) against a node's facts -> verdict and findings. */
#pragma once

#include "report/checks/attach.h"

/**
 * attach_judge() - judge @p against @n (pure; the same for a realized pod and a template).
 * Verdict: not-fabric when the pod requests fewer GPUs than the node has and carries no wiring
 * (no daemon container, no GPU NIC in networking.gke.io/interfaces): every finding is then a skip;
 * unattached when it requests them all and carries no wiring; else partial when a finding
 * fails, attached otherwise. Each finding is pass, warn, fail or skip (a fact of the node or of
 * the pod that is unknown skips the finding that needs it, and the message says so).
 * @ret: written on success; free with attach_result_free().
 *
 * Return: 0 or -ENOMEM.
 */
int attach_judge(const struct pod *p, const struct attach_node *n, struct attach_result *ret);

/* Whether @p is judged at all on a node: phase Pending or Running and at least one GPU. */
bool attach_pod_selected(const struct pod *p);
