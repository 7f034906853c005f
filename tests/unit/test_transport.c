/* test_transport.c - the transport judgement over in-memory samples (transport.c, workloads_transport), its rendering and Events. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/model/json.h"
#include "report/checks/transport.h"
#include "report/checks/workloads.h"
#include "report/render/pod_event.h"
#include "report/render/render.h"
#include "tests/unit/podbuild.h"

#define WALL 1800000000LL       /* the sample's wall clock */
#define UID "0f0e0d0c-0000-4000-8000-000000000001"   /* pb_pod()'s */

/* A sample of one pod read from pid 4242: @rails NIC addresses 10.64.1.1.. with a client each. */
static void sample(struct obs_transport *t, const char *uid, enum obs_transport_read rd, size_t rails)
{
	struct obs_pod_transport *s;

	memset(t, 0, sizeof(*t));
	t->sampled = true;
	t->status.state = PROBE_OK;
	t->wall_s = WALL;
	t->pods = calloc(1, sizeof(*t->pods));
	t->n = 1;
	s = &t->pods[0];
	snprintf(s->uid, sizeof(s->uid), "%s", uid);
	s->read = rd;
	s->pid = rd == OBS_TRANSPORT_READ ? 4242 : 0;
	s->listeners = 8;
	s->clients = rails * 2;
	s->flows = rails * 2;
	for (size_t i = 0; i < rails && i < OBS_TRANSPORT_RAILS_MAX; i++)
		snprintf(s->rails[i], sizeof(s->rails[i]), "10.64.1.%zu", i + 1);
	s->n_rails = rails < OBS_TRANSPORT_RAILS_MAX ? rails : OBS_TRANSPORT_RAILS_MAX;
	s->n_rails_dropped = rails > OBS_TRANSPORT_RAILS_MAX ? rails - OBS_TRANSPORT_RAILS_MAX : 0;
	s->sampled_ms = 5000000;
}

/* AICR's worker, Running, its GPU container started @age seconds before the sample. */
static struct pod *worker(long long age)
{
	struct pod *p = pb_aicr_worker();

	pb_find(p, "node")->status.started_at = WALL - age;
	pb_find(p, "tcpxo-daemon")->status.started_at = WALL - age - 5;
	return p;
}

static void judge(const struct pod *p, const struct attach_node *n, const struct obs_transport *t,
		  struct transport_result *r)
{
	struct transport_input in = {
		.pod = p, .gpus = obs_pod_gpus(p), .verdict = ATTACH_ATTACHED, .node = n, .sample = t,
		.grace_s = TRANSPORT_GRACE_DEFAULT_S,
	};

	transport_judge(&in, r);
}

static void expect_in(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' not in '%s'", needle, hay);
}

static void test_rails_needed(void **state)
{
	struct attach_node n;

	(void)state;
	pb_node_tcpxo(&n);
	assert_int_equal(transport_rails_needed(&n, 8), 8);
	assert_int_equal(transport_rails_needed(&n, 4), 4);        /* 1:1: a GPU's rank uses its own NIC */
	assert_int_equal(transport_rails_needed(&n, 1), 1);
	assert_int_equal(transport_rails_needed(&n, 3), 3);
	assert_int_equal(transport_rails_needed(&n, 16), 8);       /* never more than the node's GPU NICs */
	assert_int_equal(transport_rails_needed(&n, 0), 0);
	/* Unknown counts: the fabric's 8 and 8. */
	n.gpus = 0;
	n.gpu_nics = 0;
	assert_int_equal(transport_rails_needed(&n, 8), 8);
	assert_int_equal(transport_rails_needed(&n, 2), 2);
	/* A shape with fewer NICs than GPUs rounds up. */
	n.gpus = 8;
	n.gpu_nics = 4;
	assert_int_equal(transport_rails_needed(&n, 3), 2);
	assert_int_equal(transport_rails_needed(&n, 1), 1);
	n.kind = PROFILE_NONE;
	assert_int_equal(transport_rails_needed(&n, 8), 0);
}

