/*
 * judge.c - make bench: what the workload check costs inside one --once, measured in process. On a
 * fixture tree (links of the current namespace) with a Node and a PodList from files, RUNS times:
 * parse the API answers and evaluate the node (what --once does anyway), then the workload parts
 * alone: the daemon-pod check, workloads_evaluate() over every pod, and both renderings.
 * Usage: judge ROOT NODE NODE.json PODS.json RUNS. Prints one JSON object of microsecond lists.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/cli.h"
#include "agent/observe.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/model/json.h"
#include "report/checks/checks.h"
#include "report/checks/evaluate.h"
#include "report/checks/workloads.h"
#include "report/render/render.h"

static char *judge_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long n;

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf)
		buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

static double judge_us(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e6 + (double)(b->tv_nsec - a->tv_nsec) / 1e3;
}

int main(int argc, char **argv)
{
	struct cli_options opt = { .prefix = "fabric.aicr.run/" };
	char *node, *pods, err[512];
	size_t nlen, plen, n_pods = 0;
	int runs;

	if (argc != 6 || (runs = atoi(argv[5])) <= 0) {
		fprintf(stderr, "usage: judge ROOT NODE NODE.json PODS.json RUNS\n");
		return 2;
	}
	opt.root = argv[1];
	opt.node = argv[2];
	node = judge_slurp(argv[3], &nlen);
	pods = judge_slurp(argv[4], &plen);
	if (!node || !pods) {
		fprintf(stderr, "judge: cannot read %s or %s\n", argv[3], argv[4]);
		return 2;
	}
	printf("{\"runs\": %d, \"samples\": [", runs);
	for (int i = 0; i < runs; i++) {
		struct obs_kube k = { 0 };
		struct observation o;
		struct profile p;
		struct workloads w;
		struct finding c = { 0 };
		struct timespec t0, t1, t2, t3;
		struct json *v;
		char *text, *human = NULL;
		size_t hlen = 0;
		FILE *f;

		observe_node(&opt, &k, &o);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		k.configured = true;
		if (kubeparse_node(node, nlen, opt.prefix, &k, err, sizeof(err)) < 0 ||
		    kubeparse_pods(pods, plen, &k, err, sizeof(err)) < 0) {
			fprintf(stderr, "judge: %s\n", err);
			return 2;
		}
		k.node_fetch.state = k.pods_fetch.state = KUBE_FETCH_OK;
		if (profile_evaluate(&o, &p) < 0)
			return 2;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/* The workload parts: daemon-pod (already inside profile_evaluate, timed again alone), the
		 * judging of every pod, the table and the JSON member. */
		check_daemon_pod(&o, &p, &c);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		if (workloads_evaluate(&o, &p, &w) < 0)
			return 2;
		v = render_workloads_value(&w);
		text = json_print(v, true);
		f = open_memstream(&human, &hlen);
		render_workloads_human(&w, o.node, f);
		fclose(f);
		clock_gettime(CLOCK_MONOTONIC, &t3);
		n_pods = k.n_pods;
		printf("%s{\"evaluate\": %.1f, \"daemon_pod\": %.1f, \"workloads\": %.1f, \"judged\": %zu}", i ? ", " : "",
		       judge_us(&t0, &t1), judge_us(&t1, &t2), judge_us(&t2, &t3), w.n);
		free(text);
		free(human);
		json_free(v);
		free(c.message);
		free(c.remedy);
		workloads_free(&w);
		profile_free(&p);
		observation_free(&o);
		obs_kube_free(&k);
	}
	printf("], \"pods\": %zu}\n", n_pods);
	free(node);
	free(pods);
	return 0;
}
