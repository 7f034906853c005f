/* flapin.h - the link flap input: netlink events and dumped link states into flap.c's history, with the log lines of held and released links. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "agent/flap.h"
#include "probes/host/links.h"
#include "probes/model/observation.h"

/* The netlink notifications of @lw's last drain, in order, into @f's history (a link held is logged). */
void flapin_events(struct flap *f, const struct links_watch *lw, uint64_t now);

/*
 * Bring @f up to the observation @o: when its links were @dumped, a state that differs from the
 * last known one is a change a notification has not told yet (or one lost), and links gone are
 * forgotten. Then release what is stable (logged) and hand the held links to the checks in o->flaps.
 */
void flapin_observed(struct flap *f, struct observation *o, bool dumped, uint64_t now);
