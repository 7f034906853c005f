/* nodeview.c - what --once and workloads hold of this node: API access, the observation, its verdict and judged pods. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/nodeview.h"
#include "agent/observe.h"

int nodeview_open(const struct cli_options *opt, struct nodeview *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	r = publisher_open(opt, &ret->pb);
	if (r < 0)
		return r;
	ret->kube.releases = ret->pb.releases;
	ret->observed = observe_node(opt, &ret->kube, &ret->o);
	return 0;
}

int nodeview_transport(struct nodeview *v, const struct cli_options *opt, const char *what)
{
	struct transport_limits lim = { .grace_s = opt->transport_grace, .tcp_rate = opt->transport_tcp_rate };
	int r = v->w.judged && observe_transport(&v->o, NULL) < 0 ? -ENOMEM : 0;

	if (r == 0)
		workloads_transport(&v->w, &v->o, &lim);
	/* A pod with no client past the grace: its traffic over the window tells tcp from idle. */
	if (r == 0 && (r = observe_transport_window(&v->o, &v->w, opt->transport_window)) > 0) {
		workloads_transport(&v->w, &v->o, &lim);
		r = 0;
	}
	if (r < 0) {
		fprintf(stderr, "tcpxo-agent: %sout of memory while sampling the pods' transport\n", what);
		return -ENOMEM;
	}
	return 0;
}

void nodeview_close(struct nodeview *v)
{
	if (!v)
		return;
	workloads_free(&v->w);
	profile_free(&v->p);
	observation_free(&v->o);
	obs_kube_free(&v->kube);
	publisher_close(&v->pb);
}
