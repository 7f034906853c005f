/*
 * links.c - the links of the current network namespace the node needs: each asked for by name,
 * its addresses and routes in dumps the kernel filters by interface (full dumps where it cannot),
 * over nlquery.c's route socket; links_parse.c turns the answers into obs_link with libnl, and
 * links_watch.c watches for changes.
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/rtnetlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "probes/host/links.h"
#include "probes/host/links_parse.h"
#include "probes/host/nlquery.h"

static void links_dump_ctx_free(struct links_dump_ctx *c)
{
	nlquery_close(&c->q);
	free(c->idx);
	free(c->v);
}


/* How many times a dump that raced a change (NLM_F_DUMP_INTR) is asked again. */
#define LINKS_DUMP_TRIES 4

/* What a dump fills, and so what an interrupted one must forget. */
enum links_part { LINKS_PART_LINKS, LINKS_PART_ADDRS, LINKS_PART_ROUTES };

/* Forget the links, or the addresses or default routes of one link (@pos) or of every link (@pos < 0). */
static void links_reset(struct links_dump_ctx *c, enum links_part part, int pos)
{
	if (part == LINKS_PART_LINKS)
		c->n = 0;
	for (size_t i = 0; i < c->n; i++)
		if (pos < 0 || (size_t)pos == i) {
			if (part == LINKS_PART_ADDRS)
				c->v[i].n_ipv4 = 0;
			else
				c->v[i].default_route = false;
		}
}

/*
 * Send @r, parse its answers in @pass. A dump interrupted by a change is asked again after
 * links_reset() of @part and @pos. Return: 0 with the kernel's answer in *@kerr, or -errno when
 * the socket or the bytes failed.
 */
static int links_ask(struct links_dump_ctx *c, struct nlquery_req *r, struct links_parse_pass *pass,
		     enum links_part part, int pos, int *kerr)
{
	for (int i = 0; i < LINKS_DUMP_TRIES; i++) {
		int res = nlquery_run(&c->q, r, links_parse_one, pass, kerr);

		if (res < 0 || *kerr != -EINTR)
			return res;
		links_reset(c, part, pos);
	}
	return 0;
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
			res = links_ask(c, &r, &pass, LINKS_PART_LINKS, -1, &kerr);
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
	enum links_part part = routes ? LINKS_PART_ROUTES : LINKS_PART_ADDRS;
	struct nlquery_req r;
	int res = 0, kerr = 0;

	for (size_t i = 0; filter && c->q.stats.strict && i < c->n; i++) {
		res = routes ? links_req_route(&r, c->v[i].ifindex) : links_req_addr(&r, c->v[i].ifindex);
		if (res == 0)
			res = links_ask(c, &r, &pass, part, (int)i, &kerr);
		if (res < 0)
			goto fail;
		if (kerr == -EINVAL || kerr == -EOPNOTSUPP) {
			c->full_dump = routes ? "the kernel refused a route dump filtered by interface"
					      : "the kernel refused an address dump filtered by interface";
			links_reset(c, part, -1);
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
		res = links_ask(c, &r, &pass, part, -1, &kerr);
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
			probe_status_fail(&ret->status, r, "netlink: cannot %s: %s", what, links_nlerr_text(c->nlerr));
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

	*ret_kerr = 0;
	memset(ret, 0, sizeof(*ret));
	if (len > LINKS_PARSE_MAX) {
		probe_status_fail(&ret->status, -E2BIG, "netlink: %zu bytes of messages, more than %u", len,
				  LINKS_PARSE_MAX);
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


