/* kubeparse.c - Node and NetworkList JSON -> struct obs_kube (pure, bounded). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubejson.h"
#include "probes/kube/kubeparse.h"
#include "probes/model/errmsg.h"
#include "probes/model/json.h"
#include "probes/model/strbuf.h"

#define KUBEPARSE_DEFAULT_PREFIX "fabric.aicr.run/"
#define KUBEPARSE_NIC_INFO "networking.gke.io/nic-info"
#define KUBEPARSE_NORTH "networking.gke.io/north-interfaces"
#define KUBEPARSE_LABEL_TYPE "node.kubernetes.io/instance-type"
#define KUBEPARSE_LABEL_ACCEL "cloud.google.com/gke-accelerator"
#define KUBEPARSE_LABEL_DRANET "cloud.google.com/gke-networking-dra-driver"

static bool kubeparse_bdf_ok(const char *s)
{
	static const char shape[] = "hhhh:hh:hh.h";

	if (strlen(s) != sizeof(shape) - 1)
		return false;
	for (size_t i = 0; shape[i]; i++) {
		char c = s[i];

		if (shape[i] == 'h' ? !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) : c != shape[i])
			return false;
	}
	return s[11] <= '7';
}

static bool kubeparse_ifname_ok(const char *s)
{
	if (!*s || strlen(s) >= KUBE_IFNAME_MAX)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s == '/' || *s == ':' || (unsigned char)*s >= 0x7f)
			return false;
	return true;
}

static bool kubeparse_ip_ok(int af, const char *s)
{
	unsigned char buf[16];

	return inet_pton(af, s, buf) == 1;
}

static int kubeparse_nic_cmp(const void *a, const void *b)
{
	const struct kube_nic *x = a, *y = b;
	int c = strcmp(x->bdf, y->bdf);

	return c ? c : strcmp(x->name, y->name);
}

/* One entry of a GKE annotation's array: @e (an object) into @slot, the @i entries before it in @all. */
typedef int (*kubeparse_entry_fn)(const struct json *e, void *slot, const void *all, size_t i, const char *where,
				  char *why, size_t whylen);

static const struct kubejson_field kubeparse_nic_fields[] = {
	KUBEJSON_ROW_TEXT("birthName", kube_nic, name),
	KUBEJSON_ROW_TEXT("pciAddress", kube_nic, bdf),
	KUBEJSON_ROW_TEXT("birthIP", kube_nic, ipv4),
	KUBEJSON_ROW_TEXT("birthIPv6", kube_nic, ipv6),
	KUBEJSON_ROW_END,
};

/* One nic-info entry, its names and addresses checked, none listed twice. */
static int kubeparse_nic(const struct json *e, void *slot, const void *all, size_t i, const char *where,
			 char *why, size_t whylen)
{
	struct kube_nic *nic = slot;
	const struct kube_nic *v = all;

	if (kubejson_read(e, kubeparse_nic_fields, nic, where, why, whylen) < 0)
		return -EINVAL;
	if (nic->name[0] && !kubeparse_ifname_ok(nic->name))
		return errmsg_set(why, whylen, -EINVAL, "%s.birthName: '%s' is not an interface name", where, nic->name);
	if (nic->bdf[0] && !kubeparse_bdf_ok(nic->bdf))
		return errmsg_set(why, whylen, -EINVAL, "%s.pciAddress: '%s' is not a PCI address like 0000:06:00.0",
				  where, nic->bdf);
	if (nic->ipv4[0] && !kubeparse_ip_ok(AF_INET, nic->ipv4))
		return errmsg_set(why, whylen, -EINVAL, "%s.birthIP: '%s' is not an IPv4 address", where, nic->ipv4);
	if (nic->ipv6[0] && !kubeparse_ip_ok(AF_INET6, nic->ipv6))
		return errmsg_set(why, whylen, -EINVAL, "%s.birthIPv6: '%s' is not an IPv6 address", where, nic->ipv6);
	for (size_t j = 0; j < i; j++) {
		if (nic->bdf[0] && strcmp(v[j].bdf, nic->bdf) == 0)
			return errmsg_set(why, whylen, -EINVAL, "%s.pciAddress: %s is listed twice", where, nic->bdf);
		if (nic->name[0] && strcmp(v[j].name, nic->name) == 0)
			return errmsg_set(why, whylen, -EINVAL, "%s.birthName: %s is listed twice", where, nic->name);
	}
	return 0;
}

