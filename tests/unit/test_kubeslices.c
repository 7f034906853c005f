/* test_kubeslices.c - ResourceSliceList parsing (GKE managed DRANET's dra.net slices), including hostile input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/unit/fixture.h"
#include "probes/kube/kubeslices.h"

static int parse(const char *body, struct obs_kube *k, char *err, size_t errlen)
{
	return kubeslices_parse(body, strlen(body), k, err, errlen);
}

/* The fixture GKE's driver publishes: one slice, the two gVNICs and the 8 RDMA NICs. */
static void test_slices_fixture(void **state)
{
	struct obs_kube k = { 0 };
	char err[256] = "";
	size_t len;
	char *body = fixture_read("kube/resourceslices-a3ultra.json", &len);
	const struct kube_slice *s;

	(void)state;
	assert_non_null(body);
	assert_int_equal(kubeslices_parse(body, len, &k, err, sizeof(err)), 0);
	free(body);
	assert_int_equal(k.n_slices, 1);
	s = &k.slices[0];
	assert_string_equal(s->driver, "dra.net");
	assert_string_equal(s->pool, "gke-a3ultra-a3ultra-pool-9c8d7e6f-m2p5");
	assert_string_equal(s->node, "gke-a3ultra-a3ultra-pool-9c8d7e6f-m2p5");
	assert_string_equal(s->name, "gke-a3ultra-a3ultra-pool-9c8d7e6f-m2p5-dra.net-x7qzp");
	assert_int_equal(s->generation, 1);
	assert_int_equal(s->n_devices, 10);
	assert_string_equal(s->devices[0].ifname, "eth0");
	assert_false(s->devices[0].rdma);
	assert_string_equal(s->devices[2].name, "pci-0000-91-00-0");
	assert_string_equal(s->devices[2].ifname, "gpu0rdma0");
	assert_string_equal(s->devices[2].bdf, "0000:91:00.0");
	assert_true(s->devices[2].rdma);
	assert_string_equal(s->devices[9].ifname, "gpu7rdma0");
	obs_kube_free(&k);
	assert_null(k.slices);
}

/* Slices sorted by name; absent attributes and fields read as empty; other attributes ignored. */
static void test_slices_sorted_and_sparse(void **state)
{
	struct obs_kube k = { 0 };
	char err[256] = "";

	(void)state;
	assert_int_equal(parse("{\"kind\":\"ResourceSliceList\",\"items\":["
			       "{\"metadata\":{\"name\":\"b\"},\"spec\":{\"driver\":\"gpu.nvidia.com\",\"devices\":"
			       "[{\"name\":\"gpu-0\",\"attributes\":{\"productName\":{\"string\":\"H200\"},"
			       "\"index\":{\"int\":0}}}]}},"
			       "{\"metadata\":{\"name\":\"a\"},\"spec\":{\"driver\":\"dra.net\",\"allNodes\":true}},"
			       "{}]}", &k, err, sizeof(err)), 0);
	assert_int_equal(k.n_slices, 3);
	assert_string_equal(k.slices[0].name, "");
	assert_string_equal(k.slices[1].name, "a");
	assert_int_equal(k.slices[1].n_devices, 0);
	assert_string_equal(k.slices[1].node, "");
	assert_string_equal(k.slices[2].driver, "gpu.nvidia.com");
	assert_int_equal(k.slices[2].n_devices, 1);
	assert_false(k.slices[2].devices[0].rdma);
	assert_string_equal(k.slices[2].devices[0].ifname, "");
	obs_kube_free(&k);
}

