/* obs_kube.c - lifetime of the API part of the observation. */
#include "report/obs_kube.h"

void obs_kube_free(struct obs_kube *k)
{
	(void)k;
}
