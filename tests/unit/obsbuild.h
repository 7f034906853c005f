/* obsbuild.h - build in-memory observations of A3 Mega / A3 High / CPU nodes for unit tests. */
#pragma once

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/model/observation.h"

static inline struct obs_pci_func *ob_pci_add(struct observation *o, unsigned bus, unsigned dev,
					       uint16_t vendor, uint16_t device, enum pci_kind kind)
{
	struct obs_pci_func *f;

	o->pci.v = realloc(o->pci.v, (o->pci.n + 1) * sizeof(*o->pci.v));
	f = &o->pci.v[o->pci.n++];
	memset(f, 0, sizeof(*f));
	f->bus = bus;
	f->dev = dev;
	snprintf(f->bdf, sizeof(f->bdf), "0000:%02x:%02x.0", bus, dev);
	f->vendor = vendor;
	f->device = device;
	f->kind = kind;
	f->numa = bus >= 0x80 ? 1 : 0;
	return f;
}

static inline void ob_bridge(struct observation *o, unsigned bus, unsigned dev, unsigned sec, unsigned sub)
{
	struct obs_pci_func *f = ob_pci_add(o, bus, dev, 0x8086, 0x1234, PCI_KIND_BRIDGE);

	f->has_bus_range = true;
	f->secondary = (uint8_t)sec;
	f->subordinate = (uint8_t)sub;
	f->driver[0] = 0;
}

static inline struct obs_link *ob_link(struct observation *o, const char *name, unsigned mtu, const char *ip)
{
	struct obs_link *l;

	o->links.v = realloc(o->links.v, (o->links.n + 1) * sizeof(*o->links.v));
	l = &o->links.v[o->links.n++];
	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->ifindex = (int)o->links.n + 1;
	l->oper = LINK_OPER_UP;
	l->admin_up = true;
	l->mtu = mtu;
	snprintf(l->mac, sizeof(l->mac), "42:01:0a:00:10:%02zx", o->links.n);
	if (ip) {
		inet_pton(AF_INET, ip, &l->ipv4[0]);
		l->ipv4_prefix[0] = 32;
		l->n_ipv4 = 1;
	}
	return l;
}

static inline struct obs_pci_func *ob_nic(struct observation *o, unsigned bus, unsigned dev, const char *name)
{
	struct obs_pci_func *f = ob_pci_add(o, bus, dev, 0x1ae0, 0x0042, PCI_KIND_GVNIC);

	strcpy(f->driver, "gve");
	if (name)
		snprintf(f->netdev, sizeof(f->netdev), "%s", name);
	return f;
}

static inline int ob_cmp_bdf(const void *a, const void *b)
{
	return strcmp(((const struct obs_pci_func *)a)->bdf, ((const struct obs_pci_func *)b)->bdf);
}

static inline int ob_cmp_link(const void *a, const void *b)
{
	return strcmp(((const struct obs_link *)a)->name, ((const struct obs_link *)b)->name);
}

/* The API facts of an observation built here: none read (a test that needs some lends its own). */
static const struct obs_kube ob_unread;

static inline void ob_finish(struct observation *o)
{
	qsort(o->pci.v, o->pci.n, sizeof(*o->pci.v), ob_cmp_bdf);
	qsort(o->links.v, o->links.n, sizeof(*o->links.v), ob_cmp_link);
	o->pci.status.state = PROBE_OK;
	o->links.status.state = PROBE_OK;
}

/*
 * A3 Mega: 4 switches behind root ports 00:02..05; GPUs on 04,05 / 0b,0c / 84,85 / 8b,8c,
 * GPU NICs on 06,07 / 0d,0e / 86,87 / 8d,8e (eth1..eth8), primary eth0 at 00:0c.0,
 * LLCM functions at 00:10..17. @gpu_nics_in_switch false: skip adding GPU NIC links (caller adds).
 */
static inline void ob_a3mega(struct observation *o, bool llcm)
{
	static const unsigned base[4] = { 0x01, 0x08, 0x81, 0x88 };
	unsigned eth = 1;

	memset(o, 0, sizeof(*o));
	o->kube = &ob_unread;
	ob_nic(o, 0, 0x0c, "eth0");
	ob_link(o, "eth0", 1460, "10.128.0.2")->default_route = true;
	for (unsigned s = 0; s < 4; s++) {
		unsigned b = base[s];

		ob_bridge(o, 0, 2 + s, b, b + 6);               /* root port */
		ob_bridge(o, b, 0, b + 1, b + 6);               /* upstream port: the switch */
		for (unsigned k = 0; k < 4; k++)
			ob_bridge(o, b + 1, k, b + 3 + k, b + 3 + k);   /* downstream ports */
		for (unsigned k = 0; k < 2; k++) {
			struct obs_pci_func *g = ob_pci_add(o, b + 3 + k, 0, 0x10de, 0x2330, PCI_KIND_GPU);
			char name[16], ip[20];

			strcpy(g->driver, "nvidia");
			snprintf(name, sizeof(name), "eth%u", eth);
			snprintf(ip, sizeof(ip), "10.0.%u.3", 15 + eth);
			ob_nic(o, b + 5 + k, 0, name);
			ob_link(o, name, 8244, ip);
			eth++;
		}
	}
	for (unsigned k = 0; llcm && k < 8; k++)
		ob_pci_add(o, 0, 0x10 + k, 0x1ae0, 0x0084, PCI_KIND_LLCM);
	ob_finish(o);
}

/* A3 High: one GPU NIC per switch (eth1..eth4), two GPUs each, no LLCM. */
static inline void ob_a3high(struct observation *o)
{
	static const unsigned base[4] = { 0x01, 0x08, 0x81, 0x88 };

	memset(o, 0, sizeof(*o));
	o->kube = &ob_unread;
	ob_nic(o, 0, 0x0c, "eth0");
	ob_link(o, "eth0", 1460, "10.128.0.2")->default_route = true;
	for (unsigned s = 0; s < 4; s++) {
		unsigned b = base[s];
		char name[16], ip[20];

		ob_bridge(o, 0, 2 + s, b, b + 6);
		ob_bridge(o, b, 0, b + 1, b + 6);
		for (unsigned k = 0; k < 3; k++)
			ob_bridge(o, b + 1, k, b + 3 + k, b + 3 + k);
		for (unsigned k = 0; k < 2; k++)
			strcpy(ob_pci_add(o, b + 3 + k, 0, 0x10de, 0x2330, PCI_KIND_GPU)->driver, "nvidia");
		snprintf(name, sizeof(name), "eth%u", s + 1);
		snprintf(ip, sizeof(ip), "10.0.%u.3", 16 + s);
		ob_nic(o, b + 5, 0, name);
		ob_link(o, name, 8244, ip);
	}
	ob_finish(o);
}

static inline struct obs_link *ob_link_get(struct observation *o, const char *name)
{
	return (struct obs_link *)observation_link_find(o, name);
}
