/* nodelist.h - read a NodeList (kubectl get nodes -o json, or one API page) in one pass, node by node. */
#pragma once

#include <stddef.h>

#include "probes/model/jsonscan.h"

#define NODELIST_NAME_MAX 253           /* a Node name is a DNS subdomain */
#define NODELIST_CONTINUE_MAX (16u << 10)
#define NODELIST_TAINTS_MAX 16          /* taints kept per node; GKE GPU nodes carry one or two */

/* One spec.taints entry; fields absent or not strings as in struct nodelist_item. */
struct nodelist_taint {
	struct jsonscan_field key, value, effect;
};

/*
 * Our condition (KUBE_CONDITION_TYPE, FabricReady) among the item's status.conditions: the first
 * entry of that type, fields absent or not strings as in struct nodelist_item.
 */
struct nodelist_condition {
	bool present;                           /* an entry of our type was found */
	struct jsonscan_field status;           /* "True", "False", "Unknown" */
	struct jsonscan_field heartbeat;        /* lastHeartbeatTime, RFC 3339 */
};

/*
 * The facts of one item that the fleet judgement reads; everything else is skipped unparsed.
 * name is always a non-empty string of at most NODELIST_NAME_MAX bytes; the other fields may
 * be absent (present false) or not strings (s NULL).
 */
struct nodelist_item {
	struct jsonscan_field name;
	struct jsonscan_field itype;            /* label node.kubernetes.io/instance-type */
	struct jsonscan_field accelerator;      /* label cloud.google.com/gke-accelerator */
	struct jsonscan_field pool;             /* label cloud.google.com/gke-nodepool */
	struct jsonscan_field dranet;           /* label cloud.google.com/gke-networking-dra-driver (GKE managed DRANET) */
	struct jsonscan_field profile, ready, interfaces, attachment;  /* <prefix>profile, ... */
	struct nodelist_taint taints[NODELIST_TAINTS_MAX];     /* spec.taints objects, the first ones */
	size_t n_taints;
	size_t taints_seen;                     /* spec.taints entries, kept or not */
	struct nodelist_condition condition;    /* status.conditions[type=FabricReady], the first KUBE_CONDITIONS_MAX entries */
};

/*
 * Called once per item, in list order, after the whole item was read and checked to be a Node.
 * Return 0 to go on; -EINVAL (after writing why to @err, @errlen bytes) or -ENOMEM stops the scan.
 */
typedef int (*nodelist_item_fn)(void *ctx, size_t idx, const struct nodelist_item *item, char *err, size_t errlen);

/**
 * nodelist_scan() - validate @len bytes of JSON as a NodeList and hand each item to @fn.
 * @prefix: the annotation prefix whose profile, ready, interfaces and attachment keys are kept.
 * @ret_continue: when not NULL, receives metadata.continue (malloc'd, caller frees) or NULL
 *                when the list has no further page; written only on success.
 * @err: receives why the input was refused (@errlen bytes; may be NULL), written only on failure.
 *
 * Return: the number of items; -EINVAL for malformed JSON, a document that is not a NodeList
 * (another kind, an item that is not a Node or has no metadata.name) or an error from @fn;
 * -ENOMEM. Items handed to @fn before a failure are not taken back: the caller drops them.
 */
int nodelist_scan(const char *text, size_t len, const char *prefix, nodelist_item_fn fn, void *ctx,
		  char **ret_continue, char *err, size_t errlen);
