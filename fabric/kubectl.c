/* kubectl.c - kubectl fabric's cluster: the user's kubectl, run once per read (posix_spawnp), its output read whole and bounded. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fabric/kubectl.h"
#include "probes/model/errmsg.h"

extern char **environ;          /* POSIX: the program declares it */

#define KUBECTL_ARGV_MAX (CLI_KUBECTL_ARGS_MAX + 16)
#define KUBECTL_NODES_MAX ((size_t)256 << 20)           /* as --nodes-file: a NodeList of ~30,000 fat nodes */
#define KUBECTL_PODS_MAX ((size_t)256 << 20)            /* as --pods-file */
#define KUBECTL_RUNTIME_MAX ((size_t)64 << 20)          /* as --runtime-file */
#define KUBECTL_NETWORKS_MAX ((size_t)16 << 20)         /* as --networks-file */

struct kubectl {
	const struct cli_options *opt;
	const char *bin;                /* $KUBECTL, else kubectl */
};

static int kubectl_cloexec(int fd)
{
	int f = fcntl(fd, F_GETFD);

	return f < 0 || fcntl(fd, F_SETFD, f | FD_CLOEXEC) < 0 ? -errno : 0;
}

static void kubectl_close(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * The line of kubectl's stderr that says what failed, printable: its "error: ..." line (without
 * the prefix), else its "Error from server ..." line, else its last line (klog lines come first).
 */
static void kubectl_message(const char *text, size_t len, char *buf, size_t buflen)
{
	const char *best = NULL, *last = NULL, *p = text, *end = text + len;
	size_t best_n = 0, last_n = 0, n;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t ln = nl ? (size_t)(nl - p) : (size_t)(end - p);

		if (!best && ln > 7 && memcmp(p, "error: ", 7) == 0) {
			best = p + 7;
			best_n = ln - 7;
		} else if (!best && ln >= 17 && memcmp(p, "Error from server", 17) == 0) {
			best = p;
			best_n = ln;
		}
		if (ln) {
			last = p;
			last_n = ln;
		}
		p += ln + 1;
	}
	if (!best) {
		best = last;
		best_n = last_n;
	}
	n = best && best_n < buflen ? best_n : best ? buflen - 1 : 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)best[i];

		buf[i] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	buf[n] = '\0';
}

/* Read what @fd has into @buf (grown, NUL-terminated): 0 at its end, 1 more to come, -errno. */
static int kubectl_read(int fd, char **buf, size_t *len, size_t *cap, size_t max, bool *over)
{
	char chunk[65536];
	ssize_t n = read(fd, chunk, sizeof(chunk));

	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : -errno;
	if (n == 0)
		return 0;
	if (*over || *len + (size_t)n > max) {
		*over = true;           /* past the limit: drained, not kept */
		return 1;
	}
	if (*len + (size_t)n + 1 > *cap) {
		size_t nc = *cap ? *cap : 65536;
		char *nb;

		while (nc < *len + (size_t)n + 1)
			nc *= 2;
		if (nc > max + 1)
			nc = max + 1;
		nb = realloc(*buf, nc);
		if (!nb)
			return -ENOMEM;
		*buf = nb;
		*cap = nc;
	}
	memcpy(*buf + *len, chunk, (size_t)n);
	*len += (size_t)n;
	(*buf)[*len] = '\0';
	return 1;
}

/* Both pipes read at once until their ends (a full stderr pipe would stall kubectl, and so us). */
static int kubectl_drain(pid_t pid, int out, int err, size_t max, struct kubectl_run *ret, char **ebuf, size_t *elen)
{
	struct pollfd fds[2] = { { .fd = out, .events = POLLIN }, { .fd = err, .events = POLLIN } };
	size_t cap = 0, ecap = 0;
	bool over = false, eover = false, killed = false;
	int r = 0;

	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		for (int i = 0; i < 2; i++) {
			int g;

			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			g = i == 0 ? kubectl_read(fds[i].fd, &ret->out, &ret->len, &cap, max, &over) :
				kubectl_read(fds[i].fd, ebuf, elen, &ecap, KUBECTL_STDERR_MAX, &eover);
			if (g < 0 && r == 0)
				r = g;
			if (g <= 0)
				fds[i].fd = -1;         /* poll() skips a negative fd */
		}
		if ((over || r < 0) && !killed) {
			kill(pid, SIGTERM);     /* its answer is refused already: no need to wait for the rest */
			killed = true;
		}
	}
	return r < 0 ? r : over ? -EFBIG : 0;
}

