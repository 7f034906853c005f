/* test_observe_transport.c - agent/observe.c observe_transport() and its window: which pods are sampled, none means nothing read; podnet's pid hints and second reading. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/observe.h"
#include "probes/host/podnet.h"
#include "report/checks/workloads.h"
#include "tests/unit/podbuild.h"

#define UID_A "0f0e0d0c-0000-4000-8000-00000000000a"
#define UID_B "0f0e0d0c-0000-4000-8000-00000000000b"

static char root[64];

/*
 * A process that exits between the listing and the read of its files: this binary's openat()
 * (it wins over libc's for the library's calls) renames ROOT/proc/<vanish> away just before the
 * vanish_at-th O_PATH open of that name, as the kernel removes an exited process's directory.
 */
static const char *vanish;
static int vanish_at, vanish_calls;

int openat(int dirfd, const char *path, int flags, ...);
int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;

	if (flags & (O_CREAT | O_TMPFILE)) {
		va_list ap;

		va_start(ap, flags);
		mode = (mode_t)va_arg(ap, int);
		va_end(ap);
	}
	if (vanish && (flags & O_PATH) && strcmp(path, vanish) == 0 && ++vanish_calls == vanish_at) {
		char from[128], to[128];

		snprintf(from, sizeof(from), "%s/proc/%s", root, vanish);
		snprintf(to, sizeof(to), "%s/gone-%s", root, vanish);
		assert_int_equal(rename(from, to), 0);
	}
	return (int)syscall(SYS_openat, dirfd, path, flags, mode);
}

/* The probes as the agent runs them: --root opened by the caller (its -errno when it cannot be), handed in. */
static int sample(const char *dir, const struct podnet_pod *pods, size_t n, struct obs_transport *t,
		  struct podnet_stats *st)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	r = podnet_sample(fd < 0 ? -errno : fd, dir, pods, n, t, st);
	if (fd >= 0)
		close(fd);
	return r;
}

