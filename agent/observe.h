/* observe.h - run every probe into one observation. */
#pragma once

#include "agent/cli.h"
#include "probes/model/observation.h"

/**
 * observe_node() - run the node-side probes (PCI, links, host files) under opt->root.
 * A failing probe is recorded in its status; the others still run.
 * @ret: filled in every case; free with observation_free().
 *
 * Return: 0 when the core of the node (PCI bus and links) was observed; -EIO when it was not
 * (the report then says why; --once exits 2).
 */
int observe_node(const struct cli_options *opt, struct observation *ret);
