/* test_rdma.c - the InfiniBand sysfs and gIB probes: their parsers, the a3-ultra fixture trees, hostile trees. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/host/gib.h"
#include "probes/host/rdma.h"

static char tmp[256];

static const char *topdir(void)
{
	const char *t = getenv("TOPDIR");

	return t && *t ? t : ".";
}

static int open_root(const char *dir)
{
	int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

	assert_true(fd >= 0);
	return fd;
}

static void test_parse_state(void **state)
{
	char name[24];
	int n = -1;

	(void)state;
	assert_int_equal(rdma_parse_state("4: ACTIVE\n", &n, name, sizeof(name)), 0);
	assert_int_equal(n, 4);
	assert_string_equal(name, "ACTIVE");
	assert_int_equal(rdma_parse_state("5: LinkUp", &n, name, sizeof(name)), 0);
	assert_string_equal(name, "LinkUp");
	assert_int_equal(rdma_parse_state("3: Disabled\n", &n, name, sizeof(name)), 0);
	assert_int_equal(n, 3);
	/* Not the kernel's "%d: %s\n". */
	assert_int_equal(rdma_parse_state("ACTIVE\n", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(rdma_parse_state("4:ACTIVE\n", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(rdma_parse_state("-4: ACTIVE\n", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(rdma_parse_state("4: \n", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(rdma_parse_state("4: ACTIVE\n\n", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(rdma_parse_state("4: AC\x01TIVE\n", &n, name, sizeof(name)), -EINVAL);
	assert_int_equal(rdma_parse_state("4: A_NAME_MUCH_LONGER_THAN_THE_BUFFER\n", &n, name, sizeof(name)), -EINVAL);
}

static void test_parse_gid(void **state)
{
	uint8_t gid[16];
	uint32_t ip = 0;
	char text[INET_ADDRSTRLEN];

	(void)state;
	assert_int_equal(rdma_parse_gid("0000:0000:0000:0000:0000:ffff:0a00:0407\n", gid), 0);
	assert_true(rdma_gid_ipv4(gid, &ip));
	assert_string_equal(inet_ntop(AF_INET, &ip, text, sizeof(text)), "10.0.4.7");
	assert_int_equal(rdma_parse_gid("fe80:0000:0000:0000:4001:0aff:fe00:0407", gid), 0);
	assert_false(rdma_gid_ipv4(gid, &ip));
	assert_int_equal(gid[0], 0xfe);
	assert_int_equal(gid[15], 0x07);
	/* Compressed, short, long, not hex, trailing bytes: never the kernel's %pI6. */
	assert_int_equal(rdma_parse_gid("::ffff:10.0.4.7\n", gid), -EINVAL);
	assert_int_equal(rdma_parse_gid("0000:0000:0000:0000:0000:ffff:0a00:040\n", gid), -EINVAL);
	assert_int_equal(rdma_parse_gid("0000:0000:0000:0000:0000:ffff:0a00:04077\n", gid), -EINVAL);
	assert_int_equal(rdma_parse_gid("0000:0000:0000:0000:0000:ffff:0a00:04g7\n", gid), -EINVAL);
	assert_int_equal(rdma_parse_gid("0000:0000:0000:0000:0000:ffff:0a00:0407\nx", gid), -EINVAL);
	assert_int_equal(rdma_parse_gid("0000-0000:0000:0000:0000:ffff:0a00:0407\n", gid), -EINVAL);
	assert_int_equal(rdma_parse_gid("", gid), -EINVAL);
}

/* The committed A3 Ultra tree: 8 devices, each with its function, port 1 up, the RoCE v2 GID of its address. */
static void test_fixture(void **state)
{
	static const char *const bdfs[] = { "0000:91:00.0", "0000:92:00.0", "0000:98:00.0", "0000:99:00.0",
					    "0000:c6:00.0", "0000:c7:00.0", "0000:cd:00.0", "0000:ce:00.0" };
	struct obs_rdma *m = calloc(1, sizeof(*m));
	char dir[512], name[16], ip[INET_ADDRSTRLEN], want[16];
	int fd;

	(void)state;
	assert_non_null(m);
	snprintf(dir, sizeof(dir), "%s/fixtures/a3-ultra", topdir());
	fd = open_root(dir);
	assert_int_equal(rdma_scan(fd, m), 0);
	assert_int_equal(m->status.state, PROBE_OK);
	assert_true(m->present);
	assert_int_equal(m->n, 8);
	for (size_t i = 0; i < 8; i++) {
		const struct obs_rdma_dev *d = &m->v[i];

		snprintf(name, sizeof(name), "mlx5_%zu", i);
		assert_string_equal(d->name, name);
		assert_string_equal(d->bdf, bdfs[i]);
		snprintf(name, sizeof(name), "gpu%zurdma0", i);
		assert_string_equal(d->netdev, name);
		assert_int_equal(d->state, 4);
		assert_string_equal(d->state_text, "ACTIVE");
		assert_int_equal(d->phys_state, 5);
		assert_string_equal(d->link_layer, "Ethernet");
		assert_true(d->roce_v2 && d->roce_v2_ipv4);
		assert_int_equal(d->gid_index, 3);      /* the IPv4-mapped RoCE v2 entry, not 1 (link-local) */
		snprintf(want, sizeof(want), "10.0.%zu.7", i + 1);
		assert_string_equal(inet_ntop(AF_INET, &d->gid_ipv4, ip, sizeof(ip)), want);
	}
	close(fd);

	snprintf(dir, sizeof(dir), "%s/fixtures/a3-ultra-port-down", topdir());
	fd = open_root(dir);
	assert_int_equal(rdma_scan(fd, m), 0);
	assert_int_equal(m->v[3].state, 1);
	assert_string_equal(m->v[3].state_text, "DOWN");
	assert_string_equal(m->v[3].phys_text, "Disabled");
	close(fd);

	/* No /sys/class/infiniband (an A3 Mega tree): nothing there, nothing failed. */
	snprintf(dir, sizeof(dir), "%s/fixtures/a3-mega", topdir());
	fd = open_root(dir);
	assert_int_equal(rdma_scan(fd, m), 0);
	assert_int_equal(m->status.state, PROBE_OK);
	assert_false(m->present);
	assert_int_equal(m->n, 0);
	close(fd);
	free(m);
}

static void mkfile(const char *rel, const char *text)
{
	char p[1024], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", tmp, rel);
	for (s = p + strlen(tmp) + 1; (s = strchr(s, '/')); s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(p);
}

/* Hostile devices: a link out of the root, garbage in every file, a name too long, a GID of the wrong type. */
static void test_hostile(void **state)
{
	struct obs_rdma *m = calloc(1, sizeof(*m));
	char p[1024], longname[80];
	int fd;

	(void)state;
	assert_non_null(m);
	snprintf(tmp, sizeof(tmp), "/dev/shm/tcpxo-rdma.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	mkfile("sys/class/infiniband/bad0/ports/1/state", "ACTIVE\n");
	mkfile("sys/class/infiniband/bad0/ports/1/phys_state", "5: Link\x01Up\n");
	mkfile("sys/class/infiniband/bad0/ports/1/link_layer", "Ether\x1bnet\n");
	mkfile("sys/class/infiniband/bad0/ports/1/gids/0", "0000:0000:0000:0000:0000:ffff:0a00:0407\n");
	mkfile("sys/class/infiniband/bad0/ports/1/gid_attrs/types/0", "IB/RoCE v1\n");
	mkfile("sys/class/infiniband/bad0/ports/1/gids/1", "0000:0000:0000:0000:0000:0000:0000:0000\n");
	mkfile("sys/class/infiniband/bad0/ports/1/gid_attrs/types/1", "RoCE v2\n");
	snprintf(p, sizeof(p), "%s/sys/class/infiniband/bad0/device", tmp);
	assert_int_equal(symlink("/../../../../etc", p), 0);           /* resolved inside the root: no BDF */
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	snprintf(p, sizeof(p), "sys/class/infiniband/%s/ports/1/state", longname);
	mkfile(p, "4: ACTIVE\n");
	fd = open_root(tmp);
	assert_int_equal(rdma_scan(fd, m), 0);
	assert_int_equal(m->n, 1);
	assert_int_equal(m->n_dropped, 1);
	assert_string_equal(m->v[0].name, "bad0");
	assert_string_equal(m->v[0].bdf, "");
	assert_int_equal(m->v[0].state, -1);
	assert_int_equal(m->v[0].phys_state, -1);
	assert_string_equal(m->v[0].link_layer, "");
	assert_false(m->v[0].roce_v2);          /* v1 only, and a zero v2 entry */
	close(fd);
	assert_int_equal(nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(m);
}

/* gIB: the healthy install, none, and one lib64 file not copied into nvidia/lib64. */
static void test_gib(void **state)
{
	struct obs_gib *g = calloc(1, sizeof(*g));
	char dir[512];
	int fd;

	(void)state;
	assert_non_null(g);
	snprintf(dir, sizeof(dir), "%s/fixtures/a3-ultra", topdir());
	fd = open_root(dir);
	assert_int_equal(gib_scan(fd, g), 0);
	assert_int_equal(g->status.state, PROBE_OK);
	assert_int_equal(g->dir, OBS_FILE_DIR);
	assert_int_equal(g->env_script, OBS_FILE_REGULAR);
	assert_int_equal(g->lib64_dir, OBS_FILE_DIR);
	assert_int_equal(g->n_libs, 1);
	assert_string_equal(g->libs[0].name, "libnccl-net.so");
	assert_int_equal(g->libs[0].in_nvidia, OBS_FILE_REGULAR);
	close(fd);

	snprintf(dir, sizeof(dir), "%s/fixtures/a3-ultra-no-gib", topdir());
	fd = open_root(dir);
	assert_int_equal(gib_scan(fd, g), 0);
	assert_int_equal(g->status.state, PROBE_OK);
	assert_int_equal(g->dir, OBS_FILE_ABSENT);
	close(fd);

	snprintf(tmp, sizeof(tmp), "/dev/shm/tcpxo-gib.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	mkfile("home/kubernetes/bin/gib/lib64/libnccl-net.so", "");
	mkfile("home/kubernetes/bin/gib/lib64/libnccl-tuner.so", "");
	mkfile("home/kubernetes/bin/nvidia/lib64/libnccl-net.so", "");
	fd = open_root(tmp);
	assert_int_equal(gib_scan(fd, g), 0);
	assert_int_equal(g->env_script, OBS_FILE_ABSENT);
	assert_int_equal(g->n_libs, 2);
	assert_string_equal(g->libs[1].name, "libnccl-tuner.so");
	assert_int_equal(g->libs[0].in_nvidia, OBS_FILE_REGULAR);
	assert_int_equal(g->libs[1].in_nvidia, OBS_FILE_ABSENT);
	close(fd);
	assert_int_equal(nftw(tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
	free(g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_state),
		cmocka_unit_test(test_parse_gid),
		cmocka_unit_test(test_fixture),
		cmocka_unit_test(test_hostile),
		cmocka_unit_test(test_gib),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
