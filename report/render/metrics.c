/* metrics.c - pure: the daemon's /metrics page in the Prometheus text format. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/render/metrics.h"

#define METRICS_LABEL_MAX 253           /* a label value is cut here (a DNS subdomain's length) */

const double metrics_duration_bounds[METRICS_DURATION_BUCKETS] = {
	0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
};
/* The bounds as the le label says them (never printed from the doubles: no rounding surprise). */
static const char *const metrics_duration_le[METRICS_DURATION_BUCKETS] = {
	"0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5", "1", "2.5", "5", "10",
};

static const char *const metrics_write_name[METRICS_WRITE__COUNT] = { "merge_patch", "status_patch", "event" };

static const enum check_status metrics_statuses[] = { CHECK_PASS, CHECK_WARN, CHECK_FAIL, CHECK_SKIP };

void metrics_histogram_observe(struct metrics_histogram *h, double seconds)
{
	if (!isfinite(seconds) || seconds < 0)
		seconds = 0;
	for (size_t i = 0; i < METRICS_DURATION_BUCKETS; i++) {
		if (seconds <= metrics_duration_bounds[i]) {
			h->bucket[i]++;
			break;
		}
	}
	h->count++;
	h->sum += seconds;
}

/* A label value: escaped as the text format wants, hostile bytes made '?', cut. */
static void metrics_label(struct strbuf *sb, const char *s)
{
	size_t n = 0;

	for (; s && *s && n < METRICS_LABEL_MAX; s++, n++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\\')
			strbuf_append(sb, "\\\\");
		else if (c == '"')
			strbuf_append(sb, "\\\"");
		else if (c == '\n')
			strbuf_append(sb, "\\n");
		else if (c < 0x20 || c >= 0x7f)
			strbuf_append(sb, "?");
		else
			strbuf_appendn(sb, (const char *)&c, 1);
	}
}

