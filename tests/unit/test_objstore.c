/* test_objstore.c - the object store: key order, list fill and its errors, watch events, limits, sameness, the list document. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "probes/kube/objstore.h"

#define MAX 100

static const char *meta_of(const struct json *obj, const char *field)
{
	return json_get_string(json_get(obj, "metadata"), field);
}

static int fill(struct objstore *s, const char *body, size_t max, char *rv, char *err)
{
	return objstore_parse_list(body, body ? strlen(body) : 0, max, s, rv, 64, err, 200);
}

/* Apply one event line (@type, @ns/@name at @rv); returns objstore_apply()'s answer. */
static int event(struct objstore *s, const char *type, const char *ns, const char *name, const char *rv, size_t max)
{
	struct watchevent ev;
	char line[512], err[200] = "";
	int k;

	snprintf(line, sizeof(line), "{\"type\":\"%s\",\"object\":{\"kind\":\"Pod\",\"metadata\":{\"name\":\"%s\"%s%s%s,"
		 "\"resourceVersion\":\"%s\"}}}", type, name, ns ? ",\"namespace\":\"" : "", ns ? ns : "",
		 ns ? "\"" : "", rv);
	if (watchevent_parse(line, strlen(line), &ev, err, sizeof(err)) != 0)
		fail_msg("%s: %s", line, err);
	k = objstore_apply(s, &ev, max);
	watchevent_free(&ev);
	return k;
}

/* The names in key order, joined by spaces. */
static void names_are(const struct objstore *s, const char *want)
{
	char got[512] = "";

	for (size_t i = 0; i < s->n; i++) {
		const struct json *o = s->v[i].obj;

		snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%s/%s", i ? " " : "",
			 meta_of(o, "namespace") ? meta_of(o, "namespace") : "", meta_of(o, "name"));
	}
	assert_string_equal(got, want);
}

