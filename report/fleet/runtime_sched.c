/* runtime_sched.c - where the runtime's pods can land: their GPU request, node selection and tolerations against the fleet. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/fleet/runtime_checks.h"

#define RUNTIME_SCHED_GPU_RESOURCE "nvidia.com/gpu"

/* ---- gpus ---- */

int runtime_sched_gpus(const struct runtime_input *in, struct finding *f)
{
	const struct fleet_facts *ff = in->ff;
	unsigned want = in->node->gpus;
	struct finding_acc a = { 0 };
	struct strbuf groups = { 0 };
	char remedy[300];
	bool any = false;
	int r;

	if (!want)
		return finding_set(f, CHECK_SKIP, NULL, "no node publishes its GPU pairs (attachment pairs): the "
					  "GPU count per node is unknown");
	snprintf(remedy, sizeof(remedy), "request exactly the nodes' GPUs: resources.limits and requests %s: %u in the "
		 "GPU container (a pod asking for more never schedules; TCPXO needs all of them)",
		 RUNTIME_SCHED_GPU_RESOURCE, want);
	for (size_t i = 0; i < in->rt->n_templates; i++) {
		const struct trainruntime_template *t = &in->rt->templates[i];
		long long gpus = obs_pod_gpus(&t->pod);

		if (gpus <= 0)
			continue;       /* a launcher, or a job that runs beside the GPU ones */
		any = true;
		if (gpus != (long long)want)
			finding_acc_add(&a, CHECK_FAIL, remedy, "job %s requests %lld %s per pod, the fleet's nodes have %u",
				       t->job, gpus, RUNTIME_SCHED_GPU_RESOURCE, want);
		for (size_t k = 0; k < t->pod.n_containers; k++) {
			const struct pod_container *c = &t->pod.containers[k];
			char q[96];

			if (c->gpu_limit >= 0 && c->gpu_request >= 0 && c->gpu_limit != c->gpu_request)
				finding_acc_add(&a, CHECK_FAIL, remedy, "job %s, container %s: limits %lld, requests %lld (an "
					       "extended resource needs them equal)", t->job, attach_quote(c->name, q, sizeof(q)),
					       c->gpu_limit, c->gpu_request);
		}
	}
	if (!any)
		finding_acc_add(&a, CHECK_FAIL, remedy, "no replicated job requests %s: the fleet's nodes have %u each",
			       RUNTIME_SCHED_GPU_RESOURCE, want);
	if (ff->gpus.n > 1 || ff->gpus.unknown) {
		fleet_groups_text(&ff->gpus, &groups);
		finding_acc_add(&a, CHECK_WARN, "find why the other nodes publish fewer GPUs (their gpus check) before the "
			       "job needs them", "the nodes do not all publish %u GPUs: %s", want, groups.s ? groups.s : "");
	}
	r = finding_acc_finish(&a, f, "each GPU pod requests %u %s, the GPUs of each of the %zu %s", want,
			      RUNTIME_SCHED_GPU_RESOURCE, ff->n_nodes, coherence_nodes_word(ff->n_nodes));
	strbuf_free(&groups);
	return r;
}

/* ---- scheduling ---- */

/* The labels that keep a pod on the fleet's nodes, each with the values the fleet's nodes carry. */
struct runtime_sched_key {
	const char *key;
	const struct fleet_groups *values;      /* NULL: the profile label, whose value is the fabric's */
};

/* Whether label @key with @value keeps a pod on the fleet: 1 yes, 0 not this label, -1 a fleet label off the fleet. */
static int runtime_sched_label(const struct runtime_sched_key *keys, size_t n, enum profile_kind kind, const char *key,
			       const char *value)
{
	for (size_t i = 0; i < n; i++) {
		if (strcmp(keys[i].key, key) != 0)
			continue;
		if (keys[i].values)
			return value && fleet_groups_has(keys[i].values, value) ? 1 : -1;
		return value && strcmp(value, profile_kind_name(kind)) == 0 ? 1 : -1;
	}
	return 0;
}

/* Every required node-affinity term names a fleet label with values all on the fleet (terms are ORed). */
static bool runtime_sched_affinity(const struct pod *p, const struct runtime_sched_key *keys, size_t n_keys,
				   enum profile_kind kind)
{
	size_t terms = 0;

	for (size_t i = 0; i < p->n_affinity; i++)
		if (p->affinity[i].term + 1 > terms)
			terms = p->affinity[i].term + 1;
	for (size_t t = 0; t < terms; t++) {
		bool kept = false;

		for (size_t i = 0; i < p->n_affinity && !kept; i++) {
			const struct pod_affinity_expr *e = &p->affinity[i];
			bool all = e->n_values > 0;

			if (e->term != t || !e->key || !e->op || strcmp(e->op, "In") != 0)
				continue;
			for (size_t v = 0; v < e->n_values && all; v++)
				all = runtime_sched_label(keys, n_keys, kind, e->key, e->values[v]) == 1;
			kept = all;
		}
		if (!kept)
			return false;
	}
	return terms > 0;
}

