/* publisher.c - the publisher: its release table (re-read on change) and API client; the node's facts read (--once, --no-watch); the cleanup. publish.c plans its writes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent/log.h"
#include "agent/publisher.h"
#include "agent/relfile.h"
#include "probes/kube/kube.h"
#include "probes/kube/kubefeed.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "probes/kube/kubeslices.h"
#include "probes/model/errmsg.h"
#include "report/render/annotations.h"
#include "report/render/condition.h"

/*
 * A configuration error of publisher_open(): the daemon's through its log, and --cleanup's when its
 * log is JSON (a JSON log stays JSON); the other commands' as a line "tcpxo-agent: ..." on stderr.
 */
static void publish_say(const struct cli_options *opt, const char *what, const char *why)
{
	if (opt->cmd == CLI_CMD_CLEANUP && opt->log_format == CLI_LOG_JSON)
		log_setup(opt->log_format, opt->verbose, opt->node, stderr);
	if (opt->cmd == CLI_CMD_DAEMON || (opt->cmd == CLI_CMD_CLEANUP && opt->log_format == CLI_LOG_JSON))
		log_emit(LOG_LEVEL_ERROR, what, "error", why, NULL);
	else
		fprintf(stderr, "tcpxo-agent: %s: %s\n", what, why);
}

int publisher_open(const struct cli_options *opt, struct publisher *ret)
{
	struct publisher pb = {
		.node = opt->node, .prefix = opt->prefix, .releases_file = opt->releases, .labels = !opt->no_labels,
		.publish = !opt->no_publish, .events.backoff.rng = (uint64_t)time(NULL) ^ (uint64_t)getpid() << 32,
	};
	struct http_config cfg = {
		.server = opt->api_server,
		.token_file = opt->token_file,
		.ca_file = opt->ca_file,
		/*
		 * At most 15 s per call: --once (three calls) ends within a minute, and a daemon
		 * iteration stays shorter than the liveness probe's --max-age 60 even when the API
		 * hangs; the daemon's own backoff retries later.
		 */
		.max_total_ms = 15000,
		.max_attempts = 3,
	};
	int r;

	if (opt->releases) {
		char err[256], what[300];

		r = relfile_load(opt->releases, &pb.releases, &pb.releases_text, &pb.releases_len, err,
					  sizeof(err));
		if (r < 0) {
			snprintf(what, sizeof(what), "--releases %s", opt->releases);
			publish_say(opt, what, err);
			return r == -ENOMEM ? r : -EINVAL;
		}
	}
	r = http_client_new(&cfg, &pb.http, pb.http_why, sizeof(pb.http_why));
	if (r == -ENOENT) {
		pb.http = NULL;         /* no API configured: a laptop or CI */
	} else if (r < 0) {
		publish_say(opt, "API access", pb.http_why);
		releases_free(pb.releases);
		free(pb.releases_text);
		return r == -ENOMEM ? r : -EINVAL;
	}
	*ret = pb;
	return 0;
}

void publisher_close(struct publisher *pb)
{
	if (!pb)
		return;
	http_client_free(pb->http);
	releases_free(pb->releases);
	free(pb->releases_text);
	eventq_free(&pb->events);
	obs_kube_ann_clear(pb->event_from, KUBE_ANN__COUNT);
	memset(pb, 0, sizeof(*pb));     /* nothing left to free: closing it again does nothing */
}

int publisher_reload_releases(struct publisher *pb, char *err, size_t errlen)
{
	struct releases *t = NULL;
	char *text = NULL;
	size_t len = 0;
	int r;

	if (!pb->releases_file)
		return 0;
	r = relfile_load(pb->releases_file, &t, &text, &len, err, errlen);
	if (r < 0)
		return r;
	/* The same text (a touch, the ConfigMap's other keys changed): nothing changes. */
	if (pb->releases_text && len == pb->releases_len && memcmp(text, pb->releases_text, len) == 0) {
		releases_free(t);
		free(text);
		return 0;
	}
	releases_free(pb->releases);
	free(pb->releases_text);
	pb->releases = t;
	pb->releases_text = text;
	pb->releases_len = len;
	return 1;
}

/* The parsers of a read's body (the node's takes the prefix: publisher_take() calls it by name). */
typedef int publisher_parse_fn(const char *body, size_t len, struct obs_kube *k, char *err, size_t errlen);

