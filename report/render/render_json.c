/* render_json.c - the JSON report of DESIGN.md (schema fabric.aicr.run/v1). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "report/render/render.h"
#include "report/render/render_mapping.h"

/* "10de:2330" into buf (10 bytes). */
static void render_pci_id(uint16_t vendor, uint16_t device, char *buf, size_t len)
{
	snprintf(buf, len, "%04x:%04x", vendor, device);
}

int render_opt(struct json *obj, const char *key, const char *s)
{
	return json_add_string(obj, key, s && *s ? s : NULL);
}

struct json *render_built(struct json *v, int r)
{
	if (r < 0) {
		json_free(v);
		return NULL;
	}
	return v;
}

static int render_numa(struct json *obj, int numa)
{
	return numa >= 0 ? json_add_int(obj, "numa", numa) : json_add_null(obj, "numa");
}

static struct json *render_gpus(const struct profile *p)
{
	struct json *arr = json_new_array();
	char id[10];
	int r = 0;

	for (size_t i = 0; arr && i < p->n_gpus; i++) {
		const struct profile_gpu *g = &p->gpus[i];
		const struct profile_nic *n = g->nic >= 0 ? &p->nics[g->nic] : NULL;
		struct json *e = json_new_object();

		render_pci_id(g->vendor, g->device, id, sizeof(id));
		r |= json_add_string(e, "pci", g->bdf);
		r |= json_add_string(e, "device", id);
		r |= render_numa(e, g->numa);
		r |= render_opt(e, "nic", n ? n->name : NULL);
		r |= json_append(arr, e);
	}
	return render_built(arr, r);
}

static struct json *render_nics(const struct profile *p)
{
	struct json *arr = json_new_array();
	char id[10];
	int r = 0;

	for (size_t i = 0; arr && i < p->n_nics; i++) {
		const struct profile_nic *n = &p->nics[i];
		struct json *e = json_new_object(), *gpus = json_new_array();

		for (size_t k = 0; gpus && k < n->n_gpus; k++)
			r |= json_append_string(gpus, p->gpus[n->gpus[k]].bdf);
		render_pci_id(n->vendor, n->device, id, sizeof(id));
		r |= render_opt(e, "name", n->name);
		r |= json_add_string(e, "pci", n->bdf);
		r |= json_add_string(e, "device", id);
		r |= render_numa(e, n->numa);
		r |= json_add_string(e, "state", nic_state_name(n->state));
		r |= n->mtu ? json_add_int(e, "mtu", n->mtu) : json_add_null(e, "mtu");
		r |= render_opt(e, "mac", n->mac);
		r |= render_opt(e, "ipv4", n->ipv4);
		r |= render_opt(e, "network", n->network);
		r |= json_add(e, "gpus", gpus);
		r |= render_opt(e, "aperture", n->aperture);
		r |= json_append(arr, e);
	}
	return render_built(arr, r);
}

static struct json *render_versions(const struct profile *p)
{
	struct json *v = json_new_object(), *d = json_new_array();
	int r = 0;

	for (size_t i = 0; d && i < p->n_daemons; i++)
		r |= json_append_string(d, p->daemons[i]);
	r |= render_opt(v, "installer", p->installer);
	r |= json_add(v, "daemons", d);
	r |= render_opt(v, "expectedDaemon", p->expected_daemon);
	return render_built(v, r);
}

/* Finding @f of id @id appended to @arr: id, status, message and, when @remedy, the remedy. */
static int render_finding(struct json *arr, const char *id, const struct finding *f, bool remedy)
{
	struct json *e = json_new_object();
	int r = json_add_string(e, "id", id);

	r |= json_add_string(e, "status", check_status_name(f->status));
	r |= json_add_string(e, "message", f->message ? f->message : "");
	if (remedy)
		r |= json_add_string(e, "remedy", f->remedy);
	return r | json_append(arr, e);
}

static struct json *render_checks(const struct profile *p)
{
	struct json *arr = json_new_array();
	int r = 0;

	for (size_t i = 0; arr && i < CHECK__COUNT; i++)
		r |= render_finding(arr, check_id_name((enum check_id)i), &p->checks[i], true);
	return render_built(arr, r);
}

static struct json *render_findings(const struct attach_result *res)
{
	struct json *arr = json_new_array();
	int r = 0;

