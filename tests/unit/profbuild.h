/* profbuild.h - evaluated profiles in memory for the renderers' unit tests (no observation behind them). */
#pragma once

#include <string.h>

#include "report/checks/profile.h"

/* A profile of @kind, ready unless none, every check passing with message "ok"; @summary is borrowed. */
static inline void profbuild_init(struct profile *p, enum profile_kind kind, const char *summary)
{
	memset(p, 0, sizeof(*p));
	p->kind = kind;
	p->ready = kind != PROFILE_NONE;
	p->summary = (char *)summary;
	for (int i = 0; i < CHECK__COUNT; i++) {
		p->checks[i].status = CHECK_PASS;
		p->checks[i].message = (char *)"ok";
	}
}

/* Check @id fails: the profile is not ready. */
static inline void profbuild_fail(struct profile *p, enum check_id id)
{
	p->checks[id].status = CHECK_FAIL;
	p->ready = false;
}
