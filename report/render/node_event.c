/* node_event.c - reason, type and a bounded note for the Event of a node whose ready, profile or runtime changed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/strbuf.h"
#include "report/render/node_event.h"

/* "key old→new" for one of the three keys when @want changes it; nothing otherwise. */
static void node_event_change(struct strbuf *sb, const char **sep, const struct annotations *want,
			      const struct kube_annotation cur[KUBE_ANN__COUNT], enum kube_ann_key key)
{
	const char *was = cur[key].present ? (cur[key].value ? cur[key].value : "(too long)") : "(none)";
	const char *now = want->value[key] ? want->value[key] : "(none)";

	if (!want->set[key] || strcmp(was, now) == 0)
		return;
	strbuf_appendf(sb, "%s%s %s→%s", *sep, obs_kube_ann_name(key), was, now);
	*sep = ", ";
}

bool node_event_build(const struct profile *p, const struct annotations *want,
		      const struct kube_annotation cur[KUBE_ANN__COUNT], struct node_event *ret)
{
	struct strbuf sb = { 0 };
	const char *sep = "";
	size_t n = 0;           /* failed checks named */
	char *text;

	if (!annotations_transition(want, cur))
		return false;
	memset(ret, 0, sizeof(*ret));
	ret->type = p->ready ? "Normal" : "Warning";
	ret->reason = p->ready ? "FabricReady" : "FabricNotReady";
	ret->action = "Check";
	strbuf_appendf(&sb, "%s. Changed: ", p->summary ? p->summary : "");
	node_event_change(&sb, &sep, want, cur, KUBE_ANN_READY);
	node_event_change(&sb, &sep, want, cur, KUBE_ANN_PROFILE);
	node_event_change(&sb, &sep, want, cur, KUBE_ANN_RUNTIME);
	strbuf_append(&sb, ".");
	for (size_t i = 0; i < CHECK__COUNT; i++)
		if (p->checks[i].status == CHECK_FAIL)
			strbuf_appendf(&sb, "%s%s", n++ ? ", " : " Failed checks: ", check_id_name((enum check_id)i));
	if (n)
		strbuf_append(&sb, ".");
	/* kubectl describe shows the note: printable, and the "…" mark (3 bytes) within the bound. */
	text = sb.oom ? NULL : strbuf_printable(sb.s ? sb.s : "", NODE_EVENT_NOTE_MAX - 3);
	snprintf(ret->note, sizeof(ret->note), "%s", text ? text : (p->ready ? "fabric ready" : "fabric not ready"));
	free(text);
	strbuf_free(&sb);
	return true;
}