/* Hostile or wrong bodies: refused with the field named, and what was read before stays. */
static void test_slices_hostile(void **state)
{
	static const struct {
		const char *body, *why;
	} cases[] = {
		{ "not json", "not valid JSON" },
		{ "[]", "" },
		{ "{\"kind\":\"PodList\",\"items\":[]}", "PodList" },
		{ "{\"items\":{}}", "items" },
		{ "{\"items\":[3]}", "items[0]: expected an object" },
		{ "{\"items\":[{\"spec\":[]}]}", "items[0].spec" },
		{ "{\"items\":[{\"spec\":{\"driver\":7}}]}", "items[0].spec.driver" },
		{ "{\"items\":[{\"spec\":{\"pool\":{\"name\":false}}}]}", "items[0].spec.pool.name" },
		{ "{\"items\":[{\"spec\":{\"pool\":{\"generation\":\"2\"}}}]}", "items[0].spec.pool.generation" },
		{ "{\"items\":[{\"spec\":{\"pool\":{\"generation\":1.5}}}]}", "items[0].spec.pool.generation" },
		{ "{\"items\":[{\"spec\":{\"pool\":{\"generation\":-1}}}]}", "items[0].spec.pool.generation" },
		{ "{\"items\":[{\"spec\":{\"pool\":{\"generation\":1e300}}}]}", "items[0].spec.pool.generation" },
		{ "{\"items\":[{\"spec\":{\"devices\":[{\"attributes\":{\"dra.net/rdma\":{\"bool\":\"yes\"}}}]}}]}",
		  "items[0].spec.devices[0].attributes.dra.net/rdma.bool: expected a boolean" },
		{ "{\"items\":[{\"spec\":{\"devices\":[{\"attributes\":{\"dra.net/ifName\":\"gpu0rdma0\"}}]}}]}",
		  "items[0].spec.devices[0].attributes.dra.net/ifName" },
		{ "{\"items\":[{\"spec\":{\"devices\":[{\"attributes\":{\"dra.net/pciAddress\":{\"string\":"
		  "\"0123456789012345678901234567890123456789012345678901234567890123456789\"}}}]}}]}",
		  "items[0].spec.devices[0].attributes.dra.net/pciAddress.string" },
		{ "{\"items\":[{\"spec\":{\"devices\":[{\"name\":"
		  "\"0123456789012345678901234567890123456789012345678901234567890123456789\"}]}}]}",
		  "items[0].spec.devices[0].name" },
	};
	struct obs_kube k = { 0 };
	char err[256];

	(void)state;
	assert_int_equal(parse("{\"items\":[{\"metadata\":{\"name\":\"kept\"}}]}", &k, err, sizeof(err)), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		err[0] = '\0';
		assert_int_equal(parse(cases[i].body, &k, err, sizeof(err)), -EINVAL);
		if (!strstr(err, cases[i].why))
			fail_msg("case %zu: %s", i, err);
		assert_int_equal(k.n_slices, 1);
		assert_string_equal(k.slices[0].name, "kept");
	}
	obs_kube_free(&k);
}

/* Over the API's limits: too many slices, or a slice of more than 128 devices. */
static void test_slices_bounds(void **state)
{
	struct obs_kube k = { 0 };
	char err[256] = "";
	size_t cap = 64 + (KUBE_SLICES_MAX + 1) * 3 + (KUBE_SLICE_DEVICES_MAX + 1) * 3;
	char *b = malloc(cap);
	size_t n = 0;

	(void)state;
	assert_non_null(b);
	n += (size_t)snprintf(b + n, cap - n, "{\"items\":[");
	for (size_t i = 0; i <= KUBE_SLICES_MAX; i++)
		n += (size_t)snprintf(b + n, cap - n, "%s{}", i ? "," : "");
	snprintf(b + n, cap - n, "]}");
	assert_int_equal(parse(b, &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than"));
	n = (size_t)snprintf(b, cap, "{\"items\":[{\"spec\":{\"devices\":[");
	for (size_t i = 0; i <= KUBE_SLICE_DEVICES_MAX; i++)
		n += (size_t)snprintf(b + n, cap - n, "%s{}", i ? "," : "");
	snprintf(b + n, cap - n, "]}}]}");
	assert_int_equal(parse(b, &k, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "items[0].spec.devices"));
	assert_int_equal(k.n_slices, 0);
	free(b);
	obs_kube_free(&k);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices_fixture),
		cmocka_unit_test(test_slices_sorted_and_sparse),
		cmocka_unit_test(test_slices_hostile),
		cmocka_unit_test(test_slices_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
