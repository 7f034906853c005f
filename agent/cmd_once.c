/* cmd_once.c - `tcpxo-agent --once` and `--cleanup`: observe, evaluate, print, publish. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/log.h"
#include "agent/nodeview.h"
#include "agent/observe.h"
#include "agent/output.h"
#include "agent/publish.h"
#include "probes/model/clockms.h"
#include "report/checks/evaluate.h"
#include "report/checks/profile.h"
#include "report/checks/workloads.h"
#include "probes/model/strbuf.h"
#include "report/render/render.h"
#include "report/render/render_npd.h"

static int once_print(const struct cli_options *opt, const struct observation *o, const struct profile *p,
		      const struct workloads *w)
{
	if (!opt->json)
		render_human(o, p, w, stdout);
	else if (output_json(opt->prog_name, "", render_json(o, p, w)) < 0)
		return -ENOMEM;
	return output_flush(opt->prog_name, "");
}

/*
 * -o npd: the one line node-problem-detector keeps, on stdout. @why: why the verdict is unknown
 * when @p's summary cannot say it (the exit code is 2 for a reason outside the checks); NULL else.
 */
static void once_npd(const struct profile *p, const char *why)
{
	struct strbuf sb = { 0 };

	if (render_npd(p, why, &sb) < 0) {
		fprintf(stderr, "tcpxo-agent: out of memory while writing the report\n");
	} else {
		fputs(sb.s, stdout);
		output_flush("tcpxo-agent", "");
	}
	strbuf_free(&sb);
}

/* Say why an API read failed; a refusal also says which permissions the agent needs. */
static void once_fetch_report(const char *what, const char *node, const struct kube_fetch *f)
{
	if (f->state == KUBE_FETCH_OK)
		return;
	fprintf(stderr, "tcpxo-agent: %s %s: %s%s\n", what, node, f->message,
		f->http_status == 401 || f->http_status == 403 ?
		" (the credentials need get and patch on nodes, patch on nodes/status, list on pods, create on "
		"events.k8s.io events)" : "");
}

/* Publish the node's state as the daemon does and say what was written. Return: 0 or -errno (said). */
static int once_publish(struct publisher *pb, const struct observation *o, struct obs_kube *facts,
			const struct profile *p)
{
	struct publish_result res;
	struct strbuf sb = { 0 };
	char err[512];
	int r;

	r = publisher_write(pb, o, facts, p, clockms_now(), &res, err, sizeof(err));
	if (res.annotations)
		strbuf_appendf(&sb, "%u annotation%s", res.annotations, res.annotations == 1 ? "" : "s");
	if (res.labels)
		strbuf_appendf(&sb, "%s%u label%s", sb.len ? ", " : "", res.labels, res.labels == 1 ? "" : "s");
	if (res.condition)
		strbuf_appendf(&sb, "%scondition FabricReady=%s (%s)", sb.len ? ", " : "", res.status, res.reason);
	if (res.posted)
		strbuf_appendf(&sb, "%s%u Event%s", sb.len ? ", " : "", res.posted, res.posted == 1 ? "" : "s");
	/* What went through is said even when something after it failed. */
	if (sb.len)
		fprintf(stderr, "tcpxo-agent: published on node %s: %s\n", o->node, sb.s);
	else if (r == 0 && !res.events_failed)
		fprintf(stderr, "tcpxo-agent: node %s already carries this state: nothing to publish\n", o->node);
	strbuf_free(&sb);
	if (r < 0)
		fprintf(stderr, "tcpxo-agent: publish failed: %s\n", err);
	if (res.events_failed)
		fprintf(stderr, "tcpxo-agent: publish failed: %s\n", res.events_error);
	return r < 0 ? r : res.events_failed ? -EIO : 0;
}

