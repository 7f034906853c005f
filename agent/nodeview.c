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
	ret->observed = observe_node(opt, &ret->o);
	return 0;
}

int nodeview_transport(struct nodeview *v, unsigned grace_s, const char *what)
{
	if (v->w.judged && observe_transport(&v->o, NULL) < 0) {
		fprintf(stderr, "tcpxo-agent: %sout of memory while sampling the pods' transport\n", what);
		return -ENOMEM;
	}
	workloads_transport(&v->w, &v->o, grace_s);
	return 0;
}

void nodeview_close(struct nodeview *v)
{
	if (!v)
		return;
	workloads_free(&v->w);
	profile_free(&v->p);
	observation_free(&v->o);
	publisher_close(&v->pb);
}
