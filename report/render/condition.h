/* condition.h - the FabricReady node condition: its value from the verdict, and the strategic merge patches of nodes/status (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/obs_kube.h"
#include "report/checks/profile.h"

#define CONDITION_REASON_MAX 64
#define CONDITION_MESSAGE_MAX 1024      /* the message we write: the summary line, cut to this */
#define CONDITION_UNKNOWN_REASON "ObservationFailed"

/* The condition's value: what `kubectl describe node` shows under Conditions. */
struct condition {
	const char *status;                     /* "True", "False" or "Unknown" */
	char reason[CONDITION_REASON_MAX];      /* CamelCase, e.g. "TCPXOReady", "VersionPair" */
	char message[CONDITION_MESSAGE_MAX + 1];
};

/**
 * condition_build() - the condition of an evaluated profile. Ready: True with reason TCPXOReady
 * (TCPXReady on a TCPX node). Not ready, profile none included: False with the first failed
 * check's id in CamelCase (version-pair -> VersionPair; NoFabric when no check failed). The
 * message is the summary line, made printable and cut on a UTF-8 boundary to at most
 * CONDITION_MESSAGE_MAX bytes.
 */
void condition_build(const struct profile *p, struct condition *ret);

/**
 * condition_unknown() - Unknown, reason ObservationFailed, the message "the node could not be
 * observed: " and @why (printable, cut as above).
 */
void condition_unknown(const char *why, struct condition *ret);

/* The CamelCase form of a check id ("version-pair" -> "VersionPair") into @buf. */
void condition_reason_of(enum check_id id, char *buf, size_t len);

/**
 * condition_differs() - whether the node's condition @have differs from @want (status, reason
 * or message; the times are not compared).
 */
bool condition_differs(const struct condition *want, const struct kube_condition *have);

/**
 * condition_patch() - the strategic merge patch of nodes/<node>/status that sets @want, merged by
 * type so no other condition is touched: {"status":{"conditions":[{"type":"FabricReady",...}]}}.
 * lastHeartbeatTime is @now; lastTransitionTime is @now only when the status changes (or the
 * node has none of ours), else it is left out and the node keeps its own.
 * @now: RFC 3339 UTC, at most KUBE_COND_TIME_MAX - 1 bytes.
 * @ret: malloc'd patch, written on success.
 *
 * Return: 0; -EINVAL for a NULL or over-long @now; -ENOMEM.
 */
int condition_patch(const struct condition *want, const struct kube_condition *have, const char *now,
		    char **ret);

/**
 * condition_cleanup_patch() - the strategic merge patch that removes our condition by type
 * ({"$patch":"delete"}) and nothing else (--cleanup).
 * Return: 0 or -ENOMEM.
 */
int condition_cleanup_patch(char **ret);

/**
 * condition_remember() - make @have what the node carries after condition_patch(@want, @have,
 * @now) was applied (the status subresource merges it as the server would): lastHeartbeatTime is
 * @now, lastTransitionTime too when the status changed.
 * Return: 0 or -ENOMEM (then @have is cleared: unknown, so it differs and is written again).
 */
int condition_remember(struct kube_condition *have, const struct condition *want, const char *now);
