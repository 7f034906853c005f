/* nodeview.h - what --once and workloads hold of this node: API access, the observation, its verdict and judged pods. */
#pragma once

#include "agent/cli.h"
#include "agent/publish.h"
#include "probes/model/observation.h"
#include "report/checks/profile.h"
#include "report/checks/workloads.h"

struct nodeview {
	struct publisher pb;
	struct obs_kube kube;           /* the API facts o.kube lends (publisher_read()) */
	struct observation o;
	struct profile p;               /* zero until the caller evaluates it */
	struct workloads w;             /* zero until the caller judges the pods */
	int observed;                   /* observe_node()'s return: < 0, the node's core could not be observed */
};

/**
 * nodeview_open() - set up API access and the release table from @opt (publisher_open(), its
 * messages said), then observe the node (observe_node()).
 * @ret: after a success, free with nodeview_close().
 * Return: 0; publisher_open()'s -errno (nothing to free).
 */
int nodeview_open(const struct cli_options *opt, struct nodeview *ret);

/**
 * nodeview_transport() - once the pods are judged (v->w): sample the running GPU pods' transport
 * from the node's /proc (observe_transport()) and judge it (workloads_transport()) under @opt's
 * --transport-grace and --transport-tcp-rate; pods with no client past the grace are read again
 * --transport-window later (observe_transport_window()) and judged on their rates. Nothing when
 * the pod list was not read. Return: 0; -ENOMEM (said on stderr, after @what).
 */
int nodeview_transport(struct nodeview *v, const struct cli_options *opt, const char *what);

/* nodeview_close() - free all of @v (an unevaluated profile, unjudged pods included). */
void nodeview_close(struct nodeview *v);
