/* kubepod.c - one Pod or pod template (JSON value) -> struct pod (pure, bounded), read by field tables. */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubejson.h"
#include "probes/kube/kubepod.h"
#include "probes/model/errmsg.h"
#include "probes/model/timetext.h"

#define KUBEPOD_KEY_MAX 317             /* a qualified key: prefix (253) + '/' + name (63) */

static int kubepod_oom(char *err, size_t errlen)
{
	return errmsg_set(err, errlen, -ENOMEM, "out of memory");
}

/* A map of strings (labels, annotations, nodeSelector) into the struct pod_kvs at f->off: keys and values (f->max) bounded. */
static int kubepod_kvs(const struct json *obj, const struct kubejson_field *f, void *dst, const char *where,
		       char *err, size_t errlen)
{
	struct pod_kvs *ret = (struct pod_kvs *)((char *)dst + f->off);
	const char *key = f->key;
	size_t vmax = f->max, i = 0;
	const struct json *m;
	int r;

	r = kubejson_opt(obj, key, JSON_OBJECT, &m, where, err, errlen);
	if (r < 0 || !m || json_size(m) == 0)
		return r;
	if (json_size(m) > KUBEPOD_LIST_MAX)
		return errmsg_set(err, errlen, -EINVAL, "%s.%s: %zu entries, at most %u are read", where, key, json_size(m),
				  KUBEPOD_LIST_MAX);
	ret->v = calloc(json_size(m), sizeof(*ret->v));
	if (!ret->v)
		return kubepod_oom(err, errlen);
	ret->n = json_size(m);
	for (const struct json *e = json_first(m); e; e = json_next(e), i++) {
		const char *k = json_key(e), *s = json_string(e);

		if (!s)
			return errmsg_set(err, errlen, -EINVAL, "%s.%s[%.64s]: expected a string, got %s", where, key, k,
					  kubejson_tname(e));
		if (strlen(k) > KUBEPOD_KEY_MAX || strnlen(s, vmax + 1) > vmax)
			return errmsg_set(err, errlen, -EINVAL, "%s.%s[%.64s]: longer than %zu characters", where, key, k,
					  strlen(k) > KUBEPOD_KEY_MAX ? (size_t)KUBEPOD_KEY_MAX : vmax);
		ret->v[i].key = strdup(k);
		ret->v[i].value = strdup(s);
		if (!ret->v[i].key || !ret->v[i].value)
			return kubepod_oom(err, errlen);
	}
	return 0;
}

/* *@v = *@v * @m when it stays within @max. Return: false on overflow. */
static bool kubepod_mul(unsigned long long *v, unsigned long long m, unsigned long long max)
{
	if (*v && m > max / *v)
		return false;
	*v *= m;
	return true;
}

/*
 * The decimal (n u m "" k M G T P E) and binary (Ki .. Ei) suffixes of a Kubernetes quantity:
 * *@e10 the power of ten, *@b2 the power of two. Return: false for anything else.
 */
static bool kubepod_suffix(const char *s, int *e10, int *b2)
{
	static const struct {
		const char *text;
		int e10, b2;
	} table[] = {
		{ "n", -9, 0 }, { "u", -6, 0 }, { "m", -3, 0 }, { "", 0, 0 }, { "k", 3, 0 }, { "M", 6, 0 },
		{ "G", 9, 0 }, { "T", 12, 0 }, { "P", 15, 0 }, { "E", 18, 0 }, { "Ki", 0, 10 }, { "Mi", 0, 20 },
		{ "Gi", 0, 30 }, { "Ti", 0, 40 }, { "Pi", 0, 50 }, { "Ei", 0, 60 },
	};

	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		if (strcmp(s, table[i].text) == 0) {
			*e10 = table[i].e10;
			*b2 = table[i].b2;
			return true;
		}
	}
	return false;
}

/*
 * kubepod_quantity_text() - a quantity by the API's grammar (resource.Quantity: an optional
 * sign, digits with an optional fraction, then a decimal or binary SI suffix or an exponent
 * "e"/"E" and a signed integer: "8", "1k", "1000m", "2e3", "1Ki", "+8.0") as a whole number in
 * [0, @max] into *@ret. Return: 0; -EINVAL with @why (static text) when it is not one.
 */
