/* coherence_node.c - pure: what one node of a NodeList publishes, read as the facts the coherence judgement weighs. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "report/fleet/coherence_node.h"

#define COHERENCE_NODE_TEXT_MAX 240     /* bytes of one message from an annotation we print */
#define COHERENCE_NODE_ID_MAX 64
#define COHERENCE_NODE_ATTACHMENT_MAX (64u << 10)

void coherence_node_clear(struct coherence_node *n)
{
	free(n->name);
	free(n->ready_value);
	free(n->map_why);
	free(n->names_why);
	for (size_t i = 0; i < n->n_fails; i++) {
		free(n->fails[i].id);
		free(n->fails[i].message);
	}
	free(n->fails);
	memset(n, 0, sizeof(*n));
}

/* The "checks" list of the attachment annotation: keep the failed ones. Tolerates its absence. */
static int coherence_node_attachment(struct coherence_node *n, const char *text)
{
	const struct json *checks;
	struct json *root = NULL;
	int r;

	if (strlen(text) > COHERENCE_NODE_ATTACHMENT_MAX) {
		n->attach = COHERENCE_NODE_ATTACH_BAD;
		return 0;
	}
	r = json_parse(text, strlen(text), &root);
	if (r == -ENOMEM)
		return r;
	if (r < 0 || json_type(root) != JSON_OBJECT) {
		n->attach = COHERENCE_NODE_ATTACH_BAD;
		goto out;
	}
	checks = json_get(root, "checks");
	if (!checks) {
		n->attach = COHERENCE_NODE_ATTACH_OK;
		goto out;
	}
	if (json_type(checks) != JSON_ARRAY) {
		n->attach = COHERENCE_NODE_ATTACH_BAD;
		goto out;
	}
	n->attach = COHERENCE_NODE_ATTACH_OK;
	for (const struct json *e = json_first(checks); e && n->n_fails < COHERENCE_NODE_FAILS_MAX; e = json_next(e)) {
		const char *id = json_get_string(e, "id");
		const char *status = json_get_string(e, "status");
		const char *msg = json_get_string(e, "message");
		struct coherence_node_fail *f;

		if (!id || !*id || !status || strcmp(status, "fail") != 0)
			continue;
		if (!n->fails) {
			n->fails = calloc(COHERENCE_NODE_FAILS_MAX, sizeof(*n->fails));
			if (!n->fails) {
				r = -ENOMEM;
				goto out;
			}
		}
		f = &n->fails[n->n_fails];
		f->id = strbuf_printable(id, COHERENCE_NODE_ID_MAX);
		f->message = strbuf_printable(msg ? msg : "", COHERENCE_NODE_TEXT_MAX);
		n->n_fails++;
		if (!f->id || !f->message) {
			r = -ENOMEM;
			goto out;
		}
	}
	r = 0;
out:
	json_free(root);
	return r < 0 && r != -EINVAL ? r : 0;
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

/* Keep one node's facts: only TCPXO nodes keep more than their name and kind. */
int coherence_node_read(struct coherence_node *n, const struct nodelist_item *it)
{
	const char *p = it->profile.s, *ready = it->ready.s;
	int r;

	memset(n, 0, sizeof(*n));
	n->name = strbuf_printable(it->name.s, NODELIST_NAME_MAX);
	if (!n->name)
		return -ENOMEM;

	if (!it->profile.present)
		n->kind = it->itype.s && strcmp(it->itype.s, COHERENCE_NODE_INSTANCE_TYPE) == 0 ?
			COHERENCE_NODE_KIND_UNOBSERVED : COHERENCE_NODE_KIND_OTHER;
	else if (p && strcmp(p, "tcpxo") == 0)
		n->kind = COHERENCE_NODE_KIND_TCPXO;
	else if (p && strcmp(p, "tcpx") == 0)
		n->kind = COHERENCE_NODE_KIND_TCPX;
	else if (p && strcmp(p, "none") == 0)
		n->kind = COHERENCE_NODE_KIND_NONE;
	else
		n->kind = COHERENCE_NODE_KIND_OTHER;
	if (n->kind != COHERENCE_NODE_KIND_TCPXO)
		return 0;

	if (!it->ready.present) {
		n->ready = COHERENCE_NODE_READY_MISSING;
	} else if (ready && strcmp(ready, "true") == 0) {
		n->ready = COHERENCE_NODE_READY_TRUE;
	} else if (ready && strcmp(ready, "false") == 0) {
		n->ready = COHERENCE_NODE_READY_FALSE;
	} else {
		n->ready = COHERENCE_NODE_READY_BAD;
		n->ready_value = strbuf_printable(ready ? ready : "(not a string)", COHERENCE_NODE_ID_MAX);
		if (!n->ready_value)
			return -ENOMEM;
	}

	r = coherence_node_interfaces(n, &it->interfaces);
	if (r < 0)
		return r;

	if (!it->attachment.present)
		n->attach = COHERENCE_NODE_ATTACH_MISSING;
	else if (!it->attachment.s)
		n->attach = COHERENCE_NODE_ATTACH_BAD;
	else if ((r = coherence_node_attachment(n, it->attachment.s)) < 0)
		return r;
	return 0;
}