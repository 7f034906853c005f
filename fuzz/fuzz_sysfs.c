/* fuzz_sysfs.c - sysfs and host-file text: BDF names, numa_node, vendor/device/class ids, lib64 names. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/host/bar4.h"
#include "probes/host/hostfiles.h"
#include "probes/host/pcitopo.h"

#define FUZZ_SYSFS_VERSION_MAX 64

int fuzz_one(const uint8_t *data, size_t size)
{
	char *s = fuzz_strndup(data, size), *second, ver[FUZZ_SYSFS_VERSION_MAX];
	struct pcitopo_name name;
	int numa;
	uint16_t id;

	if (!s)
		return 0;
	pcitopo_parse_bdf(s, &name);
	numa = pcitopo_parse_numa(s);
	if (numa < -1 || numa > 4095)
		abort();
	bar4_parse_id(s, size, &id);
	for (unsigned digits = 0; digits <= 9; digits++) {
		uint32_t v;

		if (pcitopo_parse_hex(s, strlen(s), digits, &v) == 0 && digits < 8 && v >> (4 * digits))
			abort();        /* more digits than allowed were taken */
	}
	hostfiles_relevant(s);
	hostfiles_is_resource(s);
	hostfiles_nccl_version(s, ver, sizeof(ver));
	hostfiles_nccl_version(s, ver, 1);
	/*
	 * Two file names, split at the first newline: their versions compared as the probe sorts
	 * them (hostfiles_version_cmp() takes only what hostfiles_nccl_version() accepted).
	 */
	second = strchr(s, '\n');
	if (second) {
		char ver2[FUZZ_SYSFS_VERSION_MAX];

		*second++ = '\0';
		if (hostfiles_nccl_version(s, ver, sizeof(ver)) == 0 &&
		    hostfiles_nccl_version(second, ver2, sizeof(ver2)) == 0) {
			int ab = hostfiles_version_cmp(ver, ver2), ba = hostfiles_version_cmp(ver2, ver);

			if ((ab < 0 && ba <= 0) || (ab > 0 && ba >= 0) || (ab == 0 && ba != 0))
				abort();
		}
	}
	free(s);
	return 0;
}
