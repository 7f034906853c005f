/* fuzz_kubeparse_node.c - a Node body (labels, GKE nic-info / north-interfaces, our keys and labels, our condition) into obs_kube. */
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/kube/kubeparse.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct obs_kube k;
	char err[256];

	memset(&k, 0, sizeof(k));
	/* Twice into the same struct: the second parse must replace the first without leaking. */
	kubeparse_node((const char *)data, size, NULL, &k, err, sizeof(err));
	kubeparse_node((const char *)data, size, "example.com/", &k, err, sizeof(err));
	obs_kube_free(&k);
	return 0;
}
