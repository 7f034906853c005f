/* test_token.c - probes/kube/token.c: the bearer token file, read bounded, re-read on change, never a hang. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/kube/token.h"

static char dir[] = "/tmp/test_token.XXXXXX";

static int setup(void **state)
{
	alarm(20);      /* a blocked read is the failure this file looks for */
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_parse(void **state)
{
	char *t = NULL;

	assert_int_equal(token_parse("abc.def-_x\n", 11, &t), 0);
	assert_string_equal(t, "abc.def-_x");   /* the newline editors leave is stripped */
	free(t);
	assert_int_equal(token_parse(" \r\n\t", 4, &t), -ENODATA);
	assert_int_equal(token_parse("", 0, &t), -ENODATA);
	assert_int_equal(token_parse("ab cd", 5, &t), -EBADMSG);
	assert_int_equal(token_parse("ab\ncd", 5, &t), -EBADMSG);       /* would split the header */
	assert_int_equal(token_parse("ab\x7f", 3, &t), -EBADMSG);
}

static void test_refresh(void **state)
{
	struct token t;
	char path[96], next[100], err[256] = "";

	snprintf(path, sizeof(path), "%s/token", dir);
	snprintf(next, sizeof(next), "%s.new", path);
	assert_int_equal(token_init(&t, path), 0);
	/* Absent, nothing to keep: an error naming the file, never the token. */
	assert_int_equal(token_refresh(&t, false, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "token file "));
	assert_non_null(strstr(err, "No such file"));

	put(path, "first\n");
	assert_int_equal(token_refresh(&t, false, err, sizeof(err)), 0);
	assert_string_equal(t.value, "first");
	/* Replaced (new inode, as a projected volume swaps it): read again. */
	put(next, "second\n");
	assert_int_equal(rename(next, path), 0);
	assert_int_equal(token_refresh(&t, false, err, sizeof(err)), 0);
	assert_string_equal(t.value, "second");

	/* Turned bad or vanished: the last good value is kept, no error. */
	put(path, "\n");
	assert_int_equal(token_refresh(&t, true, err, sizeof(err)), 0);
	assert_string_equal(t.value, "second");
	unlink(path);
	assert_int_equal(token_refresh(&t, true, err, sizeof(err)), 0);
	assert_string_equal(t.value, "second");
	token_clear(&t);
	token_clear(&t);        /* twice is harmless */
	token_clear(NULL);
}

/* A FIFO, a directory, an empty or huge file, with no value to keep: refused at once. */
static void test_refused(void **state)
{
	struct token t;
	char path[96], err[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(token_init(&t, path), 0);
	assert_int_equal(token_refresh(&t, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "not a regular file"));
	token_clear(&t);

	assert_int_equal(token_init(&t, dir), 0);
	assert_int_equal(token_refresh(&t, false, err, sizeof(err)), -EINVAL);
	token_clear(&t);

	snprintf(path, sizeof(path), "%s/empty", dir);
	put(path, "");
	assert_int_equal(token_init(&t, path), 0);
	assert_int_equal(token_refresh(&t, false, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "empty"));
	token_clear(&t);

	snprintf(path, sizeof(path), "%s/huge", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	for (unsigned i = 0; i <= TOKEN_MAX; i++)
		fputc('a', f);
	fclose(f);
	assert_int_equal(token_init(&t, path), 0);
	assert_int_equal(token_refresh(&t, false, err, sizeof(err)), -EFBIG);
	assert_non_null(strstr(err, "larger than 64 KiB"));
	token_clear(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_refresh),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
