/* test_check_host.c - host wiring checks and daemon-args over observations built in memory. */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/checks/checks.h"


struct fx {
	struct observation o;
	struct profile p;
	struct obs_pci_func pci[32];
	struct obs_aperture_entry ap[16];
	struct obs_devnode dn[16];
	struct obs_host_file files[16];
	struct profile_nic nics[8];
	struct obs_process procs[4];
	struct check c;
};

static const char *const llcm[8] = {
	"0000:00:10.0", "0000:00:11.0", "0000:00:12.0", "0000:00:13.0",
	"0000:80:10.0", "0000:80:11.0", "0000:80:12.0", "0000:80:13.0",
};

static const char *const lib64[] = {
	"a3plus_guest_config.textproto", "a3plus_tuner_config.textproto", "libcuda.so", "libcuda.so.1",
	"libnccl-net.so", "libnccl-net_internal.so", "libnccl-tuner.so", "libnccl.so.2.28.7",
	"libnvidia-ml.so.1", "nccl-env-profile.sh", "libnccl.so.2",
};

/* A healthy A3 Mega (or, with PROFILE_TCPX, an A3 High: 4 NICs, no LLCM, no dmabuf). */
static struct fx *fx_new(enum profile_kind kind)
{
	struct fx *f = calloc(1, sizeof(*f));
	size_t n_nics = kind == PROFILE_TCPX ? 4 : 8, np = 0;

	assert_non_null(f);
	f->p.kind = kind;
	f->p.n_gpus = 8;
	for (size_t i = 0; i < 8; i++) {
		snprintf(f->pci[np].bdf, OBS_BDF_MAX, "0000:%02zx:00.0", i < 4 ? 4 + i : 0x84 + i);
		f->pci[np++].kind = PCI_KIND_GPU;
	}
	for (size_t i = 0; i < n_nics; i++) {
		struct profile_nic *n = &f->nics[i];

		snprintf(n->name, sizeof(n->name), "eth%zu", i + 1);
		snprintf(n->bdf, sizeof(n->bdf), "0000:%02zx:00.0", i < 4 ? 6 + i : 0x86 + i);
		snprintf(n->ipv4, sizeof(n->ipv4), "10.0.%zu.3/32", 16 + i);
		n->state = NIC_STATE_UP;
	}
	f->p.nics = f->nics;
	f->p.n_nics = n_nics;
	if (kind == PROFILE_TCPXO) {
		for (size_t i = 0; i < 8; i++) {
			struct obs_aperture_entry *e = &f->ap[i];
			char ip[32];

			snprintf(f->pci[np].bdf, OBS_BDF_MAX, "%s", llcm[i]);
			f->pci[np++].kind = PCI_KIND_LLCM;
			snprintf(e->name, sizeof(e->name), "%s", llcm[i]);
			e->type = OBS_FILE_DIR;
			e->ids_known = true;
			e->vendor = 0x1ae0;
			e->device = 0x0084;
			e->n_resources = 5;
			e->bar4 = OBS_BAR4_OK;
			e->bar4_mapped = true;
			snprintf(ip, sizeof(ip), "10.0.%zu.3", 16 + i);
			e->bar4_ipv4 = inet_addr(ip);
		}
		f->o.host.aperture.present = true;
		f->o.host.aperture.n = 8;
	}
	f->o.pci.v = f->pci;
	f->o.pci.n = np;
	f->o.pci.status.state = PROBE_OK;
	f->o.host.aperture.v = f->ap;
	f->o.host.aperture.status.state = PROBE_OK;

	for (size_t i = 0; i < 8; i++)
		snprintf(f->dn[i].name, sizeof(f->dn[i].name), "nvidia%zu", i);
	snprintf(f->dn[8].name, sizeof(f->dn[8].name), "nvidiactl");
	snprintf(f->dn[9].name, sizeof(f->dn[9].name), "nvidia-uvm");
	snprintf(f->dn[10].name, sizeof(f->dn[10].name), "dmabuf_import_helper");
	for (size_t i = 0; i < 11; i++)
		f->dn[i].type = OBS_FILE_CHAR;
	if (kind == PROFILE_TCPX)
		f->dn[10].type = OBS_FILE_ABSENT;
	f->o.host.devnodes.v = f->dn;
	f->o.host.devnodes.n = 11;
	f->o.host.devnodes.n_gpus = 8;
	f->o.host.devnodes.status.state = PROBE_OK;

