/* trainruntime.c - find a (Cluster)TrainingRuntime by name in JSON or YAML text and read its pod templates. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/kube/kubejson.h"
#include "probes/kube/kubepod.h"
#include "probes/kube/trainruntime.h"
#include "probes/model/errmsg.h"
#include "probes/model/strbuf.h"
#include "probes/model/yaml.h"

#define TRAINRUNTIME_WHERE 96
#define TRAINRUNTIME_SHOWN 5            /* runtimes named when the one asked for is not there */
#define TRAINRUNTIME_KINDS_SHOWN 4      /* other kinds named */
#define TRAINRUNTIME_TEXT_SHOWN 64      /* bytes of a hostile name or kind printed */

static int trainruntime_oom(char *err, size_t errlen)
{
	return errmsg_set(err, errlen, -ENOMEM, "out of memory");
}

void trainruntime_free(struct trainruntime *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_templates; i++) {
		free(r->templates[i].job);
		obs_pod_free(&r->templates[i].pod);
	}
	free(r->templates);
	free(r->kind);
	free(r->api_version);
	free(r->name);
	free(r->ns);
	free(r->where);
	memset(r, 0, sizeof(*r));
}

static bool trainruntime_kind(const char *kind)
{
	return kind && (strcmp(kind, "ClusterTrainingRuntime") == 0 || strcmp(kind, "TrainingRuntime") == 0);
}

/* The object at @path ("template.spec") under @obj, which must be there: *@ret, @w its path ("@where.@path"). */
static int trainruntime_object(const struct json *obj, const char *path, const struct json **ret, char *w,
			       const char *where, char *err, size_t errlen)
{
	int r = kubejson_in(obj, path, strlen(path), ret, w, where, err, errlen);

	if (r == 0 && !*ret)
		return errmsg_set(err, errlen, -EINVAL, "%s: missing", w);
	return r;
}

/* replicatedJobs[@i]: its name (a DNS label, once) and its pod template. */
static int trainruntime_job(const struct json *e, size_t i, const char *where, struct trainruntime *rt, char *err,
			    size_t errlen)
{
	struct trainruntime_template *t = &rt->templates[i];
	const struct json *pod;
	char w[KUBEJSON_WHERE], pw[KUBEJSON_WHERE];
	int r;

	snprintf(w, sizeof(w), "%s: spec.template.spec.replicatedJobs[%zu]", where, i);
	if ((r = kubejson_elem(e, w, err, errlen)) < 0 || (r = kubejson_dup(e, "name", TRAINRUNTIME_JOB_MAX, &t->job, w, err, errlen)) < 0)
		return r;
	if (!t->job || !*t->job)
		return errmsg_set(err, errlen, -EINVAL, "%s.name: missing", w);
	for (size_t k = 0; k < i; k++)
		if (strcmp(rt->templates[k].job, t->job) == 0)
			return errmsg_set(err, errlen, -EINVAL, "%s.name: job %s is named twice (replicatedJobs[%zu])", w, t->job, k);
	if ((r = trainruntime_object(e, "template.spec.template", &pod, pw, w, err, errlen)) < 0)
		return r;
	return kubepod_parse(pod, pw, &t->pod, err, errlen);
}

/**
 * trainruntime_parse() - read one ClusterTrainingRuntime or TrainingRuntime object: kind and
 * apiVersion (group trainer.kubeflow.org), metadata.name, and every replicated job's name and pod
 * template (probes/kube/kubepod.c, whose limits apply).
 * @where: where @obj is, for messages ("document 2 (line 14)").
 * @rt: filled as far as it was read, also on failure: free it with trainruntime_free().
 * @err: when not NULL, @errlen bytes saying what is wrong, naming the field.
 *
 * Return: 0; -EINVAL for another kind or group, a missing name, no replicatedJobs or more than
 * TRAINRUNTIME_JOBS_MAX, a job without a name or named twice, a template kubepod_parse() refuses;
 * -ENOMEM.
 */
