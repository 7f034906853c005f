/* pairing.c - GPU<->NIC pairing by PCIe switch, computed from bridge bus ranges. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/pairing.h"

/* The bridge whose secondary bus is @bus in @domain (the parent of devices on @bus), or -1. */
static int pairing_parent_bridge(const struct obs_pci *pci, unsigned domain, unsigned bus)
{
	for (size_t i = 0; i < pci->n; i++) {
		const struct obs_pci_func *f = &pci->v[i];

		if (f->kind == PCI_KIND_BRIDGE && f->has_bus_range && f->domain == domain &&
		    f->secondary == bus && f->secondary != 0)
			return (int)i;
	}
	return -1;
}

/* Endpoint -> downstream port -> upstream port: the upstream port is "the switch". */
static int pairing_switch_of(const struct obs_pci *pci, size_t idx)
{
	const struct obs_pci_func *f = &pci->v[idx];
	int dsp, usp;

	dsp = pairing_parent_bridge(pci, f->domain, f->bus);
	if (dsp < 0)
		return -1;
	usp = pairing_parent_bridge(pci, pci->v[dsp].domain, pci->v[dsp].bus);
	return usp;
}

int pairing_compute(const struct obs_pci *pci, struct pairing *ret)
{
	struct pairing p = { 0 };
	int *usp_of = NULL;     /* per function: obs_pci index of its upstream port, or -1 */
	int r = -ENOMEM;

	if (pci->n) {
		p.sw_of = malloc(pci->n * sizeof(*p.sw_of));
		p.nic_of = malloc(pci->n * sizeof(*p.nic_of));
		usp_of = malloc(pci->n * sizeof(*usp_of));
		p.sw = calloc(pci->n, sizeof(*p.sw));
		if (!p.sw_of || !p.nic_of || !usp_of || !p.sw)
			goto out;
	}
	for (size_t i = 0; i < pci->n; i++) {
		enum pci_kind kind = pci->v[i].kind;

		p.sw_of[i] = -1;
		p.nic_of[i] = -1;
		usp_of[i] = kind == PCI_KIND_GPU || kind == PCI_KIND_GVNIC || kind == PCI_KIND_RDMA_NIC ?
			    pairing_switch_of(pci, i) : -1;
	}

	/* Switches in BDF order of their upstream port (pci->v is sorted), GPU switches only. */
	for (size_t u = 0; u < pci->n; u++) {
		struct pairing_switch *sw = &p.sw[p.n_sw];
		bool has_gpu = false;

		for (size_t i = 0; i < pci->n; i++)
			if (usp_of[i] == (int)u && pci->v[i].kind == PCI_KIND_GPU)
				has_gpu = true;
		if (!has_gpu)
			continue;
		memcpy(sw->bdf, pci->v[u].bdf, sizeof(sw->bdf));
		for (size_t i = 0; i < pci->n; i++) {
			if (usp_of[i] != (int)u)
				continue;
			if (pci->v[i].kind == PCI_KIND_GPU && sw->n_gpus < PAIRING_MAX_PER_SWITCH)
				sw->gpus[sw->n_gpus++] = i;
			else if ((pci->v[i].kind == PCI_KIND_GVNIC || pci->v[i].kind == PCI_KIND_RDMA_NIC) &&
				 sw->n_nics < PAIRING_MAX_PER_SWITCH)
				sw->nics[sw->n_nics++] = i;
			else
				continue;
			p.sw_of[i] = (int)p.n_sw;
		}
		if (sw->n_nics) {
			size_t per = sw->n_gpus / sw->n_nics;

			/*
			 * The daemon divides; with fewer GPUs than NICs we pair 1:1 instead of by 0. With 2
			 * GPUs and 2 RDMA NICs in one switch the k-th GPU takes the k-th NIC (BDF order), as
			 * GKE's gce-nic-naming names gpu<N>rdma0.
			 */
			for (size_t g = 0; g < sw->n_gpus; g++) {
				size_t n = per ? g / per : g;

				if (n < sw->n_nics)
					p.nic_of[sw->gpus[g]] = (int)sw->nics[n];
			}
		}
		p.n_sw++;
	}
	r = 0;
	*ret = p;
	p = (struct pairing){ 0 };
out:
	free(usp_of);
	pairing_free(&p);
	return r;
}

void pairing_free(struct pairing *p)
{
	if (!p)
		return;
	free(p->sw);
	free(p->sw_of);
	free(p->nic_of);
	*p = (struct pairing){ 0 };
}
