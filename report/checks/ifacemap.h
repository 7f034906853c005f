/* ifacemap.h - the eth1..eth8 -> Network mapping in the renderer's tcpxoInterfaces shape (pure). */
#pragma once

#include <stddef.h>

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

#define IFACEMAP_ENTRIES 8      /* eth1..eth8 */
#define IFACEMAP_NET_MAX 41     /* the renderer's limit on a Network name */

/**
 * ifacemap_validate() - apply the renderer's rules (REFERENCE §6): exactly eight entries, each
 * of eth1..eth8 once, eight distinct networks, none named "default", each a DNS label of at
 * most 41 characters that contains "gpu-nic".
 * @why: when not NULL, receives every broken rule, "; "-separated.
 *
 * Return: 0 when valid, -EINVAL when not, -ENOMEM.
 */
int ifacemap_validate(const struct profile_iface *v, size_t n, struct strbuf *why);

/**
 * ifacemap_parse() - parse the JSON list [{"interfaceName":"eth1","network":"..."},...].
 * @ret: malloc'd array sorted by interface number (caller frees); @ret_n its length.
 *
 * Return: 0; -EINVAL for malformed JSON, a wrong shape, a name or network too long, or more
 * than 64 entries; -ENOMEM.
 */
int ifacemap_parse(const char *text, size_t len, struct profile_iface **ret, size_t *ret_n);

/* Compact JSON list in the renderer's shape, sorted by interface; NULL on -ENOMEM. */
char *ifacemap_to_json(const struct profile_iface *v, size_t n);

/* Sort entries by the number after "eth" (eth2 before eth10), then by name. */
void ifacemap_sort(struct profile_iface *v, size_t n);
