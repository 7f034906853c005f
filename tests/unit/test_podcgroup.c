/* test_podcgroup.c - probes/host/podcgroup.c: a process's pod and container from its cgroup file. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "probes/host/podcgroup.h"

#define UID "1b2c3d4e-0000-1111-2222-333344445555"
#define UID_ "1b2c3d4e_0000_1111_2222_333344445555"
#define CID "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void expect_pod(const char *text, const char *uid, const char *cid)
{
	struct podcgroup pc;
	char err[256] = "";
	int r = podcgroup_parse(text, strlen(text), &pc, err, sizeof(err));

	if (r != 1)
		fail_msg("not a pod (%d, %s): %s", r, err, text);
	assert_string_equal(pc.uid, uid);
	assert_string_equal(pc.container_id, cid);
}

static void expect_not_pod(const char *text)
{
	struct podcgroup pc;
	char err[256] = "";
	int r = podcgroup_parse(text, strlen(text), &pc, err, sizeof(err));

	if (r != 0)
		fail_msg("read as a pod (%d, %s): %s", r, err, text);
}

static void test_systemd(void **state)
{
	/* cgroup v2, each QoS class, each runtime's scope. */
	expect_pod("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" UID_ ".slice/cri-containerd-" CID ".scope\n",
		   UID, CID);
	expect_pod("0::/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/docker-" CID ".scope\n",
		   UID, CID);
	expect_pod("0::/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" CID ".scope\n", UID, CID);
	/* A nested cgroup inside the container's (systemd in a container). */
	expect_pod("0::/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" CID ".scope/init.scope\n", UID, CID);
	/* In the pod's slice but no container's. */
	expect_pod("0::/kubepods.slice/kubepods-pod" UID_ ".slice\n", UID, "");
	/* Seen from inside a cgroup namespace. */
	expect_pod("0::/../../kubepods-besteffort.slice/kubepods-besteffort-pod" UID_ ".slice/cri-containerd-" CID ".scope\n",
		   UID, CID);
	/* CRI-O's conmon: in the pod's slice, in the host's network namespace. */
	expect_not_pod("0::/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" CID ".scope\n");
	/* cgroup v1 with a pod line and a conmon line (conmon's memory cgroup is the pod's, its systemd one its
	 * own): still conmon, in either order, never the pod's process. */
	expect_not_pod("11:memory:/kubepods.slice/kubepods-pod" UID_ ".slice\n"
		       "1:name=systemd:/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" CID ".scope\n");
	expect_not_pod("1:name=systemd:/kubepods.slice/kubepods-pod" UID_ ".slice/crio-conmon-" CID ".scope\n"
		       "11:memory:/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" CID ".scope\n");
	/* An unknown scope: the pod, no container. */
	expect_pod("0::/kubepods.slice/kubepods-pod" UID_ ".slice/other-" CID ".scope\n", UID, "");
}

static void test_cgroupfs(void **state)
{
	expect_pod("0::/kubepods/burstable/pod" UID "/" CID "\n", UID, CID);
	expect_pod("0::/kubepods/besteffort/pod" UID "/" CID "\n", UID, CID);
	expect_pod("0::/kubepods/pod" UID "/" CID "\n", UID, CID);
	expect_pod("0::/../pod" UID "/" CID "\n", UID, CID);
	expect_pod("0::/kubepods/pod" UID "\n", UID, "");
	/* "pod<hex>" outside kubepods is not a pod. */
	expect_not_pod("0::/user.slice/pod" UID "/" CID "\n");
	/* cgroup v1: any hierarchy with a pod path. */
	expect_pod("12:hugetlb:/kubepods/burstable/pod" UID "/" CID "\n"
		   "11:memory:/kubepods/burstable/pod" UID "/" CID "\n"
		   "8:rdma:/\n"
		   "1:name=systemd:/kubepods/burstable/pod" UID "/" CID "\n"
		   "0::/\n", UID, CID);
	expect_pod("8:rdma:/\n1:name=systemd:/kubepods.slice/kubepods-pod" UID_ ".slice/cri-containerd-" CID ".scope\n",
		   UID, CID);
}

static void test_not_pod(void **state)
{
	expect_not_pod("0::/system.slice/containerd.service\n");
	expect_not_pod("0::/\n");
	expect_not_pod("");
	expect_not_pod("0::/init.scope");       /* no final '\n': read all the same */
	/* A uid that is not hex, a container id that is not one (kept as no container). */
	expect_not_pod("0::/kubepods/podxyz/" CID "\n");
	expect_not_pod("0::/kubepods.slice/kubepods-pod.slice\n");
	expect_pod("0::/kubepods/pod" UID "/a.b\n", UID, "");
}

static void expect_error(const char *text, size_t len, const char *msg)
{
	struct podcgroup pc;
	char err[256] = "";

	if (podcgroup_parse(text, len, &pc, err, sizeof(err)) != -EBADMSG)
		fail_msg("accepted: %.80s", text);
	assert_string_equal(err, msg);
}

static void test_errors(void **state)
{
	static char big[PODCGROUP_LINE_MAX + 64];
	size_t o;

	expect_error("garbage\n", 8, "line 1: not \"N:controllers:/path\"");
	expect_error("0:/kubepods\n", 12, "line 1: not \"N:controllers:/path\"");
	expect_error("0::kubepods\n", 12, "line 1: not \"N:controllers:/path\"");
	expect_error("0::/a\0b\n", 7, "line 1: not \"N:controllers:/path\"");
	expect_error("1:pids:/kubepods/pod" UID "/" CID "\nx:memory:/\n", strlen("1:pids:/kubepods/pod" UID "/" CID "\nx:memory:/\n"),
		     "line 2: not \"N:controllers:/path\"");
	{
		const char *two = "1:pids:/kubepods/pod" UID "/a\n2:memory:/kubepods/pod1b2c3d4e-0000-1111-2222-333344445556/a\n";

		expect_error(two, strlen(two), "line 2: pod 1b2c3d4e-0000-1111-2222-333344445556, line before: pod " UID);
	}
	o = (size_t)snprintf(big, sizeof(big), "0::/");
	memset(big + o, 'a', PODCGROUP_LINE_MAX);
	expect_error(big, o + PODCGROUP_LINE_MAX, "line 1: longer than 4096 bytes");
	o = 0;
	for (int i = 0; i <= PODCGROUP_LINES_MAX; i++)
		o += (size_t)snprintf(big + o, sizeof(big) - o, "%d:x:/\n", i);
	expect_error(big, o, "more than 64 lines");
}

static void test_container_id(void **state)
{
	assert_string_equal(podcgroup_container_id("containerd://" CID), CID);
	assert_string_equal(podcgroup_container_id("cri-o://abc"), "abc");
	assert_string_equal(podcgroup_container_id("abc"), "abc");
	assert_null(podcgroup_container_id("containerd://"));
	assert_null(podcgroup_container_id(""));
	assert_null(podcgroup_container_id(NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_systemd),
		cmocka_unit_test(test_cgroupfs),
		cmocka_unit_test(test_not_pod),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_container_id),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