static int trainruntime_parse(const struct json *obj, const char *where, struct trainruntime *rt, char *err,
			      size_t errlen)
{
	const struct json *meta, *spec, *tspec, *jobs;
	char w[KUBEJSON_WHERE], sw[KUBEJSON_WHERE];
	const char *api;
	size_t i = 0;
	int r;

	if ((r = kubejson_elem(obj, where, err, errlen)) < 0 || (r = kubejson_dup(obj, "kind", 64, &rt->kind, where, err, errlen)) < 0 ||
	    (r = kubejson_dup(obj, "apiVersion", 128, &rt->api_version, where, err, errlen)) < 0)
		return r;
	if (!trainruntime_kind(rt->kind))
		return errmsg_set(err, errlen, -EINVAL, "%s: kind %.64s is not ClusterTrainingRuntime or TrainingRuntime", where,
				  rt->kind ? rt->kind : "(none)");
	api = rt->api_version ? rt->api_version : "";
	if (strncmp(api, TRAINRUNTIME_GROUP "/", sizeof(TRAINRUNTIME_GROUP)) != 0 || !api[sizeof(TRAINRUNTIME_GROUP)])
		return errmsg_set(err, errlen, -EINVAL, "%s: apiVersion %.64s is not in the group %s (Kubeflow Trainer v2)", where,
				  rt->api_version ? rt->api_version : "(none)", TRAINRUNTIME_GROUP);
	if ((r = trainruntime_object(obj, "metadata", &meta, w, where, err, errlen)) < 0)
		return r;
	snprintf(w, sizeof(w), "%s: metadata", where);
	if ((r = kubejson_dup(meta, "name", TRAINRUNTIME_NAME_MAX, &rt->name, w, err, errlen)) < 0 ||
	    (r = kubejson_dup(meta, "namespace", 63, &rt->ns, w, err, errlen)) < 0)
		return r;
	if (!rt->name || !*rt->name)
		return errmsg_set(err, errlen, -EINVAL, "%s: metadata.name: missing", where);
	if ((r = trainruntime_object(obj, "spec", &spec, w, where, err, errlen)) < 0)
		return r;
	snprintf(sw, sizeof(sw), "%s: spec", where);
	if ((r = trainruntime_object(spec, "template.spec", &tspec, w, sw, err, errlen)) < 0 ||
	    (r = kubejson_opt(tspec, "replicatedJobs", JSON_ARRAY, &jobs, w, err, errlen)) < 0)
		return r;
	if (!jobs || json_size(jobs) == 0 || json_size(jobs) > TRAINRUNTIME_JOBS_MAX)
		return errmsg_set(err, errlen, -EINVAL, "%s: spec.template.spec.replicatedJobs: %zu entries, expected 1 to %d", where,
				  jobs ? json_size(jobs) : 0, TRAINRUNTIME_JOBS_MAX);
	rt->templates = calloc(json_size(jobs), sizeof(*rt->templates));
	if (!rt->templates)
		return trainruntime_oom(err, errlen);
	for (const struct json *e = json_first(jobs); e; e = json_next(e), i++) {
		rt->n_templates = i + 1;        /* what trainruntime_free() must free */
		if ((r = trainruntime_job(e, i, where, rt, err, errlen)) < 0)
			return r;
	}
	rt->where = strdup(where);
	return rt->where ? 0 : trainruntime_oom(err, errlen);
}

/* ---- the search ---- */

struct trainruntime_search {
	const char *name;
	struct trainruntime found;
	bool have;
	struct strbuf runtimes;         /* "ClusterTrainingRuntime torch-distributed, ..." (the first ones) */
	size_t n_runtimes, n_other;
	char kinds[TRAINRUNTIME_KINDS_SHOWN][TRAINRUNTIME_TEXT_SHOWN + 8];
	size_t n_kinds;
	bool more_kinds;
	char item_kind[TRAINRUNTIME_TEXT_SHOWN + 8];    /* "Pod" while in a PodList: the API's items carry no kind */
};

