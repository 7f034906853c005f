/* test_pcitopo.c - the PCI scan over the committed fixtures and over hostile trees built on tmpfs. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/host/hostfs.h"
#include "probes/host/pcitopo.h"

/* ---- building trees ---- */

/* Every path a test builds must fit; a truncated one would test the wrong file. */
#define xsnprintf(buf, len, ...) assert_true(snprintf(buf, len, __VA_ARGS__) < (int)(len))

struct tree {
	char root[PATH_MAX];
};

/* The probe as the agent runs it: --root opened by the caller (its -errno when it cannot be), handed in. */
static int scan(const char *root, struct obs_pci *p)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	r = pcitopo_scan(fd < 0 ? -errno : fd, root, p);
	if (fd >= 0)
		close(fd);
	return r;
}

static void tree_write(const char *root, const char *rel, const void *data, size_t len)
{
	char path[PATH_MAX];
	int fd;

	xsnprintf(path, sizeof(path), "%s/%s", root, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

static void tree_text(const char *root, const char *rel, const char *text)
{
	tree_write(root, rel, text, strlen(text));
}

static void tree_mkdir(const char *root, const char *rel)
{
	char path[PATH_MAX];

	xsnprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_true(mkdir(path, 0755) == 0 || errno == EEXIST);
}

static void tree_link(const char *root, const char *rel, const char *target)
{
	char path[PATH_MAX];

	xsnprintf(path, sizeof(path), "%s/%s", root, rel);
	assert_int_equal(symlink(target, path), 0);
}

static int tree_new(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	xsnprintf(t->root, sizeof(t->root), "/dev/shm/test_pcitopo.XXXXXX");
	if (!mkdtemp(t->root)) {
		xsnprintf(t->root, sizeof(t->root), "/tmp/test_pcitopo.XXXXXX");
		assert_non_null(mkdtemp(t->root));
	}
	tree_mkdir(t->root, "sys");
	tree_mkdir(t->root, "sys/bus");
	tree_mkdir(t->root, "sys/bus/pci");
	tree_mkdir(t->root, "sys/bus/pci/devices");
	tree_mkdir(t->root, "sys/bus/pci/drivers");
	tree_mkdir(t->root, "sys/class");
	tree_mkdir(t->root, "sys/class/net");
	tree_mkdir(t->root, "sys/devices");
	*state = t;
	return 0;
}

static int tree_rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	chmod(path, 0755);
	return remove(path);
}

static int tree_free(void **state)
{
	struct tree *t = *state;

	if (t) {
		chmod(t->root, 0755);
		nftw(t->root, tree_rm_one, 16, FTW_DEPTH | FTW_PHYS);
		free(t);
	}
	return 0;
}

struct fn_spec {
	const char *bdf;
	const char *dir;        /* under sys/devices, e.g. "pci0000:00/0000:00:02.0/0000:01:00.0" */
	uint16_t vendor, device;
	uint32_t class_code;
	int header_type;
	uint8_t secondary, subordinate;
	const char *numa;       /* numa_node text, NULL: no file */
	const char *driver;     /* NULL: unbound */
	const char *netdev;     /* NULL: no net/ folder */
};

/* One function in real sysfs shape: files, a 64-byte config, driver link, devices/ link. */
static void tree_fn(const char *root, const struct fn_spec *s)
{
	char rel[PATH_MAX], file[PATH_MAX + 32], buf[64];
	uint8_t cfg[64] = { 0 };

	xsnprintf(rel, sizeof(rel), "sys/devices/%s", s->dir);
	/* parents first: every prefix of s->dir */
	for (char *p = strchr(rel + strlen("sys/devices/"), '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		tree_mkdir(root, rel);
		*p = '/';
	}
	tree_mkdir(root, rel);
#define F(name) ({ xsnprintf(file, sizeof(file), "%s/" name, rel); file; })
	xsnprintf(buf, sizeof(buf), "0x%04x\n", s->vendor);
	tree_text(root, F("vendor"), buf);
	xsnprintf(buf, sizeof(buf), "0x%04x\n", s->device);
	tree_text(root, F("device"), buf);
	xsnprintf(buf, sizeof(buf), "0x%06x\n", s->class_code);
	tree_text(root, F("class"), buf);
	if (s->numa)
		tree_text(root, F("numa_node"), s->numa);
	cfg[0] = s->vendor & 0xff;
	cfg[1] = s->vendor >> 8;
	cfg[2] = s->device & 0xff;
	cfg[3] = s->device >> 8;
	cfg[9] = s->class_code & 0xff;
	cfg[10] = (s->class_code >> 8) & 0xff;
	cfg[11] = s->class_code >> 16;
	cfg[0x0e] = (uint8_t)s->header_type;
	cfg[0x19] = s->secondary;
	cfg[0x1a] = s->subordinate;
	tree_write(root, F("config"), cfg, sizeof(cfg));
	if (s->driver) {
		char drv[PATH_MAX], target[PATH_MAX * 2];
		int depth = 0;

		xsnprintf(drv, sizeof(drv), "sys/bus/pci/drivers/%s", s->driver);
		tree_mkdir(root, drv);
		for (const char *p = rel; *p; p++)
			depth += *p == '/';
		target[0] = '\0';
		for (int i = 0; i < depth; i++)
			strcat(target, "../");
		strcat(target, drv + strlen("sys/"));
		tree_link(root, F("driver"), target);
	}
	if (s->netdev) {
		tree_mkdir(root, F("net"));
		if (*s->netdev) {
			xsnprintf(file, sizeof(file), "%s/net/%s", rel, s->netdev);
			tree_mkdir(root, file);
		}
	}
#undef F
	xsnprintf(file, sizeof(file), "sys/bus/pci/devices/%s", s->bdf);
	xsnprintf(buf, sizeof(buf), "../../../devices/");
	{
		char target[PATH_MAX + 32];

		xsnprintf(target, sizeof(target), "%s%s", buf, s->dir);
		tree_link(root, file, target);
	}
}

/* A healthy pair: a root port with a gVNIC below it. */
static const struct fn_spec RP = {
	"0000:00:02.0", "pci0000:00/0000:00:02.0", 0x1b36, 0x000c, 0x060400, 1, 0x01, 0x01, "0\n", "pcieport", NULL,
};
static const struct fn_spec NIC = {
	"0000:01:00.0", "pci0000:00/0000:00:02.0/0000:01:00.0", 0x1ae0, 0x0042, 0x020000, 0, 0, 0, "1\n", "gve", "eth1",
};

static const char *fixture(const char *name)
{
	static char path[PATH_MAX];
	const char *top = getenv("TOPDIR");

	xsnprintf(path, sizeof(path), "%s/fixtures/%s", top && *top ? top : ".", name);
	return path;
}

static const struct obs_pci_func *find(const struct obs_pci *p, const char *bdf)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->v[i].bdf, bdf) == 0)
			return &p->v[i];
	return NULL;
}