/* One north-interfaces entry: its Network and IP address. */
static int kubeparse_north(const struct json *e, void *slot, const void *all, size_t i, const char *where,
			   char *why, size_t whylen)
{
	struct kube_north *nn = slot;

	if (kubejson_str(e, "network", nn->network, sizeof(nn->network), where, why, whylen) < 0 ||
	    kubejson_str(e, "ipAddress", nn->ip, sizeof(nn->ip), where, why, whylen) < 0)
		return -EINVAL;
	if (nn->ip[0] && !kubeparse_ip_ok(AF_INET, nn->ip) && !kubeparse_ip_ok(AF_INET6, nn->ip))
		return errmsg_set(why, whylen, -EINVAL, "%s.ipAddress: '%s' is not an IP address", where, nn->ip);
	return 0;
}

/*
 * The GKE annotation @name of @ann (nic-info, north-interfaces), when present: a string of
 * bounded length holding a JSON array of at most KUBE_NICS_MAX objects, each read by @entry into
 * a slot of @size bytes of *@ret (calloc'd, the caller frees; *@ret_n entries; *@ok set). A
 * malformed one is not fatal to the node: @why (KUBE_MSG_MAX bytes) says what is wrong with it.
 */
static void kubeparse_gke_ann(const struct json *ann, const char *name, size_t size, kubeparse_entry_fn entry,
			      void **ret, size_t *ret_n, bool *ok, char *why)
{
	const struct json *v = json_get(ann, name);
	struct json *root = NULL;
	char where[64], *arr = NULL;
	size_t n = 0, i = 0;
	const char *s;
	int r = 0;

	if (!v)
		return;
	if (!(s = json_string(v)))
		r = errmsg_set(why, KUBE_MSG_MAX, -EINVAL, "%s: expected a string, got %s", name, kubejson_tname(v));
	else if (strnlen(s, KUBE_GKE_ANN_MAX) >= KUBE_GKE_ANN_MAX)
		r = errmsg_set(why, KUBE_MSG_MAX, -EINVAL, "%s: longer than %d bytes", name, KUBE_GKE_ANN_MAX - 1);
	else if ((r = json_parse(s, strlen(s), &root)) < 0)
		errmsg_set(why, KUBE_MSG_MAX, r, "%s: %s", name, r == -ENOMEM ? "out of memory" : "not valid JSON");
	else if (json_type(root) != JSON_ARRAY)
		r = errmsg_set(why, KUBE_MSG_MAX, -EINVAL, "%s: expected an array, got %s", name, kubejson_tname(root));
	else if ((n = json_size(root)) > KUBE_NICS_MAX)
		r = errmsg_set(why, KUBE_MSG_MAX, -EINVAL, "%s: %zu entries, at most %d are read", name, n, KUBE_NICS_MAX);
	else if (!(arr = calloc(n ? n : 1, size)))
		r = errmsg_set(why, KUBE_MSG_MAX, -ENOMEM, "%s: out of memory", name);
	for (const struct json *e = json_first(root); r == 0 && e; e = json_next(e), i++) {
		snprintf(where, sizeof(where), "%s[%zu]", name, i);
		if ((r = kubejson_elem(e, where, why, KUBE_MSG_MAX)) == 0)
			r = entry(e, arr + i * size, arr, i, where, why, KUBE_MSG_MAX);
	}
	json_free(root);
	if (r < 0) {
		free(arr);
		if (!why[0])
			errmsg_set(why, KUBE_MSG_MAX, 0, "%s: unreadable", name);
		return;
	}
	*ret = arr;
	*ret_n = n;
	*ok = true;
}

