/* publish.h - the agent's side of the API: read node/pod facts, publish annotations, clean up. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "agent/cli.h"
#include "probes/kube/http.h"
#include "report/checks/profile.h"
#include "report/checks/releases.h"

struct publisher {
	const struct cli_options *opt;
	struct http_client *http;       /* NULL: no API configured (nothing is contacted) */
	char http_why[256];             /* why there is no client */
	struct releases *releases;      /* --releases file, or NULL for the built-in table */
	unsigned requests;              /* API calls made (for logs and tests) */
};

/**
 * publisher_open() - load the release table and set up API access from @opt. Each API call
 * is bounded (3 attempts, 15 s in all) for --once and the daemon alike.
 * Return: 0 (ret->http NULL when no API is configured: not an error); -EINVAL for a bad
 * --releases file or API setting (message printed to stderr); -ENOMEM.
 */
int publisher_open(const struct cli_options *opt, struct publisher *ret);

void publisher_close(struct publisher *pb);

/**
 * publisher_read() - GET the node, the pods on it and (optionally) the GKE Networks into @k,
 * and mark @k configured. Each read's state is in k->*_fetch.
 * Return: 0 when the node and the pods were read; -EIO otherwise; -ENOENT without an API or
 * a node name (nothing contacted).
 */
int publisher_read(struct publisher *pb, const char *node, struct obs_kube *k);

/* Whether the observation is complete enough to remove keys (every probe ran, the API answered). */
bool publisher_complete(const struct observation *o);

/**
 * publisher_write() - publish the annotations of @p on the node with one merge patch, only
 * when a value differs from what o->kube says the node carries.
 * @ret_keys: the number of keys written (0: nothing differed).
 * Return: 0; -EIO / transport errors from the API (message in @err); -ENOENT without API.
 */
int publisher_write(struct publisher *pb, const struct observation *o, const struct profile *p,
		    unsigned *ret_keys, char *err, size_t errlen);

/**
 * publisher_cleanup() - remove all of the agent's keys from @node with one merge patch.
 * Return: 0, or -errno (message in @err).
 */
int publisher_cleanup(struct publisher *pb, const char *node, char *err, size_t errlen);

/* The current time as RFC 3339 UTC ("2026-12-02T14:31:17Z") into buf. */
void publisher_now(char *buf, size_t len);
