/* test_attach_rdma.c - a GPU pod judged on an RDMA node (attach_rdma.c): Google's shapes, each piece missing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/checks/attach_judge.h"
#include "tests/unit/podbuild.h"

#define RDMA_IFACES \
	"[{\"interfaceName\":\"eth0\",\"network\":\"default\"},{\"interfaceName\":\"eth2\",\"network\":\"rdma-0\"}," \
	"{\"interfaceName\":\"eth3\",\"network\":\"rdma-1\"},{\"interfaceName\":\"eth4\",\"network\":\"rdma-2\"}," \
	"{\"interfaceName\":\"eth5\",\"network\":\"rdma-3\"},{\"interfaceName\":\"eth6\",\"network\":\"rdma-4\"}," \
	"{\"interfaceName\":\"eth7\",\"network\":\"rdma-5\"},{\"interfaceName\":\"eth8\",\"network\":\"rdma-6\"}," \
	"{\"interfaceName\":\"eth9\",\"network\":\"rdma-7\"}]"

/* gpudirect-rdma/nccl-test.yaml: 8 GPUs, rdma-0..7 as eth2..eth9, nvidia and gib mounted, set_nccl_env.sh sourced. */
static struct pod *google_pod(void)
{
	struct pod *p = pb_pod("default", "nccl-test-host-1", "Running");
	struct pod_container *c = pb_container(p, "test", "us-docker.pkg.dev/gce-ai-infra/gpudirect-gib/"
					       "nccl-plugin-gib-diagnostic:v1.1.1", false, false);

	pb_gpus(c, 8);
	pb_cmd(c, "/bin/bash");
	pb_cmd(c, "-c");
	pb_arg(c, "/scripts/container_entry.sh shell\nsource /usr/local/gib/scripts/set_nccl_env.sh\nsleep infinity\n");
	pb_env(c, "LD_LIBRARY_PATH", "/usr/local/nvidia/lib64");
	pb_host_volume(p, "library-dir-host", "/home/kubernetes/bin/nvidia");
	pb_host_volume(p, "gib", "/home/kubernetes/bin/gib");
	pb_mount(c, "library-dir-host", "/usr/local/nvidia");
	pb_mount(c, "gib", "/usr/local/gib");
	pb_ann(p, "networking.gke.io/default-interface", "eth0");
	pb_ann(p, "networking.gke.io/interfaces", RDMA_IFACES);
	return p;
}

static void node_rdma(struct attach_node *n, bool dranet)
{
	memset(n, 0, sizeof(*n));
	n->kind = PROFILE_RDMA;
	n->gpus = 8;
	n->gpu_nics = 8;
	n->dranet = dranet;
}

static const struct finding *judge(const struct pod *p, const struct attach_node *n, struct attach_result *r,
				   enum attach_finding_id id)
{
	assert_int_equal(attach_judge(p, n, r), 0);
	return &r->findings[id];
}

static void test_google_pod(void **state)
{
	struct attach_node n;
	struct attach_result r;
	struct pod *p = google_pod();

	(void)state;
	node_rdma(&n, false);
	assert_int_equal(judge(p, &n, &r, ATTACH_INTERFACES)->status, CHECK_PASS);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	assert_true(r.wired);
	for (size_t i = 0; i < ATTACH__COUNT; i++)
		assert_int_not_equal(r.findings[i].status, CHECK_FAIL);
	assert_int_equal(r.findings[ATTACH_APERTURE].status, CHECK_SKIP);
	attach_result_free(&r);

	/* NCCL_NET=gIB set instead of sourcing the script: the same. */
	strcpy(pb_find(p, "test")->args[0], "sleep infinity");
	pb_env(pb_find(p, "test"), "NCCL_NET", "gIB");
	assert_int_equal(judge(p, &n, &r, ATTACH_NCCL_ENV)->status, CHECK_PASS);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	attach_result_free(&r);
	pb_free(p);
}

