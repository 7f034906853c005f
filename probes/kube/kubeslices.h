/* kubeslices.h - pure: a ResourceSliceList (resource.k8s.io/v1) of this node into struct obs_kube. */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"
#include "probes/model/obs_kube.h"

/**
 * kubeslices_parse() - parse a ResourceSliceList (GET /apis/resource.k8s.io/v1/resourceslices
 * ?fieldSelector=spec.nodeName=<node>) into k->slices: per slice its name, spec.driver,
 * spec.pool.name, spec.pool.generation and spec.nodeName; per device its name and the dra.net/rdma, dra.net/ifName and
 * dra.net/pciAddress attributes (v1 DeviceAttribute objects {"bool": ...} / {"string": ...}).
 * Other attributes and fields are not read. The slice part of @k is replaced only on success.
 * Return: 0; -EINVAL (not a list, a field of the wrong type or too long, over KUBE_SLICES_MAX
 * slices or KUBE_SLICE_DEVICES_MAX devices in one) with @err naming the field; -ENOMEM.
 */
int kubeslices_parse(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen);

/* kubeslices_items() - as kubeslices_parse(), from the @n slices @items already parsed (a list's items). */
int kubeslices_items(const struct json *const *items, size_t n, struct obs_kube *k, char *err, size_t errlen);
