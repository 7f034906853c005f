/* links-dump.c - print links_dump() of the current network namespace, one line per link (tests). */
#include <errno.h>
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

int main(int argc, char **argv)
{
	struct obs_links ls = { 0 };
	long repeat = 0;
	int r;

	if (argc == 3 && strcmp(argv[1], "--repeat") == 0) {
		char *end;

		errno = 0;
		repeat = strtol(argv[2], &end, 10);
		if (errno || *end || repeat < 1 || repeat > 1000000) {
			fprintf(stderr, "links-dump: --repeat wants 1..1000000\n");
			return 2;
		}
	} else if (argc != 1) {
		fprintf(stderr, "usage: links-dump [--repeat N]   (N: time N dumps, print nothing else)\n");
		return 2;
	}

	if (repeat) {
		double t0 = links_dump_now_ms(), best = 1e300;

		for (long i = 0; i < repeat; i++) {
			double t = links_dump_now_ms();

			r = links_dump(&ls);
			t = links_dump_now_ms() - t;
			if (t < best)
				best = t;
			if (r < 0) {
				fprintf(stderr, "links-dump: %s\n", ls.status.message);
				links_free(&ls);
				return 1;
			}
			if (i + 1 < repeat)
				links_free(&ls);
		}
		printf("%zu links, %ld dumps, mean %.3f ms, best %.3f ms\n", ls.n, repeat,
		       (links_dump_now_ms() - t0) / repeat, best);
		links_free(&ls);
		return 0;
	}

	r = links_dump(&ls);
	if (r < 0) {
		fprintf(stderr, "links-dump: %s\n", ls.status.message);
		links_free(&ls);
		return 1;
	}
	links_dump_print(&ls);
	links_free(&ls);
	return fflush(stdout) == 0 ? 0 : 1;
}
