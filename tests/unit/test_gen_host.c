/* test_gen_host.c - fixtures/gen_host.py scenarios, probed and checked: each breaks exactly one check. */
#include <fcntl.h>
#include <arpa/inet.h>
#include <errno.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "probes/host/hostprobe.h"
#include "report/checks/checks.h"


static const char *const status_names[] = { "skip", "pass", "warn", "fail" };
static const enum check_id check_ids[] = {
	CHECK_APERTURE_DEVICES, CHECK_DEVICE_NODES, CHECK_NVIDIA_HOST_PATH, CHECK_PLUGIN_FILES,
	CHECK_DAEMON_ARGS,
};

static char out[256];
static char topdir[1024];

/* The probe as the agent runs it: --root opened by the caller (its -errno when it cannot be), handed in. */
static int observe_host(const char *root, const struct obs_pci *pci, struct obs_host *h)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	r = hostprobe_observe(fd < 0 ? -errno : fd, root, pci, h);
	if (fd >= 0)
		close(fd);
	return r;
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

static int setup(void **state)
{
	const char *t = getenv("TOPDIR");
	char cmd[2048];

	snprintf(topdir, sizeof(topdir), "%s", t && *t ? t : ".");
	snprintf(out, sizeof(out), "/dev/shm/tcpxo-genhost.XXXXXX");
	if (!mkdtemp(out))
		return -1;
	if (access("/usr/bin/python3", X_OK) != 0)
		return 0;       /* the test skips */
	snprintf(cmd, sizeof(cmd), "/usr/bin/python3 '%s/tests/lib/gen_host_driver.py' '%s'", topdir, out);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	return nftw(out, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* The API facts of a scenario's observation: none read. */
static const struct obs_kube no_facts;

struct scen {
	struct obs_pci_func pci[32];
	struct profile_nic nics[8];
	struct observation o;
	struct profile p;
};

/* Read <dir>/topo.txt into the PCI list and the profile's NIC rows. */
static void load_topo(const char *dir, struct scen *s)
{
	char path[1024], line[256], kind[8], bdf[16], name[16], ip[19];
	size_t np = 0, n_llcm = 0, n_rdma = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/topo.txt", dir);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		int n = sscanf(line, "%7s %15s %15s %18s", kind, bdf, name, ip);

		assert_true(n >= 2 && np < 32);
		snprintf(s->pci[np].bdf, OBS_BDF_MAX, "%s", bdf);
		if (strcmp(kind, "gpu") == 0) {
			s->pci[np++].kind = PCI_KIND_GPU;
			s->p.n_gpus++;
		} else if (strcmp(kind, "llcm") == 0) {
			s->pci[np++].kind = PCI_KIND_LLCM;
			n_llcm++;
		} else {
			struct profile_nic *nic = &s->nics[s->p.n_nics++];

			assert_int_equal(n, 4);
			n_rdma += strcmp(kind, "rdma") == 0;
			s->pci[np++].kind = strcmp(kind, "rdma") == 0 ? PCI_KIND_RDMA_NIC : PCI_KIND_GVNIC;
			nic->rdma = -1;
			snprintf(nic->bdf, sizeof(nic->bdf), "%s", bdf);
			snprintf(nic->name, sizeof(nic->name), "%s", name);
			snprintf(nic->ipv4, sizeof(nic->ipv4), "%s", ip);
		}
	}
	fclose(f);
	s->o.kube = &no_facts;
	s->o.pci.v = s->pci;
	s->o.pci.n = np;
	s->o.pci.status.state = PROBE_OK;
	s->p.nics = s->nics;
	s->p.kind = n_llcm ? PROFILE_TCPXO : n_rdma ? PROFILE_RDMA : PROFILE_TCPX;
}

static int make_devnodes(const char *dir)
{
	char cmd[2048];
	int rc;

	snprintf(cmd, sizeof(cmd), "sh -c \". '%s/tests/lib/devnodes.sh' && devnodes_make '%s'\"", topdir, dir);
	rc = system(cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

static void test_scenarios(void **state)
{
	char path[1024], line[512];
	bool devnodes_ok = true;
	size_t n_scen = 0;
	FILE *f;

	if (access("/usr/bin/python3", X_OK) != 0)
		skip();
	snprintf(path, sizeof(path), "%s/expected.txt", out);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char name[128], want[5][8], dir[512];
		struct scen *s = calloc(1, sizeof(*s));
		struct finding c = {0};
		int rc;

		assert_non_null(s);
		assert_int_equal(sscanf(line, "%127s %7s %7s %7s %7s %7s", name, want[0], want[1], want[2],
					want[3], want[4]), 6);
		snprintf(dir, sizeof(dir), "%s/%s", out, name);
		rc = make_devnodes(dir);
		assert_true(rc == 0 || rc == 77);
		devnodes_ok = rc == 0;
		load_topo(dir, s);
		assert_int_equal(observe_host(dir, &s->o.pci, &s->o.host), 0);
		for (size_t i = 0; i < 5; i++) {
			assert_int_equal(evaluate_check(check_ids[i], &s->o, &s->p, &c), 0);
			if (c.status != CHECK_PASS)
				print_message("%s: %s %s: %s\n", name, check_id_name(check_ids[i]), status_names[c.status],
					      c.message);
			if (i == 1 && !devnodes_ok)
				continue;       /* not root: no device nodes could be made */
			if (strcmp(status_names[c.status], want[i]) != 0)
				fail_msg("%s: %s is %s, want %s: %s", name, check_id_name(check_ids[i]),
					 status_names[c.status], want[i], c.message);
		}
		if (s->p.kind == PROFILE_TCPXO && strcmp(want[0], "pass") == 0)
			for (size_t i = 0; i < s->p.n_nics; i++)
				assert_string_equal(s->nics[i].aperture, s->pci[s->o.pci.n - 8 + i].bdf);
		free(c.message);
		free(c.remedy);
		free(s->p.marks);
		obs_host_free(&s->o.host);
		free(s);
		n_scen++;
	}
	fclose(f);
	assert_int_equal(n_scen, 14);    /* a3-mega, a3-high, a3-ultra and gen_host.EXTRA_SCENARIOS */
	if (!devnodes_ok)
		skip();
}

static void test_cost(void **state)
{
	struct scen *s = calloc(1, sizeof(*s));
	struct timespec t0, t1;
	char dir[512];
	const int rounds = 200;

	if (access("/usr/bin/python3", X_OK) != 0)
		skip();
	assert_non_null(s);
	snprintf(dir, sizeof(dir), "%s/a3-mega", out);
	load_topo(dir, s);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (int i = 0; i < rounds; i++) {
		struct obs_host h;

		assert_int_equal(observe_host(dir, &s->o.pci, &h), 0);
		obs_host_free(&h);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	print_message("hostprobe_observe on the healthy a3-mega tree: %.1f us per call (%d calls)\n",
		      ((double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec)) / 1e3 / rounds,
		      rounds);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scenarios),
		cmocka_unit_test(test_cost),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
