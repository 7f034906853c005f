/* kube_event.c - the events.k8s.io/v1 Event object of a Node or Pod Event, its name and its limits. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "probes/model/json.h"
#include "report/render/kube_event.h"

static bool kube_event_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int kube_event_name(const char *regarding, uint64_t unique, char *buf, size_t len)
{
	char hex[17], base[KUBE_EVENT_NAME_MAX + 1];
	size_t k = 0, room;

	snprintf(hex, sizeof(hex), "%" PRIx64, unique);
	room = KUBE_EVENT_NAME_MAX - 1 - strlen(hex);
	for (const char *c = regarding ? regarding : ""; *c && k < room; c++)
		if (kube_event_alnum(*c) || ((*c == '-' || *c == '.') && k > 0))
			base[k++] = *c;
	/* A subdomain label ends in [a-z0-9], and the hex follows a dot. */
	while (k > 0 && !kube_event_alnum(base[k - 1]))
		k--;
	base[k] = '\0';
	if (snprintf(buf, len, "%s.%s", k ? base : "tcpxo-agent", hex) >= (int)len)
		return -ENOSPC;
	return 0;
}

static bool kube_event_field_ok(const char *s, size_t max)
{
	return s && *s && strlen(s) <= max;
}

int kube_event_render(const struct kube_event *e, char **ret)
{
	const struct kube_event_ref *g = &e->regarding;
	struct json *root, *meta, *reg;
	int r = -ENOMEM;

	if (!kube_event_field_ok(e->ns, 63) || !kube_event_field_ok(e->name, KUBE_EVENT_NAME_MAX) ||
	    !kube_event_field_ok(e->time, KUBE_EVENT_TIME_MAX) || !kube_event_field_ok(g->kind, 63) ||
	    !kube_event_field_ok(g->name, KUBE_EVENT_NAME_MAX) || !kube_event_field_ok(e->type, 16) ||
	    !kube_event_field_ok(e->reason, KUBE_EVENT_FIELD_MAX) || !kube_event_field_ok(e->action, KUBE_EVENT_FIELD_MAX) ||
	    !kube_event_field_ok(e->instance, KUBE_EVENT_FIELD_MAX) || (e->note && strlen(e->note) > KUBE_EVENT_NOTE_MAX))
		return -EINVAL;
	root = json_new_object();
	if (!root)
		return -ENOMEM;
	meta = json_new_object();
	if (json_add_string(root, "apiVersion", "events.k8s.io/v1") < 0 || json_add_string(root, "kind", "Event") < 0 ||
	    json_add(root, "metadata", meta) < 0 || json_add_string(meta, "name", e->name) < 0 ||
	    json_add_string(meta, "namespace", e->ns) < 0 || json_add_string(root, "eventTime", e->time) < 0 ||
	    json_add_string(root, "reportingController", KUBE_EVENT_CONTROLLER) < 0 ||
	    json_add_string(root, "reportingInstance", e->instance) < 0 || json_add_string(root, "action", e->action) < 0 ||
	    json_add_string(root, "reason", e->reason) < 0 || json_add_string(root, "type", e->type) < 0)
		goto out;
	reg = json_new_object();
	if (json_add(root, "regarding", reg) < 0 || json_add_string(reg, "apiVersion", "v1") < 0 ||
	    json_add_string(reg, "kind", g->kind) < 0 || json_add_string(reg, "name", g->name) < 0 ||
	    (g->ns && json_add_string(reg, "namespace", g->ns) < 0) ||
	    (g->uid && *g->uid && json_add_string(reg, "uid", g->uid) < 0))
		goto out;
	if (e->note && json_add_string(root, "note", e->note) < 0)
		goto out;
	*ret = json_print(root, false);
	r = *ret ? 0 : -ENOMEM;
out:
	json_free(root);
	return r;
}