/* nic-info and north-interfaces, and each NIC's Network: the north interface that carries its birth IP. */
static void kubeparse_gke(const struct json *ann, struct obs_kube *n)
{
	kubeparse_gke_ann(ann, KUBEPARSE_NIC_INFO, sizeof(*n->nics), kubeparse_nic, (void **)&n->nics, &n->n_nics,
			  &n->has_nic_info, n->nic_info_error);
	if (n->n_nics > 1)
		qsort(n->nics, n->n_nics, sizeof(*n->nics), kubeparse_nic_cmp);
	kubeparse_gke_ann(ann, KUBEPARSE_NORTH, sizeof(*n->north), kubeparse_north, (void **)&n->north, &n->n_north,
			  &n->has_north, n->north_error);
	for (size_t i = 0; i < n->n_nics; i++)
		for (size_t j = 0; j < n->n_north; j++) {
			const char *ip = n->north[j].ip;

			if (ip[0] && (strcmp(ip, n->nics[i].ipv4) == 0 || strcmp(ip, n->nics[i].ipv6) == 0)) {
				snprintf(n->nics[i].network, sizeof(n->nics[i].network), "%s", n->north[j].network);
				break;
			}
		}
}

/* "<prefix><name>" into @buf; @name NULL (a key out of range) is -EINVAL. */
static int kubeparse_key(const char *prefix, const char *name, char *buf, size_t len)
{
	size_t pn;

	if (!prefix)
		prefix = KUBEPARSE_DEFAULT_PREFIX;
	pn = strnlen(prefix, KUBEPARSE_ANN_PREFIX_MAX + 1);
	if (!name || pn == 0 || pn > KUBEPARSE_ANN_PREFIX_MAX || prefix[pn - 1] != '/')
		return -EINVAL;
	if (pn + strlen(name) + 1 > len)
		return -ENOSPC;
	memcpy(buf, prefix, pn);
	strcpy(buf + pn, name);
	return 0;
}

int kubeparse_ann_key(const char *prefix, enum kube_ann_key key, char *buf, size_t len)
{
	return kubeparse_key(prefix, obs_kube_ann_name(key), buf, len);
}

int kubeparse_label_key(const char *prefix, enum kube_label_key key, char *buf, size_t len)
{
	return kubeparse_key(prefix, obs_kube_label_name(key), buf, len);
}

/* A label we read: optional string of at most 63 characters. */
static int kubeparse_label(const struct json *labels, const char *key, char *dst, char *err, size_t errlen)
{
	return kubejson_str(labels, key, dst, KUBE_LABEL_MAX, "metadata.labels", err, errlen);
}

/* A string member of our condition, kept when it fits in @size; *@ret_long when it is longer. */
static int kubeparse_cond_str(const struct json *c, const char *key, char *dst, size_t size, bool *ret_long,
			      const char *where, char *err, size_t errlen)
{
	const struct json *v = json_get(c, key);
	const char *s;

	if (!v || json_type(v) == JSON_NULL)
		return 0;
	if (!(s = json_string(v)))
		return errmsg_set(err, errlen, -EINVAL, "%s.%s: expected a string, got %s", where, key, kubejson_tname(v));
	if (strnlen(s, size) >= size) {
		if (!ret_long)
			return errmsg_set(err, errlen, -EINVAL, "%s.%s: longer than %zu bytes", where, key, size - 1);
		*ret_long = true;
		return 0;
	}
	memcpy(dst, s, strlen(s) + 1);
	return 0;
}

/*
 * Our condition among status.conditions (the first KUBE_CONDITIONS_MAX entries): entries that are
 * not objects or have no string type are not ours and are skipped; the first of our type counts.
 */
