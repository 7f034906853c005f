/*
 * links_parse.c - kernel messages into obs_link with libnl-route-3's parsers: links, IPv4
 * addresses, default routes, sorted and indexed (one of the two libnl adapters; links.c asks
 * the kernel, links_watch.c watches it).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <netlink/addr.h>
#include <netlink/cache.h>
#include <netlink/errno.h>
#include <netlink/msg.h>
#include <netlink/netlink.h>
#include <netlink/socket.h>
#include <netlink/route/addr.h>
#include <netlink/route/link.h>
#include <netlink/route/nexthop.h>
#include <netlink/route/route.h>

#include "probes/host/links_parse.h"
#include "probes/model/strbuf.h"

/* links_parse.h: libnl's error (negative NLE_*) as -errno. */
int links_nlerr(int nlerr)
{
	switch (nlerr < 0 ? -nlerr : nlerr) {
	case NLE_SUCCESS: return 0;
	case NLE_INTR: return -EINTR;
	case NLE_BAD_SOCK: return -EBADF;
	case NLE_AGAIN: return -EAGAIN;
	case NLE_NOMEM: return -ENOMEM;
	case NLE_EXIST: return -EEXIST;
	case NLE_INVAL: return -EINVAL;
	case NLE_RANGE: return -ERANGE;
	case NLE_MSGSIZE: return -EMSGSIZE;
	case NLE_OPNOTSUPP: return -EOPNOTSUPP;
	case NLE_AF_NOSUPPORT: return -EAFNOSUPPORT;
	case NLE_OBJ_NOTFOUND: return -ENOENT;
	case NLE_MSG_TRUNC: return -EMSGSIZE;
	case NLE_BUSY: return -EBUSY;
	case NLE_PROTO_MISMATCH: return -EPROTONOSUPPORT;
	case NLE_NOACCESS: return -EACCES;
	case NLE_PERM: return -EPERM;
	case NLE_NODEV: return -ENODEV;
	case NLE_DUMP_INTR: return -EINTR;
	default: return -EIO;
	}
}

static enum link_oper links_oper_from_kernel(uint8_t op)
{
	switch (op) {
	case IF_OPER_UP: return LINK_OPER_UP;
	case IF_OPER_DOWN: return LINK_OPER_DOWN;
	case IF_OPER_LOWERLAYERDOWN: return LINK_OPER_LOWERLAYERDOWN;
	case IF_OPER_DORMANT: return LINK_OPER_DORMANT;
	case IF_OPER_NOTPRESENT: return LINK_OPER_NOTPRESENT;
	case IF_OPER_TESTING: return LINK_OPER_TESTING;
	default: return LINK_OPER_UNKNOWN;
	}
}

/* "aa:bb:cc:dd:ee:ff" for a 6-byte hardware address, "" for none or any other length. */
static void links_format_mac(struct nl_addr *a, char *buf, size_t len)
{
	const uint8_t *b = a && nl_addr_get_len(a) == 6 ? nl_addr_get_binary_addr(a) : NULL;

	buf[0] = '\0';
	if (b && len >= 18)
		snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
}

static void links_link_cb(struct nl_object *obj, void *arg)
{
	struct links_dump_ctx *c = arg;
	struct rtnl_link *link = (struct rtnl_link *)obj;
	const char *name = rtnl_link_get_name(link);
	struct obs_link *l;
	size_t name_len;

	if (c->err)
		return;
	/* The kernel bounds names to IFNAMSIZ; a nameless or oversized one is not ours to guess. */
	if (!name || (name_len = strnlen(name, OBS_IFNAME_MAX)) == 0 || name_len >= OBS_IFNAME_MAX)
		return;
	if (strbuf_grow_array(&c->v, &c->cap, c->n, sizeof(*c->v), 64) < 0) {
		c->err = -ENOMEM;
		return;
	}
	l = &c->v[c->n++];
	memset(l, 0, sizeof(*l));
	memcpy(l->name, name, name_len + 1);
	l->ifindex = rtnl_link_get_ifindex(link);
	l->oper = links_oper_from_kernel(rtnl_link_get_operstate(link));
	l->admin_up = (rtnl_link_get_flags(link) & IFF_UP) != 0;
	l->mtu = rtnl_link_get_mtu(link);
	links_format_mac(rtnl_link_get_addr(link), l->mac, sizeof(l->mac));
}

static int links_cmp_index(const void *a, const void *b)
{
	int x = ((const struct links_index *)a)->ifindex, y = ((const struct links_index *)b)->ifindex;

	return (x > y) - (x < y);
}

static struct obs_link *links_by_ifindex(struct links_dump_ctx *c, int ifindex)
{
	struct links_index key = { .ifindex = ifindex }, *hit;

	if (ifindex <= 0 || !c->idx)
		return NULL;
	hit = bsearch(&key, c->idx, c->n_idx, sizeof(*c->idx), links_cmp_index);
	return hit ? &c->v[hit->pos] : NULL;
}

/*
 * Keep the OBS_IPV4_MAX lowest addresses in ascending order (host order of the address, then
 * prefix), so the result does not depend on the kernel's dump order. Exact duplicates are kept once.
 */
