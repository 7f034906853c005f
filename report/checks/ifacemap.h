/* ifacemap.h - the eth1..eth8 -> Network mapping in the renderer's tcpxoInterfaces shape (pure). */
#pragma once

#include <stddef.h>

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

#define IFACEMAP_ENTRIES 8      /* eth1..eth8 */
#define IFACEMAP_NET_MAX 41     /* the renderer's limit on a Network name */
#define IFACEMAP_NAME_RULE "gpu-nic"    /* AICR's validators find the GPU NIC Networks by it */

/**
 * ifacemap_validate() - the renderer's rules on the mapping's shape (REFERENCE §6): exactly
 * eight entries, each of eth1..eth8 once, eight distinct networks, none named "default", each a
 * DNS label of at most 41 characters. Any fabric mapping must have this shape; the names
 * themselves are free (Google names them vpc1..vpc8): see ifacemap_renderer_names().
 * @why: when not NULL, receives every broken rule, "; "-separated.
 *
 * Return: 0 when valid, -EINVAL when not, -ENOMEM.
 */
int ifacemap_validate(const struct profile_iface *v, size_t n, struct strbuf *why);

/**
 * ifacemap_renderer_names() - AICR's naming rule: every network name contains "gpu-nic", a
 * provisioning requirement its validators find the GPU NIC Networks by (NVIDIA/aicr
 * validators/internal/gkenet/gkenet.go; the recipe-time pkg/recipe/gke_tcpxo.go versions checked
 * take any DNS label). AICR's rule, not the fabric's: a node whose Networks are named otherwise
 * works, but AICR's validation does not find them.
 * @why: when not NULL and the rule is broken, receives "<rule>: <net>, <net> ... do not contain
 *       it" naming each network that breaks it, in the mapping's order.
 *
 * Return: 0 when every name follows the rule, -EINVAL when some do not, -ENOMEM.
 */
int ifacemap_renderer_names(const struct profile_iface *v, size_t n, struct strbuf *why);

/**
 * ifacemap_parse() - parse the JSON list [{"interfaceName":"eth1","network":"..."},...].
 * @ret: malloc'd array sorted by interface number (caller frees); @ret_n its length.
 *
 * Return: 0; -EINVAL for malformed JSON, a wrong shape, a name or network too long, or more
 * than 64 entries; -ENOMEM.
 */
int ifacemap_parse(const char *text, size_t len, struct profile_iface **ret, size_t *ret_n);

/* Sort entries by the number after "eth" (eth2 before eth10), then by name. */
void ifacemap_sort(struct profile_iface *v, size_t n);
