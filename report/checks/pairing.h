/* pairing.h - GPU<->NIC pairing by PCIe switch, the way the TCPXO daemon does it (pure). */
#pragma once

#include "probes/model/observation.h"

#define PAIRING_MAX_PER_SWITCH 32

struct pairing_switch {
	char bdf[OBS_BDF_MAX];          /* the switch's upstream port */
	size_t n_gpus, n_nics;
	size_t gpus[PAIRING_MAX_PER_SWITCH];    /* indices into obs_pci.v, sorted by BDF */
	size_t nics[PAIRING_MAX_PER_SWITCH];
};

struct pairing {
	struct pairing_switch *sw;      /* GPU switches (holding at least one H100), by BDF */
	size_t n_sw;
	int *sw_of;                     /* per obs_pci.v index: GPU switch index, or -1 (also for NICs
	                                 * in a switch without GPUs: outside every GPU switch) */
	int *nic_of;                    /* per GPU index: obs_pci.v index of its NIC, or -1 */
};

/**
 * pairing_compute() - group the H100 GPUs and gVNICs of @pci by the PCIe switch above them
 * and pair them: for each switch, GPUs and NICs sorted by BDF, gpus_per_nic = #gpus / #nics,
 * GPU i gets NIC i / gpus_per_nic. The switch of an endpoint is its grandparent bridge
 * (endpoint -> downstream port -> upstream port), found from bridge bus ranges. An endpoint
 * on a root bus, or whose grandparent is not a bridge, is in no switch.
 *
 * Return: 0 or -ENOMEM. Free with pairing_free().
 */
int pairing_compute(const struct obs_pci *pci, struct pairing *ret);

void pairing_free(struct pairing *p);