static void links_add_ipv4(struct obs_link *l, uint32_t addr_be, uint8_t prefix)
{
	uint32_t h = ntohl(addr_be);
	unsigned i, last;

	for (i = 0; i < l->n_ipv4; i++) {
		uint32_t hi = ntohl(l->ipv4[i]);

		if (h == hi && prefix == l->ipv4_prefix[i])
			return;
		if (h < hi || (h == hi && prefix < l->ipv4_prefix[i]))
			break;
	}
	if (i == OBS_IPV4_MAX)
		return;
	/* Shift the tail up by one; when full, the highest address falls off. */
	last = l->n_ipv4 < OBS_IPV4_MAX ? l->n_ipv4 : OBS_IPV4_MAX - 1;

	memmove(&l->ipv4[i + 1], &l->ipv4[i], (last - i) * sizeof(l->ipv4[0]));
	memmove(&l->ipv4_prefix[i + 1], &l->ipv4_prefix[i], (last - i) * sizeof(l->ipv4_prefix[0]));
	l->ipv4[i] = addr_be;
	l->ipv4_prefix[i] = prefix;
	if (l->n_ipv4 < OBS_IPV4_MAX)
		l->n_ipv4++;
}

static void links_addr_cb(struct nl_object *obj, void *arg)
{
	struct links_dump_ctx *c = arg;
	struct rtnl_addr *a = (struct rtnl_addr *)obj;
	struct nl_addr *local;
	struct obs_link *l;
	const void *bin;
	uint32_t be;
	int prefix;

	if (rtnl_addr_get_family(a) != AF_INET)
		return;
	l = links_by_ifindex(c, rtnl_addr_get_ifindex(a));
	local = rtnl_addr_get_local(a);
	if (!l || !local || nl_addr_get_len(local) != sizeof(be))
		return;
	bin = nl_addr_get_binary_addr(local);
	prefix = rtnl_addr_get_prefixlen(a);
	if (!bin || prefix < 0 || prefix > 32)
		return;
	memcpy(&be, bin, sizeof(be));
	links_add_ipv4(l, be, (uint8_t)prefix);
}

/* An IPv4 default route of the main table marks every link it leaves through. */
static void links_route_cb(struct nl_object *obj, void *arg)
{
	struct links_dump_ctx *c = arg;
	struct rtnl_route *r = (struct rtnl_route *)obj;
	struct nl_addr *dst = rtnl_route_get_dst(r);
	int n;

	if (rtnl_route_get_family(r) != AF_INET || rtnl_route_get_table(r) != RT_TABLE_MAIN ||
	    rtnl_route_get_type(r) != RTN_UNICAST || (dst && nl_addr_get_prefixlen(dst) != 0))
		return;
	n = rtnl_route_get_nnexthops(r);
	for (int i = 0; i < n; i++) {
		struct rtnl_nexthop *nh = rtnl_route_nexthop_n(r, i);
		struct obs_link *l = nh ? links_by_ifindex(c, rtnl_route_nh_get_ifindex(nh)) : NULL;

		if (l)
			l->default_route = true;
	}
}

/*
 * links_parse.h: after the links are in, sort them by name, drop repeats (two names asked for can answer with one
 * link: the kernel also looks names up among altnames), index them by ifindex for addresses and routes.
 */
int links_sort_index(struct links_dump_ctx *c, const char **what)
{
	if (c->err < 0) {
		*what = "store links";
		return c->err;
	}
	if (c->n > 1) {
		size_t k = 1;

		qsort(c->v, c->n, sizeof(*c->v), strbuf_cmp_names);
		for (size_t i = 1; i < c->n; i++)
			if (strcmp(c->v[i].name, c->v[k - 1].name) != 0)
				c->v[k++] = c->v[i];
		c->n = k;
	}
	free(c->idx);
	c->idx = NULL;
	c->n_idx = 0;
	if (c->n) {
		c->idx = calloc(c->n, sizeof(*c->idx));
		if (!c->idx) {
			*what = "index links";
			return -ENOMEM;
		}
		for (size_t i = 0; i < c->n; i++)
			c->idx[i] = (struct links_index){ .ifindex = c->v[i].ifindex, .pos = i };
		c->n_idx = c->n;
		qsort(c->idx, c->n_idx, sizeof(*c->idx), links_cmp_index);
	}
	return 0;
}

static void links_parse_obj(struct nl_object *obj, void *arg)
{
	struct links_parse_pass *p = arg;
	const char *type = nl_object_get_type(obj);

	if (!type)
		return;
	if (p->links) {
		if (strcmp(type, "route/link") == 0)
			links_link_cb(obj, p->c);
	} else if (strcmp(type, "route/addr") == 0) {
		links_addr_cb(obj, p->c);
	} else if (strcmp(type, "route/route") == 0) {
		links_route_cb(obj, p->c);
	}
}

/* links_parse.h: one object message through libnl's parser (the cache ops of NETLINK_ROUTE, as a dump uses). */
int links_parse_one(const struct nlmsghdr *h, void *arg)
{
	struct links_parse_pass *p = arg;
	struct nl_msg *m;
	int r;

	m = nlmsg_convert((struct nlmsghdr *)h);
	if (!m)
		return -ENOMEM;
	nlmsg_set_proto(m, NETLINK_ROUTE);
	r = nl_msg_parse(m, links_parse_obj, p);
	nlmsg_free(m);
	/* A type no cache parses is skipped; any other parse error fails the dump, as in libnl. */
	if (r < 0 && r != -NLE_MSGTYPE_NOSUPPORT) {
		p->nlerr = r;
		return links_nlerr(r);
	}
	return p->c->err < 0 ? p->c->err : 0;
}


/* links_parse.h: the text of a libnl error. */
const char *links_nlerr_text(int nlerr)
{
	return nl_geterror(nlerr);
}
