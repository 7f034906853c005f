/* obs_transport.c - lifetime and lookup of the GPU pods' transport samples. */
#include "probes/model/obs_transport.h"

#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"

void obs_transport_free(struct obs_transport *t)
{
	if (!t)
		return;
	free(t->pods);
	memset(t, 0, sizeof(*t));
}

const struct obs_pod_transport *obs_transport_find(const struct obs_transport *t, const char *uid)
{
	if (!t || !uid || !t->n)
		return NULL;
	return bsearch(uid, t->pods, t->n, sizeof(*t->pods), strbuf_cmp_names);
}
