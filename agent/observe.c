/* observe.c - run every probe into one observation; one failing probe never drops the rest. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "agent/log.h"
#include "agent/observe.h"
#include "probes/host/cmdline.h"
#include "probes/host/hostprobe.h"
#include "probes/host/links.h"
#include "probes/host/pcitopo.h"

static bool observe_said_full_dump;

int observe_node(const struct cli_options *opt, struct observation *ret)
{
	struct observation *o = ret;
	struct links_stats ls;

	memset(o, 0, sizeof(*o));
	snprintf(o->root, sizeof(o->root), "%s", opt->root);
	if (opt->node)
		snprintf(o->node, sizeof(o->node), "%s", opt->node);
	if (pcitopo_scan(o->root, &o->pci) >= 0)
		o->pci.status.state = PROBE_OK;
	/* Only the links the PCI functions name: the cost does not grow with the pods' veths. */
	if (links_observe(&o->pci, &o->links, &ls) >= 0)
		o->links.status.state = PROBE_OK;
	if (ls.full_dump && !observe_said_full_dump) {
		observe_said_full_dump = true;  /* once per process: the kernel does not change */
		log_emit(LOG_LEVEL_DEBUG, "netlink: full dumps", "why", ls.full_dump, NULL);
	}
	/* Host files and processes: each part carries its own status; only -ENOMEM is fatal. */
	if (hostprobe_observe(o->root, &o->pci, &o->host) < 0)
		return -ENOMEM;
	/* version-pair warns when /proc shows more daemons than the pod list accounts for. */
	for (size_t i = 0; i < o->host.procs.n; i++) {
		const struct obs_process *p = &o->host.procs.v[i];

		if (cmdline_daemon_kind(p->comm, (const char *const *)p->argv, p->argc) == CMDLINE_DAEMON_MANAGER)
			o->kube.host_daemon_processes++;
	}
	if (o->pci.status.state != PROBE_OK || o->links.status.state != PROBE_OK)
		return -EIO;
	return 0;
}
