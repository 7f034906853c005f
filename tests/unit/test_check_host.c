/* test_check_host.c - the host wiring checks (check_host.c) over observations built in memory. */
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

#include "tests/unit/checkfx.h"


static void test_healthy_tcpxo(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	expect(f, CHECK_APERTURE_DEVICES, CHECK_PASS,
	       "8 entries match the 8 LLCM functions; each of the 8 GPU NICs has one", NULL);
	assert_null(f->c.remedy);
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(f->nics[i].aperture, llcm[i]);
	expect(f, CHECK_DEVICE_NODES, CHECK_PASS, "11 character devices present", "dmabuf_import_helper", NULL);
	expect(f, CHECK_NVIDIA_HOST_PATH, CHECK_PASS,
	       "/home/kubernetes/bin/nvidia holds bin/nvidia-smi, libcuda.so, libnvidia-ml.so.1", NULL);
	expect(f, CHECK_PLUGIN_FILES, CHECK_PASS, "TCPXO plugin installed (8 files: the whole set of installers "
	       "v1.0.14 to v1.0.17), NCCL 2.28.7", NULL);
	expect(f, CHECK_DAEMON_ARGS, CHECK_SKIP, "no TCPXO daemon running (normal on an idle node)", NULL);
	fx_free(f);
}

static void test_profile_none(void **state)
{
	struct fx *f = fx_new(PROFILE_NONE);
	const enum check_id ids[] = { CHECK_APERTURE_DEVICES, CHECK_DEVICE_NODES, CHECK_NVIDIA_HOST_PATH,
				      CHECK_PLUGIN_FILES, CHECK_DAEMON_ARGS };

	for (size_t i = 0; i < 5; i++)
		expect(f, ids[i], CHECK_SKIP, "no TCPX/TCPXO hardware", NULL);
	fx_free(f);
}

static void test_tcpx(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPX);

	expect(f, CHECK_APERTURE_DEVICES, CHECK_SKIP, "no LLCM devices on TCPX nodes", NULL);
	expect(f, CHECK_DEVICE_NODES, CHECK_PASS, "10 character devices present",
	       "dmabuf_import_helper is not used on TCPX nodes", NULL);
	expect(f, CHECK_NVIDIA_HOST_PATH, CHECK_PASS, NULL);
	/* The TCPX plugin's files (what NCCL loads) are there: plugin-files judges them now. */
	expect(f, CHECK_PLUGIN_FILES, CHECK_PASS, "TCPX plugin files present (2 files; ", NULL);
	fx_free(f);
}

static void test_not_observed(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	memset(&f->o.host, 0, sizeof(f->o.host));
	expect(f, CHECK_APERTURE_DEVICES, CHECK_SKIP, "not observed", NULL);
	expect(f, CHECK_DEVICE_NODES, CHECK_SKIP, "not observed", NULL);
	expect(f, CHECK_NVIDIA_HOST_PATH, CHECK_SKIP, "not observed", NULL);
	expect(f, CHECK_PLUGIN_FILES, CHECK_SKIP, "not observed", NULL);
	expect(f, CHECK_DAEMON_ARGS, CHECK_SKIP, "not observed", NULL);
	fx_free(f);
}

static void test_aperture_missing(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->o.host.aperture.present = false;
	f->o.host.aperture.n = 0;
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL,
	       "/dev/aperture_devices is missing (8 LLCM functions on the bus)", NULL);
	assert_non_null(strstr(f->c.remedy, "nccl-tcpxo-installer"));
	assert_string_equal(f->nics[0].aperture, "");
	f->o.host.aperture.status.state = PROBE_FAILED;
	snprintf(f->o.host.aperture.status.message, OBS_HOST_MSG_MAX, "/dev/aperture_devices: Permission denied");
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL,
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
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL, "9 entries for 8 LLCM functions",
	       "0000:90:10.0 has no live LLCM function behind it (stale bind mount after a PCI reset?)", NULL);
	assert_null(strstr(f->c.message, "claimed"));   /* the stale entry's BAR4 is not matched */
	assert_string_equal(f->nics[7].aperture, llcm[7]);

	/* Replaced instead: the live function has no entry, its NIC none either. */
	f->o.host.aperture.n = 8;
	snprintf(f->ap[0].name, sizeof(f->ap[0].name), "0000:90:10.0");
	memset(f->nics[0].aperture, 0, sizeof(f->nics[0].aperture));
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL, "LLCM function 0000:00:10.0 has no entry",
	       "0000:90:10.0 has no live LLCM function", "eth1 (10.0.16.3/32) has no aperture entry", NULL);
	assert_string_equal(f->nics[0].aperture, "");
	fx_free(f);
}

static void test_aperture_perms_and_bar4(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->ap[2].n_narrow = 5;
	snprintf(f->ap[2].narrow, sizeof(f->ap[2].narrow), "resource0 0644");
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL,
	       "0000:00:12.0: 5 resource files not readable and writable by all (resource0 0644)", NULL);
	assert_string_equal(f->nics[2].aperture, llcm[2]);      /* the row is still annotated */
	f->ap[2].n_narrow = 0;

	f->ap[3].bar4 = OBS_BAR4_EMPTY;
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL, "0000:00:13.0: resource4 is empty",
	       "eth4 (10.0.19.3/32) has no aperture entry", NULL);
	f->ap[3].bar4 = OBS_BAR4_UNREADABLE;
	f->ap[3].bar4_err = -EIO;
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL, "0000:00:13.0: cannot read resource4: Input/output error", NULL);
	f->ap[3].bar4 = OBS_BAR4_OK;

	f->ap[4].vendor = 0x8086;
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL, "0000:80:10.0 shows 8086:0084, not an LLCM function", NULL);
	fx_free(f);
}

