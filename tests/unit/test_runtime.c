/* test_runtime.c - report/fleet/runtime*.c: each runtime-level finding's pass, warn, fail and skip, the templates judged like pods, the summary; render_runtime. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "report/fleet/runtime.h"
#include "report/render/render_runtime.h"
#include "tests/unit/fleetbuild.h"
#include "tests/unit/podbuild.h"

#define D21 "sha256:8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d"
#define PINNED PB_DAEMON_IMAGE "@" D21

/* What one test holds the runtime against, and the runtime. */
struct world {
	struct coherence *fleet;
	struct fleet_facts ff;
	struct obs_kube networks;
	struct trainruntime rt;
	struct rtresult res;
};

/* The runtime's networking.gke.io/interfaces: eth0 on default, eth1..8 on a3pool-gpu-nic-1..8, one swapped. */
static void set_ifaces(struct pod *p, const char *swap_if, const char *swap_net)
{
	char *m = fb_mapping(swap_if, swap_net), *v = NULL;

	assert_true(asprintf(&v, "[{\"interfaceName\":\"eth0\",\"network\":\"default\"},%s", m + 1) > 0);
	pb_ann(p, "networking.gke.io/interfaces", v);
	free(v);
	free(m);
}

/* AICR's torch-distributed-tcpxo as a runtime: the worker pod of podbuild.h as the template of job "node". */
static void rt_aicr(struct trainruntime *rt, const char *name)
{
	struct pod *p = pb_aicr_worker();

	memset(rt, 0, sizeof(*rt));
	free(p->phase);
	p->phase = NULL;
	free(pb_find(p, "tcpxo-daemon")->image);
	pb_find(p, "tcpxo-daemon")->image = strdup(PINNED);
	set_ifaces(p, NULL, NULL);
	pb_kv(&p->node_selector, "cloud.google.com/gke-accelerator", "nvidia-h100-mega-80gb");
	pb_find(p, "node")->gpu_request = 8;
	rt->kind = strdup("ClusterTrainingRuntime");
	rt->api_version = strdup("trainer.kubeflow.org/v1alpha1");
	rt->name = strdup(name);
	rt->where = strdup("the object");
	rt->templates = calloc(2, sizeof(*rt->templates));
	rt->templates[0].job = strdup("node");
	rt->templates[0].pod = *p;
	rt->n_templates = 1;
	free(p);
}

static struct pod *tmpl(struct world *w)
{
	return &w->rt.templates[0].pod;
}

/* Drop every nodeSelector entry (the array stays for pb_kv). */
static void clear_selector(struct pod *p)
{
	for (size_t i = 0; i < p->node_selector.n; i++) {
		free(p->node_selector.v[i].key);
		free(p->node_selector.v[i].value);
	}
	p->node_selector.n = 0;
}

/* One required node-affinity expression "@key In (@value)" in term @term. */
static void add_affinity(struct pod *p, size_t term, const char *key, const char *value)
{
	struct pod_affinity_expr *e;

	p->affinity = realloc(p->affinity, (p->n_affinity + 1) * sizeof(*p->affinity));
	e = &p->affinity[p->n_affinity++];
	*e = (struct pod_affinity_expr){ .term = term, .key = strdup(key), .op = strdup("In"),
					 .values = calloc(1, sizeof(char *)), .n_values = 1 };
	e->values[0] = strdup(value);
}

/* The a3pool fleet: @n TCPXO nodes, v1.0.15, 8 GPUs, the mapping, GKE's GPU taint. */
static void fleet_tcpxo(struct world *w, size_t n)
{
	char *map = fb_mapping(NULL, NULL), *att = fb_attachment("v1.0.15", "v1.0.21", 8, 8), *text;
	struct fb_node v[8];
	char names[8][16];
	char err[512] = "";

	for (size_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "gke-a3-%zu", i);
		v[i] = fb_tcpxo(names[i], map, att);
	}
	text = fb_list(v, n);
	assert_int_equal(fleet_new(FB_P, &w->fleet), 0);
	assert_int_equal(coherence_add_nodelist(w->fleet, text, strlen(text), NULL, err, sizeof(err)), (int)n);
	assert_int_equal(fleet_facts(w->fleet, PROFILE_TCPXO, &w->ff, err, sizeof(err)), 0);
	free(text);
	free(map);
	free(att);
}

