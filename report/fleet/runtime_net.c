/* runtime_net.c - the runtime's networking.gke.io/interfaces against the cluster's Networks and the fleet's mapping. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "report/fleet/runtime_checks.h"

#define RUNTIME_NET_LIST_MAX 6          /* interfaces or Networks named in one message; the rest counted */

struct runtime_net_entry {
	char name[16];                  /* "eth3" */
	char network[64];
};

/* One job's binding: the annotation's entries, read once. */
struct runtime_net_job {
	const char *job;
	bool present;                   /* the annotation is there */
	bool readable;                  /* ... and a list of {"interfaceName", "network"} strings */
	struct runtime_net_entry v[ATTACH_IFACES_ENTRIES_MAX];
	size_t n;
	size_t gpu_nics;                /* entries other than eth0 */
};

/*
 * The annotation of @p into @j. Its shape is the interfaces finding's to judge (attach_judge()):
 * here an unreadable one is only not compared.
 */
static void runtime_net_read(const struct pod *p, const char *job, struct runtime_net_job *j)
{
	struct json *list;
	int r = attach_ifaces_list(p, &list);

	memset(j, 0, sizeof(*j));
	j->job = job;
	j->present = r != 0;
	if (r <= 0 || json_size(list) > ATTACH_IFACES_ENTRIES_MAX)
		goto out;
	for (const struct json *e = json_first(list); e; e = json_next(e)) {
		const char *name = json_get_string(e, "interfaceName"), *net = json_get_string(e, "network");

		if (!name || !net || strlen(name) >= sizeof(j->v[0].name) || strlen(net) >= sizeof(j->v[0].network))
			goto out;
		snprintf(j->v[j->n].name, sizeof(j->v[0].name), "%s", name);
		snprintf(j->v[j->n].network, sizeof(j->v[0].network), "%s", net);
		j->gpu_nics += strcmp(name, "eth0") != 0;
		j->n++;
	}
	j->readable = true;
out:
	json_free(list);
}

/* Every job's binding; *@ret_n of them. Caller frees. */
static struct runtime_net_job *runtime_net_jobs(const struct trainruntime *rt)
{
	struct runtime_net_job *jobs = calloc(rt->n_templates ? rt->n_templates : 1, sizeof(*jobs));

	for (size_t i = 0; jobs && i < rt->n_templates; i++)
		runtime_net_read(&rt->templates[i].pod, rt->templates[i].job, &jobs[i]);
	return jobs;
}

/* ---- networks-published ---- */

/* The Network list is there to compare with; else why not, as the finding. Return: 1 there, 0 finished, -ENOMEM. */
static int runtime_net_list_state(const struct obs_kube *k, struct finding *f)
{
	static const char remedy_crd[] = "enable GKE multi-networking (the Network and GKENetworkParamSet resources) and "
		"create one Device-type Network per GPU NIC; the runtime cannot work without them";

	if (!k || k->networks_fetch.state == KUBE_FETCH_NOT_RUN)
		return finding_set(f, CHECK_SKIP, NULL, "no Network list: read from the API, or give kubectl get "
					  "networks.networking.gke.io -o json with --networks-file") < 0 ? -ENOMEM : 0;
	if (k->networks_fetch.state == KUBE_FETCH_FAILED && k->networks_fetch.http_status == 404)
		return finding_set(f, CHECK_FAIL, remedy_crd, "the cluster has no networks.networking.gke.io "
					  "resource (404): GKE multi-networking is not enabled, so no Network the runtime "
					  "names exists") < 0 ? -ENOMEM : 0;
	if (k->networks_fetch.state != KUBE_FETCH_OK)
		return finding_set(f, CHECK_SKIP, NULL, "the Network list could not be read (%.200s)",
					  k->networks_fetch.message[0] ? k->networks_fetch.message : "failed") < 0 ? -ENOMEM : 0;
	return 1;
}

/* Whether @net was already judged: one of the entries of the jobs before @ji, or before @e in job @ji. */
static bool runtime_net_seen(const struct runtime_net_job *jobs, size_t ji, size_t e, const char *net)
{
	for (size_t i = 0; i <= ji; i++)
		for (size_t k = 0; jobs[i].readable && k < (i == ji ? e : jobs[i].n); k++)
			if (strcmp(jobs[i].v[k].network, net) == 0)
				return true;
	return false;
}

