/* kubesrc.h - where a fleet command reads the cluster: the files named on its command line, else the cluster through the program's client. */
#pragma once

#include <stddef.h>

#include "agent/cli.h"
#include "report/fleet/coherence.h"

/*
 * status, interfaces, runtime and workloads over a published node read Kubernetes objects. Each
 * comes from the file its option names (--nodes-file, --pods-file, --runtime-file,
 * --networks-file) when given, else from the cluster through one of two clients behind struct
 * kubesrc_ops: tcpxo-agent's own API client (agent/kubesrc_api.c: libcurl, in-cluster or
 * --api-server) or, on a workstation, the user's kubectl (fabric/kubectl.c). The commands cannot
 * tell them apart; this file and the commands link neither.
 */

/* The documents other than Nodes a command asks the cluster for. */
enum kubesrc_doc {
	KUBESRC_PODS = 0,               /* the pods bound to node @name, of every namespace: a PodList */
	KUBESRC_RUNTIME,                /* ClusterTrainingRuntime @name (trainer.kubeflow.org) */
	KUBESRC_NETWORKS,               /* networks.networking.gke.io: a NetworkList */
};

/* One document the cluster answered, or why not. */
struct kubesrc_answer {
	char *text;                     /* owned: the body (NUL-terminated) when read */
	size_t len;
	long status;                    /* the HTTP status when one was answered (kubectl: 403 and 404 told), else 0 */
	char where[256];                /* what was read, for messages: "GET /apis/...", "kubectl get ..." */
	char message[768];              /* not read: why, a whole sentence for "PROG: CMD: " */
};

struct kubesrc_ops {
	/*
	 * Every Node (only those @selector selects, when not NULL; at least node @name, when not
	 * NULL) into @nodes, page by page (coherence_add_nodelist(); coherence_reset() when the
	 * listing starts over). @cmd names the command in advice. @err: why not, a whole
	 * sentence. Return: 0; -ENOTCONN when no cluster is configured; another -errno.
	 */
	int (*nodes)(void *ctx, const char *cmd, const char *selector, const char *name,
		     struct coherence *nodes, char *err, size_t errlen);
	/*
	 * Document @what of @name, ret->where naming the call. Return: 0 with ret->text; -ENOTCONN
	 * when no cluster is configured, -ENOENT when it is not there (ret->status 404: the object,
	 * or the resource itself), another -errno; each with ret->message.
	 */
	int (*get)(void *ctx, enum kubesrc_doc what, const char *name, struct kubesrc_answer *ret);
	void (*close)(void *ctx);
};

struct kubesrc {
	const struct kubesrc_ops *ops;
	void *ctx;
};

/**
 * kubesrc_nodes() - a fleet command's NodeList into @nodes (a coherence, or fleet_new()'s): opt->nodes_file when given (bounded,
 * "-" for standard input), else every page @src lists (opt->selector; only @only when not NULL).
 * On failure prints one line "PROG: CMD: ..." naming the file or the call.
 * Return: 0; -errno.
 */
int kubesrc_nodes(struct kubesrc *src, const struct cli_options *opt, const char *cmd, const char *only,
		  struct coherence *nodes);

/**
 * kubesrc_get() - one document: @file (given as option @file_opt, at most @max bytes, "-" for
 * standard input; @kind names what it should be in messages) when not NULL, else @what of @name
 * from @src. ret->where names what was read.
 * Return: 0 with ret->text; -errno with ret->message (a file's error included: nothing printed).
 * Free @ret with kubesrc_answer_free().
 */
int kubesrc_get(struct kubesrc *src, const char *file_opt, const char *file, size_t max, const char *kind,
		enum kubesrc_doc what, const char *name, struct kubesrc_answer *ret);

void kubesrc_answer_free(struct kubesrc_answer *a);

/* kubesrc_close() - close the client behind @src (none opened: nothing). Accepts NULL. */
void kubesrc_close(struct kubesrc *src);