	/* A not-fabric pod is not judged: its findings are all skips saying so; passes are left out. */
	for (size_t i = 0; arr && res->verdict != ATTACH_NOT_FABRIC && i < ATTACH__COUNT; i++)
		if (res->findings[i].status != CHECK_PASS)
			r |= render_finding(arr, attach_finding_name((enum attach_finding_id)i), &res->findings[i], false);
	return render_built(arr, r);
}

/* A pod's "transport" object: state, rails, clients, flows, evidence. */
static struct json *render_transport(const struct transport_result *t)
{
	struct json *obj = json_new_object();
	int r = 0;

	r |= json_add_string(obj, "state", transport_state_name(t->state));
	r |= json_add_int(obj, "rails", (long long)t->rails);
	r |= json_add_int(obj, "clients", (long long)t->clients);
	r |= json_add_int(obj, "flows", (long long)t->flows);
	r |= json_add_string(obj, "evidence", t->evidence);
	return render_built(obj, r);
}

static int render_workloads_members(struct json *obj, const struct workloads *w)
{
	struct json *counts = json_new_object(), *pods = json_new_array();
	int r = 0;

	for (int v = 0; counts && v < ATTACH_VERDICT__COUNT; v++)
		r |= json_add_int(counts, attach_verdict_name((enum attach_verdict)v), (long long)w->counts[v]);
	for (size_t i = 0; pods && i < w->n; i++) {
		const struct pod *pod = w->pods[i].pod;
		const struct attach_result *res = &w->pods[i].result;
		struct json *e = json_new_object();

		r |= json_add_string(e, "namespace", pod->ns);
		r |= json_add_string(e, "name", pod->name);
		r |= json_add_string(e, "uid", pod->uid);
		r |= json_add_int(e, "gpus", res->gpus);
		r |= json_add_string(e, "verdict", attach_verdict_name(res->verdict));
		r |= json_add(e, "findings", render_findings(res));
		if (w->transport_judged)
			r |= json_add(e, "transport", render_transport(&w->pods[i].transport));
		r |= json_append(pods, e);
	}
	r |= json_add(obj, "counts", counts);
	r |= json_add(obj, "pods", pods);
	return r ? -ENOMEM : 0;
}

struct json *render_workloads_value(const struct workloads *w)
{
	struct json *obj;

	if (!w || !w->judged)
		return json_new_string(NULL);
	obj = json_new_object();
	return render_built(obj, render_workloads_members(obj, w));
}

char *render_workloads_json(const struct workloads *w, const char *node)
{
	struct json *root = json_new_object();
	char *summary = render_workloads_summary(w, node);
	int r = summary ? 0 : -ENOMEM;

	r |= json_add_string(root, "schema", RENDER_SCHEMA);
	r |= render_opt(root, "node", node);
	r |= json_add_string(root, "summary", summary);
	if (w->judged)
		r |= render_workloads_members(root, w);
	free(summary);
	return render_json_take(root, r);
}

char *render_json_take(struct json *root, int rc)
{
	char *text = rc < 0 || !root ? NULL : json_print(root, true);
	char *out = text ? strbuf_printf("%s\n", text) : NULL;

	json_free(root);
	free(text);
	return out;
}

char *render_json(const struct observation *o, const struct profile *p, const struct workloads *w)
{
	struct json *root = json_new_object();
	int r = json_add_string(root, "schema", RENDER_SCHEMA);

	r |= render_opt(root, "node", o->node);
	r |= json_add_string(root, "agentVersion", TCPXO_VERSION);
	r |= render_opt(root, "machineType", obs_kube_machine_type(o->kube));
	r |= json_add_string(root, "profile", profile_kind_name(p->kind));
	r |= json_add_string(root, "runtime", profile_runtime_name(p->kind));
	r |= json_add_bool(root, "ready", p->ready);
	r |= json_add_string(root, "summary", p->summary);
	r |= json_add(root, "gpus", render_gpus(p));
	r |= json_add(root, "nics", render_nics(p));
	r |= json_add(root, "interfaces",
		      p->n_ifaces ? render_mapping_value(p->ifaces, p->n_ifaces) : json_new_string(NULL));
	r |= json_add(root, "versions", render_versions(p));
	r |= json_add(root, "checks", render_checks(p));
	r |= json_add(root, "workloads", render_workloads_value(w));
	return render_json_take(root, r);
}
