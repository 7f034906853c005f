/* coherence_node.c - pure: one NodeList node's published facts, read once for the coherence judgement and the runtime check. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "report/fleet/coherence_node.h"

#define COHERENCE_NODE_TEXT_MAX 240     /* bytes of one message from an annotation we print */
#define COHERENCE_NODE_ID_MAX 64
#define COHERENCE_NODE_ATTACHMENT_MAX (64u << 10)  /* bytes of an attachment value read (ours are < 4 KiB) */
#define COHERENCE_NODE_PAIRS_MAX 64     /* the attachment schema's limit */

void coherence_node_clear(struct coherence_node *n)
{
	free(n->name);
	free(n->profile);
	free(n->ready_value);
	free(n->map_why);
	free(n->names_why);
	for (size_t i = 0; i < n->n_fails; i++) {
		free(n->fails[i].id);
		free(n->fails[i].message);
	}
	free(n->fails);
	free(n->itype);
	free(n->accel);
	free(n->pool);
	free(n->installer);
	free(n->expected);
	free(n->gpus);
	free(n->nics);
	for (size_t i = 0; i < n->n_taints; i++) {
		free(n->taints[i].key);
		free(n->taints[i].value);
		free(n->taints[i].effect);
	}
	free(n->taints);
	free(n->heartbeat);
	memset(n, 0, sizeof(*n));
}

/* A printable copy of a kept string field, NULL when absent or not a string. Return: 0 or -ENOMEM. */
static int coherence_node_text(const struct jsonscan_field *field, char **ret)
{
	*ret = NULL;
	if (!field->s)
		return 0;
	*ret = strbuf_printable(field->s, COHERENCE_NODE_VALUE_MAX);
	return *ret ? 0 : -ENOMEM;
}

static int coherence_node_count_text(size_t n, char **ret)
{
	*ret = strbuf_printf("%zu", n);
	return *ret ? 0 : -ENOMEM;
}

/* versions.installer, versions.expectedDaemon and the pairs' GPU and NIC counts of an attachment. */
static int coherence_node_versions(struct coherence_node *n, const struct json *root)
{
	const struct json *ver = json_get(root, "versions"), *pairs = json_get(root, "pairs");
	const char *seen[COHERENCE_NODE_PAIRS_MAX];
	const char *installer = json_get_string(ver, "installer"), *expected = json_get_string(ver, "expectedDaemon");
	size_t n_nics = 0;

	if ((installer && *installer && !(n->installer = strbuf_printable(installer, COHERENCE_NODE_VALUE_MAX))) ||
	    (expected && *expected && !(n->expected = strbuf_printable(expected, COHERENCE_NODE_VALUE_MAX))))
		return -ENOMEM;
	if (json_type(pairs) != JSON_ARRAY || json_size(pairs) > COHERENCE_NODE_PAIRS_MAX)
		return 0;
	for (const struct json *e = json_first(pairs); e; e = json_next(e)) {
		const char *nic = json_get_string(e, "nic");
		size_t k = 0;

		while (nic && k < n_nics && strcmp(seen[k], nic) != 0)
			k++;
		if (nic && k == n_nics)
			seen[n_nics++] = nic;
	}
	if (coherence_node_count_text(json_size(pairs), &n->gpus) < 0 ||
	    coherence_node_count_text(n_nics, &n->nics) < 0)
		return -ENOMEM;
	return 0;
}

