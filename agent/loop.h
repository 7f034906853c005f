/* loop.h - the daemon loop: one poll() over netlink, uevents, inotify, signals and timers. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "agent/cli.h"
#include "agent/publish.h"
#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

#define LOOP_NICS_MAX 32        /* NIC states remembered for change logs (a node has 8 or 4) */

/* What the last evaluation said, kept between iterations to tell what changed. */
struct loop_verdict {
	bool valid;
	bool ready;
	enum profile_kind kind;
	enum check_status status[CHECK__COUNT];
	char *message[CHECK__COUNT];    /* owned */
	size_t n_nics;
	struct {
		char bdf[OBS_BDF_MAX];
		char name[OBS_IFNAME_MAX];
		enum nic_state state;
	} nics[LOOP_NICS_MAX];
};

/**
 * loop_verdict_set() - remember @p in @v (replacing what @v held).
 * Return: 0; -ENOMEM (then @v is left invalid, so the next change is logged in full).
 */
int loop_verdict_set(struct loop_verdict *v, const struct profile *p);

void loop_verdict_free(struct loop_verdict *v);

/**
 * loop_verdict_diff() - pure: what changed from @old to @p, as one line of text appended to
 * @out, e.g. "ready true→false; links pass→fail: eth3 is down; nics: eth3 up→down".
 * Return: the number of differences (0: nothing the report shows changed); -ENOMEM.
 */
int loop_verdict_diff(const struct loop_verdict *old, const struct profile *p, struct strbuf *out);

/**
 * loop_run() - run the daemon until SIGTERM or SIGINT: observe now, read the API now,
 * publish on change (the first write after the start jitter), then re-observe on netlink,
 * uevent and inotify events (debounced), resync the API every opt->interval, back off after
 * API failures, wake at least every 10 s to touch opt->health_file.
 * @pb: an open publisher (pb->http NULL: observe and log only).
 * Return: 0 after SIGTERM/SIGINT; -errno when the loop cannot run (its message logged).
 */
int loop_run(const struct cli_options *opt, struct publisher *pb);