static int kubeparse_condition(const struct json *root, struct kube_condition *ret, char *err, size_t errlen)
{
	const struct json *status, *conds, *mine = NULL;
	struct kube_condition c = { 0 };
	const char *where = "status.conditions[" KUBE_CONDITION_TYPE "]";
	char msg[KUBE_COND_MESSAGE_MAX];
	bool hb_long = false;
	size_t i = 0;

	if (kubejson_opt(root, "status", JSON_OBJECT, &status, "", err, errlen) < 0 ||
	    kubejson_opt(status, "conditions", JSON_ARRAY, &conds, "status", err, errlen) < 0)
		return -EINVAL;
	for (const struct json *e = json_first(conds); e && i < KUBE_CONDITIONS_MAX && !mine; e = json_next(e), i++) {
		const char *type = json_type(e) == JSON_OBJECT ? json_get_string(e, "type") : NULL;

		if (type && strcmp(type, KUBE_CONDITION_TYPE) == 0)
			mine = e;
	}
	if (!mine) {
		*ret = c;
		return 0;
	}
	c.present = true;
	msg[0] = '\0';
	if (kubeparse_cond_str(mine, "status", c.status, sizeof(c.status), NULL, where, err, errlen) < 0 ||
	    kubeparse_cond_str(mine, "reason", c.reason, sizeof(c.reason), &c.reason_long, where, err, errlen) < 0 ||
	    kubeparse_cond_str(mine, "message", msg, sizeof(msg), &c.message_long, where, err, errlen) < 0 ||
	    kubeparse_cond_str(mine, "lastTransitionTime", c.last_transition, sizeof(c.last_transition), NULL,
			       where, err, errlen) < 0 ||
	    kubeparse_cond_str(mine, "lastHeartbeatTime", c.last_heartbeat, sizeof(c.last_heartbeat), &hb_long,
			       where, err, errlen) < 0)
		return -EINVAL;
	/* A heartbeat too long to be a time is no heartbeat: the daemon's next one replaces it. */
	if (hb_long)
		c.last_heartbeat[0] = '\0';
	if (json_get_string(mine, "message") && !c.message_long && !(c.message = strdup(msg)))
		return errmsg_set(err, errlen, -ENOMEM, "node: out of memory");
	*ret = c;
	return 0;
}

/* Our labels' current values (label values are at most 63 characters: the API server's rule). */
static int kubeparse_our_labels(const struct json *labels, const char *prefix, struct kube_annotation out[KUBE_LABEL__COUNT],
				char *err, size_t errlen)
{
	char key[KUBEPARSE_ANN_PREFIX_MAX + 16], value[KUBE_LABEL_MAX];

	for (int i = 0; i < KUBE_LABEL__COUNT; i++) {
		kubeparse_label_key(prefix, (enum kube_label_key)i, key, sizeof(key));
		if (!json_get(labels, key))
			continue;
		if (kubejson_str(labels, key, value, sizeof(value), "metadata.labels", err, errlen) < 0)
			return -EINVAL;
		out[i].present = true;
		if (!(out[i].value = strdup(value)))
			return errmsg_set(err, errlen, -ENOMEM, "node: out of memory");
	}
	return 0;
}

/* kind, metadata (name, uid) and the labels we read; *@ret_labels and *@ret_ann: the label and annotation objects. */
static int kubeparse_node_meta(const struct json *root, struct obs_kube *n,
			       const struct json **ret_labels, const struct json **ret_ann, char *err, size_t errlen)
{
	const struct json *meta, *labels;
	const char *kind = json_get_string(root, "kind");
	char dranet[KUBE_LABEL_MAX] = "";

	if (kubejson_elem(root, "node", err, errlen) < 0)
		return -EINVAL;
	if (json_get(root, "kind") && (!kind || strcmp(kind, "Node") != 0))
		return errmsg_set(err, errlen, -EINVAL, "kind: expected \"Node\", got %.32s",
				  kind ? kind : kubejson_tname(json_get(root, "kind")));
	meta = json_get(root, "metadata");
	if (json_type(meta) != JSON_OBJECT)
		return errmsg_set(err, errlen, -EINVAL, "metadata: expected an object, got %s", kubejson_tname(meta));
	if (kubejson_str(meta, "name", n->node_name, sizeof(n->node_name), "metadata", err, errlen) < 0)
		return -EINVAL;
	if (!n->node_name[0])
		return errmsg_set(err, errlen, -EINVAL, "metadata.name: missing");
	if (kubejson_str(meta, "uid", n->node_uid, sizeof(n->node_uid), "metadata", err, errlen) < 0 ||
	    kubejson_opt(meta, "labels", JSON_OBJECT, &labels, "metadata", err, errlen) < 0 ||
	    kubejson_opt(meta, "annotations", JSON_OBJECT, ret_ann, "metadata", err, errlen) < 0 ||
	    kubeparse_label(labels, KUBEPARSE_LABEL_TYPE, n->instance_type, err, errlen) < 0 ||
	    kubeparse_label(labels, KUBEPARSE_LABEL_ACCEL, n->accelerator, err, errlen) < 0 ||
	    kubeparse_label(labels, KUBEPARSE_LABEL_DRANET, dranet, err, errlen) < 0)
		return -EINVAL;
	/* GKE managed DRANET: the node pool's label (GKE docs, "Allocate network resources by using GKE managed DRANET"). */
	n->dranet = strcmp(dranet, "true") == 0;
	*ret_labels = labels;
	return 0;
}

