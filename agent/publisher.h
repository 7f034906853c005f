/* publisher.h - the agent's side of the API: its release table and client, the node's facts read, the cleanup; what the node's writes count and remember (publish.h plans them). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/cli.h"
#include "agent/eventq.h"
#include "probes/kube/http.h"
#include "probes/kube/kube.h"
#include "report/checks/releases.h"
#include "report/render/metrics.h"

/* What the publisher needs of the command line, copied by publisher_open(); nothing else of it travels. */
struct publisher {
	const char *node;               /* --node: the Node written (NULL: none) */
	const char *prefix;             /* --prefix of our annotation and label keys */
	const char *releases_file;      /* --releases (NULL: the built-in table) */
	bool labels;                    /* not --no-labels: the scheduling labels are published */
	bool publish;                   /* not --no-publish: writes are wanted */
	struct http_client *http;       /* NULL: no API configured (nothing is contacted) */
	char http_why[256];             /* why there is no client */
	struct releases *releases;      /* --releases file, or NULL for the built-in table */
	char *releases_text;            /* ... the text it was parsed from (a reload compares it) */
	size_t releases_len;
	/*
	 * The node's writes the API accepted, by kind (tcpxo_node_writes_total): METRICS_WRITE_MERGE_PATCH
	 * the Node's annotations and labels, _STATUS_PATCH its FabricReady condition, _EVENT an Event
	 * posted (the Node's or a pod's).
	 */
	unsigned long long writes[METRICS_WRITE__COUNT];
	/*
	 * tcpxo_node_publish_in_sync: the node carries what the last verdict wants, as far as we know
	 * (publisher_pending() found nothing to write, or the last write went through); false while a
	 * write is owed: it failed, was refused, waits its turn, the node could not be read (polling),
	 * or none went through yet.
	 */
	bool in_sync;
	struct eventq events;           /* Events waiting to be posted: the node's, and the daemon's pod Events */
	uint64_t event_seq;             /* makes Event names unique within one nanosecond */
	uint64_t unobserved_since;      /* daemon: when observations started failing (0: they do not) */
	/*
	 * The node's annotations before a node PATCH that failed: its outcome is not known (a timeout
	 * after the server applied it), so the next write, or the next observation that finds our
	 * values already there, judges the transition from these, and the node's Event is not lost.
	 */
	struct kube_annotation event_from[KUBE_ANN__COUNT];
	bool event_from_set;
	/*
	 * The first write of this process looked for a transition never told: an agent stopped
	 * during the node PATCH leaves our values applied, but not the condition nor the Event.
	 */
	bool start_checked;
};

/**
 * publisher_open() - load the release table and set up API access from @opt. Each API call
 * is bounded (3 attempts, 15 s in all) for --once and the daemon alike.
 * Return: 0 (ret->http NULL when no API is configured: not an error); -EINVAL for a bad
 * --releases file or API setting (message on stderr: the daemon's through its log); -ENOMEM.
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

/**
 * publisher_reload_releases() - read the --releases file again (the daemon, when its directory
 * changed). A file that cannot be read or parsed is refused and the table in use kept; the same
 * text as the table in use changes nothing.
 * Return: 1 the new table is in pb->releases (the old one is freed: nothing may hold its rows);
 * 0 nothing changed, or no --releases; -errno refused (why in @err, naming the field).
 */
int publisher_reload_releases(struct publisher *pb, char *err, size_t errlen);

/* publisher_has_target() - where a write goes: an API and a node name (@node may be NULL or ""). Return: 0; -ENOENT (why in @err). */
int publisher_has_target(const struct publisher *pb, const char *node, char *err, size_t errlen);

/**
 * publisher_cleanup() - remove all of the agent's annotations and labels from @node with one
 * merge patch, then the FabricReady condition with one strategic merge patch of nodes/status
 * ($patch: delete): two writes, nothing else touched.
 * Return: 0, or -errno (message in @err).
 */
int publisher_cleanup(struct publisher *pb, const char *node, char *err, size_t errlen);
