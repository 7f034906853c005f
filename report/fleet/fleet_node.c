/* fleet_node.c - a fleet's published facts as the node facts of the workload checker. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/checks/attach_node.h"
#include "report/fleet/fleet_node.h"

/* The most frequent whole number of @g, 0 when none (or not a small number). */
static unsigned fleet_node_count(const struct fleet_groups *g)
{
	const char *s = fleet_groups_top(g);
	char *end;
	unsigned long v;

	if (!s)
		return 0;
	v = strtoul(s, &end, 10);
	return *end || v > 64 ? 0 : (unsigned)v;
}

static void fleet_node_versions(const struct fleet_facts *ff, const struct releases *t, struct attach_node *n)
{
	const char *installer = fleet_groups_top(&ff->installers), *expected = fleet_groups_top(&ff->expected_daemons);
	enum releases_fabric fabric = ff->kind == PROFILE_TCPX ? RELEASES_FABRIC_TCPX : RELEASES_FABRIC_TCPXO;

	if (!installer) {
		snprintf(n->versions_why, sizeof(n->versions_why), "no node publishes its installed plugin release "
			 "(attachment versions.installer)");
		return;
	}
	snprintf(n->installer, sizeof(n->installer), "%s", installer);
	/* What the nodes' own tables say first: they judged their version pair with it. */
	if (!expected)
		expected = releases_expected_daemon(t ? t : releases_builtin(), fabric, installer);
	if (expected)
		snprintf(n->expected_daemon, sizeof(n->expected_daemon), "%s", expected);
	else
		snprintf(n->versions_why, sizeof(n->versions_why),
			 "installer %s is not in the release table: the daemon it pairs with is unknown", installer);
}

void fleet_node_build(const struct fleet_facts *ff, const struct releases *t, struct attach_node *ret)
{
	struct attach_node *n = ret;

	memset(n, 0, sizeof(*n));
	n->kind = ff->kind;
	n->releases = t;
	n->gpus = fleet_node_count(&ff->gpus);
	n->gpu_nics = fleet_node_count(&ff->nics);
	if (ff->ifaces_known) {
		memcpy(n->ifaces, ff->ifaces, sizeof(n->ifaces));
		n->n_ifaces = ff->n_ifaces;
		n->ifaces_known = true;
	} else {
		snprintf(n->ifaces_why, sizeof(n->ifaces_why), "%s",
			 ff->kind == PROFILE_TCPX ? "TCPX nodes publish no mapping" : "the fleet publishes no one mapping (see mapping)");
	}
	fleet_node_versions(ff, t, n);
	attach_node_set_devices(n, ff->kind, n->gpus ? n->gpus : 8);
	n->injector = ATTACH_INJECTOR_UNKNOWN;
	snprintf(n->injector_found, sizeof(n->injector_found), "each node's daemon-pod check judges it; the fleet's "
		 "annotations do not say");
}
