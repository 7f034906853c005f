/* runtime.c - a runtime held against the fleet: the runtime-level findings in order, then each job's template judged like a pod. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/attach_judge.h"
#include "report/fleet/fleet_node.h"
#include "report/fleet/runtime.h"

static bool runtime_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && strcmp(name + n - k, suffix) == 0;
}

enum profile_kind runtime_fabric_of(const struct trainruntime *rt)
{
	for (size_t i = 0; i < rt->n_templates; i++)
		for (size_t k = 0; k < rt->templates[i].pod.n_containers; k++) {
			enum profile_kind fab = PROFILE_NONE;

			if (attach_is_daemon(&rt->templates[i].pod.containers[k], &fab) && fab != PROFILE_NONE)
				return fab;
		}
	for (size_t i = 0; i < rt->n_templates; i++)
		for (size_t k = 0; k < rt->templates[i].pod.n_containers; k++) {
			const struct pod_container *c = &rt->templates[i].pod.containers[k];

			for (size_t e = 0; e < c->env.n; e++) {
				if (strncmp(c->env.v[e].key, "NCCL_FASTRAK_", 13) == 0)
					return PROFILE_TCPXO;
				if (strncmp(c->env.v[e].key, "NCCL_GPUDIRECTTCPX_", 19) == 0)
					return PROFILE_TCPX;
			}
		}
	if (runtime_suffix(rt->name, "-tcpxo"))
		return PROFILE_TCPXO;
	if (runtime_suffix(rt->name, "-tcpx"))
		return PROFILE_TCPX;
	return PROFILE_NONE;
}

/* name: the runtime the fleet's nodes publish (fabric.aicr.run/runtime), which TrainJobs reference. */
static int runtime_name(const struct runtime_input *in, struct finding *f)
{
	const struct trainruntime *rt = in->rt;
	enum profile_kind kind = in->ff->kind, other = kind == PROFILE_TCPX ? PROFILE_TCPXO : PROFILE_TCPX;
	const char *want = profile_runtime_name(kind), *prefix = in->prefix ? in->prefix : "fabric.aicr.run/";
	char remedy[400], name[96], ns[96];

	attach_quote(rt->name, name, sizeof(name));
	snprintf(remedy, sizeof(remedy), "name the runtime %s (metadata.name of a ClusterTrainingRuntime): the %s nodes "
		 "publish it in %sruntime and TrainJobs reference it; the suffix names the attachment mechanism", want,
		 profile_fabric_name(kind), prefix);
	if (strcmp(rt->name, want) != 0) {
		if (runtime_suffix(rt->name, kind == PROFILE_TCPX ? "-tcpxo" : "-tcpx"))
			return finding_set(f, CHECK_FAIL, remedy, "named %s: its suffix names %s, the fleet is %s (its "
						  "nodes publish %s)", name, profile_fabric_name(other),
						  profile_fabric_name(kind), want);
		return finding_set(f, CHECK_FAIL, remedy, "named %s, the %s nodes publish %s: a TrainJob that "
					  "references the nodes' runtime does not get this one", name,
					  profile_fabric_name(kind), want);
	}
	if (strcmp(rt->kind, "TrainingRuntime") == 0)
		return finding_set(f, CHECK_WARN, remedy, "TrainingRuntime %s/%s is namespaced: only TrainJobs of "
					  "namespace %s with runtimeRef kind TrainingRuntime get it; the nodes' %sruntime "
					  "names the ClusterTrainingRuntime", rt->ns ? attach_quote(rt->ns, ns, sizeof(ns)) : "?",
					  name, rt->ns ? ns : "?", prefix);
	return finding_set(f, CHECK_PASS, NULL, "named %s, the runtime the %zu %s %s publish", name,
				  in->ff->n_nodes, profile_fabric_name(kind), coherence_nodes_word(in->ff->n_nodes));
}

/* One daemon cannot pair with two installer releases: the fleet must run one (DESIGN: skew is a failure). */
static int runtime_versions(const struct runtime_input *in, struct rtresult *r)
{
	const struct fleet_facts *ff = in->ff;
	const struct fleet_groups *g = ff->installers.n > 1 ? &ff->installers :
				       ff->expected_daemons.n > 1 ? &ff->expected_daemons : NULL;
	struct finding f = { 0 };
	struct strbuf groups = { 0 };
	int rc;

	if (!g)
		return 0;
	fleet_groups_text(g, &groups);
	rc = finding_set(&f, CHECK_FAIL, "upgrade the installer DaemonSet so every node runs one release (the "
				"installer first, then the daemon), then pin the daemon it pairs with in the runtime",
				"the %s nodes disagree on the %s: %s; the runtime's daemon pairs with one of them at most",
				profile_fabric_name(ff->kind), g == &ff->installers ? "installed plugin release" :
				"daemon release their installer pairs with", groups.s ? groups.s : "");
	strbuf_free(&groups);
	if (rc < 0)
		return rc;
	return rtresult_add(r, attach_finding_name(ATTACH_DAEMON_VERSION), NULL, &f);
}

