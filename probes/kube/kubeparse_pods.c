/* kubeparse_pods.c - PodList JSON -> the pods of struct obs_kube and their installer/daemon containers (pure). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/imageref.h"
#include "probes/kube/kubejson.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/kube/kubepod.h"
#include "probes/model/errmsg.h"
#include "probes/model/json.h"
#include "probes/model/strbuf.h"

static int kubeparse_pod_cmp(const void *a, const void *b)
{
	const struct pod *x = a, *y = b;
	int c = strcmp(x->ns ? x->ns : "", y->ns ? y->ns : "");

	return c ? c : strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int kubeparse_container_cmp(const void *a, const void *b)
{
	const struct kube_container *x = a, *y = b;
	int c;

	if ((c = strcmp(x->ns, y->ns)) || (c = strcmp(x->pod, y->pod)))
		return c;
	if (x->init != y->init)
		return x->init ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The role of an image by its repository basename, or -1 when it is not one of ours. */
static int kubeparse_role(const char *image, struct imageref *ref)
{
	if (!image || imageref_parse(image, ref) < 0)
		return -1;
	switch (imageref_component(ref)) {
	case IMAGEREF_INSTALLER: return KUBE_IMAGE_INSTALLER;
	case IMAGEREF_DAEMON: return KUBE_IMAGE_DAEMON;
	case IMAGEREF_OTHER: break;
	}
	return -1;
}

static enum kube_fabric kubeparse_fabric(const struct imageref *ref)
{
	switch (imageref_fabric(ref)) {
	case IMAGEREF_FABRIC_TCPXO: return KUBE_FABRIC_TCPXO;
	case IMAGEREF_FABRIC_TCPX: return KUBE_FABRIC_TCPX;
	case IMAGEREF_FABRIC_UNKNOWN: break;
	}
	return KUBE_FABRIC_UNKNOWN;
}

/* A daemon's command then args, copied (kubepod bounds how many). */
static int kubeparse_argv(const struct pod_container *pc, struct kube_container *out, char *err, size_t errlen)
{
	size_t total = pc->n_command + pc->n_args;

	if (!total)
		return 0;
	out->argv = calloc(total, sizeof(*out->argv));
	if (!out->argv)
		goto oom;
	for (size_t i = 0; i < total; i++) {
		const char *s = i < pc->n_command ? pc->command[i] : pc->args[i - pc->n_command];

		if (!(out->argv[out->argc] = strdup(s)))
			goto oom;
		out->argc++;
	}
	return 0;
oom:
	return errmsg_set(err, errlen, -ENOMEM, "pods: out of memory");
}

/* The installer and daemon containers of every pod, as the node checks read them. */
static int kubeparse_pods_containers(const struct pod *pods, size_t n_pods, struct obs_kube *k, char *err,
				     size_t errlen)
{
	struct kube_container *v = NULL;
	size_t n = 0, cap = 0;
	int r = 0;

	for (size_t pi = 0; pi < n_pods; pi++) {
		const struct pod *p = &pods[pi];

		for (size_t ci = 0; ci < p->n_containers; ci++) {
			const struct pod_container *pc = &p->containers[ci];
			struct kube_container *out;
			struct imageref ref;
			int role = kubeparse_role(pc->image, &ref);

			if (role < 0 || strlen(pc->image) >= KUBE_IMAGE_MAX)
				continue;
			if (n >= KUBE_CONTAINERS_MAX) {
				r = errmsg_set(err, errlen, -EINVAL, "pods: more than %d installer or daemon containers",
					       KUBE_CONTAINERS_MAX);
				goto out;
			}
			if (strbuf_grow_array(&v, &cap, n, sizeof(*v), 4) < 0) {
				r = errmsg_set(err, errlen, -ENOMEM, "pods: out of memory");
				goto out;
			}
			out = &v[n++];
			memset(out, 0, sizeof(*out));
			out->role = (enum kube_image_role)role;
			out->fabric = kubeparse_fabric(&ref);
			snprintf(out->pod, sizeof(out->pod), "%s", p->name ? p->name : "");
			snprintf(out->ns, sizeof(out->ns), "%s", p->ns ? p->ns : "");
			snprintf(out->name, sizeof(out->name), "%s", pc->name);
			out->init = pc->init;
			out->sidecar = pc->sidecar;
			out->running = pc->status.state == POD_CSTATE_RUNNING;
			snprintf(out->image, sizeof(out->image), "%s", pc->image);
			snprintf(out->tag, sizeof(out->tag), "%s", ref.tag);
			snprintf(out->digest, sizeof(out->digest), "%s", ref.digest);
			/* An imageID without a repository digest (or a malformed one) tells nothing. */
			if (!pc->status.image_id ||
			    imageref_digest_of(pc->status.image_id, out->image_id_digest, sizeof(out->image_id_digest)) < 0)
				out->image_id_digest[0] = '\0';
			if (out->role == KUBE_IMAGE_DAEMON && (r = kubeparse_argv(pc, out, err, errlen)) < 0)
				goto out;
		}
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), kubeparse_container_cmp);
	k->containers = v;
	k->n_containers = n;
	return 0;
out:
	for (size_t i = 0; i < n; i++)
		obs_kube_container_clear(&v[i]);
	free(v);
	return r;
}

