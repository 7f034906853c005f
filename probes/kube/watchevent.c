/* watchevent.c - pure: one line of a Kubernetes watch stream, {"type": ..., "object": {...}}. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubejson.h"
#include "probes/kube/watchevent.h"
#include "probes/model/errmsg.h"
#include "probes/model/strbuf.h"

static const char *const watchevent_names[] = {
	[WATCHEVENT_ADDED] = "ADDED",
	[WATCHEVENT_MODIFIED] = "MODIFIED",
	[WATCHEVENT_DELETED] = "DELETED",
	[WATCHEVENT_BOOKMARK] = "BOOKMARK",
	[WATCHEVENT_ERROR] = "ERROR",
};

const char *watchevent_type_name(enum watchevent_type t)
{
	return (size_t)t < sizeof(watchevent_names) / sizeof(watchevent_names[0]) ? watchevent_names[t] : "?";
}

bool watchevent_rv_valid(const char *s)
{
	size_t n = 0;

	if (!s)
		return false;
	for (; *s; s++, n++) {
		char ch = *s;

		if (n >= WATCHEVENT_RV_MAX - 1)
			return false;
		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      ch == '.' || ch == '_' || ch == '~' || ch == '-'))
			return false;
	}
	return n > 0;
}

bool watchevent_key(const struct json *obj, const char **ns, const char **name)
{
	const struct json *meta = json_get(obj, "metadata"), *n = json_get(meta, "namespace");

	*name = json_get_string(meta, "name");
	*ns = json_get_string(meta, "namespace");
	if (!*ns)
		*ns = "";
	return json_type(obj) == JSON_OBJECT && *name && **name && (!n || json_string(n) || json_type(n) == JSON_NULL);
}

void watchevent_free(struct watchevent *ev)
{
	if (!ev)
		return;
	json_free(ev->root);
	memset(ev, 0, sizeof(*ev));
	ev->name = ev->ns = "";
}

static int watchevent_meta(struct watchevent *ev, const struct json *meta, bool named, char *err, size_t errlen)
{
	int r;

	if (!meta)
		return errmsg_set(err, errlen, -EINVAL, "%s event: object.metadata: missing", watchevent_type_name(ev->type));
	r = kubejson_str(meta, "resourceVersion", ev->resource_version, sizeof(ev->resource_version),
			 "object.metadata", err, errlen);
	if (r < 0)
		return r;
	if (!ev->resource_version[0])
		return errmsg_set(err, errlen, -EINVAL, "%s event: object.metadata.resourceVersion: missing",
				  watchevent_type_name(ev->type));
	if (!watchevent_rv_valid(ev->resource_version))
		return errmsg_set(err, errlen, -EINVAL, "%s event: object.metadata.resourceVersion: not 1..63 of [A-Za-z0-9._~-]",
				  watchevent_type_name(ev->type));
	if (!named)
		return 0;
	/* Whatever the name holds, a store keys the object by it; none at all (or no string): set aside. */
	if (!watchevent_key(ev->object, &ev->ns, &ev->name))
		ev->name = "";
	return 0;
}

static int watchevent_status(struct watchevent *ev, char *err, size_t errlen)
{
	const struct json *code = json_get(ev->object, "code");
	double d;

	/* The range first: casting a huge double to long is undefined. */
	if (!json_number(code, &d) || !(d >= 1 && d <= 999) || d != (double)(long)d)
		return errmsg_set(err, errlen, -EINVAL, "ERROR event: object.code: expected the Status code (1..999), got %s",
				  kubejson_tname(code));
	ev->code = (long)d;
	strbuf_printable_into(ev->reason, sizeof(ev->reason), json_get_string(ev->object, "reason"));
	strbuf_printable_into(ev->message, sizeof(ev->message), json_get_string(ev->object, "message"));
	return 0;
}

int watchevent_parse(const char *line, size_t len, struct watchevent *ev, char *err, size_t errlen)
{
	const struct json *type, *meta = NULL;
	const char *t;
	size_t i;
	int r;

	memset(ev, 0, sizeof(*ev));
	ev->name = ev->ns = "";
	if (err && errlen)
		err[0] = '\0';
	if (!line)
		len = 0;
	while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r' || line[len - 1] == ' ' ||
			   line[len - 1] == '\t'))
		len--;
	if (len == 0)
		return errmsg_set(err, errlen, -EINVAL, "empty line");
	r = json_parse(line, len, &ev->root);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		errmsg_set(err, errlen, 0, "not JSON (or nested deeper than %d)", JSON_MAX_DEPTH);
		goto fail;
	}
	if (json_type(ev->root) != JSON_OBJECT) {
		errmsg_set(err, errlen, 0, "expected an object {\"type\", \"object\"}, got %s", kubejson_tname(ev->root));
		goto fail;
	}
	type = json_get(ev->root, "type");
	t = json_string(type);
	if (!t) {
		errmsg_set(err, errlen, 0, "type: expected a string, got %s", kubejson_tname(type));
		goto fail;
	}
	for (i = 0; i < sizeof(watchevent_names) / sizeof(watchevent_names[0]); i++)
		if (strcmp(t, watchevent_names[i]) == 0)
			break;
	if (i == sizeof(watchevent_names) / sizeof(watchevent_names[0])) {
		char p[36];

		strbuf_printable_into(p, sizeof(p), t);
		errmsg_set(err, errlen, 0, "type: unknown event type \"%s\"", p);
		goto fail;
	}
	ev->type = (enum watchevent_type)i;
	ev->object = json_get(ev->root, "object");
	if (json_type(ev->object) != JSON_OBJECT) {
		errmsg_set(err, errlen, 0, "%s event: object: expected an object, got %s", t, kubejson_tname(ev->object));
		goto fail;
	}
	if (kubejson_str(ev->object, "kind", ev->kind, sizeof(ev->kind), "object", err, errlen) < 0)
		goto fail;
	if (ev->type != WATCHEVENT_ERROR &&
	    kubejson_opt(ev->object, "metadata", JSON_OBJECT, &meta, "object", err, errlen) < 0)
		goto fail;

	switch (ev->type) {
	case WATCHEVENT_ADDED:
	case WATCHEVENT_MODIFIED:
	case WATCHEVENT_DELETED:
		r = watchevent_meta(ev, meta, true, err, errlen);
		break;
	case WATCHEVENT_BOOKMARK:
		r = watchevent_meta(ev, meta, false, err, errlen);
		if (r == 0) {
			const struct json *ann = json_get(meta, "annotations");
			const char *end = json_get_string(ann, "k8s.io/initial-events-end");

			ev->initial_events_end = end && strcmp(end, "true") == 0;
		}
		break;
	case WATCHEVENT_ERROR:
		r = watchevent_status(ev, err, errlen);
		break;
	}
	if (r < 0)
		goto fail;
	return 0;

fail:
	watchevent_free(ev);
	return -EINVAL;
}
