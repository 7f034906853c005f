/* evaluate.h - the one entry point of the judgement: observation -> profile (pure). */
#pragma once

#include "report/checks/profile.h"

/**
 * profile_evaluate() - pure evaluation of an observation into a verdict.
 * @o: the observation (not modified).
 * @ret: written on success; free with profile_free().
 *
 * Return: 0, or -ENOMEM.
 */
int profile_evaluate(const struct observation *o, struct profile *ret);
