/* annotations.c - build our Node annotation and label values and the merge patch that publishes them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubeparse.h"
#include "probes/model/json.h"
#include "report/render/annotations.h"
#include "report/render/render.h"
#include "report/render/render_mapping.h"

/* How much of the attachment survives one size tier. */
struct annotations_tier {
	size_t msg_max;         /* bytes of each message kept; 0 drops the message member */
	size_t n_checks;        /* first n of the ordered failed/warned checks */
	bool pairs;             /* GPU<->NIC pairs */
	bool daemons;           /* the running daemons list */
};

static int annotations_render(const struct profile *p, const char *changed_at,
			      const enum check_id *ids, size_t n_ids,
			      const struct annotations_tier *tier, char **ret)
{
	struct json *root = json_new_object(), *ver = json_new_object(), *arr;
	bool truncated = n_ids > tier->n_checks || (!tier->pairs && p->n_gpus) ||
			 (!tier->daemons && p->n_daemons);
	int rc = 0;

	/* Each child is filled before it is added: json_add() frees it when it fails. */
	rc |= json_add_string(root, "schema", ANNOTATIONS_SCHEMA);
	rc |= json_add_string(root, "agentVersion", TCPXO_VERSION);
	rc |= json_add_string(root, "changedAt", changed_at);
	rc |= render_opt(ver, "installer", p->installer);
	if (tier->daemons) {
		arr = json_new_array();
		for (size_t i = 0; arr && i < p->n_daemons; i++)
			rc |= json_append_string(arr, p->daemons[i]);
		rc |= json_add(ver, "daemons", arr);
	}
	rc |= render_opt(ver, "expectedDaemon", p->expected_daemon);
	rc |= json_add(root, "versions", ver);
	/* How the RDMA NICs reach pods (profile rdma only): multi-network or dranet. */
	if (p->mode)
		rc |= json_add_string(root, "mode", p->mode);
	if (tier->pairs) {
		arr = json_new_array();
		for (size_t i = 0; arr && i < p->n_gpus; i++) {
			const struct profile_gpu *g = &p->gpus[i];
			const struct profile_nic *nic = g->nic >= 0 && (size_t)g->nic < p->n_nics ? &p->nics[g->nic] : NULL;
			struct json *e = json_new_object();

			rc |= json_add_string(e, "gpu", g->bdf);
			rc |= render_opt(e, "nic", nic ? nic->name : NULL);
			rc |= render_opt(e, "nicPci", nic ? nic->bdf : NULL);
			rc |= json_append(arr, e);
		}
		rc |= json_add(root, "pairs", arr);
	}
	arr = json_new_array();
	for (size_t i = 0; arr && i < n_ids && i < tier->n_checks; i++) {
		const struct finding *c = &p->checks[ids[i]];
		struct json *e = json_new_object();

		rc |= json_add_string(e, "id", check_id_name(ids[i]));
		rc |= json_add_string(e, "status", check_status_name(c->status));
		if (tier->msg_max) {
			char *m = render_cut_dup(c->message ? c->message : "", tier->msg_max);

			rc |= m ? json_add_string(e, "message", m) : -ENOMEM;
			free(m);
		}
		rc |= json_append(arr, e);
	}
	rc |= json_add(root, "checks", arr);
	if (truncated)
		rc |= json_add_bool(root, "truncated", true);
	*ret = rc < 0 ? NULL : json_print(root, false);
	json_free(root);
	return *ret ? 0 : -ENOMEM;
}

int annotations_attachment(const struct profile *p, const char *changed_at, char **ret)
{
	struct annotations_tier tier = { .msg_max = ANNOTATIONS_MESSAGE_MAX, .pairs = true, .daemons = true };
	enum check_id ids[CHECK__COUNT];
	size_t n = 0;
	int r;

	if (!changed_at || strlen(changed_at) >= ANNOTATIONS_CHANGED_AT_MAX)
		return -EINVAL;
	/* Failures first, then warnings, each in check order: dropping from the end keeps failures. */
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < CHECK__COUNT; i++)
			if (p->checks[i].status == (pass ? CHECK_WARN : CHECK_FAIL))
				ids[n++] = (enum check_id)i;
	tier.n_checks = n;

	/*
	 * Shrink until it fits: shorter messages, then fewer checks, then no pairs, then no
	 * daemon list. What is left (schema, version, time, two tags of at most 31 characters)
	 * is a few hundred bytes, so the loop always ends with a value.
	 */
	for (;;) {
		char *s = NULL;

		r = annotations_render(p, changed_at, ids, n, &tier, &s);
		if (r < 0)
			return r;
		if (strlen(s) < ANNOTATIONS_ATTACHMENT_MAX) {
			*ret = s;
			return 0;
		}
		free(s);
		if (tier.msg_max > ANNOTATIONS_MESSAGE_MAX / 4)
			tier.msg_max /= 2;
		else if (tier.n_checks > 0)
			tier.n_checks--;
		else if (tier.pairs)
			tier.pairs = false;
		else if (tier.daemons)
			tier.daemons = false;
		else
			return -E2BIG;
	}
}

