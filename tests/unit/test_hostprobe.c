/* test_hostprobe.c - the host probes on trees built in a temporary folder, hostile ones included. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/host/aperture.h"
#include "probes/host/hostfs.h"
#include "probes/host/hostprobe.h"

static char root[256];

/* The probe as the agent runs it: --root opened by the caller (its -errno when it cannot be), handed in. */
static int observe_host(const char *dir, const struct obs_pci *pci, struct obs_host *h)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	r = hostprobe_observe(fd < 0 ? -errno : fd, dir, pci, h);
	if (fd >= 0)
		close(fd);
	return r;
}

static const char *path(const char *fmt, va_list ap)
{
	static char p[1024];
	int n = snprintf(p, sizeof(p), "%s/", root);

	vsnprintf(p + n, sizeof(p) - (size_t)n, fmt, ap);
	return p;
}

/* mkdir -p <root>/<fmt...> */
static void mk(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void mk(const char *fmt, ...)
{
	va_list ap;
	char p[1024];

	va_start(ap, fmt);
	snprintf(p, sizeof(p), "%s", path(fmt, ap));
	va_end(ap);
	for (char *s = p + strlen(root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

/* Write @len bytes to <root>/<fmt...> with @mode (parents made). */
static void wr(const void *data, size_t len, mode_t mode, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void wr(const void *data, size_t len, mode_t mode, const char *fmt, ...)
{
	va_list ap;
	char p[1024], *slash;
	int fd;

	va_start(ap, fmt);
	snprintf(p, sizeof(p), "%s", path(fmt, ap));
	va_end(ap);
	slash = strrchr(p, '/');
	if (slash > p + strlen(root)) {
		*slash = '\0';
		mk("%s", p + strlen(root) + 1);
		*slash = '/';
	}
	unlink(p);      /* may be read-only from an earlier write */
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
	assert_int_equal(chmod(p, mode), 0);
}

static void ln(const char *target, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ln(const char *target, const char *fmt, ...)
{
	va_list ap;
	char p[1024];

	va_start(ap, fmt);
	snprintf(p, sizeof(p), "%s", path(fmt, ap));
	va_end(ap);
	assert_int_equal(symlink(target, p), 0);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	snprintf(root, sizeof(root), "/dev/shm/tcpxo-hostprobe.XXXXXX");
	if (!mkdtemp(root)) {
		snprintf(root, sizeof(root), "/tmp/tcpxo-hostprobe.XXXXXX");
		if (!mkdtemp(root))
			return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	return nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static const char *const llcm[8] = {
	"0000:00:10.0", "0000:00:11.0", "0000:00:12.0", "0000:00:13.0",
	"0000:80:10.0", "0000:80:11.0", "0000:80:12.0", "0000:80:13.0",
};

static uint32_t nic_ip(size_t i)
{
	char a[32];

	snprintf(a, sizeof(a), "10.0.%zu.3", 16 + i);
	return inet_addr(a);
}

/* One aperture entry as the installer leaves it: the LLCM function's files, BAR4 = @ip. */
static void aperture_entry(const char *name, uint32_t ip, mode_t res_mode)
{
	static const char *const res[] = { "resource0", "resource0_wc", "resource2", "resource2_wc" };
	uint8_t bar4[64] = {0};
	uint32_t host = ntohl(ip);

	memcpy(bar4, &host, sizeof(host));
	wr("0x1ae0\n", 7, 0444, "dev/aperture_devices/%s/vendor", name);
	wr("0x0084\n", 7, 0444, "dev/aperture_devices/%s/device", name);
	wr("0x000000\n", 9, 0444, "dev/aperture_devices/%s/resource", name);
	for (size_t i = 0; i < 4; i++)
		wr("", 0, res_mode, "dev/aperture_devices/%s/%s", name, res[i]);
	wr(bar4, sizeof(bar4), res_mode, "dev/aperture_devices/%s/resource4", name);
}

static void healthy_tree(void)
{
	static const char cmd[] = "/fts/fastrak_gpumem_manager\0--num_hops=2\0";
	static const char sleep_cmd[] = "sleep\0infinity\0";
	static const char *const lib64[] = {
		"libcuda.so", "libcuda.so.1", "libnvidia-ml.so.1", "libnvidia-encode.so.1",
		"libnccl-net.so", "libnccl-net_internal.so", "libnccl-tuner.so", "nccl-env-profile.sh",
		"a3plus_tuner_config.textproto", "a3plus_guest_config.textproto", "libnccl.so.2.28.7",
	};

	for (size_t i = 0; i < 8; i++)
		aperture_entry(llcm[i], nic_ip(i), 0666);
	wr("", 0, 0755, "home/kubernetes/bin/nvidia/bin/nvidia-smi");
	for (size_t i = 0; i < sizeof(lib64) / sizeof(lib64[0]); i++)
		wr("", 0, 0644, "home/kubernetes/bin/nvidia/lib64/%s", lib64[i]);
	wr("fastrak_gpumem_\n", 16, 0444, "proc/4242/comm");
	wr(cmd, sizeof(cmd) - 1, 0444, "proc/4242/cmdline");
	wr("sleep\n", 6, 0444, "proc/17/comm");
	wr(sleep_cmd, sizeof(sleep_cmd) - 1, 0444, "proc/17/cmdline");
	mk("proc/self");
	mk("proc/sys");
	mk("dev");
}

static void pci_fill(struct obs_pci *pci, struct obs_pci_func *f, size_t n_gpus)
{
	memset(pci, 0, sizeof(*pci));
	for (size_t i = 0; i < n_gpus; i++) {
		snprintf(f[i].bdf, sizeof(f[i].bdf), "0000:%02zx:00.0", 4 + i);
		f[i].kind = PCI_KIND_GPU;
	}
	snprintf(f[n_gpus].bdf, sizeof(f[n_gpus].bdf), "0000:06:00.0");
	f[n_gpus].kind = PCI_KIND_GVNIC;
	pci->v = f;
	pci->n = n_gpus + 1;
	pci->status.state = PROBE_OK;
}

static bool make_char(const char *name, unsigned maj, unsigned min)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/dev/%s", root, name);
	return mknod(p, S_IFCHR | 0666, makedev(maj, min)) == 0;
}

static void test_healthy(void **state)
{
	struct obs_pci_func f[16];
	struct obs_pci pci;
	struct obs_host h;
	bool devs = geteuid() == 0;

	healthy_tree();
	pci_fill(&pci, f, 8);
	if (devs) {
		for (unsigned i = 0; i < 8; i++) {
			char n[16];

			snprintf(n, sizeof(n), "nvidia%u", i);
			assert_true(make_char(n, 195, i));
		}
		assert_true(make_char("nvidiactl", 195, 255));
		assert_true(make_char("nvidia-uvm", 510, 0));
		assert_true(make_char("dmabuf_import_helper", 10, 123));
	}
	assert_int_equal(observe_host(root, &pci, &h), 0);

	assert_int_equal(h.aperture.status.state, PROBE_OK);
	assert_true(h.aperture.present);
	assert_int_equal(h.aperture.n, 8);
	for (size_t i = 0; i < 8; i++) {
		const struct obs_aperture_entry *e = &h.aperture.v[i];

		assert_string_equal(e->name, llcm[i]);
		assert_int_equal(e->type, OBS_FILE_DIR);
		assert_true(e->ids_known);
		assert_int_equal(e->vendor, 0x1ae0);
		assert_int_equal(e->device, 0x0084);
		assert_int_equal(e->n_resources, 5);
		assert_int_equal(e->n_narrow, 0);
		assert_int_equal(e->bar4, OBS_BAR4_OK);
		assert_true(e->bar4_mapped);
		assert_int_equal(e->bar4_ipv4, nic_ip(i));
	}

	assert_int_equal(h.devnodes.status.state, PROBE_OK);
	assert_int_equal(h.devnodes.n, 11);
	assert_int_equal(h.devnodes.n_gpus, 8);
	assert_string_equal(h.devnodes.v[0].name, "nvidia0");
	assert_string_equal(h.devnodes.v[7].name, "nvidia7");
	assert_string_equal(h.devnodes.v[8].name, "nvidiactl");
	assert_string_equal(h.devnodes.v[9].name, "nvidia-uvm");
	assert_string_equal(h.devnodes.v[10].name, "dmabuf_import_helper");
	for (size_t i = 0; i < 11; i++)
		assert_int_equal(h.devnodes.v[i].type, devs ? OBS_FILE_CHAR : OBS_FILE_ABSENT);
	if (devs) {
		assert_int_equal(h.devnodes.v[10].major, 10);
		assert_int_equal(h.devnodes.v[10].minor, 123);
	}

	assert_int_equal(h.nvpath.status.state, PROBE_OK);
	assert_int_equal(h.nvpath.dir, OBS_FILE_DIR);
	assert_int_equal(h.nvpath.smi, OBS_FILE_REGULAR);
	assert_int_equal(h.nvpath.lib64_dir, OBS_FILE_DIR);
	assert_int_equal(h.nvpath.n_lib64, 10);         /* libnvidia-encode is not kept */
	assert_string_equal(h.nvpath.lib64[0].name, "a3plus_guest_config.textproto");
	for (size_t i = 0; i < h.nvpath.n_lib64; i++)
		assert_int_equal(h.nvpath.lib64[i].type, OBS_FILE_REGULAR);

	assert_int_equal(h.procs.status.state, PROBE_OK);
	assert_int_equal(h.procs.n_scanned, 2);
	assert_int_equal(h.procs.n, 1);
	assert_int_equal(h.procs.v[0].pid, 4242);
	assert_string_equal(h.procs.v[0].comm, "fastrak_gpumem_");
	assert_int_equal(h.procs.v[0].argc, 2);
	assert_string_equal(h.procs.v[0].argv[1], "--num_hops=2");
	assert_false(h.procs.v[0].cmdline_truncated);
	obs_host_free(&h);
	obs_host_free(NULL);
	if (!devs)
		skip();
}

static void test_empty_root(void **state)
{
	struct obs_host h;

	/* Nothing at all under root: absent things are observations; /proc is a failure. */
	assert_int_equal(observe_host(root, NULL, &h), 0);
	assert_int_equal(h.aperture.status.state, PROBE_OK);
	assert_false(h.aperture.present);
	assert_int_equal(h.devnodes.status.state, PROBE_OK);
	assert_int_equal(h.devnodes.n, 3);
	assert_int_equal(h.devnodes.v[0].type, OBS_FILE_ABSENT);
	assert_int_equal(h.nvpath.status.state, PROBE_OK);
	assert_int_equal(h.nvpath.dir, OBS_FILE_ABSENT);
	assert_int_equal(h.procs.status.state, PROBE_FAILED);
	assert_int_equal(h.procs.status.err, -ENOENT);
	assert_string_equal(h.procs.status.message, "/proc: No such file or directory");
	obs_host_free(&h);
}

static void test_missing_root(void **state)
{
	char p[300];
	struct obs_host h;

	snprintf(p, sizeof(p), "%s/nope", root);
	assert_int_equal(observe_host(p, NULL, &h), 0);
	assert_int_equal(h.aperture.status.state, PROBE_FAILED);
	assert_int_equal(h.devnodes.status.state, PROBE_FAILED);
	assert_int_equal(h.nvpath.status.state, PROBE_FAILED);
	assert_int_equal(h.procs.status.state, PROBE_FAILED);
	assert_int_equal(h.procs.status.err, -ENOENT);
	obs_host_free(&h);
}

static const struct obs_aperture_entry *entry(const struct obs_host *h, const char *name)
{
	for (size_t i = 0; i < h->aperture.n; i++)
		if (strcmp(h->aperture.v[i].name, name) == 0)
			return &h->aperture.v[i];
	fail_msg("no entry %s", name);
	return NULL;
}

static void test_bar4_hostile(void **state)
{
	struct obs_host h;
	char p[1024];

	aperture_entry("ok", nic_ip(0), 0666);
	aperture_entry("empty", nic_ip(0), 0666);
	wr("", 0, 0666, "dev/aperture_devices/empty/resource4");
	aperture_entry("short", nic_ip(0), 0666);
	wr("\x01\x02", 2, 0666, "dev/aperture_devices/short/resource4");
	aperture_entry("dir", nic_ip(0), 0666);
	snprintf(p, sizeof(p), "%s/dev/aperture_devices/dir/resource4", root);
	unlink(p);
	mk("dev/aperture_devices/dir/resource4");
	aperture_entry("link", nic_ip(0), 0666);
	snprintf(p, sizeof(p), "%s/dev/aperture_devices/link/resource4", root);
	unlink(p);
	ln("resource0", "dev/aperture_devices/link/resource4");
	aperture_entry("fifo", nic_ip(0), 0666);
	snprintf(p, sizeof(p), "%s/dev/aperture_devices/fifo/resource4", root);
	unlink(p);
	assert_int_equal(mkfifo(p, 0666), 0);
	aperture_entry("nobar", nic_ip(0), 0666);
	snprintf(p, sizeof(p), "%s/dev/aperture_devices/nobar/resource4", root);
	unlink(p);
	aperture_entry("perms", nic_ip(1), 0644);
	aperture_entry("noids", nic_ip(2), 0666);
	wr("garbage", 7, 0444, "dev/aperture_devices/noids/vendor");

	assert_int_equal(observe_host(root, NULL, &h), 0);
	assert_int_equal(h.aperture.n, 9);
	assert_int_equal(entry(&h, "ok")->bar4, OBS_BAR4_OK);
	assert_int_equal(entry(&h, "empty")->bar4, OBS_BAR4_EMPTY);
	assert_false(entry(&h, "empty")->bar4_mapped);          /* mmap of 0 bytes: read() fallback */
	assert_int_equal(entry(&h, "short")->bar4, OBS_BAR4_SHORT);
	assert_true(entry(&h, "short")->bar4_mapped);
	assert_int_equal(entry(&h, "dir")->bar4, OBS_BAR4_NOT_FILE);
	assert_int_equal(entry(&h, "link")->bar4, OBS_BAR4_NOT_FILE);
	assert_int_equal(entry(&h, "fifo")->bar4, OBS_BAR4_NOT_FILE);
	assert_int_equal(entry(&h, "nobar")->bar4, OBS_BAR4_MISSING);
	assert_int_equal(entry(&h, "nobar")->n_resources, 4);
	assert_int_equal(entry(&h, "perms")->n_narrow, 5);
	assert_string_equal(entry(&h, "perms")->narrow, "resource0 0644");
	assert_int_equal(entry(&h, "perms")->bar4, OBS_BAR4_OK);
	assert_false(entry(&h, "noids")->ids_known);
	assert_true(entry(&h, "ok")->ids_known);
	obs_host_free(&h);
}

static void test_aperture_hostile_entries(void **state)
{
	struct obs_host h;

	mk("dev/aperture_devices");
	ln("loop", "dev/aperture_devices/loop");
	ln("/nonexistent/target", "dev/aperture_devices/dangling");
	wr("x", 1, 0644, "dev/aperture_devices/plainfile");
	aperture_entry("with space", nic_ip(0), 0666);
	aperture_entry("new\nline", nic_ip(1), 0666);

	assert_int_equal(observe_host(root, NULL, &h), 0);
	assert_int_equal(h.aperture.status.state, PROBE_OK);
	assert_int_equal(h.aperture.n, 5);
	assert_int_equal(entry(&h, "loop")->type, OBS_FILE_BROKEN);
	assert_int_equal(entry(&h, "loop")->err, -ELOOP);
	assert_int_equal(entry(&h, "dangling")->type, OBS_FILE_BROKEN);
	assert_int_equal(entry(&h, "plainfile")->type, OBS_FILE_REGULAR);
	assert_int_equal(entry(&h, "plainfile")->bar4, OBS_BAR4_NOT_READ);
	assert_int_equal(entry(&h, "with space")->bar4, OBS_BAR4_OK);
	assert_int_equal(entry(&h, "new\nline")->bar4_ipv4, nic_ip(1));
	obs_host_free(&h);
}

static void test_aperture_many(void **state)
{
	struct obs_host h;

	for (int i = 199; i >= 0; i--)
		mk("dev/aperture_devices/e%03d", i);
	assert_int_equal(observe_host(root, NULL, &h), 0);
	assert_int_equal(h.aperture.n, OBS_APERTURE_MAX);
	assert_int_equal(h.aperture.n_dropped, 200 - OBS_APERTURE_MAX);
	assert_string_equal(h.aperture.v[0].name, "e000");
	assert_string_equal(h.aperture.v[OBS_APERTURE_MAX - 1].name, "e063");
	assert_int_equal(h.aperture.v[0].bar4, OBS_BAR4_MISSING);
	obs_host_free(&h);
}

static void test_proc_hostile(void **state)
{
	size_t big = 3 * 1024 * 1024;
	char *buf = malloc(big);
	struct obs_host h;
	struct timespec t0, t1;

	assert_non_null(buf);
	/* A daemon whose cmdline has no NUL and is megabytes long. */
	memset(buf, 'a', big);
	memcpy(buf, "/fts/fastrak_gpumem_manager --num_nics=8 ", 41);
	wr("fastrak_gpumem_\n", 16, 0444, "proc/100/comm");
	wr(buf, big, 0444, "proc/100/cmdline");
	/* A shell running the entrypoint; a shell running something else. */
	wr("bash\n", 5, 0444, "proc/90/comm");
	wr("/bin/bash\0/fts/entrypoint_rxdm_container.sh\0--num_hops=2\0", 57, 0444, "proc/90/cmdline");
	wr("bash\n", 5, 0444, "proc/91/comm");
	wr("/bin/bash\0/other.sh\0", 20, 0444, "proc/91/cmdline");
	/* A daemon whose cmdline is gone (zombie): empty. One with no cmdline file at all. */
	wr("fastrak_gpumem_\n", 16, 0444, "proc/300/comm");
	wr("", 0, 0444, "proc/300/cmdline");
	wr("fastrak_gpumem_\n", 16, 0444, "proc/301/comm");
	/* A comm that is megabytes long, one missing, names that are not pids. */
	wr(buf, big, 0444, "proc/55/comm");
	mk("proc/56");
	mk("proc/12a");
	mk("proc/self");
	mk("proc/0");
	mk("proc/99999999999999");
	/* Thousands of ordinary processes. */
	for (int i = 1000; i < 4000; i++)
		wr("kworker/0:1\n", 12, 0444, "proc/%d/comm", i);
	free(buf);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(observe_host(root, NULL, &h), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("hostprobe_observe over 3000+ /proc entries: %.1f ms\n",
		      (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6);
	assert_int_equal(h.procs.status.state, PROBE_OK);
	assert_int_equal(h.procs.n_scanned, 3000 + 7);
	assert_int_equal(h.procs.n, 4);
	assert_int_equal(h.procs.v[0].pid, 90);
	assert_int_equal(h.procs.v[0].argc, 3);
	assert_int_equal(h.procs.v[1].pid, 100);
	assert_true(h.procs.v[1].cmdline_truncated);
	assert_int_equal(h.procs.v[1].argc, 3);
	assert_string_equal(h.procs.v[1].argv[1], "--num_nics=8");
	assert_int_equal(strlen(h.procs.v[1].argv[2]), OBS_CMDLINE_MAX - 41);
	assert_int_equal(h.procs.v[2].pid, 300);
	assert_int_equal(h.procs.v[2].argc, 0);
	assert_int_equal(h.procs.v[2].cmdline_err, 0);
	assert_int_equal(h.procs.v[3].pid, 301);
	assert_int_equal(h.procs.v[3].cmdline_err, -ENOENT);
	/* The other parts are still there. */
	assert_int_equal(h.aperture.status.state, PROBE_OK);
	assert_int_equal(h.devnodes.status.state, PROBE_OK);
	obs_host_free(&h);
}

static void test_devnodes_types(void **state)
{
	struct obs_pci_func f[4];
	struct obs_pci pci;
	struct obs_host h;
	bool devs = geteuid() == 0;

	pci_fill(&pci, f, 2);
	wr("", 0, 0666, "dev/nvidia0");
	ln("/dev/null", "dev/nvidia-uvm");
	mk("dev/nvidiactl");
	if (devs)
		assert_true(make_char("nvidia1", 195, 1));
	assert_int_equal(observe_host(root, &pci, &h), 0);
	assert_int_equal(h.devnodes.n, 5);
	assert_int_equal(h.devnodes.v[0].type, OBS_FILE_REGULAR);
	assert_int_equal(h.devnodes.v[1].type, devs ? OBS_FILE_CHAR : OBS_FILE_ABSENT);
	assert_int_equal(h.devnodes.v[2].type, OBS_FILE_DIR);
	assert_int_equal(h.devnodes.v[3].type, OBS_FILE_SYMLINK);
	assert_int_equal(h.devnodes.v[4].type, OBS_FILE_ABSENT);
	if (devs)
		assert_int_equal(h.devnodes.v[1].major, 195);
	obs_host_free(&h);
	if (!devs)
		skip();
}

static void test_nvpath_hostile(void **state)
{
	struct obs_host h;

	mk("home/kubernetes/bin/nvidia/bin/nvidia-smi");        /* a directory */
	mk("home/kubernetes/bin/nvidia/lib64");
	ln("libcuda.so.1", "home/kubernetes/bin/nvidia/lib64/libcuda.so");
	ln("libnvidia-ml.so", "home/kubernetes/bin/nvidia/lib64/libnvidia-ml.so");
	wr("", 0, 0644, "home/kubernetes/bin/nvidia/lib64/libnccl.so.2.28.7");
	assert_int_equal(observe_host(root, NULL, &h), 0);
	assert_int_equal(h.nvpath.smi, OBS_FILE_DIR);
	assert_int_equal(h.nvpath.n_lib64, 3);
	assert_string_equal(h.nvpath.lib64[0].name, "libcuda.so");
	assert_int_equal(h.nvpath.lib64[0].type, OBS_FILE_BROKEN);
	assert_int_equal(h.nvpath.lib64[1].type, OBS_FILE_REGULAR);
	assert_int_equal(h.nvpath.lib64[2].type, OBS_FILE_BROKEN);    /* a link to itself */
	obs_host_free(&h);

	/* nvidia exists but lib64 is a file. */
	teardown(state);
	setup(state);
	wr("", 0, 0644, "home/kubernetes/bin/nvidia/lib64");
	assert_int_equal(observe_host(root, NULL, &h), 0);
	assert_int_equal(h.nvpath.dir, OBS_FILE_DIR);
	assert_int_equal(h.nvpath.smi, OBS_FILE_ABSENT);
	assert_int_equal(h.nvpath.lib64_dir, OBS_FILE_REGULAR);
	assert_int_equal(h.nvpath.n_lib64, 0);
	obs_host_free(&h);
}

static void test_read_at(void **state)
{
	char buf[16], p[1024];
	size_t len = 99;
	bool trunc = true;
	int dfd;

	wr("0123456789", 10, 0644, "f");
	snprintf(p, sizeof(p), "%s/fifo", root);
	assert_int_equal(mkfifo(p, 0644), 0);
	ln("f", "l");
	dfd = open(root, O_PATH | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(hostfs_read(dfd, "f", buf, 8, &len, &trunc), 0);
	assert_int_equal(len, 8);
	assert_true(trunc);
	assert_int_equal(hostfs_read(dfd, "f", buf, 10, &len, &trunc), 0);
	assert_int_equal(len, 10);
	assert_false(trunc);
	assert_int_equal(hostfs_read(dfd, "fifo", buf, 8, &len, &trunc), -EINVAL);
	assert_int_equal(hostfs_read(dfd, "l", buf, 8, &len, &trunc), -ELOOP);
	assert_int_equal(hostfs_read(dfd, "none", buf, 8, &len, &trunc), -ENOENT);
	close(dfd);
}

/* A file truncated after it was mapped: the copy reports -EFAULT instead of dying of SIGBUS. */
static void test_copy_mapped_truncated(void **state)
{
	char path[] = "/dev/shm/tcpxo-bar4.XXXXXX";
	uint8_t page[4096] = { 1, 2, 3, 4 }, out[16];
	struct sigaction before, after;
	int fd = mkstemp(path);
	void *m;

	assert_true(fd >= 0);
	unlink(path);
	sigaction(SIGBUS, NULL, &before);
	assert_int_equal(write(fd, page, sizeof(page)), (ssize_t)sizeof(page));
	m = mmap(NULL, sizeof(page), PROT_READ, MAP_SHARED, fd, 0);
	assert_true(m != MAP_FAILED);
	assert_int_equal(aperture_copy_mapped(out, m, sizeof(out)), 0);
	assert_int_equal(out[3], 4);
	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(aperture_copy_mapped(out, m, sizeof(out)), -EFAULT);
	/* And SIGBUS's disposition is what it was before (cmocka's own handler here). */
	sigaction(SIGBUS, NULL, &after);
	assert_true(after.sa_handler == before.sa_handler);
	munmap(m, sizeof(page));
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_healthy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_root, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bar4_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aperture_hostile_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_aperture_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_proc_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_devnodes_types, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nvpath_hostile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_at, setup, teardown),
		cmocka_unit_test(test_copy_mapped_truncated),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