static void test_states_from_sockets(void **state)
{
	struct attach_node n;
	struct obs_transport t;
	struct transport_result r;
	struct pod *p = worker(7200);

	(void)state;
	pb_node_tcpxo(&n);

	/* 8 clients' NIC addresses: fastrak. */
	sample(&t, UID, OBS_TRANSPORT_READ, 8);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_FASTRAK);
	assert_int_equal(r.rails, 8);
	assert_int_equal(r.clients, 16);
	assert_int_equal(r.flows, 16);
	assert_int_equal(r.need, 8);
	expect_in(r.evidence, "16 buffer-op clients of the TCPXO daemon on 8 NIC addresses (the pod's 8 GPUs need 8): "
		  "10.64.1.1, 10.64.1.2");
	expect_in(r.evidence, "10.64.1.8; 16 DXS flows");
	assert_false(transport_state_fails(r.state));
	obs_transport_free(&t);

	/* 2 of 8: partial, whatever its age. */
	sample(&t, UID, OBS_TRANSPORT_READ, 2);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_PARTIAL);
	assert_int_equal(r.rails, 2);
	expect_in(r.evidence, "buffer-op clients on 2 of the 8 NIC addresses the pod's 8 GPUs need: 10.64.1.1, 10.64.1.2");
	assert_true(transport_state_fails(r.state));
	obs_transport_free(&t);

	/* More addresses than the sample keeps: counted. */
	sample(&t, UID, OBS_TRANSPORT_READ, 18);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_FASTRAK);
	assert_int_equal(r.rails, 18);
	expect_in(r.evidence, " and 2 more");
	obs_transport_free(&t);

	/* A net file longer than the probe reads: fewer rails than needed cannot be told from a cut. */
	sample(&t, UID, OBS_TRANSPORT_READ, 2);
	t.pods[0].cut = true;
	strcpy(t.pods[0].why, "net/unix cut at 4 MiB");
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	assert_int_equal(r.rails, 2);
	expect_in(r.evidence, "longer than the probe reads: 4 buffer-op clients on 2 NIC addresses in the part read, "
		  "the pod's 8 GPUs need 8 (net/unix cut at 4 MiB)");
	obs_transport_free(&t);
	sample(&t, UID, OBS_TRANSPORT_READ, 8);
	t.pods[0].cut = true;
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_FASTRAK);       /* enough in the part read */
	obs_transport_free(&t);

	/* A 4-GPU pod with clients on 4 addresses: fastrak; on 3: partial. */
	pb_gpus(pb_find(p, "node"), 4);
	sample(&t, UID, OBS_TRANSPORT_READ, 4);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_FASTRAK);
	assert_int_equal(r.need, 4);
	obs_transport_free(&t);
	sample(&t, UID, OBS_TRANSPORT_READ, 3);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_PARTIAL);
	obs_transport_free(&t);
	pb_free(p);
}