/* Kubernetes' ToleratesTaint: effect, then key (empty with Exists: every key), then value for Equal. */
static bool runtime_sched_tolerates(const struct pod_toleration *tol, const struct fleet_taint *taint)
{
	const char *op = tol->op && *tol->op ? tol->op : "Equal";

	if (tol->effect && *tol->effect && strcmp(tol->effect, taint->effect) != 0)
		return false;
	if (!tol->key || !*tol->key)
		return strcmp(op, "Exists") == 0;
	if (!taint->key || strcmp(tol->key, taint->key) != 0)
		return false;
	if (strcmp(op, "Exists") == 0)
		return true;
	return strcmp(op, "Equal") == 0 && strcmp(tol->value ? tol->value : "", taint->value ? taint->value : "") == 0;
}

/*
 * GKE's ExtendedResourceToleration admission adds, to a pod that requests an extended resource,
 * a toleration of the NoSchedule taint named after it: the nvidia.com/gpu taint of GPU node pools.
 */
static bool runtime_sched_admitted(const struct pod *p, const struct fleet_taint *taint)
{
	return taint->key && strcmp(taint->key, RUNTIME_SCHED_GPU_RESOURCE) == 0 &&
	       strcmp(taint->effect, "NoSchedule") == 0 && obs_pod_gpus(p) > 0;
}

static void runtime_sched_taint_text(const struct fleet_taint *t, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s:%s", t->key ? t->key : "", t->value ? "=" : "", t->value ? t->value : "", t->effect);
}

int runtime_sched_placement(const struct runtime_input *in, struct finding *f)
{
	const struct fleet_facts *ff = in->ff;
	char profile_key[300], remedy[600], remedy_tol[300];
	const struct runtime_sched_key keys[] = {
		{ "node.kubernetes.io/instance-type", &ff->machine_types },
		{ "beta.kubernetes.io/instance-type", &ff->machine_types },
		{ "cloud.google.com/gke-accelerator", &ff->accelerators },
		{ "cloud.google.com/gke-nodepool", &ff->pools },
		{ profile_key, NULL },
	};
	const size_t n_keys = sizeof(keys) / sizeof(keys[0]);
	const char *type = fleet_groups_top(&ff->machine_types), *accel = fleet_groups_top(&ff->accelerators);
	struct finding_acc a = { 0 };
	size_t n_gpu = 0;
	bool by_admission = false;

	snprintf(profile_key, sizeof(profile_key), "%sprofile", in->prefix ? in->prefix : "fabric.aicr.run/");
	snprintf(remedy, sizeof(remedy), "keep the GPU pods on the fleet: nodeSelector %s: %s (or %s: %s, the label "
		 "the agent publishes); AICR's bundler sets it from --accelerated-node-selector",
		 accel ? "cloud.google.com/gke-accelerator" : "node.kubernetes.io/instance-type",
		 accel ? accel : type ? type : "<the nodes' machine type>", profile_key, profile_kind_name(ff->kind));
	snprintf(remedy_tol, sizeof(remedy_tol), "add a toleration of each taint the fleet's nodes carry to the pod "
		 "template (tolerations: key, operator, effect); AICR's bundler sets them from --accelerated-node-toleration");
	for (size_t i = 0; i < in->rt->n_templates; i++) {
		const struct trainruntime_template *t = &in->rt->templates[i];
		const struct pod *p = &t->pod;
		bool kept = false;

		if (obs_pod_gpus(p) <= 0)
			continue;       /* a launcher may run anywhere */
		n_gpu++;
		for (size_t k = 0; k < p->node_selector.n; k++) {
			const struct pod_kv *kv = &p->node_selector.v[k];
			int r = runtime_sched_label(keys, n_keys, ff->kind, kv->key, kv->value);
			char qv[96];

			if (r > 0)
				kept = true;
			else if (r < 0)
				finding_acc_add(&a, CHECK_WARN, remedy, "job %s: nodeSelector %s=%s: no node of the fleet "
					       "carries it, the pods cannot land on the fleet", t->job, kv->key,
					       attach_quote(kv->value, qv, sizeof(qv)));
		}
		kept = kept || runtime_sched_affinity(p, keys, n_keys, ff->kind);
		if (!kept)
			finding_acc_add(&a, CHECK_WARN, remedy, "job %s: no nodeSelector or required node affinity keeps it on "
				       "the fleet's %s nodes (by machine type, accelerator, node pool or %s)", t->job,
				       type ? type : profile_kind_name(ff->kind), profile_key);
		for (size_t k = 0; k < ff->n_taints; k++) {
			const struct fleet_taint *taint = &ff->taints[k];
			bool ok = false;
			char text[200];

			for (size_t m = 0; m < p->n_tolerations && !ok; m++)
				ok = runtime_sched_tolerates(&p->tolerations[m], taint);
			if (!ok && runtime_sched_admitted(p, taint))
				ok = by_admission = true;
			if (ok)
				continue;
			runtime_sched_taint_text(taint, text, sizeof(text));
			finding_acc_add(&a, CHECK_WARN, remedy_tol, "job %s: no toleration of the taint %s that %zu %s carry (%s)",
				       t->job, text, taint->count, coherence_nodes_word(taint->count), taint->names);
		}
	}
	if (!n_gpu)
		return finding_acc_finish(&a, f, "no replicated job requests GPUs: nothing to place on the fleet");
	return finding_acc_finish(&a, f, "the GPU pods are kept on the fleet's nodes and tolerate the %zu taint%s they "
				 "carry%s", ff->n_taints, ff->n_taints == 1 ? "" : "s", by_admission ? " (nvidia.com/gpu by "
				 "GKE's ExtendedResourceToleration admission: the pods request it)" : "");
}