/* The "checks" list of the attachment: keep the failed ones. Tolerates its absence. */
static int coherence_node_checks(struct coherence_node *n, const struct json *root)
{
	const struct json *checks = json_get(root, "checks");

	if (json_type(root) != JSON_OBJECT || (checks && json_type(checks) != JSON_ARRAY)) {
		n->attach = COHERENCE_NODE_ATTACH_BAD;
		return 0;
	}
	n->attach = COHERENCE_NODE_ATTACH_OK;
	for (const struct json *e = json_first(checks); e && n->n_fails < COHERENCE_NODE_FAILS_MAX; e = json_next(e)) {
		const char *id = json_get_string(e, "id");
		const char *status = json_get_string(e, "status");
		const char *msg = json_get_string(e, "message");
		struct coherence_node_fail *f;

		if (!id || !*id || !status || strcmp(status, "fail") != 0)
			continue;
		if (!n->fails && !(n->fails = calloc(COHERENCE_NODE_FAILS_MAX, sizeof(*n->fails))))
			return -ENOMEM;
		f = &n->fails[n->n_fails++];
		f->id = strbuf_printable(id, COHERENCE_NODE_ID_MAX);
		f->message = strbuf_printable(msg ? msg : "", COHERENCE_NODE_TEXT_MAX);
		if (!f->id || !f->message)
			return -ENOMEM;
	}
	return 0;
}

/*
 * The attachment annotation, parsed here once: its versions and pairs for every node and, with
 * @checks (a TCPXO node), its failed checks. Unreadable or too large: the facts stay unknown and
 * a TCPXO node's attachment is COHERENCE_NODE_ATTACH_BAD.
 */
static int coherence_node_attachment(struct coherence_node *n, const char *text, bool checks)
{
	struct json *root = NULL;
	int r;

	if (strlen(text) > COHERENCE_NODE_ATTACHMENT_MAX) {
		if (checks)
			n->attach = COHERENCE_NODE_ATTACH_BAD;
		return 0;
	}
	r = json_parse(text, strlen(text), &root);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (checks)
			n->attach = COHERENCE_NODE_ATTACH_BAD;
		return 0;
	}
	r = coherence_node_versions(n, root);
	if (r == 0 && checks)
		r = coherence_node_checks(n, root);
	json_free(root);
	return r;
}