static void assert_sorted(const struct obs_pci *p)
{
	for (size_t i = 1; i < p->n; i++) {
		const struct obs_pci_func *a = &p->v[i - 1], *b = &p->v[i];
		uint64_t ka = (uint64_t)a->domain << 32 | a->bus << 16 | a->dev << 8 | a->func;
		uint64_t kb = (uint64_t)b->domain << 32 | b->bus << 16 | b->dev << 8 | b->func;

		assert_true(ka < kb);
	}
}

/* ---- pure ---- */

static void test_classify(void **state)
{
	assert_int_equal(pcitopo_classify(0x10de, 0x2330, 0x030200, 0), PCI_KIND_GPU);
	assert_int_equal(pcitopo_classify(0x10de, 0x2330, 0x030200, -1), PCI_KIND_GPU);
	assert_int_equal(pcitopo_classify(0x10de, 0x2324, 0x030200, 0), PCI_KIND_OTHER_GPU);
	assert_int_equal(pcitopo_classify(0x10de, 0x1eb8, 0x030000, 0), PCI_KIND_OTHER_GPU);
	assert_int_equal(pcitopo_classify(0x10de, 0x22a3, 0x068000, 0), PCI_KIND_OTHER);  /* NVSwitch */
	assert_int_equal(pcitopo_classify(0x1002, 0x740f, 0x038000, 0), PCI_KIND_OTHER);  /* not NVIDIA */
	assert_int_equal(pcitopo_classify(0x1ae0, 0x0042, 0x020000, 0), PCI_KIND_GVNIC);
	assert_int_equal(pcitopo_classify(0x1ae0, 0x0084, 0x058000, 0), PCI_KIND_LLCM);
	assert_int_equal(pcitopo_classify(0x1ae0, 0x0043, 0x020000, 0), PCI_KIND_OTHER);
	assert_int_equal(pcitopo_classify(0x1000, 0xc030, 0x060400, 1), PCI_KIND_BRIDGE);
	assert_int_equal(pcitopo_classify(0x1000, 0xc030, 0x060400, -1), PCI_KIND_BRIDGE);
	assert_int_equal(pcitopo_classify(0x1234, 0x5678, 0x000000, 1), PCI_KIND_BRIDGE);
	assert_int_equal(pcitopo_classify(0x8086, 0x7110, 0x060100, 0), PCI_KIND_OTHER);  /* ISA bridge */
	assert_int_equal(pcitopo_classify(0x8086, 0x1237, 0x060000, 0), PCI_KIND_OTHER);  /* host bridge */
}

/* ---- committed fixtures ---- */

