/* fuzz.c - helpers shared by the fuzz targets (linked into both drivers). */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"

char *fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s) {
		memcpy(s, data, size);
		s[size] = '\0';
	}
	return s;
}
