/* trainruntime.h - a Kubeflow Trainer (Cluster)TrainingRuntime found by name in JSON or YAML text, with its pod templates (pure, bounded). */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"
#include "probes/model/obs_pod.h"

#define TRAINRUNTIME_GROUP "trainer.kubeflow.org"
#define TRAINRUNTIME_DOC_MAX (4u << 20)         /* one YAML document, or a whole JSON text */
#define TRAINRUNTIME_JOBS_MAX 64                /* spec.template.spec.replicatedJobs entries */
#define TRAINRUNTIME_NAME_MAX 253               /* metadata.name: a DNS subdomain */
#define TRAINRUNTIME_JOB_MAX 63                 /* a replicated job's name: a DNS label */
#define TRAINRUNTIME_ITEMS_MAX 100000           /* items of one List */

/* One replicated job's pod template: spec.template.spec.replicatedJobs[i].template.spec.template. */
struct trainruntime_template {
	char *job;                      /* replicatedJobs[i].name, owned */
	struct pod pod;
};

struct trainruntime {
	char *kind;                     /* "ClusterTrainingRuntime" or "TrainingRuntime", owned */
	char *api_version;              /* "trainer.kubeflow.org/v1alpha1", owned */
	char *name;                     /* metadata.name, owned */
	char *ns;                       /* metadata.namespace (a TrainingRuntime's), NULL when none */
	char *where;                    /* where it was found: "document 3 (line 40)", "items[1]", "the object" */
	struct trainruntime_template *templates;        /* replicatedJobs order */
	size_t n_templates;
};

/**
 * trainruntime_find() - the ClusterTrainingRuntime or TrainingRuntime named @name in @len bytes
 * of text: a JSON object (`kubectl get clustertrainingruntime NAME -o json`, or a List of them),
 * or YAML of one or many documents (`helm template`, a bundle; a document may be a List). A JSON
 * text is read as JSON, anything else (or JSON the JSON reader refuses) as YAML, one document at
 * a time (probes/model/yaml.c, with its limits on aliases, depth and nodes).
 * @ret: written on success; free with trainruntime_free().
 * @err: when not NULL, @errlen bytes: what is wrong and where (a document and line, a field), or,
 *       when nothing is named @name, which runtimes and other kinds the text holds.
 *
 * Return: 0; -ENOENT when no runtime of that name is there; -EINVAL for text that is not JSON or
 * YAML, a document (or JSON text) over TRAINRUNTIME_DOC_MAX bytes, two runtimes of that name, or
 * a runtime object that does not read (kind, name, jobs, templates); -ENOMEM.
 */
int trainruntime_find(const char *text, size_t len, const char *name, struct trainruntime *ret, char *err,
		      size_t errlen);

/* Release what @r owns (not @r) and zero it. Accepts NULL. */
void trainruntime_free(struct trainruntime *r);
