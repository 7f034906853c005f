/* test_pairing.c - pairing_compute over in-memory PCI topologies: 1:1, 2:1, and the odd shapes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "report/checks/pairing.h"

#define MAXF 64

struct topo {
	struct obs_pci pci;
	struct obs_pci_func f[MAXF];
};

static struct obs_pci_func *add(struct topo *t, unsigned domain, unsigned bus, unsigned dev, enum pci_kind kind)
{
	struct obs_pci_func *f;

	assert_true(t->pci.n < MAXF);
	f = &t->f[t->pci.n++];
	memset(f, 0, sizeof(*f));
	f->domain = domain;
	f->bus = bus;
	f->dev = dev;
	snprintf(f->bdf, sizeof(f->bdf), "%04x:%02x:%02x.0", domain, bus & 0xff, dev & 0x1f);
	f->kind = kind;
	f->numa = -1;
	switch (kind) {
	case PCI_KIND_GPU: f->vendor = 0x10de; f->device = 0x2330; break;
	case PCI_KIND_GVNIC: f->vendor = 0x1ae0; f->device = 0x0042; break;
	case PCI_KIND_LLCM: f->vendor = 0x1ae0; f->device = 0x0084; break;
	case PCI_KIND_BRIDGE: f->vendor = 0x1000; f->device = 0xc030; break;
	case PCI_KIND_OTHER_GPU: f->vendor = 0x10de; f->device = 0x2324; break;
	case PCI_KIND_OTHER: f->vendor = 0x8086; f->device = 0x1237; break;
	case PCI_KIND_RDMA_NIC: f->vendor = 0x15b3; f->device = 0x101e; break;
	}
	t->pci.v = t->f;
	return f;
}

static void bridge(struct topo *t, unsigned domain, unsigned bus, unsigned dev, unsigned sec, unsigned sub)
{
	struct obs_pci_func *f = add(t, domain, bus, dev, PCI_KIND_BRIDGE);

	f->has_bus_range = true;
	f->secondary = (uint8_t)sec;
	f->subordinate = (uint8_t)sub;
}

/*
 * Root port 00:<rp>.0 -> upstream port on bus <b> -> one downstream port per endpoint; endpoint
 * k sits alone on bus <b>+2+k. @kinds lists the endpoints in bus order. Functions are appended
 * in BDF order as long as callers build switches in ascending bus order.
 */
static void sw(struct topo *t, unsigned domain, unsigned rp, unsigned b, const enum pci_kind *kinds, size_t n)
{
	unsigned last = b + 1 + (unsigned)n;

	bridge(t, domain, 0, rp, b, last);
	bridge(t, domain, b, 0, b + 1, last);
	for (size_t k = 0; k < n; k++)
		bridge(t, domain, b + 1, (unsigned)k, b + 2 + (unsigned)k, b + 2 + (unsigned)k);
	for (size_t k = 0; k < n; k++)
		add(t, domain, b + 2 + (unsigned)k, 0, kinds[k]);
}

static int idx(const struct topo *t, const char *bdf)
{
	for (size_t i = 0; i < t->pci.n; i++)
		if (strcmp(t->f[i].bdf, bdf) == 0)
			return (int)i;
	fail_msg("no function %s", bdf);
	return -1;
}

static const char *nic_of(const struct topo *t, const struct pairing *p, const char *gpu)
{
	int n = p->nic_of[idx(t, gpu)];

	return n < 0 ? "-" : t->f[n].bdf;
}

static int bdf_cmp(const void *a, const void *b)
{
	return strcmp(((const struct obs_pci_func *)a)->bdf, ((const struct obs_pci_func *)b)->bdf);
}

/* Sorted by BDF is pcitopo's promise and pairing's precondition (one domain width here). */
static void sort_topo(struct topo *t)
{
	qsort(t->f, t->pci.n, sizeof(t->f[0]), bdf_cmp);
}

static const enum pci_kind GGNN[] = { PCI_KIND_GPU, PCI_KIND_GPU, PCI_KIND_GVNIC, PCI_KIND_GVNIC };
static const enum pci_kind GGN[] = { PCI_KIND_GPU, PCI_KIND_GPU, PCI_KIND_GVNIC };