static void test_aperture_claims(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->ap[1].bar4_ipv4 = f->ap[0].bar4_ipv4;
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL,
	       "eth1 (10.0.16.3/32) is claimed by more than one entry: 0000:00:10.0 and 0000:00:11.0",
	       "eth2 (10.0.17.3/32) has no aperture entry", NULL);
	assert_string_equal(f->nics[0].aperture, "");
	assert_string_equal(f->nics[1].aperture, "");
	assert_string_equal(f->nics[2].aperture, llcm[2]);
	/* A third entry claiming the same NIC: said once, naming the first two; the NICs they left have none. */
	f->ap[2].bar4_ipv4 = f->ap[0].bar4_ipv4;
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL,
	       "eth1 (10.0.16.3/32) is claimed by more than one entry: 0000:00:10.0 and 0000:00:11.0",
	       "eth2 (10.0.17.3/32) has no aperture entry", "eth3 (10.0.18.3/32) has no aperture entry", NULL);
	assert_null(strstr(f->c.message, "0000:00:12.0"));
	assert_string_equal(f->nics[0].aperture, "");
	f->ap[2].bar4_ipv4 = inet_addr("10.0.18.3");

	f->ap[1].bar4_ipv4 = inet_addr("198.18.1.2");
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL,
	       "0000:00:11.0: BAR4 holds 198.18.1.2, the address of no GPU NIC", NULL);
	fx_free(f);
}

static void test_aperture_unknown_ip(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->nics[5].ipv4[0] = '\0';
	f->nics[6].ipv4[0] = '\0';
	f->nics[6].name[0] = '\0';
	expect(f, CHECK_APERTURE_DEVICES, CHECK_WARN, "BAR4 cannot be matched to 2 NICs whose IPv4 is unknown (in a pod, no API facts): eth6, 0000:8c:00.0", NULL);
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
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL, "13 entries for 8 LLCM functions",
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
	expect(f, CHECK_APERTURE_DEVICES, CHECK_FAIL, "; and 8 more", NULL);
	fx_free(f);
}

static void test_device_nodes(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->dn[10].type = OBS_FILE_ABSENT;
	expect(f, CHECK_DEVICE_NODES, CHECK_FAIL, "/dev/dmabuf_import_helper is missing", NULL);
	assert_non_null(strstr(f->c.remedy, "import-helper"));
	assert_null(strstr(f->c.remedy, "nvidia-uvm"));
	f->dn[10].type = OBS_FILE_CHAR;

	f->dn[9].type = OBS_FILE_ABSENT;
	expect(f, CHECK_DEVICE_NODES, CHECK_FAIL, "/dev/nvidia-uvm is missing", NULL);
	assert_non_null(strstr(f->c.remedy, "nvidia-uvm"));
	assert_null(strstr(f->c.remedy, "import-helper"));

	f->dn[3].type = OBS_FILE_REGULAR;
	f->dn[4].type = OBS_FILE_SYMLINK;
	f->dn[5].type = OBS_FILE_ERROR;
	f->dn[5].err = -EACCES;
	expect(f, CHECK_DEVICE_NODES, CHECK_FAIL, "/dev/nvidia3 is a regular file, not a character device",
	       "/dev/nvidia4 is a symbolic link, not a character device",
	       "cannot stat /dev/nvidia5: Permission denied", NULL);
	assert_non_null(strstr(f->c.remedy, "NVIDIA driver installer"));
	fx_free(f);

	f = fx_new(PROFILE_TCPXO);
	f->o.host.devnodes.status.state = PROBE_FAILED;
	expect(f, CHECK_DEVICE_NODES, CHECK_FAIL, "cannot read /dev", NULL);
	fx_free(f);
}

static void test_nvidia_host_path(void **state)
{
	struct fx *f = fx_new(PROFILE_TCPXO);

	f->o.host.nvpath.dir = OBS_FILE_ABSENT;
	expect(f, CHECK_NVIDIA_HOST_PATH, CHECK_FAIL, "/home/kubernetes/bin/nvidia is missing", NULL);
	expect(f, CHECK_PLUGIN_FILES, CHECK_FAIL, "/home/kubernetes/bin/nvidia is missing", NULL);
	f->o.host.nvpath.dir = OBS_FILE_DIR;

	f->o.host.nvpath.smi = OBS_FILE_ABSENT;
	f->files[2].type = OBS_FILE_BROKEN;     /* libcuda.so */
	f->files[3].type = OBS_FILE_BROKEN;     /* libcuda.so.1 */
	f->files[8].name = "libnvidia-ml.so.x";
	f->files[8].type = OBS_FILE_DIR;
	expect(f, CHECK_NVIDIA_HOST_PATH, CHECK_FAIL, "bin/nvidia-smi is missing",
	       "lib64/libcuda.so is a dangling or looping link", "lib64/libnvidia-ml.so.x is a directory", NULL);
	expect(f, CHECK_PLUGIN_FILES, CHECK_PASS, NULL);
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
