/* obs_transport.c - lifetime and lookup of the GPU pods' transport samples. */
#include "probes/model/obs_transport.h"

#include <stdlib.h>
#include <string.h>

void obs_transport_free(struct obs_transport *t)
{
	if (!t)
		return;
	free(t->pods);
	memset(t, 0, sizeof(*t));
}

static int obs_transport_cmp(const void *key, const void *pod)
{
	return strcmp(key, ((const struct obs_pod_transport *)pod)->uid);
}

const struct obs_pod_transport *obs_transport_find(const struct obs_transport *t, const char *uid)
{
	if (!t || !uid || !t->n)
		return NULL;
	return bsearch(uid, t->pods, t->n, sizeof(*t->pods), obs_transport_cmp);
}
