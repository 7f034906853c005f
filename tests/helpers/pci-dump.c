/* pci-dump.c - test helper: pcitopo_scan + pairing_compute on --root, printed one line per fact; --repeat times the scan (bench). */
#include <fcntl.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "probes/host/pcitopo.h"
#include "report/checks/pairing.h"

/*
 * Output (sorted by BDF):
 *   status ok | status failed <errno>: <message>
 *   func <bdf> <vendor>:<device> class=<xxxxxx> kind=<kind> numa=<n> driver=<d|-> netdev=<n|->
 *        [bus=<sec>-<sub>] [switch=<upstream port BDF|->]      (one line; switch for GPUs, gVNICs, RDMA NICs)
 *   pair <gpu BDF> <nic BDF|->                                 (every GPU)
 * With --pairs only "<gpu BDF> <nic BDF>" for paired GPUs, the daemon_pairing.py format.
 * With --repeat N the scan runs N times and one line says what one cost (bench/pci.sh):
 *   ms=<per scan> funcs=<n> maxrss_kib=<the process's peak RSS after them>
 * Exit: 0 scanned, 1 the probe failed, 2 usage or out of memory.
 */

static const char *pci_dump_kind(enum pci_kind k)
{
	switch (k) {
	case PCI_KIND_OTHER: return "other";
	case PCI_KIND_GPU: return "gpu";
	case PCI_KIND_OTHER_GPU: return "other-gpu";
	case PCI_KIND_GVNIC: return "gvnic";
	case PCI_KIND_LLCM: return "llcm";
	case PCI_KIND_BRIDGE: return "bridge";
	case PCI_KIND_RDMA_NIC: return "rdma-nic";
	}
	return "?";
}

static void pci_dump_usage(FILE *to)
{
	fputs("usage: pci-dump --root DIR [--pairs | --repeat N]\n", to);
}

static double pci_dump_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Scan @root @repeat times and print what one scan cost. Return: the exit code. */
static int pci_dump_repeat(int rootfd, const char *root, long repeat)
{
	struct obs_pci pci = { 0 };
	struct rusage ru;
	double t0 = pci_dump_now_ms();
	size_t n = 0;

	for (long k = 0; k < repeat; k++) {
		if (pcitopo_scan(rootfd, root, &pci) < 0 || pci.status.state != PROBE_OK) {
			fprintf(stderr, "pci-dump: %s\n", pci.status.message);
			free(pci.v);
			return 1;
		}
		n = pci.n;
		free(pci.v);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("ms=%.4f funcs=%zu maxrss_kib=%ld\n", (pci_dump_now_ms() - t0) / (double)repeat, n, ru.ru_maxrss);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "pairs", no_argument, NULL, 'p' },
		{ "repeat", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *root = NULL;
	int rootfd;
	struct obs_pci pci = { 0 };
	struct pairing p = { 0 };
	long repeat = 0;
	int c, r, only_pairs = 0;

	while ((c = getopt_long(argc, argv, "r:pn:h", opts, NULL)) != -1) {
		switch (c) {
		case 'r': root = optarg; break;
		case 'p': only_pairs = 1; break;
		case 'n': repeat = strtol(optarg, NULL, 10); break;
		case 'h': pci_dump_usage(stdout); return 0;
		default: pci_dump_usage(stderr); return 2;
		}
	}
	if (!root || optind != argc || repeat < 0) {
		pci_dump_usage(stderr);
		return 2;
	}
	/* --root opened once, as the agent does (observe_rootfd()), and handed in. */
	rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		rootfd = -errno;
	if (repeat)
		return pci_dump_repeat(rootfd, root, repeat);
	r = pcitopo_scan(rootfd, root, &pci);
	if (pairing_compute(&pci, &p) < 0) {
		fputs("pci-dump: out of memory\n", stderr);
		free(pci.v);
		return 2;
	}
	if (!only_pairs) {
		if (pci.status.state == PROBE_OK)
			printf("status ok\n");
		else
			printf("status failed %d: %s\n", pci.status.err, pci.status.message);
		for (size_t i = 0; i < pci.n; i++) {
			const struct obs_pci_func *f = &pci.v[i];

			printf("func %s %04x:%04x class=%06x kind=%s numa=%d driver=%s netdev=%s",
			       f->bdf, f->vendor, f->device, f->class_code, pci_dump_kind(f->kind),
			       f->numa, f->driver[0] ? f->driver : "-", f->netdev[0] ? f->netdev : "-");
			if (f->has_bus_range)
				printf(" bus=%02x-%02x", f->secondary, f->subordinate);
			if (f->kind == PCI_KIND_GPU || f->kind == PCI_KIND_GVNIC || f->kind == PCI_KIND_RDMA_NIC)
				printf(" switch=%s", p.sw_of[i] >= 0 ? p.sw[p.sw_of[i]].bdf : "-");
			putchar('\n');
		}
	}
	for (size_t i = 0; i < pci.n; i++) {
		int nic = p.nic_of[i];

		if (pci.v[i].kind != PCI_KIND_GPU)
			continue;
		if (only_pairs) {
			if (nic >= 0)
				printf("%s %s\n", pci.v[i].bdf, pci.v[nic].bdf);
		} else {
			printf("pair %s %s\n", pci.v[i].bdf, nic >= 0 ? pci.v[nic].bdf : "-");
		}
	}
	pairing_free(&p);
	free(pci.v);
	if (fflush(stdout) != 0)
		return 2;
	return r < 0 || pci.status.state != PROBE_OK ? 1 : 0;
}
