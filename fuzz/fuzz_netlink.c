/* fuzz_netlink.c - rtnetlink messages through libnl's parsers, links.c's dump callbacks, its answer checks and its watch callback. */
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
	links_parse_msg(buf, size, &l);
	fuzz_netlink_check(&l);
	free(l.v);
	/* The same bytes as one answer datagram, to a dump and to a request for one link. */
	for (int dump = 0; dump < 2; dump++) {
		r = links_parse_answer(buf, size, dump, &l, &kerr);
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