static void trainruntime_note_kind(struct trainruntime_search *s, const char *kind)
{
	char k[sizeof(s->kinds[0])];

	strbuf_printable_into(k, TRAINRUNTIME_TEXT_SHOWN + 4, kind ? kind : s->item_kind[0] ? s->item_kind : "without a kind");
	s->n_other++;
	for (size_t i = 0; i < s->n_kinds; i++)
		if (strcmp(s->kinds[i], k) == 0)
			return;
	if (s->n_kinds < TRAINRUNTIME_KINDS_SHOWN)
		memcpy(s->kinds[s->n_kinds++], k, sizeof(k));
	else
		s->more_kinds = true;
}

static void trainruntime_note_runtime(struct trainruntime_search *s, const char *kind, const char *name)
{
	char n[TRAINRUNTIME_TEXT_SHOWN + 4];

	strbuf_printable_into(n, sizeof(n), name ? name : "(no name)");
	if (s->n_runtimes++ < TRAINRUNTIME_SHOWN)
		strbuf_appendf(&s->runtimes, "%s%s %s", s->runtimes.len ? ", " : "", kind, n);
}

static int trainruntime_visit(struct trainruntime_search *s, const struct json *v, const char *where, int depth,
			      char *err, size_t errlen);

/* A List (kubectl get ... -o json|yaml): each item. */
static int trainruntime_list(struct trainruntime_search *s, const struct json *items, const char *where, int depth,
			     char *err, size_t errlen)
{
	char w[TRAINRUNTIME_WHERE];
	size_t i = 0;
	int r;

	if (json_size(items) > TRAINRUNTIME_ITEMS_MAX)
		return errmsg_set(err, errlen, -EINVAL, "%s: a List of %zu items, more than %d", where, json_size(items),
				  TRAINRUNTIME_ITEMS_MAX);
	for (const struct json *e = json_first(items); e; e = json_next(e), i++) {
		snprintf(w, sizeof(w), "%s items[%zu]", where, i);
		if ((r = trainruntime_visit(s, e, w, depth + 1, err, errlen)) < 0)
			return r;
	}
	return 0;
}

static int trainruntime_visit(struct trainruntime_search *s, const struct json *v, const char *where, int depth,
			      char *err, size_t errlen)
{
	const char *kind = json_get_string(v, "kind"), *name;
	const struct json *items = json_get(v, "items");

	if (json_type(v) == JSON_NULL)
		return 0;               /* an empty YAML document */
	if (json_type(v) != JSON_OBJECT) {
		trainruntime_note_kind(s, json_type_name(json_type(v)));
		return 0;
	}
	/* A List holds objects; a List inside a List is not something kubectl writes. */
	if (kind && strlen(kind) >= 4 && strcmp(kind + strlen(kind) - 4, "List") == 0 &&
	    json_type(items) == JSON_ARRAY && depth == 0) {
		int r;

		/* A typed list (PodList) names its items' kind; kubectl's "List" does not. */
		snprintf(s->item_kind, sizeof(s->item_kind), "%.*s", (int)(strlen(kind) - 4), kind);
		r = trainruntime_list(s, items, where, depth, err, errlen);
		s->item_kind[0] = '\0';
		return r;
	}
	if (!trainruntime_kind(kind)) {
		trainruntime_note_kind(s, kind);
		return 0;
	}
	name = json_get_string(json_get(v, "metadata"), "name");
	if (!name || strcmp(name, s->name) != 0) {
		trainruntime_note_runtime(s, kind, name);
		return 0;
	}
	if (s->have)
		return errmsg_set(err, errlen, -EINVAL, "two runtimes are named %s: %s %s (%s) and %s (%s)", s->name, s->found.kind,
				  s->found.name, s->found.where, kind, where);
	s->have = true;
	return trainruntime_parse(v, where, &s->found, err, errlen);    /* trainruntime_find() frees it on failure */
}

static int trainruntime_on_doc(void *ctx, struct json *doc, size_t index, size_t line, char *err, size_t errlen)
{
	struct trainruntime_search *s = ctx;
	char where[TRAINRUNTIME_WHERE];
	int r;

	snprintf(where, sizeof(where), "document %zu (line %zu)", index + 1, line);
	r = trainruntime_visit(s, doc, where, 0, err, errlen);
	json_free(doc);
	return r;
}

