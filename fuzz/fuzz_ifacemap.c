/* fuzz_ifacemap.c - the interfaces annotation (tcpxoInterfaces JSON list): parse, validate, print. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "report/checks/ifacemap.h"
#include "report/render/render_mapping.h"

int fuzz_one(const uint8_t *data, size_t size)
{
	struct profile_iface *v = NULL;
	struct strbuf why = { 0 };
	size_t n = 0;
	char *json;

	if (ifacemap_parse((const char *)data, size, &v, &n) < 0)
		return 0;
	ifacemap_validate(v, n, &why);
	json = render_mapping_json(v, n);
	if (json) {
		/* What we print must parse back to the same number of entries. */
		struct profile_iface *v2 = NULL;
		size_t n2 = 0;

		if (ifacemap_parse(json, strlen(json), &v2, &n2) < 0 || n2 != n)
			abort();
		free(v2);
		free(json);
	}
	strbuf_free(&why);
	free(v);
	return 0;
}
