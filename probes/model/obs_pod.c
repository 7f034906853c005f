/* obs_pod.c - lifetime and lookups of the pod model. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/obs_pod.h"
#include "probes/model/obs_transport.h"
#include "probes/model/strbuf.h"

const void *obs_find(const void *v, size_t n, size_t size, size_t off, bool ptr, const char *name)
{
	if (!name || !*name)
		return NULL;
	for (const char *e = v; n > 0; n--, e += size) {
		const char *s = ptr ? *(const char *const *)(e + off) : e + off;

		if (s && strcmp(s, name) == 0)
			return e;
	}
	return NULL;
}

static void obs_pod_kvs_free(struct pod_kvs *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->v[i].key);
		free(kv->v[i].value);
	}
	free(kv->v);
	kv->v = NULL;
	kv->n = 0;
}

static void obs_pod_container_free(struct pod_container *c)
{
	free(c->name);
	free(c->image);
	strbuf_strv_free(c->command, c->n_command);
	strbuf_strv_free(c->args, c->n_args);
	obs_pod_kvs_free(&c->env);
	for (size_t i = 0; i < c->n_mounts; i++) {
		free(c->mounts[i].name);
		free(c->mounts[i].path);
	}
	free(c->mounts);
	strbuf_strv_free(c->cap_add, c->n_cap_add);
	free(c->status.reason);
	free(c->status.last_reason);
	free(c->status.image_id);
	free(c->status.container_id);
}

void obs_pod_free(struct pod *p)
{
	if (!p)
		return;
	free(p->ns);
	free(p->name);
	free(p->uid);
	free(p->phase);
	free(p->node_name);
	obs_pod_kvs_free(&p->labels);
	obs_pod_kvs_free(&p->annotations);
	obs_pod_kvs_free(&p->node_selector);
	for (size_t i = 0; i < p->n_owners; i++) {
		free(p->owners[i].kind);
		free(p->owners[i].name);
	}
	free(p->owners);
	for (size_t i = 0; i < p->n_containers; i++)
		obs_pod_container_free(&p->containers[i]);
	free(p->containers);
	for (size_t i = 0; i < p->n_volumes; i++) {
		free(p->volumes[i].name);
		free(p->volumes[i].host_path);
		free(p->volumes[i].medium);
	}
	free(p->volumes);
	for (size_t i = 0; i < p->n_claims; i++) {
		free(p->claims[i].name);
		free(p->claims[i].template_name);
		free(p->claims[i].claim_name);
	}
	free(p->claims);
	for (size_t i = 0; i < p->n_tolerations; i++) {
		free(p->tolerations[i].key);
		free(p->tolerations[i].op);
		free(p->tolerations[i].value);
		free(p->tolerations[i].effect);
	}
	free(p->tolerations);
	for (size_t i = 0; i < p->n_affinity; i++) {
		free(p->affinity[i].key);
		free(p->affinity[i].op);
		strbuf_strv_free(p->affinity[i].values, p->affinity[i].n_values);
	}
	free(p->affinity);
	memset(p, 0, sizeof(*p));
}

void obs_pods_free(struct pod *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		obs_pod_free(&v[i]);
	free(v);
}

static const struct pod_kv *obs_pod_kv_of(const struct pod_kvs *kv, const char *key)
{
	return obs_find(kv->v, kv->n, sizeof(*kv->v), offsetof(struct pod_kv, key), true, key);
}

const char *obs_pod_kv(const struct pod_kvs *kv, const char *key)
{
	const struct pod_kv *e = obs_pod_kv_of(kv, key);

	return e ? e->value : NULL;
}

bool obs_pod_has_kv(const struct pod_kvs *kv, const char *key)
{
	return obs_pod_kv_of(kv, key) != NULL;
}

const char *obs_pod_env(const struct pod_container *c, const char *name, bool *ret_set)
{
	const char *value = NULL;
	bool set = false;

	for (size_t i = 0; i < c->env.n; i++)
		if (strcmp(c->env.v[i].key, name) == 0) {
			set = true;
			value = c->env.v[i].value;
		}
	if (ret_set)
		*ret_set = set;
	return value;
}

const struct pod_volume *obs_pod_volume(const struct pod *p, const char *name)
{
	return obs_find(p->volumes, p->n_volumes, sizeof(*p->volumes), offsetof(struct pod_volume, name), true, name);
}

const struct pod_container *obs_pod_container(const struct pod *p, const char *name)
{
	return obs_find(p->containers, p->n_containers, sizeof(*p->containers), offsetof(struct pod_container, name),
			true, name);
}

const struct pod_mount *obs_pod_mount_at(const struct pod_container *c, const char *path)
{
	return obs_find(c->mounts, c->n_mounts, sizeof(*c->mounts), offsetof(struct pod_mount, path), true, path);
}

/* Equal paths, ignoring trailing slashes ("/sys/" is "/sys"). */
static bool obs_pod_path_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);

	while (la > 1 && a[la - 1] == '/')
		la--;
	while (lb > 1 && b[lb - 1] == '/')
		lb--;
	return la == lb && memcmp(a, b, la) == 0;
}

