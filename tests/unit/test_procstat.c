/* test_procstat.c - the process_* figures: /proc/<pid>/stat, /proc/stat's btime and limits parsed (procstat), read from a procfs (procself). */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/host/procself.h"
#include "probes/host/procstat.h"

/* A stat line as Linux 6.x writes it; comm "tcpxo) (agent" holds ") (" and a space. */
#define STAT_LINE "4242 (tcpxo) (agent) S 1 4242 4242 0 -1 4194560 1500 0 3 0 " \
	"250 125 0 0 20 0 4 0 98765 11657216 1542 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0\n"

static int parse_stat(const char *text, unsigned long long btime, struct procstat *ps, char *err)
{
	memset(ps, 0, sizeof(*ps));
	return procstat_parse_stat(text, strlen(text), 100, 4096, btime, ps, err, 256);
}

static void test_stat(void **state)
{
	struct procstat ps;
	char err[256] = "";

	assert_int_equal(parse_stat(STAT_LINE, 1700000000, &ps, err), 0);
	assert_int_equal(ps.have, PROCSTAT_CPU | PROCSTAT_START | PROCSTAT_RESIDENT | PROCSTAT_VIRTUAL);
	assert_true(ps.cpu_seconds > 3.749 && ps.cpu_seconds < 3.751);         /* (250 + 125) / 100 */
	assert_true(ps.start_time > 1700000987.649 && ps.start_time < 1700000987.651);  /* 98765 ticks */
	assert_int_equal(ps.virtual_bytes, 11657216);
	assert_int_equal(ps.resident_bytes, 1542ull * 4096);
	/* Without the boot time there is no start time, rather than one counted from 1970. */
	assert_int_equal(parse_stat(STAT_LINE, 0, &ps, err), 0);
	assert_int_equal(ps.have & PROCSTAT_START, 0);
	assert_true(ps.have & PROCSTAT_CPU);
}

/* The same process gives the same start time at every scrape: whole ticks, no clock read. */
static void test_stat_start_stable(void **state)
{
	struct procstat a, b;
	char err[256];

	assert_int_equal(parse_stat(STAT_LINE, 1700000000, &a, err), 0);
	assert_int_equal(parse_stat(STAT_LINE, 1700000000, &b, err), 0);
	assert_memory_equal(&a.start_time, &b.start_time, sizeof(a.start_time));
}

static void test_stat_malformed(void **state)
{
	static const struct {
		const char *text, *why;
	} cases[] = {
		{ "", "no \"(comm)\"" },
		{ "4242 tcpxo S 1", "no \"(comm)\"" },
		{ "4242 (tcpxo) S 1 4242 4242 0 -1 4194560 1500 0 3 0 250\n", "ends before field 15" },
		{ "4242 (tcpxo) S 1 4242 4242 0 -1 4194560 1500 0 3 0 x 125 0 0 20 0 4 0 98765 11657216 1542\n",
		  "field 14 is not a number" },
		{ "4242 (tcpxo) S 1 4242 4242 0 -1 4194560 1500 0 3 0 -250 125 0 0 20 0 4 0 98765 11657216 1542\n",
		  "field 14 is not a number" },
		{ "4242 (tcpxo) S 1 4242 4242 0 -1 4194560 1500 0 3 0 250 125 0 0 20 0 4 0 98765 11657216 1542x\n",
		  "field 24 is not a number" },
		{ "4242 (tcpxo) S 1 4242 4242 0 -1 4194560 1500 0 3 0 99999999999999999999 125 0 0 20 0 4 0 1 1 1\n",
		  "field 14 is not a number" },
		{ "4242 (tcpxo)  1 4242", "field 3 (state) is empty" },
		{ "4242 (tcpxo) S 1 ", "field 5 is not a number" },  /* the text ends after a separator (a fuzz find) */
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct procstat ps;
		char err[256] = "";

		assert_int_equal(parse_stat(cases[i].text, 1700000000, &ps, err), -EBADMSG);
		if (!strstr(err, cases[i].why))
			fail_msg("case %zu: \"%s\" does not say \"%s\"", i, err, cases[i].why);
		assert_int_equal(ps.have, 0);
	}
	{
		struct procstat ps = { 0 };
		char err[256] = "";

		assert_int_equal(procstat_parse_stat(STAT_LINE, strlen(STAT_LINE), 0, 4096, 1, &ps, err, sizeof(err)),
				 -EBADMSG);
	}
}

static void test_btime(void **state)
{
	static const char stat[] = "cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 123 0 0 0\nctxt 99\nbtime 1796571902\nprocesses 5\n";
	unsigned long long b = 0;

	assert_int_equal(procstat_parse_btime(stat, strlen(stat), &b), 0);
	assert_int_equal(b, 1796571902ull);
	/* A read cut inside the btime line, a file without it, a malformed one. */
	assert_int_equal(procstat_parse_btime(stat, strlen(stat) - 17, &b), -ENOENT);
	assert_int_equal(procstat_parse_btime("cpu 1\n", 6, &b), -ENOENT);
	assert_int_equal(procstat_parse_btime("btime x\n", 8, &b), -EBADMSG);
	assert_int_equal(procstat_parse_btime("btime 0\n", 8, &b), -EBADMSG);
	assert_int_equal(procstat_parse_btime("btimes 5\n", 9, &b), -ENOENT);
}