/*
 * One read's answer (@r, @resp) into @f and its body parsed into @k by @parse (NULL: the node's);
 * a parse error after a 2xx answer turns the fetch into FAILED, @err naming the object. @resp is freed.
 */
static int publisher_take(struct publisher *pb, struct kube_fetch *f, int r, struct http_response *resp,
			  publisher_parse_fn *parse, struct obs_kube *k)
{
	char err[256], msg[KUBE_MSG_MAX];

	*f = (struct kube_fetch){ .state = KUBE_FETCH_OK, .http_status = resp->status };
	if (r < 0) {
		kubefeed_failed(f, resp->status, r, resp->error);
	} else if ((r = parse ? parse(resp->body, resp->len, k, err, sizeof(err))
			      : kubeparse_node(resp->body, resp->len, pb->prefix, k, err, sizeof(err))) < 0) {
		snprintf(msg, sizeof(msg), "unusable answer (%zu bytes): %s", resp->len, err);
		kubefeed_failed(f, resp->status, r, msg);
	}
	http_response_free(resp);
	return r;
}

int publisher_read(struct publisher *pb, const char *node, struct obs_kube *k)
{
	struct http_response resp = { 0 };
	int rn, rp;

	k->releases = pb->releases;
	if (!pb->http || !node)
		return -ENOENT;
	k->configured = true;

	rn = publisher_take(pb, &k->node_fetch, kube_get_node(pb->http, node, &resp), &resp, NULL, k);
	/* A pod that cannot be read is set aside and named by the checks, never the whole list. */
	rp = publisher_take(pb, &k->pods_fetch, kube_list_pods(pb->http, node, &resp), &resp, kubeparse_pods, k);
	/* Networks are optional facts: a 403 or 404 is noted, never a failure of the observation. */
	if (rn >= 0)
		publisher_take(pb, &k->networks_fetch, kube_list_networks(pb->http, &resp), &resp, kubeparse_networks, k);
	/* A DRANET node's ResourceSlices, optional as the Networks: only there do they say anything. */
	if (rn >= 0 && k->dranet)
		publisher_take(pb, &k->slices_fetch, kube_list_slices(pb->http, node, &resp), &resp, kubeslices_parse, k);
	if (rn < 0 || rp < 0)
		pb->in_sync = false;    /* no write can follow a failed read: whatever changes meanwhile is owed */
	return rn < 0 || rp < 0 ? -EIO : 0;
}

/* Where a write goes: an API and a node name (@node may be NULL or ""). */
int publisher_has_target(const struct publisher *pb, const char *node, char *err, size_t errlen)
{
	if (!pb->http || !node || !*node)
		return errmsg_set(err, errlen, -ENOENT, "%s",
				  !pb->http ? "no API configured" : "no node name (--node or NODE_NAME)");
	return 0;
}

/* PATCH the node with @patch (@status: its status subresource, a strategic merge); the error names the path. */
static int publisher_patch(struct publisher *pb, const char *node, bool status, const char *patch, char *err,
			   size_t errlen)
{
	struct http_response resp = { 0 };
	int r = kube_patch_node(pb->http, node, status, patch, &resp);

	if (r == 0)
		pb->writes[status ? METRICS_WRITE_STATUS_PATCH : METRICS_WRITE_MERGE_PATCH]++;
	if (r < 0)
		errmsg_set(err, errlen, r, "PATCH node %s%s: %s", node, status ? "/status" : "", resp.error);
	http_response_free(&resp);
	return r;
}

int publisher_cleanup(struct publisher *pb, const char *node, char *err, size_t errlen)
{
	char *patch = NULL;
	int r;

	if (publisher_has_target(pb, node, err, errlen) < 0)
		return -ENOENT;
	/* The annotations and labels, then the condition: one write each, nothing else touched. */
	for (int status = 0; status < 2; status++) {
		r = status ? condition_cleanup_patch(&patch) : annotations_cleanup_patch(pb->prefix, &patch);
		if (r < 0)
			return errmsg_set(err, errlen, r, "building the cleanup patch: %s", strerror(-r));
		r = publisher_patch(pb, node, status, patch, err, errlen);
		free(patch);
		if (r < 0)
			return r;
	}
	return 0;
}

