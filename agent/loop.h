/* loop.h - the daemon loop: one poll() over netlink, uevents, inotify, signals and timers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "agent/cli.h"
#include "agent/publish.h"

/**
 * loop_run() - run the daemon until SIGTERM or SIGINT: observe now (with an API: after the start
 * jitter, once the API facts came), publish on change, then re-observe on netlink, uevent,
 * inotify and API watch events (debounced; --no-watch: read the API every opt->interval),
 * resync the API every opt->interval, back off after API failures, wake at least every 10 s
 * to touch opt->health_file.
 * @pb: an open publisher (pb->http NULL: observe and log only).
 * Return: 0 after SIGTERM/SIGINT; -errno when the loop cannot run (its message logged).
 */
int loop_run(const struct cli_options *opt, struct publisher *pb);
