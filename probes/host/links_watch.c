/*
 * links_watch.c - the link watch: a route socket subscribed to link and IPv4 address changes,
 * its notifications counted and the link ones kept as events (libnl-route-3, the other of the
 * two libnl adapters beside links.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>

#include "probes/host/links.h"
#include "probes/host/links_parse.h"

struct links_watch {
	struct nl_sock *sk;
	int count;
	char *what;
	size_t whatlen;
	size_t n_events;
	bool lost;
	struct links_event events[LINKS_EVENTS_MAX];
};

/* Keep the link notification @h (RTM_NEWLINK/RTM_DELLINK, length checked) for the flap history. */
static void links_watch_event(struct links_watch *w, const struct nlmsghdr *h, const char *name)
{
	const struct ifinfomsg *ifi = nlmsg_data(h);
	struct links_event *e;
	struct nlattr *a;

	if (!*name || *name == '#')
		return;         /* no usable name: the next dump says what it is */
	if (w->n_events == LINKS_EVENTS_MAX) {
		w->lost = true;
		return;
	}
	e = &w->events[w->n_events++];
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->removed = h->nlmsg_type == RTM_DELLINK;
	a = nlmsg_find_attr((struct nlmsghdr *)h, sizeof(*ifi), IFLA_OPERSTATE);
	e->up = !e->removed && a && nla_len(a) >= 1 && nla_get_u8(a) == IF_OPER_UP;
}

/* Count link and address notifications; name the first one for the log. */
static int links_watch_cb(struct nl_msg *msg, void *arg)
{
	struct links_watch *w = arg;
	struct nlmsghdr *h = nlmsg_hdr(msg);
	const char *kind;
	char name[OBS_IFNAME_MAX + 8] = "";

	switch (h->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		kind = "link";
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifinfomsg))) {
			const struct ifinfomsg *ifi = nlmsg_data(h);
			struct nlattr *a = nlmsg_find_attr(h, sizeof(*ifi), IFLA_IFNAME);

			if (a && nla_len(a) > 1 && nla_len(a) <= OBS_IFNAME_MAX)
				snprintf(name, sizeof(name), "%.*s", (int)strnlen(nla_data(a), (size_t)nla_len(a)),
					 (const char *)nla_data(a));
			else
				snprintf(name, sizeof(name), "#%d", ifi->ifi_index);
			links_watch_event(w, h, name);
		}
		break;
	case RTM_NEWADDR:
	case RTM_DELADDR:
		kind = "address";
		if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(struct ifaddrmsg))) {
			const struct ifaddrmsg *ifa = nlmsg_data(h);

			snprintf(name, sizeof(name), "#%u", ifa->ifa_index);
		}
		break;
	default:
		return NL_SKIP;
	}
	if (w->count++ == 0 && w->what && w->whatlen)
		snprintf(w->what, w->whatlen, "%s %s %s", kind,
			 h->nlmsg_type == RTM_DELLINK || h->nlmsg_type == RTM_DELADDR ? "removed" : "changed", name);
	return NL_SKIP;
}

/**
 * links_watch_parse() - see links.h: the notification callback over messages in memory.
 * Return: the number of link and address notifications; -E2BIG, -ENOMEM. No errno means "absent".
 */
int links_watch_parse(const void *buf, size_t len, char *what, size_t whatlen)
{
	struct links_watch *wp = calloc(1, sizeof(*wp));
	const struct nlmsghdr *h = buf;
	int rem = (int)len, r;

	if (what && whatlen)
		what[0] = '\0';
	if (len > LINKS_PARSE_MAX || !wp) {
		free(wp);
		return !wp ? -ENOMEM : -E2BIG;
	}
	wp->what = what;
	wp->whatlen = whatlen;
	for (; nlmsg_ok(h, rem); h = nlmsg_next((struct nlmsghdr *)h, &rem)) {
		struct nl_msg *m = nlmsg_convert((struct nlmsghdr *)h);

		if (!m) {
			free(wp);
			return -ENOMEM;
		}
		links_watch_cb(m, wp);
		nlmsg_free(m);
	}
	r = wp->count;
	free(wp);
	return r;
}

/**
 * links_watch_open() - see links.h.
 * Return: 0; -ENOMEM; the socket's -errno. No errno means "absent": every namespace has netlink.
 */
int links_watch_open(struct links_watch **ret)
{
	struct links_watch *w = calloc(1, sizeof(*w));
	int r;

	if (!w)
		return -ENOMEM;
	w->sk = nl_socket_alloc();
	if (!w->sk) {
		free(w);
		return -ENOMEM;
	}
	/* Notifications carry no sequence number of ours; every message is a valid one. */
	nl_socket_disable_seq_check(w->sk);
	nl_socket_disable_auto_ack(w->sk);
	r = nl_socket_modify_cb(w->sk, NL_CB_VALID, NL_CB_CUSTOM, links_watch_cb, w);
	if (r >= 0)
		r = nl_connect(w->sk, NETLINK_ROUTE);
	if (r >= 0)
		r = nl_socket_add_memberships(w->sk, RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, 0);
	if (r >= 0)
		r = nl_socket_set_nonblocking(w->sk);
	if (r >= 0) {
		/* A burst of veth or address changes must not overflow the default 208 KiB. */
		r = nl_socket_set_buffer_size(w->sk, 1 << 20, 0);
	}
	if (r < 0) {
		r = links_nlerr(r);
		links_watch_free(w);
		return r;
	}
	fcntl(nl_socket_get_fd(w->sk), F_SETFD, FD_CLOEXEC);
	*ret = w;
	return 0;
}

size_t links_watch_events(const struct links_watch *w, const struct links_event **ret, bool *ret_lost)
{
	*ret = w->events;
	*ret_lost = w->lost;
	return w->n_events;
}

void links_watch_free(struct links_watch *w)
{
	if (!w)
		return;
	nl_socket_free(w->sk);
	free(w);
}

int links_watch_fd(const struct links_watch *w)
{
	return nl_socket_get_fd(w->sk);
}

int links_watch_drain(struct links_watch *w, char *what, size_t whatlen)
{
	int r, rounds = 0;

	w->count = 0;
	w->n_events = 0;
	w->lost = false;
	w->what = what;
	w->whatlen = whatlen;
	if (what && whatlen)
		what[0] = '\0';
	/* Bounded: each round reads one datagram's worth; poll() reports the rest next turn. */
	while (rounds++ < 256) {
		r = nl_recvmsgs_default(w->sk);
		if (r >= 0)
			continue;
		if (r == -NLE_AGAIN)
			break;
		if (r == -NLE_INTR)
			continue;
		/* ENOBUFS (lost notifications) or a malformed message: the caller re-dumps all links. */
		w->lost = true;
		if (w->count++ == 0 && what && whatlen)
			snprintf(what, whatlen, "netlink: %s", nl_geterror(r));
		break;
	}
	w->what = NULL;
	return w->count;
}