static int kubepod_quantity_text(const char *s, unsigned long long max, unsigned long long *ret, const char **why)
{
	unsigned long long v = 0;
	unsigned __int128 x;
	long long zeros = 0, frac = 0, exp10;
	bool neg = false, digits = false, dot = false;
	int e10 = 0, b2 = 0;
	const char *p = s;

	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
		if (*p == '.') {
			dot = true;
			continue;
		}
		digits = true;
		frac += dot;
		/* Zeros are counted, not multiplied in: "1000000000000000000000n" is 10^12. */
		if (*p == '0') {
			zeros += zeros < 1000000;
			continue;
		}
		for (; zeros > 0; zeros--)
			if (!kubepod_mul(&v, 10, ULLONG_MAX / 10))
				goto big;
		if (!kubepod_mul(&v, 10, ULLONG_MAX - 9))
			goto big;
		v += (unsigned long long)(*p - '0');
	}
	if (!digits)
		return *why = "not a number", -EINVAL;
	if (kubepod_suffix(p, &e10, &b2)) {
		/* "E" and "Ei" are suffixes; any other "e"/"E" starts an exponent. */
	} else if (*p == 'e' || *p == 'E') {
		char *end;
		long e;

		if (!((p[1] >= '0' && p[1] <= '9') || ((p[1] == '+' || p[1] == '-') && p[2] >= '0' && p[2] <= '9')))
			return *why = p[1] ? "an exponent must be a whole number" : "not a Kubernetes quantity", -EINVAL;
		errno = 0;
		e = strtol(p + 1, &end, 10);
		if (*end || errno || e > 1000 || e < -1000)
			return *why = "an exponent must be a whole number (at most 1000)", -EINVAL;
		e10 = (int)e;
	} else {
		return *why = "not a Kubernetes quantity", -EINVAL;
	}
	if (v == 0) {
		*ret = 0;
		return 0;               /* "0", "-0", "0.0Ki": nothing, whatever the scale */
	}
	if (neg)
		return *why = "a negative number", -EINVAL;
	exp10 = zeros - frac + e10;
	/* Exact: at most 2^64 * 2^60 before the tens are divided out ("0.5Ki" is 512). */
	x = (unsigned __int128)v << b2;
	for (; exp10 < 0; exp10++) {
		if (x % 10)
			return *why = "not a whole number", -EINVAL;
		x /= 10;
	}
	for (; exp10 > 0 && x <= max; exp10--)
		x *= 10;
	if (x > max)
		goto big;
	*ret = (unsigned long long)x;
	return 0;
big:
	return *why = "larger than the agent counts", -EINVAL;
}

/* A whole-number quantity ("8", "1k", "1000m", "2e3", "1Ki", or a JSON number); nothing else is a GPU count. */
static int kubepod_quantity(const struct json *v, long long *ret, const char *where, char *err, size_t errlen)
{
	const char *s = json_string(v), *why;
	unsigned long long n;
	double d;

	if (s) {
		if (kubepod_quantity_text(s, (unsigned long long)KUBEPOD_GPUS_MAX, &n, &why) < 0)
			return errmsg_set(err, errlen, -EINVAL, "%s: '%.32s' is not a whole number of GPUs (%s)", where, s,
					  why);
		*ret = (long long)n;
		return 0;
	}
	if (json_number(v, &d) && d >= 0 && d <= (double)KUBEPOD_GPUS_MAX && d == (double)(long long)d) {
		*ret = (long long)d;
		return 0;
	}
	return errmsg_set(err, errlen, -EINVAL, "%s: expected a whole number of GPUs, got %s", where, kubejson_tname(v));
}

/* resources.limits or .requests (f->key) [nvidia.com/gpu] into the long long at f->off. */
static int kubepod_gpus(const struct json *res, const struct kubejson_field *f, void *dst, const char *where,
			char *err, size_t errlen)
{
	const struct json *m, *q;
	char w[KUBEJSON_WHERE];

	if (kubejson_opt(res, f->key, JSON_OBJECT, &m, where, err, errlen) < 0)
		return -EINVAL;
	q = json_get(m, "nvidia.com/gpu");
	if (!q || json_type(q) == JSON_NULL)
		return 0;
	kubejson_at(w, where, ".%s[nvidia.com/gpu]", f->key);
	return kubepod_quantity(q, (long long *)((char *)dst + f->off), w, err, errlen);
}

