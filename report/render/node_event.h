/* node_event.h - the content of the Event a Node gets when its ready, profile or runtime changes (pure). */
#pragma once

#include "report/checks/profile.h"
#include "report/render/annotations.h"

#define NODE_EVENT_NOTE_MAX 1024        /* events.k8s.io/v1 note: at most 1 KiB */

struct node_event {
	const char *type;               /* "Normal" (ready) or "Warning" */
	const char *reason;             /* "FabricReady" or "FabricNotReady" */
	const char *action;             /* "Check" */
	char note[NODE_EVENT_NOTE_MAX + 1];
};

/**
 * node_event_build() - the Event of a transition from what the node carries (@cur: its
 * annotations profile, runtime, ready) to what @want publishes for @p: reason FabricReady
 * (Normal) or FabricNotReady (Warning), action Check, and a note of at most
 * NODE_EVENT_NOTE_MAX bytes: the summary line, the failed checks, and what changed
 * ("ready true→false"). Printable, cut on a UTF-8 boundary.
 *
 * Return: true when @want changes profile, runtime or ready (annotations_transition()), with
 * @ret written; false when there is no transition (nothing written).
 */
bool node_event_build(const struct profile *p, const struct annotations *want,
		      const struct kube_annotation cur[KUBE_ANN__COUNT], struct node_event *ret);