bool kubeparse_node_dranet(const struct json *root)
{
	const char *v = json_get_string(json_get(json_get(root, "metadata"), "labels"), KUBEPARSE_LABEL_DRANET);

	return v && strcmp(v, "true") == 0;
}

/* Our annotations' current values; an over-long value stays NULL: it differs from anything we would write. */
static int kubeparse_our_anns(const struct json *ann, const char *prefix, struct kube_annotation out[KUBE_ANN__COUNT],
			      char *err, size_t errlen)
{
	char key[KUBEPARSE_ANN_PREFIX_MAX + 16];

	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		const struct json *v;
		const char *s;

		kubeparse_ann_key(prefix, (enum kube_ann_key)i, key, sizeof(key));
		v = json_get(ann, key);
		if (!v)
			continue;
		if (!(s = json_string(v)))
			return errmsg_set(err, errlen, -EINVAL, "metadata.annotations[%s]: expected a string, got %s", key,
					  kubejson_tname(v));
		out[i].present = true;
		if (strnlen(s, KUBE_ANN_VALUE_MAX) < KUBE_ANN_VALUE_MAX && !(out[i].value = strdup(s)))
			return errmsg_set(err, errlen, -ENOMEM, "node: out of memory");
	}
	return 0;
}

/* The node's part of @k replaced by what @n holds; @n is left empty. */
static void kubeparse_node_move(struct obs_kube *k, struct obs_kube *n)
{
	obs_kube_free_node(k);
	memcpy(k->node_name, n->node_name, sizeof(k->node_name));
	memcpy(k->instance_type, n->instance_type, sizeof(k->instance_type));
	memcpy(k->accelerator, n->accelerator, sizeof(k->accelerator));
	k->dranet = n->dranet;
	k->has_nic_info = n->has_nic_info;
	memcpy(k->nic_info_error, n->nic_info_error, sizeof(k->nic_info_error));
	k->nics = n->nics;
	k->n_nics = n->n_nics;
	k->has_north = n->has_north;
	memcpy(k->north_error, n->north_error, sizeof(k->north_error));
	k->north = n->north;
	k->n_north = n->n_north;
	memcpy(k->ours, n->ours, sizeof(k->ours));
	memcpy(k->labels, n->labels, sizeof(k->labels));
	k->condition = n->condition;
	memcpy(k->node_uid, n->node_uid, sizeof(k->node_uid));
	memset(n, 0, sizeof(*n));
}

int kubeparse_node_tree(const struct json *root, const char *prefix, struct obs_kube *k, char *err, size_t errlen)
{
	struct obs_kube n = { 0 };
	const struct json *labels = NULL, *ann = NULL;
	char key[KUBEPARSE_ANN_PREFIX_MAX + 16];
	int r;

	for (int i = 0; i < KUBE_ANN__COUNT; i++)
		if (kubeparse_ann_key(prefix, (enum kube_ann_key)i, key, sizeof(key)) < 0)
			return errmsg_set(err, errlen, -EINVAL, "annotation prefix '%.64s' is not a DNS subdomain ending in '/'",
					  prefix ? prefix : "");
	r = kubeparse_node_meta(root, &n, &labels, &ann, err, errlen);
	if (r == 0)
		r = kubeparse_our_labels(labels, prefix, n.labels, err, errlen);
	if (r == 0)
		r = kubeparse_condition(root, &n.condition, err, errlen);
	if (r == 0) {
		kubeparse_gke(ann, &n);
		r = kubeparse_our_anns(ann, prefix, n.ours, err, errlen);
	}
	if (r == 0)
		kubeparse_node_move(k, &n);
	obs_kube_free_node(&n);
	return r;
}