static void test_one_to_one(void **state)
{
	struct topo t = { 0 };
	struct pairing p;

	/* two switches, A3 Mega shape: buses 01..07 and 08..0e */
	sw(&t, 0, 2, 0x01, GGNN, 4);
	sw(&t, 0, 3, 0x08, GGNN, 4);
	assert_int_equal(t.pci.n, 2 * 10);
	assert_int_equal(pairing_compute(&t.pci, &p), 0);
	assert_int_equal(p.n_sw, 2);
	assert_string_equal(p.sw[0].bdf, "0000:01:00.0");
	assert_string_equal(p.sw[1].bdf, "0000:08:00.0");
	assert_int_equal(p.sw[0].n_gpus, 2);
	assert_int_equal(p.sw[0].n_nics, 2);
	assert_string_equal(nic_of(&t, &p, "0000:03:00.0"), "0000:05:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:04:00.0"), "0000:06:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:0a:00.0"), "0000:0c:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:0b:00.0"), "0000:0d:00.0");
	assert_int_equal(p.sw_of[idx(&t, "0000:06:00.0")], 0);
	assert_int_equal(p.sw_of[idx(&t, "0000:0d:00.0")], 1);
	assert_int_equal(p.sw_of[idx(&t, "0000:01:00.0")], -1);  /* bridges belong to no switch */
	pairing_free(&p);
	assert_null(p.sw);
	pairing_free(NULL);
}

static void test_two_to_one(void **state)
{
	struct topo t = { 0 };
	struct pairing p;

	sw(&t, 0, 2, 0x01, GGN, 3);
	sw(&t, 0, 3, 0x81, GGN, 3);
	assert_int_equal(pairing_compute(&t.pci, &p), 0);
	assert_int_equal(p.n_sw, 2);
	assert_string_equal(nic_of(&t, &p, "0000:03:00.0"), "0000:05:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:04:00.0"), "0000:05:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:83:00.0"), "0000:85:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:84:00.0"), "0000:85:00.0");
	pairing_free(&p);

	/* 4 GPUs, 2 NICs in one switch: GPUs 0,1 -> NIC 0; 2,3 -> NIC 1 */
	{
		static const enum pci_kind k[] = { PCI_KIND_GPU, PCI_KIND_GPU, PCI_KIND_GPU, PCI_KIND_GPU,
						   PCI_KIND_GVNIC, PCI_KIND_GVNIC };
		struct topo u = { 0 };

		sw(&u, 0, 2, 0x10, k, 6);
		assert_int_equal(pairing_compute(&u.pci, &p), 0);
		assert_string_equal(nic_of(&u, &p, "0000:12:00.0"), "0000:16:00.0");
		assert_string_equal(nic_of(&u, &p, "0000:13:00.0"), "0000:16:00.0");
		assert_string_equal(nic_of(&u, &p, "0000:14:00.0"), "0000:17:00.0");
		assert_string_equal(nic_of(&u, &p, "0000:15:00.0"), "0000:17:00.0");
		pairing_free(&p);
	}
}

static void test_nic_outside_switches(void **state)
{
	struct topo t = { 0 };
	struct pairing p;

	/* the displaced-gVNIC shape: a GPU NIC on bus 0, and one straight below a root port */
	add(&t, 0, 0, 0x0c, PCI_KIND_GVNIC);
	add(&t, 0, 0, 0x0d, PCI_KIND_GVNIC);
	bridge(&t, 0, 0, 0x0e, 0x20, 0x20);
	add(&t, 0, 0x20, 0, PCI_KIND_GVNIC);
	sw(&t, 0, 0x0f, 0x30, GGN, 3);
	sort_topo(&t);
	assert_int_equal(pairing_compute(&t.pci, &p), 0);
	assert_int_equal(p.n_sw, 1);
	assert_int_equal(p.sw_of[idx(&t, "0000:00:0c.0")], -1);
	assert_int_equal(p.sw_of[idx(&t, "0000:00:0d.0")], -1);
	assert_int_equal(p.sw_of[idx(&t, "0000:20:00.0")], -1);  /* grandparent is no bridge */
	assert_int_equal(p.sw_of[idx(&t, "0000:34:00.0")], 0);
	/* the bus-0 NICs are no GPU's NIC */
	assert_string_equal(nic_of(&t, &p, "0000:32:00.0"), "0000:34:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:33:00.0"), "0000:34:00.0");
	pairing_free(&p);
}