/* Each job's pod template through the workload checker, its findings under the job's name. */
static int runtime_templates(const struct runtime_input *in, struct rtresult *r)
{
	for (size_t i = 0; i < in->rt->n_templates; i++) {
		const struct trainruntime_template *t = &in->rt->templates[i];
		struct attach_result res = { 0 };
		int rc = attach_judge(&t->pod, in->node, &res);

		for (size_t k = 0; rc == 0 && k < ATTACH__COUNT; k++)
			rc = rtresult_add(r, attach_finding_name((enum attach_finding_id)k), t->job, &res.findings[k]);
		attach_result_free(&res);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "runtime NAME: does not match: ID (job J): MESSAGE" or "runtime NAME: matches N TCPXO nodes (1 warning: ID)". */
static int runtime_summary(struct rtresult *r)
{
	const struct rtresult_finding *fail = rtresult_first(r, CHECK_FAIL);
	size_t n_warn = rtresult_count(r, CHECK_WARN);
	struct strbuf sb = { 0 };

	strbuf_appendf(&sb, "runtime %s: ", r->runtime);
	if (fail) {
		strbuf_appendf(&sb, "does not match: %s", fail->id);
		if (fail->job)
			strbuf_appendf(&sb, " (job %s)", fail->job);
		strbuf_appendf(&sb, ": %s", fail->f.message);
	} else {
		strbuf_appendf(&sb, "matches %zu %s %s", r->n_nodes, profile_fabric_name(r->kind), coherence_nodes_word(r->n_nodes));
		if (n_warn)
			strbuf_appendf(&sb, " (%zu warning%s: ", n_warn, n_warn == 1 ? "" : "s");
		for (size_t i = 0, k = 0; n_warn && i < r->n_findings; i++) {
			const struct rtresult_finding *w = &r->findings[i];

			if (w->f.status != CHECK_WARN)
				continue;
			strbuf_appendf(&sb, "%s%s", k++ ? ", " : "", w->id);
			if (w->job)
				strbuf_appendf(&sb, " of job %s", w->job);
		}
		if (n_warn)
			strbuf_append(&sb, ")");
	}
	r->summary = strbuf_take(&sb);
	return r->summary ? 0 : -ENOMEM;
}

/* The runtime-level findings: one row each, in their fixed order. */
static const struct runtime_check {
	const char *name;
	int (*judge)(const struct runtime_input *in, struct finding *f);
} runtime_checks[RTRESULT__COUNT] = {
	[RTRESULT_NAME] = { "name", runtime_name },
	[RTRESULT_NETWORKS_PUBLISHED] = { "networks-published", runtime_net_published },
	[RTRESULT_MAPPING] = { "mapping", runtime_net_mapping },
	[RTRESULT_DAEMON_PIN] = { "daemon-pin", runtime_pins_daemon },
	[RTRESULT_ENV_PIN] = { "env-pin", runtime_pins_env },
	[RTRESULT_GPUS] = { "gpus", runtime_sched_gpus },
	[RTRESULT_SCHEDULING] = { "scheduling", runtime_sched_placement },
	[RTRESULT_EMPTY_MAPPING] = { "empty-mapping", runtime_net_empty },
};

int runtime_judge(const struct trainruntime *rt, const struct fleet_facts *ff, const struct obs_kube *networks,
		  const struct releases *t, const char *prefix, struct rtresult *ret)
{
	struct attach_node node;
	struct runtime_input in = { .rt = rt, .ff = ff, .node = &node, .networks = networks, .releases = t,
				    .prefix = prefix };
	struct rtresult r = { .kind = ff->kind, .n_nodes = ff->n_nodes };
	int rc = 0;

	fleet_node_build(ff, t, &node);
	r.runtime = strbuf_printable(rt->name, TRAINRUNTIME_NAME_MAX);
	if (!r.runtime)
		rc = -ENOMEM;
	for (size_t i = 0; rc == 0 && i < RTRESULT__COUNT; i++) {
		struct finding f = { 0 };

		rc = runtime_checks[i].judge(&in, &f);
		if (rc == 0)
			rc = rtresult_add(&r, runtime_checks[i].name, NULL, &f);
		finding_free(&f);
	}
	if (rc == 0)
		rc = runtime_versions(&in, &r);
	if (rc == 0)
		rc = runtime_templates(&in, &r);
	r.verdict = rtresult_first(&r, CHECK_FAIL) ? RTRESULT_FAILS : RTRESULT_MATCHES;
	if (rc == 0)
		rc = runtime_summary(&r);
	if (rc < 0) {
		rtresult_free(&r);
		return rc;
	}
	*ret = r;
	return 0;
}