int runtime_net_published(const struct runtime_input *in, struct finding *f)
{
	static const char remedy[] = "create the missing Network (and its GKENetworkParamSet) or fix it until it is Ready "
		"(kubectl describe network NAME); or render the runtime with the Networks the nodes are on "
		"(tcpxo-agent interfaces)";
	struct runtime_net_job *jobs;
	struct finding_acc a = { 0 };
	size_t n_nets = 0, n_bad = 0;
	bool any = false;
	int r;

	if ((r = runtime_net_list_state(in->networks, f)) <= 0)
		return r;
	if (!(jobs = runtime_net_jobs(in->rt)))
		return -ENOMEM;
	for (size_t i = 0; i < in->rt->n_templates; i++) {
		const struct runtime_net_job *j = &jobs[i];

		any = any || j->readable;
		for (size_t e = 0; j->readable && e < j->n; e++) {
			const struct kube_network *net = obs_kube_network(in->networks, j->v[e].network);

			if (runtime_net_seen(jobs, i, e, j->v[e].network))
				continue;
			n_nets++;
			if (net && net->ready)
				continue;
			if (n_bad++ >= RUNTIME_NET_LIST_MAX)
				continue;
			finding_acc_add(&a, CHECK_FAIL, remedy, "Network %s (%s of job %s) %s", j->v[e].network, j->v[e].name,
				       j->job, net ? "is not Ready" : "is not a Network of the cluster");
		}
	}
	if (n_bad > RUNTIME_NET_LIST_MAX)
		finding_acc_add(&a, CHECK_FAIL, remedy, "and %zu more", n_bad - RUNTIME_NET_LIST_MAX);
	if (!any)
		finding_acc_skip(&a, "no replicated job has a readable %s annotation (see interfaces)", ATTACH_IFACES_KEY);
	free(jobs);
	return finding_acc_finish(&a, f, "the %zu Network%s the runtime names %s of the cluster and Ready", n_nets,
				 n_nets == 1 ? "" : "s", n_nets == 1 ? "is a Network" : "are Networks");
}

/* ---- mapping ---- */

/* The coherence diagnostics on one line: "a; b; c", at most @max bytes. */
static void runtime_net_oneline(const char *text, struct strbuf *sb, size_t max)
{
	size_t start = sb->len;

	for (const char *p = text; p && *p && sb->len - start < max;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		while (n && p[0] == ' ') {
			p++;
			n--;
		}
		if (n)
			strbuf_appendf(sb, "%s%.*s", sb->len > start ? "; " : "", (int)n, p);
		p = e ? e + 1 : NULL;
	}
}

/* One wired job against the fleet's mapping; differences into @a. Return: how many differ. */
static size_t runtime_net_compare(const struct runtime_input *in, const struct runtime_net_job *j, bool name_job,
				  const char *remedy, struct finding_acc *a)
{
	const struct fleet_facts *ff = in->ff;
	struct strbuf d = { 0 };
	size_t n_diff = 0;

	for (size_t i = 0; i < ff->n_ifaces; i++) {
		const struct runtime_net_entry *e = NULL;

		for (size_t k = 0; k < j->n && !e; k++)
			if (strcmp(j->v[k].name, ff->ifaces[i].name) == 0)
				e = &j->v[k];
		if (e && strcmp(e->network, ff->ifaces[i].network) == 0)
			continue;
		if (n_diff++ >= RUNTIME_NET_LIST_MAX)
			continue;
		if (e)
			strbuf_appendf(&d, "%s%s is %s in the runtime, %s on %zu %s", d.len ? "; " : "", e->name, e->network,
				       ff->ifaces[i].network, ff->n_nodes, coherence_nodes_word(ff->n_nodes));
		else
			strbuf_appendf(&d, "%s%s is not in the runtime (%s on %zu %s)", d.len ? "; " : "", ff->ifaces[i].name,
				       ff->ifaces[i].network, ff->n_nodes, coherence_nodes_word(ff->n_nodes));
	}
	for (size_t k = 0; k < j->n; k++) {
		bool known = strcmp(j->v[k].name, "eth0") == 0;

		for (size_t i = 0; i < ff->n_ifaces && !known; i++)
			known = strcmp(j->v[k].name, ff->ifaces[i].name) == 0;
		if (known || n_diff++ >= RUNTIME_NET_LIST_MAX)
			continue;
		strbuf_appendf(&d, "%s%s is %s in the runtime, no node has it", d.len ? "; " : "", j->v[k].name,
			       j->v[k].network);
	}
	if (n_diff > RUNTIME_NET_LIST_MAX)
		strbuf_appendf(&d, "; and %zu more", n_diff - RUNTIME_NET_LIST_MAX);
	/* The job is named when several are wired: each may differ in its own way. */
	if (n_diff)
		finding_acc_add(a, CHECK_FAIL, remedy, "%s%s%s%s", name_job ? "job " : "", name_job ? j->job : "",
			       name_job ? ": " : "", d.s ? d.s : "");
	strbuf_free(&d);
	return n_diff;
}

