/* obs_kube.c - lifetime and lookups of the API part of the observation. */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/obs_kube.h"
#include "probes/model/strbuf.h"

void obs_kube_container_clear(struct kube_container *c)
{
	if (!c)
		return;
	strbuf_strv_free(c->argv, c->argc);
	c->argv = NULL;
	c->argc = 0;
}

void obs_kube_free_node(struct obs_kube *k)
{
	free(k->nics);
	k->nics = NULL;
	k->n_nics = 0;
	free(k->north);
	k->north = NULL;
	k->n_north = 0;
	obs_kube_ann_clear(k->ours, KUBE_ANN__COUNT);
	obs_kube_ann_clear(k->labels, KUBE_LABEL__COUNT);
	obs_kube_condition_clear(&k->condition);
	k->node_uid[0] = '\0';
}

void obs_kube_ann_clear(struct kube_annotation *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].value);
		a[i] = (struct kube_annotation){ 0 };
	}
}

int obs_kube_ann_copy(struct kube_annotation *dst, const struct kube_annotation *src, size_t n)
{
	obs_kube_ann_clear(dst, n);
	for (size_t i = 0; i < n; i++) {
		dst[i].present = src[i].present;
		if (src[i].value && !(dst[i].value = strdup(src[i].value))) {
			obs_kube_ann_clear(dst, n);
			return -ENOMEM;
		}
	}
	return 0;
}

void obs_kube_condition_clear(struct kube_condition *c)
{
	free(c->message);
	memset(c, 0, sizeof(*c));
}

void obs_kube_free_pods(struct obs_kube *k)
{
	obs_pods_free(k->pods, k->n_pods);
	k->pods = NULL;
	k->n_pods = 0;
	for (size_t i = 0; i < k->n_containers; i++)
		obs_kube_container_clear(&k->containers[i]);
	free(k->containers);
	k->containers = NULL;
	k->n_containers = 0;
	k->n_aside = 0;
	k->n_aside_gpu = 0;
}

const struct kube_pod_aside *obs_kube_aside_ours(const struct obs_kube *k)
{
	size_t n = k->n_aside < KUBE_ASIDE_NAMED ? k->n_aside : KUBE_ASIDE_NAMED;

	for (size_t i = 0; i < n; i++)
		if (k->aside[i].ours)
			return &k->aside[i];
	return NULL;
}

void obs_kube_free_networks(struct obs_kube *k)
{
	free(k->networks);
	k->networks = NULL;
	k->n_networks = 0;
}

void kube_slices_free(struct kube_slice *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].devices);
	free(v);
}

void obs_kube_free_slices(struct obs_kube *k)
{
	kube_slices_free(k->slices, k->n_slices);
	k->slices = NULL;
	k->n_slices = 0;
}

void obs_kube_free(struct obs_kube *k)
{
	if (!k)
		return;
	obs_kube_free_node(k);
	obs_kube_free_pods(k);
	obs_kube_free_networks(k);
	obs_kube_free_slices(k);
}

const struct kube_nic *obs_kube_nic_by_bdf(const struct obs_kube *k, const char *bdf)
{
	return obs_find(k->nics, k->n_nics, sizeof(*k->nics), offsetof(struct kube_nic, bdf), false, bdf);
}

const struct kube_network *obs_kube_network(const struct obs_kube *k, const char *name)
{
	return obs_find(k->networks, k->n_networks, sizeof(*k->networks), offsetof(struct kube_network, name), false,
			name);
}

const char *obs_kube_ann_name(enum kube_ann_key key)
{
	switch (key) {
	case KUBE_ANN_PROFILE: return "profile";
	case KUBE_ANN_RUNTIME: return "runtime";
	case KUBE_ANN_READY: return "ready";
	case KUBE_ANN_INTERFACES: return "interfaces";
	case KUBE_ANN_ATTACHMENT: return "attachment";
	case KUBE_ANN__COUNT: break;
	}
	return NULL;
}

const char *obs_kube_label_name(enum kube_label_key key)
{
	switch (key) {
	case KUBE_LABEL_PROFILE: return "profile";
	case KUBE_LABEL_READY: return "ready";
	case KUBE_LABEL__COUNT: break;
	}
	return NULL;
}

const char *obs_kube_machine_type(const struct obs_kube *k)
{
	return k && k->node_fetch.state == KUBE_FETCH_OK && *k->instance_type ? k->instance_type : NULL;
}