/* Replace the fleet by the nodes @v. */
static void refleet(struct world *w, const struct fb_node *v, size_t n)
{
	char err[512] = "";
	char *text = fb_list(v, n);

	fleet_facts_free(&w->ff);
	coherence_reset(w->fleet);
	assert_int_equal(coherence_add_nodelist(w->fleet, text, strlen(text), NULL, err, sizeof(err)), (int)n);
	assert_int_equal(fleet_facts(w->fleet, PROFILE_TCPXO, &w->ff, err, sizeof(err)), 0);
	free(text);
}

static void networks_ok(struct world *w)
{
	w->networks.networks_fetch.state = KUBE_FETCH_OK;
	w->networks.networks = calloc(10, sizeof(*w->networks.networks));
	snprintf(w->networks.networks[0].name, KUBE_NAME_MAX, "default");
	w->networks.networks[0].ready = true;
	for (int k = 1; k <= 8; k++) {
		snprintf(w->networks.networks[k].name, KUBE_NAME_MAX, "a3pool-gpu-nic-%d", k);
		snprintf(w->networks.networks[k].type, sizeof(w->networks.networks[k].type), "Device");
		w->networks.networks[k].ready = true;
	}
	w->networks.n_networks = 9;
}

static void world_init(struct world *w)
{
	memset(w, 0, sizeof(*w));
	fleet_tcpxo(w, 4);
	networks_ok(w);
	rt_aicr(&w->rt, "torch-distributed-tcpxo");
}

static void world_free(struct world *w)
{
	rtresult_free(&w->res);
	fleet_facts_free(&w->ff);
	coherence_free(w->fleet);
	obs_kube_free(&w->networks);
	trainruntime_free(&w->rt);
}

static void judge(struct world *w)
{
	rtresult_free(&w->res);
	assert_int_equal(runtime_judge(&w->rt, &w->ff, &w->networks, NULL, FB_P, &w->res), 0);
}

static const struct rtresult_finding *find(const struct world *w, const char *id, const char *job)
{
	for (size_t i = 0; i < w->res.n_findings; i++) {
		const struct rtresult_finding *f = &w->res.findings[i];

		if (strcmp(f->id, id) == 0 && ((!job && !f->job) || (job && f->job && strcmp(job, f->job) == 0)))
			return f;
	}
	fail_msg("no finding %s%s%s", id, job ? " of job " : "", job ? job : "");
	return NULL;
}

static void expect(struct world *w, const char *id, const char *job, enum check_status st, const char *msg)
{
	const struct rtresult_finding *f;

	judge(w);
	f = find(w, id, job);
	if (f->f.status != st || !strstr(f->f.message, msg))
		fail_msg("%s: %s \"%s\", want %s with \"%s\"", id, check_status_name(f->f.status), f->f.message,
			 check_status_name(st), msg);
	if (st >= CHECK_WARN && !f->f.remedy)
		fail_msg("%s: %s without a remedy", id, check_status_name(st));
}

/* AICR's runtime on its fleet: everything passes but the retired --num_nics (a warning). */
static void test_matches(void **state)
{
	struct world w;
	struct pod_container *d;

	world_init(&w);
	d = pb_find(tmpl(&w), "tcpxo-daemon");
	free(d->args[0]);
	d->args[0] = strdup("set -ex\nchmod 755 /fts/entrypoint_rxdm_container.sh\n"
			    "/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics 8\n");
	judge(&w);
	assert_int_equal(w.res.verdict, RTRESULT_MATCHES);
	assert_string_equal(w.res.summary, "runtime torch-distributed-tcpxo: matches 4 TCPXO nodes (1 warning: daemon-args "
			    "of job node)");
	/* Runtime-level findings first in their order, then the job's eleven. */
	assert_int_equal(w.res.n_findings, RTRESULT__COUNT + ATTACH__COUNT);
	static const char *const ids[RTRESULT__COUNT] = { "name", "networks-published", "mapping", "daemon-pin", "env-pin",
							  "gpus", "scheduling", "empty-mapping" };
	for (int i = 0; i < RTRESULT__COUNT; i++) {
		assert_string_equal(w.res.findings[i].id, ids[i]);
		assert_null(w.res.findings[i].job);
		if (w.res.findings[i].f.status != CHECK_PASS)
			fail_msg("%s: %s", w.res.findings[i].id, w.res.findings[i].f.message);
	}
	assert_string_equal(w.res.findings[RTRESULT__COUNT].id, "all-gpus");
	assert_string_equal(w.res.findings[RTRESULT__COUNT].job, "node");
	assert_int_equal(find(&w, "daemon-args", "node")->f.status, CHECK_WARN);
	assert_int_equal(rtresult_count(&w.res, CHECK_FAIL), 0);
	world_free(&w);
}

