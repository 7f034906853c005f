/* fleetbuild.h - NodeLists of a fleet whose agents published their facts, built in memory for unit tests. */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"

#define FB_P "fabric.aicr.run/"

/* One node; NULL members are left out of the Node. */
struct fb_node {
	const char *name;
	const char *profile, *ready, *interfaces, *attachment;  /* our annotations */
	const char *itype, *accel, *pool;                       /* labels */
	const char *taint_key, *taint_value, *taint_effect;     /* one spec.taints entry */
	const char *cond_status, *heartbeat;    /* our condition FabricReady after the kubelet's Ready (status NULL: none) */
};

/* eth1..eth8 on a3pool-gpu-nic-1..8, with one interface's Network replaced (@swap_if NULL: none). */
static inline char *fb_mapping(const char *swap_if, const char *swap_net)
{
	struct strbuf sb = { 0 };

	strbuf_append(&sb, "[");
	for (int k = 1; k <= 8; k++) {
		char name[8];

		snprintf(name, sizeof(name), "eth%d", k);
		if (swap_if && strcmp(swap_if, name) == 0)
			strbuf_appendf(&sb, "%s{\"interfaceName\":\"%s\",\"network\":\"%s\"}", k > 1 ? "," : "", name, swap_net);
		else
			strbuf_appendf(&sb, "%s{\"interfaceName\":\"%s\",\"network\":\"a3pool-gpu-nic-%d\"}", k > 1 ? "," : "",
				       name, k);
	}
	strbuf_append(&sb, "]");
	return strbuf_take(&sb);
}

/* An attachment annotation: versions and @gpus GPU<->NIC pairs over @nics NICs (@gpus < 0: no pairs). */
static inline char *fb_attachment(const char *installer, const char *expected, int gpus, int nics)
{
	struct strbuf sb = { 0 };

	strbuf_append(&sb, "{\"schema\":\"fabric.aicr.run/v1\",\"agentVersion\":\"0.1.0\",\"changedAt\":\"2026-11-30T09:12:44Z\","
		      "\"versions\":{");
	strbuf_appendf(&sb, installer ? "\"installer\":\"%s\"," : "\"installer\":null,", installer);
	strbuf_appendf(&sb, expected ? "\"expectedDaemon\":\"%s\"}" : "\"expectedDaemon\":null}", expected);
	if (gpus >= 0) {
		strbuf_append(&sb, ",\"pairs\":[");
		for (int i = 0; i < gpus; i++)
			strbuf_appendf(&sb, "%s{\"gpu\":\"0000:%02x:00.0\",\"nic\":\"eth%d\",\"nicPci\":null}", i ? "," : "",
				       4 + i, nics ? i / (gpus / nics ? gpus / nics : 1) + 1 : 1);
		strbuf_append(&sb, "]");
	}
	strbuf_append(&sb, ",\"checks\":[]}");
	return strbuf_take(&sb);
}

static inline void fb_add(struct json *obj, const char *key, const char *v)
{
	if (v)
		json_add_string(obj, key, v);
}

/* The NodeList text (kubectl get nodes -o json) of @n nodes; caller frees. */
static inline char *fb_list(const struct fb_node *v, size_t n)
{
	struct json *l = json_new_object(), *items = json_new_array();
	char *s;

	json_add_string(l, "apiVersion", "v1");
	json_add_string(l, "kind", "List");
	for (size_t i = 0; i < n; i++) {
		struct json *node = json_new_object(), *meta = json_new_object(), *labels = json_new_object();
		struct json *ann = json_new_object(), *spec = json_new_object();

		json_add_string(node, "kind", "Node");
		json_add_string(meta, "name", v[i].name);
		fb_add(labels, "node.kubernetes.io/instance-type", v[i].itype);
		fb_add(labels, "cloud.google.com/gke-accelerator", v[i].accel);
		fb_add(labels, "cloud.google.com/gke-nodepool", v[i].pool);
		fb_add(ann, FB_P "profile", v[i].profile);
		fb_add(ann, FB_P "ready", v[i].ready);
		fb_add(ann, FB_P "interfaces", v[i].interfaces);
		fb_add(ann, FB_P "attachment", v[i].attachment);
		json_add(meta, "labels", labels);
		json_add(meta, "annotations", ann);
		json_add(node, "metadata", meta);
		if (v[i].taint_effect) {
			struct json *taints = json_new_array(), *t = json_new_object();

			fb_add(t, "key", v[i].taint_key);
			fb_add(t, "value", v[i].taint_value);
			fb_add(t, "effect", v[i].taint_effect);
			json_append(taints, t);
			json_add(spec, "taints", taints);
		}
		json_add(node, "spec", spec);
		if (v[i].cond_status) {
			struct json *st = json_new_object(), *conds = json_new_array(), *ready = json_new_object();
			struct json *ours = json_new_object();

			json_add_string(ready, "type", "Ready");
			json_add_string(ready, "status", "True");
			json_append(conds, ready);
			json_add_string(ours, "type", "FabricReady");
			json_add_string(ours, "status", v[i].cond_status);
			fb_add(ours, "lastHeartbeatTime", v[i].heartbeat);
			fb_add(ours, "lastTransitionTime", v[i].heartbeat);
			json_append(conds, ours);
			json_add(st, "conditions", conds);
			json_add(node, "status", st);
		}
		json_append(items, node);
	}
	json_add(l, "items", items);
	s = json_print(l, false);
	json_free(l);
	return s;
}

/* A TCPXO node of the a3pool fleet as its agent publishes it: ready, the mapping, v1.0.15, 8 GPUs, GKE's GPU taint. */
static inline struct fb_node fb_tcpxo(const char *name, const char *interfaces, const char *attachment)
{
	return (struct fb_node){ .name = name, .profile = "tcpxo", .ready = "true", .interfaces = interfaces,
				 .attachment = attachment, .itype = "a3-megagpu-8g", .accel = "nvidia-h100-mega-80gb",
				 .pool = "a3pool", .taint_key = "nvidia.com/gpu", .taint_value = "present",
				 .taint_effect = "NoSchedule" };
}