static void test_none_and_pending(void **state)
{
	struct attach_node n;
	struct obs_transport t;
	struct transport_result r;
	struct obs_pod_transport *s;
	struct pod *p = worker(7200);
	struct transport_input in = { .pod = p, .gpus = 8, .node = &n, .sample = &t, .grace_s = 600 };

	(void)state;
	pb_node_tcpxo(&n);
	/* Running 2 h, no client: none; one sample, no rates yet. */
	sample(&t, UID, OBS_TRANSPORT_READ, 0);
	t.pods[0].flows = 0;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NONE);
	assert_int_equal(r.rails, 0);
	assert_int_equal(r.clients, 0);
	expect_in(r.evidence, "no process of the pod holds a buffer-op client of the TCPXO daemon after 2h00m running "
		  "(grace 10m)");
	expect_in(r.evidence, "the daemon listens on 8 NIC addresses; 0 DXS flows; one sample so far: no traffic rates yet");
	assert_true(transport_state_fails(r.state));

	/* Two samples 60 s apart: what eth0 and the GPU NICs carried. */
	s = &t.pods[0];
	s->n_devs = 3;
	strcpy(s->devs[0].name, "eth0");
	s->devs[0].rx_bytes = 61000000000ull;
	s->devs[0].tx_bytes = 60000000000ull;
	strcpy(s->devs[1].name, "eth1");
	s->devs[1].rx_bytes = 1000;
	s->devs[1].tx_bytes = 1000;
	strcpy(s->devs[2].name, "lo");
	s->has_prev = true;
	s->n_prev = 2;
	s->prev_ms = s->sampled_ms - 60000;
	strcpy(s->prev[0].name, "eth0");
	s->prev[0].rx_bytes = 1000000000ull;
	s->prev[0].tx_bytes = 0;
	strcpy(s->prev[1].name, "eth1");
	s->prev[1].rx_bytes = 1000;
	s->prev[1].tx_bytes = 1000;
	transport_judge(&in, &r);
	expect_in(r.evidence, "; over 60s eth0 carried rx 1.0 GB/s, tx 1.0 GB/s, the 1 GPU NIC rx 0 B/s, tx 0 B/s");

	/*
	 * The GPU NICs' names unknown (no published mapping): any interface but eth0 and lo counts as one;
	 * lo's traffic (a busy loopback) is never a GPU NIC's.
	 */
	{
		size_t n_ifaces = n.n_ifaces;

		n.n_ifaces = 0;
		s->devs[2].rx_bytes = s->devs[2].tx_bytes = 120000000000ull;
		s->n_prev = 3;
		strcpy(s->prev[2].name, "lo");
		transport_judge(&in, &r);
		expect_in(r.evidence, "; over 60s eth0 carried rx 1.0 GB/s, tx 1.0 GB/s, the 1 GPU NIC rx 0 B/s, tx 0 B/s");
		n.n_ifaces = n_ifaces;
		s->n_prev = 2;
	}

	/* A counter that went back (a reset) is left out. */
	s->prev[0].rx_bytes = 99000000000ull;
	transport_judge(&in, &r);
	expect_in(r.evidence, "; over 60s: no eth0 counters in both samples, the 1 GPU NIC rx 0 B/s");

	/* No listener either: said. */
	s->listeners = 0;
	transport_judge(&in, &r);
	expect_in(r.evidence, "no rxdm_uds_buf_op listener in its network namespace either");

	/* Started 60 s ago: pending. */
	pb_find(p, "node")->status.started_at = WALL - 60;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_PENDING);
	expect_in(r.evidence, "the GPU containers have run 60s, less than the grace 10m");
	assert_false(transport_state_fails(r.state));

	/* The youngest running GPU container counts: one restarted 60 s ago while another ran 2 h. */
	{
		struct pod_container *c2 = pb_container(p, "node-2", "pytorch/pytorch:2", false, false);

		pb_gpus(c2, 1);
		c2->status.started_at = WALL - 7200;
		transport_judge(&in, &r);
		assert_int_equal(r.state, TRANSPORT_PENDING);
		c2->status.started_at = 0;      /* one whose start is unknown: the age is unknown */
		transport_judge(&in, &r);
		assert_int_equal(r.state, TRANSPORT_UNKNOWN);
		expect_in(r.evidence, "startedAt is unknown");
		c2->status.state = POD_CSTATE_WAITING;
	}

	/* A clock behind startedAt: no negative age, pending. */
	pb_find(p, "node")->status.started_at = WALL + 30;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_PENDING);
	expect_in(r.evidence, "have run 0s");

	/* Grace 0: none at once. */
	in.grace_s = 0;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NONE);
	in.grace_s = 600;

	/* No GPU container running (restarting): pending, never none. */
	pb_find(p, "node")->status.state = POD_CSTATE_WAITING;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_PENDING);
	expect_in(r.evidence, "no GPU container is running yet");
	obs_transport_free(&t);
	pb_free(p);
}

