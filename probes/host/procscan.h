/* procscan.h - the daemon processes found in <root>/proc (comm and cmdline). */
#pragma once

#include "probes/model/obs_host.h"

/*
 * procscan_scan() - find the TCPXO/TCPX daemon processes under @rootfd's proc, fill @ret and
 * set its status. Return: 0 or -ENOMEM (then the part is left empty and freed).
 */
int procscan_scan(int rootfd, struct obs_procs *ret);

/* The pid a ROOT/proc entry name spells (digits only, at most 9 of them), or -1 for any other name. */
int procscan_pid(const char *name);
