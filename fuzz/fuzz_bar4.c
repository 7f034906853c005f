/* fuzz_bar4.c - an aperture's resource4 bytes, its vendor/device id files, and IPv4 text. */
#include <stdlib.h>

#include "fuzz/fuzz.h"
#include "probes/host/bar4.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	uint32_t ip;
	uint16_t id;
	char *s;

	bar4_parse(data, size, &ip);
	bar4_parse_id((const char *)data, size, &id);
	s = fuzz_strndup(data, size);
	if (s) {
		bar4_parse_ipv4_text(s, &ip);
		free(s);
	}
	return 0;
}