static void test_unknown(void **state)
{
	struct attach_node n;
	struct obs_transport t;
	struct transport_result r;
	struct pod *p = worker(7200);

	(void)state;
	pb_node_tcpxo(&n);
	/* No process of the pod: unknown, never none. */
	sample(&t, UID, OBS_TRANSPORT_NO_PROCESS, 0);
	strcpy(t.pods[0].why, "no cgroup under /proc names pod " UID);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	expect_in(r.evidence, "no process of the pod found under the host's /proc: no cgroup under /proc names pod");
	obs_transport_free(&t);

	sample(&t, UID, OBS_TRANSPORT_UNREADABLE, 0);
	strcpy(t.pods[0].why, "/proc/4242/net/unix: Permission denied");
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	expect_in(r.evidence, "the pod's files could not be read: /proc/4242/net/unix: Permission denied");
	obs_transport_free(&t);

	sample(&t, UID, OBS_TRANSPORT_NOT_READ, 0);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	expect_in(r.evidence, "not sampled");
	obs_transport_free(&t);

	/* Another pod's sample only. */
	sample(&t, "another-uid", OBS_TRANSPORT_READ, 8);
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	obs_transport_free(&t);

	/* The probe failed (hidepid): unknown with its message. */
	sample(&t, UID, OBS_TRANSPORT_READ, 8);
	probe_status_fail(&t.status, -EACCES, "/proc: mounted with hidepid=2");
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	expect_in(r.evidence, "the host's /proc could not be read (/proc: mounted with hidepid=2)");
	assert_int_equal(r.rails, 0);
	obs_transport_free(&t);

	/* Nothing sampled at all. */
	judge(p, &n, NULL, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	memset(&t, 0, sizeof(t));
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	pb_free(p);
}

static void test_not_observed(void **state)
{
	struct attach_node n;
	struct obs_transport t;
	struct transport_result r;
	struct pod *p = worker(7200), *pending = pb_pod("ml", "waiting", "Pending");
	struct transport_input in = { .pod = p, .gpus = 8, .node = &n, .sample = &t, .grace_s = 600 };

	(void)state;
	pb_node_tcpxo(&n);
	sample(&t, UID, OBS_TRANSPORT_READ, 0);

	n.kind = PROFILE_TCPX;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	expect_in(r.evidence, "a TCPX node");
	n.kind = PROFILE_NONE;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	n.kind = PROFILE_TCPXO;

	in.shared_netns = true;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	expect_in(r.evidence, "hostNetwork, like another running GPU pod");
	in.shared_netns = false;

	in.verdict = ATTACH_NOT_FABRIC;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	in.verdict = ATTACH_ATTACHED;

	in.pod = pending;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	assert_string_equal(r.evidence, "the pod is Pending, not Running");
	assert_false(transport_pod_sampled(pending, NULL));
	assert_true(transport_pod_sampled(p, "node-1"));
	assert_false(transport_pod_sampled(p, "node-2"));
	obs_transport_free(&t);
	pb_free(p);
	pb_free(pending);
}

/* Hostile text from /proc and the API: the evidence is printable ASCII, cut with "..." when long. */
static void test_hostile(void **state)
{
	struct attach_node n;
	struct obs_transport t;
	struct transport_result r;
	struct pod *p = worker(7200);

	(void)state;
	pb_node_tcpxo(&n);
	sample(&t, UID, OBS_TRANSPORT_READ, 16);
	for (size_t i = 0; i < 16; i++)
		memset(t.pods[0].rails[i], i == 3 ? '\x1b' : 'a', OBS_TRANSPORT_ADDR_MAX);   /* no NUL in the field */
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_FASTRAK);
	assert_true(strlen(r.evidence) < TRANSPORT_EVIDENCE_MAX);
	assert_string_equal(r.evidence + strlen(r.evidence) - 3, "...");
	for (const char *c = r.evidence; *c; c++)
		assert_true(*c >= 0x20 && *c < 0x7f);
	obs_transport_free(&t);

	sample(&t, UID, OBS_TRANSPORT_UNREADABLE, 0);
	memset(t.pods[0].why, '\n', sizeof(t.pods[0].why));     /* not even terminated */
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_UNKNOWN);
	assert_null(strchr(r.evidence, '\n'));
	obs_transport_free(&t);
	pb_free(p);
}

