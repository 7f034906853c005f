/* obs_host.c - lifetime of the host part of the observation. */
#include "report/obs_host.h"

void obs_host_free(struct obs_host *h)
{
	(void)h;
}