	for (size_t i = 0; i < sizeof(lib64) / sizeof(lib64[0]); i++) {
		f->files[i].name = (char *)lib64[i];
		f->files[i].type = OBS_FILE_REGULAR;
	}
	f->o.host.nvpath.dir = OBS_FILE_DIR;
	f->o.host.nvpath.smi = OBS_FILE_REGULAR;
	f->o.host.nvpath.lib64_dir = OBS_FILE_DIR;
	f->o.host.nvpath.lib64 = f->files;
	f->o.host.nvpath.n_lib64 = sizeof(lib64) / sizeof(lib64[0]);
	f->o.host.nvpath.status.state = PROBE_OK;

	f->o.host.procs.v = f->procs;
	f->o.host.procs.status.state = PROBE_OK;
	return f;
}

static void fx_free(struct fx *f)
{
	free(f->c.message);
	free(f->c.remedy);
	free(f);
}

static const char *check_status_name_test(enum check_status s)
{
	static const char *const names[] = { "skip", "pass", "warn", "fail" };

	return (unsigned)s < 4 ? names[s] : "?";
}

/* Run @fn, expect @st, and (when not NULL) the message to contain each of the NULL-ended strings. */
static void expect(struct fx *f, check_fn fn, enum check_status st, ...)
{
	va_list ap;
	const char *s;

	assert_int_equal(fn(&f->o, &f->p, &f->c), 0);
	if (f->c.status != st)
		fail_msg("status %s, want %s: %s", check_status_name_test(f->c.status),
			 check_status_name_test(st), f->c.message);
	va_start(ap, st);
	while ((s = va_arg(ap, const char *)))
		if (!strstr(f->c.message, s))
			fail_msg("message lacks \"%s\": %s", s, f->c.message);
	va_end(ap);
}

static void test_healthy_tcpxo(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	expect(f, check_aperture_devices, CHECK_PASS,
	       "8 entries match the 8 LLCM functions; each of the 8 GPU NICs has one", NULL);
	assert_null(f->c.remedy);
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(f->nics[i].aperture, llcm[i]);
	expect(f, check_device_nodes, CHECK_PASS, "11 character devices present", "dmabuf_import_helper", NULL);
	expect(f, check_nvidia_host_path, CHECK_PASS,
	       "/home/kubernetes/bin/nvidia holds bin/nvidia-smi, libcuda.so, libnvidia-ml.so.1", NULL);
	expect(f, check_plugin_files, CHECK_PASS, "TCPXO plugin installed (8 files: the whole set of installers "
	       "v1.0.14 to v1.0.17), NCCL 2.28.7", NULL);
	expect(f, check_daemon_args, CHECK_SKIP, "no TCPXO daemon running (normal on an idle node)", NULL);
	fx_free(f);
}

static void test_profile_none(void **state)
{
	struct fx *f = fx_new(PROFILE_NONE);
	const check_fn fns[] = { check_aperture_devices, check_device_nodes, check_nvidia_host_path,
				 check_plugin_files, check_daemon_args };

	for (size_t i = 0; i < 5; i++)
		expect(f, fns[i], CHECK_SKIP, "no TCPX/TCPXO hardware", NULL);
	fx_free(f);
}

static void test_tcpx(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPX);

	expect(f, check_aperture_devices, CHECK_SKIP, "no LLCM devices on TCPX nodes", NULL);
	expect(f, check_device_nodes, CHECK_PASS, "10 character devices present",
	       "dmabuf_import_helper is not used on TCPX nodes", NULL);
	expect(f, check_nvidia_host_path, CHECK_PASS, NULL);
	/* The TCPX plugin's files (what NCCL loads) are there: plugin-files judges them now. */
	expect(f, check_plugin_files, CHECK_PASS, "TCPX plugin files present (2 files; ", NULL);
	fx_free(f);
}

static void test_not_observed(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	memset(&f->o.host, 0, sizeof(f->o.host));
	expect(f, check_aperture_devices, CHECK_SKIP, "not observed", NULL);
	expect(f, check_device_nodes, CHECK_SKIP, "not observed", NULL);
	expect(f, check_nvidia_host_path, CHECK_SKIP, "not observed", NULL);
	expect(f, check_plugin_files, CHECK_SKIP, "not observed", NULL);
	expect(f, check_daemon_args, CHECK_SKIP, "not observed", NULL);
	fx_free(f);
}

