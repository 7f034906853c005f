/* observe.c - run every probe into one observation; one failing probe never drops the rest. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agent/observe.h"
#include "probes/hostprobe.h"
#include "probes/links.h"
#include "probes/pcitopo.h"

int observe_node(const struct cli_options *opt, struct observation *ret)
{
	struct observation *o = ret;

	memset(o, 0, sizeof(*o));
	snprintf(o->root, sizeof(o->root), "%s", opt->root);
	if (opt->node)
		snprintf(o->node, sizeof(o->node), "%s", opt->node);
	if (pcitopo_scan(o->root, &o->pci) >= 0)
		o->pci.status.state = PROBE_OK;
	if (links_dump(&o->links) >= 0)
		o->links.status.state = PROBE_OK;
	/* Host files and processes: each part carries its own status; only -ENOMEM is fatal. */
	if (hostprobe_observe(o->root, &o->pci, &o->host) < 0)
		return -ENOMEM;
	if (o->pci.status.state != PROBE_OK || o->links.status.state != PROBE_OK)
		return -EIO;
	return 0;
}
