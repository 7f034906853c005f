/* imageref.h - container image references and version tags (pure parsing, no I/O). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define IMAGEREF_MAX 512                /* a whole reference */
#define IMAGEREF_HOST_MAX 256           /* registry host[:port] */
#define IMAGEREF_TAG_MAX 129            /* 128 characters + NUL */
#define IMAGEREF_DIGEST_MAX 72          /* "sha256:" + 64 hex + NUL */
#define IMAGEREF_VERSION_MAX 32         /* a normalised version "v1.0.21" */

struct imageref {
	char registry[IMAGEREF_HOST_MAX];       /* "us-docker.pkg.dev", "host:5000"; "" when implied */
	char path[IMAGEREF_MAX];                /* "gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev" */
	char tag[IMAGEREF_TAG_MAX];             /* "" when none */
	char digest[IMAGEREF_DIGEST_MAX];       /* "sha256:<64 hex>", "" when none */
};

/**
 * imageref_parse() - parse "[registry/]path[:tag][@sha256:<64 hex>]" strictly.
 * The first component is the registry when it has a '.' or a ':' or is "localhost"
 * (the distribution/reference rule), so "host:5000/repo:tag" has a port, not a tag.
 * Path components are lowercase [a-z0-9] joined by '.', '_', '__' or '-' runs; tags are
 * [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}; only sha256 digests are accepted.
 * @ret: written on success.
 *
 * Return: 0; -EINVAL when @ref is NULL, empty, longer than IMAGEREF_MAX - 1 or malformed.
 */
int imageref_parse(const char *ref, struct imageref *ret);

/* The last path component ("tcpgpudmarxd-dev"). */
const char *imageref_basename(const struct imageref *r);

/**
 * imageref_digest_of() - the "sha256:<hex>" digest after the last '@' of a reference or of
 * a container status imageID ("docker-pullable://repo@sha256:...", "repo@sha256:...").
 * A bare "sha256:..." imageID is the image config ID, not a repository digest: not accepted.
 * @buf: IMAGEREF_DIGEST_MAX bytes, written on success.
 *
 * Return: 0; -ENOENT when there is no digest; -EINVAL when it is malformed.
 */
int imageref_digest_of(const char *s, char *buf, size_t len);

/**
 * imageref_version_normalize() - canonical form of a release tag for comparisons:
 * "v1.0.09" -> "v1.0.9", "v1.0.13_1" -> "v1.0.13", "v1.0.9-1" -> "v1.0.9",
 * "v1.0.6-sctp" -> "v1.0.6", "1.0.4" -> "v1.0.4". Tags are shown as written; this form is
 * only for pairing. Accepts an optional 'v', 1 to 4 numeric components (each at most 9
 * digits) and at most one build suffix ('-' or '_' and digits, or "-sctp").
 * @buf: written on success (IMAGEREF_VERSION_MAX bytes suffice).
 *
 * Return: 0; -EINVAL when @tag is not a release version ("latest", "v1.0.x-rc1"); -ENOSPC
 * when @len is too small.
 */
int imageref_version_normalize(const char *tag, char *buf, size_t len);

/*
 * imageref_version_equal() - do two tags name the same release? Compares normalised forms;
 * tags that are not versions compare as written.
 */
bool imageref_version_equal(const char *a, const char *b);

/*
 * imageref_version_cmp() - order two tags: versions numerically (v1.0.9 < v1.0.10), then
 * the written form; non-versions after versions, by strcmp. For sorting.
 */
int imageref_version_cmp(const char *a, const char *b);

/* Which of Google's GPUDirect images a reference names, by its repository's last component. */
enum imageref_component {
	IMAGEREF_OTHER = 0,
	IMAGEREF_INSTALLER,             /* .../nccl-plugin-gpudirecttcpx-dev (the NCCL plugin installer) */
	IMAGEREF_DAEMON,                /* .../tcpgpudmarxd-dev (RxDM for TCPXO, tcpgpudmarxd for TCPX) */
};

/* The fabric an image belongs to, by the folder that holds it: both use the same basenames. */
enum imageref_fabric {
	IMAGEREF_FABRIC_UNKNOWN = 0,    /* neither folder (a mirror that flattened the path) */
	IMAGEREF_FABRIC_TCPXO,          /* .../gpudirect-tcpxo/<basename> (A3 Mega) */
	IMAGEREF_FABRIC_TCPX,           /* .../gpudirect-tcpx/<basename> (A3 High, A3 Edge) */
};

enum imageref_component imageref_component(const struct imageref *r);

/* The path component right before the basename decides; anything else is UNKNOWN. */
enum imageref_fabric imageref_fabric(const struct imageref *r);

/* Whether @image (NULL: none) is the daemon's (IMAGEREF_DAEMON); its folder's fabric in @ret_fabric (may be NULL). */
bool imageref_is_daemon(const char *image, enum imageref_fabric *ret_fabric);

struct pod_container;

/*
 * imageref_gpu_container() - a container that runs with GPUs and is not a daemon: what NCCL runs
 * in. The one rule: the workload checks judge these containers, the transport probe samples them.
 */
bool imageref_gpu_container(const struct pod_container *c);
