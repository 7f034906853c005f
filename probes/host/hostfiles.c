/* hostfiles.c - which host files the NVIDIA driver and the GPUDirect plugin installers leave (pure). */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/hostfiles.h"

const char *const hostfiles_nvidia_lib64[] = { "libcuda.so*", "libnvidia-ml.so*", NULL };

const char *const hostfiles_plugin_lib64[] = {
	HOSTFILES_NCCL_PATTERN,
	"libnccl-net_internal.so",
	"nccl-env-profile.sh",
	"libnccl-tuner.so",
	"a3plus_tuner_config.textproto",
	"libnccl-net.so",
	"a3plus_guest_config.textproto",
	NULL,
};

const char *const hostfiles_tcpx_lib64[] = { "libnccl-net.so", "libnccl.so.2", NULL };

static const char *const hostfiles_keep[] = { "libnccl*", "*.textproto", "nccl-env-profile*.sh", NULL };

static bool hostfiles_match_any(const char *const *patterns, const char *name)
{
	for (; *patterns; patterns++)
		if (fnmatch(*patterns, name, FNM_PERIOD) == 0)
			return true;
	return false;
}

bool hostfiles_relevant(const char *name)
{
	return hostfiles_match_any(hostfiles_nvidia_lib64, name) ||
	       hostfiles_match_any(hostfiles_plugin_lib64, name) ||
	       hostfiles_match_any(hostfiles_keep, name);
}

bool hostfiles_is_resource(const char *name)
{
	const char *p;

	if (strncmp(name, "resource", 8) != 0 || !isdigit((unsigned char)name[8]))
		return false;
	for (p = name + 8; isdigit((unsigned char)*p); p++)
		;
	return *p == '\0' || strcmp(p, "_wc") == 0;
}

enum obs_file_type hostfiles_find(const struct obs_host_file *files, size_t n, const char *pattern,
				  const char **ret_name)
{
	const struct obs_host_file *first = NULL;

	for (size_t i = 0; i < n; i++) {
		if (fnmatch(pattern, files[i].name, FNM_PERIOD) != 0)
			continue;
		if (files[i].type == OBS_FILE_REGULAR) {
			if (ret_name)
				*ret_name = files[i].name;
			return OBS_FILE_REGULAR;
		}
		if (!first)
			first = &files[i];
	}
	if (!first)
		return OBS_FILE_ABSENT;
	if (ret_name)
		*ret_name = first->name;
	return first->type;
}

int hostfiles_nccl_version(const char *name, char *buf, size_t len)
{
	static const char prefix[] = "libnccl.so.";
	const char *v, *p;
	unsigned parts = 0;

	if (strncmp(name, prefix, sizeof(prefix) - 1) != 0)
		return -EINVAL;
	v = name + sizeof(prefix) - 1;
	for (p = v;;) {
		const char *d = p;

		while (isdigit((unsigned char)*p))
			p++;
		if (p == d || p - d > 6)
			return -EINVAL;
		parts++;
		if (*p == '\0')
			break;
		if (*p != '.')
			return -EINVAL;
		p++;
	}
	if (parts < 2 || (size_t)(p - v) >= len)
		return -EINVAL;
	memcpy(buf, v, (size_t)(p - v) + 1);
	return 0;
}

int hostfiles_version_cmp(const char *a, const char *b)
{
	while (*a || *b) {
		const char *a0 = a, *b0 = b;
		unsigned long x = strtoul(a, (char **)&a, 10);
		unsigned long y = strtoul(b, (char **)&b, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (*a == '.')
			a++;
		if (*b == '.')
			b++;
		if (!*a != !*b)
			return *a ? 1 : -1;
		/* Not a number on either side: compare the rest as text (and never loop forever). */
		if (a == a0 && b == b0) {
			int c = strcmp(a, b);

			return c < 0 ? -1 : c > 0;
		}
	}
	return 0;
}

static int hostfiles_version_qsort(const void *a, const void *b)
{
	return hostfiles_version_cmp(a, b);
}

int hostfiles_nccl_versions(const struct obs_host_file *files, size_t n, struct strbuf *out)
{
	char (*v)[32] = calloc(n ? n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		if (files[i].type == OBS_FILE_REGULAR &&
		    fnmatch(HOSTFILES_NCCL_PATTERN, files[i].name, FNM_PERIOD) == 0 &&
		    hostfiles_nccl_version(files[i].name, v[k], sizeof(v[k])) == 0)
			k++;
	qsort(v, k, sizeof(*v), hostfiles_version_qsort);
	for (size_t i = 0; i < k; i++)
		if (strbuf_appendf(out, "%s%s", i ? ", " : "", v[i]) < 0) {
			free(v);
			return -ENOMEM;
		}
	free(v);
	return (int)k;
}