static void test_name(void **state)
{
	struct world w;

	world_init(&w);
	expect(&w, "name", NULL, CHECK_PASS, "named torch-distributed-tcpxo, the runtime the 4 TCPXO nodes publish");
	free(w.rt.name);
	w.rt.name = strdup("torch-distributed-tcpx");
	expect(&w, "name", NULL, CHECK_FAIL, "named torch-distributed-tcpx: its suffix names TCPX, the fleet is TCPXO "
	       "(its nodes publish torch-distributed-tcpxo)");
	assert_string_equal(w.res.summary, "runtime torch-distributed-tcpx: does not match: name: named "
			    "torch-distributed-tcpx: its suffix names TCPX, the fleet is TCPXO (its nodes publish "
			    "torch-distributed-tcpxo)");
	free(w.rt.name);
	w.rt.name = strdup("llama-tcpxo-v2");
	expect(&w, "name", NULL, CHECK_FAIL, "named llama-tcpxo-v2, the TCPXO nodes publish torch-distributed-tcpxo");
	free(w.rt.name);
	w.rt.name = strdup("torch-distributed-tcpxo");
	free(w.rt.kind);
	w.rt.kind = strdup("TrainingRuntime");
	w.rt.ns = strdup("ml");
	expect(&w, "name", NULL, CHECK_WARN, "TrainingRuntime ml/torch-distributed-tcpxo is namespaced");
	world_free(&w);
}

static void test_networks_published(void **state)
{
	struct world w;

	world_init(&w);
	expect(&w, "networks-published", NULL, CHECK_PASS, "the 9 Networks the runtime names are Networks of the cluster");
	set_ifaces(tmpl(&w), "eth3", "vpc4");
	expect(&w, "networks-published", NULL, CHECK_FAIL, "Network vpc4 (eth3 of job node) is not a Network of the "
	       "cluster");
	set_ifaces(tmpl(&w), NULL, NULL);
	w.networks.networks[5].ready = false;
	expect(&w, "networks-published", NULL, CHECK_FAIL, "Network a3pool-gpu-nic-5 (eth5 of job node) is not Ready");
	/* Not read, not allowed, no CRD at all. */
	w.networks.networks_fetch.state = KUBE_FETCH_NOT_RUN;
	expect(&w, "networks-published", NULL, CHECK_SKIP, "no Network list: read from the API, or give kubectl get "
	       "networks.networking.gke.io -o json with --networks-file");
	w.networks.networks_fetch = (struct kube_fetch){ .state = KUBE_FETCH_FORBIDDEN, .http_status = 403,
							 .message = "GET /apis/networking.gke.io/v1/networks: HTTP 403" };
	expect(&w, "networks-published", NULL, CHECK_SKIP, "the Network list could not be read (GET /apis/");
	w.networks.networks_fetch = (struct kube_fetch){ .state = KUBE_FETCH_FAILED, .http_status = 404 };
	expect(&w, "networks-published", NULL, CHECK_FAIL, "the cluster has no networks.networking.gke.io resource (404)");
	/* No annotation at all: the interfaces finding says so. */
	w.networks.networks_fetch.state = KUBE_FETCH_OK;
	pb_unann(tmpl(&w), "networking.gke.io/interfaces");
	expect(&w, "networks-published", NULL, CHECK_SKIP, "no replicated job has a readable networking.gke.io/interfaces");
	world_free(&w);
}