static int again(const char *dir, struct obs_transport *t, const bool *which, struct podnet_stats *st)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	r = podnet_again(fd < 0 ? -errno : fd, dir, t, which, st);
	if (fd >= 0)
		close(fd);
	return r;
}

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* ROOT/proc/<pid> of a process of pod @uid in container @cid with one client on rail 10.0.0.<pid>. */
static void proc_of(int pid, const char *uid, const char *cid)
{
	char rel[128], text[512];

	snprintf(rel, sizeof(rel), "%s/proc/%d/net", root, pid);
	snprintf(text, sizeof(text), "mkdir -p %s", rel);
	assert_int_equal(system(text), 0);
	snprintf(rel, sizeof(rel), "proc/%d/cgroup", pid);
	snprintf(text, sizeof(text), "0::/kubepods/burstable/pod%s/%s\n", uid, cid);
	put(rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/net/unix", pid);
	snprintf(text, sizeof(text), "Num       RefCount Protocol Flags    Type St Inode Path\n"
		 "0000000000000000: 00000002 00000000 00000000 0001 03 11 @rxdm_uds_buf_op:10.0.0.%d\n", pid);
	put(rel, text);
	snprintf(rel, sizeof(rel), "proc/%d/net/udp", pid);
	put(rel, "   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n");
	snprintf(rel, sizeof(rel), "proc/%d/net/dev", pid);
	put(rel, "Inter-|   Receive                            |  Transmit\n"
	    " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	    "  eth0: 1 0 0 0 0 0 0 0 2 0 0 0 0 0 0 0\n");
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/tmp/test_observe_transport.XXXXXX");
	assert_non_null(mkdtemp(root));
	proc_of(5, UID_A, "side");
	proc_of(10, UID_A, "gpu1");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	return system(cmd) == 0 ? 0 : -1;
}

static struct obs_kube facts;           /* the API facts the test's observation lends */

/* An observation of node-1 under @r with @n pods moved in from @pods (into facts). */
static void obs_with(struct observation *o, const char *r, struct pod **pods, size_t n)
{
	memset(o, 0, sizeof(*o));
	snprintf(o->node, sizeof(o->node), "node-1");
	snprintf(o->root, sizeof(o->root), "%s", r);
	facts.pods = calloc(n ? n : 1, sizeof(*facts.pods));
	for (size_t i = 0; i < n; i++) {
		facts.pods[i] = *pods[i];
		free(pods[i]);
	}
	facts.n_pods = n;
	o->kube = &facts;
}

/* The observation and the facts it lends, freed. */
static void obs_done(struct observation *o)
{
	observation_free(o);
	obs_kube_free(&facts);
}

static struct pod *gpu_pod(const char *name, const char *uid, const char *phase, long long gpus)
{
	struct pod *p = pb_pod("ml", name, phase);
	struct pod_container *side = pb_container(p, "tcpxo-daemon", "rxdm", true, true);
	struct pod_container *c = pb_container(p, "main", "pytorch", false, false);

	free(p->uid);
	p->uid = strdup(uid);
	side->status.container_id = strdup("containerd://side");
	c->status.container_id = strdup("containerd://gpu1");
	if (gpus)
		pb_gpus(c, gpus);
	return p;
}

static void test_none_reads_nothing(void **state)
{
	struct observation o;
	struct pod *pods[4];

	/* Pending, no GPUs, another node: none is sampled, and the root (absent) is never touched. */
	pods[0] = gpu_pod("pending", UID_A, "Pending", 8);
	pods[1] = gpu_pod("cpu", UID_A, "Running", 0);
	pods[2] = gpu_pod("elsewhere", UID_A, "Running", 8);
	free(pods[2]->node_name);
	pods[2]->node_name = strdup("node-2");
	pods[3] = gpu_pod("succeeded", UID_B, "Succeeded", 8);
	obs_with(&o, "/nonexistent/root", pods, 4);
	assert_int_equal(observe_transport(&o, NULL), 0);
	assert_false(o.transport.sampled);
	assert_int_equal(o.transport.n, 0);
	assert_int_equal(o.transport.status.state, PROBE_NOT_RUN);
	obs_done(&o);

	obs_with(&o, "/nonexistent/root", pods, 0);
	assert_int_equal(observe_transport(&o, NULL), 0);
	assert_false(o.transport.sampled);
	obs_done(&o);
}

static void test_sampled(void **state)
{
	struct observation o;
	struct pod *pods[2];
	const struct obs_pod_transport *t;

	pods[0] = gpu_pod("b", UID_B, "Running", 8);
	pods[1] = gpu_pod("a", UID_A, "Running", 8);
	obs_with(&o, root, pods, 2);
	assert_int_equal(observe_transport(&o, NULL), 0);
	assert_true(o.transport.sampled);
	assert_int_equal(o.transport.status.state, PROBE_OK);
	assert_true(o.transport.wall_s > 1700000000LL);
	assert_int_equal(o.transport.n, 2);
	/* Sorted by uid; the GPU container's process (10) over the sidecar's (5). */
	t = &o.transport.pods[0];
	assert_string_equal(t->uid, UID_A);
	assert_int_equal(t->read, OBS_TRANSPORT_READ);
	assert_int_equal(t->pid, 10);
	assert_int_equal(t->clients, 1);
	assert_string_equal(t->rails[0], "10.0.0.10");
	assert_true(t->sampled_ms > 0);
	t = obs_transport_find(&o.transport, UID_B);
	assert_non_null(t);
	assert_int_equal(t->read, OBS_TRANSPORT_NO_PROCESS);
	assert_non_null(strstr(t->why, "no process of the pod found under"));

	/* Sampled again: replaced, not appended. */
	assert_int_equal(observe_transport(&o, NULL), 0);
	assert_int_equal(o.transport.n, 2);
	obs_done(&o);

	/* ROOT/proc that cannot be listed: the status says so. */
	pods[0] = gpu_pod("a", UID_A, "Running", 8);
	obs_with(&o, "/nonexistent/root", pods, 1);
	assert_int_equal(observe_transport(&o, NULL), 0);
	assert_true(o.transport.sampled);
	assert_int_equal(o.transport.status.state, PROBE_FAILED);
	assert_string_equal(o.transport.status.message, "/nonexistent/root: No such file or directory");
	obs_done(&o);
}

/* podnet's pid_hint: kept when it is still the pod's GPU process, never when it is another's. */
static void test_hints(void **state)
{
	static const char *const gpu[] = { "gpu1" };
	struct podnet_pod want = { .uid = UID_A, .container_ids = gpu, .n_container_ids = 1, .pid_hint = 10 };
	struct podnet_stats st;
	struct obs_transport t;

	assert_int_equal(sample(root, &want, 1, &t, &st), 0);
	assert_int_equal(st.hints, 1);
	assert_int_equal(st.pids, 0);           /* no listing at all */
	assert_int_equal(st.cgroups, 1);
	assert_int_equal(t.pods[0].pid, 10);
	assert_int_equal(t.pods[0].read, OBS_TRANSPORT_READ);
	obs_transport_free(&t);

	/* The sidecar's process, a pid that is no process: listed again, the GPU process found. */
	for (int hint = 5; hint <= 6; hint++) {
		want.pid_hint = hint;
		assert_int_equal(sample(root, &want, 1, &t, &st), 0);
		assert_int_equal(st.hints, 0);
		assert_true(st.pids >= 1);
		assert_int_equal(t.pods[0].pid, 10);
		obs_transport_free(&t);
	}

	/* A hint naming another pod's process does not settle this one. */
	want.uid = UID_B;
	want.pid_hint = 10;
	assert_int_equal(sample(root, &want, 1, &t, &st), 0);
	assert_int_equal(st.hints, 0);
	assert_int_equal(t.pods[0].read, OBS_TRANSPORT_NO_PROCESS);
	obs_transport_free(&t);
}

/* The GPU process exits after its cgroup was read: the pod's next process (the sidecar's) is read instead. */
static void test_process_exits(void **state)
{
	static const char *const gpu[] = { "gpu1" };
	struct podnet_pod want = { .uid = UID_A, .container_ids = gpu, .n_container_ids = 1 };
	struct podnet_stats st;
	struct obs_transport t;
	char from[128], to[128];

	vanish = "10";
	vanish_at = 2;          /* the listing's open of its directory, then the read's */
	vanish_calls = 0;
	assert_int_equal(sample(root, &want, 1, &t, &st), 0);
	vanish = NULL;
	snprintf(from, sizeof(from), "%s/gone-10", root);
	snprintf(to, sizeof(to), "%s/proc/10", root);
	assert_int_equal(rename(from, to), 0);
	assert_int_equal(vanish_calls, 3);      /* listing, read (gone), the pod's second look */
	assert_string_equal(t.pods[0].uid, UID_A);      /* kept when the exited process was forgotten */
	assert_int_equal(t.pods[0].read, OBS_TRANSPORT_READ);
	assert_int_equal(t.pods[0].pid, 5);
	assert_string_equal(t.pods[0].rails[0], "10.0.0.5");
	assert_string_equal(t.pods[0].why, "");
	obs_transport_free(&t);
}

/* ROOT/proc/<pid>/net/dev with eth0 at @rx and @tx bytes. */
static void dev_of(int pid, unsigned long long rx, unsigned long long tx)
{
	char rel[64], text[512];

	snprintf(rel, sizeof(rel), "proc/%d/net/dev", pid);
	snprintf(text, sizeof(text), "Inter-|   Receive                            |  Transmit\n"
		 " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
		 "  eth0: %llu 0 0 0 0 0 0 0 %llu 0 0 0 0 0 0 0\n", rx, tx);
	put(rel, text);
}

/* podnet_again(): the second reading of net/dev, from the same process while it is still the pod's. */
static void test_again(void **state)
{
	static const char *const gpu[] = { "gpu1" };
	struct podnet_pod want = { .uid = UID_A, .container_ids = gpu, .n_container_ids = 1 };
	struct podnet_stats st;
	struct obs_transport t;
	bool which[1] = { true };
	char text[128];

	assert_int_equal(sample(root, &want, 1, &t, &st), 0);
	assert_int_equal(t.pods[0].pid, 10);
	t.pods[0].sampled_ms = 1000;
	dev_of(10, 5000000000ull, 6000000000ull);
	assert_int_equal(again(root, &t, which, &st), 1);
	assert_int_equal(st.cgroups, 1);        /* the pod's cgroup checked, no listing */
	assert_int_equal(t.pods[0].read, OBS_TRANSPORT_READ);
	assert_true(t.pods[0].has_prev);
	assert_int_equal(t.pods[0].prev_ms, 1000);
	assert_string_equal(t.pods[0].prev[0].name, "eth0");
	assert_true(t.pods[0].prev[0].rx_bytes == 1 && t.pods[0].prev[0].tx_bytes == 2);
	assert_true(t.pods[0].devs[0].rx_bytes == 5000000000ull && t.pods[0].devs[0].tx_bytes == 6000000000ull);
	assert_int_equal(t.pods[0].clients, 1);         /* the rest of the first reading stays */

	/* Not asked: untouched. */
	which[0] = false;
	assert_int_equal(again(root, &t, which, &st), 0);
	assert_int_equal(st.cgroups, 0);
	which[0] = true;

	/* Its pid now another pod's process (reused within the window): never read as this pod's. */
	snprintf(text, sizeof(text), "0::/kubepods/burstable/pod%s/other\n", UID_B);
	put("proc/10/cgroup", text);
	assert_int_equal(again(root, &t, which, &st), 0);
	assert_int_equal(t.pods[0].read, OBS_TRANSPORT_UNREADABLE);
	assert_non_null(strstr(t.pods[0].why, "/proc/10 exited (or left the pod) between two readings of its net/dev"));
	/* Unreadable now: not read again. */
	assert_int_equal(again(root, &t, which, &st), 0);
	obs_transport_free(&t);
	proc_of(10, UID_A, "gpu1");
}

/* observe_transport_window(): only pods judged unmeasured wait and are read again; none, no wait. */
static void test_window(void **state)
{
	struct observation o;
	struct workloads w = { 0 };
	struct pod *pods[1] = { gpu_pod("a", UID_A, "Running", 8) };
	const struct obs_pod_transport *t;
	uint64_t first;

	obs_with(&o, root, pods, 1);
	assert_int_equal(observe_transport(&o, NULL), 0);
	w.judged = w.transport_judged = true;
	w.pods = calloc(1, sizeof(*w.pods));
	w.n = 1;
	w.pods[0].pod = &facts.pods[0];
	first = o.transport.pods[0].sampled_ms;

	/* Nothing unmeasured: nothing waits, nothing is read. */
	assert_int_equal(observe_transport_window(&o, &w, 1), 0);
	assert_false(o.transport.pods[0].has_prev);

	w.pods[0].transport.unmeasured = true;
	dev_of(10, 300, 400);
	assert_int_equal(observe_transport_window(&o, &w, 1), 1);
	t = &o.transport.pods[0];
	assert_true(t->has_prev);
	assert_true(t->prev_ms == first);
	assert_true(t->sampled_ms >= first + 1000);     /* the window's second reading, at least a window later */
	assert_true(t->devs[0].rx_bytes == 300 && t->prev[0].rx_bytes == 1);
	free(w.pods);
	obs_done(&o);
	proc_of(10, UID_A, "gpu1");
}

/* --root is opened once and the same fd handed to every probe; another root replaces it; none is an errno. */
static void test_rootfd_once(void **state)
{
	struct stat a, b;
	int fd;

	(void)state;
	fd = observe_rootfd("/");
	assert_true(fd >= 0);
	assert_int_equal(observe_rootfd("/"), fd);
	assert_int_equal(observe_rootfd(""), fd);       /* "" is "/", as --root's default */
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat("/", &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	fd = observe_rootfd("/tmp");
	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &a), 0);
	assert_int_equal(stat("/tmp", &b), 0);
	assert_true(a.st_dev == b.st_dev && a.st_ino == b.st_ino);
	assert_int_equal(observe_rootfd("/nonexistent-root-of-test"), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none_reads_nothing),
		cmocka_unit_test(test_sampled),
		cmocka_unit_test(test_hints),
		cmocka_unit_test(test_process_exits),
		cmocka_unit_test(test_again),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_rootfd_once),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
