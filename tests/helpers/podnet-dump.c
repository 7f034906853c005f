/* podnet-dump.c - print podnet_sample() of ROOT for the pods named, one line per pod (tests, bench); time it, or the window's second reading. */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "probes/host/podnet.h"

static const char *podnet_dump_read(enum obs_transport_read r)
{
	switch (r) {
	case OBS_TRANSPORT_NOT_READ:
		return "not-read";
	case OBS_TRANSPORT_READ:
		return "read";
	case OBS_TRANSPORT_NO_PROCESS:
		return "no-process";
	case OBS_TRANSPORT_UNREADABLE:
		return "unreadable";
	}
	return "?";
}

/* uid state pid=N listeners=L clients=C rails=a,b dropped=D flows=F devs=name:rx:tx,... cut=0|1 why=...; "-" for none. */
static void podnet_dump_print(const struct obs_transport *t)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct obs_pod_transport *p = &t->pods[i];

		printf("%s %s pid=%d listeners=%zu clients=%zu rails=", p->uid, podnet_dump_read(p->read), p->pid,
		       p->listeners, p->clients);
		for (size_t j = 0; j < p->n_rails; j++)
			printf("%s%s", j ? "," : "", p->rails[j]);
		printf("%s dropped=%zu flows=%zu devs=", p->n_rails ? "" : "-", p->n_rails_dropped, p->flows);
		for (size_t j = 0; j < p->n_devs; j++)
			printf("%s%s:%llu:%llu", j ? "," : "", p->devs[j].name, (unsigned long long)p->devs[j].rx_bytes,
			       (unsigned long long)p->devs[j].tx_bytes);
		printf("%s cut=%d why=%s\n", p->n_devs ? "" : "-", p->cut, p->why[0] ? p->why : "-");
	}
}

static double podnet_dump_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void podnet_dump_usage(void)
{
	fprintf(stderr, "usage: podnet-dump [--repeat N] [--hints | --again] ROOT UID[=CONTAINERID[,CONTAINERID...]]...\n"
		"  one line per pod: uid state pid= listeners= clients= rails= dropped= flows= devs= cut= why=\n"
		"  --repeat N: time N samples, print one line of what one cost (ms, hints, pids, cgroups, bytes)\n"
		"  --hints: sample once first, then give each pod the pid it read as its pid_hint (as the daemon does)\n"
		"  --again: sample once, then time (with --repeat) or print the second reading of every pod's net/dev\n"
		"           (podnet_again(), the one-shot commands' window: no wait here)\n");
}

/* One sample of ROOT, then @repeat second readings of every pod's net/dev timed (0: one, printed). Return: the exit code. */
static int podnet_dump_again(int rootfd, const char *root, struct podnet_pod *pods, int n, long repeat)
{
	struct obs_transport t;
	struct podnet_stats st;
	bool *all;
	double t0;
	int r;

	r = podnet_sample(rootfd, root, pods, (size_t)n, &t, &st);
	all = calloc((size_t)n + 1, sizeof(*all));
	if (r < 0 || !all) {
		fprintf(stderr, "podnet-dump: %s\n", strerror(r < 0 ? -r : ENOMEM));
		free(all);
		if (r == 0)
			obs_transport_free(&t);
		return 1;
	}
	for (size_t k = 0; k < t.n; k++)
		all[k] = true;
	t0 = podnet_dump_now_ms();
	for (long k = 0; k < (repeat ? repeat : 1) && r >= 0; k++) {
		for (size_t j = 0; j < t.n; j++)
			t.pods[j].sampled_ms++;  /* each reading later than the one before */
		r = podnet_again(rootfd, root, &t, all, &st);
	}
	if (r < 0)
		fprintf(stderr, "podnet-dump: %s\n", strerror(-r));
	else if (repeat)
		printf("ms=%.3f pods=%d again=%d cgroups=%zu bytes=%zu\n", (podnet_dump_now_ms() - t0) / (double)repeat, n,
		       r, st.cgroups, st.bytes);
	else
		podnet_dump_print(&t);
	obs_transport_free(&t);
	free(all);
	return r < 0 ? 1 : 0;
}

