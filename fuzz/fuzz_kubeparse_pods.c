/* fuzz_kubeparse_pods.c - a PodList body (installer and daemon images, args, statuses) into obs_kube. */
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct obs_kube k;
	char err[256];

	memset(&k, 0, sizeof(k));
	kubeparse_pods((const char *)data, size, &k, err, sizeof(err));
	kubeparse_pods((const char *)data, size, &k, err, sizeof(err));
	obs_kube_free(&k);
	return 0;
}
