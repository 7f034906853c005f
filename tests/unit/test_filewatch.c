/* test_filewatch.c - one input file followed through its directory: which names concern it, and real inotify on a temporary directory. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/filewatch.h"

static void test_concerns(void **state)
{
	(void)state;
	assert_true(filewatch_concerns("releases.json", "releases.json", 13));
	assert_true(filewatch_concerns("releases.json", "releases.json\0\0\0", 16));     /* NUL padded */
	assert_true(filewatch_concerns("releases.json", "..data", 6));
	assert_true(filewatch_concerns("releases.json", "", 0));          /* the directory itself */
	assert_false(filewatch_concerns("releases.json", "releases.json.tmp", 17));
	assert_false(filewatch_concerns("releases.json", "releases.jso", 12));
	assert_false(filewatch_concerns("releases.json", "..data_tmp", 10));
	assert_false(filewatch_concerns("releases.json", "..2026_12_05_00_00_00.1", 23));
	assert_false(filewatch_concerns("releases.json", "other.json", 10));
}

static void put(const char *dir, const char *name, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static void at(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/%s", dir, name);
}

/* A ConfigMap volume's update, a rename over the file, an edit in place: each seen; a neighbour's change is not. */
static void test_inotify(void **state)
{
	char dir[] = "/tmp/test_filewatch.XXXXXX", path[512], a[512], b[512];
	struct filewatch *w = NULL;
	char err[256];
	bool lost = false;

	(void)state;
	assert_non_null(mkdtemp(dir));
	at(a, sizeof(a), dir, "..2026_1");
	assert_int_equal(mkdir(a, 0755), 0);
	put(a, "releases.json", "one");
	at(b, sizeof(b), dir, "..data");
	assert_int_equal(symlink("..2026_1", b), 0);
	at(path, sizeof(path), dir, "releases.json");
	assert_int_equal(symlink("..data/releases.json", path), 0);

	assert_int_equal(filewatch_open(path, &w, err, sizeof(err)), 0);
	assert_true(filewatch_fd(w) >= 0);
	assert_int_equal(filewatch_drain(w, &lost), 0);

	/* Another key of the same ConfigMap, written beside: not ours. */
	put(dir, "other.json", "x");
	assert_int_equal(filewatch_drain(w, &lost), 0);

	/* The kubelet's swap: ..data_tmp -> the new directory, renamed over ..data. */
	at(a, sizeof(a), dir, "..2026_2");
	assert_int_equal(mkdir(a, 0755), 0);
	put(a, "releases.json", "two");
	at(a, sizeof(a), dir, "..data_tmp");
	assert_int_equal(symlink("..2026_2", a), 0);
	assert_int_equal(filewatch_drain(w, &lost), 0);         /* a new directory, ..data_tmp: nothing yet */
	assert_int_equal(rename(a, b), 0);
	assert_true(filewatch_drain(w, &lost) >= 1);

	/* A file renamed over it (atomic replace), then edited in place. */
	put(dir, "new.tmp", "three");
	at(a, sizeof(a), dir, "new.tmp");
	assert_int_equal(filewatch_drain(w, &lost), 0);
	assert_int_equal(rename(a, path), 0);
	assert_true(filewatch_drain(w, &lost) >= 1);
	put(dir, "releases.json", "four");
	assert_true(filewatch_drain(w, &lost) >= 1);
	assert_false(lost);

	/* The directory goes: the watch ends, and says so. */
	for (size_t i = 0; i < 2; i++) {
		const char *sub = i ? "..2026_2" : "..2026_1";

		snprintf(a, sizeof(a), "%s/%s/releases.json", dir, sub);
		unlink(a);      /* ..2026_2's was replaced through the link, not removed */
		at(a, sizeof(a), dir, sub);
		assert_int_equal(rmdir(a), 0);
	}
	assert_int_equal(unlink(b), 0);
	assert_int_equal(unlink(path), 0);
	at(a, sizeof(a), dir, "other.json");
	assert_int_equal(unlink(a), 0);
	assert_int_equal(rmdir(dir), 0);
	filewatch_drain(w, &lost);
	assert_true(lost);
	filewatch_free(w);
}

static void test_open_errors(void **state)
{
	struct filewatch *w = NULL;
	char err[256] = "";

	(void)state;
	assert_int_equal(filewatch_open("/nonexistent-dir-of-test/releases.json", &w, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "/nonexistent-dir-of-test"));
	assert_null(w);
	assert_int_equal(filewatch_open("/tmp/", &w, err, sizeof(err)), -EINVAL);
	assert_int_equal(filewatch_open("", &w, err, sizeof(err)), -EINVAL);
	filewatch_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_concerns),
		cmocka_unit_test(test_inotify),
		cmocka_unit_test(test_open_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
