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

#define LINKS_PARSE_MAX (1u << 20)       /* bytes of messages links_parse_msg() takes */

/**
 * links_parse_msg() - fill @ret from rtnetlink messages in memory (RTM_NEWLINK, RTM_NEWADDR,
 * RTM_NEWROUTE, each a struct nlmsghdr, back to back as a dump's replies arrive) through the
 * same libnl parsers and callbacks links_dump() uses on the socket. For tests and fuzzing: the
 * bytes are hostile. Messages of other types are skipped; a message libnl refuses fails the
 * whole parse, as it fails a dump.
 *
 * Return: 0, or -errno (the status in @ret says what failed): -E2BIG, -ENOMEM, or libnl's parse
 * error translated. @ret is always safe to free with links_free().
 */
int links_parse_msg(const void *buf, size_t len, struct obs_links *ret);

void links_free(struct obs_links *l);