static void test_aperture_missing(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->o.host.aperture.present = false;
	f->o.host.aperture.n = 0;
	expect(f, check_aperture_devices, CHECK_FAIL,
	       "/dev/aperture_devices is missing (8 LLCM functions on the bus)", NULL);
	assert_non_null(strstr(f->c.remedy, "nccl-tcpxo-installer"));
	assert_string_equal(f->nics[0].aperture, "");
	f->o.host.aperture.status.state = PROBE_FAILED;
	snprintf(f->o.host.aperture.status.message, OBS_HOST_MSG_MAX, "/dev/aperture_devices: Permission denied");
	expect(f, check_aperture_devices, CHECK_FAIL,
	       "cannot read /dev/aperture_devices: Permission denied", NULL);      /* the path once */
	fx_free(f);
}

static void test_aperture_stale(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	/* An extra entry for a function no longer on the bus. */
	f->ap[8] = f->ap[7];
	snprintf(f->ap[8].name, sizeof(f->ap[8].name), "0000:90:10.0");
	f->o.host.aperture.n = 9;
	expect(f, check_aperture_devices, CHECK_FAIL, "9 entries for 8 LLCM functions",
	       "0000:90:10.0 has no live LLCM function behind it (stale bind mount after a PCI reset?)", NULL);
	assert_null(strstr(f->c.message, "claimed"));   /* the stale entry's BAR4 is not matched */
	assert_string_equal(f->nics[7].aperture, llcm[7]);

	/* Replaced instead: the live function has no entry, its NIC none either. */
	f->o.host.aperture.n = 8;
	snprintf(f->ap[0].name, sizeof(f->ap[0].name), "0000:90:10.0");
	memset(f->nics[0].aperture, 0, sizeof(f->nics[0].aperture));
	expect(f, check_aperture_devices, CHECK_FAIL, "LLCM function 0000:00:10.0 has no entry",
	       "0000:90:10.0 has no live LLCM function", "eth1 (10.0.16.3/32) has no aperture entry", NULL);
	assert_string_equal(f->nics[0].aperture, "");
	fx_free(f);
}

static void test_aperture_perms_and_bar4(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->ap[2].n_narrow = 5;
	snprintf(f->ap[2].narrow, sizeof(f->ap[2].narrow), "resource0 0644");
	expect(f, check_aperture_devices, CHECK_FAIL,
	       "0000:00:12.0: 5 resource files not readable and writable by all (resource0 0644)", NULL);
	assert_string_equal(f->nics[2].aperture, llcm[2]);      /* the row is still annotated */
	f->ap[2].n_narrow = 0;

	f->ap[3].bar4 = OBS_BAR4_EMPTY;
	expect(f, check_aperture_devices, CHECK_FAIL, "0000:00:13.0: resource4 is empty",
	       "eth4 (10.0.19.3/32) has no aperture entry", NULL);
	f->ap[3].bar4 = OBS_BAR4_UNREADABLE;
	f->ap[3].bar4_err = -EIO;
	expect(f, check_aperture_devices, CHECK_FAIL, "0000:00:13.0: cannot read resource4: Input/output error", NULL);
	f->ap[3].bar4 = OBS_BAR4_OK;

	f->ap[4].vendor = 0x8086;
	expect(f, check_aperture_devices, CHECK_FAIL, "0000:80:10.0 shows 8086:0084, not an LLCM function", NULL);
	fx_free(f);
}

static void test_aperture_claims(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->ap[1].bar4_ipv4 = f->ap[0].bar4_ipv4;
	expect(f, check_aperture_devices, CHECK_FAIL,
	       "eth1 (10.0.16.3/32) is claimed by more than one entry: 0000:00:10.0 and 0000:00:11.0",
	       "eth2 (10.0.17.3/32) has no aperture entry", NULL);
	assert_string_equal(f->nics[0].aperture, "");
	assert_string_equal(f->nics[1].aperture, "");
	assert_string_equal(f->nics[2].aperture, llcm[2]);

	f->ap[1].bar4_ipv4 = inet_addr("198.18.1.2");
	expect(f, check_aperture_devices, CHECK_FAIL,
	       "0000:00:11.0: BAR4 holds 198.18.1.2, the address of no GPU NIC", NULL);
	fx_free(f);
}

