/* kubepod.h - one Pod or pod template (JSON value) -> struct pod (pure, bounded). */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"
#include "probes/model/obs_pod.h"

#define KUBEPOD_CONTAINERS_MAX 256      /* containers, and init containers, of one pod */
#define KUBEPOD_LIST_MAX 1024           /* command/args entries, env entries, labels, annotations */
#define KUBEPOD_VOLUMES_MAX 256
#define KUBEPOD_SMALL_MAX 64            /* capabilities, tolerations, owners, affinity expressions */
#define KUBEPOD_ARG_MAX (64u << 10)     /* one command/args entry or env value (a shell script) */
#define KUBEPOD_ANN_MAX (256u << 10)    /* one annotation value (the API's limit for all of them) */
#define KUBEPOD_NAME_MAX 253
#define KUBEPOD_PATH_MAX 4096
#define KUBEPOD_IMAGE_MAX 511
#define KUBEPOD_GPUS_MAX 1000000LL

/**
 * kubepod_parse() - read one Pod (metadata, spec, status) or PodTemplateSpec (metadata, spec)
 * into @ret: what the attachment checks look at (see obs_pod.h), nothing else.
 * @v: the object; @where: its path for messages ("items[3]", "...template").
 * @ret: written on success; free with obs_pod_free().
 * @err: when not NULL, @errlen bytes saying what is wrong, naming the field.
 *
 * Fields the model does not hold are not looked at. Those it holds must have their API types
 * and fit the limits above; nvidia.com/gpu quantities must be whole numbers.
 *
 * Return: 0; -EINVAL for a wrong type, an over-long or over-many value, or a container
 * without a name; -ENOMEM.
 */
int kubepod_parse(const struct json *v, const char *where, struct pod *ret, char *err, size_t errlen);
