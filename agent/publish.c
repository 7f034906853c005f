/* publish.c - read the node's API facts, publish our annotations with one merge patch, clean up. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agent/infile.h"
#include "agent/publish.h"
#include "probes/kube/kube.h"
#include "probes/kube/kubeparse.h"
#include "probes/kube/kubeparse_pods.h"
#include "report/render/annotations.h"

/* The --releases file: a regular file of at most RELEASES_FILE_MAX bytes, parsed. */
static int publish_load_releases(const char *path, struct releases **ret)
{
	struct strbuf why = { 0 };
	char err[256] = "", *text = NULL;
	size_t len = 0;
	int r;

	r = infile_read(path, RELEASES_FILE_MAX, 0, &text, &len, &why);
	if (r >= 0)
		r = releases_parse(text, len, ret, err, sizeof(err));
	if (r >= 0)
		snprintf((*ret)->source, sizeof((*ret)->source), "%s", path);
	else
		fprintf(stderr, "tcpxo-agent: --releases %s: %s\n", path, why.s ? why.s : err[0] ? err : strerror(-r));
	free(text);
	strbuf_free(&why);
	return r;
}

int publisher_open(const struct cli_options *opt, struct publisher *ret)
{
	struct publisher pb = { .opt = opt };
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
		r = publish_load_releases(opt->releases, &pb.releases);
		if (r < 0)
			return r == -ENOMEM ? r : -EINVAL;
	}
	r = http_client_new(&cfg, &pb.http, pb.http_why, sizeof(pb.http_why));
	if (r == -ENOENT) {
		pb.http = NULL;         /* no API configured: a laptop or CI */
	} else if (r < 0) {
		fprintf(stderr, "tcpxo-agent: API access: %s\n", pb.http_why);
		releases_free(pb.releases);
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
	pb->http = NULL;
	pb->releases = NULL;
}

static void publisher_fetch_set(struct kube_fetch *f, int r, const struct http_response *resp)
{
	f->err = r;
	f->http_status = resp->status;
	f->state = r >= 0 ? KUBE_FETCH_OK : resp->status == 403 ? KUBE_FETCH_FORBIDDEN : KUBE_FETCH_FAILED;
	snprintf(f->message, sizeof(f->message), "%s", r >= 0 ? "" : resp->error);
}

/* A parse error after a 2xx answer turns the fetch into FAILED; @err already names the object. */
static void publisher_parsed(struct kube_fetch *f, size_t len, int r, const char *err)
{
	if (r >= 0)
		return;
	f->state = KUBE_FETCH_FAILED;
	f->err = r;
	snprintf(f->message, sizeof(f->message), "unusable answer (%zu bytes): %s", len, err);
}

int publisher_read(struct publisher *pb, const char *node, struct obs_kube *k)
{
	struct http_response resp = { 0 };
	char err[256];
	int rn, rp, r;

	k->releases = pb->releases;
	if (!pb->http || !node)
		return -ENOENT;
	k->configured = true;

	rn = kube_get_node(pb->http, node, &resp);
	pb->requests += resp.attempts;
	publisher_fetch_set(&k->node_fetch, rn, &resp);
	if (rn >= 0) {
		rn = kubeparse_node(resp.body, resp.len, pb->opt->prefix, k, err, sizeof(err));
		publisher_parsed(&k->node_fetch, resp.len, rn, err);
	}
	http_response_free(&resp);

	rp = kube_list_pods(pb->http, node, &resp);
	pb->requests += resp.attempts;
	publisher_fetch_set(&k->pods_fetch, rp, &resp);
	if (rp >= 0) {
		rp = kubeparse_pods(resp.body, resp.len, k, err, sizeof(err));
		publisher_parsed(&k->pods_fetch, resp.len, rp, err);
	}
	http_response_free(&resp);

	/* Networks are optional facts: a 403 or 404 is noted, never a failure of the observation. */
	if (rn >= 0) {
		r = kube_list_networks(pb->http, &resp);
		pb->requests += resp.attempts;
		publisher_fetch_set(&k->networks_fetch, r, &resp);
		if (r >= 0) {
			r = kubeparse_networks(resp.body, resp.len, k, err, sizeof(err));
			publisher_parsed(&k->networks_fetch, resp.len, r, err);
		}
		http_response_free(&resp);
	}
	return rn < 0 || rp < 0 ? -EIO : 0;
}

bool publisher_complete(const struct observation *o)
{
	const struct obs_host *h = &o->host;

	return o->pci.status.state == PROBE_OK && o->links.status.state == PROBE_OK &&
	       h->aperture.status.state != PROBE_FAILED && h->devnodes.status.state != PROBE_FAILED &&
	       h->nvpath.status.state != PROBE_FAILED && h->procs.status.state != PROBE_FAILED &&
	       o->kube.node_fetch.state == KUBE_FETCH_OK && o->kube.pods_fetch.state == KUBE_FETCH_OK;
}

void publisher_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int publisher_write(struct publisher *pb, const struct observation *o, const struct profile *p,
		    unsigned *ret_keys, char *err, size_t errlen)
{
	struct annotations want = { 0 };
	struct http_response resp = { 0 };
	char now[ANNOTATIONS_CHANGED_AT_MAX], *patch = NULL;
	int r, keys;

	*ret_keys = 0;
	if (!pb->http || !*o->node) {
		snprintf(err, errlen, "%s", !pb->http ? "no API configured" : "no node name (--node or NODE_NAME)");
		return -ENOENT;
	}
	if (o->kube.node_fetch.state != KUBE_FETCH_OK) {
		/* Without the node's current values a diff is impossible: never write blind. */
		snprintf(err, errlen, "the node could not be read: %s", o->kube.node_fetch.message);
		return -EIO;
	}
	publisher_now(now, sizeof(now));
	r = annotations_build(p, publisher_complete(o), now, &want);
	if (r < 0) {
		snprintf(err, errlen, "building the annotations: %s", strerror(-r));
		return r;
	}
	keys = annotations_diff(&want, o->kube.ours, pb->opt->prefix, &patch);
	annotations_free(&want);
	if (keys < 0) {
		snprintf(err, errlen, "building the merge patch: %s", strerror(-keys));
		return keys;
	}
	if (keys == 0)
		return 0;
	r = kube_patch_node(pb->http, o->node, patch, &resp);
	pb->requests += resp.attempts;
	if (r < 0)
		snprintf(err, errlen, "PATCH node %s: %s", o->node, resp.error);
	else
		*ret_keys = (unsigned)keys;
	http_response_free(&resp);
	free(patch);
	return r;
}

int publisher_cleanup(struct publisher *pb, const char *node, char *err, size_t errlen)
{
	struct http_response resp = { 0 };
	char *patch = NULL;
	int r;

	if (!pb->http || !node) {
		snprintf(err, errlen, "%s", !pb->http ? "no API configured" : "no node name (--node or NODE_NAME)");
		return -ENOENT;
	}
	r = annotations_cleanup_patch(pb->opt->prefix, &patch);
	if (r < 0) {
		snprintf(err, errlen, "building the cleanup patch: %s", strerror(-r));
		return r;
	}
	r = kube_patch_node(pb->http, node, patch, &resp);
	pb->requests += resp.attempts;
	if (r < 0)
		snprintf(err, errlen, "PATCH node %s: %s", node, resp.error);
	http_response_free(&resp);
	free(patch);
	return r;
}