static void test_fixture_a3_mega(void **state)
{
	static const char *nics[] = { "0000:06:00.0", "0000:07:00.0", "0000:0d:00.0", "0000:0e:00.0",
				      "0000:86:00.0", "0000:87:00.0", "0000:8d:00.0", "0000:8e:00.0" };
	struct obs_pci p;
	size_t kinds[PCI_KIND_BRIDGE + 1] = { 0 };
	const struct obs_pci_func *f;

	assert_int_equal(scan(fixture("a3-mega"), &p), 0);
	assert_int_equal(p.status.state, PROBE_OK);
	assert_int_equal(p.n, 51);
	assert_sorted(&p);
	for (size_t i = 0; i < p.n; i++)
		kinds[p.v[i].kind]++;
	assert_int_equal(kinds[PCI_KIND_GPU], 8);
	assert_int_equal(kinds[PCI_KIND_GVNIC], 9);
	assert_int_equal(kinds[PCI_KIND_LLCM], 8);
	assert_int_equal(kinds[PCI_KIND_BRIDGE], 24);   /* 4 root ports, 4 upstream, 16 downstream */
	assert_int_equal(kinds[PCI_KIND_OTHER], 2);
	assert_int_equal(kinds[PCI_KIND_OTHER_GPU], 0);

	for (size_t i = 0; i < 8; i++) {
		char name[8];

		f = find(&p, nics[i]);
		assert_non_null(f);
		xsnprintf(name, sizeof(name), "eth%zu", i + 1);
		assert_string_equal(f->netdev, name);
		assert_string_equal(f->driver, "gve");
		assert_int_equal(f->numa, i < 4 ? 0 : 1);
		assert_int_equal(f->class_code, 0x020000);
	}
	f = find(&p, "0000:00:0c.0");
	assert_non_null(f);
	assert_string_equal(f->netdev, "eth0");
	assert_int_equal(f->kind, PCI_KIND_GVNIC);

	f = find(&p, "0000:84:00.0");
	assert_non_null(f);
	assert_int_equal(f->kind, PCI_KIND_GPU);
	assert_int_equal(f->vendor, 0x10de);
	assert_int_equal(f->device, 0x2330);
	assert_int_equal(f->class_code, 0x030200);
	assert_string_equal(f->driver, "nvidia");
	assert_string_equal(f->netdev, "");
	assert_int_equal(f->numa, 1);
	assert_false(f->has_bus_range);
	assert_int_equal(f->bus, 0x84);

	f = find(&p, "0000:00:10.0");
	assert_non_null(f);
	assert_int_equal(f->kind, PCI_KIND_LLCM);
	assert_string_equal(f->driver, "");

	f = find(&p, "0000:00:02.0");           /* root port of switch 0 */
	assert_non_null(f);
	assert_int_equal(f->kind, PCI_KIND_BRIDGE);
	assert_true(f->has_bus_range);
	assert_int_equal(f->secondary, 0x01);
	assert_int_equal(f->subordinate, 0x07);
	f = find(&p, "0000:81:00.0");           /* upstream port of switch 2 */
	assert_non_null(f);
	assert_int_equal(f->secondary, 0x82);
	assert_int_equal(f->subordinate, 0x87);
	f = find(&p, "0000:89:03.0");           /* downstream port above 0000:8e:00.0 */
	assert_non_null(f);
	assert_int_equal(f->secondary, 0x8e);
	assert_int_equal(f->subordinate, 0x8e);
	f = find(&p, "0000:00:01.0");           /* ISA bridge: class 0x0601 is no PCI-to-PCI bridge */
	assert_non_null(f);
	assert_int_equal(f->kind, PCI_KIND_OTHER);
	{
		struct observation o = { .pci = p };

		observation_free(&o);   /* what frees a probe's functions */
		assert_null(o.pci.v);
		assert_int_equal(o.pci.n, 0);
	}
}

static void test_fixture_others(void **state)
{
	struct obs_pci p;
	const struct obs_pci_func *f;
	size_t gpus = 0;

	assert_int_equal(scan(fixture("a3-mega-in-pod"), &p), 0);
	f = find(&p, "0000:86:00.0");
	assert_non_null(f);
	assert_string_equal(f->driver, "gve");
	assert_string_equal(f->netdev, "");     /* in a pod: bound, no host netdev */
	assert_string_equal(find(&p, "0000:8d:00.0")->netdev, "eth7");
	free(p.v);

	assert_int_equal(scan(fixture("a3-mega-unbound-nic"), &p), 0);
	f = find(&p, "0000:8e:00.0");
	assert_non_null(f);
	assert_int_equal(f->kind, PCI_KIND_GVNIC);
	assert_string_equal(f->driver, "");
	assert_string_equal(f->netdev, "");
	free(p.v);

	assert_int_equal(scan(fixture("a3-mega-displaced-gvnic"), &p), 0);
	assert_string_equal(find(&p, "0000:00:0d.0")->netdev, "eth1");
	assert_string_equal(find(&p, "0000:06:00.0")->netdev, "eth2");
	assert_string_equal(find(&p, "0000:8e:00.0")->netdev, "eth9");
	free(p.v);

	assert_int_equal(scan(fixture("cpu-node"), &p), 0);
	assert_int_equal(p.status.state, PROBE_OK);
	assert_int_equal(p.n, 5);
	for (size_t i = 0; i < p.n; i++)
		gpus += p.v[i].kind == PCI_KIND_GPU || p.v[i].kind == PCI_KIND_OTHER_GPU;
	assert_int_equal(gpus, 0);
	assert_string_equal(find(&p, "0000:00:03.0")->driver, "virtio-pci");
	free(p.v);
}