static void test_mapping(void **state)
{
	struct world w;

	world_init(&w);
	expect(&w, "mapping", NULL, CHECK_PASS, "eth1..eth8 are on the Networks the 4 TCPXO nodes publish");
	set_ifaces(tmpl(&w), "eth3", "vpc4");
	expect(&w, "mapping", NULL, CHECK_FAIL, "eth3 is vpc4 in the runtime, a3pool-gpu-nic-3 on 4 nodes");
	assert_string_equal(w.res.summary, "runtime torch-distributed-tcpxo: does not match: networks-published: Network "
			    "vpc4 (eth3 of job node) is not a Network of the cluster");
	/* One the nodes do not have; interfaces missing, the list bounded. */
	{
		char *m = fb_mapping(NULL, NULL), *v = NULL;

		assert_true(asprintf(&v, "[{\"interfaceName\":\"eth0\",\"network\":\"default\"},%.*s,"
				     "{\"interfaceName\":\"eth9\",\"network\":\"x\"}]", (int)strlen(m) - 2, m + 1) > 0);
		pb_ann(tmpl(&w), "networking.gke.io/interfaces", v);
		expect(&w, "mapping", NULL, CHECK_FAIL, "eth9 is x in the runtime, no node has it");
		free(v);
		free(m);
	}
	pb_ann(tmpl(&w), "networking.gke.io/interfaces", "[{\"interfaceName\":\"eth0\",\"network\":\"default\"},"
	       "{\"interfaceName\":\"eth1\",\"network\":\"a3pool-gpu-nic-1\"},{\"interfaceName\":\"eth9\",\"network\":\"x\"}]");
	expect(&w, "mapping", NULL, CHECK_FAIL, "eth2 is not in the runtime (a3pool-gpu-nic-2 on 4 nodes)");
	assert_non_null(strstr(find(&w, "mapping", NULL)->f.message, "; and 2 more"));
	/* Nothing bound: the other findings speak. */
	pb_ann(tmpl(&w), "networking.gke.io/interfaces", "[{\"interfaceName\":\"eth0\",\"network\":\"default\"}]");
	expect(&w, "mapping", NULL, CHECK_SKIP, "(see empty-mapping)");
	pb_unann(tmpl(&w), "networking.gke.io/interfaces");
	expect(&w, "mapping", NULL, CHECK_SKIP, "(see interfaces)");
	world_free(&w);
}

/* Nodes that disagree: no runtime can be right; the finding says how they differ. */
static void test_mapping_incoherent(void **state)
{
	char *map = fb_mapping(NULL, NULL), *other = fb_mapping("eth2", "a3pool-gpu-nic-9");
	char *att = fb_attachment("v1.0.15", "v1.0.21", 8, 8);
	struct fb_node v[] = { fb_tcpxo("a", map, att), fb_tcpxo("b", other, att) };
	struct world w;

	world_init(&w);
	refleet(&w, v, 2);
	expect(&w, "mapping", NULL, CHECK_FAIL, "the TCPXO nodes do not publish one mapping, so no runtime can match them "
	       "all: eth2: 1 node → a3pool-gpu-nic-2 (a), 1 node → a3pool-gpu-nic-9 (b); incoherent: 2 TCPXO nodes: "
	       "mappings differ on 1 interface; no mapping printed");
	/* The template is then judged without the mapping: its shape only. */
	assert_int_equal(find(&w, "interfaces", "node")->f.status, CHECK_SKIP);
	world_free(&w);
	free(map);
	free(other);
	free(att);
}

static void test_daemon_pin(void **state)
{
	struct world w;
	struct pod_container *d;

	world_init(&w);
	d = pb_find(tmpl(&w), "tcpxo-daemon");
	expect(&w, "daemon-pin", NULL, CHECK_PASS, "the daemon image is pinned by the release table's digest");
	free(d->image);
	d->image = strdup(PB_DAEMON_IMAGE);
	expect(&w, "daemon-pin", NULL, CHECK_WARN, "job node, container tcpxo-daemon: us-docker.pkg.dev/gce-ai-infra/"
	       "gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21 is not pinned by digest");
	assert_non_null(strstr(find(&w, "daemon-pin", NULL)->f.remedy, ":v1.0.21@" D21));
	free(d->image);
	d->image = strdup(PB_DAEMON_IMAGE "@sha256:1111111111111111111111111111111111111111111111111111111111111111");
	expect(&w, "daemon-pin", NULL, CHECK_FAIL, "the digest sha256:111111111111… is not the release table's digest of "
	       "v1.0.21 (sha256:8d9e10fd589a…)");
	/* The tag of another release: the table has no digest of it to compare with. */
	free(d->image);
	d->image = strdup("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.20@" D21);
	expect(&w, "daemon-pin", NULL, CHECK_SKIP, "the release table has no digest of v1.0.20");
	/* A digest alone: its release by the table. */
	free(d->image);
	d->image = strdup("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev@" D21);
	expect(&w, "daemon-pin", NULL, CHECK_PASS, "pinned by the release table's digest");
	/* No daemon at all: daemon-sidecar says it. */
	free(d->image);
	d->image = strdup("busybox:1.36");
	expect(&w, "daemon-pin", NULL, CHECK_SKIP, "no container runs the daemon image (see daemon-sidecar)");
	world_free(&w);
}