int cmd_once(const struct cli_options *opt)
{
	struct nodeview v;
	bool api_ok = true;
	char why[512] = "";     /* -o npd: why the exit code is 2 when the summary does not say unknown */
	int code;

	if (nodeview_open(opt, &v) < 0) {
		if ((opt->output == CLI_OUTPUT_NPD))
			once_npd(NULL, "the agent could not start (its stderr says why)");
		return EXIT_UNKNOWN;
	}
	if (v.pb.http && !opt->node)
		fprintf(stderr, "tcpxo-agent: no node name (--node or NODE_NAME): API facts not read\n");
	if (publisher_read(&v.pb, opt->node, &v.kube) == -EIO) {
		const struct kube_fetch *bad = v.kube.node_fetch.state != KUBE_FETCH_OK ? &v.kube.node_fetch :
										  &v.kube.pods_fetch;

		api_ok = false;
		once_fetch_report("reading node", opt->node, &v.kube.node_fetch);
		once_fetch_report("listing the pods on", opt->node, &v.kube.pods_fetch);
		snprintf(why, sizeof(why), "API not read: %.480s", bad->message);
	}
	/* The node judged, then its GPU pods against its fabric: shown, never part of the node's verdict. */
	if (profile_evaluate(&v.o, &v.p) < 0 || workloads_evaluate(&v.o, &v.p, &v.w) < 0) {
		fprintf(stderr, "tcpxo-agent: out of memory while evaluating the observation\n");
		snprintf(why, sizeof(why), "out of memory");
		code = EXIT_UNKNOWN;
		goto out;
	}
	/* The transport is shown, and the exit code never reads it: NPD's one line does not wait for it. */
	if (opt->output != CLI_OUTPUT_NPD && nodeview_transport(&v, opt, "") < 0) {
		code = EXIT_UNKNOWN;
		goto out;
	}
	if (opt->output != CLI_OUTPUT_NPD && once_print(opt, &v.o, &v.p, &v.w) < 0) {
		code = EXIT_UNKNOWN;
		goto out;
	}
	if (v.o.pci.status.state != PROBE_OK)
		fprintf(stderr, "tcpxo-agent: PCI probe failed: %s\n", v.o.pci.status.message);
	if (v.o.links.status.state != PROBE_OK)
		fprintf(stderr, "tcpxo-agent: links probe failed: %s\n", v.o.links.status.message);
	/*
	 * A node whose PCI bus or links could not be read is unknown, not "not ready"; so is one
	 * whose API facts could not be read: the checks that need them skipped, they never passed.
	 */
	code = v.observed < 0 || !api_ok ? EXIT_UNKNOWN : v.p.ready ? EXIT_READY : EXIT_NOT_READY;
	if (!api_ok && v.observed >= 0)
		fprintf(stderr, "tcpxo-agent: unknown: the checks that read the API could not judge node %s\n", opt->node);

	if (!opt->no_publish) {
		if (!v.pb.http) {
			/* Nothing to publish to (a laptop, CI): the verdict stands, and we say so. */
			fprintf(stderr, "tcpxo-agent: no Kubernetes API configured (%s): not published\n", v.pb.http_why);
		} else if (v.observed < 0) {
			/* An observation that could not be made is never published: the node keeps its values. */
			fprintf(stderr, "tcpxo-agent: not published: the node could not be observed\n");
		} else if (!api_ok || !opt->node) {
			fprintf(stderr, "tcpxo-agent: not published: the API facts could not be read\n");
			if (!why[0])
				snprintf(why, sizeof(why), "not published: no node name (--node or NODE_NAME)");
			code = EXIT_UNKNOWN;
		} else if (once_publish(&v.pb, &v.o, &v.kube, &v.p) < 0) {
			snprintf(why, sizeof(why), "the node's state could not be published (stderr says why)");
			code = EXIT_UNKNOWN;
		}
	}
out:
	if ((opt->output == CLI_OUTPUT_NPD)) {
		bool said = code != EXIT_UNKNOWN ||
			    (v.p.summary && strncmp(v.p.summary, "tcpxo: unknown:", 15) == 0);

		once_npd(&v.p, said ? NULL : why[0] ? why : "see the agent's stderr");
	}
	nodeview_close(&v);
	return code;
}

/* --cleanup's outcome on stderr: a log line when --log-format json (the uninstall DaemonSet's logs), else text. */
static void cleanup_say(const struct cli_options *opt, enum log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void cleanup_say(const struct cli_options *opt, enum log_level level, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (opt->log_format != CLI_LOG_JSON) {
		fprintf(stderr, "tcpxo-agent: %s\n", msg);
		return;
	}
	log_setup(opt->log_format, opt->verbose, opt->node, stderr);
	log_emit(level, msg, "node", opt->node, NULL);
}

int cmd_cleanup(const struct cli_options *opt)
{
	struct publisher pb;
	char err[512];
	int r;

	if (!opt->node) {
		cleanup_say(opt, LOG_LEVEL_ERROR, "--cleanup needs the node name (--node or NODE_NAME)");
		return EXIT_UNKNOWN;
	}
	if (publisher_open(opt, &pb) < 0)
		return EXIT_UNKNOWN;
	if (!pb.http) {
		cleanup_say(opt, LOG_LEVEL_ERROR, "--cleanup: no Kubernetes API configured (%s)", pb.http_why);
		publisher_close(&pb);
		return EXIT_UNKNOWN;
	}
	r = publisher_cleanup(&pb, opt->node, err, sizeof(err));
	publisher_close(&pb);
	if (r < 0) {
		cleanup_say(opt, LOG_LEVEL_ERROR, "--cleanup failed: %s", err);
		return EXIT_UNKNOWN;
	}
	cleanup_say(opt, LOG_LEVEL_INFO, "removed the %s annotations and labels and the FabricReady condition from node %s",
		    opt->prefix, opt->node);
	return 0;
}
