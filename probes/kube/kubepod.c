/* kubepod.c - one Pod or pod template (JSON value) -> struct pod (pure, bounded). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubejson.h"
#include "probes/kube/kubepod.h"
#include "probes/model/errmsg.h"
#include "probes/model/timetext.h"

#define KUBEPOD_KEY_MAX 317             /* a qualified key: prefix (253) + '/' + name (63) */
#define KUBEPOD_WHERE 256

/* @dst (KUBEPOD_WHERE bytes) = @base then @fmt: a field's path for messages, cut when too long. */
static void kubepod_at(char *dst, const char *base, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void kubepod_at(char *dst, const char *base, const char *fmt, ...)
{
	size_t n = strnlen(base, KUBEPOD_WHERE - 1);
	va_list ap;

	memmove(dst, base, n);
	va_start(ap, fmt);
	vsnprintf(dst + n, KUBEPOD_WHERE - n, fmt, ap);
	va_end(ap);
}

static int kubepod_oom(char *err, size_t errlen)
{
	return errmsg_set(err, errlen, -ENOMEM, "out of memory");
}

/* An array member of at most @max entries: *@ret (NULL when absent) and its size. */
static int kubepod_array(const struct json *obj, const char *key, size_t max, const struct json **ret,
			 size_t *ret_n, const char *where, char *err, size_t errlen)
{
	int r = kubejson_opt(obj, key, JSON_ARRAY, ret, where, err, errlen);

	*ret_n = r < 0 ? 0 : json_size(*ret);
	if (r == 0 && *ret_n > max)
		return errmsg_set(err, errlen, -EINVAL, "%s.%s: %zu entries, at most %zu are read", where, key, *ret_n, max);
	return r;
}

/* An element of an array that must be an object. */
static int kubepod_elem(const struct json *e, const char *where, char *err, size_t errlen)
{
	if (json_type(e) == JSON_OBJECT)
		return 0;
	return errmsg_set(err, errlen, -EINVAL, "%s: expected an object, got %s", where, kubejson_tname(e));
}

/* A map of strings (labels, annotations, nodeSelector), keys and values bounded. */
static int kubepod_kvs(const struct json *obj, const char *key, size_t vmax, struct pod_kvs *ret,
		       const char *where, char *err, size_t errlen)
{
	const struct json *m;
	size_t i = 0;
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

static int kubepod_gpus(const struct json *res, const char *key, long long *ret, const char *where,
			char *err, size_t errlen)
{
	const struct json *m, *q;
	char w[KUBEPOD_WHERE];

	*ret = POD_GPUS_ABSENT;
	if (kubejson_opt(res, key, JSON_OBJECT, &m, where, err, errlen) < 0)
		return -EINVAL;
	q = json_get(m, "nvidia.com/gpu");
	if (!q || json_type(q) == JSON_NULL)
		return 0;
	kubepod_at(w, where, ".%s[nvidia.com/gpu]", key);
	return kubepod_quantity(q, ret, w, err, errlen);
}

static int kubepod_env(const struct json *c, struct pod_container *out, const char *where, char *err, size_t errlen)
{
	const struct json *arr;
	char w[KUBEPOD_WHERE];
	size_t n, i = 0;
	int r;

	r = kubepod_array(c, "env", KUBEPOD_LIST_MAX, &arr, &n, where, err, errlen);
	if (r < 0 || n == 0)
		return r;
	out->env.v = calloc(n, sizeof(*out->env.v));
	if (!out->env.v)
		return kubepod_oom(err, errlen);
	out->env.n = n;
	for (const struct json *e = json_first(arr); e; e = json_next(e), i++) {
		struct pod_kv *kv = &out->env.v[i];
		const char *value;
		bool long_value;

		kubepod_at(w, where, ".env[%zu]", i);
		if ((r = kubepod_elem(e, w, err, errlen)) < 0 ||
		    (r = kubejson_dup(e, "name", KUBEPOD_NAME_MAX, &kv->key, w, err, errlen)) < 0)
			return r;
		if (!kv->key)
			return errmsg_set(err, errlen, -EINVAL, "%s.name: missing", w);
		/* A value too long to be one the checks read is not copied: set, value unknown. */
		value = json_get_string(e, "value");
		long_value = value && strnlen(value, KUBEPOD_ENV_VALUE_MAX + 1) > KUBEPOD_ENV_VALUE_MAX;
		if (!long_value && (r = kubejson_dup(e, "value", KUBEPOD_ENV_VALUE_MAX, &kv->value, w, err, errlen)) < 0)
			return r;
		/* A literal value, even empty, is a value; valueFrom leaves it unknown (NULL). */
		if (!kv->value && !long_value && !json_get(e, "valueFrom") && !(kv->value = strdup("")))
			return kubepod_oom(err, errlen);
	}
	out->env_from = json_size(json_get(c, "envFrom")) > 0;
	return 0;
}

static int kubepod_mounts(const struct json *c, struct pod_container *out, const char *where, char *err,
			  size_t errlen)
{
	const struct json *arr;
	char w[KUBEPOD_WHERE];
	size_t n, i = 0;
	int r;

	r = kubepod_array(c, "volumeMounts", KUBEPOD_VOLUMES_MAX, &arr, &n, where, err, errlen);
	if (r < 0 || n == 0)
		return r;
	out->mounts = calloc(n, sizeof(*out->mounts));
	if (!out->mounts)
		return kubepod_oom(err, errlen);
	out->n_mounts = n;
	for (const struct json *e = json_first(arr); e; e = json_next(e), i++) {
		struct pod_mount *m = &out->mounts[i];
		bool ro = false;

		kubepod_at(w, where, ".volumeMounts[%zu]", i);
		if ((r = kubepod_elem(e, w, err, errlen)) < 0 ||
		    (r = kubejson_dup(e, "name", KUBEPOD_NAME_MAX, &m->name, w, err, errlen)) < 0 ||
		    (r = kubejson_dup(e, "mountPath", KUBEPOD_PATH_MAX, &m->path, w, err, errlen)) < 0)
			return r;
		if (json_get(e, "readOnly") && !json_bool(json_get(e, "readOnly"), &ro))
			return errmsg_set(err, errlen, -EINVAL, "%s.readOnly: expected a boolean", w);
		m->read_only = ro;
	}
	return 0;
}

static int kubepod_security(const struct json *c, struct pod_container *out, const char *where, char *err,
			    size_t errlen)
{
	const struct json *sc, *caps, *priv;
	char w[KUBEPOD_WHERE];
	bool b = false;

	if (kubejson_opt(c, "securityContext", JSON_OBJECT, &sc, where, err, errlen) < 0)
		return -EINVAL;
	if (!sc)
		return 0;
	kubepod_at(w, where, ".securityContext");
	priv = json_get(sc, "privileged");
	if (priv && json_type(priv) != JSON_NULL && !json_bool(priv, &b))
		return errmsg_set(err, errlen, -EINVAL, "%s.privileged: expected a boolean, got %s", w, kubejson_tname(priv));
	out->privileged = b;
	if (kubejson_opt(sc, "capabilities", JSON_OBJECT, &caps, w, err, errlen) < 0)
		return -EINVAL;
	kubepod_at(w, where, ".securityContext.capabilities");
	return kubejson_strings(caps, "add", KUBEPOD_SMALL_MAX, 64, &out->cap_add, &out->n_cap_add, w, err, errlen);
}

/* state.running.startedAt, when running: seconds since the epoch (0 when absent). */
static int kubepod_started(const struct json *running, struct pod_cstatus *out, const char *where, char *err,
			   size_t errlen)
{
	const struct json *v = json_get(running, "startedAt");
	const char *s;

	if (!v || json_type(v) == JSON_NULL)
		return 0;
	s = json_get_string(running, "startedAt");
	if (!s)
		return errmsg_set(err, errlen, -EINVAL, "%s.startedAt: expected a string, got %s", where,
				  kubejson_tname(v));
	if (timetext_parse(s, &out->started_at) < 0)
		return errmsg_set(err, errlen, -EINVAL, "%s.startedAt: not an RFC 3339 time: \"%.64s\"", where, s);
	return 0;
}

static int kubepod_cstatus(const struct json *st, struct pod_cstatus *out, const char *where, char *err,
			   size_t errlen)
{
	static const char *const states[] = { "waiting", "running", "terminated" };
	const struct json *state, *last, *term;
	double d;
	int r;

	if ((r = kubepod_elem(st, where, err, errlen)) < 0 ||
	    (r = kubejson_dup(st, "imageID", KUBEPOD_IMAGE_MAX + 512, &out->image_id, where, err, errlen)) < 0 ||
	    (r = kubejson_dup(st, "containerID", KUBEPOD_CONTAINER_ID_MAX, &out->container_id, where, err, errlen)) < 0 ||
	    (r = kubejson_opt(st, "state", JSON_OBJECT, &state, where, err, errlen)) < 0 ||
	    (r = kubejson_opt(st, "lastState", JSON_OBJECT, &last, where, err, errlen)) < 0)
		return r;
	if (json_number(json_get(st, "restartCount"), &d) && d >= 0 && d < 1e9)
		out->restarts = (unsigned)d;
	out->ready = json_bool(json_get(st, "ready"), &out->ready) && out->ready;
	for (size_t i = 0; i < sizeof(states) / sizeof(states[0]); i++) {
		const struct json *s;
		char w[KUBEPOD_WHERE];

		kubepod_at(w, where, ".state");
		if ((r = kubejson_opt(state, states[i], JSON_OBJECT, &s, w, err, errlen)) < 0)
			return r;
		if (!s)
			continue;
		out->state = (enum pod_cstate)(POD_CSTATE_WAITING + i);
		kubepod_at(w, where, ".state.%s", states[i]);
		if ((r = kubejson_dup(s, "reason", KUBEPOD_NAME_MAX, &out->reason, w, err, errlen)) < 0)
			return r;
		if (out->state == POD_CSTATE_RUNNING && (r = kubepod_started(s, out, w, err, errlen)) < 0)
			return r;
		if (json_number(json_get(s, "exitCode"), &d) && d > -1e9 && d < 1e9)
			out->exit_code = (int)d;
		break;
	}
	if ((r = kubejson_opt(last, "terminated", JSON_OBJECT, &term, where, err, errlen)) < 0)
		return r;
	if (term) {
		char w[KUBEPOD_WHERE];

		kubepod_at(w, where, ".lastState.terminated");
		out->has_last = true;
		if (json_number(json_get(term, "exitCode"), &d) && d > -1e9 && d < 1e9)
			out->last_exit_code = (int)d;
		if ((r = kubejson_dup(term, "reason", KUBEPOD_NAME_MAX, &out->last_reason, w, err, errlen)) < 0)
			return r;
	}
	return 0;
}

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
	const struct json *res, *st;
	char *policy = NULL;
	char w[KUBEPOD_WHERE];
	int r;

	out->init = init;
	if ((r = kubepod_elem(c, where, err, errlen)) < 0 ||
	    (r = kubejson_dup(c, "name", KUBEPOD_NAME_MAX, &out->name, where, err, errlen)) < 0 ||
	    (r = kubejson_dup(c, "image", KUBEPOD_IMAGE_MAX, &out->image, where, err, errlen)) < 0 ||
	    (r = kubejson_dup(c, "restartPolicy", 32, &policy, where, err, errlen)) < 0)
		return r;
	out->sidecar = init && policy && strcmp(policy, "Always") == 0;
	free(policy);
	if (!out->name)
		return errmsg_set(err, errlen, -EINVAL, "%s.name: missing", where);
	if ((r = kubejson_strings(c, "command", KUBEPOD_LIST_MAX, KUBEPOD_ARG_MAX, &out->command, &out->n_command,
				  where, err, errlen)) < 0 ||
	    (r = kubejson_strings(c, "args", KUBEPOD_LIST_MAX, KUBEPOD_ARG_MAX, &out->args, &out->n_args,
				  where, err, errlen)) < 0 ||
	    (r = kubepod_env(c, out, where, err, errlen)) < 0 ||
	    (r = kubepod_mounts(c, out, where, err, errlen)) < 0 ||
	    (r = kubepod_security(c, out, where, err, errlen)) < 0 ||
	    (r = kubejson_opt(c, "resources", JSON_OBJECT, &res, where, err, errlen)) < 0)
		return r;
	kubepod_at(w, where, ".resources");
	if ((r = kubepod_gpus(res, "limits", &out->gpu_limit, w, err, errlen)) < 0 ||
	    (r = kubepod_gpus(res, "requests", &out->gpu_request, w, err, errlen)) < 0)
		return r;
	st = kubepod_status_of(statuses, out->name);
	if (!st)
		return 0;
	kubepod_at(w, status_where, "[%s]", out->name);
	return kubepod_cstatus(st, &out->status, w, err, errlen);
}

static int kubepod_containers(const struct json *spec, const struct json *status, struct pod *p,
			      const char *where, char *err, size_t errlen)
{
	const struct json *lists[2], *statuses[2];
	static const char *const keys[2] = { "initContainers", "containers" };
	static const char *const skeys[2] = { "initContainerStatuses", "containerStatuses" };
	char w[KUBEPOD_WHERE], sw[KUBEPOD_WHERE];
	size_t n[2], total, k = 0;
	int r;

	kubepod_at(w, where, ".spec");
	kubepod_at(sw, where, ".status");
	for (int i = 0; i < 2; i++) {
		size_t ns;

		if ((r = kubepod_array(spec, keys[i], KUBEPOD_CONTAINERS_MAX, &lists[i], &n[i], w, err, errlen)) < 0 ||
		    (r = kubepod_array(status, skeys[i], KUBEPOD_CONTAINERS_MAX, &statuses[i], &ns, sw, err,
				       errlen)) < 0)
			return r;
	}
	total = n[0] + n[1];
	if (!total)
		return 0;
	p->containers = calloc(total, sizeof(*p->containers));
	if (!p->containers)
		return kubepod_oom(err, errlen);
	p->n_containers = total;
	for (int i = 0; i < 2; i++) {
		size_t ci = 0;

		for (const struct json *c = json_first(lists[i]); c; c = json_next(c), ci++, k++) {
			char cw[KUBEPOD_WHERE], csw[KUBEPOD_WHERE];

			kubepod_at(cw, where, ".spec.%s[%zu]", keys[i], ci);
			kubepod_at(csw, where, ".status.%s", skeys[i]);
			r = kubepod_container(c, i == 0, statuses[i], &p->containers[k], cw, csw, err, errlen);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int kubepod_volumes(const struct json *spec, struct pod *p, const char *where, char *err, size_t errlen)
{
	const struct json *arr;
	char w[KUBEPOD_WHERE];
	size_t n, i = 0;
	int r;

	kubepod_at(w, where, ".spec");
	r = kubepod_array(spec, "volumes", KUBEPOD_VOLUMES_MAX, &arr, &n, w, err, errlen);
	if (r < 0 || n == 0)
		return r;
	p->volumes = calloc(n, sizeof(*p->volumes));
	if (!p->volumes)
		return kubepod_oom(err, errlen);
	p->n_volumes = n;
	for (const struct json *e = json_first(arr); e; e = json_next(e), i++) {
		struct pod_volume *v = &p->volumes[i];
		const struct json *hp, *ed;
		char vw[KUBEPOD_WHERE];

		kubepod_at(vw, where, ".spec.volumes[%zu]", i);
		if ((r = kubepod_elem(e, vw, err, errlen)) < 0 ||
		    (r = kubejson_dup(e, "name", KUBEPOD_NAME_MAX, &v->name, vw, err, errlen)) < 0 ||
		    (r = kubejson_opt(e, "hostPath", JSON_OBJECT, &hp, vw, err, errlen)) < 0 ||
		    (r = kubejson_opt(e, "emptyDir", JSON_OBJECT, &ed, vw, err, errlen)) < 0)
			return r;
		if (hp) {
			char hw[KUBEPOD_WHERE];

			kubepod_at(hw, vw, ".hostPath");
			if ((r = kubejson_dup(hp, "path", KUBEPOD_PATH_MAX, &v->host_path, hw, err, errlen)) < 0)
				return r;
			if (!v->host_path && !(v->host_path = strdup("")))
				return kubepod_oom(err, errlen);
		}
		if (ed) {
			char ew[KUBEPOD_WHERE];

			kubepod_at(ew, vw, ".emptyDir");
			v->empty_dir = true;
			if ((r = kubejson_dup(ed, "medium", 32, &v->medium, ew, err, errlen)) < 0)
				return r;
		}
	}
	return 0;
}

static int kubepod_tolerations(const struct json *spec, struct pod *p, const char *where, char *err,
			       size_t errlen)
{
	static const char *const keys[] = { "key", "operator", "value", "effect" };
	const struct json *arr;
	char w[KUBEPOD_WHERE];
	size_t n, i = 0;
	int r;

	kubepod_at(w, where, ".spec");
	r = kubepod_array(spec, "tolerations", KUBEPOD_SMALL_MAX, &arr, &n, w, err, errlen);
	if (r < 0 || n == 0)
		return r;
	p->tolerations = calloc(n, sizeof(*p->tolerations));
	if (!p->tolerations)
		return kubepod_oom(err, errlen);
	p->n_tolerations = n;
	for (const struct json *e = json_first(arr); e; e = json_next(e), i++) {
		struct pod_toleration *t = &p->tolerations[i];
		char **dst[] = { &t->key, &t->op, &t->value, &t->effect };
		char tw[KUBEPOD_WHERE];

		kubepod_at(tw, where, ".spec.tolerations[%zu]", i);
		if ((r = kubepod_elem(e, tw, err, errlen)) < 0)
			return r;
		for (size_t j = 0; j < sizeof(keys) / sizeof(keys[0]); j++)
			if ((r = kubejson_dup(e, keys[j], KUBEPOD_KEY_MAX, dst[j], tw, err, errlen)) < 0)
				return r;
	}
	return 0;
}

/* spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms */
static int kubepod_affinity(const struct json *spec, struct pod *p, const char *where, char *err, size_t errlen)
{
	const struct json *aff, *na, *req, *terms;
	char w[KUBEPOD_WHERE];
	size_t n_terms, total = 0, k = 0, ti = 0;
	int r;

	kubepod_at(w, where, ".spec");
	if ((r = kubejson_opt(spec, "affinity", JSON_OBJECT, &aff, w, err, errlen)) < 0)
		return r;
	kubepod_at(w, where, ".spec.affinity");
	if ((r = kubejson_opt(aff, "nodeAffinity", JSON_OBJECT, &na, w, err, errlen)) < 0)
		return r;
	kubepod_at(w, where, ".spec.affinity.nodeAffinity");
	if ((r = kubejson_opt(na, "requiredDuringSchedulingIgnoredDuringExecution", JSON_OBJECT, &req, w, err,
			      errlen)) < 0)
		return r;
	kubepod_at(w, where, ".spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution");
	if ((r = kubepod_array(req, "nodeSelectorTerms", KUBEPOD_SMALL_MAX, &terms, &n_terms, w, err, errlen)) < 0)
		return r;
	for (const struct json *t = json_first(terms); t; t = json_next(t), ti++) {
		const struct json *exprs;
		char tw[KUBEPOD_WHERE];
		size_t ne;

		kubepod_at(tw, w, ".nodeSelectorTerms[%zu]", ti);
		if ((r = kubepod_elem(t, tw, err, errlen)) < 0 ||
		    (r = kubepod_array(t, "matchExpressions", KUBEPOD_SMALL_MAX, &exprs, &ne, tw, err, errlen)) < 0)
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
			struct pod_affinity_expr *x = &p->affinity[k];
			char ew[KUBEPOD_WHERE];

			kubepod_at(ew, w, ".nodeSelectorTerms[%zu].matchExpressions[%zu]", ti, ei);
			x->term = ti;
			if ((r = kubepod_elem(e, ew, err, errlen)) < 0 ||
			    (r = kubejson_dup(e, "key", KUBEPOD_KEY_MAX, &x->key, ew, err, errlen)) < 0 ||
			    (r = kubejson_dup(e, "operator", 32, &x->op, ew, err, errlen)) < 0 ||
			    (r = kubejson_strings(e, "values", KUBEPOD_VOLUMES_MAX, KUBEPOD_NAME_MAX, &x->values,
						  &x->n_values, ew, err, errlen)) < 0)
				return r;
		}
	}
	return 0;
}

static int kubepod_owners(const struct json *meta, struct pod *p, const char *where, char *err, size_t errlen)
{
	const struct json *arr;
	char w[KUBEPOD_WHERE];
	size_t n, i = 0;
	int r;

	kubepod_at(w, where, ".metadata");
	r = kubepod_array(meta, "ownerReferences", KUBEPOD_SMALL_MAX, &arr, &n, w, err, errlen);
	if (r < 0 || n == 0)
		return r;
	p->owners = calloc(n, sizeof(*p->owners));
	if (!p->owners)
		return kubepod_oom(err, errlen);
	p->n_owners = n;
	for (const struct json *e = json_first(arr); e; e = json_next(e), i++) {
		struct pod_owner *o = &p->owners[i];
		char ow[KUBEPOD_WHERE];
		bool b = false;

		kubepod_at(ow, where, ".metadata.ownerReferences[%zu]", i);
		if ((r = kubepod_elem(e, ow, err, errlen)) < 0 ||
		    (r = kubejson_dup(e, "kind", KUBEPOD_NAME_MAX, &o->kind, ow, err, errlen)) < 0 ||
		    (r = kubejson_dup(e, "name", KUBEPOD_NAME_MAX, &o->name, ow, err, errlen)) < 0)
			return r;
		o->controller = json_bool(json_get(e, "controller"), &b) && b;
	}
	return 0;
}

static int kubepod_fill(const struct json *v, const char *where, struct pod *p, char *err, size_t errlen)
{
	const struct json *meta, *spec, *status;
	char w[KUBEPOD_WHERE];
	bool b = false;
	int r;

	if ((r = kubepod_elem(v, where, err, errlen)) < 0 ||
	    (r = kubejson_opt(v, "metadata", JSON_OBJECT, &meta, where, err, errlen)) < 0 ||
	    (r = kubejson_opt(v, "spec", JSON_OBJECT, &spec, where, err, errlen)) < 0 ||
	    (r = kubejson_opt(v, "status", JSON_OBJECT, &status, where, err, errlen)) < 0)
		return r;
	kubepod_at(w, where, ".metadata");
	if ((r = kubejson_dup(meta, "name", KUBEPOD_NAME_MAX, &p->name, w, err, errlen)) < 0 ||
	    (r = kubejson_dup(meta, "namespace", 63, &p->ns, w, err, errlen)) < 0 ||
	    (r = kubejson_dup(meta, "uid", 64, &p->uid, w, err, errlen)) < 0 ||
	    (r = kubepod_kvs(meta, "labels", 63, &p->labels, w, err, errlen)) < 0 ||
	    (r = kubepod_kvs(meta, "annotations", KUBEPOD_ANN_MAX, &p->annotations, w, err, errlen)) < 0 ||
	    (r = kubepod_owners(meta, p, where, err, errlen)) < 0)
		return r;
	kubepod_at(w, where, ".spec");
	if ((r = kubejson_dup(spec, "nodeName", KUBEPOD_NAME_MAX, &p->node_name, w, err, errlen)) < 0 ||
	    (r = kubepod_kvs(spec, "nodeSelector", 63, &p->node_selector, w, err, errlen)) < 0)
		return r;
	if (json_get(spec, "hostNetwork") && !json_bool(json_get(spec, "hostNetwork"), &b))
		return errmsg_set(err, errlen, -EINVAL, "%s.hostNetwork: expected a boolean", w);
	p->host_network = b;
	kubepod_at(w, where, ".status");
	if ((r = kubejson_dup(status, "phase", 32, &p->phase, w, err, errlen)) < 0 ||
	    (r = kubepod_containers(spec, status, p, where, err, errlen)) < 0 ||
	    (r = kubepod_volumes(spec, p, where, err, errlen)) < 0 ||
	    (r = kubepod_tolerations(spec, p, where, err, errlen)) < 0 ||
	    (r = kubepod_affinity(spec, p, where, err, errlen)) < 0)
		return r;
	return 0;
}

int kubepod_parse(const struct json *v, const char *where, struct pod *ret, char *err, size_t errlen)
{
	struct pod p = { 0 };
	int r;

	r = kubepod_fill(v, where, &p, err, errlen);
	if (r < 0) {
		obs_pod_free(&p);
		return r;
	}
	*ret = p;
	return 0;
}
