/* test_watch.c - inotify watches follow directories that appear and vanish; /dev writes never wake us. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "probes/host/watch.h"

struct test_watch {
	char root[64];
	char path[PATH_MAX];
};

/* The watch as the agent opens it: --root's fd opened by the caller (its -errno when it cannot be), handed in. */
static int open_watch(const char *root, struct watch **w)
{
	int fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC), r;

	r = watch_open(fd < 0 ? -errno : fd, root, w);
	if (fd >= 0)
		close(fd);
	return r;
}

static const char *test_watch_path(struct test_watch *t, const char *rel)
{
	snprintf(t->path, sizeof(t->path), "%s/%s", t->root, rel);
	return t->path;
}

static int test_watch_setup(void **state)
{
	struct test_watch *t = calloc(1, sizeof(*t));
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";

	snprintf(t->root, sizeof(t->root), "%s/tcpxo-watch.XXXXXX", base);
	if (!mkdtemp(t->root))
		return -1;
	*state = t;
	return 0;
}

static int test_watch_teardown(void **state)
{
	struct test_watch *t = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

static void test_missing_dirs_watch_ancestors(void **state)
{
	struct test_watch *t = *state;
	struct watch *w;
	char what[256];

	assert_int_equal(mkdir(test_watch_path(t, "dev"), 0755), 0);
	assert_int_equal(open_watch(t->root, &w), 0);
	/* aperture_devices does not exist yet: dev stands in; lib64's nearest ancestor is the root. */
	assert_string_equal(watch_watched(w, 0), test_watch_path(t, "dev"));
	assert_string_equal(watch_watched(w, 1), test_watch_path(t, "dev"));
	assert_string_equal(watch_watched(w, 2), t->root);
	assert_int_equal(watch_drain(w, what, sizeof(what)), 0);

	/* The installer creates the directory: seen, and the watch moves down to it. */
	assert_int_equal(mkdir(test_watch_path(t, "dev/aperture_devices"), 0755), 0);
	assert_true(watch_drain(w, what, sizeof(what)) >= 1);
	assert_string_equal(what, "dev/aperture_devices");
	assert_string_equal(watch_watched(w, 0), test_watch_path(t, "dev/aperture_devices"));

	assert_int_equal(mkdir(test_watch_path(t, "dev/aperture_devices/0000:00:10.0"), 0755), 0);
	assert_int_equal(watch_drain(w, what, sizeof(what)), 1);
	assert_string_equal(what, "dev/aperture_devices/0000:00:10.0");
	assert_int_equal(rmdir(test_watch_path(t, "dev/aperture_devices/0000:00:10.0")), 0);
	assert_int_equal(watch_drain(w, what, sizeof(what)), 1);

	/* The directory goes away: the watch moves back up to dev. */
	assert_int_equal(rmdir(test_watch_path(t, "dev/aperture_devices")), 0);
	assert_true(watch_drain(w, what, sizeof(what)) >= 1);
	assert_string_equal(watch_watched(w, 0), test_watch_path(t, "dev"));
	/* ... and comes back. */
	assert_int_equal(mkdir(test_watch_path(t, "dev/aperture_devices"), 0755), 0);
	assert_true(watch_drain(w, what, sizeof(what)) >= 1);
	assert_string_equal(watch_watched(w, 0), test_watch_path(t, "dev/aperture_devices"));
	watch_free(w);
}

static void test_ancestor_ignores_unrelated_entries(void **state)
{
	struct test_watch *t = *state;
	struct watch *w;
	int fd;

	assert_int_equal(open_watch(t->root, &w), 0);
	assert_string_equal(watch_watched(w, 2), t->root);
	/* Unrelated entries in a stand-in ancestor: nothing to re-observe. */
	fd = open(test_watch_path(t, "unrelated"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(watch_drain(w, NULL, 0), 0);
	/* The way down to lib64 appears step by step; the watch follows. */
	assert_int_equal(mkdir(test_watch_path(t, "home"), 0755), 0);
	assert_true(watch_drain(w, NULL, 0) >= 1);
	assert_string_equal(watch_watched(w, 2), test_watch_path(t, "home"));
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes/bin"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes/bin/nvidia"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes/bin/nvidia/lib64"), 0755), 0);
	watch_drain(w, NULL, 0);
	assert_string_equal(watch_watched(w, 2), test_watch_path(t, "home/kubernetes/bin/nvidia/lib64"));
	watch_free(w);
}

static void test_close_write_counts_in_lib64_not_dev(void **state)
{
	struct test_watch *t = *state;
	struct watch *w;
	char what[256];
	int fd;

	assert_int_equal(mkdir(test_watch_path(t, "dev"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes/bin"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes/bin/nvidia"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes/bin/nvidia/lib64"), 0755), 0);
	fd = open(test_watch_path(t, "dev/null"), O_WRONLY | O_CREAT, 0666);
	assert_true(fd >= 0);
	close(fd);
	fd = open(test_watch_path(t, "home/kubernetes/bin/nvidia/lib64/nccl-env-profile.sh"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(open_watch(t->root, &w), 0);

	/* Every process writing /dev/null would otherwise wake the agent. */
	for (int i = 0; i < 3; i++) {
		fd = open(test_watch_path(t, "dev/null"), O_WRONLY);
		assert_true(fd >= 0);
		assert_int_equal(write(fd, "x", 1), 1);
		close(fd);
	}
	assert_int_equal(watch_drain(w, what, sizeof(what)), 0);

	/* The installer rewriting a file in place counts. */
	fd = open(test_watch_path(t, "home/kubernetes/bin/nvidia/lib64/nccl-env-profile.sh"), O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "export X=1\n", 11), 11);
	close(fd);
	assert_int_equal(watch_drain(w, what, sizeof(what)), 1);
	assert_string_equal(what, "home/kubernetes/bin/nvidia/lib64/nccl-env-profile.sh");

	/* A device node appearing in dev counts. */
	fd = open(test_watch_path(t, "dev/dmabuf_import_helper"), O_WRONLY | O_CREAT, 0666);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(watch_drain(w, what, sizeof(what)), 1);
	assert_string_equal(what, "dev/dmabuf_import_helper");
	watch_free(w);
}

/*
 * The host's NVIDIA directory behind an absolute link inside the root: inotify (which follows
 * links from the agent's own /) is pointed at the directory the link means inside the root.
 */
static void test_absolute_link_inside_root(void **state)
{
	struct test_watch *t = *state;
	char want[PATH_MAX], what[256];
	struct watch *w;
	int fd;

	assert_int_equal(mkdir(test_watch_path(t, "opt"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "opt/nvidia"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "opt/nvidia/lib64"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes"), 0755), 0);
	assert_int_equal(mkdir(test_watch_path(t, "home/kubernetes/bin"), 0755), 0);
	assert_int_equal(symlink("/opt/nvidia", test_watch_path(t, "home/kubernetes/bin/nvidia")), 0);
	assert_int_equal(open_watch(t->root, &w), 0);
	snprintf(want, sizeof(want), "%s/opt/nvidia/lib64", t->root);
	assert_string_equal(watch_watched(w, 2), want);
	fd = open(test_watch_path(t, "opt/nvidia/lib64/libnccl-net.so"), O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	assert_true(watch_drain(w, what, sizeof(what)) >= 1);
	assert_string_equal(what, "opt/nvidia/lib64/libnccl-net.so");
	watch_free(w);
}

static void test_bad_root(void **state)
{
	char root[PATH_MAX];
	struct watch *w = NULL;

	memset(root, 'a', sizeof(root) - 1);
	root[0] = '/';
	root[sizeof(root) - 1] = '\0';
	assert_int_equal(open_watch(root, &w), -EINVAL);
	assert_null(w);
	/* A root that does not exist at all: nothing above it is watched in its place. */
	assert_int_equal(open_watch("/nonexistent-tcpxo-root", &w), 0);
	assert_null(watch_watched(w, 0));
	assert_null(watch_watched(w, 2));
	assert_int_equal(watch_drain(w, NULL, 0), 0);
	watch_free(w);
	/* The real root: dev is there. */
	assert_int_equal(open_watch("/", &w), 0);
	assert_string_equal(watch_watched(w, 1), "/dev");
	watch_free(w);
	watch_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_missing_dirs_watch_ancestors, test_watch_setup, test_watch_teardown),
		cmocka_unit_test_setup_teardown(test_ancestor_ignores_unrelated_entries, test_watch_setup,
						test_watch_teardown),
		cmocka_unit_test_setup_teardown(test_close_write_counts_in_lib64_not_dev, test_watch_setup,
						test_watch_teardown),
		cmocka_unit_test_setup_teardown(test_absolute_link_inside_root, test_watch_setup, test_watch_teardown),
		cmocka_unit_test(test_bad_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
