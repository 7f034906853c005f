/* podsread.c - the pods a workloads command judges: read (--pods-file or the cluster), the unreadable ones named, the verdicts printed. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/output.h"
#include "agent/podsread.h"
#include "probes/kube/kubeparse_pods.h"
#include "report/render/render.h"

#define PODSREAD_FILE_MAX ((size_t)256 << 20)  /* a PodList of thousands of fat pods */

int podsread(const struct cli_options *opt, struct kubesrc *src, const char *node, struct obs_kube *k)
{
	struct kubesrc_answer a;
	char err[512] = "";
	int r;

	if (!opt->pods_file && !src) {
		fprintf(stderr, "%s: workloads: no --pods-file: the pods on %s are unknown\n", opt->prog_name, node);
		return -ENOENT;
	}
	r = kubesrc_get(src, "--pods-file", opt->pods_file, PODSREAD_FILE_MAX, "PodList", KUBESRC_PODS, node, &a);
	if (r >= 0 && (r = kubeparse_pods(a.text, a.len, k, err, sizeof(err))) < 0)
		snprintf(a.message, sizeof(a.message), "%s: %s", a.where, err);
	if (r < 0) {
		fprintf(stderr, "%s: workloads: %s\n", opt->prog_name, a.message);
	} else {
		k->configured = true;
		k->pods_fetch = (struct kube_fetch){ .state = KUBE_FETCH_OK };
	}
	kubesrc_answer_free(&a);
	return r;
}

void podsread_aside(const struct cli_options *opt, const struct obs_kube *k)
{
	size_t named = k->n_aside < KUBE_ASIDE_NAMED ? k->n_aside : KUBE_ASIDE_NAMED;

	for (size_t i = 0; i < named; i++) {
		const struct kube_pod_aside *a = &k->aside[i];

		if (a->name[0])
			fprintf(stderr, "%s: workloads: pod %s/%s could not be read (%s): not judged\n", opt->prog_name, a->ns,
				a->name, a->why);
		else
			fprintf(stderr, "%s: workloads: pod items[%zu] could not be read (%s): not judged\n", opt->prog_name,
				a->item, a->why);
	}
	if (k->n_aside > named)
		fprintf(stderr, "%s: workloads: %zu more pods could not be read: not judged\n", opt->prog_name,
			k->n_aside - named);
	if (k->n_aside_gpu)
		fprintf(stderr, "%s: workloads: unknown: %zu pod%s that may request GPUs could not be read\n",
			opt->prog_name, k->n_aside_gpu, k->n_aside_gpu == 1 ? "" : "s");
}

int podsread_print(const struct cli_options *opt, const struct workloads *w, const char *node)
{
	if (!opt->json)
		render_workloads_human(w, node, stdout);
	else if (output_json(opt->prog_name, "workloads: ", render_workloads_json(w, node)) < 0)
		return -ENOMEM;
	return output_flush(opt->prog_name, "workloads: ");
}
