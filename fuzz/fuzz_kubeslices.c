/* fuzz_kubeslices.c - a ResourceSliceList body (resource.k8s.io/v1) into obs_kube. */
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/kubeslices.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct obs_kube k;
	char err[256];

	memset(&k, 0, sizeof(k));
	kubeslices_parse((const char *)data, size, &k, err, sizeof(err));
	kubeslices_parse((const char *)data, size, &k, err, sizeof(err));
	obs_kube_free(&k);
	return 0;
}