/* Strict UTF-8 (no overlong forms, surrogates or code points past U+10FFFF): strbuf_char()'s rule. */
static bool trainruntime_utf8(const char *p, size_t len)
{
	bool unsafe;

	for (size_t i = 0, n; i < len; i += n)
		if ((n = strbuf_char(p + i, len - i, &unsafe)) == 1 && (unsigned char)p[i] >= 0x80)
			return false;
	return true;
}

/* JSON when it reads as JSON: 1 read (or refused, r in *ret_r), 0 not JSON (read it as YAML). */
static int trainruntime_json(struct trainruntime_search *s, const char *text, size_t len, int *ret_r, char *err,
			     size_t errlen)
{
	size_t i = 0;
	struct json *v = NULL;
	int r;

	while (i < len && strchr(" \t\r\n", text[i]))
		i++;
	if (i == len || (text[i] != '{' && text[i] != '['))
		return 0;
	if (len > TRAINRUNTIME_DOC_MAX) {
		errmsg_set(err, errlen, 0, "a JSON text of %zu bytes, more than %u: not a runtime this command reads", len,
			   TRAINRUNTIME_DOC_MAX);
		*ret_r = -EINVAL;
		return 1;
	}
	if (!trainruntime_utf8(text, len))
		return 0;       /* the YAML reader says where */
	r = json_parse(text, len, &v);
	if (r == -ENOMEM) {
		*ret_r = trainruntime_oom(err, errlen);
		return 1;
	}
	if (r < 0)
		return 0;       /* the YAML reader says what and where (JSON is YAML) */
	if (json_type(v) == JSON_ARRAY)
		*ret_r = trainruntime_list(s, v, "the list", 0, err, errlen);
	else
		*ret_r = trainruntime_visit(s, v, "the object", 0, err, errlen);
	json_free(v);
	return 1;
}

/* Nothing named @name: say what the text holds instead. */
static void trainruntime_absent(const struct trainruntime_search *s, char *err, size_t errlen)
{
	struct strbuf sb = { 0 };
	char name[TRAINRUNTIME_TEXT_SHOWN + 4];

	strbuf_printable_into(name, sizeof(name), s->name);
	strbuf_appendf(&sb, "no ClusterTrainingRuntime or TrainingRuntime named %s", name);
	if (!s->n_runtimes && !s->n_other)
		strbuf_append(&sb, ": the text holds no object");
	if (s->n_runtimes) {
		strbuf_appendf(&sb, "; it holds %s", s->runtimes.s ? s->runtimes.s : "");
		if (s->n_runtimes > TRAINRUNTIME_SHOWN)
			strbuf_appendf(&sb, " and %zu more", s->n_runtimes - TRAINRUNTIME_SHOWN);
	}
	if (s->n_other) {
		strbuf_appendf(&sb, "%s%zu object%s of other kinds (", s->n_runtimes ? ", and " : "; it holds ", s->n_other,
			       s->n_other == 1 ? "" : "s");
		for (size_t i = 0; i < s->n_kinds; i++)
			strbuf_appendf(&sb, "%s%s", i ? ", " : "", s->kinds[i]);
		strbuf_appendf(&sb, "%s)", s->more_kinds ? ", ..." : "");
	}
	errmsg_set(err, errlen, 0, "%s", sb.s ? sb.s : "no runtime of that name");
	strbuf_free(&sb);
}

int trainruntime_find(const char *text, size_t len, const char *name, struct trainruntime *ret, char *err,
		      size_t errlen)
{
	struct trainruntime_search s = { .name = name };
	int r = 0;

	if (err && errlen)
		err[0] = '\0';
	if (!text || !name || !*name)
		return errmsg_set(err, errlen, -EINVAL, "no text or no name");
	if (!trainruntime_json(&s, text, len, &r, err, errlen))
		r = yaml_load_each(text, len, TRAINRUNTIME_DOC_MAX, trainruntime_on_doc, &s, err, errlen);
	if (r >= 0 && !s.have) {
		trainruntime_absent(&s, err, errlen);
		r = -ENOENT;
	}
	strbuf_free(&s.runtimes);
	if (r < 0) {
		trainruntime_free(&s.found);
		return r;
	}
	*ret = s.found;
	return 0;
}
