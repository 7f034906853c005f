/* kubeslices.c - pure: a ResourceSliceList (resource.k8s.io/v1) of this node into struct obs_kube. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubejson.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeslices.h"
#include "probes/model/errmsg.h"
#include "probes/model/strbuf.h"

/* A v1 DeviceAttribute is an object with one typed member: {"bool": true}, {"string": "gpu0rdma0"}. */
static const struct kubejson_field kubeslices_rdma[] = {
	KUBEJSON_ROW_BOOL("bool", kube_slice_device, rdma),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubeslices_ifname[] = {
	KUBEJSON_ROW_TEXT("string", kube_slice_device, ifname),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubeslices_bdf[] = {
	KUBEJSON_ROW_TEXT("string", kube_slice_device, bdf),
	KUBEJSON_ROW_END,
};

/* dranet's attribute names (kubernetes-sigs/dranet pkg/apis/attributes.go). */
static const struct kubejson_field kubeslices_attrs[] = {
	KUBEJSON_ROW_OBJECT("dra.net/rdma", kubeslices_rdma, NULL),
	KUBEJSON_ROW_OBJECT("dra.net/ifName", kubeslices_ifname, NULL),
	KUBEJSON_ROW_OBJECT("dra.net/pciAddress", kubeslices_bdf, NULL),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubeslices_device[] = {
	KUBEJSON_ROW_TEXT("name", kube_slice_device, name),
	KUBEJSON_ROW_OBJECT("attributes", kubeslices_attrs, NULL),
	KUBEJSON_ROW_END,
};

/* spec.pool.generation: a whole number, 0 when absent (the API's int64, within a double's exact range). */
static int kubeslices_generation(const struct json *obj, const struct kubejson_field *f, void *dst, const char *where,
				 char *err, size_t errlen)
{
	const struct json *v = json_get(obj, f->key);
	long long g;
	double d;

	if (!v || json_type(v) == JSON_NULL)
		return 0;
	if (!json_number(v, &d) || d < 0 || d > 9007199254740992.0 || d != (double)(long long)d)
		return errmsg_set(err, errlen, -EINVAL, "%s.%s: expected a whole number of at most 2^53, got %s", where,
				  f->key, kubejson_tname(v));
	g = (long long)d;
	memcpy((char *)dst + f->off, &g, sizeof(g));
	return 0;
}

static const struct kubejson_field kubeslices_slice[] = {
	KUBEJSON_ROW_TEXT("metadata.name", kube_slice, name),
	KUBEJSON_ROW_TEXT("spec.driver", kube_slice, driver),
	KUBEJSON_ROW_TEXT("spec.pool.name", kube_slice, pool),
	KUBEJSON_ROW_CALL("spec.pool.generation", kube_slice, generation, 0, kubeslices_generation),
	KUBEJSON_ROW_TEXT("spec.nodeName", kube_slice, node),
	KUBEJSON_ROW_OBJECTS("spec.devices", kube_slice, devices, n_devices, KUBE_SLICE_DEVICES_MAX, kubeslices_device, NULL),
	KUBEJSON_ROW_END,
};

int kubeslices_items(const struct json *const *items, size_t n, struct obs_kube *k, char *err, size_t errlen)
{
	struct kube_slice *v;
	int r = kubejson_items(items, n, KUBE_SLICES_MAX, "ResourceSlices", kubeslices_slice, sizeof(*v), strbuf_cmp_names,
			       (void **)&v, err, errlen);

	if (r < 0) {
		kube_slices_free(v, n);
		return r;
	}
	obs_kube_free_slices(k);
	k->slices = v;
	k->n_slices = n;
	return 0;
}

int kubeslices_parse(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen)
{
	static const char *const kinds[] = { "ResourceSliceList", "List", NULL };

	return kubeparse_list(body, len, "resourceslices", kinds, kubeslices_items, k, err, errlen);
}
