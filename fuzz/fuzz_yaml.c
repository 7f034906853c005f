/* fuzz_yaml.c - the YAML adapter: load any bytes as documents, walk each tree, print it and read it back as JSON. */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "probes/model/json.h"
#include "probes/model/yaml.h"

static void fuzz_yaml_walk(const struct json *v)
{
	double d;
	bool b;

	json_string(v);
	json_number(v, &d);
	json_bool(v, &b);
	for (const struct json *m = json_first(v); m; m = json_next(m)) {
		json_key(m);
		fuzz_yaml_walk(m);
	}
}

/* Each document as it ends: walked, printed, and read back as JSON. */
static int fuzz_yaml_doc(void *ctx, struct json *doc, size_t index, size_t line, char *err, size_t errlen)
{
	struct json *back = NULL;
	char *out;

	fuzz_yaml_walk(doc);
	out = json_print(doc, false);
	/* Every tree the adapter builds is JSON the JSON adapter reads back. */
	if (out && json_parse(out, strlen(out), &back) < 0)
		abort();
	json_free(back);
	free(out);
	json_free(doc);
	return 0;
}

int fuzz_one(const uint8_t *data, size_t size)
{
	struct json *one = NULL;
	char err[256];

	if (yaml_load_each((const char *)data, size, 0, fuzz_yaml_doc, NULL, err, sizeof(err)) < 0 &&
	    !memchr(err, '\0', sizeof(err)))
		abort();        /* the message is always terminated */
	if (yaml_load_one((const char *)data, size, &one, err, sizeof(err)) == 0)
		json_free(one);
	return 0;
}