int kubeparse_node(const char *body, size_t len, const char *prefix, struct obs_kube *k,
		   char *err, size_t errlen)
{
	struct json *root = NULL;
	int r = json_parse(body, len, &root);

	if (r < 0)
		return errmsg_set(err, errlen, r, r == -ENOMEM ? "node: out of memory" : "node: not valid JSON");
	r = kubeparse_node_tree(root, prefix, k, err, errlen);
	json_free(root);
	return r;
}

/* spec.parametersRef: whether it names a GKENetworkParamSet. */
static int kubeparse_params_ref(const struct json *ref, const struct kubejson_field *f, void *dst, const char *where,
				char *err, size_t errlen)
{
	char pname[KUBE_NAME_MAX];

	if (kubejson_str(ref, "name", pname, sizeof(pname), where, err, errlen) < 0)
		return -EINVAL;
	((struct kube_network *)dst)->has_params_ref = pname[0] != '\0';
	return 0;
}

/* status.conditions: Ready and ParamsReady. */
static int kubeparse_network_conds(const struct json *status, const struct kubejson_field *f, void *dst,
				   const char *where, char *err, size_t errlen)
{
	struct kube_network *net = dst;
	const struct json *conds;

	if (kubejson_opt(status, f->key, JSON_ARRAY, &conds, where, err, errlen) < 0)
		return -EINVAL;
	for (const struct json *c = json_first(conds); c; c = json_next(c)) {
		const char *type = json_get_string(c, "type"), *st = json_get_string(c, "status");
		bool yes = st && strcmp(st, "True") == 0;

		if (!type)
			continue;
		if (strcmp(type, "Ready") == 0)
			net->ready = yes;
		else if (strcmp(type, "ParamsReady") == 0)
			net->params_ready = yes;
	}
	return 0;
}

/* One Network: its name, type, whether it names parameters, its Ready and ParamsReady conditions. */
static const struct kubejson_field kubeparse_network[] = {
	KUBEJSON_ROW_TEXT("metadata.name", kube_network, name),
	KUBEJSON_ROW_TEXT("spec.type", kube_network, type),
	KUBEJSON_ROW_OBJECT("spec.parametersRef", NULL, kubeparse_params_ref),
	KUBEJSON_ROW_FN("status.conditions", kubeparse_network_conds),
	KUBEJSON_ROW_END,
};

int kubeparse_network_items(const struct json *const *items, size_t n, struct obs_kube *k, char *err, size_t errlen)
{
	struct kube_network *v;
	int r = kubejson_items(items, n, KUBE_NETWORKS_MAX, "Networks", kubeparse_network, sizeof(*v), strbuf_cmp_names,
			       (void **)&v, err, errlen);

	if (r < 0) {
		free(v);
		return r;
	}
	obs_kube_free_networks(k);
	k->networks = v;
	k->n_networks = n;
	return 0;
}

int kubeparse_list(const char *body, size_t len, const char *what, const char *const *kinds, kubeparse_items_fn fn,
		   struct obs_kube *k, char *err, size_t errlen)
{
	const struct json **items;
	struct json *root = NULL;
	size_t n;
	int r = kubejson_list(body, len, what, kinds, &root, &items, &n, err, errlen);

	if (r == 0)
		r = fn(items, n, k, err, errlen);
	free(items);
	json_free(root);
	return r;
}

int kubeparse_networks(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen)
{
	return kubeparse_list(body, len, "networks", NULL, kubeparse_network_items, k, err, errlen);
}
