/* condition.c - the FabricReady node condition and the strategic merge patches that write and remove it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/json.h"
#include "probes/model/strbuf.h"
#include "report/render/condition.h"

/* @prefix and @s made printable and cut to CONDITION_MESSAGE_MAX bytes (strbuf_printable's mark included). */
static void condition_message(const char *prefix, const char *s, char *dst)
{
	struct strbuf sb = { 0 };
	char *text;

	strbuf_appendf(&sb, "%s%s", prefix, s ? s : "");
	/* "…" is three bytes: cut three short of the limit so the mark fits. */
	text = sb.s && !sb.oom ? strbuf_printable(sb.s, CONDITION_MESSAGE_MAX - 3) : NULL;
	snprintf(dst, CONDITION_MESSAGE_MAX + 1, "%s", text ? text : prefix);
	free(text);
	strbuf_free(&sb);
}

void condition_reason_of(enum check_id id, char *buf, size_t len)
{
	const char *name = check_id_name(id);
	size_t k = 0;
	bool up = true;

	for (const char *c = name; *c && k + 1 < len; c++) {
		if (*c == '-') {
			up = true;
			continue;
		}
		buf[k++] = up && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
		up = false;
	}
	if (len)
		buf[k] = '\0';
}

void condition_build(const struct profile *p, struct condition *ret)
{
	memset(ret, 0, sizeof(*ret));
	if (p->ready) {
		ret->status = "True";
		snprintf(ret->reason, sizeof(ret->reason), "%s", p->kind == PROFILE_TCPX ? "TCPXReady" :
			 p->kind == PROFILE_RDMA ? "RDMAReady" : "TCPXOReady");
	} else {
		ret->status = "False";
		snprintf(ret->reason, sizeof(ret->reason), "NoFabric");
		for (size_t i = 0; i < CHECK__COUNT; i++)
			if (p->checks[i].status == CHECK_FAIL) {
				condition_reason_of((enum check_id)i, ret->reason, sizeof(ret->reason));
				break;
			}
	}
	condition_message("", p->summary, ret->message);
}

void condition_unknown(const char *why, struct condition *ret)
{
	memset(ret, 0, sizeof(*ret));
	ret->status = "Unknown";
	snprintf(ret->reason, sizeof(ret->reason), "%s", CONDITION_UNKNOWN_REASON);
	condition_message("the node could not be observed: ", why, ret->message);
}

bool condition_differs(const struct condition *want, const struct kube_condition *have)
{
	return !have->present || have->reason_long || have->message_long || !have->message ||
	       strcmp(have->status, want->status) != 0 || strcmp(have->reason, want->reason) != 0 ||
	       strcmp(have->message, want->message) != 0;
}

/* {"status":{"conditions":[ENTRY]}} around @entry (taken, even on error), built from the inside out. */
static int condition_wrap(struct json *entry, char **ret)
{
	struct json *list = json_new_array(), *status = json_new_object(), *root = json_new_object();
	int r = json_append(list, entry);

	/* Each json_add() takes its child even on error (and refuses a NULL one): nothing leaks. */
	r |= json_add(status, "conditions", list);
	r |= json_add(root, "status", status);
	*ret = r < 0 ? NULL : json_print(root, false);
	json_free(root);
	return *ret ? 0 : -ENOMEM;
}

int condition_patch(const struct condition *want, const struct kube_condition *have, const char *now,
		    char **ret)
{
	struct json *e;
	bool transition = !have->present || strcmp(have->status, want->status) != 0;

	if (!now || strlen(now) >= KUBE_COND_TIME_MAX)
		return -EINVAL;
	e = json_new_object();
	if (!e)
		return -ENOMEM;
	if (json_add_string(e, "type", KUBE_CONDITION_TYPE) < 0 || json_add_string(e, "status", want->status) < 0 ||
	    json_add_string(e, "reason", want->reason) < 0 || json_add_string(e, "message", want->message) < 0 ||
	    json_add_string(e, "lastHeartbeatTime", now) < 0 ||
	    (transition && json_add_string(e, "lastTransitionTime", now) < 0)) {
		json_free(e);
		return -ENOMEM;
	}
	return condition_wrap(e, ret);
}

int condition_cleanup_patch(char **ret)
{
	struct json *e = json_new_object();

	if (!e || json_add_string(e, "$patch", "delete") < 0 || json_add_string(e, "type", KUBE_CONDITION_TYPE) < 0) {
		json_free(e);
		return -ENOMEM;
	}
	return condition_wrap(e, ret);
}

int condition_remember(struct kube_condition *have, const struct condition *want, const char *now)
{
	bool transition = !have->present || strcmp(have->status, want->status) != 0;
	char *msg = strdup(want->message);

	if (!msg) {
		obs_kube_condition_clear(have);
		return -ENOMEM;
	}
	free(have->message);
	have->message = msg;
	have->present = true;
	have->message_long = have->reason_long = false;
	snprintf(have->status, sizeof(have->status), "%s", want->status);
	snprintf(have->reason, sizeof(have->reason), "%s", want->reason);
	if (transition)
		snprintf(have->last_transition, sizeof(have->last_transition), "%s", now);
	snprintf(have->last_heartbeat, sizeof(have->last_heartbeat), "%s", now);
	return 0;
}
