/* kubesrc.c - a fleet command's Kubernetes objects: the file its option names, else the cluster through the program's client. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/infile.h"
#include "agent/kubesrc.h"

#define KUBESRC_NODES_FILE_MAX ((size_t)256 << 20)     /* a NodeList of ~30,000 fat nodes */

int kubesrc_nodes(struct kubesrc *src, const struct cli_options *opt, const char *cmd, const char *only,
		  struct coherence *nodes)
{
	char why[512] = "", err[512] = "", *text = NULL;
	size_t len = 0;
	int r;

	if (!opt->nodes_file) {
		r = src->ops->nodes(src->ctx, cmd, opt->selector, only, nodes, err, sizeof(err));
		if (r < 0)
			fprintf(stderr, "%s: %s: %s\n", opt->prog_name, cmd, err[0] ? err : strerror(-r));
		return r < 0 ? r : 0;
	}
	if (opt->selector) {
		fprintf(stderr, "%s: %s: --selector filters the API's node list; with --nodes-file, select the nodes "
			"with kubectl get nodes -l SELECTOR -o json\n", opt->prog_name, cmd);
		return -EINVAL;
	}
	r = infile_read_input(opt->nodes_file, KUBESRC_NODES_FILE_MAX, "NodeList", &text, &len, why, sizeof(why));
	if (r >= 0)
		r = coherence_add_nodelist(nodes, text, len, NULL, err, sizeof(err));
	if (r < 0)
		fprintf(stderr, "%s: %s: --nodes-file %s: %s\n", opt->prog_name, cmd, infile_name(opt->nodes_file),
			why[0] ? why : err[0] ? err : strerror(-r));
	free(text);
	return r < 0 ? r : 0;
}

int kubesrc_get(struct kubesrc *src, const char *file_opt, const char *file, size_t max, const char *kind,
		enum kubesrc_doc what, const char *name, struct kubesrc_answer *ret)
{
	char why[512] = "";
	int r;

	memset(ret, 0, sizeof(*ret));
	if (!file) {
		r = src->ops->get(src->ctx, what, name, ret);
		if (r < 0 && !ret->message[0])
			snprintf(ret->message, sizeof(ret->message), "%s: %s", ret->where, strerror(-r));
		return r;
	}
	snprintf(ret->where, sizeof(ret->where), "%s %s", file_opt, infile_name(file));
	r = infile_read_input(file, max, kind, &ret->text, &ret->len, why, sizeof(why));
	if (r < 0)
		snprintf(ret->message, sizeof(ret->message), "%s: %s", ret->where, why[0] ? why : strerror(-r));
	return r;
}

void kubesrc_answer_free(struct kubesrc_answer *a)
{
	if (!a)
		return;
	free(a->text);
	a->text = NULL;
	a->len = 0;
}

void kubesrc_close(struct kubesrc *src)
{
	if (src && src->ops && src->ops->close)
		src->ops->close(src->ctx);
}
