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
		.limits = { .grace_s = TRANSPORT_GRACE_DEFAULT_S },
	};

	transport_judge(&in, r);
}

static void expect_in(const char *hay, const char *needle)
{
	if (!strstr(hay, needle))
		fail_msg("'%s' not in '%s'", needle, hay);
}

static void expect_not_in(const char *hay, const char *needle)
{
	if (strstr(hay, needle))
		fail_msg("'%s' in '%s'", needle, hay);
}

/* Interface @i of @s: @name with @rx/@tx bytes now, and @prx/@ptx in the reading @dt_ms before. */
static void dev(struct obs_pod_transport *s, size_t i, const char *name, uint64_t rx, uint64_t tx, uint64_t prx,
		uint64_t ptx, uint64_t dt_ms)
{
	snprintf(s->devs[i].name, sizeof(s->devs[i].name), "%s", name);
	s->devs[i].rx_bytes = rx;
	s->devs[i].tx_bytes = tx;
	snprintf(s->prev[i].name, sizeof(s->prev[i].name), "%s", name);
	s->prev[i].rx_bytes = prx;
	s->prev[i].tx_bytes = ptx;
	if (s->n_devs <= i)
		s->n_devs = s->n_prev = i + 1;
	s->has_prev = true;
	s->prev_ms = s->sampled_ms - dt_ms;
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
	expect_in(r.evidence, "(one sample: late ranks may still connect)");
	assert_false(r.repeated);
	assert_true(transport_state_fails(r.state));
	/* Partial on the daemon's sample before too: repeated (its Event is due); fastrak or unread before: not. */
	t.pods[0].prev_read = true;
	t.pods[0].prev_rails = 2;
	judge(p, &n, &t, &r);
	assert_true(r.repeated);
	expect_in(r.evidence, "(the sample before too)");
	t.pods[0].prev_rails = 8;
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_PARTIAL);
	assert_false(r.repeated);
	t.pods[0].prev_rails = 0;
	judge(p, &n, &t, &r);
	assert_false(r.repeated);
	t.pods[0].prev_rails = 2;
	t.pods[0].prev_read = false;
	judge(p, &n, &t, &r);
	assert_false(r.repeated);
	obs_transport_free(&t);
	/* A pod that reaches all its rails after a partial sample is fastrak, never repeated. */
	sample(&t, UID, OBS_TRANSPORT_READ, 8);
	t.pods[0].prev_read = true;
	t.pods[0].prev_rails = 2;
	judge(p, &n, &t, &r);
	assert_int_equal(r.state, TRANSPORT_FASTRAK);
	assert_false(r.repeated);
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

