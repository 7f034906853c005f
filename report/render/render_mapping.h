/* render_mapping.h - the eth1..eth8 -> Network mapping in the runtime renderer's input formats. */
#pragma once

#include <stddef.h>

#include "report/checks/profile.h"

enum render_mapping_format {
	RENDER_MAPPING_FLAG = 0,        /* eth1=<net>,...,eth8=<net> (--gke-tcpxo-interfaces) */
	RENDER_MAPPING_YAML,            /* tcpxoInterfaces: list (Helm values) */
	RENDER_MAPPING_JSON,            /* the compact JSON list */
	RENDER_MAPPING_AICRCONFIG,      /* an AICRConfig document: spec.recipe.configuration.gke.tcpxoInterfaces */
};

/* The AICRConfig schema the mapping's section belongs to (NVIDIA/aicr; earlier documents were v1alpha2). */
#define RENDER_MAPPING_AICRCONFIG_VERSION "aicr.run/v1beta1"

/**
 * render_mapping() - the mapping as the renderer takes it, sorted eth1..eth8, ending in a newline.
 * @ret: malloc'd text (caller frees).
 *
 * Return: 0; -EINVAL when @v breaks the renderer's rules (nothing is printed for such a
 * mapping); -ENOMEM.
 */
int render_mapping(const struct profile_iface *v, size_t n, enum render_mapping_format f, char **ret);
