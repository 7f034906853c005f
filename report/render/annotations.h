/* annotations.h - the Node annotation and label values we publish and the merge patch that writes them (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/obs_kube.h"
#include "report/checks/profile.h"

#define ANNOTATIONS_SCHEMA "fabric.aicr.run/v1"
#define ANNOTATIONS_ATTACHMENT_MAX 4096         /* the attachment value is always shorter */
#define ANNOTATIONS_MESSAGE_MAX 240             /* a check message in the attachment, at first */
#define ANNOTATIONS_CHANGED_AT_MAX 64

/* The values to publish: one slot per key of enum kube_ann_key, and per label of enum kube_label_key. */
struct annotations {
	bool set[KUBE_ANN__COUNT];      /* this key is written */
	char *value[KUBE_ANN__COUNT];   /* owned; NULL where set means "remove" (null in the patch) */
	bool label_set[KUBE_LABEL__COUNT];      /* the same for the labels */
	char *label[KUBE_LABEL__COUNT];
};

/**
 * annotations_attachment() - the compact JSON attachment value: schema, agentVersion,
 * changedAt, versions, GPU<->NIC pairs and failed/warned checks (id, status, message).
 * Always shorter than ANNOTATIONS_ATTACHMENT_MAX: messages are cut first (on a UTF-8
 * boundary, ending in "..."), then entries are dropped (warnings before failures, the
 * checks listed failures first), marking "truncated":true.
 * @changed_at: the time text to record (at most ANNOTATIONS_CHANGED_AT_MAX - 1 bytes).
 * @ret: malloc'd string, written on success.
 *
 * Return: 0; -EINVAL for a @changed_at that is NULL or too long; -ENOMEM.
 */
int annotations_attachment(const struct profile *p, const char *changed_at, char **ret);

/**
 * annotations_build() - the DESIGN table's values from an evaluated profile.
 * profile: tcpxo/tcpx/none; runtime: the runtime name, removed for none; ready: "true" or
 * "false"; interfaces: render_mapping_json() of p->ifaces only while the networks check passed,
 * else removed; attachment: annotations_attachment().
 * @complete: the observation is complete (every probe ran, the API answered). When it is
 * not, "none" and null are what a failure looks like, so nothing is removed and profile is
 * written only when it is not none; ready and attachment are still written.
 * @labels: also the labels profile and ready (the same values and the same rule for profile);
 * false: both labels are removed (set, NULL), so a node that carried them loses them.
 * @ret: written on success; free with annotations_free().
 *
 * Return: 0; -EINVAL (bad @changed_at); -ENOMEM.
 */
int annotations_build(const struct profile *p, bool complete, const char *changed_at, bool labels,
		      struct annotations *ret);

void annotations_free(struct annotations *a);

/**
 * annotations_diff() - the JSON merge patch {"metadata":{"annotations":{...},"labels":{...}}}
 * that takes the node from @cur and @cur_labels (its current values, from kubeparse_node) to
 * @want: only keys whose value differs, null for keys to remove that the node carries (a
 * member without anything to write is left out). JSON values compare by content; the
 * attachment compares without its changedAt, so a new time alone never writes (and the node
 * keeps the old changedAt).
 * @prefix: the key prefix ending in '/' (NULL: "fabric.aicr.run/").
 * @ret_patch: malloc'd patch, or NULL when nothing differs.
 * @ret_labels: when not NULL, how many of the keys are labels.
 *
 * Return: the number of keys (annotations and labels) in the patch (0: nothing to write);
 * -EINVAL for a bad prefix; -ENOMEM.
 */
int annotations_diff(const struct annotations *want, const struct kube_annotation cur[KUBE_ANN__COUNT],
		     const struct kube_annotation cur_labels[KUBE_LABEL__COUNT], const char *prefix,
		     char **ret_patch, unsigned *ret_labels);

/**
 * annotations_remember() - make @cur and @cur_labels what the node carries once the merge patch
 * of annotations_diff(@want, ...) was applied, so the next diff finds them equal without a read.
 * Out of memory, a key is left present without a value: that differs from anything, so it is
 * written again next time (never a wrong "equal").
 */
void annotations_remember(const struct annotations *want, struct kube_annotation cur[KUBE_ANN__COUNT],
			  struct kube_annotation cur_labels[KUBE_LABEL__COUNT]);

/* Whether @want changes profile, runtime or ready from what @cur says the node carries. */
bool annotations_transition(const struct annotations *want, const struct kube_annotation cur[KUBE_ANN__COUNT]);

/**
 * annotations_cleanup_patch() - the merge patch that sets all five keys and both labels to
 * null (--cleanup).
 * Return: 0; -EINVAL for a bad prefix; -ENOMEM.
 */
int annotations_cleanup_patch(const char *prefix, char **ret);