/* A judged workloads list of @n pods on the TCPXO node (attached), for workloads_transport(). */
static void workloads_of(struct workloads *w, struct pod **pods, size_t n)
{
	memset(w, 0, sizeof(*w));
	w->judged = true;
	pb_node_tcpxo(&w->node);
	w->pods = calloc(n, sizeof(*w->pods));
	for (size_t i = 0; i < n; i++) {
		w->pods[i].pod = pods[i];
		w->pods[i].result.gpus = obs_pod_gpus(pods[i]);
		w->pods[i].result.verdict = ATTACH_ATTACHED;
	}
	w->n = n;
	w->counts[ATTACH_ATTACHED] = n;
}

static void test_workloads_transport(void **state)
{
	struct observation o = { 0 };
	struct workloads w;
	struct pod *pods[3] = { worker(7200), worker(7200), worker(7200) };

	(void)state;
	free(pods[1]->uid);
	pods[1]->uid = strdup("uid-2");
	free(pods[2]->uid);
	pods[2]->uid = strdup("uid-3");
	free(pods[1]->name);
	pods[1]->name = strdup("b");
	free(pods[2]->name);
	pods[2]->name = strdup("c");
	o.transport.sampled = true;
	o.transport.status.state = PROBE_OK;
	o.transport.wall_s = WALL;
	o.transport.pods = calloc(3, sizeof(*o.transport.pods));
	o.transport.n = 3;
	strcpy(o.transport.pods[0].uid, UID);
	o.transport.pods[0].read = OBS_TRANSPORT_READ;
	o.transport.pods[0].n_rails = 8;
	o.transport.pods[0].clients = 8;
	strcpy(o.transport.pods[1].uid, "uid-2");
	o.transport.pods[1].read = OBS_TRANSPORT_READ;
	strcpy(o.transport.pods[2].uid, "uid-3");
	o.transport.pods[2].read = OBS_TRANSPORT_NO_PROCESS;

	workloads_of(&w, pods, 3);
	assert_false(workloads_any_transport_failed(&w));        /* not judged yet */
	workloads_transport(&w, &o, 600);
	assert_true(w.transport_judged);
	assert_int_equal(w.pods[0].transport.state, TRANSPORT_FASTRAK);
	assert_int_equal(w.pods[1].transport.state, TRANSPORT_NONE);
	assert_int_equal(w.pods[2].transport.state, TRANSPORT_UNKNOWN);
	assert_int_equal(w.transport_counts[TRANSPORT_FASTRAK], 1);
	assert_int_equal(w.transport_counts[TRANSPORT_NONE], 1);
	assert_true(workloads_any_transport_failed(&w));
	assert_int_equal(w.counts[ATTACH_ATTACHED], 3);        /* the attachment verdicts never change */

	/* Two running GPU pods on the host network: neither is observed; a third in its own namespace is. */
	pods[0]->host_network = pods[1]->host_network = true;
	workloads_transport(&w, &o, 600);
	assert_int_equal(w.pods[0].transport.state, TRANSPORT_NOT_OBSERVED);
	assert_int_equal(w.pods[1].transport.state, TRANSPORT_NOT_OBSERVED);
	assert_int_equal(w.pods[2].transport.state, TRANSPORT_UNKNOWN);
	assert_false(workloads_any_transport_failed(&w));
	/* One alone on the host network is judged. */
	pods[1]->host_network = false;
	workloads_transport(&w, &o, 600);
	assert_int_equal(w.pods[0].transport.state, TRANSPORT_FASTRAK);
	pods[0]->host_network = false;

	/* Not judged: nothing. */
	w.judged = false;
	w.transport_judged = false;
	workloads_transport(&w, &o, 600);
	assert_false(w.transport_judged);
	w.judged = true;
	workloads_transport(&w, &o, 600);

	/* The JSON: a transport object on each pod. */
	{
		char *t = render_workloads_json(&w, "node-1");
		const struct json *p;
		struct json *v;
		double d;

		assert_int_equal(json_parse(t, strlen(t), &v), 0);
		p = json_first(json_get(v, "pods"));
		assert_string_equal(json_get_string(p, "uid"), UID);
		assert_string_equal(json_get_path(p, "transport", NULL) ? json_get_string(json_get(p, "transport"), "state") : "",
				    "fastrak");
		assert_true(json_number(json_get_path(p, "transport", "rails", NULL), &d) && d == 8);
		assert_true(json_number(json_get_path(p, "transport", "clients", NULL), &d) && d == 8);
		assert_true(json_number(json_get_path(p, "transport", "flows", NULL), &d) && d == 0);
		expect_in(json_get_string(json_get(p, "transport"), "evidence"), "8 buffer-op clients");
		p = json_next(p);
		assert_string_equal(json_get_string(json_get(p, "transport"), "state"), "none");
		json_free(v);
		free(t);
	}
	/* The table: a TRANSPORT column, the evidence under none, partial and unknown. */
	{
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		assert_int_equal(render_workloads_human(&w, "node-1", f), 0);
		fclose(f);
		expect_in(out, "\n  POD                           GPUS  VERDICT     TRANSPORT     FINDINGS\n");
		expect_in(out, "\n  ml-team/llama-node-0-0-x2b9f  8     attached    fastrak       -\n");
		expect_in(out, "\n  ml-team/b                     8     attached    none          -\n"
			  "      transport         FAIL  no process of the pod holds a buffer-op client of the TCPXO daemon");
		expect_in(out, "\n  ml-team/c                     8     attached    unknown       -\n"
			  "      transport         SKIP  no process of the pod found under the host's /proc\n");
		for (char *line = out; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
			size_t n = strcspn(line, "\n");

			if (n > 100)
				fail_msg("line of %zu columns: %.*s", n, (int)n, line);
		}
		free(out);
	}
	workloads_free(&w);
	obs_transport_free(&o.transport);
	for (int i = 0; i < 3; i++)
		pb_free(pods[i]);
}