static void test_env_pin(void **state)
{
	struct world w;
	struct pod_container *c;

	world_init(&w);
	c = pb_find(tmpl(&w), "node");
	expect(&w, "env-pin", NULL, CHECK_PASS, "every GPU container sets the 23 NCCL variables of installer v1.0.15's "
	       "release notes");
	/* Missing, different (a file path outside the mounted lib64 too), extra of the family, other NCCL. */
	pb_unenv(c, "NCCL_BUFFSIZE");
	pb_unenv(c, "NCCL_PROTO");
	pb_env(c, "NCCL_PROTO", "Simple");
	pb_unenv(c, "NCCL_TUNER_CONFIG_PATH");
	pb_env(c, "NCCL_TUNER_CONFIG_PATH", "/opt/a3plus_tuner_config.textproto");
	pb_env(c, "NCCL_FASTRAK_NUM_FLOWS_EXTRA", "3");
	pb_env(c, "NCCL_ALGO", "Ring,Tree");
	judge(&w);
	{
		const struct rtresult_finding *f = find(&w, "env-pin", NULL);

		assert_int_equal(f->f.status, CHECK_FAIL);
		assert_non_null(strstr(f->f.message, "job node, container node: 1 of installer v1.0.15's variables are not "
				       "set: NCCL_BUFFSIZE"));
		assert_non_null(strstr(f->f.message, "NCCL_PROTO=Simple (the release's: Simple,LL128)"));
		assert_non_null(strstr(f->f.message, "NCCL_TUNER_CONFIG_PATH=/opt/a3plus_tuner_config.textproto (the release's: "
				       "/usr/local/nvidia/lib64/a3plus_tuner_config.textproto)"));
		assert_non_null(strstr(f->f.message, "sets variables the release does not: NCCL_FASTRAK_NUM_FLOWS_EXTRA"));
		assert_non_null(strstr(f->f.message, "NCCL variables outside the release's set (the guest config checker "
				       "flags unexpected ones): NCCL_ALGO"));
	}
	world_free(&w);

	/* The TCPX family on a TCPXO fleet; NCCL_DEBUG may differ; envFrom turns missing into a warning. */
	world_init(&w);
	c = pb_find(tmpl(&w), "node");
	pb_unenv(c, "NCCL_DEBUG");
	pb_env(c, "NCCL_DEBUG", "INFO");
	pb_env(c, "NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0");
	expect(&w, "env-pin", NULL, CHECK_FAIL, "sets variables the release does not: NCCL_GPUDIRECTTCPX_CTRL_DEV");
	pb_unenv(c, "NCCL_GPUDIRECTTCPX_CTRL_DEV");
	pb_unenv(c, "NCCL_FASTRAK_IFNAME");
	c->env_from = true;
	expect(&w, "env-pin", NULL, CHECK_WARN, "1 of installer v1.0.15's variables are not set (envFrom is not visible "
	       "here): NCCL_FASTRAK_IFNAME");
	c->env_from = false;
	pb_env(c, "NCCL_FASTRAK_IFNAME", NULL);
	expect(&w, "env-pin", NULL, CHECK_WARN, "not confirmed: NCCL_FASTRAK_IFNAME (valueFrom)");
	/* Sourcing the installed profile is the release's own set. */
	pb_arg(c, "source /usr/local/nvidia/lib64/nccl-env-profile.sh; torchrun train.py");
	expect(&w, "env-pin", NULL, CHECK_PASS, "sources nccl-env-profile.sh: the installed release's own set");
	world_free(&w);
}

/* The release the fleet runs decides the set; a release without notes is not compared. */
static void test_env_pin_release(void **state)
{
	char *map = fb_mapping(NULL, NULL), *a12 = fb_attachment("v1.0.12", "v1.0.18", 8, 8);
	char *a16 = fb_attachment("v1.0.16", "v1.0.23", 8, 8);
	struct fb_node v[] = { fb_tcpxo("a", map, a12) };
	struct world w;

	world_init(&w);
	refleet(&w, v, 1);
	/* v1.0.12's notes: NCCL_DYNAMIC_CHUNK_SIZE, no CUDA_VISIBLE_DEVICES or NCCL_NVLS_ENABLE. */
	expect(&w, "env-pin", NULL, CHECK_FAIL, "1 of installer v1.0.12's variables are not set: NCCL_DYNAMIC_CHUNK_SIZE");
	assert_non_null(strstr(find(&w, "env-pin", NULL)->f.message, "outside the release's set (the guest config checker "
			       "flags unexpected ones): NCCL_NVLS_ENABLE"));
	v[0].attachment = a16;
	refleet(&w, v, 1);
	expect(&w, "env-pin", NULL, CHECK_SKIP, "the release notes give no NCCL variable set for installer v1.0.16");
	world_free(&w);
	free(map);
	free(a12);
	free(a16);
}

