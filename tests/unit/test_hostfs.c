/* test_hostfs.c - host paths resolved inside the root: absolute and climbing links, loops, fifos; kernel and walk. */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
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

#include "probes/host/hostfs.h"

struct fs {
	char root[128];
	int rootfd;
};

static void fs_path(const struct fs *f, const char *rel, char *buf, size_t len)
{
	assert_true(snprintf(buf, len, "%s/%s", f->root, rel) < (int)len);
}

/* mkdir -p <root>/<rel> */
static void fs_mkdir(const struct fs *f, const char *rel)
{
	char p[PATH_MAX];

	fs_path(f, rel, p, sizeof(p));
	for (char *s = p + strlen(f->root) + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			mkdir(p, 0755);
			*s = '/';
		}
	assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
}

static void fs_write(const struct fs *f, const char *rel, const char *text)
{
	char p[PATH_MAX];
	int fd;

	fs_path(f, rel, p, sizeof(p));
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static void fs_link(const struct fs *f, const char *rel, const char *target)
{
	char p[PATH_MAX];

	fs_path(f, rel, p, sizeof(p));
	assert_int_equal(symlink(target, p), 0);
}

static int fs_rm(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(p);
}

/*
 * The tree: a host whose NVIDIA directory lives at /opt/nvidia behind an absolute link, links
 * that would leave the root (to /etc, or climbing with ".."), loops and a fifo. The root holds
 * its own etc/hostname, so "resolved inside the root" and "read from the agent's /" differ.
 */
static int fs_setup(void **state, bool walk)
{
	struct fs *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	snprintf(f->root, sizeof(f->root), "/dev/shm/test_hostfs.XXXXXX");
	if (!mkdtemp(f->root)) {
		snprintf(f->root, sizeof(f->root), "/tmp/test_hostfs.XXXXXX");
		if (!mkdtemp(f->root))
			return -1;
	}
	fs_mkdir(f, "opt/nvidia/lib64");
	fs_mkdir(f, "opt/nvidia/bin");
	fs_write(f, "opt/nvidia/lib64/libcuda.so", "in-root\n");
	fs_write(f, "opt/nvidia/bin/nvidia-smi", "");
	fs_mkdir(f, "home/kubernetes/bin");
	fs_link(f, "home/kubernetes/bin/nvidia", "/opt/nvidia");
	fs_mkdir(f, "etc");
	fs_write(f, "etc/hostname", "inside the root\n");
	fs_link(f, "to-etc", "/etc");
	fs_mkdir(f, "a/b");
	fs_link(f, "a/b/climb", "../../../../../../../etc");
	fs_link(f, "to-nowhere", "/no/such/dir");
	fs_link(f, "loop1", "loop2");
	fs_link(f, "loop2", "loop1");
	fs_link(f, "self", "self");
	fs_link(f, "empty-target", "x");
	{
		char p[PATH_MAX];

		fs_path(f, "fifo", p, sizeof(p));
		assert_int_equal(mkfifo(p, 0644), 0);
	}
	fs_link(f, "to-fifo", "/fifo");
	/* a chain of HOSTFS_LINKS_MAX links ending at a file, and one more */
	for (int i = 0; i <= HOSTFS_LINKS_MAX; i++) {
		char name[32], target[32];

		snprintf(name, sizeof(name), "chain%d", i);
		if (i == 0)
			snprintf(target, sizeof(target), "/etc/hostname");
		else
			snprintf(target, sizeof(target), "/chain%d", i - 1);
		fs_link(f, name, target);
	}
	f->rootfd = open(f->root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (f->rootfd < 0)
		return -1;
	hostfs_force_walk(walk);
	*state = f;
	return 0;
}

static int fs_setup_kernel(void **state)
{
	return fs_setup(state, false);
}

static int fs_setup_walk(void **state)
{
	return fs_setup(state, true);
}

static int fs_teardown(void **state)
{
	struct fs *f = *state;

	hostfs_force_walk(false);
	close(f->rootfd);
	nftw(f->root, fs_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(f);
	return 0;
}

static void expect_text(int rootfd, const char *path, const char *want)
{
	char buf[64];
	size_t len;
	bool trunc;

	assert_int_equal(hostfs_read(rootfd, path, buf, sizeof(buf) - 1, &len, &trunc), 0);
	buf[len] = '\0';
	assert_string_equal(buf, want);
	assert_false(trunc);
}

static void test_absolute_link_in_root(void **state)
{
	struct fs *f = *state;
	char buf[PATH_MAX];
	int err;

	assert_int_equal(hostfs_type(f->rootfd, "home/kubernetes/bin/nvidia", true, &err), OBS_FILE_DIR);
	assert_int_equal(err, 0);
	assert_int_equal(hostfs_type(f->rootfd, "home/kubernetes/bin/nvidia", false, &err), OBS_FILE_SYMLINK);
	assert_int_equal(hostfs_type(f->rootfd, "home/kubernetes/bin/nvidia/bin/nvidia-smi", true, &err),
			 OBS_FILE_REGULAR);
	expect_text(f->rootfd, "home/kubernetes/bin/nvidia/lib64/libcuda.so", "in-root\n");
	expect_text(f->rootfd, "/home/kubernetes/bin/nvidia/lib64/libcuda.so", "in-root\n");
	assert_int_equal(hostfs_realpath(f->rootfd, "home/kubernetes/bin/nvidia/lib64", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/opt/nvidia/lib64");
	assert_int_equal(hostfs_readlink(f->rootfd, "home/kubernetes/bin/nvidia", buf, sizeof(buf)), 11);
	assert_string_equal(buf, "/opt/nvidia");
	assert_int_equal(hostfs_readlink(f->rootfd, "etc/hostname", buf, sizeof(buf)), -EINVAL);
	assert_int_equal(hostfs_readlink(f->rootfd, "home/kubernetes/bin/nvidia", buf, 5), -ENAMETOOLONG);
	assert_int_equal(hostfs_realpath(f->rootfd, "", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/");
	assert_int_equal(hostfs_realpath(f->rootfd, "a/./b//..", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/a");
}

/* Links aimed out of the root land inside it: the root's etc/hostname, never the agent's. */
static void test_never_leaves_root(void **state)
{
	struct fs *f = *state;
	char buf[PATH_MAX];
	DIR *d;
	int err;

	expect_text(f->rootfd, "to-etc/hostname", "inside the root\n");
	expect_text(f->rootfd, "a/b/climb/hostname", "inside the root\n");
	expect_text(f->rootfd, "../../../../etc/hostname", "inside the root\n");
	expect_text(f->rootfd, "a/../../../etc/hostname", "inside the root\n");
	assert_int_equal(hostfs_realpath(f->rootfd, "a/b/climb", buf, sizeof(buf)), 0);
	assert_string_equal(buf, "/etc");
	/* /no/such/dir exists in neither; /etc/passwd exists only in the agent's root */
	assert_int_equal(hostfs_type(f->rootfd, "to-nowhere", true, &err), OBS_FILE_BROKEN);
	assert_int_equal(err, -ENOENT);
	assert_int_equal(hostfs_type(f->rootfd, "to-etc/passwd", true, &err), OBS_FILE_ABSENT);
	assert_int_equal(hostfs_opendir(f->rootfd, "to-etc", &d), 0);
	{
		struct dirent *de;
		size_t n = 0;

		while ((de = readdir(d)))
			n += de->d_name[0] != '.';
		assert_int_equal(n, 1);         /* hostname: the root's etc, not /etc */
	}
	closedir(d);
}

static void test_loops_and_limits(void **state)
{
	struct fs *f = *state;
	char buf[PATH_MAX], name[32];
	int err;

	assert_int_equal(hostfs_type(f->rootfd, "loop1", true, &err), OBS_FILE_BROKEN);
	assert_int_equal(err, -ELOOP);
	assert_int_equal(hostfs_type(f->rootfd, "self/x", true, &err), OBS_FILE_BROKEN);
	assert_int_equal(hostfs_type(f->rootfd, "loop1", false, &err), OBS_FILE_SYMLINK);
	/* chainN needs N+1 links (the last is chain0 -> /etc/hostname) */
	snprintf(name, sizeof(name), "chain%d", HOSTFS_LINKS_MAX - 1);
	assert_int_equal(hostfs_type(f->rootfd, name, true, &err), OBS_FILE_REGULAR);
	snprintf(name, sizeof(name), "chain%d", HOSTFS_LINKS_MAX);
	assert_int_equal(hostfs_type(f->rootfd, name, true, &err), OBS_FILE_BROKEN);
	assert_int_equal(err, -ELOOP);
	assert_int_equal(hostfs_realpath(f->rootfd, "loop2", buf, sizeof(buf)), -ELOOP);
	assert_int_equal(hostfs_type(f->rootfd, "empty-target", true, &err), OBS_FILE_BROKEN);
	assert_int_equal(hostfs_type(f->rootfd, "etc/hostname/x", true, &err), OBS_FILE_ABSENT);
	assert_int_equal(err, -ENOTDIR);
	assert_int_equal(hostfs_open(f->rootfd, "etc/hostname", O_PATH | O_DIRECTORY), -ENOTDIR);
}

/* Nothing blocks: a fifo is refused before anything is opened for reading. */
static void test_fifo_never_blocks(void **state)
{
	struct fs *f = *state;
	char buf[16];
	size_t len;
	bool trunc;
	DIR *d;
	int err;

	alarm(10);
	assert_int_equal(hostfs_read(f->rootfd, "fifo", buf, sizeof(buf), &len, &trunc), -EINVAL);
	assert_int_equal(hostfs_open_file_at(f->rootfd, "fifo", 0, NULL), -EINVAL);
	assert_int_equal(hostfs_read(f->rootfd, "to-fifo", buf, sizeof(buf), &len, &trunc), -ELOOP);
	assert_int_equal(hostfs_opendir(f->rootfd, "fifo", &d), -ENOTDIR);
	assert_int_equal(hostfs_type(f->rootfd, "to-fifo", true, &err), OBS_FILE_OTHER);
	assert_int_equal(hostfs_read(f->rootfd, "opt", buf, sizeof(buf), &len, &trunc), -EINVAL);
	assert_int_equal(hostfs_read(f->rootfd, "none", buf, sizeof(buf), &len, &trunc), -ENOENT);
	alarm(0);
}

static void test_read_sizes(void **state)
{
	struct fs *f = *state;
	char buf[16];
	size_t len = 99;
	bool trunc = true;

	fs_write(f, "f", "0123456789");
	assert_int_equal(hostfs_read(f->rootfd, "f", buf, 8, &len, &trunc), 0);
	assert_int_equal(len, 8);
	assert_true(trunc);
	assert_int_equal(hostfs_read(f->rootfd, "f", buf, 10, &len, &trunc), 0);
	assert_int_equal(len, 10);
	assert_false(trunc);
}

/* One directory resolved inside the root, then its own entries: never a link followed, never "..". */
static void test_in_resolved_dir(void **state)
{
	static const char *const names[] = { "libcuda.so", "sub", "fifo", "link", "none" };
	struct fs *f = *state;
	struct stat st[2];
	mode_t type[5];
	char buf[16];
	size_t len;
	bool trunc;
	DIR *d;
	int dfd;

	alarm(10);
	fs_mkdir(f, "opt/nvidia/lib64/sub");
	fs_link(f, "opt/nvidia/lib64/link", "/etc");
	{
		char p[PATH_MAX];

		fs_path(f, "opt/nvidia/lib64/fifo", p, sizeof(p));
		assert_int_equal(mkfifo(p, 0644), 0);
	}
	/* through the absolute link, inside the root */
	dfd = hostfs_open(f->rootfd, "home/kubernetes/bin/nvidia/lib64", O_RDONLY | O_DIRECTORY);
	assert_true(dfd >= 0);
	assert_int_equal(hostfs_read_at(dfd, "libcuda.so", 0, buf, sizeof(buf) - 1, &len, &trunc), 0);
	buf[len] = '\0';
	assert_string_equal(buf, "in-root\n");
	assert_false(trunc);
	assert_int_equal(hostfs_read_at(dfd, "libcuda.so", 0, buf, 3, &len, &trunc), 0);
	assert_int_equal(len, 3);
	assert_true(trunc);
	assert_int_equal(hostfs_read_at(dfd, "libcuda.so", 0, buf, 8, &len, &trunc), 0);
	assert_int_equal(len, 8);
	assert_false(trunc);
	assert_int_equal(hostfs_read_at(dfd, "fifo", 0, buf, sizeof(buf), &len, &trunc), -EINVAL);
	assert_int_equal(hostfs_read_at(dfd, "link", 0, buf, sizeof(buf), &len, &trunc), -ELOOP);
	assert_int_equal(hostfs_read_at(dfd, "none", 0, buf, sizeof(buf), &len, &trunc), -ENOENT);
	/* a type the caller states is checked, not trusted to be regular */
	assert_int_equal(hostfs_open_file_at(dfd, "libcuda.so", S_IFIFO, NULL), -EINVAL);
	assert_int_equal(hostfs_open_file_at(dfd, "../lib64/libcuda.so", 0, NULL), -EINVAL);
	assert_int_equal(hostfs_open_file_at(dfd, "..", 0, NULL), -EINVAL);
	/* The directory as a root of its own: its link to /etc and its ".." never leave it. */
	assert_int_equal(hostfs_opendir(dfd, "sub", &d), 0);
	closedir(d);
	assert_int_equal(hostfs_opendir(dfd, "link", &d), -ENOENT);
	assert_int_equal(hostfs_opendir(dfd, "fifo", &d), -ENOTDIR);
	assert_int_equal(hostfs_opendir(dfd, "..", &d), 0);
	assert_int_equal(fstat(dirfd(d), &st[0]), 0);
	assert_int_equal(fstat(dfd, &st[1]), 0);
	assert_true(st[0].st_ino == st[1].st_ino && st[0].st_dev == st[1].st_dev);
	closedir(d);
	assert_int_equal(hostfs_list_types(dfd, names, 5, type), 0);
	assert_int_equal(type[0], S_IFREG);
	assert_int_equal(type[1], S_IFDIR);
	assert_int_equal(type[2], S_IFIFO);
	assert_int_equal(type[3], S_IFLNK);
	assert_int_equal(type[4], HOSTFS_TYPE_ABSENT);
	close(dfd);
	alarm(0);
}

static void test_join(void **state)
{
	char buf[8];

	assert_int_equal(hostfs_join(buf, sizeof(buf), "dev", "x"), 0);
	assert_string_equal(buf, "dev/x");
	assert_int_equal(hostfs_join(buf, sizeof(buf), "", "x"), 0);
	assert_string_equal(buf, "x");
	assert_int_equal(hostfs_join(buf, sizeof(buf), "dev", "toolong"), -ENAMETOOLONG);
	assert_string_equal(buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_absolute_link_in_root, fs_setup_kernel, fs_teardown),
		cmocka_unit_test_setup_teardown(test_never_leaves_root, fs_setup_kernel, fs_teardown),
		cmocka_unit_test_setup_teardown(test_loops_and_limits, fs_setup_kernel, fs_teardown),
		cmocka_unit_test_setup_teardown(test_fifo_never_blocks, fs_setup_kernel, fs_teardown),
		cmocka_unit_test_setup_teardown(test_read_sizes, fs_setup_kernel, fs_teardown),
		cmocka_unit_test_setup_teardown(test_absolute_link_in_root, fs_setup_walk, fs_teardown),
		cmocka_unit_test_setup_teardown(test_never_leaves_root, fs_setup_walk, fs_teardown),
		cmocka_unit_test_setup_teardown(test_loops_and_limits, fs_setup_walk, fs_teardown),
		cmocka_unit_test_setup_teardown(test_fifo_never_blocks, fs_setup_walk, fs_teardown),
		cmocka_unit_test_setup_teardown(test_read_sizes, fs_setup_walk, fs_teardown),
		cmocka_unit_test_setup_teardown(test_in_resolved_dir, fs_setup_kernel, fs_teardown),
		cmocka_unit_test_setup_teardown(test_in_resolved_dir, fs_setup_walk, fs_teardown),
		cmocka_unit_test(test_join),
	};

	if (!hostfs_kernel_resolution())
		print_message("note: no openat2() here: both halves use hostfs's own walk\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
