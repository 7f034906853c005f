/* links.h - the links of the current network namespace the node needs, read with libnl-route-3. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/observation.h"

#define LINKS_NAMES_MAX 64              /* names one links_query() asks for one by one; beyond: one full dump */

enum links_query_flags {
	LINKS_QUERY_NO_STRICT = 1 << 0, /* act as a kernel without NETLINK_GET_STRICT_CHK would (tests) */
};

/* What one query cost on the socket, and how it asked (tests and the bench compare these). */
struct links_stats {
	unsigned requests;              /* netlink requests sent */
	unsigned datagrams;             /* answer datagrams read, one recvmsg each */
	unsigned messages;              /* netlink messages in them, NLMSG_DONE and errors included */
	bool strict;                    /* NETLINK_GET_STRICT_CHK was on */
	const char *full_dump;          /* NULL when every dump was filtered by interface; else why not (static text) */
};

/**
 * links_query() - fill @ret with the links of the current network namespace named in @names
 * (@n of them; NULL: every link): name, ifindex, oper state, admin state, MTU, MAC, IPv4 addresses
 * with prefix length, and whether the link carries an IPv4 default route of the main table.
 * Sorted by name. A name no link of this namespace has (moved into a pod, renamed, gone) is
 * simply not in @ret.
 *
 * Each link is asked for by name (RTM_GETLINK with IFLA_IFNAME), its addresses and routes with
 * dumps the kernel filters by interface under NETLINK_GET_STRICT_CHK (kernel >= 4.20), so the cost
 * follows @n, not the number of links. Where the kernel refuses the socket option (or a filtered
 * dump), or @flags has LINKS_QUERY_NO_STRICT, one full address dump and one full route dump are
 * made instead, and @ret_stats->full_dump says why. More than LINKS_NAMES_MAX names: one full
 * link dump as well.
 * @ret_stats: when not NULL, always written: what the query cost on the socket.
 *
 * Return: 0, or -errno (the status in @ret says what failed). @ret is always safe to free
 * with observation_free() (or free() of its v).
 */
int links_query(const char *const *names, size_t n, unsigned flags, struct obs_links *ret,
		struct links_stats *ret_stats);

/**
 * links_observe() - links_query() for the interfaces the PCI functions of @pci name (their
 * netdev), the only links the evaluation looks at: the cost no longer grows with the pod veths.
 * Return: as links_query().
 */
int links_observe(const struct obs_pci *pci, struct obs_links *ret, struct links_stats *ret_stats);

#define LINKS_PARSE_MAX (1u << 20)       /* bytes of messages links_parse_answer() takes */

/**
 * links_parse_answer() - one answer datagram in memory through the checks links_query() makes on
 * the socket (message lengths, the sequence number, which here is the first message's, NLMSG_ERROR
 * and NLMSG_DONE) and the same libnl parsers and callbacks: links first, then addresses and routes.
 * @dump: the answer is to a dump (objects until NLMSG_DONE), else to a request for one link.
 * @ret_kerr: the kernel's answer (0, or the -errno of an error message or NLMSG_DONE).
 * For tests and fuzzing: the bytes are hostile.
 *
 * Return: 1 when the datagram ends the exchange, 0 when more would follow, or -errno: -E2BIG
 * (@len over LINKS_PARSE_MAX), -ENOMEM, -EBADMSG (malformed), -EOVERFLOW, libnl's parse error.
 * @ret is always safe to free (free() of its v).
 */
int links_parse_answer(const void *buf, size_t len, bool dump, struct obs_links *ret, int *ret_kerr);

struct links_watch;             /* opaque: a route socket subscribed to link and IPv4 address changes */

/**
 * links_watch_open() - a non-blocking NETLINK_ROUTE socket of the current network namespace
 * subscribed to RTNLGRP_LINK and RTNLGRP_IPV4_IFADDR.
 * @ret: written on success; free with links_watch_free().
 * Return: 0; -ENOMEM; -errno of the socket (-EMFILE, -EACCES, ...).
 */
int links_watch_open(struct links_watch **ret);

void links_watch_free(struct links_watch *w);

int links_watch_fd(const struct links_watch *w);

/**
 * links_watch_drain() - read every pending notification.
 * @what: when not NULL, a short text about the first one ("link eth3", "address eth3"), for the log.
 * Return: the number of link/address notifications (a lost-messages overflow counts one: the
 * caller re-dumps anyway); 0 when none was pending.
 */
int links_watch_drain(struct links_watch *w, char *what, size_t whatlen);

#define LINKS_EVENTS_MAX 1024   /* link notifications kept per drain; beyond, they are counted as lost */

/* One link notification: the link's name and whether it is up (oper state UP) or gone. */
struct links_event {
	char name[OBS_IFNAME_MAX];
	bool removed;                   /* RTM_DELLINK: deleted, or moved to another namespace */
	bool up;                        /* oper state UP, as the links check reads "up" */
};

/**
 * links_watch_events() - the link notifications of the last links_watch_drain(), in the
 * order they came (the daemon's flap damping counts up/down changes from them).
 * @ret_lost: set when some were not kept (the socket overflowed, or more than
 * LINKS_EVENTS_MAX came at once): the caller then compares states with a fresh dump.
 * Return: the number of events in *@ret (valid until the next drain).
 */
size_t links_watch_events(const struct links_watch *w, const struct links_event **ret, bool *ret_lost);

/**
 * links_watch_parse() - run links_watch_drain()'s notification callback over rtnetlink messages in
 * memory (back to back, each a struct nlmsghdr), for tests and fuzzing: the bytes are hostile.
 * @what: as for links_watch_drain(), the first notification in words.
 *
 * Return: the number of link and address notifications, or -errno: -E2BIG (@len over
 * LINKS_PARSE_MAX), -ENOMEM.
 */
int links_watch_parse(const void *buf, size_t len, char *what, size_t whatlen);
