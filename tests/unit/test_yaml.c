/* test_yaml.c - probes/model/yaml.c: core-schema scalars, documents, aliases and every refusal with its position. */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/model/json.h"
#include "probes/model/yaml.h"

static char err[512];

static struct json *load_one(const char *text)
{
	struct json *v = NULL;

	err[0] = '\0';
	if (yaml_load_one(text, strlen(text), &v, err, sizeof(err)) < 0)
		fail_msg("yaml_load_one(%s): %s", text, err);
	return v;
}

/* The compact JSON of a one-document text. */
static char *as_json(const char *text)
{
	struct json *v = load_one(text);
	char *s = json_print(v, false);

	json_free(v);
	return s;
}

static void expect_json(const char *yaml, const char *want)
{
	char *got = as_json(yaml);

	if (strcmp(got, want) != 0)
		fail_msg("%s: got %s, want %s", yaml, got, want);
	free(got);
}

/* Every document of a text, kept in order (yaml_load_each()'s consumer); none after a refusal. */
struct docs {
	struct json **v;
	size_t n;
};

static void docs_free(struct docs *d)
{
	for (size_t i = 0; i < d->n; i++)
		json_free(d->v[i]);
	free(d->v);
	memset(d, 0, sizeof(*d));
}

static int docs_keep(void *ctx, struct json *doc, size_t index, size_t line, char *e, size_t elen)
{
	struct docs *d = ctx;

	(void)line, (void)e, (void)elen;
	assert_int_equal(index, d->n);
	d->v = realloc(d->v, (d->n + 1) * sizeof(*d->v));
	assert_non_null(d->v);
	d->v[d->n++] = doc;
	return 0;
}

static int load_all(const char *text, size_t len, struct docs *d, char *e, size_t elen)
{
	int r = yaml_load_each(text, len, 0, docs_keep, d, e, elen);

	if (r < 0)
		docs_free(d);
	else
		assert_int_equal((size_t)r, d->n);
	return r < 0 ? r : 0;
}

/* The text is refused with -EINVAL and a message containing @want. */
static void expect_refused(const char *text, size_t len, const char *want)
{
	struct docs d = { 0 };
	int r;

	err[0] = '\0';
	r = load_all(text, len, &d, err, sizeof(err));
	if (r != -EINVAL)
		fail_msg("%.60s: returned %d, want -EINVAL", text, r);
	if (!strstr(err, want))
		fail_msg("%.60s: message \"%s\" lacks \"%s\"", text, err, want);
	assert_int_equal(d.n, 0);
}

static void test_core_scalars(void **state)
{
	(void)state;
	expect_json("[~, null, Null, NULL, '', \"null\", !!str null]", "[null,null,null,null,\"\",\"null\",\"null\"]");
	expect_json("[true, True, TRUE, false, yes, no, on, 'true']", "[true,true,true,false,\"yes\",\"no\",\"on\",\"true\"]");
	expect_json("[0, -12, +7, 0o17, 0x1F, 0x, 012, 1_000]", "[0,-12,7,15,31,\"0x\",12,\"1_000\"]");
	expect_json("[1.5, -.5, 2e3, 1., .inf, -.Inf, .nan, 1e, .]", "[1.5,-0.5,2000,1,null,null,null,\"1e\",\".\"]");
	expect_json("[\"8\", '8', !!int \"8\", !!float 3, !!bool 'false', !!null '']", "[\"8\",\"8\",8,3,false,null]");
	expect_json("{a: , b: ~}", "{\"a\":null,\"b\":null}");
	/* Block scalars are strings; keys are the text as written. */
	expect_json("k: |\n  line 1\n  line 2\n", "{\"k\":\"line 1\\nline 2\\n\"}");
	expect_json("{1: a, true: b, null: c}", "{\"1\":\"a\",\"true\":\"b\",\"null\":\"c\"}");
	/* "<<" is an ordinary key: YAML 1.2 has no merge keys. */
	expect_json("{<<: {a: 1}}", "{\"<<\":{\"a\":1}}");
}