static void test_pieces_missing(void **state)
{
	struct attach_node n;
	struct attach_result r;
	struct pod *p = google_pod();
	const struct finding *f;

	(void)state;
	node_rdma(&n, false);
	/* Four of the eight networks: partial, the missing ones named. */
	pb_unann(p, "networking.gke.io/interfaces");
	pb_ann(p, "networking.gke.io/interfaces",
	       "[{\"interfaceName\":\"eth2\",\"network\":\"rdma-0\"},{\"interfaceName\":\"eth3\",\"network\":\"rdma-1\"},"
	       "{\"interfaceName\":\"eth4\",\"network\":\"rdma-2\"},{\"interfaceName\":\"eth5\",\"network\":\"rdma-3\"}]");
	f = judge(p, &n, &r, ATTACH_INTERFACES);
	assert_int_equal(f->status, CHECK_FAIL);
	assert_string_equal(f->message, "binds 4 of the 8 RDMA Networks (not rdma-4, rdma-5, rdma-6, rdma-7): NCCL "
			    "uses only the NICs it sees");
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	attach_result_free(&r);

	/* NCCL_NET set to another transport wins over the script's: not gIB. */
	pb_env(pb_find(p, "test"), "NCCL_NET", "Socket");
	f = judge(p, &n, &r, ATTACH_NCCL_ENV);
	assert_int_equal(f->status, CHECK_FAIL);
	assert_non_null(strstr(f->message, "sets NCCL_NET=Socket"));
	attach_result_free(&r);

	/* No networks at all, 8 GPUs: unattached, over TCP. */
	pb_unann(p, "networking.gke.io/interfaces");
	f = judge(p, &n, &r, ATTACH_INTERFACES);
	assert_int_equal(f->status, CHECK_FAIL);
	assert_int_equal(r.verdict, ATTACH_UNATTACHED);
	attach_result_free(&r);

	/* 2 GPUs and no networks: not a fabric workload. */
	pb_gpus(pb_find(p, "test"), 2);
	judge(p, &n, &r, ATTACH_INTERFACES);
	assert_int_equal(r.verdict, ATTACH_NOT_FABRIC);
	attach_result_free(&r);
	pb_free(p);
}

static void test_tcpxo_daemon(void **state)
{
	struct attach_node n;
	struct attach_result r;
	struct pod *p = google_pod();
	const struct finding *f;

	(void)state;
	node_rdma(&n, false);
	pb_container(p, "tcpxo-daemon", PB_DAEMON_IMAGE, false, false);
	f = judge(p, &n, &r, ATTACH_DAEMON_SIDECAR);
	assert_int_equal(f->status, CHECK_FAIL);
	assert_non_null(strstr(f->message, "runs a TCPXO daemon on an RDMA node"));
	assert_int_equal(r.verdict, ATTACH_PARTIAL);
	attach_result_free(&r);
	pb_free(p);
}

static void test_dranet(void **state)
{
	struct attach_node n;
	struct attach_result r;
	struct pod *p = google_pod();
	const struct finding *f;

	(void)state;
	node_rdma(&n, true);
	pb_unann(p, "networking.gke.io/interfaces");
	f = judge(p, &n, &r, ATTACH_INTERFACES);
	assert_int_equal(f->status, CHECK_FAIL);
	assert_non_null(strstr(f->message, "holds no ResourceClaim on a DRANET node"));
	assert_int_equal(r.verdict, ATTACH_UNATTACHED);
	attach_result_free(&r);

	p->claims = calloc(1, sizeof(*p->claims));
	p->claims[0].name = strdup("rdma");
	p->claims[0].template_name = strdup("nccl-test-all-mrdma");
	p->n_claims = 1;
	f = judge(p, &n, &r, ATTACH_INTERFACES);
	assert_int_equal(f->status, CHECK_PASS);
	assert_int_equal(r.verdict, ATTACH_ATTACHED);
	attach_result_free(&r);
	pb_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_google_pod),
		cmocka_unit_test(test_pieces_missing),
		cmocka_unit_test(test_tcpxo_daemon),
		cmocka_unit_test(test_dranet),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
