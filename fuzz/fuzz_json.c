/* fuzz_json.c - the JSON adapter: parse any bytes, walk the tree, print it and parse that back. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/model/json.h"

/* Touch every value the way the parsers do (bounded: the adapter bounds depth). */
static void fuzz_json_walk(const struct json *v)
{
	double d;
	bool b;

	json_type_name(json_type(v));
	json_string(v);
	json_number(v, &d);
	json_bool(v, &b);
	json_size(v);
	for (const struct json *m = json_first(v); m; m = json_next(m)) {
		json_key(m);
		fuzz_json_walk(m);
	}
}

int fuzz_one(const uint8_t *data, size_t size)
{
	struct json *v = NULL, *back = NULL;
	char *out;

	if (json_parse((const char *)data, size, &v) < 0)
		return 0;
	fuzz_json_walk(v);
	json_get(json_get(v, "metadata"), "annotations");
	out = json_print(v, false);
	if (out) {
		/* What we print must parse again. */
		if (json_parse(out, strlen(out), &back) < 0)
			abort();
		json_free(back);
		free(out);
	}
	json_free(v);
	return 0;
}
