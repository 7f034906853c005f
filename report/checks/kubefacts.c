/* kubefacts.c - what the node checks read from the pod list: releases, the installer, container states. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/kubefacts.h"

#define KUBEFACTS_REASON_SHOWN 64       /* bytes of a status reason shown */

const struct releases *kubefacts_releases(const struct obs_kube *k)
{
	return k->releases ? k->releases : releases_builtin();
}

const char *kubefacts_version_of(const struct obs_kube *k, const struct kube_container *ct)
{
	const struct releases *t = kubefacts_releases(k);
	enum releases_component comp = ct->role == KUBE_IMAGE_INSTALLER ? RELEASES_INSTALLER : RELEASES_DAEMON;
	const char *v;

	if ((v = releases_tag_by_digest(t, comp, ct->image_id_digest)))
		return v;
	if ((v = releases_tag_by_digest(t, comp, ct->digest)))
		return v;
	return ct->tag;
}

enum releases_fabric kubefacts_fabric(const struct kube_container *ct, enum profile_kind node)
{
	switch (ct->fabric) {
	case KUBE_FABRIC_TCPXO: return RELEASES_FABRIC_TCPXO;
	case KUBE_FABRIC_TCPX: return RELEASES_FABRIC_TCPX;
	case KUBE_FABRIC_UNKNOWN: break;
	}
	return node == PROFILE_TCPX ? RELEASES_FABRIC_TCPX : RELEASES_FABRIC_TCPXO;
}

static int kubefacts_pod_cmp(const char *ns, const char *name, const struct pod *p)
{
	int c = strcmp(ns, p->ns ? p->ns : "");

	return c ? c : strcmp(name, p->name ? p->name : "");
}

const struct pod *kubefacts_pod(const struct obs_kube *k, const struct kube_container *ct)
{
	size_t lo = 0, hi = k->n_pods;

	/* k->pods is sorted by namespace, then name (kubeparse_pods). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = kubefacts_pod_cmp(ct->ns, ct->pod, &k->pods[mid]);

		if (c == 0)
			return &k->pods[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const struct pod_container *kubefacts_container(const struct obs_kube *k, const struct kube_container *ct)
{
	const struct pod *p = kubefacts_pod(k, ct);

	return p ? obs_pod_container(p, ct->name) : NULL;
}

const char *kubefacts_fetch_why(const struct kube_fetch *f, char *buf, size_t len)
{
	if (!f->message[0])
		return "";
	snprintf(buf, len, " (%s)", f->message);
	return buf;
}

bool kubefacts_pod_ended(const struct pod *p)
{
	return p && p->phase && (strcmp(p->phase, "Succeeded") == 0 || strcmp(p->phase, "Failed") == 0);
}

/* The installer DaemonSets: Google's gpudirect-tcpxo/ and gpudirect-tcpx/ manifests. */
static const char *const kubefacts_installer_names[] = { "nccl-tcpxo-installer", "nccl-tcpx-installer" };
static const char *const kubefacts_installer_namespaces[] = { "kube-system", "gpudirect-system" };

bool kubefacts_is_installer(const struct obs_kube *k, const struct kube_container *ct)
{
	const struct pod *p;
	const char *app;
	bool ns_ok = false, owned = false, named = false;

	if (ct->role != KUBE_IMAGE_INSTALLER || !ct->init || ct->sidecar)
		return false;
	p = kubefacts_pod(k, ct);
	if (!p || !p->ns)
		return false;
	for (size_t i = 0; i < sizeof(kubefacts_installer_namespaces) / sizeof(kubefacts_installer_namespaces[0]); i++)
		ns_ok = ns_ok || strcmp(p->ns, kubefacts_installer_namespaces[i]) == 0;
	app = obs_pod_kv(&p->labels, "k8s-app");
	for (size_t i = 0; app && i < sizeof(kubefacts_installer_names) / sizeof(kubefacts_installer_names[0]); i++)
		named = named || (strcmp(app, kubefacts_installer_names[i]) == 0 &&
				  strcmp(ct->name, kubefacts_installer_names[i]) == 0);
	for (size_t i = 0; i < p->n_owners; i++)
		owned = owned || (p->owners[i].kind && strcmp(p->owners[i].kind, "DaemonSet") == 0);
	return ns_ok && named && owned;
}

enum kubefacts_run kubefacts_run(const struct pod_container *pc)
{
	const struct pod_cstatus *st = &pc->status;

	switch (st->state) {
	case POD_CSTATE_NONE:
		return KUBEFACTS_RUN_UNKNOWN;
	case POD_CSTATE_WAITING:
		/*
		 * Waiting reasons of a container on its way up; any other reason is why it does not run.
		 * A restart backing off after a crash waits with its last exit code at hand.
		 */
		if ((!st->reason || !*st->reason || strcmp(st->reason, "ContainerCreating") == 0 ||
		     strcmp(st->reason, "PodInitializing") == 0) && !(st->has_last && st->last_exit_code != 0))
			return KUBEFACTS_RUN_STARTING;
		return KUBEFACTS_RUN_FAILED;
	case POD_CSTATE_RUNNING:
		return st->has_last && st->last_exit_code != 0 ? KUBEFACTS_RUN_FAILED : KUBEFACTS_RUN_RUNNING;
	case POD_CSTATE_TERMINATED:
		return st->exit_code == 0 ? KUBEFACTS_RUN_DONE : KUBEFACTS_RUN_FAILED;
	}
	return KUBEFACTS_RUN_UNKNOWN;
}

static int kubefacts_reason(struct strbuf *out, const char *before, const char *reason)
{
	char *r;
	int ret;

	if (!reason || !*reason)
		return 0;
	r = strbuf_printable(reason, KUBEFACTS_REASON_SHOWN);
	if (!r)
		return -ENOMEM;
	ret = strbuf_appendf(out, "%s%s", before, r);
	free(r);
	return ret;
}

int kubefacts_run_text(const struct pod_container *pc, struct strbuf *out)
{
	const struct pod_cstatus *st = &pc->status;
	int r = 0;

	switch (st->state) {
	case POD_CSTATE_NONE:
		return strbuf_append(out, "no status reported yet");
	case POD_CSTATE_WAITING:
		r = strbuf_append(out, "waiting");
		if (r == 0)
			r = kubefacts_reason(out, ": ", st->reason);
		break;
	case POD_CSTATE_RUNNING:
		r = strbuf_append(out, st->has_last && st->last_exit_code != 0 ? "running again" : "running");
		break;
	case POD_CSTATE_TERMINATED:
		r = strbuf_appendf(out, "terminated: exit code %d", st->exit_code);
		if (r == 0 && st->reason && *st->reason) {
			r = kubefacts_reason(out, " (", st->reason);
			if (r == 0)
				r = strbuf_append(out, ")");
		}
		break;
	}
	if (r == 0 && st->state != POD_CSTATE_TERMINATED && st->has_last) {
		r = strbuf_appendf(out, ", last exit code %d", st->last_exit_code);
		if (r == 0 && st->last_reason && *st->last_reason) {
			r = kubefacts_reason(out, " (", st->last_reason);
			if (r == 0)
				r = strbuf_append(out, ")");
		}
	}
	if (r == 0)
		r = strbuf_appendf(out, ", %u restart%s", st->restarts, st->restarts == 1 ? "" : "s");
	return r < 0 ? -ENOMEM : 0;
}