static void test_list_sorted(void **state)
{
	struct objstore s = { 0 };
	char rv[64] = "", err[200] = "";

	(void)state;
	assert_int_equal(fill(&s, "{\"metadata\":{\"resourceVersion\":\"10\"},\"items\":["
			      "{\"metadata\":{\"name\":\"p2\",\"namespace\":\"ml\",\"resourceVersion\":\"8\"}},"
			      "{\"metadata\":{\"name\":\"node-b\",\"resourceVersion\":\"3\"}},"
			      "{\"metadata\":{\"name\":\"p1\",\"namespace\":\"ml\",\"resourceVersion\":\"9\"}},"
			      "{\"metadata\":{\"name\":\"p0\",\"namespace\":\"default\",\"resourceVersion\":\"7\"}},"
			      "{\"metadata\":{\"name\":\"p2\",\"namespace\":\"ml\",\"resourceVersion\":\"11\"}}]}",
			      MAX, rv, err), 0);
	assert_string_equal(rv, "10");
	/* Cluster-scoped objects key as "/name" and so come first; a repeated key keeps the last. */
	names_are(&s, "/node-b default/p0 ml/p1 ml/p2");
	assert_string_equal(meta_of(objstore_find(&s, "ml", "p2"), "resourceVersion"), "11");
	assert_non_null(objstore_find(&s, NULL, "node-b"));
	assert_non_null(objstore_find(&s, "", "node-b"));
	assert_null(objstore_find(&s, "ml", "node-b"));
	assert_null(objstore_find(&s, "ml", "p3"));
	assert_null(objstore_find(&s, "ml", NULL));
	objstore_clear(&s);
	assert_int_equal(s.n, 0);
	objstore_clear(&s);                                     /* cleared twice: still empty */

	/* items absent or null: an empty collection */
	assert_int_equal(fill(&s, "{\"metadata\":{\"resourceVersion\":\"4\"}}", MAX, rv, err), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(fill(&s, "{\"metadata\":{\"resourceVersion\":\"5\"},\"items\":null}", MAX, rv, err), 0);
	assert_string_equal(rv, "5");
	assert_int_equal(s.n, 0);
}

static void list_bad(const char *body, int want, const char *why)
{
	struct objstore s = { 0 };
	char rv[64] = "", err[200] = "";

	assert_int_equal(fill(&s, body, MAX, rv, err), want);
	if (!strstr(err, why))
		fail_msg("%s: error \"%s\" does not say \"%s\"", body ? body : "(null)", err, why);
	objstore_clear(&s);
}

static void test_list_malformed(void **state)
{
	char name[300];
	char body[800];

	(void)state;
	list_bad(NULL, -EINVAL, "not a JSON object");
	list_bad("[1]", -EINVAL, "not a JSON object");
	list_bad("{\"items\":[", -EINVAL, "not a JSON object");
	list_bad("{\"items\":[]}", -EINVAL, "metadata.resourceVersion");
	list_bad("{\"metadata\":{\"resourceVersion\":\"1&watch=0\"},\"items\":[]}", -EINVAL, "metadata.resourceVersion");
	list_bad("{\"metadata\":{\"resourceVersion\":7},\"items\":[]}", -EINVAL, "metadata.resourceVersion");
	list_bad("{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":{}}", -EINVAL, "items: expected an array, got object");

	/* One item that cannot be kept (no object, no name) is set aside, counted; the rest read. */
	{
		struct objstore s = { 0 };
		char rv[64], err[200] = "";

		assert_int_equal(fill(&s, "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{\"metadata\":{\"name\":\"a\"}},7,"
				      "{\"metadata\":{\"name\":\"\"}},{\"metadata\":{}},{\"metadata\":{\"name\":\"b\",\"namespace\":3}},"
				      "{\"metadata\":{\"name\":\"c\"}}]}", MAX, rv, err), 0);
		assert_int_equal(s.n, 2);
		assert_int_equal(s.aside, 4);
		assert_non_null(objstore_find(&s, NULL, "a"));
		assert_non_null(objstore_find(&s, NULL, "c"));
		objstore_clear(&s);
	}
	/* Names are kept as sent, whatever their length: the parsers judge them, not the store. */
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	snprintf(body, sizeof(body), "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{\"metadata\":{\"name\":\"%s\","
		 "\"namespace\":\"%s\"}}]}", name, name);
	{
		struct objstore s = { 0 };
		char rv[64], err[200];

		assert_int_equal(fill(&s, body, MAX, rv, err), 0);
		assert_non_null(objstore_find(&s, name, name));
		assert_null(objstore_find(&s, name, "a"));
		objstore_clear(&s);
	}
}

static void test_list_limit(void **state)
{
	static const char three[] = "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":["
		"{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}},{\"metadata\":{\"name\":\"a\"}}]}";
	static const char four[] = "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":["
		"{\"metadata\":{\"name\":\"a\"}},{\"metadata\":{\"name\":\"b\"}},{\"metadata\":{\"name\":\"c\"}}]}";
	struct objstore s = { 0 };
	char rv[64], err[200] = "";

	(void)state;
	assert_int_equal(fill(&s, three, 2, rv, err), 0);       /* a repeated key replaces: two objects */
	assert_int_equal(s.n, 2);
	objstore_clear(&s);
	assert_int_equal(fill(&s, four, 2, rv, err), -E2BIG);
	assert_string_equal(err, "more objects than the limit");
	objstore_clear(&s);
}

static void test_events(void **state)
{
	struct objstore s = { 0 };

	(void)state;
	assert_int_equal(event(&s, "ADDED", "ml", "p2", "5", MAX), 1);
	assert_int_equal(event(&s, "ADDED", "ml", "p1", "6", MAX), 1);
	assert_int_equal(event(&s, "MODIFIED", "default", "p9", "7", MAX), 1);     /* unknown: added */
	names_are(&s, "default/p9 ml/p1 ml/p2");
	assert_int_equal(event(&s, "MODIFIED", "ml", "p1", "8", MAX), 1);
	assert_string_equal(meta_of(objstore_find(&s, "ml", "p1"), "resourceVersion"), "8");
	assert_int_equal(event(&s, "ADDED", "ml", "p1", "9", MAX), 1);             /* known: replaced */
	assert_string_equal(meta_of(objstore_find(&s, "ml", "p1"), "resourceVersion"), "9");
	assert_int_equal(s.n, 3);

	assert_int_equal(event(&s, "DELETED", "ml", "p1", "10", MAX), 1);
	names_are(&s, "default/p9 ml/p2");
	assert_int_equal(event(&s, "DELETED", "ml", "p1", "11", MAX), 0);          /* absent: nothing changes */
	assert_int_equal(event(&s, "DELETED", "other", "p2", "12", MAX), 0);       /* the namespace is in the key */
	names_are(&s, "default/p9 ml/p2");
	assert_int_equal(event(&s, "DELETED", "default", "p9", "13", MAX), 1);
	assert_int_equal(event(&s, "DELETED", "ml", "p2", "14", MAX), 1);
	names_are(&s, "");
	assert_int_equal(event(&s, "DELETED", "ml", "p2", "15", MAX), 0);          /* from an empty store */
	assert_int_equal(event(&s, "ADDED", NULL, "node-a", "16", MAX), 1);        /* cluster-scoped */
	assert_non_null(objstore_find(&s, NULL, "node-a"));
	objstore_clear(&s);
}

static void test_event_limit_and_kinds(void **state)
{
	struct objstore s = { 0 };
	struct watchevent ev;
	char err[200];
	static const char bookmark[] = "{\"type\":\"BOOKMARK\",\"object\":{\"kind\":\"Pod\",\"metadata\":"
		"{\"resourceVersion\":\"20\"}}}";

	(void)state;
	assert_int_equal(event(&s, "ADDED", "ml", "a", "1", 2), 1);
	assert_int_equal(event(&s, "ADDED", "ml", "b", "2", 2), 1);
	assert_int_equal(event(&s, "ADDED", "ml", "c", "3", 2), -E2BIG);
	names_are(&s, "ml/a ml/b");                             /* left as it was */
	assert_int_equal(event(&s, "MODIFIED", "ml", "b", "4", 2), 1);             /* full, but known: replaced */
	assert_string_equal(meta_of(objstore_find(&s, "ml", "b"), "resourceVersion"), "4");
	assert_int_equal(event(&s, "DELETED", "ml", "a", "5", 2), 1);
	assert_int_equal(event(&s, "ADDED", "ml", "c", "6", 2), 1);                /* room again */
	names_are(&s, "ml/b ml/c");

	assert_int_equal(watchevent_parse(bookmark, strlen(bookmark), &ev, err, sizeof(err)), 0);
	assert_int_equal(objstore_apply(&s, &ev, 2), -EINVAL);
	watchevent_free(&ev);
	assert_int_equal(s.n, 2);
	objstore_clear(&s);
}

static void test_same_and_move(void **state)
{
	struct objstore a = { 0 }, b = { 0 };

	(void)state;
	assert_true(objstore_same(&a, &b));                     /* both empty */
	event(&a, "ADDED", "ml", "p1", "5", MAX);
	event(&a, "ADDED", "ml", "p2", "6", MAX);
	assert_false(objstore_same(&a, &b));
	event(&b, "ADDED", "ml", "p2", "6", MAX);
	event(&b, "ADDED", "ml", "p1", "5", MAX);
	assert_true(objstore_same(&a, &b));                     /* the order they came in does not matter */
	event(&b, "MODIFIED", "ml", "p1", "7", MAX);
	assert_false(objstore_same(&a, &b));                    /* a newer resourceVersion differs */
	event(&b, "MODIFIED", "ml", "p1", "5", MAX);
	assert_true(objstore_same(&a, &b));
	event(&b, "DELETED", "ml", "p1", "8", MAX);
	event(&b, "ADDED", "ml", "p0", "5", MAX);
	assert_false(objstore_same(&a, &b));                    /* another key at the same versions */

	objstore_move(&a, &b);                                  /* a's objects freed, b's taken */
	names_are(&a, "ml/p0 ml/p2");
	names_are(&b, "");
	assert_true(objstore_same(&b, &(struct objstore){ 0 }));
	event(&b, "ADDED", "ml", "x", "1", MAX);                /* the emptied store is usable */
	names_are(&b, "ml/x");
	objstore_clear(&a);
	objstore_clear(&b);
}

static void test_same_needs_versions(void **state)
{
	struct objstore a = { 0 }, b = { 0 };
	char rv[64], err[200];
	static const char norv[] = "{\"metadata\":{\"resourceVersion\":\"1\"},\"items\":[{\"metadata\":{\"name\":\"a\"}}]}";

	(void)state;
	assert_int_equal(fill(&a, norv, MAX, rv, err), 0);
	assert_int_equal(fill(&b, norv, MAX, rv, err), 0);
	assert_false(objstore_same(&a, &b));                    /* no resourceVersion: cannot be told unchanged */
	objstore_clear(&a);
	objstore_clear(&b);
}

/* The objects in key order, whatever order the events came in: what the parsers are handed (kubefeed). */
static void test_objects_in_order(void **state)
{
	struct objstore s = { 0 };
	char *json;

	(void)state;
	event(&s, "ADDED", "ml", "p2", "8", MAX);
	event(&s, "ADDED", "ml", "p1", "9", MAX);
	assert_int_equal(s.n, 2);
	json = json_print(s.v[0].obj, false);
	assert_string_equal(json, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"p1\",\"namespace\":\"ml\",\"resourceVersion\":\"9\"}}");
	free(json);
	assert_string_equal(json_get_string(json_get(s.v[1].obj, "metadata"), "name"), "p2");
	objstore_clear(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_list_sorted),
		cmocka_unit_test(test_list_malformed),
		cmocka_unit_test(test_list_limit),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_event_limit_and_kinds),
		cmocka_unit_test(test_same_and_move),
		cmocka_unit_test(test_same_needs_versions),
		cmocka_unit_test(test_objects_in_order),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