static void test_gpus(void **state)
{
	struct world w;
	struct pod_container *c;

	world_init(&w);
	c = pb_find(tmpl(&w), "node");
	expect(&w, "gpus", NULL, CHECK_PASS, "each GPU pod requests 8 nvidia.com/gpu, the GPUs of each of the 4 nodes");
	c->gpu_limit = c->gpu_request = 16;
	expect(&w, "gpus", NULL, CHECK_FAIL, "job node requests 16 nvidia.com/gpu per pod, the fleet's nodes have 8");
	assert_string_equal(w.res.summary, "runtime torch-distributed-tcpxo: does not match: gpus: job node requests 16 "
			    "nvidia.com/gpu per pod, the fleet's nodes have 8");
	c->gpu_limit = 8;
	c->gpu_request = 4;
	expect(&w, "gpus", NULL, CHECK_FAIL, "container node: limits 8, requests 4");
	c->gpu_limit = c->gpu_request = POD_GPUS_ABSENT;
	expect(&w, "gpus", NULL, CHECK_FAIL, "no replicated job requests nvidia.com/gpu: the fleet's nodes have 8 each");
	world_free(&w);
}

static void test_scheduling(void **state)
{
	struct world w;
	struct pod *p;

	world_init(&w);
	p = tmpl(&w);
	/* The GPU taint is tolerated by GKE's admission for pods that request GPUs. */
	expect(&w, "scheduling", NULL, CHECK_PASS, "(nvidia.com/gpu by GKE's ExtendedResourceToleration admission");
	clear_selector(p);
	expect(&w, "scheduling", NULL, CHECK_WARN, "job node: no nodeSelector or required node affinity keeps it on the "
	       "fleet's a3-megagpu-8g nodes");
	pb_kv(&p->node_selector, "cloud.google.com/gke-accelerator", "nvidia-h100-80gb");
	expect(&w, "scheduling", NULL, CHECK_WARN, "job node: nodeSelector cloud.google.com/gke-accelerator=nvidia-h100-80gb: "
	       "no node of the fleet carries it");
	clear_selector(p);
	pb_kv(&p->node_selector, FB_P "profile", "tcpxo");
	expect(&w, "scheduling", NULL, CHECK_PASS, "the GPU pods are kept on the fleet's nodes");
	world_free(&w);
}

/* Required node affinity keeps the pods there when every term names the fleet; tolerations as Kubernetes matches them. */
static void test_scheduling_affinity_taints(void **state)
{
	char *map = fb_mapping(NULL, NULL), *att = fb_attachment("v1.0.15", "v1.0.21", 8, 8);
	struct fb_node v[] = { fb_tcpxo("a", map, att) };
	struct world w;
	struct pod *p;

	world_init(&w);
	p = tmpl(&w);
	clear_selector(p);
	add_affinity(p, 0, "cloud.google.com/gke-nodepool", "a3pool");
	expect(&w, "scheduling", NULL, CHECK_PASS, "kept on the fleet's nodes");

	/* A taint of the operator's: only a toleration tolerates it. */
	v[0].taint_key = "dedicated";
	v[0].taint_value = "training";
	refleet(&w, v, 1);
	expect(&w, "scheduling", NULL, CHECK_WARN, "job node: no toleration of the taint dedicated=training:NoSchedule that "
	       "1 node carry (a)");
	p->tolerations = calloc(1, sizeof(*p->tolerations));
	p->tolerations[0] = (struct pod_toleration){ .key = strdup("dedicated"), .op = strdup("Equal"),
						     .value = strdup("other") };
	p->n_tolerations = 1;
	expect(&w, "scheduling", NULL, CHECK_WARN, "no toleration of the taint dedicated=training:NoSchedule");
	free(p->tolerations[0].op);
	p->tolerations[0].op = strdup("Exists");
	expect(&w, "scheduling", NULL, CHECK_PASS, "tolerate the 1 taint they carry");
	/* An empty key with Exists tolerates every key, of its effect only. */
	free(p->tolerations[0].key);
	p->tolerations[0].key = NULL;
	p->tolerations[0].effect = strdup("NoExecute");
	expect(&w, "scheduling", NULL, CHECK_WARN, "no toleration of the taint dedicated=training:NoSchedule");
	free(p->tolerations[0].effect);
	p->tolerations[0].effect = NULL;
	expect(&w, "scheduling", NULL, CHECK_PASS, "tolerate the 1 taint they carry");

	/* A second affinity term that names no fleet label lets the pods go elsewhere. */
	add_affinity(p, 1, "kubernetes.io/os", "linux");
	expect(&w, "scheduling", NULL, CHECK_WARN, "no nodeSelector or required node affinity keeps it on");
	world_free(&w);
	free(map);
	free(att);
}