int kubectl_exec(const char *bin, char *const argv[], size_t max, bool pass_stderr, struct kubectl_run *ret)
{
	int out[2] = { -1, -1 }, err[2] = { -1, -1 }, st, r;
	posix_spawn_file_actions_t fa;
	char *ebuf = NULL;
	size_t elen = 0;
	pid_t pid;

	memset(ret, 0, sizeof(*ret));
	ret->exit_code = -1;
	/* Every end close-on-exec: the child's copies are made by dup2() onto 1 and 2, which clears it. */
	if (pipe(out) < 0 || (!pass_stderr && pipe(err) < 0)) {
		r = -errno;
		goto out;
	}
	for (int i = 0; i < 2; i++)
		if ((r = kubectl_cloexec(out[i])) < 0 || (!pass_stderr && (r = kubectl_cloexec(err[i])) < 0))
			goto out;
	r = posix_spawn_file_actions_init(&fa);
	if (r) {
		r = -r;
		goto out;
	}
	r = posix_spawn_file_actions_adddup2(&fa, out[1], STDOUT_FILENO);
	if (!r && !pass_stderr)
		r = posix_spawn_file_actions_adddup2(&fa, err[1], STDERR_FILENO);
	if (!r)
		r = posix_spawnp(&pid, bin, &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	kubectl_close(&out[1]);
	kubectl_close(&err[1]);
	if (r) {
		r = -r;
		goto out;
	}
	r = kubectl_drain(pid, out[0], err[0], max, ret, &ebuf, &elen);
	while (waitpid(pid, &st, 0) < 0) {
		if (errno != EINTR) {
			st = -1;
			break;
		}
	}
	ret->exit_code = st == -1 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
	kubectl_message(ebuf ? ebuf : "", elen, ret->err, sizeof(ret->err));
	if (r == 0 && ret->exit_code != 0)
		r = -EIO;
	if (r == 0 && !ret->out && !(ret->out = calloc(1, 1)))
		r = -ENOMEM;            /* it said nothing: an empty answer, which the parser refuses */
out:
	kubectl_close(&out[0]);
	kubectl_close(&out[1]);
	kubectl_close(&err[0]);
	kubectl_close(&err[1]);
	free(ebuf);
	return r;
}

/* kubectl [its flags] ARGS... -o json, the shown form of ARGS in @where. */
static int kubectl_get(struct kubectl *k, const char *const *args, size_t max, struct kubectl_run *run,
		       char *where, size_t wlen, char *err, size_t errlen)
{
	char *argv[KUBECTL_ARGV_MAX];
	size_t n = 0, pos;
	int r;

	argv[n++] = (char *)k->bin;
	for (size_t i = 0; i < k->opt->n_kubectl_args; i++)
		argv[n++] = (char *)k->opt->kubectl_args[i];
	pos = (size_t)snprintf(where, wlen, "kubectl");
	for (size_t i = 0; args[i] && n < KUBECTL_ARGV_MAX - 3; i++) {
		argv[n++] = (char *)args[i];
		if (pos < wlen)
			pos += (size_t)snprintf(where + pos, wlen - pos, " %s", args[i]);
	}
	argv[n++] = "-o";
	argv[n++] = "json";
	argv[n] = NULL;
	r = kubectl_exec(k->bin, argv, max, k->opt->kubectl_verbose, run);
	if (r == -ENOENT && run->exit_code < 0)
		return errmsg_set(err, errlen, r, "kubectl not found (%s): kubectl fabric reads the cluster with your "
				  "kubectl; install it or set KUBECTL", k->bin);
	if (r == -EFBIG)
		return errmsg_set(err, errlen, r, "%s: its answer is larger than %zu MiB", where, max >> 20);
	if (r == -EIO && run->err[0])
		return errmsg_set(err, errlen, r, "%s failed: %s", where, run->err);
	if (r == -EIO)
		return errmsg_set(err, errlen, r, "%s failed (exit %d)%s", where, run->exit_code,
				  k->opt->kubectl_verbose ? ": its messages are above" : ", saying nothing");
	if (r < 0)
		return errmsg_set(err, errlen, r, "running %s: %s", where, strerror(-r));
	return 0;
}

static int kubectl_nodes(void *ctx, const char *cmd, const char *selector, const char *name,
			 struct coherence *nodes, char *err, size_t errlen)
{
	char field[300], where[512], perr[512] = "", *cont = NULL;
	const char *args[8] = { "get", "nodes" };
	struct kubectl_run run;
	size_t n = 2;
	int r;

	(void)cmd;
	if (selector) {
		args[n++] = "-l";
		args[n++] = selector;
	} else if (name) {
		snprintf(field, sizeof(field), "metadata.name=%s", name);
		args[n++] = "--field-selector";
		args[n++] = field;
	}
	r = kubectl_get(ctx, args, KUBECTL_NODES_MAX, &run, where, sizeof(where), err, errlen);
	if (r >= 0 && (r = coherence_add_nodelist(nodes, run.out, run.len, &cont, perr, sizeof(perr))) < 0)
		errmsg_set(err, errlen, r, "%s: %s", where, perr[0] ? perr : strerror(-r));
	free(cont);             /* kubectl lists in chunks itself: its List has no continue token */
	free(run.out);
	return r < 0 ? r : 0;
}

/* What kubectl's message says of the HTTP status, when it says it. */
static long kubectl_status(const char *msg)
{
	if (strstr(msg, "(NotFound)") || strstr(msg, "doesn't have a resource type"))
		return 404;
	if (strstr(msg, "(Forbidden)"))
		return 403;
	if (strstr(msg, "(Unauthorized)"))
		return 401;
	return 0;
}

static int kubectl_doc(void *ctx, enum kubesrc_doc what, const char *name, struct kubesrc_answer *ret)
{
	char field[300];
	const char *args[8] = { "get" };
	struct kubectl_run run;
	size_t max = KUBECTL_NETWORKS_MAX;
	int r;

	switch (what) {
	case KUBESRC_PODS:
		snprintf(field, sizeof(field), "spec.nodeName=%s", name);
		args[1] = "pods";
		args[2] = "--all-namespaces";
		args[3] = "--field-selector";
		args[4] = field;
		max = KUBECTL_PODS_MAX;
		break;
	case KUBESRC_RUNTIME:
		args[1] = "clustertrainingruntimes.trainer.kubeflow.org";
		args[2] = name;
		max = KUBECTL_RUNTIME_MAX;
		break;
	case KUBESRC_NETWORKS:
		args[1] = "networks.networking.gke.io";
		break;
	}
	r = kubectl_get(ctx, args, max, &run, ret->where, sizeof(ret->where), ret->message, sizeof(ret->message));
	ret->status = kubectl_status(run.err);
	if (r >= 0) {
		ret->text = run.out;
		ret->len = run.len;
		return 0;
	}
	free(run.out);
	return r == -EIO && ret->status == 404 ? -ENOENT : r;
}

static void kubectl_free(void *ctx)
{
	free(ctx);
}

static const struct kubesrc_ops kubectl_ops = {
	.nodes = kubectl_nodes,
	.get = kubectl_doc,
	.close = kubectl_free,
};

int kubectl_open(const struct cli_options *opt, struct kubesrc *ret)
{
	struct kubectl *k = calloc(1, sizeof(*k));
	const char *bin = getenv("KUBECTL");

	if (!k)
		return -ENOMEM;
	k->opt = opt;
	k->bin = bin && *bin ? bin : "kubectl";
	*ret = (struct kubesrc){ .ops = &kubectl_ops, .ctx = k };
	return 0;
}