int runtime_net_mapping(const struct runtime_input *in, struct finding *f)
{
	static const char remedy_fleet[] = "make the nodes agree first: tcpxo-agent interfaces names the nodes that differ "
		"and why; no one runtime can match nodes whose GPU NICs are on different Networks";
	const struct fleet_facts *ff = in->ff;
	struct runtime_net_job *jobs;
	struct finding_acc a = { 0 };
	struct strbuf why = { 0 };
	char remedy[400];
	size_t wired = 0, listed = 0;

	if (ff->kind == PROFILE_TCPX)
		return finding_set(f, CHECK_SKIP, NULL, "TCPX nodes publish no mapping (the agent publishes the "
					  "eth1..eth8 mapping of TCPXO nodes only): the runtime's GPU NIC Networks are not "
					  "compared");
	if (!ff->ifaces_known) {
		int r;

		runtime_net_oneline(ff->mapping_why, &why, 600);
		r = finding_set(f, CHECK_FAIL, remedy_fleet, "the %s nodes do not publish one mapping, so no "
				       "runtime can match them all: %s", profile_fabric_name(ff->kind), why.s ? why.s : "");
		strbuf_free(&why);
		return r;
	}
	snprintf(remedy, sizeof(remedy), "render the runtime with the mapping the nodes publish: tcpxo-agent interfaces "
		 "(--format yaml for the renderer's tcpxoInterfaces, flag for --gke-tcpxo-interfaces), eth0 -> default first");
	if (!(jobs = runtime_net_jobs(in->rt)))
		return -ENOMEM;
	for (size_t i = 0; i < in->rt->n_templates; i++)
		wired += jobs[i].readable && jobs[i].gpu_nics;
	for (size_t i = 0; i < in->rt->n_templates; i++)
		if (jobs[i].readable && jobs[i].gpu_nics)
			runtime_net_compare(in, &jobs[i], wired > 1, remedy, &a);
	/* Nothing bound to compare: the findings that say so are empty-mapping and interfaces. */
	for (size_t i = 0; !wired && i < in->rt->n_templates; i++)
		listed += jobs[i].readable;
	if (!wired)
		finding_acc_skip(&a, "no replicated job binds a GPU NIC in %s (see %s)", ATTACH_IFACES_KEY,
				listed ? "empty-mapping" : "interfaces");
	free(jobs);
	return finding_acc_finish(&a, f, "eth1..eth%zu are on the Networks the %zu %s %s publish", ff->n_ifaces, ff->n_nodes,
				 profile_fabric_name(ff->kind), coherence_nodes_word(ff->n_nodes));
}

/* ---- empty-mapping ---- */

int runtime_net_empty(const struct runtime_input *in, struct finding *f)
{
	static const char remedy[] = "render the runtime with its mapping value set (AICR: --gke-tcpxo-interfaces "
		"$(tcpxo-agent interfaces), or the Helm value kubeflow-trainer.tcpxoInterfaces from tcpxo-agent interfaces "
		"--format yaml); the template renders eth0 alone when the value is absent";
	struct runtime_net_job *jobs;
	struct finding_acc a = { 0 };
	size_t listed = 0;

	if (!(jobs = runtime_net_jobs(in->rt)))
		return -ENOMEM;
	for (size_t i = 0; i < in->rt->n_templates; i++) {
		const struct runtime_net_job *j = &jobs[i];

		if (!j->readable)
			continue;
		listed++;
		if (!j->gpu_nics)
			finding_acc_add(&a, CHECK_FAIL, remedy, "job %s: %s binds %s: the renderer's visibly broken output "
				       "when its mapping value was absent", j->job, ATTACH_IFACES_KEY,
				       j->n ? "eth0 only" : "no interface at all");
	}
	if (!listed)
		finding_acc_skip(&a, "no replicated job has a readable %s annotation (see interfaces)", ATTACH_IFACES_KEY);
	free(jobs);
	return finding_acc_finish(&a, f, "%s binds GPU NICs besides eth0", ATTACH_IFACES_KEY);
}