int annotations_build(const struct profile *p, bool complete, const char *changed_at, bool labels,
		      struct annotations *ret)
{
	struct annotations a = { 0 };
	const char *runtime = profile_runtime_name(p->kind);
	int r;

	r = annotations_attachment(p, changed_at, &a.value[KUBE_ANN_ATTACHMENT]);
	if (r < 0)
		return r;
	a.set[KUBE_ANN_ATTACHMENT] = true;

	a.set[KUBE_ANN_READY] = true;
	a.value[KUBE_ANN_READY] = strdup(p->ready ? "true" : "false");

	/* Incomplete: "none" and null may only mean a probe failed; never write them then. */
	if (complete || p->kind != PROFILE_NONE) {
		a.set[KUBE_ANN_PROFILE] = true;
		a.value[KUBE_ANN_PROFILE] = strdup(profile_kind_name(p->kind));
		if (!a.value[KUBE_ANN_PROFILE])
			goto oom;
	}
	if (runtime) {
		a.set[KUBE_ANN_RUNTIME] = true;
		a.value[KUBE_ANN_RUNTIME] = strdup(runtime);
		if (!a.value[KUBE_ANN_RUNTIME])
			goto oom;
	} else if (complete) {
		a.set[KUBE_ANN_RUNTIME] = true;
	}
	/* The networks check keeps the mapping only when it passes or warns (a renderer's naming rule). */
	if (p->n_ifaces > 0) {
		a.set[KUBE_ANN_INTERFACES] = true;
		a.value[KUBE_ANN_INTERFACES] = render_mapping_json(p->ifaces, p->n_ifaces);
		if (!a.value[KUBE_ANN_INTERFACES])
			goto oom;
	} else if (complete) {
		a.set[KUBE_ANN_INTERFACES] = true;
	}
	if (!a.value[KUBE_ANN_READY])
		goto oom;
	/* The labels say what the annotations say; without them, ours are removed from the node. */
	a.label_set[KUBE_LABEL_READY] = true;
	a.label_set[KUBE_LABEL_PROFILE] = a.set[KUBE_ANN_PROFILE] || !labels;
	for (int i = 0; labels && i < KUBE_LABEL__COUNT; i++) {
		const char *v = a.value[i == KUBE_LABEL_READY ? KUBE_ANN_READY : KUBE_ANN_PROFILE];

		if (a.label_set[i] && !(a.label[i] = strdup(v)))
			goto oom;
	}
	*ret = a;
	return 0;
oom:
	annotations_free(&a);
	return -ENOMEM;
}

void annotations_free(struct annotations *a)
{
	if (!a)
		return;
	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		free(a->value[i]);
		a->value[i] = NULL;
		a->set[i] = false;
	}
	for (int i = 0; i < KUBE_LABEL__COUNT; i++) {
		free(a->label[i]);
		a->label[i] = NULL;
		a->label_set[i] = false;
	}
}

/* A JSON object's compact text without the member @skip (NULL: none); NULL when not JSON. */
static char *annotations_canonical(const char *text, const char *skip)
{
	struct json *v = NULL, *copy = NULL;
	char *out = NULL;

	if (json_parse(text, strlen(text), &v) < 0)
		return NULL;
	if (skip && json_type(v) == JSON_OBJECT) {
		copy = json_new_object();
		if (!copy)
			goto out;
		for (const struct json *m = json_first(v); m; m = json_next(m))
			if (strcmp(json_key(m), skip) != 0 && json_add(copy, json_key(m), json_dup(m)) < 0)
				goto out;
		out = json_print(copy, false);
	} else {
		out = json_print(v, false);
	}
out:
	json_free(copy);
	json_free(v);
	return out;
}

/* Does the node's value @have equal @want for @key? Return: 1 equal, 0 not, -ENOMEM. */
static int annotations_equal(enum kube_ann_key key, const char *have, const char *want)
{
	const char *skip = NULL;
	char *a, *b;
	int r;

	switch (key) {
	case KUBE_ANN_PROFILE:
	case KUBE_ANN_RUNTIME:
	case KUBE_ANN_READY:
	case KUBE_ANN__COUNT:
		return strcmp(have, want) == 0;
	case KUBE_ANN_INTERFACES:
		break;
	case KUBE_ANN_ATTACHMENT:
		skip = "changedAt";
		break;
	}
	if (strcmp(have, want) == 0)
		return 1;
	b = annotations_canonical(want, skip);
	if (!b)
		return -ENOMEM;         /* we built @want: it is JSON */
	a = annotations_canonical(have, skip);
	r = a && strcmp(a, b) == 0;
	free(a);
	free(b);
	return r;
}