const struct pod_mount *obs_pod_mount_of_host(const struct pod *p, const struct pod_container *c,
					      const char *host_path)
{
	for (size_t i = 0; i < c->n_mounts; i++) {
		const struct pod_volume *v = c->mounts[i].name ? obs_pod_volume(p, c->mounts[i].name) : NULL;

		if (v && v->host_path && obs_pod_path_equal(v->host_path, host_path))
			return &c->mounts[i];
	}
	return NULL;
}

bool obs_pod_has_cap(const struct pod_container *c, const char *cap)
{
	for (size_t i = 0; i < c->n_cap_add; i++) {
		const char *s = c->cap_add[i];

		if (strncmp(s, "CAP_", 4) == 0)
			s += 4;
		if (strcmp(s, cap) == 0)
			return true;
	}
	return false;
}

long long obs_pod_container_gpus(const struct pod_container *c)
{
	if (c->gpu_request != POD_GPUS_ABSENT)
		return c->gpu_request;
	if (c->gpu_limit != POD_GPUS_ABSENT)
		return c->gpu_limit;
	return 0;
}

long long obs_pod_gpus(const struct pod *p)
{
	long long regular = 0, sidecars = 0, init_max = 0;

	for (size_t i = 0; i < p->n_containers; i++) {
		const struct pod_container *c = &p->containers[i];
		long long g = obs_pod_container_gpus(c);

		if (!c->init) {
			regular += g;
		} else if (c->sidecar) {
			sidecars += g;
		} else if (g + sidecars > init_max) {
			init_max = g + sidecars;       /* runs beside the sidecars started before it */
		}
	}
	return regular + sidecars > init_max ? regular + sidecars : init_max;
}

bool obs_pod_active(const struct pod *p, bool running)
{
	return p->phase && (strcmp(p->phase, "Running") == 0 || (!running && strcmp(p->phase, "Pending") == 0));
}

bool obs_pod_on_node(const struct pod *p, const char *node, bool unbound)
{
	if (!p->node_name || !p->node_name[0])
		return unbound;
	return !node || !node[0] || strcmp(p->node_name, node) == 0;
}

/*
 * obs_pod_gpu_on_node() - "a GPU pod on this node", decided here only: Pending or Running
 * (@running: Running only), at least one GPU (obs_pod_gpus()), bound to @node (NULL or "": any).
 */
static bool obs_pod_gpu_on_node(const struct pod *p, const char *node, bool running)
{
	return obs_pod_active(p, running) && obs_pod_gpus(p) >= 1 && obs_pod_on_node(p, node, false);
}

bool obs_transport_wants(const struct pod *p, const char *node)
{
	if (!obs_pod_gpu_on_node(p, node, true) || p->host_network)
		return false;
	return p->uid && p->uid[0] && strlen(p->uid) < OBS_TRANSPORT_UID_MAX;  /* the sample finds a pod by its uid */
}
