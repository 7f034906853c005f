/* attachment-dump.c - test helper: observe --root, evaluate, print the attachment annotation value the agent would publish. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/observe.h"
#include "probes/kube/kubeparse.h"
#include "report/checks/evaluate.h"
#include "report/checks/profile.h"
#include "report/render/annotations.h"
#include "probes/kube/kubeparse_pods.h"

#define DUMP_FILE_MAX (4u << 20)        /* an API body we accept from a file */

static const char dump_usage[] =
"usage: attachment-dump --root DIR [--node NAME] [--node-json F] [--pods-json F]\n"
"                       [--networks-json F] [--changed-at TIME]\n"
"Runs the node probes under DIR (links from this network namespace), adds the API facts of\n"
"the given Node / PodList / NetworkList files as if the API had answered, evaluates, and\n"
"prints the attachment annotation value the agent would publish.\n";

/* Read at most DUMP_FILE_MAX bytes of @path into a malloc'd, NUL-terminated buffer. */
static int dump_read(const char *path, char **ret, size_t *ret_len)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	size_t n;

	if (!f)
		return -errno;
	buf = malloc(DUMP_FILE_MAX + 1);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, DUMP_FILE_MAX + 1, f);
	if (ferror(f) || n > DUMP_FILE_MAX) {
		int r = ferror(f) ? -EIO : -EFBIG;

		fclose(f);
		free(buf);
		return r;
	}
	fclose(f);
	buf[n] = '\0';
	*ret = buf;
	*ret_len = n;
	return 0;
}

typedef int (*dump_parse_fn)(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen);

static int dump_parse_node(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen)
{
	return kubeparse_node(body, len, NULL, k, err, errlen);
}

/* Parse one API body from a file into @k and mark its fetch as answered. */
static int dump_fact(const char *path, dump_parse_fn parse, struct kube_fetch *f, struct obs_kube *k)
{
	char err[256] = "", *body = NULL;
	size_t len = 0;
	int r;

	r = dump_read(path, &body, &len);
	if (r < 0) {
		fprintf(stderr, "attachment-dump: %s: %s\n", path, strerror(-r));
		return r;
	}
	r = parse(body, len, k, err, sizeof(err));
	free(body);
	if (r < 0) {
		fprintf(stderr, "attachment-dump: %s: %s\n", path, err);
		return r;
	}
	k->configured = true;
	f->state = KUBE_FETCH_OK;
	f->http_status = 200;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "node", required_argument, NULL, 'n' },
		{ "node-json", required_argument, NULL, 'N' },
		{ "pods-json", required_argument, NULL, 'P' },
		{ "networks-json", required_argument, NULL, 'W' },
		{ "changed-at", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct cli_options opt = { .root = NULL, .prefix = "fabric.aicr.run/" };
	const char *node_json = NULL, *pods_json = NULL, *networks_json = NULL;
	const char *changed_at = "2026-01-01T00:00:00Z";
	struct obs_kube k = { 0 };      /* the API facts o lends, read from the files */
	struct observation o;
	struct profile p;
	char *s = NULL;
	int c, r, code = 2;

	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'r': opt.root = optarg; break;
		case 'n': opt.node = optarg; break;
		case 'N': node_json = optarg; break;
		case 'P': pods_json = optarg; break;
		case 'W': networks_json = optarg; break;
		case 't': changed_at = optarg; break;
		case 'h': fputs(dump_usage, stdout); return 0;
		default: fputs(dump_usage, stderr); return 2;
		}
	}
	if (!opt.root || optind < argc) {
		fputs(dump_usage, stderr);
		return 2;
	}
	/* A failed core probe still gives a report (and an attachment): that is what we dump. */
	r = observe_node(&opt, &k, &o);
	if (r == -ENOMEM) {
		fprintf(stderr, "attachment-dump: out of memory\n");
		observation_free(&o);
		obs_kube_free(&k);
		return 2;
	}
	if ((node_json && dump_fact(node_json, dump_parse_node, &k.node_fetch, &k) < 0) ||
	    (pods_json && dump_fact(pods_json, kubeparse_pods, &k.pods_fetch, &k) < 0) ||
	    (networks_json && dump_fact(networks_json, kubeparse_networks, &k.networks_fetch, &k) < 0)) {
		observation_free(&o);
		obs_kube_free(&k);
		return 2;
	}
	if (profile_evaluate(&o, &p) < 0) {
		fprintf(stderr, "attachment-dump: out of memory\n");
		observation_free(&o);
		obs_kube_free(&k);
		return 2;
	}
	r = annotations_attachment(&p, changed_at, &s);
	if (r >= 0)
		printf("%s\n", s);
	free(s);
	if (r < 0)
		fprintf(stderr, "attachment-dump: %s\n", strerror(-r));
	else if (fflush(stdout) == 0)
		code = 0;
	profile_free(&p);
	observation_free(&o);
	obs_kube_free(&k);
	return code;
}
