/*
 * links.c - the links of the current network namespace, read with libnl-route-3 (the only libnl user).
 *
 * Long, and whole on purpose: the dumps, the per-link queries and the link watch all turn kernel
 * messages into obs_link with libnl's parsers, and the adapter rule keeps every libnl call here.
 * The raw request/answer exchange on the socket, which needs no libnl, is nlquery.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <linux/if.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

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

#include "probes/host/links.h"
#include "probes/host/nlquery.h"

struct links_index {
	int ifindex;
	size_t pos;
};

/* Everything one dump holds; links_dump_ctx_free() releases it on every path. */
struct links_dump_ctx {
	struct nlquery q;
	struct obs_link *v;
	size_t n, cap;
	struct links_index *idx;        /* ifindex -> position in v, sorted by ifindex */
	size_t n_idx;
	int err;                        /* first -errno met inside a parser callback */
	int nlerr;                      /* libnl's error behind a failure, for its text */
	const char *full_dump;          /* why dumps were not filtered by interface, NULL when they were */
	char what[64];                  /* room for a "what failed" that names a link */
};

/* Translate a libnl error (negative NLE_*) to -errno. */
static int links_nlerr(int nlerr)
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
	static const char hex[] = "0123456789abcdef";
	const uint8_t *b;

	buf[0] = '\0';
	if (!a || nl_addr_get_len(a) != 6 || len < 18)
		return;
	b = nl_addr_get_binary_addr(a);
	if (!b)
		return;
	for (int i = 0; i < 6; i++) {
		buf[3 * i] = hex[b[i] >> 4];
		buf[3 * i + 1] = hex[b[i] & 0xf];
		buf[3 * i + 2] = i < 5 ? ':' : '\0';
	}
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
	if (c->n == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct obs_link *v = reallocarray(c->v, cap, sizeof(*v));

		if (!v) {
			c->err = -ENOMEM;
			return;
		}
		c->v = v;
		c->cap = cap;
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

static int links_cmp_name(const void *a, const void *b)
{
	return strcmp(((const struct obs_link *)a)->name, ((const struct obs_link *)b)->name);
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

static void links_dump_ctx_free(struct links_dump_ctx *c)
{
	nlquery_close(&c->q);
	free(c->idx);
	free(c->v);
}

/*
 * After the links are in: sort them by name, drop repeats (two names asked for can answer with one
 * link: the kernel also looks names up among altnames), index them by ifindex for addresses and routes.
 */
static int links_sort_index(struct links_dump_ctx *c, const char **what)
{
	if (c->err < 0) {
		*what = "store links";
		return c->err;
	}
	if (c->n > 1) {
		size_t k = 1;

		qsort(c->v, c->n, sizeof(*c->v), links_cmp_name);
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

/* One pass of parsing: which object type it hands to the dump's callbacks. */
struct links_parse_pass {
	struct links_dump_ctx *c;
	bool links;                     /* true: route/link only; false: route/addr and route/route */
	int nlerr;                      /* libnl's error when its parser refused a message */
};

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

/* One object message through libnl's parser (the cache ops of NETLINK_ROUTE, as a dump uses). */
static int links_parse_one(const struct nlmsghdr *h, void *arg)
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

/* How many times a dump that raced a change (NLM_F_DUMP_INTR) is asked again. */
#define LINKS_DUMP_TRIES 4

/*
 * Send @r, parse its answers in @pass. A dump interrupted by a change is asked again after @reset
 * (which forgets what the interrupted one filled). Return: 0 with the kernel's answer in *@kerr,
 * or -errno when the socket or the bytes failed.
 */
static int links_ask(struct links_dump_ctx *c, struct nlquery_req *r, struct links_parse_pass *pass,
		     void (*reset)(struct links_dump_ctx *, int), int arg, int *kerr)
{
	for (int i = 0; i < LINKS_DUMP_TRIES; i++) {
		int res = nlquery_run(&c->q, r, links_parse_one, pass, kerr);

		if (res < 0 || *kerr != -EINTR)
			return res;
		if (reset)
			reset(c, arg);
	}
	return 0;
}

static void links_reset_links(struct links_dump_ctx *c, int unused)
{
	c->n = 0;
}

/* Forget the addresses and default routes of one link (@pos), or of every link (@pos < 0). */
static void links_reset_addrs(struct links_dump_ctx *c, int pos)
{
	for (size_t i = 0; i < c->n; i++)
		if (pos < 0 || (size_t)pos == i)
			c->v[i].n_ipv4 = 0;
}

static void links_reset_routes(struct links_dump_ctx *c, int pos)
{
	for (size_t i = 0; i < c->n; i++)
		if (pos < 0 || (size_t)pos == i)
			c->v[i].default_route = false;
}

/* RTM_GETLINK for the link named @name, without the statistics we do not read. */
static int links_req_link(struct nlquery_req *r, const char *name)
{
	struct ifinfomsg ifi = { .ifi_family = AF_UNSPEC };
	uint32_t mask = RTEXT_FILTER_SKIP_STATS;
	int e;

	e = nlquery_req_new(r, RTM_GETLINK, name ? 0 : NLM_F_DUMP, &ifi, sizeof(ifi));
	if (e == 0 && name)
		e = nlquery_req_put(r, IFLA_IFNAME, name, strlen(name) + 1);
	if (e == 0)
		e = nlquery_req_put(r, IFLA_EXT_MASK, &mask, sizeof(mask));
	return e;
}

/* Kernel answers that mean "nothing there" for a filtered request, rather than a failure. */
static bool links_absent(int kerr)
{
	return kerr == -ENODEV || kerr == -ENOENT;
}

/* Whether names[i] came earlier in @names (at most LINKS_NAMES_MAX: a scan is cheaper than a sort). */
static bool links_asked(const char *const *names, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (names[j] && strcmp(names[j], names[i]) == 0)
			return true;
	return false;
}

/* The links: each of @names by name (an unknown one is absent), or every link when @names is NULL. */
static int links_ask_links(struct links_dump_ctx *c, const char *const *names, size_t n, const char **what)
{
	struct links_parse_pass pass = { .c = c, .links = true };
	struct nlquery_req r;
	int res, kerr = 0;

	if (!names) {
		res = links_req_link(&r, NULL);
		if (res == 0)
			res = links_ask(c, &r, &pass, links_reset_links, 0, &kerr);
		if (res == 0 && kerr < 0)
			res = kerr;
		if (res < 0)
			*what = "dump links (RTM_GETLINK)";
		c->nlerr = pass.nlerr;
		return res;
	}
	for (size_t i = 0; i < n; i++) {
		size_t len = names[i] ? strnlen(names[i], OBS_IFNAME_MAX) : 0;

		/* A name the kernel cannot hold names no link: absent, as a name not in this namespace. */
		if (len == 0 || len >= OBS_IFNAME_MAX || strchr(names[i], '/') || links_asked(names, i))
			continue;
		res = links_req_link(&r, names[i]);
		if (res == 0)
			res = nlquery_run(&c->q, &r, links_parse_one, &pass, &kerr);
		if (res == 0 && kerr < 0 && !links_absent(kerr))
			res = kerr;
		if (res < 0) {
			snprintf(c->what, sizeof(c->what), "ask for link %s (RTM_GETLINK)", names[i]);
			*what = c->what;
			c->nlerr = pass.nlerr;
			return res;
		}
	}
	return 0;
}

/* RTM_GETADDR for IPv4, filtered to @ifindex when not 0 (honoured under NETLINK_GET_STRICT_CHK). */
static int links_req_addr(struct nlquery_req *r, int ifindex)
{
	struct ifaddrmsg ifa = { .ifa_family = AF_INET, .ifa_index = (uint32_t)ifindex };

	return nlquery_req_new(r, RTM_GETADDR, NLM_F_DUMP, &ifa, sizeof(ifa));
}

/* RTM_GETROUTE for IPv4: unicast routes of the main table leaving through @ifindex, or all with 0. */
static int links_req_route(struct nlquery_req *r, int ifindex)
{
	struct rtmsg rtm = { .rtm_family = AF_INET };
	uint32_t oif = (uint32_t)ifindex;
	int e;

	if (ifindex) {
		rtm.rtm_table = RT_TABLE_MAIN;
		rtm.rtm_type = RTN_UNICAST;
	}
	e = nlquery_req_new(r, RTM_GETROUTE, NLM_F_DUMP, &rtm, sizeof(rtm));
	if (e == 0 && ifindex)
		e = nlquery_req_put(r, RTA_OIF, &oif, sizeof(oif));
	return e;
}

/*
 * The addresses or the routes (@routes) of the links found: one dump per link filtered by the
 * kernel when it checks strictly and @filter allows, else one dump of all (our callbacks keep
 * only the links found). A filtered dump the kernel refuses (-EINVAL) falls back to the full one.
 */
static int links_ask_per_link(struct links_dump_ctx *c, bool routes, bool filter, const char **what)
{
	struct links_parse_pass pass = { .c = c, .links = false };
	void (*reset)(struct links_dump_ctx *, int) = routes ? links_reset_routes : links_reset_addrs;
	struct nlquery_req r;
	int res = 0, kerr = 0;

	for (size_t i = 0; filter && c->q.stats.strict && i < c->n; i++) {
		res = routes ? links_req_route(&r, c->v[i].ifindex) : links_req_addr(&r, c->v[i].ifindex);
		if (res == 0)
			res = links_ask(c, &r, &pass, reset, (int)i, &kerr);
		if (res < 0)
			goto fail;
		if (kerr == -EINVAL || kerr == -EOPNOTSUPP) {
			c->full_dump = routes ? "the kernel refused a route dump filtered by interface"
					      : "the kernel refused an address dump filtered by interface";
			reset(c, -1);
			filter = false;
			break;
		}
		if (kerr < 0 && !links_absent(kerr)) {
			res = kerr;
			goto fail;
		}
	}
	if (filter && c->q.stats.strict)
		return 0;
	res = routes ? links_req_route(&r, 0) : links_req_addr(&r, 0);
	if (res == 0)
		res = links_ask(c, &r, &pass, reset, -1, &kerr);
	if (res == 0 && kerr < 0)
		res = kerr;
	if (res == 0)
		return 0;
fail:
	*what = routes ? "dump IPv4 routes (RTM_GETROUTE)" : "dump addresses (RTM_GETADDR)";
	c->nlerr = pass.nlerr;
	return res;
}

static int links_query_into(struct links_dump_ctx *c, const char *const *names, size_t n, unsigned flags,
			    const char **what)
{
	bool filter = names != NULL;
	int r;

	r = nlquery_open(&c->q, filter && !(flags & LINKS_QUERY_NO_STRICT), what);
	if (r < 0)
		return r;
	if (filter && !c->q.stats.strict)
		c->full_dump = flags & LINKS_QUERY_NO_STRICT ? "strict checking turned off (LINKS_QUERY_NO_STRICT)"
				: "the kernel refused NETLINK_GET_STRICT_CHK (before 4.20): dumps are not filtered";
	r = links_ask_links(c, names, n, what);
	if (r == 0)
		r = links_sort_index(c, what);
	/* Nothing asked for was found: no address or route can belong to it. */
	if (r == 0 && (c->n || !filter))
		r = links_ask_per_link(c, false, filter, what);
	if (r == 0 && (c->n || !filter))
		r = links_ask_per_link(c, true, filter, what);
	return r;
}

/* Hand the links to @ret (or record why the query failed), the figures to @st, and free the context. */
static int links_dump_finish(struct links_dump_ctx *c, struct obs_links *ret, struct links_stats *st, int r,
			     const char *what)
{
	if (st) {
		st->requests = c->q.stats.requests;
		st->datagrams = c->q.stats.datagrams;
		st->messages = c->q.stats.messages;
		st->strict = c->q.stats.strict;
		st->full_dump = c->full_dump;
	}
	if (r < 0) {
		if (c->nlerr)
			probe_status_fail(&ret->status, r, "netlink: cannot %s: %s", what, nl_geterror(c->nlerr));
		else
			probe_status_fail(&ret->status, r, "netlink: cannot %s: %s", what, strerror(-r));
		links_dump_ctx_free(c);
		return r;
	}
	ret->v = c->v;
	ret->n = c->n;
	ret->status.state = PROBE_OK;
	c->v = NULL;    /* taken */
	links_dump_ctx_free(c);
	return 0;
}

static int links_cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* After a full dump made for too many names: keep only the links @names asks for, as a filtered query would. */
static int links_keep_named(struct links_dump_ctx *c, const char *const *names, size_t n, const char **what)
{
	const char **sorted = malloc(n * sizeof(*sorted));
	size_t k = 0, m = 0;

	if (!sorted) {
		*what = "sort the names asked for";
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		if (names[i])
			sorted[m++] = names[i];
	qsort(sorted, m, sizeof(*sorted), links_cmp_str);
	for (size_t i = 0; i < c->n; i++) {
		const char *key = c->v[i].name;

		if (bsearch(&key, sorted, m, sizeof(*sorted), links_cmp_str))
			c->v[k++] = c->v[i];
	}
	c->n = k;
	free(sorted);
	return 0;
}

/**
 * links_query() - see links.h. @ret's previous contents are overwritten, not freed.
 *
 * Return: 0, or -errno: -ENOMEM, or the socket/netlink error (e.g. -EMFILE, -EACCES, -EAGAIN).
 * A name not in this namespace is absent from @ret, not an error.
 */
int links_query(const char *const *want, size_t n, unsigned flags, struct obs_links *ret,
		struct links_stats *ret_stats)
{
	const char *const *names = want;
	struct links_dump_ctx c = { .q = { .fd = -1 } };
	const char *what = "read links";
	int r;

	memset(ret, 0, sizeof(*ret));
	if (ret_stats)
		memset(ret_stats, 0, sizeof(*ret_stats));
	if (names && n > LINKS_NAMES_MAX) {
		c.full_dump = "more interfaces named than LINKS_NAMES_MAX: every link dumped";
		names = NULL;
	}
	r = links_query_into(&c, names, n, flags, &what);
	if (r == 0 && names != want)
		r = links_keep_named(&c, want, n, &what);
	return links_dump_finish(&c, ret, ret_stats, r, what);
}
/**
 * links_dump() - see links.h: every link, with full dumps.
 * Return: as links_query(). No errno means "absent": every namespace has at least lo.
 */
int links_dump(struct obs_links *ret)
{
	return links_query(NULL, 0, 0, ret, NULL);
}

/**
 * links_observe() - see links.h: the interfaces the PCI functions name.
 * Return: as links_query().
 */
int links_observe(const struct obs_pci *pci, struct obs_links *ret, struct links_stats *ret_stats)
{
	const char **names = calloc(pci->n ? pci->n : 1, sizeof(*names));
	size_t n = 0;
	int r;

	if (!names) {
		memset(ret, 0, sizeof(*ret));
		if (ret_stats)
			memset(ret_stats, 0, sizeof(*ret_stats));
		probe_status_fail(&ret->status, -ENOMEM, "netlink: cannot list the interfaces to ask for: %s",
				  strerror(ENOMEM));
		return -ENOMEM;
	}
	for (size_t i = 0; i < pci->n; i++)
		if (pci->v[i].netdev[0])
			names[n++] = pci->v[i].netdev;
	r = links_query(names, n, 0, ret, ret_stats);
	free(names);
	return r;
}

/* Over messages in memory: object messages only, control messages skipped (no sequence to end). */
static int links_parse_msgs(const void *buf, size_t len, struct links_parse_pass *p)
{
	const struct nlmsghdr *h = buf;
	int rem = (int)len;

	for (; nlmsg_ok(h, rem); h = nlmsg_next((struct nlmsghdr *)h, &rem)) {
		int r;

		if (h->nlmsg_type < RTM_BASE)
			continue;       /* NLMSG_DONE / ERROR / NOOP end or pace a dump, they hold no object */
		r = links_parse_one(h, p);
		if (r < 0)
			return r;
	}
	return 0;
}

/**
 * links_parse_msg() - see links.h: the dump's parsing path over a buffer instead of a socket.
 *
 * Return: 0, or -errno: -E2BIG (@len over LINKS_PARSE_MAX), -ENOMEM, or libnl's parse error
 * translated (-EINVAL, -ERANGE, ...). No errno means "absent".
 */
int links_parse_msg(const void *buf, size_t len, struct obs_links *ret)
{
	struct links_dump_ctx c = { .q = { .fd = -1 } };
	struct links_parse_pass p = { .c = &c, .links = true };
	const char *what = "parse links";
	int r;

	memset(ret, 0, sizeof(*ret));
	if (len > LINKS_PARSE_MAX) {
		probe_status_fail(&ret->status, -E2BIG, "netlink: %zu bytes of messages, more than %u",
				  len, LINKS_PARSE_MAX);
		return -E2BIG;
	}
	/* Links first, then addresses and routes against them: the dump's order. */
	r = links_parse_msgs(buf, len, &p);
	if (r == 0)
		r = links_sort_index(&c, &what);
	if (r == 0) {
		p.links = false;
		what = "parse addresses and routes";
		r = links_parse_msgs(buf, len, &p);
	}
	c.nlerr = p.nlerr;
	return links_dump_finish(&c, ret, NULL, r, what);
}

/**
 * links_parse_answer() - see links.h: one datagram through links_query()'s answer checks.
 *
 * Return: 1 (the exchange ended), 0 (more datagrams would follow), or -errno: -E2BIG, -ENOMEM,
 * -EBADMSG, -EOVERFLOW, libnl's parse error translated. No errno means "absent".
 */
int links_parse_answer(const void *buf, size_t len, bool dump, struct obs_links *ret, int *ret_kerr)
{
	struct links_dump_ctx c = { .q = { .fd = -1 } };
	struct links_parse_pass p = { .c = &c, .links = true };
	struct nlquery_answer a = { .dump = dump };
	const char *what = "parse the answer's links";
	int r;

	memset(ret, 0, sizeof(*ret));
	*ret_kerr = 0;
	if (len > LINKS_PARSE_MAX) {
		probe_status_fail(&ret->status, -E2BIG, "netlink: %zu bytes of messages, more than %u",
				  len, LINKS_PARSE_MAX);
		return -E2BIG;
	}
	if (len >= sizeof(struct nlmsghdr))
		a.seq = ((const struct nlmsghdr *)buf)->nlmsg_seq;
	r = nlquery_feed(&a, buf, len, links_parse_one, &p);
	if (r == 0)
		r = links_sort_index(&c, &what);
	if (r == 0) {
		a = (struct nlquery_answer){ .seq = a.seq, .dump = dump };
		p.links = false;
		what = "parse the answer's addresses and routes";
		r = nlquery_feed(&a, buf, len, links_parse_one, &p);
	}
	c.nlerr = p.nlerr;
	*ret_kerr = a.kerr;
	r = links_dump_finish(&c, ret, NULL, r, what);
	return r < 0 ? r : a.done;
}

/**
 * links_free() - free @l's array and reset it to empty with status PROBE_NOT_RUN.
 * @l: may be NULL.
 */
void links_free(struct obs_links *l)
{
	if (!l)
		return;
	free(l->v);
	memset(l, 0, sizeof(*l));
}

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
