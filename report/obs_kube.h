/* obs_kube.h - node and pod facts read from the Kubernetes API (filled by probes/kube*). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Issue 4 extends this with labels, GKE annotations, pod images and our current annotations. */
struct obs_kube {
	bool configured;        /* API settings present: the kube probe may run */
};

void obs_kube_free(struct obs_kube *k);

/* The node's instance-type label, or NULL when unknown. */
const char *obs_kube_machine_type(const struct obs_kube *k);
