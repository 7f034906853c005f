/* attach_node.c - the node facts of workload attachment from the observation and the profile. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/hostfiles.h"
#include "report/checks/attach_node.h"
#include "report/checks/ifacemap.h"

static void attach_node_ifaces(const struct observation *o, const struct profile *p, struct attach_node *n)
{
	const struct obs_kube *k = o->kube;

	if (!k->configured || k->node_fetch.state == KUBE_FETCH_NOT_RUN) {
		snprintf(n->ifaces_why, sizeof(n->ifaces_why), "no API access: the node's GPU NIC Networks are not known");
		return;
	}
	if (k->node_fetch.state != KUBE_FETCH_OK) {
		snprintf(n->ifaces_why, sizeof(n->ifaces_why), "the node was not read from the API (%.120s)",
			 k->node_fetch.message[0] ? k->node_fetch.message : "failed");
		return;
	}
	if (k->dranet) {
		n->dranet = true;
		snprintf(n->ifaces_why, sizeof(n->ifaces_why), "GPU NICs allocated by DRANET");
		return;
	}
	if (!p->n_nics || p->n_nics > ATTACH_NICS_MAX) {
		snprintf(n->ifaces_why, sizeof(n->ifaces_why), "%zu GPU NICs observed", p->n_nics);
		return;
	}
	for (size_t i = 0; i < p->n_nics; i++) {
		const struct profile_nic *nic = &p->nics[i];

		if (!nic->name[0] || !nic->network[0]) {
			snprintf(n->ifaces_why, sizeof(n->ifaces_why),
				 "GPU NIC %s%s%s has no Network in the node's networking.gke.io annotations",
				 nic->bdf, nic->name[0] ? " " : "", nic->name);
			n->n_ifaces = 0;
			return;
		}
		snprintf(n->ifaces[n->n_ifaces].name, sizeof(n->ifaces[0].name), "%s", nic->name);
		snprintf(n->ifaces[n->n_ifaces].network, sizeof(n->ifaces[0].network), "%s", nic->network);
		n->n_ifaces++;
	}
	ifacemap_sort(n->ifaces, n->n_ifaces);
	n->ifaces_known = true;
}

static void attach_node_versions(const struct observation *o, const struct profile *p, struct attach_node *n)
{
	const struct obs_kube *k = o->kube;

	snprintf(n->installer, sizeof(n->installer), "%s", p->installer);
	snprintf(n->expected_daemon, sizeof(n->expected_daemon), "%s", p->expected_daemon);
	if (n->expected_daemon[0])
		return;
	if (k->pods_fetch.state != KUBE_FETCH_OK)
		snprintf(n->versions_why, sizeof(n->versions_why), "the installed plugin's version is unknown (no pod list)");
	else if (n->installer[0])
		snprintf(n->versions_why, sizeof(n->versions_why),
			 "installer %s is not in the release table: the daemon it pairs with is unknown", n->installer);
	else
		snprintf(n->versions_why, sizeof(n->versions_why),
			 "the installed plugin's version is unknown (see the version-pair check)");
}

void attach_node_set_devices(struct attach_node *n, enum profile_kind kind, size_t gpus)
{
	n->n_devices = 0;
	if (kind == PROFILE_NONE || !gpus || gpus + 3 > ATTACH_DEVICES_MAX)
		return;
	for (size_t i = 0; i < gpus; i++)
		snprintf(n->devices[n->n_devices++], ATTACH_DEVNAME_MAX, "/dev/nvidia%zu", i);
	snprintf(n->devices[n->n_devices++], ATTACH_DEVNAME_MAX, "/dev/nvidiactl");
	snprintf(n->devices[n->n_devices++], ATTACH_DEVNAME_MAX, "/dev/nvidia-uvm");
	/* TCPX's daemon is not given the import helper (Google's gpudirect-tcpx manifests). */
	if (kind == PROFILE_TCPXO)
		snprintf(n->devices[n->n_devices++], ATTACH_DEVNAME_MAX, "/dev/dmabuf_import_helper");
}