static void test_pod_event(void **state)
{
	struct transport_result r = { .state = TRANSPORT_NONE, .need = 8 };
	struct pod_event ev;

	(void)state;
	strcpy(r.evidence, "no process of the pod holds a buffer-op client");
	assert_true(pod_event_transport(&r, &ev));
	assert_string_equal(ev.type, "Warning");
	assert_string_equal(ev.action, "Check");
	assert_string_equal(ev.reason, "TCPXONotInUse");
	expect_in(ev.note, "Transport none: no process of the pod holds a buffer-op client. Check that NCCL loads");

	r.state = TRANSPORT_PARTIAL;
	r.rails = 2;
	assert_true(pod_event_transport(&r, &ev));
	assert_string_equal(ev.reason, "TCPXOPartialRails");
	expect_in(ev.note, "Transport partial (2 of 8 NIC addresses): ");

	/* The longest evidence still fits the 1 KiB note. */
	memset(r.evidence, 'x', sizeof(r.evidence) - 1);
	r.evidence[sizeof(r.evidence) - 1] = '\0';
	assert_true(pod_event_transport(&r, &ev));
	assert_true(strlen(ev.note) <= POD_EVENT_NOTE_MAX);

	for (int s = 0; s < TRANSPORT__COUNT; s++) {
		r.state = (enum transport_state)s;
		assert_int_equal(pod_event_transport(&r, &ev), s == TRANSPORT_NONE || s == TRANSPORT_PARTIAL);
	}
	assert_string_equal(transport_state_name(TRANSPORT_NOT_OBSERVED), "not-observed");
	assert_string_equal(transport_state_name((enum transport_state)99), "unknown");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rails_needed),
		cmocka_unit_test(test_states_from_sockets),
		cmocka_unit_test(test_none_and_pending),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_not_observed),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_workloads_transport),
		cmocka_unit_test(test_pod_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
