/* hostprobe.c - the host wiring probes' entry point: opens the root, runs each sub-probe. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/aperture.h"
#include "probes/host/devnodes.h"
#include "probes/host/gib.h"
#include "probes/host/hostprobe.h"
#include "probes/host/nvpath.h"
#include "probes/host/procscan.h"
#include "probes/host/rdma.h"

static size_t hostprobe_count(const struct obs_pci *pci, enum pci_kind kind)
{
	size_t n = 0;

	if (!pci)
		return 0;
	for (size_t i = 0; i < pci->n; i++)
		if (pci->v[i].kind == kind)
			n++;
	return n;
}

int hostprobe_observe(int rootfd, const char *root, const struct obs_pci *pci, struct obs_host *ret)
{
	struct obs_host h = {0};
	size_t n_rdma = hostprobe_count(pci, PCI_KIND_RDMA_NIC);
	int r;

	if (rootfd < 0) {
		probe_status_fail(&h.aperture.status, rootfd, "%s: %s", root, strerror(-rootfd));
		h.devnodes.status = h.aperture.status;
		h.nvpath.status = h.aperture.status;
		h.procs.status = h.aperture.status;
		if (n_rdma) {
			h.rdma.status = h.aperture.status;
			h.gib.status = h.aperture.status;
		}
		*ret = h;
		return 0;
	}
	r = aperture_scan(rootfd, &h.aperture);
	if (r >= 0)
		r = devnodes_scan(rootfd, hostprobe_count(pci, PCI_KIND_GPU),
				  n_rdma, &h.devnodes);
	if (r >= 0)
		r = nvpath_scan(rootfd, &h.nvpath);
	if (r >= 0)
		r = procscan_scan(rootfd, &h.procs);
	/* The RDMA parts only where the bus shows an RDMA NIC: a TCPX(O) node's observation is as before. */
	if (r >= 0 && n_rdma)
		r = rdma_scan(rootfd, &h.rdma);
	if (r >= 0 && n_rdma)
		r = gib_scan(rootfd, &h.gib);
	if (r < 0) {
		obs_host_free(&h);
		return r;
	}
	*ret = h;
	return 0;
}
