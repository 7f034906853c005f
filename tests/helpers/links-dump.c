/* links-dump.c - print links_query() of the current network namespace, one line per link (tests). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "probes/host/links.h"

/* name oper admin mtu mac ipv4[,ipv4...] default; "-" stands for an empty field. */
static void links_dump_print(const struct obs_links *ls)
{
	for (size_t i = 0; i < ls->n; i++) {
		const struct obs_link *l = &ls->v[i];

		printf("%s %s %s %u %s ", l->name, link_oper_name(l->oper), l->admin_up ? "up" : "down",
		       l->mtu, l->mac[0] ? l->mac : "-");
		if (!l->n_ipv4)
			fputs("-", stdout);
		for (unsigned j = 0; j < l->n_ipv4; j++) {
			char a[OBS_IPV4_TEXT];

			obs_ipv4_format(l->ipv4[j], l->ipv4_prefix[j], a, sizeof(a));
			printf("%s%s", j ? "," : "", a);
		}
		printf(" %s\n", l->default_route ? "default" : "-");
	}
}

static double links_dump_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void links_dump_usage(void)
{
	fprintf(stderr, "usage: links-dump [--repeat N] [--stats] [--no-strict] [NAME...]\n"
		"  no NAME: every link; NAMEs: only those links (links_query)\n"
		"  --repeat N: time N queries, print nothing else; --stats: then a line of what the last cost\n"
		"  --no-strict: LINKS_QUERY_NO_STRICT, the full-dump fallback\n");
}

static int links_dump_once(char **names, int n, unsigned flags, struct obs_links *ls, struct links_stats *st)
{
	return links_query(n ? (const char *const *)names : NULL, (size_t)n, flags, ls, st);
}

int main(int argc, char **argv)
{
	struct obs_links ls = { 0 };
	struct links_stats st = { 0 };
	unsigned flags = 0;
	bool stats = false;
	long repeat = 0;
	int i, r;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
			char *end;

			errno = 0;
			repeat = strtol(argv[++i], &end, 10);
			if (errno || *end || repeat < 1 || repeat > 1000000) {
				fprintf(stderr, "links-dump: --repeat wants 1..1000000\n");
				return 2;
			}
		} else if (strcmp(argv[i], "--stats") == 0) {
			stats = true;
		} else if (strcmp(argv[i], "--no-strict") == 0) {
			flags |= LINKS_QUERY_NO_STRICT;
		} else {
			links_dump_usage();
			return 2;
		}
	}

	if (repeat) {
		double t0 = links_dump_now_ms(), best = 1e300;

		for (long k = 0; k < repeat; k++) {
			double t = links_dump_now_ms();

			r = links_dump_once(argv + i, argc - i, flags, &ls, &st);
			t = links_dump_now_ms() - t;
			if (t < best)
				best = t;
			if (r < 0) {
				fprintf(stderr, "links-dump: %s\n", ls.status.message);
				free(ls.v);
				return 1;
			}
			if (k + 1 < repeat)
				free(ls.v);
		}
		printf("%zu links, %ld dumps, mean %.3f ms, best %.3f ms\n", ls.n, repeat,
		       (links_dump_now_ms() - t0) / repeat, best);
	} else {
		r = links_dump_once(argv + i, argc - i, flags, &ls, &st);
		if (r < 0) {
			fprintf(stderr, "links-dump: %s\n", ls.status.message);
			free(ls.v);
			return 1;
		}
		links_dump_print(&ls);
	}
	/* One line the tests read: what the (last) query cost, and whether the kernel filtered. */
	if (stats)
		printf("# requests %u datagrams %u messages %u strict %s full-dump %s\n", st.requests, st.datagrams,
		       st.messages, st.strict ? "yes" : "no", st.full_dump ? "yes" : "no");
	free(ls.v);
	return fflush(stdout) == 0 ? 0 : 1;
}