static void test_aperture_unknown_ip(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->nics[5].ipv4[0] = '\0';
	f->nics[6].ipv4[0] = '\0';
	f->nics[6].name[0] = '\0';
	expect(f, check_aperture_devices, CHECK_WARN, "cannot match BAR4 to eth6; 0000:8c:00.0: IPv4 unknown", NULL);
	assert_non_null(f->c.remedy);
	assert_string_equal(f->nics[0].aperture, llcm[0]);
	assert_string_equal(f->nics[5].aperture, "");
	fx_free(f);
}

static void test_aperture_hostile_names(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->ap[8].type = OBS_FILE_BROKEN;
	f->ap[8].err = -ELOOP;
	snprintf(f->ap[8].name, sizeof(f->ap[8].name), "loop\nx");
	f->ap[9].type = OBS_FILE_DIR;
	snprintf(f->ap[9].name, sizeof(f->ap[9].name), "a b");
	f->ap[9].bar4 = OBS_BAR4_MISSING;
	f->o.host.aperture.n = 10;
	f->o.host.aperture.n_dropped = 3;
	expect(f, check_aperture_devices, CHECK_FAIL, "13 entries for 8 LLCM functions",
	       "3 more entries not examined",
	       "/dev/aperture_devices/\"loop\\nx\" is a dangling or looping link (Too many levels of symbolic links)",
	       "\"a b\" has no live LLCM function", NULL);
	assert_null(strchr(f->c.message, '\n'));
	fx_free(f);
}

static void test_aperture_many_findings(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	for (size_t i = 0; i < 8; i++)
		f->ap[i].bar4 = OBS_BAR4_EMPTY;
	expect(f, check_aperture_devices, CHECK_FAIL, "; and 8 more", NULL);
	fx_free(f);
}

static void test_device_nodes(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->dn[10].type = OBS_FILE_ABSENT;
	expect(f, check_device_nodes, CHECK_FAIL, "/dev/dmabuf_import_helper is missing", NULL);
	assert_non_null(strstr(f->c.remedy, "import-helper"));
	assert_null(strstr(f->c.remedy, "nvidia-uvm"));
	f->dn[10].type = OBS_FILE_CHAR;

	f->dn[9].type = OBS_FILE_ABSENT;
	expect(f, check_device_nodes, CHECK_FAIL, "/dev/nvidia-uvm is missing", NULL);
	assert_non_null(strstr(f->c.remedy, "nvidia-uvm"));
	assert_null(strstr(f->c.remedy, "import-helper"));

	f->dn[3].type = OBS_FILE_REGULAR;
	f->dn[4].type = OBS_FILE_SYMLINK;
	f->dn[5].type = OBS_FILE_ERROR;
	f->dn[5].err = -EACCES;
	expect(f, check_device_nodes, CHECK_FAIL, "/dev/nvidia3 is a regular file, not a character device",
	       "/dev/nvidia4 is a symbolic link, not a character device",
	       "cannot stat /dev/nvidia5: Permission denied", NULL);
	assert_non_null(strstr(f->c.remedy, "NVIDIA driver installer"));
	fx_free(f);

	f = fx_new(PROFILE_TCPXO);
	f->o.host.devnodes.status.state = PROBE_FAILED;
	expect(f, check_device_nodes, CHECK_FAIL, "cannot read /dev", NULL);
	fx_free(f);
}

static void test_nvidia_host_path(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->o.host.nvpath.dir = OBS_FILE_ABSENT;
	expect(f, check_nvidia_host_path, CHECK_FAIL, "/home/kubernetes/bin/nvidia is missing", NULL);
	expect(f, check_plugin_files, CHECK_FAIL, "/home/kubernetes/bin/nvidia is missing", NULL);
	f->o.host.nvpath.dir = OBS_FILE_DIR;

	f->o.host.nvpath.smi = OBS_FILE_ABSENT;
	f->files[2].type = OBS_FILE_BROKEN;     /* libcuda.so */
	f->files[3].type = OBS_FILE_BROKEN;     /* libcuda.so.1 */
	f->files[8].name = "libnvidia-ml.so.x";
	f->files[8].type = OBS_FILE_DIR;
	expect(f, check_nvidia_host_path, CHECK_FAIL, "bin/nvidia-smi is missing",
	       "lib64/libcuda.so is a dangling or looping link", "lib64/libnvidia-ml.so.x is a directory", NULL);
	expect(f, check_plugin_files, CHECK_PASS, NULL);
	fx_free(f);
}

