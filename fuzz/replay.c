/* replay.c - run fuzz_one over files and directories of inputs (the seed and crash regressions). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/fuzz.h"

#define REPLAY_MAX_INPUT (4u << 20)     /* no seed or crash file comes near this */


/* Read @path whole into a malloc'd buffer of exactly its size (so ASan sees any overread). */
static int replay_read(const char *path, uint8_t **ret, size_t *ret_len)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC), r = 0;
	struct stat st;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0) {
		r = -errno;
		goto out;
	}
	if ((size_t)st.st_size > REPLAY_MAX_INPUT) {
		r = -EFBIG;
		goto out;
	}
	/* malloc(0) may return NULL: always ask for at least one byte, use exactly st_size. */
	buf = malloc(st.st_size ? (size_t)st.st_size : 1);
	if (!buf) {
		r = -ENOMEM;
		goto out;
	}
	while (len < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + len, (size_t)st.st_size - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? -errno : -EIO;
			goto out;
		}
		len += (size_t)n;
	}
out:
	close(fd);
	if (r < 0) {
		free(buf);
		return r;
	}
	*ret = buf;
	*ret_len = len;
	return 0;
}

static int replay_file(const char *path, size_t *count)
{
	uint8_t *buf = NULL;
	size_t len = 0;
	int r = replay_read(path, &buf, &len);

	if (r < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(-r));
		return r;
	}
	fuzz_one(buf, len);
	free(buf);
	(*count)++;
	return 0;
}

static int replay_name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file directly in @dir, in name order (deterministic replays). */
static int replay_dir(const char *dir, size_t *count)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return -errno;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap ? 2 * cap : 64) * sizeof(*names));

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			names = grown;
			cap = cap ? 2 * cap : 64;
		}
		if (asprintf(&names[n], "%s/%s", dir, de->d_name) < 0) {
			r = -ENOMEM;
			break;
		}
		n++;
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), replay_name_cmp);
	for (size_t i = 0; i < n; i++) {
		struct stat st;

		if (r == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			r = replay_file(names[i], count);
		free(names[i]);
	}
	free(names);
	return r;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int r = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc && r == 0; i++) {
		struct stat st;

		if (stat(argv[i], &st) < 0) {
			fprintf(stderr, "replay: %s: %s\n", argv[i], strerror(errno));
			return 2;
		}
		r = S_ISDIR(st.st_mode) ? replay_dir(argv[i], &count) : replay_file(argv[i], &count);
	}
	if (r < 0)
		return 2;
	printf("replayed %zu inputs\n", count);
	return 0;
}