static void test_empty_mapping(void **state)
{
	struct world w;

	world_init(&w);
	expect(&w, "empty-mapping", NULL, CHECK_PASS, "binds GPU NICs besides eth0");
	pb_ann(tmpl(&w), "networking.gke.io/interfaces", "[{\"interfaceName\":\"eth0\",\"network\":\"default\"}]");
	expect(&w, "empty-mapping", NULL, CHECK_FAIL, "job node: networking.gke.io/interfaces binds eth0 only: the renderer's "
	       "visibly broken output when its mapping value was absent");
	assert_string_equal(w.res.summary, "runtime torch-distributed-tcpxo: does not match: empty-mapping: job node: "
			    "networking.gke.io/interfaces binds eth0 only: the renderer's visibly broken output when its "
			    "mapping value was absent");
	pb_ann(tmpl(&w), "networking.gke.io/interfaces", "[]");
	expect(&w, "empty-mapping", NULL, CHECK_FAIL, "binds no interface at all");
	pb_unann(tmpl(&w), "networking.gke.io/interfaces");
	expect(&w, "empty-mapping", NULL, CHECK_SKIP, "(see interfaces)");
	world_free(&w);
}

/* Nodes on two installer releases: a runtime-level daemon-version finding names both groups. */
static void test_installer_skew(void **state)
{
	char *map = fb_mapping(NULL, NULL), *a15 = fb_attachment("v1.0.15", "v1.0.21", 8, 8);
	char *a14 = fb_attachment("v1.0.14", "v1.0.20", 8, 8);
	struct fb_node v[] = { fb_tcpxo("a", map, a15), fb_tcpxo("b", map, a15), fb_tcpxo("c", map, a14) };
	struct world w;

	world_init(&w);
	refleet(&w, v, 3);
	expect(&w, "daemon-version", NULL, CHECK_FAIL, "the TCPXO nodes disagree on the installed plugin release: v1.0.15 "
	       "on 2 nodes (a, b), v1.0.14 on 1 node (c); the runtime's daemon pairs with one of them at most");
	/* The template is judged against the majority: its daemon pairs with v1.0.15. */
	assert_int_equal(find(&w, "daemon-version", "node")->f.status, CHECK_PASS);
	world_free(&w);
	free(map);
	free(a15);
	free(a14);
}

/* Several jobs: a launcher without GPUs is not a fabric workload; each job's findings carry its name. */
static void test_jobs(void **state)
{
	struct world w;
	struct pod *l;

	world_init(&w);
	l = &w.rt.templates[1].pod;
	l->containers = calloc(1, sizeof(*l->containers));
	l->containers[0].name = strdup("launcher");
	l->containers[0].image = strdup("mpioperator/mpi-launcher");
	l->containers[0].gpu_limit = l->containers[0].gpu_request = POD_GPUS_ABSENT;
	l->n_containers = 1;
	w.rt.templates[1].job = strdup("launcher");
	w.rt.n_templates = 2;
	judge(&w);
	assert_int_equal(w.res.n_findings, RTRESULT__COUNT + 2 * ATTACH__COUNT);
	assert_int_equal(find(&w, "all-gpus", "launcher")->f.status, CHECK_SKIP);
	assert_non_null(strstr(find(&w, "all-gpus", "launcher")->f.message, "not a fabric workload"));
	assert_int_equal(w.res.verdict, RTRESULT_MATCHES);
	world_free(&w);
}