static void test_daemon_args(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);
	char *ok_argv[] = { "/bin/bash", "/fts/entrypoint_rxdm_container.sh", "--num_hops=2" };
	char *nics_argv[] = { "/fts/fastrak_gpumem_manager", "--num_hops=2", "--num_nics=8" };

	f->procs[0] = (struct obs_process){ .pid = 40, .comm = "bash", .argv = ok_argv, .argc = 3 };
	f->o.host.procs.n = 1;
	expect(f, check_daemon_args, CHECK_PASS,
	       "1 TCPXO daemon command line as expected: pid 40 /bin/bash "
	       "/fts/entrypoint_rxdm_container.sh --num_hops=2", NULL);

	f->procs[1] = (struct obs_process){ .pid = 41, .comm = "fastrak_gpumem_", .argv = nics_argv, .argc = 3 };
	f->o.host.procs.n = 2;
	expect(f, check_daemon_args, CHECK_WARN,
	       "pid 41 fastrak_gpumem_manager: --num_nics=8: --num_nics was retired in daemon v1.0.20", NULL);
	assert_null(strstr(f->c.message, "pid 40"));
	assert_non_null(strstr(f->c.remedy, "--num_hops=2"));

	f->procs[0] = (struct obs_process){ .pid = 39, .comm = "fastrak_gpumem_", .cmdline_err = -EACCES };
	f->o.host.procs.n = 1;
	expect(f, check_daemon_args, CHECK_SKIP,
	       "TCPXO daemon running, pid 39 fastrak_gpumem_manager: arguments unreadable: Permission denied", NULL);

	f->o.host.procs.status.state = PROBE_FAILED;
	snprintf(f->o.host.procs.status.message, OBS_HOST_MSG_MAX, "/proc: No such file or directory");
	expect(f, check_daemon_args, CHECK_SKIP, "daemon processes not observable: /proc: No such file", NULL);

	f->o.host.procs.status.state = PROBE_OK;
	f->o.host.procs.n = 0;
	f->p.kind = PROFILE_TCPX;
	/* A TCPX node's daemon is the TCPX daemon, not a TCPXO one. */
	expect(f, check_daemon_args, CHECK_SKIP, "no TCPX daemon running", NULL);
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
	expect(f, check_daemon_args, CHECK_WARN, "pid 41 fastrak_gpumem_manager: --uid=: --uid was retired in "
	       "daemon v1.0.18", NULL);
	assert_non_null(strstr(f->c.message, "--alsologtostderr: --alsologtostderr was retired"));
	assert_non_null(strstr(f->c.message, "(this daemon's version is unknown)"));

	f->p.kind = PROFILE_TCPX;
	f->procs[0] = (struct obs_process){ .pid = 7, .comm = "tcpgpudmarxd", .argv = tcpx, .argc = 9 };
	expect(f, check_daemon_args, CHECK_PASS, "1 TCPX daemon command line as expected: pid 7 "
	       "/tcpgpudmarxd/build/app/tcpgpudmarxd --gpu_nic_preset a3vm", NULL);
	f->procs[0] = (struct obs_process){ .pid = 7, .comm = "tcpgpudmarxd", .argv = tcpx_bad, .argc = 3 };
	expect(f, check_daemon_args, CHECK_WARN, "pid 7 tcpgpudmarxd: no --gpu_nic_preset", NULL);
	assert_non_null(strstr(f->c.remedy, "--gpu_nic_preset a3vm --gpu_shmem_type fd --uds_path /run/tcpx"));
	assert_null(strstr(f->c.message, "TCPXO"));
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_healthy_tcpxo),
		cmocka_unit_test(test_profile_none),
		cmocka_unit_test(test_tcpx),
		cmocka_unit_test(test_not_observed),
		cmocka_unit_test(test_aperture_missing),
		cmocka_unit_test(test_aperture_stale),
		cmocka_unit_test(test_aperture_perms_and_bar4),
		cmocka_unit_test(test_aperture_claims),
		cmocka_unit_test(test_aperture_unknown_ip),
		cmocka_unit_test(test_aperture_hostile_names),
		cmocka_unit_test(test_aperture_many_findings),
		cmocka_unit_test(test_device_nodes),
		cmocka_unit_test(test_nvidia_host_path),
		cmocka_unit_test(test_daemon_args),
		cmocka_unit_test(test_daemon_args_processes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