/*
 * @key with @want (null for NULL) into @map (created in @meta as @member on first use) when it
 * must be written over the node's @cur (compared as @cmp says). A removal is written only when the
 * node carries the key; a present key without a value was too long to keep: it differs.
 * Return: 1 added, 0 not, -ENOMEM.
 */
static int annotations_put(struct json *meta, const char *member, struct json **map, const char *key,
			   enum kube_ann_key cmp, const char *want, const struct kube_annotation *cur)
{
	int r = 1;

	if (!want)
		r = cur->present;
	else if (cur->present && cur->value && (r = annotations_equal(cmp, cur->value, want)) >= 0)
		r = !r;
	if (r <= 0)
		return r;
	if (!*map) {
		*map = json_new_object();
		if (json_add(meta, member, *map) < 0)
			return -ENOMEM;
	}
	r = want ? json_add_string(*map, key, want) : json_add_null(*map, key);
	return r < 0 ? r : 1;
}

int annotations_diff(const struct annotations *want, const struct kube_annotation cur[KUBE_ANN__COUNT],
		     const struct kube_annotation cur_labels[KUBE_LABEL__COUNT], const char *prefix,
		     char **ret_patch, unsigned *ret_labels)
{
	struct json *root, *meta, *ann = NULL, *lab = NULL;
	char key[KUBEPARSE_ANN_PREFIX_MAX + 16];
	unsigned n_labels = 0;
	int n = 0, r;

	for (int i = 0; i < KUBE_ANN__COUNT; i++)
		if (kubeparse_ann_key(prefix, (enum kube_ann_key)i, key, sizeof(key)) < 0)
			return -EINVAL;
	root = json_new_object();
	meta = json_new_object();
	if (!root || json_add(root, "metadata", meta) < 0) {
		json_free(root);
		return -ENOMEM;
	}
	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		if (!want->set[i])
			continue;
		kubeparse_ann_key(prefix, (enum kube_ann_key)i, key, sizeof(key));
		r = annotations_put(meta, "annotations", &ann, key, (enum kube_ann_key)i, want->value[i], &cur[i]);
		if (r < 0)
			goto out;
		n += r;
	}
	for (int i = 0; i < KUBE_LABEL__COUNT; i++) {
		if (!want->label_set[i])
			continue;
		/* Label values are plain text: compared as they are (KUBE_ANN__COUNT). */
		kubeparse_label_key(prefix, (enum kube_label_key)i, key, sizeof(key));
		r = annotations_put(meta, "labels", &lab, key, KUBE_ANN__COUNT, want->label[i], &cur_labels[i]);
		if (r < 0)
			goto out;
		n += r;
		n_labels += (unsigned)r;
	}
	r = n;
	*ret_patch = NULL;
	if (n) {
		*ret_patch = json_print(root, false);
		if (!*ret_patch)
			r = -ENOMEM;
	}
	if (ret_labels)
		*ret_labels = n_labels;
out:
	json_free(root);
	return r;
}

static void annotations_remember_one(struct kube_annotation *a, bool set, const char *value)
{
	if (!set)
		return;
	free(a->value);
	a->value = value ? strdup(value) : NULL;
	a->present = value != NULL;     /* strdup failed: present without a value, i.e. "differs" */
}

void annotations_remember(const struct annotations *want, struct kube_annotation cur[KUBE_ANN__COUNT],
			  struct kube_annotation cur_labels[KUBE_LABEL__COUNT])
{
	for (int i = 0; i < KUBE_ANN__COUNT; i++)
		annotations_remember_one(&cur[i], want->set[i], want->value[i]);
	for (int i = 0; i < KUBE_LABEL__COUNT; i++)
		annotations_remember_one(&cur_labels[i], want->label_set[i], want->label[i]);
}

bool annotations_transition(const struct annotations *want, const struct kube_annotation cur[KUBE_ANN__COUNT])
{
	static const enum kube_ann_key keys[] = { KUBE_ANN_PROFILE, KUBE_ANN_RUNTIME, KUBE_ANN_READY };

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		const struct kube_annotation *c = &cur[keys[i]];
		const char *w = want->value[keys[i]];

		if (!want->set[keys[i]])
			continue;
		if (w ? !c->value || strcmp(c->value, w) != 0 : c->present)
			return true;
	}
	return false;
}

int annotations_cleanup_patch(const char *prefix, char **ret)
{
	struct annotations none = { 0 };
	struct kube_annotation all[KUBE_ANN__COUNT] = { { 0 } }, all_labels[KUBE_LABEL__COUNT] = { { 0 } };
	int r;

	/* Remove whatever the node carries: every key and label as present. */
	for (int i = 0; i < KUBE_ANN__COUNT; i++) {
		none.set[i] = true;
		all[i].present = true;
	}
	for (int i = 0; i < KUBE_LABEL__COUNT; i++) {
		none.label_set[i] = true;
		all_labels[i].present = true;
	}
	r = annotations_diff(&none, all, all_labels, prefix, ret, NULL);
	return r < 0 ? r : 0;
}