/* An env entry's value: a literal, even empty, is held; valueFrom, or one too long to be read, is unknown (NULL). */
static int kubepod_env_value(const struct json *e, const struct kubejson_field *f, void *dst, const char *where,
			     char *err, size_t errlen)
{
	struct pod_kv *kv = dst;
	const char *value = json_get_string(e, "value");
	int r;

	if (value && strnlen(value, KUBEPOD_ENV_VALUE_MAX + 1) > KUBEPOD_ENV_VALUE_MAX)
		return 0;
	r = kubejson_dup(e, "value", KUBEPOD_ENV_VALUE_MAX, &kv->value, where, err, errlen);
	if (r < 0 || kv->value || json_get(e, "valueFrom"))
		return r;
	return (kv->value = strdup("")) ? 0 : kubepod_oom(err, errlen);
}

static const struct kubejson_field kubepod_env[] = {
	KUBEJSON_ROW_NEED("name", pod_kv, key, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubepod_mount[] = {
	KUBEJSON_ROW_DUP("name", pod_mount, name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_DUP("mountPath", pod_mount, path, KUBEPOD_PATH_MAX),
	KUBEJSON_ROW_BOOL("readOnly", pod_mount, read_only),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubepod_container_fields[] = {
	KUBEJSON_ROW_NEED("name", pod_container, name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_DUP("image", pod_container, image, KUBEPOD_IMAGE_MAX),
	KUBEJSON_ROW_STRINGS("command", pod_container, command, n_command, KUBEPOD_LIST_MAX, KUBEPOD_ARG_MAX),
	KUBEJSON_ROW_STRINGS("args", pod_container, args, n_args, KUBEPOD_LIST_MAX, KUBEPOD_ARG_MAX),
	KUBEJSON_ROW_OBJECTS("env", pod_container, env.v, env.n, KUBEPOD_LIST_MAX, kubepod_env, kubepod_env_value),
	KUBEJSON_ROW_OBJECTS("volumeMounts", pod_container, mounts, n_mounts, KUBEPOD_VOLUMES_MAX, kubepod_mount, NULL),
	KUBEJSON_ROW_BOOL("securityContext.privileged", pod_container, privileged),
	KUBEJSON_ROW_STRINGS("securityContext.capabilities.add", pod_container, cap_add, n_cap_add, KUBEPOD_SMALL_MAX, 64),
	KUBEJSON_ROW_CALL("resources.limits", pod_container, gpu_limit, 0, kubepod_gpus),
	KUBEJSON_ROW_CALL("resources.requests", pod_container, gpu_request, 0, kubepod_gpus),
	KUBEJSON_ROW_END,
};

/* A whole number member of @obj within (@lo, 10^9), as the API writes counts and exit codes: *@d. */
static bool kubepod_number(const struct json *obj, const char *key, double lo, double *d)
{
	return json_number(json_get(obj, key), d) && *d > lo && *d < 1e9;
}

/* state: the first of waiting, running, terminated present; its reason, start, exit code. */
static int kubepod_state(const struct json *st, const struct kubejson_field *f, void *dst, const char *where,
			 char *err, size_t errlen)
{
	static const char *const states[] = { "waiting", "running", "terminated" };
	struct pod_cstatus *out = dst;
	const struct json *state, *s, *at;
	char w[KUBEJSON_WHERE];
	double d;
	int r;

	if ((r = kubejson_opt(st, f->key, JSON_OBJECT, &state, where, err, errlen)) < 0)
		return r;
	kubejson_at(w, where, ".state");
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		if ((r = kubejson_opt(state, states[i], JSON_OBJECT, &s, w, err, errlen)) < 0)
			return r;
		if (!s)
			continue;
		out->state = (enum pod_cstate)(POD_CSTATE_WAITING + i);
		kubejson_at(w, where, ".state.%s", states[i]);
		if ((r = kubejson_dup(s, "reason", KUBEPOD_NAME_MAX, &out->reason, w, err, errlen)) < 0)
			return r;
		if (kubepod_number(s, "exitCode", -1e9, &d))
			out->exit_code = (int)d;
		at = json_get(s, "startedAt");
		if (out->state != POD_CSTATE_RUNNING || !at || json_type(at) == JSON_NULL)
			return 0;
		if (!json_string(at))
			return errmsg_set(err, errlen, -EINVAL, "%s.startedAt: expected a string, got %s", w, kubejson_tname(at));
		if (timetext_parse(json_string(at), &out->started_at) < 0)
			return errmsg_set(err, errlen, -EINVAL, "%s.startedAt: not an RFC 3339 time: \"%.64s\"", w,
					  json_string(at));
		return 0;
	}
	return 0;
}

/* lastState.terminated, when present: its exit code (the reason is the table's). */
static int kubepod_last(const struct json *term, const struct kubejson_field *f, void *dst, const char *where,
			char *err, size_t errlen)
{
	struct pod_cstatus *out = dst;
	double d;

	out->has_last = true;
	if (kubepod_number(term, "exitCode", -1e9, &d))
		out->last_exit_code = (int)d;
	return 0;
}

static const struct kubejson_field kubepod_cstatus[] = {
	KUBEJSON_ROW_DUP("imageID", pod_cstatus, image_id, KUBEPOD_IMAGE_MAX + 512),
	KUBEJSON_ROW_DUP("containerID", pod_cstatus, container_id, KUBEPOD_CONTAINER_ID_MAX),
	KUBEJSON_ROW_TRUE("ready", pod_cstatus, ready),
	KUBEJSON_ROW_FN("state", kubepod_state),
	KUBEJSON_ROW_DUP("lastState.terminated.reason", pod_cstatus, last_reason, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_OBJECT("lastState.terminated", NULL, kubepod_last),
	KUBEJSON_ROW_END,
};

/* The status entry named @name in @statuses (an array or NULL). */
static const struct json *kubepod_status_of(const struct json *statuses, const char *name)
{
	for (const struct json *s = json_first(statuses); s; s = json_next(s)) {
		const char *sn = json_get_string(s, "name");

		if (sn && strcmp(sn, name) == 0)
			return s;
	}
	return NULL;
}

static int kubepod_container(const struct json *c, bool init, const struct json *statuses,
			     struct pod_container *out, const char *where, const char *status_where,
			     char *err, size_t errlen)
{
	const struct json *st;
	char policy[33], w[KUBEJSON_WHERE];
	double d;
	int r;

	out->init = init;
	out->gpu_limit = out->gpu_request = POD_GPUS_ABSENT;
	if ((r = kubejson_elem(c, where, err, errlen)) < 0 ||
	    (r = kubejson_read(c, kubepod_container_fields, out, where, err, errlen)) < 0 ||
	    (r = kubejson_str(c, "restartPolicy", policy, sizeof(policy), where, err, errlen)) < 0)
		return r;
	out->sidecar = init && strcmp(policy, "Always") == 0;
	out->env_from = json_size(json_get(c, "envFrom")) > 0;
	st = kubepod_status_of(statuses, out->name);
	if (!st)
		return 0;
	kubejson_at(w, status_where, "[%s]", out->name);
	if ((r = kubejson_elem(st, w, err, errlen)) < 0 || (r = kubejson_read(st, kubepod_cstatus, &out->status, w, err, errlen)) < 0)
		return r;
	if (kubepod_number(st, "restartCount", -1, &d))
		out->status.restarts = (unsigned)d;
	return 0;
}

static int kubepod_containers(const struct json *spec, const struct json *status, struct pod *p,
			      const char *where, char *err, size_t errlen)
{
	static const char *const keys[2][2] = { { "initContainers", "initContainerStatuses" },
						{ "containers", "containerStatuses" } };
	const struct json *lists[2], *statuses[2];
	char w[KUBEJSON_WHERE], sw[KUBEJSON_WHERE];
	size_t n[2], ns, k = 0;
	int r;

	kubejson_at(w, where, ".spec");
	kubejson_at(sw, where, ".status");
	for (int i = 0; i < 2; i++)
		if ((r = kubejson_array(spec, keys[i][0], KUBEPOD_CONTAINERS_MAX, &lists[i], &n[i], w, err, errlen)) < 0 ||
		    (r = kubejson_array(status, keys[i][1], KUBEPOD_CONTAINERS_MAX, &statuses[i], &ns, sw, err, errlen)) < 0)
			return r;
	if (n[0] + n[1] && !(p->containers = calloc(n[0] + n[1], sizeof(*p->containers))))
		return kubepod_oom(err, errlen);
	p->n_containers = n[0] + n[1];
	for (int i = 0; i < 2; i++) {
		size_t ci = 0;

		kubejson_at(sw, where, ".status.%s", keys[i][1]);
		for (const struct json *c = json_first(lists[i]); c; c = json_next(c), ci++) {
			kubejson_at(w, where, ".spec.%s[%zu]", keys[i][0], ci);
			if ((r = kubepod_container(c, i == 0, statuses[i], &p->containers[k++], w, sw, err, errlen)) < 0)
				return r;
		}
	}
	return 0;
}

/* A hostPath volume names its path, "" when it has none; an emptyDir volume is one. */
static int kubepod_host_path(const struct json *hp, const struct kubejson_field *f, void *dst, const char *where,
			     char *err, size_t errlen)
{
	struct pod_volume *v = dst;

	return v->host_path || (v->host_path = strdup("")) ? 0 : kubepod_oom(err, errlen);
}

static int kubepod_empty_dir(const struct json *ed, const struct kubejson_field *f, void *dst, const char *where,
			     char *err, size_t errlen)
{
	((struct pod_volume *)dst)->empty_dir = true;
	return 0;
}

static const struct kubejson_field kubepod_volume[] = {
	KUBEJSON_ROW_DUP("name", pod_volume, name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_DUP("hostPath.path", pod_volume, host_path, KUBEPOD_PATH_MAX),
	KUBEJSON_ROW_OBJECT("hostPath", NULL, kubepod_host_path),
	KUBEJSON_ROW_DUP("emptyDir.medium", pod_volume, medium, 32),
	KUBEJSON_ROW_OBJECT("emptyDir", NULL, kubepod_empty_dir),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubepod_claim[] = {
	KUBEJSON_ROW_DUP("name", pod_claim, name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_DUP("resourceClaimTemplateName", pod_claim, template_name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_DUP("resourceClaimName", pod_claim, claim_name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubepod_toleration[] = {
	KUBEJSON_ROW_DUP("key", pod_toleration, key, KUBEPOD_KEY_MAX),
	KUBEJSON_ROW_DUP("operator", pod_toleration, op, KUBEPOD_KEY_MAX),
	KUBEJSON_ROW_DUP("value", pod_toleration, value, KUBEPOD_KEY_MAX),
	KUBEJSON_ROW_DUP("effect", pod_toleration, effect, KUBEPOD_KEY_MAX),
	KUBEJSON_ROW_END,
};

static const struct kubejson_field kubepod_expr[] = {
	KUBEJSON_ROW_DUP("key", pod_affinity_expr, key, KUBEPOD_KEY_MAX),
	KUBEJSON_ROW_DUP("operator", pod_affinity_expr, op, 32),
	KUBEJSON_ROW_STRINGS("values", pod_affinity_expr, values, n_values, KUBEPOD_VOLUMES_MAX, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_END,
};

/* nodeSelectorTerms[].matchExpressions[], flattened into p->affinity, each with its term's index. */
static int kubepod_terms(const struct json *req, const struct kubejson_field *f, void *dst, const char *w,
			 char *err, size_t errlen)
{
	struct pod *p = dst;
	const struct json *terms, *exprs;
	size_t n_terms, total = 0, k = 0, ti = 0, ne;
	char tw[KUBEJSON_WHERE];
	int r;

	if ((r = kubejson_array(req, f->key, KUBEPOD_SMALL_MAX, &terms, &n_terms, w, err, errlen)) < 0)
		return r;
	for (const struct json *t = json_first(terms); t; t = json_next(t), ti++) {
		kubejson_at(tw, w, ".nodeSelectorTerms[%zu]", ti);
		if ((r = kubejson_elem(t, tw, err, errlen)) < 0 ||
		    (r = kubejson_array(t, "matchExpressions", KUBEPOD_SMALL_MAX, &exprs, &ne, tw, err, errlen)) < 0)
			return r;
		total += ne;
	}
	if (total > KUBEPOD_SMALL_MAX)
		return errmsg_set(err, errlen, -EINVAL, "%s: %zu match expressions, at most %u are read", w, total, KUBEPOD_SMALL_MAX);
	if (!total)
		return 0;
	p->affinity = calloc(total, sizeof(*p->affinity));
	if (!p->affinity)
		return kubepod_oom(err, errlen);
	p->n_affinity = total;
	ti = 0;
	for (const struct json *t = json_first(terms); t; t = json_next(t), ti++) {
		size_t ei = 0;

		for (const struct json *e = json_first(json_get(t, "matchExpressions")); e; e = json_next(e), ei++, k++) {
			char ew[KUBEJSON_WHERE];

			kubejson_at(ew, w, ".nodeSelectorTerms[%zu].matchExpressions[%zu]", ti, ei);
			p->affinity[k].term = ti;
			if ((r = kubejson_elem(e, ew, err, errlen)) < 0 ||
			    (r = kubejson_read(e, kubepod_expr, &p->affinity[k], ew, err, errlen)) < 0)
				return r;
		}
	}
	return 0;
}

static const struct kubejson_field kubepod_owner[] = {
	KUBEJSON_ROW_DUP("kind", pod_owner, kind, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_DUP("name", pod_owner, name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_TRUE("controller", pod_owner, controller),
	KUBEJSON_ROW_END,
};

/* A Pod or a PodTemplateSpec; the containers are read beside their statuses. */
static const struct kubejson_field kubepod_fields[] = {
	KUBEJSON_ROW_DUP("metadata.name", pod, name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_DUP("metadata.namespace", pod, ns, 63),
	KUBEJSON_ROW_DUP("metadata.uid", pod, uid, 64),
	KUBEJSON_ROW_CALL("metadata.labels", pod, labels, 63, kubepod_kvs),
	KUBEJSON_ROW_CALL("metadata.annotations", pod, annotations, KUBEPOD_ANN_MAX, kubepod_kvs),
	KUBEJSON_ROW_OBJECTS("metadata.ownerReferences", pod, owners, n_owners, KUBEPOD_SMALL_MAX, kubepod_owner, NULL),
	KUBEJSON_ROW_DUP("spec.nodeName", pod, node_name, KUBEPOD_NAME_MAX),
	KUBEJSON_ROW_CALL("spec.nodeSelector", pod, node_selector, 63, kubepod_kvs),
	KUBEJSON_ROW_BOOL("spec.hostNetwork", pod, host_network),
	KUBEJSON_ROW_OBJECTS("spec.volumes", pod, volumes, n_volumes, KUBEPOD_VOLUMES_MAX, kubepod_volume, NULL),
	KUBEJSON_ROW_OBJECTS("spec.resourceClaims", pod, claims, n_claims, KUBEPOD_SMALL_MAX, kubepod_claim, NULL),
	KUBEJSON_ROW_OBJECTS("spec.tolerations", pod, tolerations, n_tolerations, KUBEPOD_SMALL_MAX, kubepod_toleration, NULL),
	KUBEJSON_ROW_FN("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms",
			kubepod_terms),
	KUBEJSON_ROW_DUP("status.phase", pod, phase, 32),
	KUBEJSON_ROW_END,
};

int kubepod_parse(const struct json *v, const char *where, struct pod *ret, char *err, size_t errlen)
{
	struct pod p = { 0 };
	int r;

	if ((r = kubejson_elem(v, where, err, errlen)) < 0 || (r = kubejson_read(v, kubepod_fields, &p, where, err, errlen)) < 0 ||
	    (r = kubepod_containers(json_get(v, "spec"), json_get(v, "status"), &p, where, err, errlen)) < 0) {
		obs_pod_free(&p);
		return r;
	}
	*ret = p;
	return 0;
}
