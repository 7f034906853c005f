/* render_mapping.h - the eth1..eth8 -> Network mapping in the runtime renderer's input formats. */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"
#include "report/checks/profile.h"

/* Compact JSON list in the renderer's shape, sorted by interface; NULL on -ENOMEM. */
char *render_mapping_json(const struct profile_iface *v, size_t n);

/* The list of @v's entries {interfaceName, network}, in @v's order; NULL on -ENOMEM. */
struct json *render_mapping_value(const struct profile_iface *v, size_t n);

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
 * @v: a mapping judged valid (the networks check's, or a coherent fleet's: ifacemap_validate()).
 * @ret: malloc'd text (caller frees).
 *
 * Return: 0; -EINVAL when @v is not of eight entries (nothing is printed); -ENOMEM.
 */
int render_mapping(const struct profile_iface *v, size_t n, enum render_mapping_format f, char **ret);
