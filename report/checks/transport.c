/* transport.c - a running GPU pod's transport judged from its own processes' sockets (pure, time injected). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "probes/kube/imageref.h"
#include "probes/model/timetext.h"
#include "report/checks/transport.h"

static const char *const transport_names[TRANSPORT__COUNT] = {
	[TRANSPORT_NOT_OBSERVED] = "not-observed",
	[TRANSPORT_FASTRAK] = "fastrak",
	[TRANSPORT_PARTIAL] = "partial",
	[TRANSPORT_TCP] = "tcp",
	[TRANSPORT_IDLE] = "idle",
	[TRANSPORT_PENDING] = "pending",
	[TRANSPORT_UNKNOWN] = "unknown",
};

const char *transport_state_name(enum transport_state s)
{
	return (unsigned)s < TRANSPORT__COUNT ? transport_names[s] : "unknown";
}

bool transport_state_fails(enum transport_state s)
{
	return s == TRANSPORT_TCP || s == TRANSPORT_PARTIAL;
}

unsigned transport_rails_needed(const struct attach_node *n, long long gpus)
{
	const struct attach_fabric *fab = attach_fabric_of(n->kind);
	unsigned long long node_gpus, nics, need;

	if (!fab || gpus < 1)
		return 0;
	node_gpus = n->gpus ? n->gpus : 8;
	nics = n->gpu_nics ? n->gpu_nics : fab->gpu_nics;
	if (!nics)
		return 0;
	if ((unsigned long long)gpus >= node_gpus)
		return (unsigned)nics;
	need = ((unsigned long long)gpus * nics + node_gpus - 1) / node_gpus;
	return (unsigned)(need < 1 ? 1 : need > nics ? nics : need);
}

/* Append to the evidence; a text too long ends in "...". */
static void transport_say(struct transport_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void transport_say(struct transport_result *r, const char *fmt, ...)
{
	size_t n = strlen(r->evidence), room = sizeof(r->evidence) - n;
	va_list ap;
	int k;

	if (room <= 4)          /* full (or cut already) */
		return;
	va_start(ap, fmt);
	k = vsnprintf(r->evidence + n, room, fmt, ap);
	va_end(ap);
	if (k >= 0 && (size_t)k >= room)
		memcpy(r->evidence + sizeof(r->evidence) - 4, "...", 4);
}

/* A byte rate as "0 B/s", "12.3 kB/s", "1.2 GB/s" (decimal units). */
static void transport_rate(double bps, char *buf, size_t len)
{
	static const char *const units[] = { "kB/s", "MB/s", "GB/s" };
	size_t u = 0;

	if (bps < 1000.0) {
		snprintf(buf, len, "%.0f B/s", bps);
		return;
	}
	bps /= 1000.0;
	while (bps >= 1000.0 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bps /= 1000.0;
		u++;
	}
	snprintf(buf, len, "%.1f %s", bps, units[u]);
}

/* One interface's rates between two readings. */
struct transport_dev_rate {
	const char *name;
	double rx, tx;                  /* bytes/s */
};

/* What a pod's interfaces but lo carried between two readings. */
struct transport_rates {
	double dt;                      /* seconds between the readings */
	double rx, tx;                  /* bytes/s, summed */
	size_t n;                       /* interfaces in both readings whose counters did not go back */
	struct transport_dev_rate dev[OBS_TRANSPORT_DEVS_MAX];  /* those interfaces, busiest (rx + tx) first */
};

/*
 * The rates of @s's interfaces but lo between its previous reading and this one. An interface
 * absent from either reading, or whose counter went back (a new interface of the same name), is
 * left out. Return: false when there is no previous reading (no rates).
 */
static bool transport_rates_of(const struct obs_pod_transport *s, struct transport_rates *ret)
{
	struct transport_rates r = { 0 };

	if (!s->has_prev || s->sampled_ms <= s->prev_ms)
		return false;
	r.dt = (double)(s->sampled_ms - s->prev_ms) / 1000.0;
	for (size_t i = 0; i < s->n_devs && i < OBS_TRANSPORT_DEVS_MAX; i++) {
		const struct obs_transport_dev *cur = &s->devs[i];

		if (strncmp(cur->name, "lo", sizeof(cur->name)) == 0)
			continue;
		for (size_t j = 0; j < s->n_prev && j < OBS_TRANSPORT_DEVS_MAX; j++) {
			const struct obs_transport_dev *old = &s->prev[j];
			size_t k;

			if (strncmp(old->name, cur->name, sizeof(old->name)) != 0)
				continue;
			if (cur->rx_bytes < old->rx_bytes || cur->tx_bytes < old->tx_bytes)
				break;
			k = r.n++;
			r.dev[k].name = cur->name;
			r.dev[k].rx = (double)(cur->rx_bytes - old->rx_bytes) / r.dt;
			r.dev[k].tx = (double)(cur->tx_bytes - old->tx_bytes) / r.dt;
			r.rx += r.dev[k].rx;
			r.tx += r.dev[k].tx;
			/* Insertion by rx + tx, busiest first: at most OBS_TRANSPORT_DEVS_MAX entries. */
			for (; k > 0 && r.dev[k - 1].rx + r.dev[k - 1].tx < r.dev[k].rx + r.dev[k].tx; k--) {
				struct transport_dev_rate t = r.dev[k - 1];

				r.dev[k - 1] = r.dev[k];
				r.dev[k] = t;
			}
			break;
		}
	}
	*ret = r;
	return true;
}

#define TRANSPORT_RATES_SHOWN 3         /* interfaces the evidence names; the rest are counted */

/*
 * "eth0 rx 2.0 GB/s, tx 2.0 GB/s; eth1 ...": the busiest interfaces (the quiet ones counted), or
 * "0 B/s on eth0, eth1" when none moved a byte, or that there is none but lo.
 */
static void transport_say_devs(struct transport_result *r, const struct transport_rates *t)
{
	size_t shown = 0;
	char a[24], b[24];

	if (!t->n) {
		transport_say(r, "no interface but lo in both readings");
		return;
	}
	if (t->rx + t->tx <= 0.0) {
		transport_say(r, "0 B/s on ");
		for (; shown < t->n && shown < TRANSPORT_RATES_SHOWN; shown++)
			transport_say(r, "%s%.*s", shown ? ", " : "", OBS_TRANSPORT_IFNAME_MAX, t->dev[shown].name);
		if (t->n > shown)
			transport_say(r, " and %zu more", t->n - shown);
		return;
	}
	for (; shown < t->n && shown < TRANSPORT_RATES_SHOWN && t->dev[shown].rx + t->dev[shown].tx > 0.0; shown++) {
		transport_rate(t->dev[shown].rx, a, sizeof(a));
		transport_rate(t->dev[shown].tx, b, sizeof(b));
		transport_say(r, "%s%.*s rx %s, tx %s", shown ? "; " : "", OBS_TRANSPORT_IFNAME_MAX, t->dev[shown].name,
			      a, b);
	}
	if (t->n > shown)
		transport_say(r, "; %zu more interface%s", t->n - shown, t->n - shown == 1 ? "" : "s");
}

/* A wall clock (seconds since the epoch) as "14:02 UTC"; "?" when it cannot be told. */
static void transport_clock(long long s, char *buf, size_t len)
{
	time_t t = (time_t)s;
	struct tm tm;

	if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%H:%M UTC", &tm))
		snprintf(buf, len, "?");
}

/* "; it had 8 clients on 8 NIC addresses until 14:02 UTC (12m before this sample)": the daemon's history. */
static void transport_say_history(struct transport_result *r, const struct obs_pod_transport *s, long long wall_s,
				  const char *then)
{
	char at[32], ago[24];

	if (s->had_until_s <= 0 || !s->had_clients)
		return;
	transport_clock(s->had_until_s, at, sizeof(at));
	timetext_duration(wall_s > s->had_until_s ? wall_s - s->had_until_s : 0, TIMETEXT_FINE, ago, sizeof(ago));
	transport_say(r, "; it had %zu client%s on %zu NIC address%s until %s (%s before this sample)%s", s->had_clients,
		      s->had_clients == 1 ? "" : "s", s->had_rails, s->had_rails == 1 ? "" : "es", at, ago, then);
}

/* "; no client on any sample since 13:50 UTC (10m)": the daemon's history of a pod that never had one. */
static void transport_say_never(struct transport_result *r, const struct obs_pod_transport *s, long long wall_s)
{
	char at[32], ago[24];

	if (s->since_s <= 0 || s->since_s >= wall_s)
		return;
	transport_clock(s->since_s, at, sizeof(at));
	timetext_duration(wall_s - s->since_s, TIMETEXT_FINE, ago, sizeof(ago));
	transport_say(r, "; no client on any sample since %s (%s)", at, ago);
}

/* "; the daemon listens on 8 NIC addresses; 0 DXS flows", or that no daemon listens in the pod's namespace. */
static void transport_say_daemon(struct transport_result *r, const struct obs_pod_transport *s)
{
	if (!s->listeners)
		transport_say(r, "; no rxdm_uds_buf_op listener in its network namespace (no TCPXO daemon sidecar)");
	else
		transport_say(r, "; the daemon listens on %zu NIC address%s", s->listeners, s->listeners == 1 ? "" : "es");
	transport_say(r, "; %zu DXS flow%s", s->flows, s->flows == 1 ? "" : "s");
}

/* The NIC addresses with a client, ", "-separated, the ones beyond the sample's list counted. */
static void transport_say_rails(struct transport_result *r, const struct obs_pod_transport *s)
{
	for (size_t i = 0; i < s->n_rails && i < OBS_TRANSPORT_RAILS_MAX; i++)
		transport_say(r, "%s%.*s", i ? ", " : "", OBS_TRANSPORT_ADDR_MAX, s->rails[i]);
	if (s->n_rails_dropped)
		transport_say(r, " and %zu more", s->n_rails_dropped);
}

/*
 * The youngest running GPU container's startedAt (seconds since the epoch) into @ret_started.
 * Return: 1 found; 0 no GPU container runs; -1 one runs whose startedAt is unknown.
 */
static int transport_youngest(const struct pod *p, long long *ret_started)
{
	long long best = 0;
	bool any = false;

	for (size_t i = 0; i < p->n_containers; i++) {
		const struct pod_container *c = &p->containers[i];

		if (!imageref_gpu_container(c) || c->status.state != POD_CSTATE_RUNNING)
			continue;
		if (c->status.started_at <= 0)
			return -1;
		if (!any || c->status.started_at > best)
			best = c->status.started_at;
		any = true;
	}
	*ret_started = best;
	return any;
}

/*
 * Clients on no NIC address: pending within the grace (unknown without startedAt); past it, tcp
 * when the pod's interfaces moved bulk traffic both ways between two readings, else idle; pending
 * (unmeasured) while there is one reading only.
 */
static void transport_judge_idle(const struct transport_input *in, const struct obs_pod_transport *s,
				 struct transport_result *r)
{
	char age[24], grace[24], span[24], limit[24];
	long long started = 0, running;
	uint64_t rate = in->limits.tcp_rate ? in->limits.tcp_rate : TRANSPORT_TCP_RATE_DEFAULT;
	struct transport_rates t;
	int k = transport_youngest(in->pod, &started);

	if (k < 0) {
		r->state = TRANSPORT_UNKNOWN;
		transport_say(r, "no buffer-op client yet, and a GPU container's startedAt is unknown: "
			      "its age against the grace cannot be told");
		return;
	}
	if (k == 0) {
		r->state = TRANSPORT_PENDING;
		transport_say(r, "no GPU container is running yet (waiting or restarting): no buffer-op client");
		return;
	}
	running = in->sample->wall_s - started;
	if (running < 0)
		running = 0;
	timetext_duration(running, TIMETEXT_FINE, age, sizeof(age));
	timetext_duration(in->limits.grace_s, TIMETEXT_FINE, grace, sizeof(grace));
	if (running < (long long)in->limits.grace_s) {
		r->state = TRANSPORT_PENDING;
		transport_say(r, "no buffer-op client yet: the GPU containers have run %s, less than the grace %s "
			      "(NCCL opens them at its first communicator)", age, grace);
		return;
	}
	if (!transport_rates_of(s, &t)) {
		r->state = TRANSPORT_PENDING;
		r->unmeasured = true;
		transport_say(r, "no buffer-op client after %s running (grace %s), and one reading of its traffic so far: "
			      "tcp or idle is told at the next", age, grace);
		transport_say_history(r, s, in->sample->wall_s, "");
		return;
	}
	timetext_duration((long long)(t.dt + 0.5), TIMETEXT_FINE, span, sizeof(span));
	transport_rate((double)rate, limit, sizeof(limit));
	if (t.rx >= (double)rate && t.tx >= (double)rate) {
		r->state = TRANSPORT_TCP;
		transport_say(r, "no buffer-op client after %s running (grace %s), and over %s bulk traffic both ways "
			      "(at least %s each): ", age, grace, span, limit);
		transport_say_devs(r, &t);
		transport_say(r, ": NCCL runs over TCP sockets, not FasTrak");
		transport_say_history(r, s, in->sample->wall_s, "");
	} else {
		r->state = TRANSPORT_IDLE;
		transport_say(r, "no buffer-op client after %s running (grace %s), and no bulk traffic both ways over %s "
			      "(limit %s each way): ", age, grace, span, limit);
		transport_say_devs(r, &t);
		if (s->had_until_s > 0 && s->had_clients)
			transport_say_history(r, s, in->sample->wall_s, ": its NCCL processes ended or restarted");
		else {
			transport_say(r, ": no NCCL communicator yet (a data load or compile, a pod waiting for kubectl "
				      "exec or its MPI launcher), or between runs");
			transport_say_never(r, s, in->sample->wall_s);
		}
	}
	transport_say_daemon(r, s);
}

/* The pod's own sample: unknown when it was not read, else by its clients' NIC addresses. */
static void transport_judge_sample(const struct transport_input *in, struct transport_result *r)
{
	const struct obs_transport *t = in->sample;
	const struct obs_pod_transport *s;

	r->state = TRANSPORT_UNKNOWN;
	if (!t || !t->sampled) {
		transport_say(r, "the pod's processes were not sampled");
		return;
	}
	if (t->status.state == PROBE_FAILED) {
		transport_say(r, "the host's /proc could not be read (%.300s)", t->status.message);
		return;
	}
	s = in->pod->uid ? obs_transport_find(t, in->pod->uid) : NULL;
	if (!s || s->read == OBS_TRANSPORT_NOT_READ) {
		transport_say(r, "the pod's processes were not sampled");
		return;
	}
	if (s->read == OBS_TRANSPORT_NO_PROCESS) {
		transport_say(r, "no process of the pod found under the host's /proc%s%.*s", s->why[0] ? ": " : "",
			      OBS_TRANSPORT_WHY_MAX, s->why);
		return;
	}
	if (s->read != OBS_TRANSPORT_READ) {
		transport_say(r, "the pod's files could not be read%s%.*s", s->why[0] ? ": " : "",
			      OBS_TRANSPORT_WHY_MAX, s->why);
		return;
	}
	r->rails = s->n_rails + s->n_rails_dropped;
	r->clients = s->clients;
	r->flows = s->flows;
	if (s->cut && r->rails < r->need) {
		/* Counted over the first part of a net file only: more clients may follow. */
		transport_say(r, "the pod's net files are longer than the probe reads: %zu buffer-op client%s on %zu NIC "
			      "address%s in the part read, the pod's %lld GPU%s need %u", r->clients,
			      r->clients == 1 ? "" : "s", r->rails, r->rails == 1 ? "" : "es", in->gpus,
			      in->gpus == 1 ? "" : "s", r->need);
		if (s->why[0])
			transport_say(r, " (%.*s)", OBS_TRANSPORT_WHY_MAX, s->why);
		return;
	}
	if (r->rails && r->rails >= r->need) {
		r->state = TRANSPORT_FASTRAK;
		transport_say(r, "%zu buffer-op client%s of the TCPXO daemon on %zu NIC address%s (the pod's %lld GPU%s "
			      "need %u): ", r->clients, r->clients == 1 ? "" : "s", r->rails, r->rails == 1 ? "" : "es",
			      in->gpus, in->gpus == 1 ? "" : "s", r->need);
		transport_say_rails(r, s);
		transport_say(r, "; %zu DXS flow%s", r->flows, r->flows == 1 ? "" : "s");
	} else if (r->rails) {
		r->state = TRANSPORT_PARTIAL;
		/* Ranks start at different times (up to 30 s for RxDM, 5 connects 6 s apart): one sample is no proof. */
		r->repeated = s->prev_read && s->prev_rails && s->prev_rails < r->need;
		transport_say(r, "buffer-op clients on %zu of the %u NIC addresses the pod's %lld GPU%s need: ", r->rails,
			      r->need, in->gpus, in->gpus == 1 ? "" : "s");
		transport_say_rails(r, s);
		transport_say(r, "; %zu client%s, %zu DXS flow%s: the ranks on the other NICs do not use FasTrak "
			      "(%s)", r->clients, r->clients == 1 ? "" : "s", r->flows, r->flows == 1 ? "" : "s",
			      r->repeated ? "the sample before too" : "one sample: late ranks may still connect");
	} else {
		transport_judge_idle(in, s, r);
	}
}

void transport_judge(const struct transport_input *in, struct transport_result *ret)
{
	const struct pod *p = in->pod;
	struct transport_result r = { .state = TRANSPORT_NOT_OBSERVED };

	if (!p->phase || strcmp(p->phase, "Running") != 0) {
		transport_say(&r, "the pod is %.32s, not Running", p->phase ? p->phase : "without a phase");
	} else if (in->node->kind == PROFILE_NONE) {
		transport_say(&r, "not a TCPXO node");
	} else if (in->node->kind == PROFILE_TCPX) {
		transport_say(&r, "a TCPX node: no persistent sign of the TCPX daemon's use has been sourced yet");
	} else if (in->node->kind == PROFILE_RDMA) {
		/* RoCE traffic bypasses the pod's sockets; the ports' counters are node-wide (issue 34, not yet used). */
		transport_say(&r, "an RDMA node: gIB's traffic bypasses the pod's sockets and is not sampled per pod");
	} else if (in->verdict == ATTACH_NOT_FABRIC) {
		transport_say(&r, "a not-fabric pod (fewer GPUs than the node, no wiring): not judged");
	} else if (p->host_network) {
		transport_say(&r, "hostNetwork: the pod shares the host's network namespace with every host-network "
			      "process (the TCPXO prober among them): its sockets cannot be told apart");
	} else {
		r.need = transport_rails_needed(in->node, in->gpus);
		transport_judge_sample(in, &r);
	}
	/* The evidence is ASCII: control bytes and anything else from /proc or the API become '?'. */
	for (char *s = r.evidence; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			*s = '?';
	r.status = transport_state_fails(r.state) ? CHECK_FAIL
		 : r.state == TRANSPORT_UNKNOWN || r.state == TRANSPORT_IDLE ? CHECK_SKIP : CHECK_PASS;
	*ret = r;
}
