/* apicount.h - pure: the API requests a client made, counted by verb, resource and answer (tcpxo_api_requests_total). */
#pragma once

#include <stddef.h>

#define APICOUNT_MAX            96u     /* distinct (verb, resource, code) triples kept */
#define APICOUNT_VERB_MAX       8u      /* "DELETE" */
#define APICOUNT_RESOURCE_MAX   64u     /* "clustertrainingruntimes/status" */

/* One triple: code is the HTTP status, 0 for no answer (a transport failure, rendered "error"). */
struct apicount_entry {
	char verb[APICOUNT_VERB_MAX];
	char resource[APICOUNT_RESOURCE_MAX];
	int code;
	unsigned long long n;
};

/* Counters of one client: the triples in first-seen order; those past APICOUNT_MAX counted apart. */
struct apicount {
	struct apicount_entry v[APICOUNT_MAX];
	size_t n;
	unsigned long long dropped;     /* requests whose triple found no room */
};

/**
 * apicount_add() - count one request (one attempt: a retry counts again) of @method on @path
 * (query included, as sent) that got @status (0: no answer). The verb is Kubernetes' (GET of a
 * collection LIST, with watch=1 or watch=true WATCH; other methods as they are), the resource is
 * the path's (apicount_resource()), a status outside 100..599 counts as 0.
 */
void apicount_add(struct apicount *c, const char *method, const char *path, long status);

/**
 * apicount_resource() - the resource an API path names, as kube-apiserver's metrics do: "nodes",
 * "nodes/status", "pods", "events", "networks"; "" for a path that names none (/version).
 * Only [a-z0-9.-] segments are taken: anything else, or a name over @len, gives "other".
 * Return: whether the path names an object (a name after the resource), rather than a collection.
 */
int apicount_resource(const char *path, char *buf, size_t len);