/* Sample ROOT for @pods (a first sample's pids as hints with @hints; @repeat samples timed), print. Return: the exit code. */
static int podnet_dump_run(int rootfd, const char *root, struct podnet_pod *pods, int n, bool hints, long repeat)
{
	struct obs_transport t;
	struct podnet_stats st;
	int r;

	if (hints) {
		r = podnet_sample(rootfd, root, pods, (size_t)n, &t, &st);
		if (r < 0) {
			fprintf(stderr, "podnet-dump: %s\n", strerror(-r));
			return 1;
		}
		for (int k = 0; k < n; k++) {
			const struct obs_pod_transport *p = obs_transport_find(&t, pods[k].uid);

			pods[k].pid_hint = p ? p->pid : 0;
		}
		obs_transport_free(&t);
	}
	if (repeat) {
		double t0 = podnet_dump_now_ms();

		for (long k = 0; k < repeat; k++) {
			r = podnet_sample(rootfd, root, pods, (size_t)n, &t, &st);
			if (r < 0) {
				fprintf(stderr, "podnet-dump: %s\n", strerror(-r));
				return 1;
			}
			obs_transport_free(&t);
		}
		printf("ms=%.3f pods=%d hints=%zu pids=%zu cgroups=%zu bytes=%zu\n",
		       (podnet_dump_now_ms() - t0) / (double)repeat, n, st.hints, st.pids, st.cgroups, st.bytes);
		return 0;
	}
	r = podnet_sample(rootfd, root, pods, (size_t)n, &t, &st);
	if (r < 0) {
		fprintf(stderr, "podnet-dump: %s\n", strerror(-r));
		return 1;
	}
	if (t.status.state != PROBE_OK) {
		printf("FAILED %s\n", t.status.message);
		obs_transport_free(&t);
		return 1;
	}
	podnet_dump_print(&t);
	obs_transport_free(&t);
	return 0;
}

int main(int argc, char **argv)
{
	struct podnet_pod *pods;
	char ***ids;
	long repeat = 0;
	bool hints = false, again = false;
	int i = 1, n, rc, rootfd;

	if (argc > i + 1 && strcmp(argv[i], "--repeat") == 0) {
		repeat = strtol(argv[i + 1], NULL, 10);
		i += 2;
	}
	if (argc > i && strcmp(argv[i], "--hints") == 0) {
		hints = true;
		i++;
	} else if (argc > i && strcmp(argv[i], "--again") == 0) {
		again = true;
		i++;
	}
	if (argc - i < 1 || repeat < 0) {
		podnet_dump_usage();
		return 2;
	}
	n = argc - i - 1;
	pods = calloc((size_t)n + 1, sizeof(*pods));
	ids = calloc((size_t)n + 1, sizeof(*ids));
	if (!pods || !ids) {
		free(pods);
		free(ids);
		return 2;
	}
	for (int k = 0; k < n; k++) {
		char *arg = argv[i + 1 + k], *eq = strchr(arg, '='), *tok, *save = NULL;
		size_t m = 0;

		pods[k].uid = arg;
		if (!eq)
			continue;
		*eq = '\0';
		ids[k] = calloc(strlen(eq + 1) + 1, sizeof(char *));
		if (!ids[k]) {
			n = k;
			rc = 2;
			goto out;
		}
		for (tok = strtok_r(eq + 1, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
			ids[k][m++] = tok;
		pods[k].container_ids = (const char *const *)ids[k];
		pods[k].n_container_ids = m;
	}
	/* ROOT opened once, as the agent does (observe_rootfd()), and handed in. */
	rootfd = open(argv[i], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0)
		rootfd = -errno;
	rc = again ? podnet_dump_again(rootfd, argv[i], pods, n, repeat) :
		     podnet_dump_run(rootfd, argv[i], pods, n, hints, repeat);
	if (rootfd >= 0)
		close(rootfd);
out:
	for (int k = 0; k < n; k++)
		free(ids[k]);
	free(ids);
	free(pods);
	return rc;
}
