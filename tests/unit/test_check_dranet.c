/* test_check_dranet.c - profile rdma's networks row on a GKE managed DRANET node: judged by its ResourceSlices. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/model/observation.h"
#include "report/checks/checks.h"
#include "report/checks/profile.h"

#define NODE "gke-a3ultra-pool-n1"

struct env {
	struct obs_kube k;               /* the API facts e->o lends (the slices are the env's) */
	struct observation o;
	struct profile p;
	struct profile_nic nics[8];
	struct kube_slice slice, older;
	struct kube_slice_device devs[8];
	struct finding c;
};

/* A DRANET node with 8 RDMA NICs gpuNrdma0 at 0000:9N:00.0, and one dra.net slice publishing them all. */
static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e)
		return -1;
	e->o.kube = &e->k;
	e->k.dranet = true;
	snprintf(e->k.node_name, sizeof(e->k.node_name), NODE);
	e->k.slices_fetch.state = KUBE_FETCH_OK;
	for (int i = 0; i < 8; i++) {
		snprintf(e->nics[i].name, sizeof(e->nics[i].name), "gpu%drdma0", i);
		snprintf(e->nics[i].bdf, sizeof(e->nics[i].bdf), "0000:9%d:00.0", i);
		snprintf(e->devs[i].name, sizeof(e->devs[i].name), "pci-0000-9%d-00-0", i);
		snprintf(e->devs[i].ifname, sizeof(e->devs[i].ifname), "gpu%drdma0", i);
		snprintf(e->devs[i].bdf, sizeof(e->devs[i].bdf), "0000:9%d:00.0", i);
		e->devs[i].rdma = true;
	}
	e->p.nics = e->nics;
	e->p.n_nics = 8;
	snprintf(e->slice.driver, sizeof(e->slice.driver), "dra.net");
	snprintf(e->slice.pool, sizeof(e->slice.pool), NODE);
	snprintf(e->slice.node, sizeof(e->slice.node), NODE);
	e->slice.devices = e->devs;
	e->slice.n_devices = 8;
	e->k.slices = &e->slice;
	e->k.n_slices = 1;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	finding_free(&e->c);
	free(e->p.ifaces);
	free(e);
	return 0;
}

static enum check_status judge(struct env *e)
{
	assert_int_equal(check_rdma_networks(&e->o, &e->p, &e->c), 0);
	assert_string_equal(e->p.mode, "dranet");
	assert_null(e->p.ifaces);       /* never a mapping under DRANET */
	return e->c.status;
}

static void test_all_published(void **state)
{
	struct env *e = *state;

	assert_int_equal(judge(e), CHECK_PASS);
	assert_non_null(strstr(e->c.message, "publish its 8 RDMA NICs"));
}

/* Matched by PCI address when the host does not know the NIC's name (in a pod), or by name alone. */
static void test_match_by_pci_or_name(void **state)
{
	struct env *e = *state;

	e->nics[2].name[0] = '\0';
	e->devs[5].bdf[0] = '\0';
	assert_int_equal(judge(e), CHECK_PASS);
}

/* Not RDMA, another driver, another node's pool: none of these publish the NIC. */
static void test_missing_named(void **state)
{
	struct env *e = *state;

	e->devs[3].rdma = false;
	e->devs[6].ifname[0] = e->devs[6].bdf[0] = '\0';
	assert_int_equal(judge(e), CHECK_FAIL);
	assert_string_equal(e->c.message, "DRANET mode: the node's ResourceSlices (driver dra.net) do not publish 2 of "
					  "its 8 RDMA NICs as RDMA devices: gpu3rdma0, gpu6rdma0");
	assert_non_null(strstr(e->c.remedy, "networking-dra-driver"));
	snprintf(e->slice.driver, sizeof(e->slice.driver), "gpu.nvidia.com");
	assert_int_equal(judge(e), CHECK_FAIL);
	assert_non_null(strstr(e->c.message, "8 of its 8"));
	snprintf(e->slice.driver, sizeof(e->slice.driver), "dra.net");
	snprintf(e->slice.pool, sizeof(e->slice.pool), "another-node");
	assert_int_equal(judge(e), CHECK_FAIL);
	e->k.n_slices = 0;
	assert_int_equal(judge(e), CHECK_FAIL);
}

/* Only the pool's newest generation counts: an older slice that still lists a NIC does not publish it. */
static void test_newest_generation(void **state)
{
	struct env *e = *state;
	struct kube_slice two[2];

	e->slice.generation = 3;
	e->older = e->slice;
	e->older.generation = 2;
	e->slice.n_devices = 7;         /* gpu7rdma0 gone from the newest */
	two[0] = e->older;
	two[1] = e->slice;
	e->k.slices = two;
	e->k.n_slices = 2;
	assert_int_equal(judge(e), CHECK_FAIL);
	assert_non_null(strstr(e->c.message, "1 of its 8 RDMA NICs as RDMA devices: gpu7rdma0"));
	two[1].n_devices = 8;
	assert_int_equal(judge(e), CHECK_PASS);
	e->k.slices = &e->slice;   /* not left pointing at this frame */
	e->k.n_slices = 1;
}

/* Unread slices never pass: not read is a skip, forbidden or not served a warning with the reason. */
static void test_unreadable(void **state)
{
	struct env *e = *state;

	e->k.slices_fetch.state = KUBE_FETCH_NOT_RUN;
	assert_int_equal(judge(e), CHECK_SKIP);
	e->k.slices_fetch = (struct kube_fetch){ .state = KUBE_FETCH_FORBIDDEN, .http_status = 403 };
	assert_int_equal(judge(e), CHECK_WARN);
	assert_non_null(strstr(e->c.message, "forbidden (RBAC)"));
	assert_non_null(strstr(e->c.remedy, "resource.k8s.io"));
	e->k.slices_fetch = (struct kube_fetch){ .state = KUBE_FETCH_FAILED, .http_status = 404 };
	assert_int_equal(judge(e), CHECK_WARN);
	assert_non_null(strstr(e->c.message, "does not serve resource.k8s.io/v1"));
	e->k.slices_fetch = (struct kube_fetch){ .state = KUBE_FETCH_FAILED, .http_status = 200,
						      .message = "unusable answer (9 bytes): not valid JSON" };
	assert_int_equal(judge(e), CHECK_WARN);
	assert_non_null(strstr(e->c.message, "not valid JSON"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_all_published, setup, teardown),
		cmocka_unit_test_setup_teardown(test_match_by_pci_or_name, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_newest_generation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unreadable, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
