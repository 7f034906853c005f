/* kubenodes.h - list the cluster's Nodes from the API, page by page (GET /api/v1/nodes). */
#pragma once

#include <stddef.h>

#include "probes/kube/http.h"

#define KUBENODES_PAGE_LIMIT 500        /* nodes asked for per page */
#define KUBENODES_PAGE_LIMIT_MIN 16     /* pages too large for HTTP_BODY_MAX are asked again, halved, down to this */
#define KUBENODES_MAX_PAGES 2000

/* Where the pages go: the consumer parses each body (a NodeList) and returns its continue token. */
struct kubenodes_sink {
	/* Return: >= 0 when taken (*ret_continue: malloc'd token or NULL on the last page); -EINVAL
	 * with @err (@errlen bytes) set for a body that is not a NodeList; -ENOMEM. */
	int (*page)(void *userdata, const char *body, size_t len, char **ret_continue, char *err, size_t errlen);
	/* The listing starts over (the continue token expired): forget the pages taken so far. */
	void (*restart)(void *userdata);
	void *userdata;
};

/**
 * kubenodes_path() - the request path of one page: /api/v1/nodes?limit=N, then
 * &labelSelector=... and &continue=... when given, both percent-encoded (RFC 3986).
 * @ret: malloc'd path (caller frees).
 *
 * Return: 0; -ENOMEM.
 */
int kubenodes_path(const char *selector, const char *cont, unsigned limit, char **ret);

/**
 * kubenodes_list() - list every Node, feeding each page to @sink. A 410 Gone on a continued page
 * (the token expired) restarts the listing once; a page over HTTP_BODY_MAX is asked for again
 * with half the limit.
 * @err: receives why the listing failed (@errlen bytes; never the token), written only on failure.
 *
 * Return: 0; -EIO for an HTTP error status (403, 404, a second 410, ...); -EINVAL when a page is
 * not a NodeList or the listing does not end within KUBENODES_MAX_PAGES; -EFBIG when even a
 * small page is too large; transport errors as http_request() returns them; -ENOMEM.
 */
int kubenodes_list(struct http_client *c, const char *selector, const struct kubenodes_sink *sink,
		   char *err, size_t errlen);
