/* kubeparse_pods.c - PodList JSON -> the installer and daemon containers of struct obs_kube (pure, bounded). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/imageref.h"
#include "probes/kube/kubejson.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/model/json.h"

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

static int kubeparse_args(const struct json *c, struct kube_container *out, const char *where,
			  char *err, size_t errlen)
{
	static const char *const keys[] = { "command", "args" };
	const struct json *arr[2];
	size_t total = 0;

	for (int i = 0; i < 2; i++) {
		if (kubejson_opt(c, keys[i], JSON_ARRAY, &arr[i], where, err, errlen) < 0)
			return -EINVAL;
		total += json_size(arr[i]);
	}
	if (total > KUBE_ARGS_MAX) {
		kubejson_err(err, errlen, "%s: %zu command and args entries, at most %d are read", where,
			      total, KUBE_ARGS_MAX);
		return -EINVAL;
	}
	if (!total)
		return 0;
	out->argv = calloc(total, sizeof(*out->argv));
	if (!out->argv) {
		kubejson_err(err, errlen, "pods: out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < 2; i++) {
		size_t j = 0;

		for (const struct json *e = json_first(arr[i]); e; e = json_next(e), j++) {
			const char *s = json_string(e);

			if (!s) {
				kubejson_err(err, errlen, "%s.%s[%zu]: expected a string, got %s", where, keys[i], j,
					      kubejson_tname(e));
				return -EINVAL;
			}
			if (strnlen(s, KUBE_ARG_LEN) >= KUBE_ARG_LEN) {
				kubejson_err(err, errlen, "%s.%s[%zu]: longer than %d characters", where, keys[i], j,
					      KUBE_ARG_LEN - 1);
				return -EINVAL;
			}
			out->argv[out->argc] = strdup(s);
			if (!out->argv[out->argc]) {
				kubejson_err(err, errlen, "pods: out of memory");
				return -ENOMEM;
			}
			out->argc++;
		}
	}
	return 0;
}

/* The status entry named @name in @statuses (an array or NULL). */
static const struct json *kubeparse_status_of(const struct json *statuses, const char *name)
{
	for (const struct json *s = json_first(statuses); s; s = json_next(s)) {
		const char *sn = json_get_string(s, "name");

		if (sn && strcmp(sn, name) == 0)
			return s;
	}
	return NULL;
}

struct kubeparse_pods_acc {
	struct kube_container *v;
	size_t n, cap;
};

static int kubeparse_pod_containers(const struct json *pod, size_t pi, bool init,
				    const char *pod_name, const char *ns,
				    struct kubeparse_pods_acc *acc, char *err, size_t errlen)
{
	const char *list_key = init ? "initContainers" : "containers";
	const char *status_key = init ? "initContainerStatuses" : "containerStatuses";
	const struct json *spec = json_get(pod, "spec"), *status = json_get(pod, "status");
	const struct json *list, *statuses;
	char where[192];
	size_t ci = 0;
	int r;

	snprintf(where, sizeof(where), "items[%zu].spec", pi);
	if (kubejson_opt(spec, list_key, JSON_ARRAY, &list, where, err, errlen) < 0)
		return -EINVAL;
	snprintf(where, sizeof(where), "items[%zu].status", pi);
	if (kubejson_opt(status, status_key, JSON_ARRAY, &statuses, where, err, errlen) < 0)
		return -EINVAL;
	if (json_size(list) > KUBEPARSE_POD_CONTAINERS_MAX) {
		kubejson_err(err, errlen, "items[%zu].spec.%s: more than %d entries", pi, list_key,
			      KUBEPARSE_POD_CONTAINERS_MAX);
		return -EINVAL;
	}
	for (const struct json *c = json_first(list); c; c = json_next(c), ci++) {
		struct kube_container out = { 0 };
		const struct json *st, *state;
		char image[KUBE_IMAGE_MAX], policy[16], image_id[KUBE_IMAGE_MAX];
		struct imageref ref;
		const char *base;

		snprintf(where, sizeof(where), "items[%zu].spec.%s[%zu]", pi, list_key, ci);
		if (json_type(c) != JSON_OBJECT) {
			kubejson_err(err, errlen, "%s: expected an object, got %s", where, kubejson_tname(c));
			return -EINVAL;
		}
		/* Images of other containers are not ours: only their type matters. */
		if (json_get(c, "image") && !json_get_string(c, "image")) {
			kubejson_err(err, errlen, "%s.image: expected a string, got %s", where,
				      kubejson_tname(json_get(c, "image")));
			return -EINVAL;
		}
		{
			const char *img = json_get_string(c, "image");

			if (!img || strnlen(img, sizeof(image)) >= sizeof(image) || imageref_parse(img, &ref) < 0)
				continue;
			strcpy(image, img);
		}
		base = imageref_basename(&ref);
		if (strcmp(base, KUBEPARSE_INSTALLER_REPO) == 0)
			out.role = KUBE_IMAGE_INSTALLER;
		else if (strcmp(base, KUBEPARSE_DAEMON_REPO) == 0)
			out.role = KUBE_IMAGE_DAEMON;
		else
			continue;

		if (acc->n >= KUBE_CONTAINERS_MAX) {
			kubejson_err(err, errlen, "pods: more than %d installer or daemon containers", KUBE_CONTAINERS_MAX);
			return -EINVAL;
		}
		if (acc->n == acc->cap) {
			size_t cap = acc->cap ? acc->cap * 2 : 4;
			struct kube_container *v = realloc(acc->v, cap * sizeof(*v));

			if (!v) {
				kubejson_err(err, errlen, "pods: out of memory");
				return -ENOMEM;
			}
			acc->v = v;
			acc->cap = cap;
		}
		if (kubejson_str(c, "name", out.name, sizeof(out.name), where, err, errlen) < 0 ||
		    kubejson_str(c, "restartPolicy", policy, sizeof(policy), where, err, errlen) < 0)
			return -EINVAL;
		if (!out.name[0]) {
			kubejson_err(err, errlen, "%s.name: missing", where);
			return -EINVAL;
		}
		snprintf(out.pod, sizeof(out.pod), "%s", pod_name);
		snprintf(out.ns, sizeof(out.ns), "%s", ns);
		out.init = init;
		out.sidecar = init && strcmp(policy, "Always") == 0;
		snprintf(out.image, sizeof(out.image), "%s", image);
		snprintf(out.tag, sizeof(out.tag), "%s", ref.tag);
		snprintf(out.digest, sizeof(out.digest), "%s", ref.digest);

		st = kubeparse_status_of(statuses, out.name);
		if (st) {
			snprintf(where, sizeof(where), "items[%zu].status.%s[%s]", pi, status_key, out.name);
			if (json_type(st) != JSON_OBJECT ||
			    kubejson_str(st, "imageID", image_id, sizeof(image_id), where, err, errlen) < 0 ||
			    kubejson_opt(st, "state", JSON_OBJECT, &state, where, err, errlen) < 0) {
				if (json_type(st) != JSON_OBJECT)
					kubejson_err(err, errlen, "%s: expected an object", where);
				return -EINVAL;
			}
			out.running = json_type(json_get(state, "running")) == JSON_OBJECT;
			/* An imageID without a repository digest (or a malformed one) tells nothing. */
			if (imageref_digest_of(image_id, out.image_id_digest, sizeof(out.image_id_digest)) < 0)
				out.image_id_digest[0] = '\0';
		}
		if (out.role == KUBE_IMAGE_DAEMON) {
			snprintf(where, sizeof(where), "items[%zu].spec.%s[%zu]", pi, list_key, ci);
			r = kubeparse_args(c, &out, where, err, errlen);
			if (r < 0) {
				obs_kube_container_clear(&out);
				return r;
			}
		}
		acc->v[acc->n++] = out;
	}
	return 0;
}

