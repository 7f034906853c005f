/* test_check_daemon.c - daemon-args (check_daemon.c) over observations built in memory. */
#include "tests/unit/checkfx.h"

static void test_daemon_args(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);
	char *ok_argv[] = { "/bin/bash", "/fts/entrypoint_rxdm_container.sh", "--num_hops=2" };
	char *nics_argv[] = { "/fts/fastrak_gpumem_manager", "--num_hops=2", "--num_nics=8" };

	f->procs[0] = (struct obs_process){ .pid = 40, .comm = "bash", .argv = ok_argv, .argc = 3 };
	f->o.host.procs.n = 1;
	expect(f, CHECK_DAEMON_ARGS, CHECK_PASS,
	       "1 TCPXO daemon command line as expected: pid 40 /bin/bash "
	       "/fts/entrypoint_rxdm_container.sh --num_hops=2", NULL);

	f->procs[1] = (struct obs_process){ .pid = 41, .comm = "fastrak_gpumem_", .argv = nics_argv, .argc = 3 };
	f->o.host.procs.n = 2;
	expect(f, CHECK_DAEMON_ARGS, CHECK_WARN,
	       "pid 41 fastrak_gpumem_manager: --num_nics=8: --num_nics was retired in daemon v1.0.20", NULL);
	assert_null(strstr(f->c.message, "pid 40"));
	assert_non_null(strstr(f->c.remedy, "--num_hops=2"));

	f->procs[0] = (struct obs_process){ .pid = 39, .comm = "fastrak_gpumem_", .cmdline_err = -EACCES };
	f->o.host.procs.n = 1;
	expect(f, CHECK_DAEMON_ARGS, CHECK_SKIP,
	       "TCPXO daemon running, pid 39 fastrak_gpumem_manager: arguments unreadable: Permission denied", NULL);

	f->o.host.procs.status.state = PROBE_FAILED;
	snprintf(f->o.host.procs.status.message, OBS_HOST_MSG_MAX, "/proc: No such file or directory");
	expect(f, CHECK_DAEMON_ARGS, CHECK_SKIP, "daemon processes not observable: /proc: No such file", NULL);

	f->o.host.procs.status.state = PROBE_OK;
	f->o.host.procs.n = 0;
	f->p.kind = PROFILE_TCPX;
	/* A TCPX node's daemon is the TCPX daemon, not a TCPXO one. */
	expect(f, CHECK_DAEMON_ARGS, CHECK_SKIP, "no TCPX daemon running", NULL);
	fx_free(f);
}

/* A process says nothing of its release: version-dependent rules say so, and never fail. */
static void test_daemon_args_processes(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);
	char *retired[] = { "/fts/fastrak_gpumem_manager", "--num_hops=2", "--uid=", "--alsologtostderr",
			    "--enforce_kernel_ipv6_support=false" };
	char *tcpx[] = { "/tcpgpudmarxd/build/app/tcpgpudmarxd", "--gpu_nic_preset", "a3vm", "--gpu_shmem_type",
			 "fd", "--uds_path", "/run/tcpx", "--setup_param", "\"--verbose 128 2 0\"" };
	char *tcpx_bad[] = { "/tcpgpudmarxd/build/app/tcpgpudmarxd", "--gpu_shmem_type", "fd" };

	f->procs[0] = (struct obs_process){ .pid = 41, .comm = "fastrak_gpumem_", .argv = retired, .argc = 5 };
	f->o.host.procs.n = 1;
	expect(f, CHECK_DAEMON_ARGS, CHECK_WARN, "pid 41 fastrak_gpumem_manager: --uid=: --uid was retired in "
	       "daemon v1.0.18", NULL);
	assert_non_null(strstr(f->c.message, "--alsologtostderr: --alsologtostderr was retired"));
	assert_non_null(strstr(f->c.message, "(this daemon's version is unknown)"));

	f->p.kind = PROFILE_TCPX;
	f->procs[0] = (struct obs_process){ .pid = 7, .comm = "tcpgpudmarxd", .argv = tcpx, .argc = 9 };
	expect(f, CHECK_DAEMON_ARGS, CHECK_PASS, "1 TCPX daemon command line as expected: pid 7 "
	       "/tcpgpudmarxd/build/app/tcpgpudmarxd --gpu_nic_preset a3vm", NULL);
	f->procs[0] = (struct obs_process){ .pid = 7, .comm = "tcpgpudmarxd", .argv = tcpx_bad, .argc = 3 };
	expect(f, CHECK_DAEMON_ARGS, CHECK_WARN, "pid 7 tcpgpudmarxd: no --gpu_nic_preset", NULL);
	assert_non_null(strstr(f->c.remedy, "--gpu_nic_preset a3vm --gpu_shmem_type fd --uds_path /run/tcpx"));
	assert_null(strstr(f->c.message, "TCPXO"));
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_daemon_args),
		cmocka_unit_test(test_daemon_args_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
