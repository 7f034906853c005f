/* fuzz_netlink.c - rtnetlink messages through links.c's answer checks, libnl's parsers and the dump callbacks, and its watch callback. */
#include <linux/netlink.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/host/links.h"

static void fuzz_netlink_check(const struct obs_links *l)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].n_ipv4 > OBS_IPV4_MAX || !l->v[i].name[0])
			abort();
}

int fuzz_one(const uint8_t *data, size_t size)
{
	struct obs_links l;
	void *buf;
	int kerr, r;

	/* Netlink messages are 4-byte aligned; a copy also trims libFuzzer's slack. */
	buf = malloc(size ? size : 1);
	if (!buf)
		return 0;
	memcpy(buf, data, size);
	/*
	 * The bytes as one answer datagram, to a dump and to a request for one link; then to a dump
	 * again with every message given the first one's sequence number, so that all of them reach
	 * the parsers, however the fuzzer numbered them.
	 */
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 2) {
			struct nlmsghdr *h = buf;
			int rem = (int)size;
			uint32_t seq = size >= sizeof(*h) ? h->nlmsg_seq : 0;

			for (; NLMSG_OK(h, rem); h = NLMSG_NEXT(h, rem))
				h->nlmsg_seq = seq;
		}
		r = links_parse_answer(buf, size, pass != 0, &l, &kerr);
		fuzz_netlink_check(&l);
		if (r > 1 || kerr > 0 || (r < 0 && l.status.state != PROBE_FAILED))
			abort();
		free(l.v);
	}
	{
		char what[128];

		links_watch_parse(buf, size, what, sizeof(what));
		if (memchr(what, '\0', sizeof(what)) == NULL)
			abort();        /* the log line must stay a bounded string */
	}
	free(buf);
	return 0;
}
