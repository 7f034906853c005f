/* fuzz_rdma.c - the InfiniBand sysfs texts (probes/host/rdma.c): the first byte picks the port-state or the GID parser. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/host/rdma.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1)
		return 0;
	s = fuzz_strndup(data + 1, size - 1);
	if (!s)
		return 0;
	if (data[0] & 1) {
		uint8_t gid[16];
		uint32_t ip;
		int r = rdma_parse_gid(s, gid);

		if (r != 0 && r != -EINVAL)
			abort();
		/* Accepted: exactly eight groups of four hex digits, and they are the bytes parsed. */
		if (r == 0) {
			static const char hex[] = "0123456789abcdef";

			if (strlen(s) < 39 || strlen(s) > 40)
				abort();
			for (size_t i = 0; i < 16; i++)
				if (tolower((unsigned char)s[(i / 2) * 5 + (i % 2) * 2]) != hex[gid[i] >> 4] ||
				    tolower((unsigned char)s[(i / 2) * 5 + (i % 2) * 2 + 1]) != hex[gid[i] & 15])
					abort();
			(void)rdma_gid_ipv4(gid, &ip);
		}
	} else {
		char name[24];
		int n = -1, r = rdma_parse_state(s, &n, name, sizeof(name));

		if (r != 0 && r != -EINVAL)
			abort();
		if (r == 0) {
			if (n < 0 || n > 255 || !name[0] || strlen(name) >= sizeof(name))
				abort();
			for (const char *p = name; *p; p++)
				if (*p < ' ' || *p > '~')
					abort();
		}
	}
	free(s);
	return 0;
}
