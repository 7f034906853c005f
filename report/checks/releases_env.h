/* releases_env.h - each release's NCCL variable set (the release notes' "NCCL configs"), TCPXO and TCPX. */
#pragma once

#include <stddef.h>

#include "report/checks/releases.h"

enum releases_env_kind {
	RELEASES_ENV_REQUIRED = 0,      /* the plugin's configuration: a workload sets it (or sources the profile) */
	RELEASES_ENV_OPTIONAL,          /* logging and visibility knobs; NCCL_NVLS_ENABLE=1 (not in the profile) */
	RELEASES_ENV_LIB_FILE,          /* required, and its value names a file the installer writes into lib64 */
};

struct releases_env {
	const char *name;
	const char *value;              /* the notes' value; for LIB_FILE the file's name in lib64 */
	enum releases_env_kind kind;
};

/**
 * releases_env_of() - the NCCL variables of one release, from the "NCCL configs" block of its
 * release notes (releases_env.c says which notes), in the notes' order. LIB_FILE values are the
 * file's name: the notes put it in "the NCCL lib directory installed inside the workload
 * container", the container's own mount of the NVIDIA path.
 * @t: the table in effect (NULL: the built-in one): the release must be in it. A row of a
 *     --releases file takes the set of the same release of the notes.
 * @ret_n: the number of entries, 0 when none.
 *
 * Return: the set (static, never freed); NULL when the release is not in @t, or the notes give
 * no set for it (the source-only tags v1.0.13, v1.0.16, v1.0.17; a release newer than the agent).
 */
const struct releases_env *releases_env_of(const struct releases *t, enum releases_fabric fabric,
					   const char *installer_tag, size_t *ret_n);

/*
 * releases_env_latest() - the newest TCPXO release's set (v1.0.14 and v1.0.15): what a workload
 * is held to when the installed release is unknown or has no set. Static.
 */
const struct releases_env *releases_env_latest(size_t *ret_n);
