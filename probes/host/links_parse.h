/* links_parse.h - what links.c keeps while it asks, and links_parse.c's libnl parsers that fill it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <linux/netlink.h>

#include "probes/host/nlquery.h"
#include "probes/model/observation.h"

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

/* One pass of parsing: which object type it hands to the dump's callbacks. */
struct links_parse_pass {
	struct links_dump_ctx *c;
	bool links;                     /* true: route/link only; false: route/addr and route/route */
	int nlerr;                      /* libnl's error when its parser refused a message */
};

/**
 * links_parse_one() - one object message @h through libnl's parser into the pass @arg (a struct
 * links_parse_pass): links, or addresses and routes against the links already in (an nlquery_msg_fn).
 * Return: 0, or -errno: libnl's parse error translated (its own code kept in the pass), -ENOMEM.
 */
int links_parse_one(const struct nlmsghdr *h, void *arg);

/**
 * links_sort_index() - after the links are in: sort them by name, drop repeats, index them by
 * ifindex for the addresses and routes that follow.
 * @what: on failure, what could not be done.
 * Return: 0, or -errno (-ENOMEM, or the first error met by a parser callback).
 */
int links_sort_index(struct links_dump_ctx *c, const char **what);

/**
 * links_nlerr() - a libnl error (NLE_*, either sign) as -errno, the one error space callers see.
 * Return: 0 for NLE_SUCCESS, else a negative errno (-EIO where libnl's has no counterpart).
 */
int links_nlerr(int nlerr);

/* The text of the libnl error @nlerr (static). */
const char *links_nlerr_text(int nlerr);