static void metrics_head(struct strbuf *sb, const char *name, const char *type, const char *help)
{
	strbuf_appendf(sb, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/*
 * One series: @name{k1="v1",...} @value. @labels: pairs of label name and value, NULL-ended
 * (at most three pairs here).
 */
static void metrics_series(struct strbuf *sb, const char *name, const char *const *labels, const char *value)
{
	strbuf_append(sb, name);
	for (size_t i = 0; labels && labels[i]; i += 2) {
		strbuf_appendf(sb, "%s%s=\"", i ? "," : "{", labels[i]);
		metrics_label(sb, labels[i + 1]);
		strbuf_append(sb, "\"");
	}
	if (labels && labels[0])
		strbuf_append(sb, "}");
	strbuf_appendf(sb, " %s\n", value);
}

static void metrics_u64(struct strbuf *sb, const char *name, const char *const *labels, unsigned long long v)
{
	char text[32];

	snprintf(text, sizeof(text), "%llu", v);
	metrics_series(sb, name, labels, text);
}

/* ---- per-pod families: a state set (one series per state, 1 for the pod's) or a gauge ---- */

/* One series of @pod in family @name: with the @label="@state" pair when @label is not NULL. */
static void metrics_pod_series(struct strbuf *sb, const char *name, const struct metrics_pod *pod, const char *label,
			       const char *state, const char *value)
{
	const char *labels[] = { "namespace", pod->ns ? pod->ns : "", "pod", pod->name ? pod->name : "", label, state,
				 NULL };

	metrics_series(sb, name, labels, value);
}

static int metrics_pod_cmp(const void *a, const void *b)
{
	const struct metrics_pod *x = *(const struct metrics_pod *const *)a, *y = *(const struct metrics_pod *const *)b;
	int c = strcmp(x->ns ? x->ns : "", y->ns ? y->ns : "");

	return c ? c : strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int metrics_pods(struct strbuf *sb, const struct metrics_input *in)
{
	const struct metrics_pod **v = NULL;
	char text[32];

	if (in->n_pods) {
		v = calloc(in->n_pods, sizeof(*v));
		if (!v)
			return -ENOMEM;
		for (size_t i = 0; i < in->n_pods; i++)
			v[i] = &in->pods[i];
		qsort(v, in->n_pods, sizeof(*v), metrics_pod_cmp);
	}
	metrics_head(sb, "tcpxo_pod_attachment", "gauge", "Whether the GPU pod's attachment to the GPU NICs is this "
		     "verdict (1) or not (0); a pod that left the node has no series.");
	for (size_t i = 0; i < in->n_pods; i++)
		for (unsigned k = 0; k < ATTACH_VERDICT__COUNT; k++)
			metrics_pod_series(sb, "tcpxo_pod_attachment", v[i], "verdict",
					   attach_verdict_name((enum attach_verdict)k), k == v[i]->verdict ? "1" : "0");
	metrics_head(sb, "tcpxo_pod_gpus", "gauge", "The GPU pod's effective nvidia.com/gpu request.");
	for (size_t i = 0; i < in->n_pods; i++) {
		snprintf(text, sizeof(text), "%lld", v[i]->gpus);
		metrics_pod_series(sb, "tcpxo_pod_gpus", v[i], NULL, NULL, text);
	}
	metrics_head(sb, "tcpxo_pod_transport", "gauge", "Whether the GPU pod's own processes talk to the TCPXO daemon "
		     "in this state (1) or not (0), from its /proc/<pid>/net files; a pod not sampled yet has no series.");
	for (size_t i = 0; i < in->n_pods; i++)
		for (unsigned k = 0; v[i]->has_transport && k < TRANSPORT__COUNT; k++)
			metrics_pod_series(sb, "tcpxo_pod_transport", v[i], "state",
					   transport_state_name((enum transport_state)k), k == v[i]->transport ? "1" : "0");
	metrics_head(sb, "tcpxo_pod_transport_rails", "gauge",
		     "The GPU NIC addresses with a live buffer-op client of the TCPXO daemon in the GPU pod.");
	for (size_t i = 0; i < in->n_pods; i++) {
		snprintf(text, sizeof(text), "%lld", (long long)v[i]->rails);
		if (v[i]->has_transport)
			metrics_pod_series(sb, "tcpxo_pod_transport_rails", v[i], NULL, NULL, text);
	}
	free(v);
	return 0;
}

/* ---- counters of the API client and the watches ---- */

static int metrics_api_cmp(const void *a, const void *b)
{
	const struct apicount_entry *x = *(const struct apicount_entry *const *)a;
	const struct apicount_entry *y = *(const struct apicount_entry *const *)b;
	int c = strcmp(x->verb, y->verb);

	if (!c)
		c = strcmp(x->resource, y->resource);
	return c ? c : (x->code > y->code) - (x->code < y->code);
}

static void metrics_api(struct strbuf *sb, const struct apicount *api)
{
	const struct apicount_entry *v[APICOUNT_MAX];
	size_t n = api ? api->n : 0;

	metrics_head(sb, "tcpxo_api_requests_total", "counter",
		     "Kubernetes API requests by verb, resource and HTTP status (code \"error\": no answer); "
		     "each retry counts.");
	for (size_t i = 0; i < n; i++)
		v[i] = &api->v[i];
	qsort(v, n, sizeof(v[0]), metrics_api_cmp);
	for (size_t i = 0; i < n; i++) {
		char code[16];
		const char *labels[] = { "verb", v[i]->verb, "resource", v[i]->resource, "code", code, NULL };

		if (v[i]->code)
			snprintf(code, sizeof(code), "%d", v[i]->code);
		else
			snprintf(code, sizeof(code), "error");
		metrics_u64(sb, "tcpxo_api_requests_total", labels, v[i]->n);
	}
}

static int metrics_relist_cmp(const void *a, const void *b)
{
	const struct metrics_relist *x = *(const struct metrics_relist *const *)a;
	const struct metrics_relist *y = *(const struct metrics_relist *const *)b;
	int c = strcmp(x->resource, y->resource);

	return c ? c : strcmp(x->reason, y->reason);
}

static int metrics_relists(struct strbuf *sb, const struct metrics_input *in)
{
	const struct metrics_relist **v = NULL;

	metrics_head(sb, "tcpxo_watch_relists_total", "counter",
		     "Refills of a watched resource's store after the first, by what asked them "
		     "(gone: 410, resync: the --interval safety net, error: a failed or broken stream).");
	if (!in->n_relists)
		return 0;
	v = calloc(in->n_relists, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < in->n_relists; i++)
		v[i] = &in->relists[i];
	qsort(v, in->n_relists, sizeof(*v), metrics_relist_cmp);
	for (size_t i = 0; i < in->n_relists; i++) {
		const char *labels[] = { "resource", v[i]->resource, "reason", v[i]->reason, NULL };

		metrics_u64(sb, "tcpxo_watch_relists_total", labels, v[i]->n);
	}
	free(v);
	return 0;
}

/* ---- the node ---- */

static void metrics_node(struct strbuf *sb, const struct metrics_input *in)
{
	metrics_head(sb, "tcpxo_node_ready", "gauge",
		     "Whether the node's last verdict is ready for its GPU NIC fabric (1) or not (0).");
	metrics_series(sb, "tcpxo_node_ready", NULL, in->evaluated && in->ready ? "1" : "0");
	metrics_head(sb, "tcpxo_node_observed", "gauge",
		     "Whether the last observation of the node could be made (1) or not (0: the verdict is the last one made).");
	metrics_series(sb, "tcpxo_node_observed", NULL, in->observed ? "1" : "0");
	if (in->publish != METRICS_PUBLISH_OFF) {
		metrics_head(sb, "tcpxo_node_publish_in_sync", "gauge",
			     "Whether the Node carries what the last verdict wants (annotations, labels, FabricReady): 1 the "
			     "last look found it so or the last write of it went through, 0 a write is owed (failed, "
			     "refused, waiting, or none through yet).");
		metrics_series(sb, "tcpxo_node_publish_in_sync", NULL, in->publish == METRICS_PUBLISH_IN_SYNC ? "1" : "0");
	}
	metrics_head(sb, "tcpxo_node_profile", "gauge",
		     "Whether the node's last verdict found this fabric profile (1) or not (0); all 0 before the first.");
	for (unsigned k = PROFILE_NONE; k <= PROFILE_TCPXO; k++) {
		const char *labels[] = { "profile", profile_kind_name((enum profile_kind)k), NULL };

		metrics_series(sb, "tcpxo_node_profile", labels, in->evaluated && in->profile == k ? "1" : "0");
	}
	metrics_head(sb, "tcpxo_check_status", "gauge",
		     "Whether each check's status is this one (1) or not (0); every check and status always has a series.");
	for (unsigned c = 0; c < CHECK__COUNT; c++) {
		for (size_t s = 0; s < sizeof(metrics_statuses) / sizeof(metrics_statuses[0]); s++) {
			const char *labels[] = { "check", check_id_name((enum check_id)c), "status",
						 check_status_name(metrics_statuses[s]), NULL };

			metrics_series(sb, "tcpxo_check_status", labels,
				       in->evaluated && in->checks[c] == metrics_statuses[s] ? "1" : "0");
		}
	}
}

static void metrics_observation(struct strbuf *sb, const struct metrics_input *in)
{
	const struct metrics_histogram *h = in->duration;
	unsigned long long cum = 0;
	char text[64];

	metrics_head(sb, "tcpxo_last_observation_timestamp_seconds", "gauge",
		     "Unix time of the last observation of the node that could be made (0: none yet).");
	snprintf(text, sizeof(text), "%.3f", in->last_observation_s);
	metrics_series(sb, "tcpxo_last_observation_timestamp_seconds", NULL, text);
	metrics_head(sb, "tcpxo_observation_duration_seconds", "histogram",
		     "Time to observe and judge the node (host probes, evaluation, the pods' judgement).");
	for (size_t i = 0; i < METRICS_DURATION_BUCKETS; i++) {
		const char *labels[] = { "le", metrics_duration_le[i], NULL };

		cum += h ? h->bucket[i] : 0;
		metrics_u64(sb, "tcpxo_observation_duration_seconds_bucket", labels, cum);
	}
	{
		const char *labels[] = { "le", "+Inf", NULL };

		metrics_u64(sb, "tcpxo_observation_duration_seconds_bucket", labels, h ? h->count : 0);
	}
	snprintf(text, sizeof(text), "%.9g", h ? h->sum : 0.0);
	metrics_series(sb, "tcpxo_observation_duration_seconds_sum", NULL, text);
	metrics_u64(sb, "tcpxo_observation_duration_seconds_count", NULL, h ? h->count : 0);
}

/* The process_* families of Prometheus' client libraries, those read. */
static void metrics_process(struct strbuf *sb, const struct procstat *ps)
{
	char text[64];

	if (!ps)
		return;
	if (ps->have & PROCSTAT_CPU) {
		metrics_head(sb, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.");
		snprintf(text, sizeof(text), "%.3f", ps->cpu_seconds);
		metrics_series(sb, "process_cpu_seconds_total", NULL, text);
	}
	if (ps->have & PROCSTAT_MAX_FDS) {
		metrics_head(sb, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
		metrics_u64(sb, "process_max_fds", NULL, ps->max_fds);
	}
	if (ps->have & PROCSTAT_OPEN_FDS) {
		metrics_head(sb, "process_open_fds", "gauge", "Number of open file descriptors.");
		metrics_u64(sb, "process_open_fds", NULL, ps->open_fds);
	}
	if (ps->have & PROCSTAT_RESIDENT) {
		metrics_head(sb, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
		metrics_u64(sb, "process_resident_memory_bytes", NULL, ps->resident_bytes);
	}
	if (ps->have & PROCSTAT_START) {
		metrics_head(sb, "process_start_time_seconds", "gauge",
			     "Start time of the process since unix epoch in seconds.");
		snprintf(text, sizeof(text), "%.2f", ps->start_time);
		metrics_series(sb, "process_start_time_seconds", NULL, text);
	}
	if (ps->have & PROCSTAT_VIRTUAL) {
		metrics_head(sb, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
		metrics_u64(sb, "process_virtual_memory_bytes", NULL, ps->virtual_bytes);
	}
}

int metrics_render(const struct metrics_input *in, struct strbuf *out)
{
	const char *version[] = { "version", in->version ? in->version : "", NULL };

	metrics_head(out, "tcpxo_build_info", "gauge", "The agent's version; always 1.");
	metrics_series(out, "tcpxo_build_info", version, "1");
	metrics_node(out, in);
	if (metrics_pods(out, in) < 0)
		return -ENOMEM;
	metrics_observation(out, in);
	metrics_api(out, in->api);
	if (metrics_relists(out, in) < 0)
		return -ENOMEM;
	metrics_head(out, "tcpxo_node_writes_total", "counter",
		     "Writes of the node's state the API accepted, by kind (merge_patch: annotations and labels, "
		     "status_patch: the FabricReady condition, event: an Event posted).");
	for (size_t k = 0; k < METRICS_WRITE__COUNT; k++) {
		const char *labels[] = { "kind", metrics_write_name[k], NULL };

		metrics_u64(out, "tcpxo_node_writes_total", labels, in->writes[k]);
	}
	metrics_process(out, in->process);
	return out->oom ? -ENOMEM : 0;
}
