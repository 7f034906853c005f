/* obs_host.h - host files, device nodes and processes seen under --root (filled by probes/host*). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Issue 3 extends this with aperture entries, device nodes, host path, plugin files, processes. */
struct obs_host {
	int placeholder_unused;
};

void obs_host_free(struct obs_host *h);