static void test_gpu_without_nic(void **state)
{
	static const enum pci_kind gg[] = { PCI_KIND_GPU, PCI_KIND_GPU };
	static const enum pci_kind nn[] = { PCI_KIND_GVNIC, PCI_KIND_GVNIC };
	struct topo t = { 0 };
	struct pairing p;

	sw(&t, 0, 2, 0x01, gg, 2);      /* GPUs, no NIC in their switch */
	sw(&t, 0, 3, 0x08, nn, 2);      /* NICs, no GPU in theirs */
	assert_int_equal(pairing_compute(&t.pci, &p), 0);
	assert_string_equal(nic_of(&t, &p, "0000:03:00.0"), "-");
	assert_string_equal(nic_of(&t, &p, "0000:04:00.0"), "-");
	assert_true(p.n_sw >= 1);
	assert_string_equal(p.sw[0].bdf, "0000:01:00.0");
	assert_int_equal(p.sw[0].n_gpus, 2);
	assert_int_equal(p.sw[0].n_nics, 0);
	assert_int_equal(p.sw_of[idx(&t, "0000:03:00.0")], 0);
	/* whatever the GPU-less switch's listing, no GPU is paired with its NICs */
	for (size_t i = 0; i < t.pci.n; i++)
		assert_true(p.nic_of[i] < 0);
	pairing_free(&p);
}

static void test_fewer_gpus_than_nics(void **state)
{
	static const enum pci_kind gnn[] = { PCI_KIND_GPU, PCI_KIND_GVNIC, PCI_KIND_GVNIC };
	static const enum pci_kind gggnn[] = { PCI_KIND_GPU, PCI_KIND_GPU, PCI_KIND_GPU,
					       PCI_KIND_GVNIC, PCI_KIND_GVNIC };
	struct topo t = { 0 };
	struct pairing p;

	/* 1 GPU, 2 NICs: the daemon's division gives 0 per NIC; we pair 1:1 from the first */
	sw(&t, 0, 2, 0x01, gnn, 3);
	/* 3 GPUs, 2 NICs: 1 per NIC, the third GPU gets none */
	sw(&t, 0, 3, 0x08, gggnn, 5);
	assert_int_equal(pairing_compute(&t.pci, &p), 0);
	assert_int_equal(p.n_sw, 2);
	assert_string_equal(nic_of(&t, &p, "0000:03:00.0"), "0000:04:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:0a:00.0"), "0000:0d:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:0b:00.0"), "0000:0e:00.0");
	assert_string_equal(nic_of(&t, &p, "0000:0c:00.0"), "-");
	pairing_free(&p);
}

static void test_empty(void **state)
{
	struct obs_pci none = { 0 };
	struct pairing p;

	memset(&p, 0x5a, sizeof(p));
	assert_int_equal(pairing_compute(&none, &p), 0);
	assert_int_equal(p.n_sw, 0);
	pairing_free(&p);

	/* functions but nothing pairable */
	{
		struct topo t = { 0 };

		add(&t, 0, 0, 0, PCI_KIND_OTHER);
		add(&t, 0, 0, 0x10, PCI_KIND_LLCM);
		add(&t, 0, 0, 0x11, PCI_KIND_OTHER_GPU);
		assert_int_equal(pairing_compute(&t.pci, &p), 0);
		assert_int_equal(p.n_sw, 0);
		for (size_t i = 0; i < t.pci.n; i++) {
			assert_int_equal(p.sw_of[i], -1);
			assert_int_equal(p.nic_of[i], -1);
		}
		pairing_free(&p);
	}
}

static void test_domains_and_missing_ranges(void **state)
{
	struct topo t = { 0 };
	struct pairing p;

	/* the same bus numbers in two domains must not mix */
	sw(&t, 0, 2, 0x01, GGN, 3);
	sw(&t, 1, 2, 0x01, GGN, 3);
	assert_int_equal(pairing_compute(&t.pci, &p), 0);
	assert_int_equal(p.n_sw, 2);
	assert_string_equal(nic_of(&t, &p, "0000:03:00.0"), "0000:05:00.0");
	assert_string_equal(nic_of(&t, &p, "0001:03:00.0"), "0001:05:00.0");
	assert_string_equal(nic_of(&t, &p, "0001:04:00.0"), "0001:05:00.0");
	pairing_free(&p);

	/* a downstream port whose bus range could not be read: its endpoint is in no switch */
	t.f[idx(&t, "0001:02:02.0")].has_bus_range = false;
	assert_int_equal(pairing_compute(&t.pci, &p), 0);
	assert_int_equal(p.sw_of[idx(&t, "0001:05:00.0")], -1);
	assert_string_equal(nic_of(&t, &p, "0001:03:00.0"), "-");
	assert_string_equal(nic_of(&t, &p, "0000:03:00.0"), "0000:05:00.0");
	pairing_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_one_to_one),
		cmocka_unit_test(test_two_to_one),
		cmocka_unit_test(test_nic_outside_switches),
		cmocka_unit_test(test_gpu_without_nic),
		cmocka_unit_test(test_fewer_gpus_than_nics),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_domains_and_missing_ranges),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
