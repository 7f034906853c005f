/* status.h - pure: the fleet's status from the Nodes its agents published: which nodes are listed, ready, stale, and why not. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report/checks/stresult.h"
#include "report/fleet/coherence_node.h"

/**
 * status_judge() - the status of the listed nodes among @nodes (the records coherence_nodes()
 * holds, each read once): per node its profile, whether it is ready, its causes (the failed checks
 * its attachment names; STRESULT_UNOBSERVED for a listed node without a profile annotation;
 * STRESULT_READY_UNKNOWN, STRESULT_CHECKS_UNKNOWN; STRESULT_OBSERVATION_FAILED when FabricReady
 * is Unknown (or says neither True nor False), which makes the node not ready; STRESULT_STALE when FabricReady's
 * lastHeartbeatTime is older than STRESULT_STALE_PERIODS heartbeat periods before @now, which
 * makes the node not ready whatever it published), the verdict's age; then the not-ready nodes
 * grouped by cause. The result does not depend on the order of @nodes.
 * @now: seconds since the epoch (injected: no clock is read here).
 * @period_s: the agents' heartbeat period in seconds (--heartbeat); 0: they send none, so no
 *            verdict is called stale.
 * @ret: written on success; free with stresult_free().
 * @err: why it failed (@errlen bytes), written only on failure.
 *
 * Return: 0; -EINVAL when a node name appears twice; -ENOMEM.
 */
int status_judge(const struct coherence_node *nodes, size_t n, long long now, unsigned period_s,
		 struct stresult *ret, char *err, size_t errlen);