static void test_tcp_and_idle(void **state)
{
	struct attach_node n;
	struct obs_transport t;
	struct transport_result r;
	struct obs_pod_transport *s;
	struct pod *p = worker(7200);
	struct transport_input in = { .pod = p, .gpus = 8, .node = &n, .sample = &t, .limits = { .grace_s = 600 } };

	(void)state;
	pb_node_tcpxo(&n);
	/* Running 2 h, no client, one reading: pending until the traffic is measured, never tcp. */
	sample(&t, UID, OBS_TRANSPORT_READ, 0);
	s = &t.pods[0];
	s->flows = 0;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_PENDING);
	assert_true(r.unmeasured);
	assert_int_equal(r.rails, 0);
	assert_int_equal(r.clients, 0);
	expect_in(r.evidence, "no buffer-op client after 2h00m running (grace 10m), and one reading of its traffic so "
		  "far: tcp or idle is told at the next");
	assert_false(transport_state_fails(r.state));

	/* eth0 received and sent 2 GB/s each over 3 s: tcp, the interface and its rates named. */
	dev(s, 0, "eth0", 7000000000ull, 6500000000ull, 1000000000ull, 500000000ull, 3000);
	dev(s, 1, "eth1", 1000, 1000, 1000, 1000, 3000);
	dev(s, 2, "lo", 1000, 1000, 1000, 1000, 3000);
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_TCP);
	assert_false(r.unmeasured);
	expect_in(r.evidence, "no buffer-op client after 2h00m running (grace 10m), and over 3s bulk traffic both ways "
		  "(at least 100.0 MB/s each): eth0 rx 2.0 GB/s, tx 2.0 GB/s; 1 more interface: NCCL runs over TCP "
		  "sockets, not FasTrak; the daemon listens on 8 NIC addresses; 0 DXS flows");
	expect_not_in(r.evidence, "lo rx");
	assert_true(transport_state_fails(r.state));

	/* A limit above what it moves (--transport-tcp-rate 3GB/s): idle. */
	in.limits.tcp_rate = 3000000000ull;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_IDLE);
	expect_in(r.evidence, "no bulk traffic both ways over 3s (limit 3.0 GB/s each way): eth0 rx 2.0 GB/s");
	in.limits.tcp_rate = 0;         /* the default */

	/* A data load: 2 GB/s received, acknowledgements sent: idle, never tcp. */
	dev(s, 0, "eth0", 7000000000ull, 503000000ull, 1000000000ull, 500000000ull, 3000);
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_IDLE);
	assert_false(transport_state_fails(r.state));
	expect_in(r.evidence, "eth0 rx 2.0 GB/s, tx 1.0 MB/s");
	expect_in(r.evidence, ": no NCCL communicator yet (a data load or compile, a pod waiting for kubectl exec or its "
		  "MPI launcher), or between runs; the daemon listens on 8 NIC addresses");

	/* Counters that do not move: idle. Loopback traffic never counts. */
	dev(s, 0, "eth0", 1000, 2000, 1000, 2000, 3000);
	dev(s, 2, "lo", 90000000000ull, 90000000000ull, 1000, 1000, 3000);
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_IDLE);
	expect_in(r.evidence, "(limit 100.0 MB/s each way): 0 B/s on eth0, eth1: no NCCL communicator yet");

	/* A TCP job spread over the GPU NICs, 60 MB/s each way on each: the sum counts; the busiest three named. */
	s->n_devs = s->n_prev = 0;
	dev(s, 0, "eth0", 1000, 2000, 1000, 2000, 3000);
	for (size_t i = 1; i <= 8; i++) {
		char name[8];

		snprintf(name, sizeof(name), "eth%zu", i);
		dev(s, i, name, 1000 + 180000000ull + i * 3000, 1000 + 180000000ull, 1000, 1000, 3000);
	}
	dev(s, 9, "lo", 90000000000ull, 90000000000ull, 1000, 1000, 3000);
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_TCP);
	expect_in(r.evidence, "eth8 rx 60.0 MB/s, tx 60.0 MB/s; eth7 rx 60.0 MB/s, tx 60.0 MB/s; eth6 rx 60.0 MB/s, "
		  "tx 60.0 MB/s; 6 more interfaces: NCCL runs over TCP");
	s->n_devs = s->n_prev = 2;

	/* A counter that went back (a new interface of the same name) is left out: eth1's 60 MB/s alone is idle. */
	dev(s, 0, "eth0", 7000000000ull, 6500000000ull, 99000000000ull, 500000000ull, 3000);
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_IDLE);
	expect_in(r.evidence, "(limit 100.0 MB/s each way): eth1 rx 60.0 MB/s, tx 60.0 MB/s: no NCCL");
	/* No interface but lo: idle, said. */
	s->n_devs = s->n_prev = 0;
	dev(s, 0, "lo", 7000000000ull, 6500000000ull, 1000, 1000, 3000);
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_IDLE);
	expect_in(r.evidence, "no interface but lo in both readings");
	s->n_devs = s->n_prev = 0;
	dev(s, 0, "eth0", 1000, 2000, 1000, 2000, 60000);

	/* The daemon has sampled it for 12 minutes, never with a client: said. */
	s->since_s = WALL - 720;
	transport_judge(&in, &r);
	expect_in(r.evidence, "or between runs; no client on any sample since 07:48 UTC (12m); the daemon listens");
	s->since_s = WALL;      /* its first sample: nothing to say */
	transport_judge(&in, &r);
	expect_not_in(r.evidence, "no client on any sample");
	s->since_s = 0;

	/* The daemon saw clients before: ended or restarted, with when. */
	s->had_clients = 8;
	s->had_rails = 8;
	s->had_until_s = WALL - 720;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_IDLE);
	expect_in(r.evidence, "no bulk traffic both ways over 60s (limit 100.0 MB/s each way): 0 B/s on eth0; it had "
		  "8 clients on 8 NIC addresses until 07:48 UTC (12m before this sample): its NCCL processes ended or "
		  "restarted; the daemon listens on 8 NIC addresses");
	expect_not_in(r.evidence, "no NCCL communicator yet");
	assert_true(strlen(r.evidence) < sizeof(r.evidence) - 4);    /* not cut */
	/* ... and when it moves bulk both ways now, tcp, the history said. */
	dev(s, 0, "eth0", 130000000000ull, 130000000000ull, 1000, 2000, 60000);
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_TCP);
	expect_in(r.evidence, "; it had 8 clients on 8 NIC addresses until 07:48 UTC");
	dev(s, 0, "eth0", 1000, 2000, 1000, 2000, 60000);
	s->had_clients = 0;

	/* No listener either: said. */
	s->listeners = 0;
	transport_judge(&in, &r);
	expect_in(r.evidence, "; no rxdm_uds_buf_op listener in its network namespace (no TCPXO daemon sidecar)");
	expect_not_in(r.evidence, "custom");

	/* Started 60 s ago: pending, rates or not. */
	pb_find(p, "node")->status.started_at = WALL - 60;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_PENDING);
	assert_false(r.unmeasured);
	expect_in(r.evidence, "the GPU containers have run 60s, less than the grace 10m (NCCL opens them at its first "
		  "communicator)");
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

	/* Grace 0: judged by the traffic at once. */
	in.limits.grace_s = 0;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_IDLE);
	in.limits.grace_s = 600;

	/* No GPU container running (restarting): pending, never tcp. */
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
	struct transport_input in = { .pod = p, .gpus = 8, .node = &n, .sample = &t, .limits = { .grace_s = 600 } };

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

	/* hostNetwork: the host's namespace, the TCPXO prober's sockets in it too: never sampled, never judged. */
	p->host_network = true;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	expect_in(r.evidence, "hostNetwork: the pod shares the host's network namespace with every host-network process");
	assert_false(obs_transport_wants(p, "node-1"));
	p->host_network = false;

	in.verdict = ATTACH_NOT_FABRIC;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	in.verdict = ATTACH_ATTACHED;

	in.pod = pending;
	transport_judge(&in, &r);
	assert_int_equal(r.state, TRANSPORT_NOT_OBSERVED);
	assert_string_equal(r.evidence, "the pod is Pending, not Running");
	assert_false(obs_transport_wants(pending, NULL));
	assert_true(obs_transport_wants(p, "node-1"));
	assert_false(obs_transport_wants(p, "node-2"));
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
	struct transport_limits lim = { .grace_s = 600 };

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
	o.transport.pods[1].sampled_ms = 5000000;
	dev(&o.transport.pods[1], 0, "eth0", 6000000000ull, 6000000000ull, 0, 0, 3000);
	strcpy(o.transport.pods[2].uid, "uid-3");
	o.transport.pods[2].read = OBS_TRANSPORT_NO_PROCESS;

	workloads_of(&w, pods, 3);
	assert_false(workloads_any_transport_failed(&w));        /* not judged yet */
	workloads_transport(&w, &o, &lim);
	assert_true(w.transport_judged);
	assert_int_equal(w.pods[0].transport.state, TRANSPORT_FASTRAK);
	assert_int_equal(w.pods[1].transport.state, TRANSPORT_TCP);
	assert_int_equal(w.pods[2].transport.state, TRANSPORT_UNKNOWN);
	assert_int_equal(w.transport_counts[TRANSPORT_FASTRAK], 1);
	assert_int_equal(w.transport_counts[TRANSPORT_TCP], 1);
	assert_true(workloads_any_transport_failed(&w));
	assert_false(workloads_transport_unmeasured(&w));
	assert_int_equal(w.counts[ATTACH_ATTACHED], 3);        /* the attachment verdicts never change */

	/* Its first reading alone: unmeasured (the one-shot commands read it again), pending, no failure. */
	o.transport.pods[1].has_prev = false;
	workloads_transport(&w, &o, &lim);
	assert_int_equal(w.pods[1].transport.state, TRANSPORT_PENDING);
	assert_true(workloads_transport_unmeasured(&w));
	assert_false(workloads_any_transport_failed(&w));
	o.transport.pods[1].has_prev = true;

	/* A pod on the host network is never observed, alone or not. */
	pods[0]->host_network = true;
	workloads_transport(&w, &o, &lim);
	assert_int_equal(w.pods[0].transport.state, TRANSPORT_NOT_OBSERVED);
	assert_int_equal(w.pods[1].transport.state, TRANSPORT_TCP);
	pods[0]->host_network = false;

	/* Not judged: nothing. */
	w.judged = false;
	w.transport_judged = false;
	workloads_transport(&w, &o, &lim);
	assert_false(w.transport_judged);
	assert_false(workloads_transport_unmeasured(&w));
	w.judged = true;
	workloads_transport(&w, &o, &lim);

	/* The JSON: a transport object on each pod. */
	{
		char *t = render_workloads_json(&w, "node-1");
		const struct json *p;
		struct json *v;
		double d;

		assert_int_equal(json_parse(t, strlen(t), &v), 0);
		p = json_first(json_get(v, "pods"));
		assert_string_equal(json_get_string(p, "uid"), UID);
		assert_string_equal(json_get(p, "transport") ? json_get_string(json_get(p, "transport"), "state") : "",
				    "fastrak");
		assert_true(json_number(json_get(json_get(p, "transport"), "rails"), &d) && d == 8);
		assert_true(json_number(json_get(json_get(p, "transport"), "clients"), &d) && d == 8);
		assert_true(json_number(json_get(json_get(p, "transport"), "flows"), &d) && d == 0);
		expect_in(json_get_string(json_get(p, "transport"), "evidence"), "8 buffer-op clients");
		p = json_next(p);
		assert_string_equal(json_get_string(json_get(p, "transport"), "state"), "tcp");
		json_free(v);
		free(t);
	}
	/* The table: a TRANSPORT column, the evidence under tcp, partial, unknown and idle. */
	{
		char *out = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&out, &len);

		assert_int_equal(render_workloads_human(&w, "node-1", f), 0);
		fclose(f);
		expect_in(out, "\n  POD                           GPUS  VERDICT     TRANSPORT     FINDINGS\n");
		expect_in(out, "\n  ml-team/llama-node-0-0-x2b9f  8     attached    fastrak       -\n");
		expect_in(out, "\n  ml-team/b                     8     attached    tcp           -\n"
			  "      transport         FAIL  no buffer-op client after 2h00m running (grace 10m), and over 3s");
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
	struct transport_result r = { .state = TRANSPORT_TCP, .need = 8 };
	struct pod_event ev;

	(void)state;
	strcpy(r.evidence, "no buffer-op client after 2h00m running (grace 10m), and over 60s bulk traffic both ways");
	assert_true(pod_event_transport(&r, &ev));
	assert_string_equal(ev.type, "Warning");
	assert_string_equal(ev.action, "Check");
	assert_string_equal(ev.reason, "TCPXONotInUse");
	expect_in(ev.note, "Transport tcp: no buffer-op client after 2h00m running (grace 10m), and over 60s bulk traffic "
		  "both ways. Check that NCCL loads");

	/* Partial on one sample: no Event (ranks start at different times); on two in a row: one. */
	r.state = TRANSPORT_PARTIAL;
	r.rails = 2;
	assert_false(pod_event_transport(&r, &ev));
	r.repeated = true;
	assert_true(pod_event_transport(&r, &ev));
	assert_string_equal(ev.reason, "TCPXOPartialRails");
	expect_in(ev.note, "Transport partial (2 of 8 NIC addresses) on two samples in a row: ");

	/* The longest evidence still fits the 1 KiB note. */
	memset(r.evidence, 'x', sizeof(r.evidence) - 1);
	r.evidence[sizeof(r.evidence) - 1] = '\0';
	assert_true(pod_event_transport(&r, &ev));
	assert_true(strlen(ev.note) <= POD_EVENT_NOTE_MAX);

	/* Only tcp and a repeated partial: never idle, pending, unknown or not-observed. */
	for (int s = 0; s < TRANSPORT__COUNT; s++) {
		r.state = (enum transport_state)s;
		assert_int_equal(pod_event_transport(&r, &ev), s == TRANSPORT_TCP || s == TRANSPORT_PARTIAL);
	}
	assert_string_equal(transport_state_name(TRANSPORT_NOT_OBSERVED), "not-observed");
	assert_string_equal(transport_state_name(TRANSPORT_TCP), "tcp");
	assert_string_equal(transport_state_name(TRANSPORT_IDLE), "idle");
	assert_string_equal(transport_state_name((enum transport_state)99), "unknown");
	for (int s = 0; s < TRANSPORT__COUNT; s++)
		assert_string_not_equal(transport_state_name((enum transport_state)s), "none");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rails_needed),
		cmocka_unit_test(test_states_from_sockets),
		cmocka_unit_test(test_tcp_and_idle),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_not_observed),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_workloads_transport),
		cmocka_unit_test(test_pod_event),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
