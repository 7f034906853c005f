/* kubepod.h - one Pod or pod template (JSON value) -> struct pod (pure, bounded). */
#pragma once

#include <stddef.h>

#include "probes/model/json.h"
#include "probes/model/obs_pod.h"

/*
 * The API server stores a pod of up to 1.5 MiB (etcd's request limit) and bounds neither the
 * number of its containers, env entries, volumes or list entries nor the length of a command or
 * env value; it bounds the annotations to 256 KiB of keys and values in all
 * (apimachinery's objectmeta.go, TotalAnnotationSizeLimitB). So no count below can refuse a pod
 * the API server holds: every entry takes at least two bytes of the stored object (a field tag
 * and a length), so 1.5 MiB holds at most 786,432 of them. A pod over a limit is set aside by the
 * PodList parser, named, never the whole list.
 */
#define KUBEPOD_OBJECT_MAX (3u << 19)   /* 1.5 MiB: the largest object the API server stores */
#define KUBEPOD_ENTRIES_MAX (KUBEPOD_OBJECT_MAX / 2)    /* the most entries of any list such an object holds */
#define KUBEPOD_CONTAINERS_MAX KUBEPOD_ENTRIES_MAX      /* containers, and init containers, of one pod */
#define KUBEPOD_LIST_MAX KUBEPOD_ENTRIES_MAX    /* command/args entries, env entries, labels, annotations */
#define KUBEPOD_VOLUMES_MAX KUBEPOD_ENTRIES_MAX /* volumes, and mounts of one container */
#define KUBEPOD_SMALL_MAX KUBEPOD_ENTRIES_MAX   /* capabilities, tolerations, owners, affinity expressions */
#define KUBEPOD_ARG_MAX KUBEPOD_OBJECT_MAX      /* one command/args entry (a whole shell script) */
#define KUBEPOD_ENV_VALUE_MAX (64u << 10)       /* env values held; a longer one is held as unknown */
#define KUBEPOD_ANN_MAX (256u << 10)    /* one annotation value (the API's limit for all of them) */
#define KUBEPOD_NAME_MAX 253
#define KUBEPOD_PATH_MAX 4096
#define KUBEPOD_IMAGE_MAX 511
#define KUBEPOD_CONTAINER_ID_MAX 255    /* containerID: "containerd://" + 64 hex, with room */
#define KUBEPOD_GPUS_MAX 1000000000000000LL      /* 10^15: a quantity's whole value the API keeps exact (int64 milli-units) */

/**
 * kubepod_parse() - read one Pod (metadata, spec, status) or PodTemplateSpec (metadata, spec)
 * into @ret: what the attachment checks look at (see obs_pod.h), nothing else.
 * @v: the object; @where: its path for messages ("items[3]", "...template").
 * @ret: written on success; free with obs_pod_free().
 * @err: when not NULL, @errlen bytes saying what is wrong, naming the field.
 *
 * Fields the model does not hold are not looked at. Those it holds must have their API types
 * and fit the limits above; nvidia.com/gpu quantities are read by the API's grammar ("1k",
 * "1000m", "2e3", "1Ki") and must be whole numbers. An env value over
 * KUBEPOD_ENV_VALUE_MAX is not held: it reads as set, value unknown (as valueFrom).
 *
 * Return: 0; -EINVAL for a wrong type, an over-long or over-many value, or a container
 * without a name; -ENOMEM.
 */
int kubepod_parse(const struct json *v, const char *where, struct pod *ret, char *err, size_t errlen);