static void test_device_annotation(void **state)
{
	/* Google's nccl-test-latest.yaml writes the annotation as a block scalar: this is its value. */
	static const char ann[] = "- path: /dev/nvidia0\n- path: /dev/nvidia1\n- path: /dev/nvidiactl\n"
				  "- path: /dev/nvidia-uvm\n- path: /dev/dmabuf_import_helper\n";
	struct json *v = load_one(ann);
	const struct json *e;
	size_t n = 0;

	(void)state;
	assert_int_equal(json_type(v), JSON_ARRAY);
	for (e = json_first(v); e; e = json_next(e), n++)
		assert_non_null(json_get_string(e, "path"));
	assert_int_equal(n, 5);
	assert_string_equal(json_get_string(json_first(v), "path"), "/dev/nvidia0");
	json_free(v);
}

static void test_documents(void **state)
{
	/* `helm template` output: comments, "---" separators, an empty document. */
	static const char text[] = "---\n# Source: chart/templates/a.yaml\napiVersion: v1\nkind: A\n"
				   "---\n# Source: chart/templates/empty.yaml\n---\nkind: B\nlist: [1, 2]\n...\n";
	struct docs d = { 0 };
	char *s;

	(void)state;
	assert_int_equal(load_all(text, strlen(text), &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 3);
	assert_string_equal(json_get_string(d.v[0], "kind"), "A");
	assert_int_equal(json_type(d.v[1]), JSON_NULL);
	s = json_print(d.v[2], false);
	assert_string_equal(s, "{\"kind\":\"B\",\"list\":[1,2]}");
	free(s);
	docs_free(&d);

	assert_int_equal(load_all("", 0, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(load_all("# only a comment\n", 17, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 0);

	/* Not NUL-terminated: only @len bytes are read. */
	assert_int_equal(load_all("a: 1\nb: [", 5, &d, err, sizeof(err)), 0);
	assert_int_equal(d.n, 1);
	docs_free(&d);

	{
		struct json *v = NULL;

		assert_int_equal(yaml_load_one("a\n---\nb\n", 8, &v, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "more than one document");
		assert_int_equal(yaml_load_one("", 0, &v, err, sizeof(err)), -EINVAL);
		assert_string_equal(err, "no document");
	}
}

static void test_aliases(void **state)
{
	(void)state;
	expect_json("a: &x {p: 1}\nb: *x\nc: &s str\nd: *s\n",
		    "{\"a\":{\"p\":1},\"b\":{\"p\":1},\"c\":\"str\",\"d\":\"str\"}");
	/* An anchored key, and an alias used as a key. */
	expect_json("{&k name: 1, other: *k}", "{\"name\":1,\"other\":\"name\"}");
	expect_json("[&a 1, *a, &a 2, *a]", "[1,1,2,2]");

	expect_refused("a: *nope\n", 9, "line 1, column 4: alias *nope has no anchor before it");
	expect_refused("a: &r [1, *r]\n", 14, "alias *r refers to the node that contains it");
	expect_refused("{&m {a: 1}: 1}", 14, "a key that is a mapping, not a scalar");
	expect_refused("a: &m {x: 1}\n? *m\n: 2\n", 22, "a key that is not a scalar (alias *m)");
	/* Anchors do not cross documents. */
	expect_refused("a: &x 1\n---\nb: *x\n", 18, "line 3, column 4: alias *x has no anchor before it");
}

static void test_billion_laughs(void **state)
{
	struct strbuf_like { char *s; size_t len, cap; } sb = { 0 };
	char line[256];

	(void)state;
	/* Nine levels of ten aliases each: 10^9 nodes if expanded; refused at the budget. */
	sb.cap = 4096;
	sb.s = calloc(1, sb.cap);
	strcat(sb.s, "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n");
	for (char c = 'b'; c <= 'i'; c++) {
		snprintf(line, sizeof(line), "%c: &%c [*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c,*%c]\n", c, c, c - 1,
			 c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1, c - 1);
		strcat(sb.s, line);
	}
	expect_refused(sb.s, strlen(sb.s), "aliases expand to more than 100000 nodes");
	free(sb.s);
}

static void test_refusals(void **state)
{
	char deep[300];
	size_t i;

	(void)state;
	expect_refused("a: 1\nb: 2\na: 3\n", 15, "line 3, column 1: duplicate key \"a\" in a mapping");
	expect_refused("{x: 1, \"x\": 2}", 14, "duplicate key \"x\"");
	expect_refused("? [1, 2]\n: v\n", 13, "a key that is a sequence, not a scalar");
	expect_refused("a: !custom 1\n", 13, "line 1, column 4: unsupported tag !custom");
	expect_refused("a: !!set {x}\n", 13, "unsupported tag tag:yaml.org,2002:set");
	expect_refused("a: !!int x\n", 11, "\"x\" is not a value of tag !!int");
	expect_refused("a: !!bool 1\n", 12, "\"1\" is not a value of tag !!bool");
	expect_refused("a: !!map x\n", 11, "tag !!map on a scalar");
	expect_refused("a: !!seq {}\n", 12, "tag !!seq on a mapping");
	expect_refused("a: \"x\\0y\"\n", 10, "a scalar holds a NUL character");
	expect_refused("a: [1, 2\n", 9, "line 2, column 1: did not find expected ',' or ']'");
	expect_refused("a: b: c\n", 8, "mapping values are not allowed in this context");
	expect_refused("a:\n\tb: 1\n", 9, "found character that cannot start any token");
	/* Not UTF-8, and what libyaml refuses as text. */
	expect_refused("a: \xff\xfe\n", 6, "line 1, column 4: not UTF-8 text");
	expect_refused("a: \xc0\xaf\n", 6, "not UTF-8 text");
	expect_refused("\xff\xfe" "a\0:\0", 6, "UTF-16 text (byte order mark): only UTF-8 is read");
	expect_refused("a: b\x01\n", 6, "not UTF-8 text without control characters");
	expect_refused("a: b\0c\n", 7, "not UTF-8 text without control characters");
	expect_refused(NULL, 0, "no text");

	/* Depth: 64 levels below the root are JSON's limit too. */
	for (i = 0; i < 65; i++)
		deep[i] = '[';
	deep[i] = '\0';
	expect_refused(deep, strlen(deep), "nested deeper than 64 levels");
	{
		char ok[200];
		struct json *v = NULL;

		for (i = 0; i < 64; i++)
			ok[i] = '[';
		for (; i < 128; i++)
			ok[i] = ']';
		ok[i] = '\0';
		assert_int_equal(yaml_load_one(ok, strlen(ok), &v, err, sizeof(err)), 0);
		json_free(v);
	}
	/* An alias that would nest too deep where it is used. */
	{
		char t[400];
		size_t n = 0;

		n += (size_t)snprintf(t + n, sizeof(t) - n, "a: &d ");
		for (i = 0; i < 40; i++)
			t[n++] = '[';
		for (i = 0; i < 40; i++)
			t[n++] = ']';
		n += (size_t)snprintf(t + n, sizeof(t) - n, "\nb: ");
		for (i = 0; i < 30; i++)
			t[n++] = '[';
		n += (size_t)snprintf(t + n, sizeof(t) - n, "*d");
		for (i = 0; i < 30; i++)
			t[n++] = ']';
		t[n++] = '\n';
		t[n] = '\0';
		expect_refused(t, n, "alias *d nests deeper than 64 levels");
	}
}

static void test_limits(void **state)
{
	struct docs d = { 0 };
	char *big, key[YAML_KEY_MAX + 16];
	size_t n;

	(void)state;
	/* A text over the size limit is refused before parsing (the buffer is never read). */
	assert_int_equal(load_all("x", (size_t)YAML_TEXT_MAX + 1, &d, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "more than 67108864"));

	/* An explicit key ("? "): implicit ones end at 1024 characters by the YAML spec. */
	memcpy(key, "? ", 2);
	memset(key + 2, 'k', YAML_KEY_MAX + 1);
	memcpy(key + YAML_KEY_MAX + 3, "\n: 1\n", 6);
	expect_refused(key, strlen(key), "a key longer than 4096 bytes");

	/* More documents than YAML_DOCS_MAX. */
	n = (size_t)(YAML_DOCS_MAX + 1) * 6;
	big = malloc(n + 1);
	for (size_t i = 0; i < YAML_DOCS_MAX + 1; i++)
		memcpy(big + i * 6, "--- 1\n", 6);
	big[n] = '\0';
	expect_refused(big, n, "more than 10000 documents");
	free(big);

	/* A long flat mapping: the duplicate check stays linear (its last key is the duplicate). */
	n = 0;
	big = malloc(60000 * 16 + 32);
	for (int i = 0; i < 60000; i++)
		n += (size_t)sprintf(big + n, "k%d: %d\n", i, i);
	n += (size_t)sprintf(big + n, "k17: dup\n");
	expect_refused(big, n, "duplicate key \"k17\"");
	free(big);
}

static void test_no_err_buffer(void **state)
{
	struct docs d = { 0 };

	(void)state;
	assert_int_equal(load_all("a: [", 4, &d, NULL, 0), -EINVAL);
	assert_int_equal(load_all("a: 1\na: 2\n", 10, &d, NULL, 0), -EINVAL);
}

struct each {
	size_t n, lines[8];
	char *docs[8];
	int fail_at;            /* the consumer refuses this document (1-based), 0 never */
};

static int each_doc(void *ctx, struct json *doc, size_t index, size_t line, char *e, size_t elen)
{
	struct each *x = ctx;

	assert_int_equal(index, x->n);
	if (x->fail_at && (int)index + 1 == x->fail_at) {
		json_free(doc);
		snprintf(e, elen, "document %zu refused", index + 1);
		return -EBADMSG;
	}
	x->lines[x->n] = line;
	x->docs[x->n++] = json_print(doc, false);
	json_free(doc);
	return 0;
}

static void each_free(struct each *x)
{
	for (size_t i = 0; i < x->n; i++)
		free(x->docs[i]);
	memset(x, 0, sizeof(*x));
}

/* yaml_load_each(): one document at a time, with its first line; a document size limit; the consumer's errors. */
static void test_each(void **state)
{
	static const char text[] = "# Source: a.yaml\n---\na: 1\n---\n# Source: b.yaml\nb: [x, y]\n---\n";
	struct each x = { 0 };
	char big[4096];
	int r;

	assert_int_equal(yaml_load_each(text, strlen(text), 0, each_doc, &x, err, sizeof(err)), 3);
	assert_string_equal(x.docs[0], "{\"a\":1}");
	assert_string_equal(x.docs[1], "{\"b\":[\"x\",\"y\"]}");
	assert_string_equal(x.docs[2], "null");
	assert_int_equal(x.lines[0], 2);
	assert_int_equal(x.lines[1], 4);
	each_free(&x);

	/* A document over the limit is refused once the parse passes it; the ones before were handed on. */
	snprintf(big, sizeof(big), "a: 1\n---\nb: \"%0*d\"\nc: 2\n", 2000, 0);
	r = yaml_load_each(big, strlen(big), 1024, each_doc, &x, err, sizeof(err));
	assert_int_equal(r, -EINVAL);
	assert_string_equal(err, "document 2 (from line 2) is larger than 1024 bytes");
	assert_int_equal(x.n, 1);
	each_free(&x);
	assert_int_equal(yaml_load_each(big, strlen(big), 4096, each_doc, &x, err, sizeof(err)), 2);
	each_free(&x);

	/* The consumer's refusal stops the parse with its error. */
	x.fail_at = 2;
	assert_int_equal(yaml_load_each(text, strlen(text), 0, each_doc, &x, err, sizeof(err)), -EBADMSG);
	assert_string_equal(err, "document 2 refused");
	each_free(&x);

	/* Refusals of the text itself are the parser's, with their position. */
	assert_int_equal(yaml_load_each("a: [1\n", 6, 0, each_doc, &x, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "line "));
	each_free(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_core_scalars),
		cmocka_unit_test(test_device_annotation),
		cmocka_unit_test(test_documents),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_billion_laughs),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_no_err_buffer),
		cmocka_unit_test(test_each),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