/* The fabric a runtime is wired for, when the cluster has both. */
static void test_fabric_of(void **state)
{
	struct world w;
	struct pod_container *d;

	world_init(&w);
	d = pb_find(tmpl(&w), "tcpxo-daemon");
	assert_int_equal(runtime_fabric_of(&w.rt), PROFILE_TCPXO);
	free(d->image);
	d->image = strdup("us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpx/tcpgpudmarxd-dev:v2.0.15");
	assert_int_equal(runtime_fabric_of(&w.rt), PROFILE_TCPX);
	free(d->image);
	d->image = strdup("busybox");
	assert_int_equal(runtime_fabric_of(&w.rt), PROFILE_TCPXO);     /* NCCL_FASTRAK_* */
	for (size_t k = 0; k < tmpl(&w)->n_containers; k++) {
		struct pod_kvs *env = &tmpl(&w)->containers[k].env;

		for (size_t e = 0; e < env->n; e++) {
			free(env->v[e].key);
			env->v[e].key = strdup("OTHER");
		}
	}
	assert_int_equal(runtime_fabric_of(&w.rt), PROFILE_TCPXO);     /* the name's suffix */
	free(w.rt.name);
	w.rt.name = strdup("my-runtime");
	assert_int_equal(runtime_fabric_of(&w.rt), PROFILE_NONE);
	world_free(&w);
}

/* The table and the JSON: every finding, its job, remedies under what fails. */
static void test_render(void **state)
{
	struct world w;
	char *json, buf[16384];
	FILE *out;
	struct json *v = NULL;

	world_init(&w);
	set_ifaces(tmpl(&w), "eth3", "vpc4");
	judge(&w);
	out = fmemopen(buf, sizeof(buf), "w");
	assert_int_equal(render_runtime_human(&w.res, out), 0);
	fclose(out);
	assert_non_null(strstr(buf, "runtime torch-distributed-tcpxo: does not match: networks-published: Network vpc4"));
	assert_non_null(strstr(buf, "\n  FINDING             JOB   STATUS  DETAIL\n"));
	assert_non_null(strstr(buf, "\n  mapping             -     FAIL    eth3 is vpc4 in the runtime, a3pool-gpu-nic-3 on "
			       "4 nodes\n                                    remedy: render the runtime with the mapping"));
	assert_non_null(strstr(buf, "\n  all-gpus            node  pass    requests 8 of the node's 8 GPUs\n"));
	json = render_runtime_json(&w.res);
	assert_non_null(json);
	assert_int_equal(json_parse(json, strlen(json), &v), 0);
	assert_string_equal(json_get_string(v, "schema"), "fabric.aicr.run/v1");
	assert_string_equal(json_get_string(v, "runtime"), "torch-distributed-tcpxo");
	assert_string_equal(json_get_string(v, "fabric"), "tcpxo");
	assert_string_equal(json_get_string(v, "summary"), w.res.summary);
	assert_int_equal(json_size(json_get(v, "findings")), RTRESULT__COUNT + ATTACH__COUNT);
	{
		const struct json *f0 = json_first(json_get(v, "findings"));
		const struct json *map = json_next(json_next(f0));
		bool b = true;

		assert_string_equal(json_get_string(f0, "id"), "name");
		assert_int_equal(json_type(json_get(f0, "template")), JSON_NULL);
		assert_int_equal(json_type(json_get(f0, "remedy")), JSON_NULL);
		assert_string_equal(json_get_string(map, "status"), "fail");
		assert_non_null(json_get_string(map, "remedy"));
		assert_true(json_bool(json_get(v, "matches"), &b) && !b);
	}
	assert_int_equal(json[strlen(json) - 1], '\n');
	json_free(v);
	free(json);
	world_free(&w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches),
		cmocka_unit_test(test_name),
		cmocka_unit_test(test_networks_published),
		cmocka_unit_test(test_mapping),
		cmocka_unit_test(test_mapping_incoherent),
		cmocka_unit_test(test_daemon_pin),
		cmocka_unit_test(test_env_pin),
		cmocka_unit_test(test_env_pin_release),
		cmocka_unit_test(test_gpus),
		cmocka_unit_test(test_scheduling),
		cmocka_unit_test(test_scheduling_affinity_taints),
		cmocka_unit_test(test_empty_mapping),
		cmocka_unit_test(test_installer_skew),
		cmocka_unit_test(test_jobs),
		cmocka_unit_test(test_fabric_of),
		cmocka_unit_test(test_render),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