static void test_limits(void **state)
{
	static const char limits[] =
		"Limit                     Soft Limit           Hard Limit           Units     \n"
		"Max cpu time              unlimited            unlimited            seconds   \n"
		"Max open files            20000                1048576              files     \n"
		"Max locked memory         8388608              8388608              bytes     \n";
	static const char unlimited[] = "Max open files            unlimited            unlimited            files     \n";
	unsigned long long n = 0;

	assert_int_equal(procstat_parse_limits(limits, strlen(limits), &n), 0);
	assert_int_equal(n, 20000);             /* the soft limit: what open() is held to */
	assert_int_equal(procstat_parse_limits(unlimited, strlen(unlimited), &n), -ENOENT);
	assert_int_equal(procstat_parse_limits("Max open files            x  files\n", 35, &n), -EBADMSG);
	assert_int_equal(procstat_parse_limits("Limit   Soft\n", 13, &n), -ENOENT);
}

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* A procfs of our making: every figure from its files, the fd directory counted; then the files gone. */
static void test_read_fixture(void **state)
{
	char dir[] = "/dev/shm/test-procstat.XXXXXX", path[512];
	unsigned long long btime = 0;
	struct procstat ps;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/self", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/self/fd", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	put(dir, "stat", "cpu  1 2 3\nbtime 1700000000\n");
	put(dir, "self/stat", STAT_LINE);
	put(dir, "self/limits", "Max open files            4096                 4096                 files     \n");
	for (int i = 1000; i < 1005; i++) {
		char name[32];

		snprintf(name, sizeof(name), "self/fd/%d", i);
		put(dir, name, "");
	}
	procself_read(dir, &btime, &ps);
	assert_int_equal(btime, 1700000000ull);
	assert_int_equal(ps.have, PROCSTAT_CPU | PROCSTAT_START | PROCSTAT_RESIDENT | PROCSTAT_VIRTUAL |
				  PROCSTAT_OPEN_FDS | PROCSTAT_MAX_FDS);
	assert_int_equal(ps.open_fds, 5);
	assert_int_equal(ps.max_fds, 4096);
	assert_int_equal(ps.virtual_bytes, 11657216);
	/* The boot time is kept: stat is not read again (here: gone, and the start time still there). */
	snprintf(path, sizeof(path), "%s/stat", dir);
	assert_int_equal(unlink(path), 0);
	procself_read(dir, &btime, &ps);
	assert_true(ps.have & PROCSTAT_START);
	/* Unreadable files: their figures are left out, nothing fails. */
	snprintf(path, sizeof(path), "%s/self/stat", dir);
	assert_int_equal(unlink(path), 0);
	put(dir, "self/limits", "garbage\n");
	procself_read(dir, &btime, &ps);
	assert_int_equal(ps.have, PROCSTAT_OPEN_FDS);
	for (int i = 1000; i < 1005; i++) {
		snprintf(path, sizeof(path), "%s/self/fd/%d", dir, i);
		assert_int_equal(unlink(path), 0);
	}
	snprintf(path, sizeof(path), "%s/self/limits", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/self/fd", dir);
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/self", dir);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* This process's own /proc: every figure, within what is true of any running process. */
static void test_read_self(void **state)
{
	unsigned long long btime = 0;
	struct procstat ps;
	int fd = open("/dev/null", O_RDONLY), fd2 = open("/dev/null", O_RDONLY);
	unsigned long long open_before;

	procself_read("/proc", &btime, &ps);
	assert_int_equal(ps.have, PROCSTAT_CPU | PROCSTAT_START | PROCSTAT_RESIDENT | PROCSTAT_VIRTUAL |
				  PROCSTAT_OPEN_FDS | PROCSTAT_MAX_FDS);
	assert_true(btime > 0);
	assert_true(ps.start_time >= (double)btime && ps.start_time <= (double)time(NULL) + 1);
	assert_true(ps.resident_bytes > 0 && ps.virtual_bytes >= ps.resident_bytes);
	assert_true(ps.open_fds >= 5 && ps.open_fds <= ps.max_fds);    /* 0-2 and the two just opened */
	open_before = ps.open_fds;
	close(fd2);
	procself_read("/proc", &btime, &ps);
	assert_int_equal(ps.open_fds, open_before - 1);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stat),
		cmocka_unit_test(test_stat_start_stable),
		cmocka_unit_test(test_stat_malformed),
		cmocka_unit_test(test_btime),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_read_fixture),
		cmocka_unit_test(test_read_self),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
