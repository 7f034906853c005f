/* test_infile.c - agent/infile.c: bounded reads of command-line input files; a FIFO never hangs. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent/infile.h"

static char dir[] = "/tmp/test_infile.XXXXXX";

static int setup(void **state)
{
	/* A hang is the failure this file looks for: turn it into a loud exit, not a stuck suite. */
	alarm(20);
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd);
}

static void write_file(const char *path, const char *text, size_t len)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	fclose(f);
}

static int read_it(const char *path, size_t max, unsigned flags, char **text, size_t *len, char *why, size_t whylen)
{
	*text = NULL;
	*len = 0;
	why[0] = '\0';
	return infile_read(path, max, flags, text, len, why, whylen);
}

static void test_regular(void **state)
{
	char path[96], why[256], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/f", dir);
	write_file(path, "hello", 5);
	assert_int_equal(read_it(path, 5, 0, &text, &len, why, sizeof(why)), 0);
	assert_int_equal(len, 5);
	assert_string_equal(text, "hello");     /* NUL-terminated */
	free(text);

	/* One byte over the limit is refused; exactly the limit is read. */
	assert_int_equal(read_it(path, 4, 0, &text, &len, why, sizeof(why)), -EFBIG);
	assert_null(text);
	assert_string_equal(why, "larger than 4 bytes");

	write_file(path, "", 0);
	assert_int_equal(read_it(path, 4, 0, &text, &len, why, sizeof(why)), 0);
	assert_int_equal(len, 0);
	assert_string_equal(text, "");
	free(text);
}

static void test_refused(void **state)
{
	char path[96], why[256], *text;
	size_t len;

	assert_int_equal(read_it(dir, 100, INFILE_STREAM, &text, &len, why, sizeof(why)), -EISDIR);
	assert_string_equal(why, "is a directory");
	snprintf(path, sizeof(path), "%s/absent", dir);
	assert_int_equal(read_it(path, 100, 0, &text, &len, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, "cannot open: No such file or directory");
	assert_int_equal(read_it("/dev/null", 100, 0, &text, &len, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a regular file");
	/* "-" is a file name unless INFILE_STDIN says otherwise. */
	assert_int_equal(read_it("-", 100, 0, &text, &len, why, sizeof(why)), -ENOENT);
}

/* A FIFO with no writer: refused at once without INFILE_STREAM, read as empty with it. */
static void test_fifo_never_hangs(void **state)
{
	char path[96], why[256], *text;
	size_t len;

	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	assert_int_equal(read_it(path, 100, 0, &text, &len, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "not a regular file");
	assert_int_equal(read_it(path, 100, INFILE_STREAM, &text, &len, why, sizeof(why)), 0);
	assert_int_equal(len, 0);
	free(text);
}

/* A pipe with a writer is read to its end, in pieces larger than one read. */
static void test_stream(void **state)
{
	char path[96], why[256], *text;
	size_t len, total = 200000;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/fifo2", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char buf[1000];
		int fd = open(path, O_WRONLY);

		memset(buf, 'x', sizeof(buf));
		for (size_t i = 0; fd >= 0 && i < total / sizeof(buf); i++)
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
				_exit(1);
		_exit(fd < 0);
	}
	/* The writer may not have opened yet: then the read sees EOF early; retry until it did. */
	for (int i = 0; i < 100; i++) {
		assert_int_equal(read_it(path, total, INFILE_STREAM, &text, &len, why, sizeof(why)), 0);
		if (len)
			break;
		free(text);
		usleep(10000);
	}
	assert_int_equal(len, total);
	assert_int_equal(text[total - 1], 'x');
	free(text);
	waitpid(pid, NULL, 0);
}

static void test_stdin(void **state)
{
	char why[256], *text;
	int fds[2], saved;
	size_t len;

	assert_int_equal(pipe(fds), 0);
	assert_int_equal(write(fds[1], "{\"items\":[]}", 12), 12);
	close(fds[1]);
	saved = dup(STDIN_FILENO);
	dup2(fds[0], STDIN_FILENO);
	close(fds[0]);
	assert_int_equal(read_it("-", 100, INFILE_STDIN | INFILE_STREAM, &text, &len, why, sizeof(why)), 0);
	dup2(saved, STDIN_FILENO);
	close(saved);
	assert_int_equal(len, 12);
	assert_string_equal(text, "{\"items\":[]}");
	free(text);
}

/* A command's input: a directory or an oversized file is said to be no such input; "-" is named stdin. */
static void test_input_kind(void **state)
{
	char path[96], why[256] = "", *text = NULL;
	size_t len = 0;

	assert_int_equal(infile_read_input(dir, 4, "NodeList", &text, &len, why, sizeof(why)), -EISDIR);
	assert_string_equal(why, "is a directory, not a NodeList file");
	snprintf(path, sizeof(path), "%s/big", dir);
	write_file(path, "hello", 5);
	assert_int_equal(infile_read_input(path, 4, "NodeList", &text, &len, why, sizeof(why)), -EFBIG);
	assert_string_equal(why, "larger than 4 bytes: not a NodeList this command reads");
	assert_null(text);
	assert_int_equal(infile_read_input(path, 5, "NodeList", &text, &len, why, sizeof(why)), 0);
	assert_string_equal(text, "hello");
	free(text);
	assert_string_equal(infile_name("-"), "stdin");
	assert_string_equal(infile_name(path), path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_regular),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_fifo_never_hangs),
		cmocka_unit_test(test_stream),
		cmocka_unit_test(test_stdin),
		cmocka_unit_test(test_input_kind),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