/* Whether a container may request GPUs: an nvidia.com/gpu key under its resources, or resources not walkable. */
static bool kubeparse_maybe_gpus(const struct json *c)
{
	static const char *const keys[] = { "limits", "requests" };
	const struct json *res = json_get(c, "resources");

	if (!res || json_type(res) == JSON_NULL)
		return false;
	if (json_type(res) != JSON_OBJECT)
		return true;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct json *m = json_get(res, keys[i]), *q = json_get(m, "nvidia.com/gpu");

		if ((m && json_type(m) != JSON_OBJECT && json_type(m) != JSON_NULL) || (q && json_type(q) != JSON_NULL))
			return true;
	}
	return false;
}

/*
 * What a pod the parser refused may be, for the checks that name it: *@ours, it may run one of
 * our images (an image under its spec that is ours); *@gpu, it may be a GPU pod (an nvidia.com/gpu
 * request under it). A pod that has ended (phase Succeeded or Failed) runs nothing: neither; a
 * spec that cannot be walked may be both (nothing says it is not).
 */
static void kubeparse_maybe(const struct json *item, bool *ours, bool *gpu)
{
	static const char *const keys[] = { "initContainers", "containers" };
	const struct json *spec = json_get(item, "spec");
	const char *phase = json_get_string(json_get(item, "status"), "phase");
	struct imageref ref;

	*ours = *gpu = false;
	if (phase && (strcmp(phase, "Succeeded") == 0 || strcmp(phase, "Failed") == 0))
		return;
	*ours = *gpu = true;
	if (json_type(spec) != JSON_OBJECT)
		return;
	*ours = *gpu = false;
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct json *list = json_get(spec, keys[i]);

		if (!list || json_type(list) == JSON_NULL)
			continue;
		if (json_type(list) != JSON_ARRAY) {
			*ours = *gpu = true;
			return;
		}
		for (const struct json *c = json_first(list); c; c = json_next(c)) {
			const struct json *image = json_get(c, "image");
			const char *s = json_string(image);

			if (json_type(c) != JSON_OBJECT || (image && !s && json_type(image) != JSON_NULL)) {
				*ours = *gpu = true;
				return;
			}
			if (s && strnlen(s, KUBE_IMAGE_MAX) < KUBE_IMAGE_MAX && kubeparse_role(s, &ref) >= 0)
				*ours = true;
			if (kubeparse_maybe_gpus(c))
				*gpu = true;
		}
	}
}

/* Set item @i aside: named, why, whether it may be ours. Those that may be ours take a place first. */
static void kubeparse_aside(struct obs_kube *k, const struct json *item, size_t i, const char *why)
{
	const struct json *meta = json_get(item, "metadata");
	struct kube_pod_aside *a;
	bool ours, gpu;

	kubeparse_maybe(item, &ours, &gpu);
	k->n_aside_gpu += gpu;
	if (k->n_aside < KUBE_ASIDE_NAMED)
		a = &k->aside[k->n_aside];
	else if (ours && !obs_kube_aside_ours(k))
		a = &k->aside[KUBE_ASIDE_NAMED - 1];
	else
		a = NULL;
	k->n_aside++;
	if (!a)
		return;
	memset(a, 0, sizeof(*a));
	strbuf_printable_into(a->ns, sizeof(a->ns), json_get_string(meta, "namespace"));
	strbuf_printable_into(a->name, sizeof(a->name), json_get_string(meta, "name"));
	a->item = i;
	a->ours = ours;
	a->gpu = gpu;
	snprintf(a->why, sizeof(a->why), "%s", why);
}

int kubeparse_pod_items(const struct json *const *items, size_t n_items, struct obs_kube *k, char *err, size_t errlen)
{
	struct obs_kube fresh = { 0 };
	struct pod *pods = NULL;
	size_t n = 0;
	int r;

	if (n_items > KUBEPARSE_PODS_MAX)
		return errmsg_set(err, errlen, -EINVAL, "items: more than %d pods", KUBEPARSE_PODS_MAX);
	if (n_items && !(pods = calloc(n_items, sizeof(*pods))))
		return errmsg_set(err, errlen, -ENOMEM, "pods: out of memory");
	for (size_t i = 0; i < n_items; i++) {
		char where[32], why[256];

		snprintf(where, sizeof(where), "items[%zu]", i);
		r = kubepod_parse(items[i], where, &pods[n], why, sizeof(why));
		if (r == -ENOMEM) {
			errmsg_set(err, errlen, r, "pods: out of memory");
			goto out;
		}
		/* One pod that cannot be read is set aside and named: the others are still the node's. */
		if (r < 0)
			kubeparse_aside(&fresh, items[i], i, why);
		else
			n++;
	}
	if (n > 1)
		qsort(pods, n, sizeof(*pods), kubeparse_pod_cmp);
	r = kubeparse_pods_containers(pods, n, &fresh, err, errlen);
	if (r < 0)
		goto out;
	obs_kube_free_pods(k);
	k->pods = pods;
	k->n_pods = n;
	k->containers = fresh.containers;
	k->n_containers = fresh.n_containers;
	memcpy(k->aside, fresh.aside, sizeof(k->aside));
	k->n_aside = fresh.n_aside;
	k->n_aside_gpu = fresh.n_aside_gpu;
	return 0;
out:
	obs_pods_free(pods, n);
	return r;
}

int kubeparse_pods(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen)
{
	/* `kubectl get pods -o json` says "List": its items are the same Pods. */
	static const char *const kinds[] = { "PodList", "List", NULL };

	return kubeparse_list(body, len, "pods", kinds, kubeparse_pod_items, k, err, errlen);
}
