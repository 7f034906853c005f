/* coherence.h - do the TCPXO nodes of a NodeList publish one renderer mapping? (pure) */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "report/checks/ifacemap.h"
#include "report/checks/profile.h"
#include "report/fleet/coherence_node.h"

#define COHERENCE_MAX_NODES 200000      /* more nodes than any cluster holds: refuse the input */
#define COHERENCE_NAMES_SHOWN 3         /* node names listed per diagnostic before "…" */

struct coherence;                       /* opaque: the nodes collected so far */

struct coherence_result {
	bool coherent;                  /* at least one TCPXO node, all observed, ready (unless apart), agreeing */
	size_t n_nodes;                 /* nodes in the input */
	size_t n_tcpxo;                 /* TCPXO nodes among them (incl. not yet observed), DRANET's apart */
	size_t n_dranet;                /* TCPXO nodes whose GPU NICs GKE managed DRANET allocates (no mapping) */
	struct profile_iface ifaces[IFACEMAP_ENTRIES];  /* the mapping, only when coherent */
	size_t n_ifaces;
	char *diagnostics;              /* owned: lines for stderr, each ending in '\n' */
};

/**
 * coherence_new() - an empty collection reading annotations under @prefix ("fabric.aicr.run/").
 * @ret: written on success; free with coherence_free().
 *
 * Return: 0; -EINVAL for an empty or over-long prefix; -ENOMEM.
 */
int coherence_new(const char *prefix, struct coherence **ret);

void coherence_free(struct coherence *c);

/*
 * coherence_set_any_names() - whether AICR's naming rule ("gpu-nic" in each Network name,
 * ifacemap_renderer_names()) is lifted. By default a mapping that breaks it makes the fleet
 * incoherent (AICR's renderer would refuse it); with @any the mapping's shape is all that is
 * checked (tcpxo-agent interfaces --any-network-names). May be called before or after adding.
 */
void coherence_set_any_names(struct coherence *c, bool any);

/*
 * coherence_set_ready_apart() - with @apart, nodes that are not ready still count as agreeing
 * when they publish the same mapping (their not-ready lines stay in the diagnostics): the runtime
 * check holds a runtime against what the nodes publish, whatever else is wrong with them. By
 * default (interfaces) a node that is not ready makes the fleet incoherent.
 */
void coherence_set_ready_apart(struct coherence *c, bool apart);

/*
 * coherence_set_only() - keep only the node named @name (NULL: every node) from the NodeLists
 * added after this call; the others are read and dropped. @name must outlive @c's use. The
 * workload checker judges one node's pods against what that node alone published.
 */
void coherence_set_only(struct coherence *c, const char *name);

/* Forget every node collected so far (the API listing restarted after 410 Gone). */
void coherence_reset(struct coherence *c);

/**
 * coherence_add_nodelist() - parse one NodeList (a whole `kubectl get nodes -o json`, or one
 * API page) and collect its nodes. Only the facts the verdict needs are kept.
 * @ret_continue: when not NULL, receives metadata.continue (malloc'd, caller frees) or NULL
 *                when the list has no further page.
 * @err: when not NULL, receives why the input was refused (@errlen bytes), written only on failure.
 *
 * Return: the number of nodes added; -EINVAL for malformed JSON or a document that is not a
 * NodeList (an item without metadata.name, a non-array items, too many nodes); -ENOMEM.
 */
int coherence_add_nodelist(struct coherence *c, const char *text, size_t len, char **ret_continue,
			   char *err, size_t errlen);

/*
 * coherence_nodes() - every node collected, in the order they came, each read once by
 * coherence_node_read() (report/fleet/fleet.c groups the same nodes for the runtime check).
 * Valid until the next add, reset or free.
 */
const struct coherence_node *coherence_nodes(const struct coherence *c, size_t *ret_n);

/*
 * coherence_by_name() - every node collected, in name order: *@ret (calloc'd, the caller frees it,
 * even on error). Return: 0; -EINVAL (with @err) when a name is listed twice; -ENOMEM.
 */
int coherence_by_name(const struct coherence *c, const struct coherence_node ***ret, char *err, size_t errlen);

/* "node" or "nodes", for @n of them (the messages of the coherence and the runtime findings). */
const char *coherence_nodes_word(size_t n);

/**
 * coherence_evaluate() - the verdict over every node collected: which nodes are TCPXO, whether
 * each is observed, ready and carries a mapping the renderer accepts, and whether all agree.
 * Diagnostics name counts and at most COHERENCE_NAMES_SHOWN node names (sorted), majority
 * first; the result does not depend on the order the nodes came in.
 * @ret: written on success; free with coherence_result_free().
 * @err: when not NULL, receives why the input was refused (@errlen bytes), written only on failure.
 *
 * Return: 0 (coherent or not: see ret->coherent); -EINVAL when a node name appears twice;
 * -ENOMEM.
 */
int coherence_evaluate(const struct coherence *c, struct coherence_result *ret, char *err, size_t errlen);

void coherence_result_free(struct coherence_result *r);
