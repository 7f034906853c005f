/* hostfiles.h - which host files the NVIDIA driver and the GPUDirect plugin installers leave (pure). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "probes/model/obs_host.h"
#include "probes/model/strbuf.h"

/* Patterns (fnmatch) in <root>/home/kubernetes/bin/nvidia/lib64, NULL-terminated lists. */
extern const char *const hostfiles_nvidia_lib64[];     /* libcuda.so*, libnvidia-ml.so* */
/*
 * The TCPXO plugin install when the release's own set is not known (REFERENCE §2): the plugin,
 * the shim, the tuner, the env profile, both configs, and an NCCL library of any version.
 */
extern const char *const hostfiles_plugin_lib64[];
/*
 * The TCPX plugin install when the release's set is not known: inferred, not published (the NCCL
 * net plugin NCCL loads by default, and the NCCL library the installer provides).
 */
extern const char *const hostfiles_tcpx_lib64[];

#define HOSTFILES_NCCL_PATTERN "libnccl.so.2.*"

/*
 * Whether the probe keeps a lib64 name: the lists above and every NCCL, plugin, tuner and
 * profile name (libnccl*, *.textproto, nccl-env-profile*.sh), so a release table may name any
 * of them.
 */
bool hostfiles_relevant(const char *name);

/* Whether a name is a PCI BAR file: "resource<N>" or "resource<N>_wc". */
bool hostfiles_is_resource(const char *name);

/**
 * hostfiles_find() - how @pattern is satisfied among @files.
 * @ret_name: when not NULL and something matched, the matching name (owned by @files).
 *
 * Return: OBS_FILE_REGULAR when a regular file (links followed) matches, else the type of
 * the first match (e.g. OBS_FILE_BROKEN for a dangling link), else OBS_FILE_ABSENT.
 */
enum obs_file_type hostfiles_find(const struct obs_host_file *files, size_t n, const char *pattern,
				  const char **ret_name);

/**
 * hostfiles_nccl_version() - the version in a file name "libnccl.so.2.28.7".
 * @buf, @len: receives "2.28.7".
 *
 * Return: 0, or -EINVAL when @name is not libnccl.so.<major>.<minor>[.<patch>...] with
 * numeric parts (the bare "libnccl.so.2" carries no version).
 */
int hostfiles_nccl_version(const char *name, char *buf, size_t len);

/* Compare two dotted numeric versions ("2.28.7" < "2.100.0"). */
int hostfiles_version_cmp(const char *a, const char *b);

/**
 * hostfiles_nccl_versions() - append the NCCL versions of the regular libnccl.so.2.* files,
 * ascending and ", "-separated, to @out.
 *
 * Return: how many, or -ENOMEM.
 */
int hostfiles_nccl_versions(const struct obs_host_file *files, size_t n, struct strbuf *out);
