/* kubefacts.h - what the node checks read from the pod list: releases, the installer, container states (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/observation.h"
#include "report/checks/releases.h"

/* The release table in effect: --releases, else the built-in one. */
const struct releases *kubefacts_releases(const struct obs_kube *k);

/*
 * kubefacts_version_of() - the release of a container's image: a digest the table knows (the
 * running imageID first: it is what actually runs), else the tag as written, else "" (unknown).
 * The string is owned by @k or by the table.
 */
const char *kubefacts_version_of(const struct obs_kube *k, const struct kube_container *ct);
