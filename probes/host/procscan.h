/* procscan.h - the daemon processes found in <root>/proc (comm and cmdline). */
#pragma once

#include "probes/model/obs_host.h"

/*
 * procscan_scan() - find the TCPXO/TCPX daemon processes under @rootfd's proc, fill @ret and
 * set its status. Return: 0 or -ENOMEM (then the part is left empty and freed).
 */
int procscan_scan(int rootfd, struct obs_procs *ret);