int kubeparse_pods(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen)
{
	struct kubeparse_pods_acc acc = { 0 };
	const struct json *items;
	struct json *root = NULL;
	const char *kind;
	size_t pi = 0;
	int r;

	r = json_parse(body, len, &root);
	if (r < 0) {
		kubejson_err(err, errlen, r == -ENOMEM ? "pods: out of memory" : "pods: not valid JSON");
		return r;
	}
	r = -EINVAL;
	if (json_type(root) != JSON_OBJECT) {
		kubejson_err(err, errlen, "pods: expected an object, got %s", kubejson_tname(root));
		goto out;
	}
	kind = json_get_string(root, "kind");
	if (json_get(root, "kind") && (!kind || strcmp(kind, "PodList") != 0)) {
		kubejson_err(err, errlen, "kind: expected \"PodList\", got %.32s",
			      kind ? kind : kubejson_tname(json_get(root, "kind")));
		goto out;
	}
	if (kubejson_opt(root, "items", JSON_ARRAY, &items, "", err, errlen) < 0)
		goto out;
	if (json_size(items) > KUBEPARSE_PODS_MAX) {
		kubejson_err(err, errlen, "items: more than %d pods", KUBEPARSE_PODS_MAX);
		goto out;
	}
	for (const struct json *pod = json_first(items); pod; pod = json_next(pod), pi++) {
		const struct json *meta, *tmp;
		char where[48], name[KUBE_NAME_MAX], ns[KUBE_CNAME_MAX];

		snprintf(where, sizeof(where), "items[%zu]", pi);
		if (json_type(pod) != JSON_OBJECT) {
			kubejson_err(err, errlen, "%s: expected an object, got %s", where, kubejson_tname(pod));
			goto out;
		}
		if (kubejson_opt(pod, "metadata", JSON_OBJECT, &meta, where, err, errlen) < 0 ||
		    kubejson_opt(pod, "spec", JSON_OBJECT, &tmp, where, err, errlen) < 0 ||
		    kubejson_opt(pod, "status", JSON_OBJECT, &tmp, where, err, errlen) < 0)
			goto out;
		snprintf(where, sizeof(where), "items[%zu].metadata", pi);
		if (kubejson_str(meta, "name", name, sizeof(name), where, err, errlen) < 0 ||
		    kubejson_str(meta, "namespace", ns, sizeof(ns), where, err, errlen) < 0)
			goto out;
		r = kubeparse_pod_containers(pod, pi, true, name, ns, &acc, err, errlen);
		if (r == 0)
			r = kubeparse_pod_containers(pod, pi, false, name, ns, &acc, err, errlen);
		if (r < 0)
			goto out;
		r = -EINVAL;
	}
	if (acc.n > 1)
		qsort(acc.v, acc.n, sizeof(*acc.v), kubeparse_container_cmp);
	obs_kube_free_pods(k);
	k->containers = acc.v;
	k->n_containers = acc.n;
	acc.v = NULL;
	acc.n = 0;
	r = 0;
out:
	for (size_t i = 0; i < acc.n; i++)
		obs_kube_container_clear(&acc.v[i]);
	free(acc.v);
	json_free(root);
	return r;
}
