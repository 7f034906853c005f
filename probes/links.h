/* links.h - the links of the current network namespace, read with libnl-route-3. */
#pragma once

#include "report/observation.h"

/**
 * links_dump() - fill @ret with every link of the current network namespace: name, ifindex,
 * oper state, admin state, MTU, MAC, IPv4 addresses with prefix length, and whether the
 * link carries an IPv4 default route. Sorted by name.
 *
 * Return: 0, or -errno (the status in @ret says what failed). @ret is always safe to free
 * with observation_free()/links_free().
 */
int links_dump(struct obs_links *ret);

void links_free(struct obs_links *l);