/* ---- tmpfs trees ---- */

static void test_sort_and_domains(void **state)
{
	struct tree *t = *state;
	struct fn_spec s = NIC;
	struct obs_pci p;
	static const char *order[] = { "0000:00:02.0", "0000:01:00.0", "0000:10:1f.7", "0001:00:00.0",
				       "10000:00:00.0" };

	/* created out of order: readdir order is no sort order */
	s.bdf = "10000:00:00.0"; s.dir = "pci10000:00/10000:00:00.0"; s.netdev = NULL; s.driver = NULL;
	tree_fn(t->root, &s);
	s.bdf = "0000:10:1f.7"; s.dir = "pci0000:00/0000:10:1f.7";
	tree_fn(t->root, &s);
	tree_fn(t->root, &NIC);
	s.bdf = "0001:00:00.0"; s.dir = "pci0001:00/0001:00:00.0";
	tree_fn(t->root, &s);
	tree_fn(t->root, &RP);

	assert_int_equal(scan(t->root, &p), 0);
	assert_int_equal(p.n, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(p.v[i].bdf, order[i]);
	assert_sorted(&p);
	assert_int_equal(p.v[4].domain, 0x10000);
	assert_int_equal(p.v[2].dev, 0x1f);
	assert_int_equal(p.v[2].func, 7);
	assert_int_equal(p.v[0].numa, 0);
	assert_int_equal(p.v[1].numa, 1);
	assert_string_equal(p.v[1].netdev, "eth1");
	free(p.v);
}

static void test_class_net_fallback(void **state)
{
	struct tree *t = *state;
	struct fn_spec s = NIC;
	struct obs_pci p;

	s.netdev = NULL;                        /* no net/ folder: map through class/net */
	tree_fn(t->root, &RP);
	tree_fn(t->root, &s);
	tree_mkdir(t->root, "sys/class/net/eth4");
	tree_link(t->root, "sys/class/net/eth4/device", "../../../devices/pci0000:00/0000:00:02.0/0000:01:00.0");
	/* virtio style: the link leads below the PCI function */
	s.bdf = "0000:00:03.0"; s.dir = "pci0000:00/0000:00:03.0"; s.vendor = 0x1af4; s.device = 0x1041;
	tree_fn(t->root, &s);
	tree_mkdir(t->root, "sys/devices/pci0000:00/0000:00:03.0/virtio0");
	tree_mkdir(t->root, "sys/class/net/eth0");
	tree_link(t->root, "sys/class/net/eth0/device", "../../../devices/pci0000:00/0000:00:03.0/virtio0");
	/* hostile entries: dangling, looping, no device link, a name too long for an ifname */
	tree_mkdir(t->root, "sys/class/net/eth8");
	tree_link(t->root, "sys/class/net/eth8/device", "../../../devices/pci0000:00/0000:00:09.0");
	tree_mkdir(t->root, "sys/class/net/eth9");
	tree_link(t->root, "sys/class/net/eth9/device", "device");
	tree_mkdir(t->root, "sys/class/net/lo");
	tree_mkdir(t->root, "sys/class/net/averyveryverylongname0");
	tree_link(t->root, "sys/class/net/averyveryverylongname0/device",
		  "../../../devices/pci0000:00/0000:00:02.0");

	assert_int_equal(scan(t->root, &p), 0);
	assert_int_equal(p.status.state, PROBE_OK);
	assert_int_equal(p.n, 3);
	assert_string_equal(find(&p, "0000:01:00.0")->netdev, "eth4");
	assert_string_equal(find(&p, "0000:00:03.0")->netdev, "eth0");
	assert_string_equal(find(&p, "0000:00:02.0")->netdev, "");
	free(p.v);
}

static void test_empty_and_absent(void **state)
{
	struct tree *t = *state;
	struct obs_pci p;
	char path[PATH_MAX];

	assert_int_equal(scan(t->root, &p), 0);  /* no functions: an observation */
	assert_int_equal(p.status.state, PROBE_OK);
	assert_int_equal(p.n, 0);
	free(p.v);

	xsnprintf(path, sizeof(path), "%s/nonexistent", t->root);
	assert_int_equal(scan(path, &p), -ENOENT);
	assert_int_equal(p.status.state, PROBE_FAILED);
	assert_int_equal(p.status.err, -ENOENT);
	assert_non_null(strstr(p.status.message, "nonexistent: No such file"));
	assert_int_equal(p.n, 0);
	free(p.v);

	/* devices/ is a file */
	xsnprintf(path, sizeof(path), "%s/sys/bus/pci/devices", t->root);
	assert_int_equal(rmdir(path), 0);
	tree_text(t->root, "sys/bus/pci/devices", "x\n");
	assert_int_equal(scan(t->root, &p), -ENOTDIR);
	assert_int_equal(p.status.state, PROBE_FAILED);
	free(p.v);

	/* devices/ is a link loop */
	assert_int_equal(unlink(path), 0);
	tree_link(t->root, "sys/bus/pci/devices", "devices");
	assert_int_equal(scan(t->root, &p), -ELOOP);
	assert_int_equal(p.status.state, PROBE_FAILED);
	free(p.v);
}

/* scan(@root) as nobody in a child (root reads through mode 0): 0 if it failed cleanly. */
static int scan_as_nobody(const char *root)
{
	pid_t pid = fork();
	int st;

	assert_true(pid >= 0);
	if (pid == 0) {
		struct obs_pci p;
		int r;

		if (geteuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		r = scan(root, &p);
		_exit(r == -EACCES && p.status.state == PROBE_FAILED && p.status.err == -EACCES &&
		      p.n == 0 ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	return WEXITSTATUS(st);
}

static void test_unreadable_root(void **state)
{
	struct tree *t = *state;
	char path[PATH_MAX];

	tree_fn(t->root, &RP);
	xsnprintf(path, sizeof(path), "%s/sys/bus/pci/devices", t->root);
	assert_int_equal(chmod(t->root, 0755), 0);
	assert_int_equal(chmod(path, 0), 0);
	assert_int_equal(scan_as_nobody(t->root), 0);   /* devices/ unreadable */
	assert_int_equal(chmod(path, 0755), 0);
	assert_int_equal(chmod(t->root, 0700), 0);
	assert_int_equal(scan_as_nobody(t->root), 0);   /* the root itself */
}

/* One good function beside each broken one: the broken one fails the probe, the scan goes on. */
static void expect_failed_keeping_nic(const char *root, const char *what)
{
	struct obs_pci p;
	int r = scan(root, &p);

	assert_true(r < 0);
	assert_int_equal(p.status.state, PROBE_FAILED);
	assert_int_equal(p.status.err, r);
	if (!strstr(p.status.message, what))
		fail_msg("message '%s' does not mention '%s'", p.status.message, what);
	assert_non_null(find(&p, NIC.bdf));
	assert_string_equal(find(&p, NIC.bdf)->netdev, "eth1");
	free(p.v);
}

static void test_missing_ident_files(void **state)
{
	struct tree *t = *state;
	static const char *files[] = { "vendor", "device", "class" };
	char rel[PATH_MAX], path[PATH_MAX + 16];

	tree_fn(t->root, &RP);
	tree_fn(t->root, &NIC);
	for (size_t i = 0; i < 3; i++) {
		xsnprintf(rel, sizeof(rel), "sys/devices/%s/%s", RP.dir, files[i]);
		xsnprintf(path, sizeof(path), "%s/%s", t->root, rel);
		assert_int_equal(unlink(path), 0);
		expect_failed_keeping_nic(t->root, files[i]);
		tree_text(t->root, rel, "0x060400\n");   /* back, for the next file */
	}
}

/* A config shorter than its 64-byte header is unreadable config space, named, never "no bus range". */
static void test_short_config(void **state)
{
	struct tree *t = *state;
	char rel[PATH_MAX];

	tree_fn(t->root, &RP);
	tree_fn(t->root, &NIC);
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/config", RP.dir);
	tree_write(t->root, rel, "\x36\x1b\x0c", 3);
	expect_failed_keeping_nic(t->root, "/sys/bus/pci/devices/0000:00:02.0/config: PCI config space unreadable: 3 bytes");
	tree_write(t->root, rel, "", 0);
	expect_failed_keeping_nic(t->root, "config: PCI config space unreadable: 0 bytes");

	/* no config at all */
	xsnprintf(rel, sizeof(rel), "%s/sys/devices/%s/config", t->root, RP.dir);
	assert_int_equal(unlink(rel), 0);
	expect_failed_keeping_nic(t->root, "/sys/bus/pci/devices/0000:00:02.0/config is missing");
}

/* Every config of the tree short: each function fails and the first is named (item: wrong causes). */
static void test_all_configs_short(void **state)
{
	struct tree *t = *state;
	const struct fn_spec *fns[] = { &RP, &NIC };
	struct obs_pci p;
	char rel[PATH_MAX];

	for (size_t i = 0; i < 2; i++) {
		tree_fn(t->root, fns[i]);
		xsnprintf(rel, sizeof(rel), "sys/devices/%s/config", fns[i]->dir);
		tree_write(t->root, rel, "abc", 3);
	}
	assert_int_equal(scan(t->root, &p), -EIO);
	assert_int_equal(p.status.state, PROBE_FAILED);
	assert_int_equal(p.n, 0);
	if (!strstr(p.status.message, "2 of 2 PCI functions unreadable, first: /sys/bus/pci/devices/0000:00:02.0/config: "
			 "PCI config space unreadable: 3 bytes"))
		fail_msg("message: %s", p.status.message);
	free(p.v);
}

static void test_bad_names(void **state)
{
	struct tree *t = *state;
	static const char *bad[] = { "garbage", "0000:00:1.0", "0000:00:20.0", "0000:00:02.8", "0000:00:0A.0",
				     "00:02.0", "0000:100:00.0", "0000:00:02.0x", ".hidden",
				     "escape\033[31m" };

	tree_fn(t->root, &RP);
	tree_fn(t->root, &NIC);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char rel[PATH_MAX], path[PATH_MAX];

		xsnprintf(rel, sizeof(rel), "sys/bus/pci/devices/%s", bad[i]);
		tree_link(t->root, rel, "../../../devices/pci0000:00/0000:00:02.0");
		expect_failed_keeping_nic(t->root, bad[i][0] == 'e' ? "escape?[31m" : bad[i]);
		xsnprintf(path, sizeof(path), "%s/%s", t->root, rel);
		assert_int_equal(unlink(path), 0);
	}
}

static void test_links_hostile(void **state)
{
	struct tree *t = *state;
	struct fn_spec s = NIC;
	struct obs_pci p;
	char rel[PATH_MAX];

	tree_fn(t->root, &RP);
	tree_fn(t->root, &NIC);
	/* dangling driver link, looping driver link, absurd driver name */
	s.bdf = "0000:00:04.0"; s.dir = "pci0000:00/0000:00:04.0"; s.driver = NULL; s.netdev = NULL;
	tree_fn(t->root, &s);
	tree_link(t->root, "sys/devices/pci0000:00/0000:00:04.0/driver", "../../../bus/pci/drivers/gone");
	s.bdf = "0000:00:05.0"; s.dir = "pci0000:00/0000:00:05.0";
	tree_fn(t->root, &s);
	tree_link(t->root, "sys/devices/pci0000:00/0000:00:05.0/driver", "driver");
	s.bdf = "0000:00:06.0"; s.dir = "pci0000:00/0000:00:06.0";
	s.driver = "a-driver-name-much-longer-than-thirty-two-bytes";
	tree_fn(t->root, &s);
	/* net/ holding a name no interface can have, and an empty one */
	s.bdf = "0000:00:07.0"; s.dir = "pci0000:00/0000:00:07.0"; s.driver = "gve";
	s.netdev = "eth-name-far-too-long";
	tree_fn(t->root, &s);
	s.bdf = "0000:00:08.0"; s.dir = "pci0000:00/0000:00:08.0"; s.netdev = "";
	tree_fn(t->root, &s);

	assert_int_equal(scan(t->root, &p), 0);
	assert_int_equal(p.status.state, PROBE_OK);
	assert_int_equal(p.n, 7);
	assert_string_equal(find(&p, "0000:00:04.0")->driver, "");
	assert_string_equal(find(&p, "0000:00:05.0")->driver, "");
	assert_string_equal(find(&p, "0000:00:06.0")->driver, "");
	assert_string_equal(find(&p, "0000:00:07.0")->netdev, "");
	assert_string_equal(find(&p, "0000:00:07.0")->driver, "gve");
	assert_string_equal(find(&p, "0000:00:08.0")->netdev, "");
	free(p.v);

	/* a function whose devices/ link loops */
	tree_link(t->root, "sys/bus/pci/devices/0000:00:09.0", "0000:00:0a.0");
	tree_link(t->root, "sys/bus/pci/devices/0000:00:0a.0", "0000:00:09.0");
	expect_failed_keeping_nic(t->root, "0000:00:09.0");
	xsnprintf(rel, sizeof(rel), "%s/sys/bus/pci/devices/0000:00:09.0", t->root);
	unlink(rel);
	xsnprintf(rel, sizeof(rel), "%s/sys/bus/pci/devices/0000:00:0a.0", t->root);
	unlink(rel);
	/* a dangling devices/ link */
	tree_link(t->root, "sys/bus/pci/devices/0000:00:0b.0", "../../../devices/pci0000:00/0000:00:0b.0");
	expect_failed_keeping_nic(t->root, "0000:00:0b.0");
}

static void test_garbage_text(void **state)
{
	struct tree *t = *state;
	char rel[PATH_MAX], big[300];
	struct obs_pci p;

	tree_fn(t->root, &RP);
	tree_fn(t->root, &NIC);
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/numa_node", RP.dir);
	tree_text(t->root, rel, "zero\n");
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/numa_node", NIC.dir);
	tree_text(t->root, rel, "99999999\n");
	assert_int_equal(scan(t->root, &p), 0);
	assert_int_equal(find(&p, RP.bdf)->numa, -1);
	assert_int_equal(find(&p, NIC.bdf)->numa, -1);
	free(p.v);

	/* a lenient strtol() would read garbage as class 0; the file is named instead */
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/class", RP.dir);
	tree_text(t->root, rel, "a bridge, trust me\n");
	expect_failed_keeping_nic(t->root, "/sys/bus/pci/devices/0000:00:02.0/class: invalid class code \"a bridge, trust me\"");
	tree_text(t->root, rel, "0x060400\n");

	/* strtol() would keep the low 16 bits: 0xcdef, and the function would change kind unseen */
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/vendor", RP.dir);
	tree_text(t->root, rel, "0x1234567890abcdef\n");
	expect_failed_keeping_nic(t->root, "/sys/bus/pci/devices/0000:00:02.0/vendor: invalid vendor ID 0x1234567890abcdef (not a 4-digit hex number)");
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/device", RP.dir);
	tree_text(t->root, rel, "0x000c extra\n");
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/vendor", RP.dir);
	tree_text(t->root, rel, "0x1b36\n");
	expect_failed_keeping_nic(t->root, "device: invalid device ID");
	xsnprintf(rel, sizeof(rel), "sys/devices/%s/device", RP.dir);
	tree_text(t->root, rel, "0x000c\n");
	assert_int_equal(scan(t->root, &p), 0);
	free(p.v);

	xsnprintf(rel, sizeof(rel), "sys/devices/%s/vendor", RP.dir);
	tree_text(t->root, rel, "not a number\n");
	expect_failed_keeping_nic(t->root, "invalid vendor");

	memset(big, '1', sizeof(big));
	tree_write(t->root, rel, big, sizeof(big));
	expect_failed_keeping_nic(t->root, "vendor: invalid vendor ID 1111");
}

static void test_too_many(void **state)
{
	struct tree *t = *state;
	struct obs_pci p;

	tree_fn(t->root, &NIC);
	/* dangling links are enough: the count is checked before any function is read */
	for (unsigned i = 0; i <= 8192; i++) {
		char rel[64];

		xsnprintf(rel, sizeof(rel), "sys/bus/pci/devices/0000:%02x:%02x.%x", 0x10 + i / 256, (i / 8) % 32, i % 8);
		tree_link(t->root, rel, "nowhere");
	}
	assert_int_equal(scan(t->root, &p), -E2BIG);
	assert_int_equal(p.status.state, PROBE_FAILED);
	assert_int_equal(p.n, 0);
	assert_non_null(strstr(p.status.message, "8192"));
	free(p.v);
}

/* Replace <fn dir>/@name by a fifo; a blocking open() of it would hang the agent forever. */
static void tree_fifo(const char *root, const struct fn_spec *s, const char *name)
{
	char path[PATH_MAX];

	xsnprintf(path, sizeof(path), "%s/sys/devices/%s/%s", root, s->dir, name);
	unlink(path);
	assert_int_equal(mkfifo(path, 0644), 0);
}

static void test_fifos(void **state)
{
	struct tree *t = *state;
	static const char *files[] = { "numa_node", "vendor", "device", "class", "config" };
	char path[PATH_MAX], want[128], saved[256];
	struct obs_pci p;

	tree_fn(t->root, &RP);
	tree_fn(t->root, &NIC);
	alarm(20);              /* a hang fails the test instead of stalling the suite */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		ssize_t n = -1;
		int fd;

		xsnprintf(path, sizeof(path), "%s/sys/devices/%s/%s", t->root, RP.dir, files[i]);
		fd = open(path, O_RDONLY);
		if (fd >= 0) {
			n = read(fd, saved, sizeof(saved));
			close(fd);
		}
		tree_fifo(t->root, &RP, files[i]);
		xsnprintf(want, sizeof(want), "/sys/bus/pci/devices/0000:00:02.0/%s is a fifo or socket, not a regular file",
			  files[i]);
		expect_failed_keeping_nic(t->root, want);
		assert_int_equal(unlink(path), 0);
		if (n >= 0) {
			fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			assert_true(fd >= 0);
			assert_int_equal(write(fd, saved, (size_t)n), n);
			close(fd);
		}
	}
	/* revision is read by nothing (the class code says what a function is): a fifo there stalls nothing. */
	tree_fifo(t->root, &RP, "revision");
	assert_int_equal(scan(t->root, &p), 0);
	assert_non_null(find(&p, RP.bdf));
	free(p.v);
	alarm(0);
}

/*
 * Absolute links inside the root resolve inside it, a devices/ link too: never read from this
 * machine's own /sys (where /sys/devices/pci0000:00/0000:00:02.0 may well exist).
 */
static void test_absolute_links(void **state)
{
	struct tree *t = *state;
	struct fn_spec s = NIC;
	struct obs_pci p;
	char path[PATH_MAX];

	s.netdev = NULL;
	s.driver = NULL;
	tree_fn(t->root, &RP);
	tree_fn(t->root, &s);
	tree_mkdir(t->root, "sys/bus/pci/drivers/gve");
	tree_link(t->root, "sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0/driver", "/sys/bus/pci/drivers/gve");
	tree_mkdir(t->root, "sys/class/net/eth4");
	tree_link(t->root, "sys/class/net/eth4/device", "/sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0");
	assert_int_equal(scan(t->root, &p), 0);
	assert_string_equal(find(&p, NIC.bdf)->driver, "gve");
	assert_string_equal(find(&p, NIC.bdf)->netdev, "eth4");
	free(p.v);

	/* climbing out with "..": clamped at the root, so the link still reaches the in-root dir */
	xsnprintf(path, sizeof(path), "%s/sys/class/net/eth4/device", t->root);
	assert_int_equal(unlink(path), 0);
	tree_link(t->root, "sys/class/net/eth4/device",
		  "../../../../../../../../../../sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0");
	assert_int_equal(scan(t->root, &p), 0);
	assert_string_equal(find(&p, NIC.bdf)->netdev, "eth4");
	free(p.v);

	xsnprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:00:02.0", t->root);
	assert_int_equal(unlink(path), 0);
	tree_link(t->root, "sys/bus/pci/devices/0000:00:02.0", "/sys/devices/pci0000:00/0000:00:02.0");
	assert_int_equal(scan(t->root, &p), 0);
	assert_int_equal(find(&p, RP.bdf)->kind, PCI_KIND_BRIDGE);
	assert_true(find(&p, RP.bdf)->has_bus_range);
	assert_non_null(find(&p, NIC.bdf));
	free(p.v);
}

/* A net/ that loops is not "no netdev here" (a NIC moved into a pod): the file is named. */
static void test_net_loop(void **state)
{
	struct tree *t = *state;
	struct fn_spec s = NIC;
	struct obs_pci p;

	s.netdev = NULL;
	tree_fn(t->root, &RP);
	tree_fn(t->root, &s);
	tree_link(t->root, "sys/devices/pci0000:00/0000:00:02.0/0000:01:00.0/net", "net");
	assert_int_equal(scan(t->root, &p), -EIO);
	if (!strstr(p.status.message, "/sys/bus/pci/devices/0000:01:00.0/net: Too many levels of symbolic links"))
		fail_msg("message: %s", p.status.message);
	assert_null(find(&p, NIC.bdf));         /* left out: no row says "in a pod" */
	assert_non_null(find(&p, RP.bdf));
	free(p.v);
}

/* The same cases with hostfs's own walk instead of openat2(RESOLVE_IN_ROOT). */
static int tree_new_walk(void **state)
{
	hostfs_force_walk(true);
	return tree_new(state);
}

static int tree_free_walk(void **state)
{
	hostfs_force_walk(false);
	return tree_free(state);
}

static void test_fixture_a3_mega_walk(void **state)
{
	hostfs_force_walk(true);
	test_fixture_a3_mega(state);
	hostfs_force_walk(false);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test(test_fixture_a3_mega),
		cmocka_unit_test(test_fixture_others),
		cmocka_unit_test_setup_teardown(test_sort_and_domains, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_class_net_fallback, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_empty_and_absent, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_unreadable_root, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_missing_ident_files, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_short_config, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_bad_names, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_links_hostile, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_garbage_text, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_too_many, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_all_configs_short, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_fifos, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_absolute_links, tree_new, tree_free),
		cmocka_unit_test_setup_teardown(test_net_loop, tree_new, tree_free),
		cmocka_unit_test(test_fixture_a3_mega_walk),
		cmocka_unit_test_setup_teardown(test_links_hostile, tree_new_walk, tree_free_walk),
		cmocka_unit_test_setup_teardown(test_class_net_fallback, tree_new_walk, tree_free_walk),
		cmocka_unit_test_setup_teardown(test_fifos, tree_new_walk, tree_free_walk),
		cmocka_unit_test_setup_teardown(test_absolute_links, tree_new_walk, tree_free_walk),
		cmocka_unit_test_setup_teardown(test_net_loop, tree_new_walk, tree_free_walk),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