/* How an injector pod is doing, in a few words, into @buf. Return: whether it runs. */
static bool attach_node_injector_state(const struct pod *pod, char *buf, size_t len)
{
	const struct pod_container *c = NULL;
	struct strbuf sb = { 0 };
	char q[96], r[96];

	for (size_t i = 0; i < pod->n_containers && !c; i++)
		if (!pod->containers[i].init)
			c = &pod->containers[i];
	if (pod->phase && strcmp(pod->phase, "Running") == 0 && c && c->status.state == POD_CSTATE_RUNNING)
		return true;
	strbuf_appendf(&sb, "%s/%s: phase %s", ATTACH_INJECTOR_NS, attach_quote(pod->name, q, sizeof(q)),
		       pod->phase ? pod->phase : "unknown");
	if (!c) {
		strbuf_append(&sb, ", no container");
	} else {
		strbuf_appendf(&sb, ", container %s %s", attach_quote(c->name, q, sizeof(q)),
			       c->status.state == POD_CSTATE_WAITING ? "waiting" :
			       c->status.state == POD_CSTATE_TERMINATED ? "terminated" :
			       c->status.state == POD_CSTATE_RUNNING ? "running" : "not started");
		if (c->status.reason)
			strbuf_appendf(&sb, " (%s)", attach_quote(c->status.reason, r, sizeof(r)));
	}
	snprintf(buf, len, "%s", sb.s ? sb.s : "unknown");
	strbuf_free(&sb);
	return false;
}

static void attach_node_injector(const struct observation *o, struct attach_node *n)
{
	const struct obs_kube *k = o->kube;

	if (k->pods_fetch.state != KUBE_FETCH_OK) {
		n->injector = ATTACH_INJECTOR_UNKNOWN;
		snprintf(n->injector_found, sizeof(n->injector_found), "the pod list was not read");
		return;
	}
	n->injector = ATTACH_INJECTOR_ABSENT;
	snprintf(n->injector_found, sizeof(n->injector_found), "no pod in %s with label %s=%s on this node",
		 ATTACH_INJECTOR_NS, ATTACH_INJECTOR_LABEL, ATTACH_INJECTOR_APP);
	for (size_t i = 0; i < k->n_pods; i++) {
		const struct pod *pod = &k->pods[i];
		const char *app = obs_pod_kv(&pod->labels, ATTACH_INJECTOR_LABEL);

		if (!pod->ns || strcmp(pod->ns, ATTACH_INJECTOR_NS) != 0 || !app || strcmp(app, ATTACH_INJECTOR_APP) != 0)
			continue;
		if (!obs_pod_on_node(pod, o->node, true))
			continue;
		if (attach_node_injector_state(pod, n->injector_found, sizeof(n->injector_found))) {
			n->injector = ATTACH_INJECTOR_RUNNING;
			snprintf(n->injector_found, sizeof(n->injector_found), "%s/%s running", ATTACH_INJECTOR_NS,
				 pod->name ? pod->name : "");
			return;
		}
		n->injector = ATTACH_INJECTOR_NOT_RUNNING;
	}
}

static void attach_node_plugin_files(const struct observation *o, struct attach_node *n)
{
	const struct obs_nvpath *nv = &o->host.nvpath;

	if (nv->status.state != PROBE_OK || nv->lib64_dir != OBS_FILE_DIR)
		return;
	n->plugin_files_known = true;
	for (size_t i = 0; i < nv->n_lib64 && n->n_plugin_files < ATTACH_FILES_MAX; i++) {
		const struct obs_host_file *f = &nv->lib64[i];

		if (f->type != OBS_FILE_REGULAR || strlen(f->name) >= ATTACH_FILE_MAX)
			continue;
		for (size_t j = 0; hostfiles_plugin_lib64[j]; j++)
			if (fnmatch(hostfiles_plugin_lib64[j], f->name, 0) == 0) {
				snprintf(n->plugin_files[n->n_plugin_files++], ATTACH_FILE_MAX, "%s", f->name);
				break;
			}
	}
}

void attach_node_build(const struct observation *o, const struct profile *p, struct attach_node *ret)
{
	struct attach_node *n = ret;

	memset(n, 0, sizeof(*n));
	n->kind = p->kind;
	n->gpus = (unsigned)p->n_gpus;
	n->gpu_nics = (unsigned)p->n_nics;
	n->releases = o->kube->releases;
	attach_node_ifaces(o, p, n);
	attach_node_versions(o, p, n);
	attach_node_set_devices(n, p->kind, p->n_gpus);
	attach_node_injector(o, n);
	attach_node_plugin_files(o, n);
}