static int coherence_node_taints(struct coherence_node *n, const struct nodelist_item *it)
{
	if (!it->n_taints)
		return 0;
	n->taints = calloc(it->n_taints, sizeof(*n->taints));
	if (!n->taints)
		return -ENOMEM;
	for (size_t i = 0; i < it->n_taints; i++) {
		struct coherence_node_taint *t = &n->taints[n->n_taints++];

		if (coherence_node_text(&it->taints[i].key, &t->key) < 0 ||
		    coherence_node_text(&it->taints[i].value, &t->value) < 0 ||
		    coherence_node_text(&it->taints[i].effect, &t->effect) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int coherence_node_interfaces(struct coherence_node *n, const struct jsonscan_field *v)
{
	struct strbuf why = { 0 };
	struct profile_iface *m = NULL;
	const char *text = v->s;
	size_t cnt = 0;
	int r;

	if (!v->present) {
		n->map = COHERENCE_NODE_MAP_MISSING;
		return 0;
	}
	if (!text) {
		n->map = COHERENCE_NODE_MAP_MALFORMED;
		return 0;
	}
	r = ifacemap_parse(text, strlen(text), &m, &cnt);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		n->map = COHERENCE_NODE_MAP_MALFORMED;
		return 0;
	}
	r = ifacemap_validate(m, cnt, &why);
	if (r == 0) {
		n->map = COHERENCE_NODE_MAP_VALID;
		memcpy(n->ifaces, m, sizeof(n->ifaces));
		/* The naming rule is judged at evaluation: coherence_set_any_names() may lift it. */
		strbuf_free(&why);
		r = ifacemap_renderer_names(m, cnt, &why);
		if (r == -EINVAL) {
			n->names_why = strbuf_printable(why.s ? why.s : "", 4 * COHERENCE_NODE_TEXT_MAX);
			r = n->names_why ? 0 : -ENOMEM;
		}
	} else if (r == -EINVAL) {
		n->map = COHERENCE_NODE_MAP_INVALID;
		n->map_why = strbuf_printable(why.s ? why.s : "", 4 * COHERENCE_NODE_TEXT_MAX);
		r = n->map_why ? 0 : -ENOMEM;
	}
	free(m);
	strbuf_free(&why);
	return r;
}

static enum coherence_node_kind coherence_node_kind(const struct nodelist_item *it)
{
	const char *p = it->profile.s;

	if (!it->profile.present)
		return it->itype.s && strcmp(it->itype.s, COHERENCE_NODE_INSTANCE_TYPE) == 0 ?
			COHERENCE_NODE_KIND_UNOBSERVED : COHERENCE_NODE_KIND_OTHER;
	if (p && strcmp(p, "tcpxo") == 0)
		return COHERENCE_NODE_KIND_TCPXO;
	if (p && strcmp(p, "tcpx") == 0)
		return COHERENCE_NODE_KIND_TCPX;
	if (p && strcmp(p, "none") == 0)
		return COHERENCE_NODE_KIND_NONE;
	return COHERENCE_NODE_KIND_OTHER;
}

static enum coherence_node_ready coherence_node_ready(const struct jsonscan_field *ready)
{
	if (!ready->present)
		return COHERENCE_NODE_READY_MISSING;
	if (ready->s && strcmp(ready->s, "true") == 0)
		return COHERENCE_NODE_READY_TRUE;
	if (ready->s && strcmp(ready->s, "false") == 0)
		return COHERENCE_NODE_READY_FALSE;
	return COHERENCE_NODE_READY_BAD;
}

/* Our condition: its status, and its heartbeat as printable text (the fleet's status parses it). */
static int coherence_node_condition(struct coherence_node *n, const struct nodelist_condition *c)
{
	const char *s = c->status.s;

	if (!c->present)
		return 0;
	n->cond = s && strcmp(s, "True") == 0 ? COHERENCE_NODE_COND_TRUE :
		  s && strcmp(s, "False") == 0 ? COHERENCE_NODE_COND_FALSE : COHERENCE_NODE_COND_UNKNOWN;
	if (coherence_node_text(&c->heartbeat, &n->heartbeat) < 0)
		return -ENOMEM;
	return 0;
}

/* What every node keeps: the runtime check groups the nodes of either fabric by these. */
static int coherence_node_published(struct coherence_node *n, const struct nodelist_item *it)
{
	int r;

	if (coherence_node_text(&it->itype, &n->itype) < 0 || coherence_node_text(&it->accelerator, &n->accel) < 0 ||
	    coherence_node_text(&it->pool, &n->pool) < 0)
		return -ENOMEM;
	/* The failed checks of every node with a profile: the fleet's status lists them. */
	if (it->attachment.s && (r = coherence_node_attachment(n, it->attachment.s, it->profile.present)) < 0)
		return r;
	if ((r = coherence_node_condition(n, &it->condition)) < 0)
		return r;
	return coherence_node_taints(n, it);
}

int coherence_node_read(struct coherence_node *n, const struct nodelist_item *it)
{
	const char *ready = it->ready.s;
	int r;

	memset(n, 0, sizeof(*n));
	n->name = strbuf_printable(it->name.s, NODELIST_NAME_MAX);
	if (!n->name)
		return -ENOMEM;
	n->kind = coherence_node_kind(it);
	n->dranet = it->dranet.s && strcmp(it->dranet.s, "true") == 0;
	if (coherence_node_text(&it->profile, &n->profile) < 0)
		return -ENOMEM;
	n->ready = coherence_node_ready(&it->ready);
	if (it->profile.present && !it->attachment.present)
		n->attach = COHERENCE_NODE_ATTACH_MISSING;
	else if (it->profile.present && !it->attachment.s)
		n->attach = COHERENCE_NODE_ATTACH_BAD;
	if ((r = coherence_node_published(n, it)) < 0)
		return r;
	/* The judgement of the mapping weighs TCPXO nodes alone: only they keep more. */
	if (n->kind != COHERENCE_NODE_KIND_TCPXO)
		return 0;
	if (n->ready == COHERENCE_NODE_READY_BAD) {
		n->ready_value = strbuf_printable(ready ? ready : "(not a string)", COHERENCE_NODE_ID_MAX);
		if (!n->ready_value)
			return -ENOMEM;
	}
	return coherence_node_interfaces(n, &it->interfaces);
}
