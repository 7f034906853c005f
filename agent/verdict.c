/* verdict.c - what the daemon remembers of its last verdict, and what changed since (pure). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/verdict.h"

void verdict_free(struct verdict *v)
{
	for (size_t i = 0; i < CHECK__COUNT; i++)
		free(v->message[i]);
	memset(v, 0, sizeof(*v));
}

int verdict_set(struct verdict *v, const struct profile *p)
{
	verdict_free(v);
	v->ready = p->ready;
	v->kind = p->kind;
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		v->status[i] = p->checks[i].status;
		v->message[i] = strdup(p->checks[i].message ? p->checks[i].message : "");
		if (!v->message[i]) {
			verdict_free(v);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < p->n_nics && v->n_nics < VERDICT_NICS_MAX; i++, v->n_nics++) {
		snprintf(v->nics[i].bdf, sizeof(v->nics[i].bdf), "%s", p->nics[i].bdf);
		snprintf(v->nics[i].name, sizeof(v->nics[i].name), "%s", p->nics[i].name);
		v->nics[i].state = p->nics[i].state;
	}
	v->valid = true;
	return 0;
}

static const char *verdict_state_text(enum nic_state s)
{
	const char *n = nic_state_name(s);

	return n ? n : "unknown";
}

int verdict_diff(const struct verdict *old, const struct profile *p, struct strbuf *out)
{
	int n = 0;             /* changes said so far: each after the first follows "; " */

	if (!old->valid) {
		strbuf_appendf(out, "profile %s, ready %s", profile_kind_name(p->kind), p->ready ? "true" : "false");
		return out->oom ? -ENOMEM : 1;
	}
	if (old->kind != p->kind)
		strbuf_appendf(out, "%sprofile %s→%s", n++ ? "; " : "", profile_kind_name(old->kind),
			       profile_kind_name(p->kind));
	if (old->ready != p->ready)
		strbuf_appendf(out, "%sready %s→%s", n++ ? "; " : "", old->ready ? "true" : "false",
			       p->ready ? "true" : "false");
	for (size_t i = 0; i < CHECK__COUNT; i++) {
		const struct finding *c = &p->checks[i];
		const char *msg = c->message ? c->message : "";

		if (old->status[i] == c->status && strcmp(old->message[i], msg) == 0)
			continue;
		if (old->status[i] != c->status)
			strbuf_appendf(out, "%s%s %s→%s: %s", n++ ? "; " : "", check_id_name((enum check_id)i),
				       check_status_name(old->status[i]), check_status_name(c->status), msg);
		else
			strbuf_appendf(out, "%s%s: %s", n++ ? "; " : "", check_id_name((enum check_id)i), msg);
	}
	/* NIC states by BDF: in-pod and back changes no check, yet it is worth a line. */
	for (size_t i = 0; i < p->n_nics && i < VERDICT_NICS_MAX; i++) {
		const struct profile_nic *nic = &p->nics[i];
		const char *name = nic->name[0] ? nic->name : nic->bdf;
		size_t found = old->n_nics;     /* its place in @old, the last match; n_nics: absent */

		for (size_t j = 0; j < old->n_nics; j++)
			if (strcmp(old->nics[j].bdf, nic->bdf) == 0)
				found = j;
		if (found < old->n_nics && old->nics[found].state == nic->state)
			continue;
		/* A NIC in a pod has no name here without the API's nic-info: keep the one it had. */
		if (!nic->name[0] && found < old->n_nics && old->nics[found].name[0])
			name = old->nics[found].name;
		strbuf_appendf(out, "%snic %s %s→%s", n++ ? "; " : "", name,
			       found < old->n_nics ? verdict_state_text(old->nics[found].state) : "absent",
			       verdict_state_text(nic->state));
	}
	for (size_t j = 0; j < old->n_nics; j++) {
		bool found = false;

		for (size_t i = 0; i < p->n_nics; i++)
			found |= strcmp(old->nics[j].bdf, p->nics[i].bdf) == 0;
		if (found)
			continue;
		strbuf_appendf(out, "%snic %s %s→absent", n++ ? "; " : "",
			       old->nics[j].name[0] ? old->nics[j].name : old->nics[j].bdf,
			       verdict_state_text(old->nics[j].state));
	}
	return out->oom ? -ENOMEM : n;
}

/* Whether the verdict itself (profile, ready, a check's status) differs from @v's. */
bool verdict_moved(const struct verdict *v, const struct profile *p)
{
	if (!v->valid || v->kind != p->kind || v->ready != p->ready)
		return true;
	for (size_t i = 0; i < CHECK__COUNT; i++)
		if (v->status[i] != p->checks[i].status)
			return true;
	return false;
}
