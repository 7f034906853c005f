/* verdict.h - what the daemon remembers of its last verdict, and what changed since (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/strbuf.h"
#include "report/checks/profile.h"

#define VERDICT_NICS_MAX 32        /* NIC states remembered for change logs (a node has 8 or 4) */

/* What the last evaluation said, kept between iterations to tell what changed. */
struct verdict {
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
	} nics[VERDICT_NICS_MAX];
};

/**
 * verdict_set() - remember @p in @v (replacing what @v held).
 * Return: 0; -ENOMEM (then @v is left invalid, so the next change is logged in full).
 */
int verdict_set(struct verdict *v, const struct profile *p);

void verdict_free(struct verdict *v);

/**
 * verdict_diff() - pure: what changed from @old to @p, as one line of text appended to
 * @out, e.g. "ready true→false; links pass→fail: eth3 is down; nics: eth3 up→down".
 * Return: the number of differences (0: nothing the report shows changed); -ENOMEM.
 */
int verdict_diff(const struct verdict *old, const struct profile *p, struct strbuf *out);

/* Whether the verdict itself (profile, ready, a check's status) differs from @v's. */
bool verdict_moved(const struct verdict *v, const struct profile *p);
