/* cmd_health.c - `tcpxo-agent health`: exit 0 when the daemon's health file is fresh (an exec liveness probe). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent/cli.h"
#include "agent/cmd.h"
#include "agent/cmd_health.h"
#include "agent/log.h"

int cmd_health_verdict(const struct timespec *now, const struct timespec *mtime, unsigned max_age,
		       char *msg, size_t len)
{
	long long age_ms = ((long long)now->tv_sec - mtime->tv_sec) * 1000 + (now->tv_nsec - mtime->tv_nsec) / 1000000;

	/* A clock step may put the touch slightly ahead; far ahead is as suspect as far behind. */
	if (age_ms < -(long long)max_age * 1000) {
		snprintf(msg, len, "touched %lld.%03llds in the future (clock stepped?), more than the %us allowed",
			 -age_ms / 1000, -age_ms % 1000, max_age);
		return 1;
	}
	if (age_ms > (long long)max_age * 1000) {
		snprintf(msg, len, "stale: last touched %lld.%03llds ago, more than %us", age_ms / 1000, age_ms % 1000,
			 max_age);
		return 1;
	}
	if (age_ms < 0)
		age_ms = 0;
	snprintf(msg, len, "fresh: touched %lld.%03llds ago (at most %us)", age_ms / 1000, age_ms % 1000, max_age);
	return 0;
}

int cmd_health(const struct cli_options *opt)
{
	struct timespec now;
	struct stat st;
	char msg[256];
	int r;

	/* O_PATH|O_NOFOLLOW semantics through fstatat: a link is not the daemon's file. */
	if (fstatat(AT_FDCWD, opt->health_file, &st, AT_SYMLINK_NOFOLLOW) < 0) {
		fprintf(stderr, "tcpxo-agent: health: %s: %s\n", opt->health_file,
			errno == ENOENT ? "missing (the daemon has not completed an iteration)" : strerror(errno));
		return 1;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "tcpxo-agent: health: %s: not a regular file\n", opt->health_file);
		return 1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	r = cmd_health_verdict(&now, &st.st_mtim, opt->max_age, msg, sizeof(msg));
	fprintf(r ? stderr : stdout, "tcpxo-agent: health: %s: %s\n", opt->health_file, msg);
	return r;
}

void cmd_health_touch(const char *f, bool *failed)
{
	int r = 0;

	if (!f)
		return;
	if (utimensat(AT_FDCWD, f, NULL, 0) < 0) {
		r = -errno;
		if (r == -ENOENT) {
			int fd = open(f, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0644);

			r = fd < 0 ? -errno : 0;
			if (fd >= 0)
				close(fd);
		}
	}
	if (r < 0 && !*failed)
		log_emit(LOG_LEVEL_ERROR, "cannot touch the health file", "file", f, "error", strerror(-r), NULL);
	else if (r == 0 && *failed)
		log_emit(LOG_LEVEL_INFO, "health file touched again", "file", f, NULL);
	*failed = r < 0;
}
