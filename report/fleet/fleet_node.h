/* fleet_node.h - the node facts a runtime's pod templates are judged against, built from what a fleet published (pure). */
#pragma once

#include "report/checks/attach.h"
#include "report/checks/releases.h"
#include "report/fleet/fleet.h"

/**
 * fleet_node_build() - struct attach_node from the fleet's facts, for attach_judge(): the
 * fabric; the GPU and GPU NIC counts most nodes publish (0, the profile's shape, when none does);
 * the mapping when the fleet publishes one (else unknown, saying why); the installer most nodes
 * run and the daemon it pairs with (the nodes' expectedDaemon, else the release table's); the
 * daemon's device list for that GPU count; the NRI device injector and the plugin's files as
 * unknown (each node's own daemon-pod and plugin-files checks judge those).
 * @t: the release table in effect (NULL: built in).
 * @ret: written in every case.
 */
void fleet_node_build(const struct fleet_facts *ff, const struct releases *t, struct attach_node *ret);
