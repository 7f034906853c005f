/* procself.h - the agent's own process figures (process_*), read from its /proc at scrape time. */
#pragma once

#include "probes/host/procstat.h"

/**
 * procself_read() - the figures of the process reading them, from @proc (its own procfs, "/proc";
 * never --root's: these are the agent's, not the host's): self/stat, self/limits, the entries of
 * self/fd (the descriptor reading that directory not counted), and the boot time from stat.
 * @btime: the boot time as a cache: 0 the first time (stat is read, and *@btime kept; /proc/stat
 * can be tens of KiB on a large machine, and the boot time never changes).
 * A file that cannot be read or parsed leaves its figures out of ret->have; nothing fails.
 */
void procself_read(const char *proc, unsigned long long *btime, struct procstat *ret);
