/* podnet.c - the transport sample of the node's GPU pods: one process of each found in ROOT/proc, its net files read. */
/*
 * How it reads /proc, and its limits:
 *
 * - Only files any user may read: /proc/<pid>/cgroup and /proc/<pid>/net/{unix,udp,dev}. Never
 *   fd/ or ns/ (root only), never a process's memory. A net file shows the network namespace of the
 *   process, so one live process of a pod shows the whole pod (its containers share it).
 * - One listing of ROOT/proc per sample, one cgroup read per pid until every pod asked about has
 *   a process in one of its GPU containers (a process of another container of the pod is kept
 *   meanwhile, and used when none comes). Cost: ~8 system calls per pid listed (see
 *   bench/results.md), 3 file reads per pod.
 * - hidepid: a /proc mounted with hidepid=1/2 lists only the reader's own processes: the pods are
 *   then NO_PROCESS, and the why says so when ROOT/proc is procfs and lists no pid 1. The sample
 *   never says "no traffic" for a pod it could not see.
 * - Caps: net/unix is read up to PODNET_UNIX_MAX (4 MiB, ~25,000 sockets: a hostNetwork pod sees
 *   the host's), net/udp PODNET_UDP_MAX, net/dev PODNET_DEV_MAX; a longer file is counted over
 *   its first part and the pod marked cut (why says which file). 16 NIC addresses are kept,
 *   more counted; 32 interfaces kept, the first by name.
 * - RxDM's names: abstract "rxdm_uds_buf_op:<ip>" (padded or not), and the file-based
 *   "<prefix>/rxdm_uds_buf_op:<ip>" of FILE_BASED_UDS_PATH_PREFIX / --file_based_uds_path_prefix,
 *   any prefix. A client shows as the accepted end in RxDM's namespace: a pod sees its clients
 *   only when RxDM shares its network namespace (the TCPXO sidecar, or hostNetwork for both).
 * - DXS flows are IPv4 (net/udp); net/udp6 is not read.
 * - A process whose main thread has exited (a zombie leader) has no net/: its pod reads
 *   UNREADABLE for this sample, as does a process that exits between the listing and the read.
 * - A socket name holding a '\n' continues on the kernel's next line: read as the rest of that
 *   name (procnet.c), never as a socket of its own unless it forges a whole socket line.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "probes/host/hostfs.h"
#include "probes/host/podcgroup.h"
#include "probes/host/podnet.h"
#include "probes/host/procscan.h"
#include "probes/host/procnet.h"
#include "probes/model/strbuf.h"

#define PODNET_PROC_SUPER_MAGIC 0x9fa0
#define PODNET_PIDS_MAX (1u << 22)      /* PID_MAX_LIMIT: no /proc lists more */

/* The sample's view of one pod while ROOT/proc is listed. */
struct podnet_find {
	const struct podnet_pod *want;
	int pid_gpu;            /* first process in a GPU container */
	int pid_any;            /* first process of the pod */
};

/* One sample's state: ROOT/proc opened once, listed at most once (newest pid first), what each pod found. */
struct podnet_scan {
	struct obs_transport t;
	struct podnet_find *find;
	struct podnet_stats *st;
	char rp[128];                   /* ROOT as given, without its trailing '/', for messages */
	int procfd;
	bool procfs;                    /* ROOT/proc is a procfs (not a fixture tree) */
	DIR *d;
	int *pids;                      /* the listing, newest first */
	size_t n_pids;
	bool listed, saw_init;
	char *buf;                      /* one net file at a time */
};

static bool podnet_gpu_container(const struct podnet_pod *w, const char *id)
{
	if (!*id)
		return false;
	for (size_t i = 0; i < w->n_container_ids; i++)
		if (w->container_ids[i] && strcmp(w->container_ids[i], id) == 0)
			return true;
	return false;
}

/*
 * ROOT/proc/<pid>/cgroup where ROOT/proc is procfs: one open, no link followed (a numeric entry of
 * procfs is a process's directory, never a link; the file itself is opened O_NOFOLLOW), its type
 * checked, one read (cgroup is a single_open seq file: its whole text comes in one read when it
 * fits). Four system calls where the general path below takes eight: the listing may read every pid.
 */
static int podnet_read_cgroup_procfs(int procfd, const char *name, char *buf, size_t size, size_t *ret_len,
				     bool *ret_trunc)
{
	char path[32];
	struct stat sb;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%.9s/cgroup", name);
	fd = openat(procfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	n = read(fd, buf, size);
	close(fd);
	if (n < 0)
		return -errno;
	*ret_len = (size_t)n;
	*ret_trunc = (size_t)n == size;
	return 0;
}

/* ROOT/proc/<pid>/cgroup elsewhere (a fixture): hostfs's rules, the pid's directory not followed if a link. */
static int podnet_read_cgroup(int procfd, const char *name, char *buf, size_t size, size_t *ret_len,
			      bool *ret_trunc)
{
	int fd, r;

	fd = openat(procfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return -errno;  /* exited since the listing, or not a directory */
	r = hostfs_read_at(fd, "cgroup", 0, buf, size, ret_len, ret_trunc);
	close(fd);
	return r;
}

/* Pid @pid's cgroup (procfs's way or hostfs's) parsed into *@ret: whether it names a pod's container. */
static bool podnet_cgroup(struct podnet_scan *sc, int pid, struct podcgroup *ret)
{
	size_t len = 0;
	bool trunc = false;
	char name[16];
	int r;

	snprintf(name, sizeof(name), "%d", pid);
	r = sc->procfs ? podnet_read_cgroup_procfs(sc->procfd, name, sc->buf, PODNET_CGROUP_MAX, &len, &trunc)
		       : podnet_read_cgroup(sc->procfd, name, sc->buf, PODNET_CGROUP_MAX, &len, &trunc);
	sc->st->cgroups++;
	return r == 0 && !trunc && podcgroup_parse(sc->buf, len, ret, NULL, 0) == 1;
}

/*
 * Read pid @pid's cgroup and note it for its pod, if it belongs to a pod still looking. @only: NULL,
 * or the one pod it may settle (a hint). Return: 1 when that pod is now settled, else 0.
 */
static int podnet_one_pid(struct podnet_scan *sc, int pid, const struct podnet_find *only)
{
	struct obs_pod_transport *pt;
	struct podnet_find *f;
	struct podcgroup pc;

	if (!podnet_cgroup(sc, pid, &pc))
		return 0;
	pt = bsearch(pc.uid, sc->t.pods, sc->t.n, sizeof(*sc->t.pods), strbuf_cmp_names);
	if (!pt)
		return 0;
	f = &sc->find[pt - sc->t.pods];
	if (f->pid_gpu || (only && f != only))
		return 0;
	if (podnet_gpu_container(f->want, pc.container_id) || !f->want->n_container_ids) {
		f->pid_gpu = pid;
		return 1;
	}
	if (!f->pid_any || pid < f->pid_any)
		f->pid_any = pid;       /* the lowest: the pod's oldest process */
	return 0;
}

static void podnet_unreadable(struct obs_pod_transport *p, const char *root, const char *file, int err,
			      const char *msg)
{
	p->read = OBS_TRANSPORT_UNREADABLE;
	if (!msg)
		msg = err == -EINVAL ? "not a regular file" : strerror(-err);   /* hostfs: a fifo, a device */
	snprintf(p->why, sizeof(p->why), "%s/proc/%d/%s: %s", root, p->pid, file, msg);
}

static void podnet_note_cut(struct obs_pod_transport *p, const char *root, const char *file, size_t max)
{
	size_t off = strlen(p->why);

	p->cut = true;
	snprintf(p->why + off, sizeof(p->why) - off, "%s%s/proc/%d/%s: longer than %zu KiB, counted over its first part",
		 off ? "; " : "", root, p->pid, file, max >> 10);
}

#define PODNET_GONE 1           /* podnet_read_pod(): the process exited before its files were read */
#define PODNET_RETRIES 2        /* another process of the pod tried when the one chosen exited */

/* Whether @r (-errno of a file of @pid) means the process has exited: its directory is gone. */
static bool podnet_gone(int procfd, int pid, int r)
{
	char name[16];

	if (r != -ENOENT && r != -ESRCH)
		return false;
	snprintf(name, sizeof(name), "%d", pid);
	return faccessat(procfd, name, F_OK, AT_SYMLINK_NOFOLLOW) < 0 && errno == ENOENT;
}

#define PODNET_UNREAD 2         /* podnet_net_file(): the file could not be read or parsed (@p says why) */

/* ROOT/proc/<pid>/net of @p's process into *@ret_fd. Return: 0; PODNET_GONE; PODNET_UNREAD (@p says why). */
static int podnet_open_net(struct podnet_scan *sc, struct obs_pod_transport *p, int *ret_fd)
{
	char name[16];
	int pidfd, r;

	snprintf(name, sizeof(name), "%d", p->pid);
	pidfd = openat(sc->procfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	*ret_fd = pidfd < 0 ? -1 : openat(pidfd, "net", O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	r = *ret_fd < 0 ? -errno : 0;
	if (pidfd >= 0)
		close(pidfd);
	if (r == 0)
		return 0;
	if (podnet_gone(sc->procfd, p->pid, r))
		return PODNET_GONE;
	podnet_unreadable(p, sc->rp, "net", r, NULL);
	return PODNET_UNREAD;
}

/* The net files read, each with its cap, in the order they are read. */
enum podnet_file { PODNET_UNIX, PODNET_UDP, PODNET_DEV };

static const struct {
	const char *name, *path;
	size_t max;
} podnet_files[] = {
	[PODNET_UNIX] = { "unix", "net/unix", PODNET_UNIX_MAX },
	[PODNET_UDP] = { "udp", "net/udp", PODNET_UDP_MAX },
	[PODNET_DEV] = { "dev", "net/dev", PODNET_DEV_MAX },
};

/*
 * Read ROOT/proc/<pid>/net/<@file> (at most its cap) and parse it into @out (a struct procnet_unix,
 * _udp or _dev); a cut read is noted on @p. Return: 0; PODNET_GONE (the process exited);
 * PODNET_UNREAD (@p marked unreadable, with why); -ENOMEM.
 */
static int podnet_net_file(struct podnet_scan *sc, int netfd, struct obs_pod_transport *p, enum podnet_file file,
			   void *out)
{
	char *buf = sc->buf;
	const char *path = podnet_files[file].path;
	size_t max = podnet_files[file].max, len = 0;
	char err[192] = "";
	bool cut = false;
	int r = hostfs_read_at(netfd, podnet_files[file].name, 0, buf, max, &len, &cut);

	if (r >= 0) {
		sc->st->bytes += len;
		r = file == PODNET_UNIX ? procnet_unix_parse(buf, len, cut, out, err, sizeof(err)) :
		    file == PODNET_UDP ? procnet_udp_parse(buf, len, cut, out, err, sizeof(err)) :
		    procnet_dev_parse(buf, len, cut, out, err, sizeof(err));
	}
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		if (podnet_gone(sc->procfd, p->pid, r))
			return PODNET_GONE;
		podnet_unreadable(p, sc->rp, path, r, r == -EBADMSG ? err : NULL);
		return PODNET_UNREAD;
	}
	if (cut)
		podnet_note_cut(p, sc->rp, path, max);
	return 0;
}

/*
 * Read and parse the net files of @p->pid into @p.
 * Return: 0, PODNET_GONE (@p then holds nothing of it), or -ENOMEM.
 */
static int podnet_read_pod(struct podnet_scan *sc, struct obs_pod_transport *p)
{
	struct procnet_unix u;
	struct procnet_udp udp;
	struct procnet_dev dev;
	int netfd, r;

	r = podnet_open_net(sc, p, &netfd);
	if (r)
		return r == PODNET_GONE ? r : 0;
	r = podnet_net_file(sc, netfd, p, PODNET_UNIX, &u);
	if (r == 0) {
		p->listeners = u.listeners;
		p->clients = u.clients;
		memcpy(p->rails, u.rails, sizeof(p->rails));
		p->n_rails = u.n_rails;
		p->n_rails_dropped = u.n_rails_dropped;
		r = podnet_net_file(sc, netfd, p, PODNET_UDP, &udp);
	}
	if (r == 0) {
		p->flows = udp.flows;
		r = podnet_net_file(sc, netfd, p, PODNET_DEV, &dev);
	}
	if (r == 0) {
		memcpy(p->devs, dev.v, sizeof(p->devs));
		p->n_devs = dev.n;
		p->read = OBS_TRANSPORT_READ;
	}
	close(netfd);
	return r == PODNET_GONE || r == -ENOMEM ? r : 0;
}

static int podnet_cmp_pid_desc(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x < y) - (x > y);
}

/*
 * The pids ROOT/proc lists (directories, or entries of unknown type), highest first.
 * Return: 0, -ENOMEM, or the -errno of a listing that failed part way (a partial list would make
 * pods "no process").
 */
static int podnet_list(DIR *d, int **ret, size_t *ret_n, bool *ret_init)
{
	struct dirent *de;
	size_t n = 0, cap = 0;
	int *v = NULL;

	for (errno = 0; (de = readdir(d)); errno = 0) {
		int pid = procscan_pid(de->d_name);

		if (pid < 0 || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		*ret_init |= pid == 1;
		if (n == PODNET_PIDS_MAX)
			break;
		if (strbuf_grow_array(&v, &cap, n, sizeof(*v), 1024) < 0) {
			free(v);
			return -ENOMEM;
		}
		v[n++] = pid;
	}
	if (!de && errno && n < PODNET_PIDS_MAX) {
		int r = -errno;

		free(v);
		return r;
	}
	if (n > 1)              /* none listed: v is NULL, and qsort(NULL, 0, ...) is undefined */
		qsort(v, n, sizeof(*v), podnet_cmp_pid_desc);
	*ret = v;
	*ret_n = n;
	return 0;
}

/* Copy the distinct uids of @pods into @t, sorted. Return: 0, -EINVAL, -ENOMEM. */
static int podnet_init(const struct podnet_pod *pods, size_t n, struct obs_transport *t, struct podnet_find **ret_find)
{
	struct podnet_find *find;
	size_t k = 0;

	if (n > OBS_TRANSPORT_PODS_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (!pods[i].uid || !pods[i].uid[0] || strlen(pods[i].uid) >= OBS_TRANSPORT_UID_MAX)
			return -EINVAL;
	t->pods = calloc(n ? n : 1, sizeof(*t->pods));
	find = calloc(n ? n : 1, sizeof(*find));
	if (!t->pods || !find) {
		free(find);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++)
		snprintf(t->pods[i].uid, sizeof(t->pods[i].uid), "%s", pods[i].uid);
	if (n > 1)
		qsort(t->pods, n, sizeof(*t->pods), strbuf_cmp_names);
	for (size_t i = 0; i < n; i++)
		if (!k || strcmp(t->pods[k - 1].uid, t->pods[i].uid) != 0)
			t->pods[k++] = t->pods[i];
	t->n = k;
	/* Each pod's request: the first one given with that uid. */
	for (size_t i = 0; i < k; i++)
		for (size_t j = 0; j < n; j++)
			if (strcmp(pods[j].uid, t->pods[i].uid) == 0) {
				find[i].want = &pods[j];
				break;
			}
	*ret_find = find;
	return 0;
}

/*
 * Open ROOT/proc, its listing handle and fd in one; @root as given, ROOT in messages sc->rp (without
 * its trailing '/': "/" itself gives "/proc/..."). Return: 0; < 0 with the probe's status failed.
 */
static int podnet_open(struct podnet_scan *sc, int rootfd, const char *root)
{
	struct statfs sfs;
	int r;

	snprintf(sc->rp, sizeof(sc->rp), "%s", root);
	for (size_t l = strlen(sc->rp); l && sc->rp[l - 1] == '/'; l--)
		sc->rp[l - 1] = '\0';
	if (rootfd < 0) {
		probe_status_fail(&sc->t.status, rootfd, "%s: %s", root, strerror(-rootfd));
		return rootfd;
	}
	r = hostfs_opendir(rootfd, "proc", &sc->d);
	if (r < 0) {
		probe_status_fail(&sc->t.status, r, "%s/proc: %s", sc->rp, strerror(-r));
		return r;
	}
	sc->procfd = dirfd(sc->d);      /* openat() relative to it leaves the listing where it is */
	sc->procfs = fstatfs(sc->procfd, &sfs) == 0 && sfs.f_type == PODNET_PROC_SUPER_MAGIC;
	return 0;
}

/* Close what podnet_open() opened, and free the scan's buffers. */
static void podnet_close(struct podnet_scan *sc)
{
	if (sc->d)
		closedir(sc->d);
	free(sc->buf);
	free(sc->pids);
	free(sc->find);
}

/* The processes the last sample read, if they are still the pods' GPU processes. Return: pods settled. */
static size_t podnet_hints(struct podnet_scan *sc)
{
	size_t settled = 0;

	for (size_t i = 0; i < sc->t.n; i++) {
		int hint = sc->find[i].want->pid_hint;

		if (hint <= 0 || sc->find[i].pid_gpu)
			continue;
		if (podnet_one_pid(sc, hint, &sc->find[i])) {
			settled++;
			sc->st->hints++;
		}
	}
	return settled;
}

/* List ROOT/proc once. Return: 0; -ENOMEM; other < 0 (the listing failed part way). */
static int podnet_listing(struct podnet_scan *sc)
{
	int r;

	if (sc->listed)
		return 0;
	r = podnet_list(sc->d, &sc->pids, &sc->n_pids, &sc->saw_init);
	sc->listed = r == 0;
	return r;
}

/*
 * Read pod @i's files from the process found for it; when that process exits first, find the
 * pod's next one (at most PODNET_RETRIES times). Return: 0; -ENOMEM.
 */
static int podnet_read_found(struct podnet_scan *sc, size_t i)
{
	struct obs_pod_transport *p = &sc->t.pods[i];
	int r;

	for (int tries = 0;; tries++) {
		p->pid = sc->find[i].pid_gpu ? sc->find[i].pid_gpu : sc->find[i].pid_any;
		if (!p->pid) {
			p->read = OBS_TRANSPORT_NO_PROCESS;
			snprintf(p->why, sizeof(p->why), "no process of the pod found under %s/proc%s", sc->rp,
				 sc->procfs && !sc->saw_init ? " (it lists no pid 1: mounted with hidepid, it shows "
				 "only this user's processes)" : "");
			return 0;
		}
		r = podnet_read_pod(sc, p);
		if (r < 0)
			return r;
		if (r != PODNET_GONE)
			return 0;
		/*
		 * It exited between the listing and the read (an exec probe, a finished worker): all
		 * but the uid, the first member, forgotten.
		 */
		memset((char *)p + sizeof(p->uid), 0, sizeof(*p) - sizeof(p->uid));
		if (tries == PODNET_RETRIES) {
			p->read = OBS_TRANSPORT_UNREADABLE;
			snprintf(p->why, sizeof(p->why), "%d processes of the pod exited while their files were read",
				 PODNET_RETRIES + 1);
			return 0;
		}
		/* The pod's next process: its exited one's cgroup no longer reads. */
		sc->find[i].pid_gpu = sc->find[i].pid_any = 0;
		if (podnet_listing(sc) == -ENOMEM)
			return -ENOMEM;
		for (size_t k = 0; k < sc->n_pids; k++)
			if (podnet_one_pid(sc, sc->pids[k], &sc->find[i]))
				break;
	}
}

/* Find each pod's process (hints, then the listing newest first) and read its files. Return: 0; < 0. */
static int podnet_scan_all(struct podnet_scan *sc)
{
	size_t settled = podnet_hints(sc);
	int r;

	if (settled < sc->t.n) {
		r = podnet_listing(sc);
		if (r < 0) {
			if (r != -ENOMEM)
				probe_status_fail(&sc->t.status, r, "%s/proc: listing: %s", sc->rp, strerror(-r));
			return r;
		}
	}
	/* Newest first: a running GPU pod's processes are among the latest started, so it stops early. */
	for (size_t i = 0; i < sc->n_pids && settled < sc->t.n; i++) {
		sc->st->pids++;
		settled += (size_t)podnet_one_pid(sc, sc->pids[i], NULL);
	}
	for (size_t i = 0; i < sc->t.n; i++)
		if ((r = podnet_read_found(sc, i)) < 0)
			return r;
	sc->t.status.state = PROBE_OK;
	return 0;
}

int podnet_sample(int rootfd, const char *root, const struct podnet_pod *pods, size_t n, struct obs_transport *ret,
		  struct podnet_stats *st)
{
	struct podnet_scan sc = { .t = { .sampled = true }, .procfd = -1 };
	struct podnet_stats dummy;
	int r;

	sc.st = st ? st : &dummy;
	memset(sc.st, 0, sizeof(*sc.st));
	memset(ret, 0, sizeof(*ret));
	r = podnet_init(pods, n, &sc.t, &sc.find);
	if (r < 0) {
		obs_transport_free(&sc.t);
		return r;
	}
	if (!sc.t.n)
		sc.t.status.state = PROBE_OK;
	else if (podnet_open(&sc, rootfd, root) == 0 && !(sc.buf = malloc(PODNET_UNIX_MAX + 1)))
		r = -ENOMEM;
	else if (sc.t.status.state != PROBE_FAILED)
		r = podnet_scan_all(&sc);
	podnet_close(&sc);
	if (r == -ENOMEM) {
		obs_transport_free(&sc.t);
		return r;
	}
	/* ROOT/proc not read or listed: every pod unknown, for the same reason. */
	for (size_t i = 0; sc.t.status.state == PROBE_FAILED && i < sc.t.n; i++)
		snprintf(sc.t.pods[i].why, sizeof(sc.t.pods[i].why), "%.*s", OBS_TRANSPORT_WHY_MAX - 1,
			 sc.t.status.message);
	*ret = sc.t;
	return 0;
}

/*
 * Read net/dev of @p's process again into @ret, once its cgroup still names the pod: the process the
 * first reading found may have exited in the window, and its pid been given to another.
 * Return: 0; PODNET_GONE; PODNET_UNREAD (@p says why); -ENOMEM.
 */
static int podnet_dev_again(struct podnet_scan *sc, struct obs_pod_transport *p, struct procnet_dev *ret)
{
	struct podcgroup pc;
	int netfd, r;

	if (!podnet_cgroup(sc, p->pid, &pc) || strcmp(pc.uid, p->uid) != 0)
		return PODNET_GONE;
	r = podnet_open_net(sc, p, &netfd);
	if (r)
		return r;
	r = podnet_net_file(sc, netfd, p, PODNET_DEV, ret);
	close(netfd);
	return r;
}

int podnet_again(int rootfd, const char *root, struct obs_transport *t, const bool *which, struct podnet_stats *st)
{
	struct podnet_scan sc = { .procfd = -1 };
	struct podnet_stats dummy;
	struct procnet_dev dev;
	int r = 0, n = 0;

	sc.st = st ? st : &dummy;
	memset(sc.st, 0, sizeof(*sc.st));
	for (size_t i = 0; i < t->n && r >= 0; i++) {
		struct obs_pod_transport *p = &t->pods[i];

		if (!which[i] || p->read != OBS_TRANSPORT_READ || p->pid <= 0)
			continue;
		if (sc.procfd < 0) {
			if (podnet_open(&sc, rootfd, root) < 0) {
				/* ROOT/proc no longer reads: no second reading for any pod. */
				for (size_t j = i; j < t->n; j++)
					if (which[j] && t->pods[j].read == OBS_TRANSPORT_READ) {
						t->pods[j].read = OBS_TRANSPORT_UNREADABLE;
						snprintf(t->pods[j].why, sizeof(t->pods[j].why), "second reading: %.*s",
							 OBS_TRANSPORT_WHY_MAX - 32, sc.t.status.message);
					}
				break;
			}
			/* One buffer for a cgroup and a net/dev at a time. */
			if (!(sc.buf = malloc((PODNET_CGROUP_MAX > PODNET_DEV_MAX ? PODNET_CGROUP_MAX : PODNET_DEV_MAX) + 1))) {
				r = -ENOMEM;
				break;
			}
		}
		r = podnet_dev_again(&sc, p, &dev);
		if (r == PODNET_GONE) {
			p->read = OBS_TRANSPORT_UNREADABLE;
			snprintf(p->why, sizeof(p->why), "%s/proc/%d exited (or left the pod) between two readings of its "
				 "net/dev", sc.rp, p->pid);
			r = 0;
		} else if (r == PODNET_UNREAD) {
			r = 0;
		} else if (r == 0) {
			memcpy(p->prev, p->devs, sizeof(p->prev));
			p->n_prev = p->n_devs;
			p->prev_ms = p->sampled_ms;
			p->has_prev = true;
			memcpy(p->devs, dev.v, sizeof(p->devs));
			p->n_devs = dev.n;
			n++;
		}
	}
	podnet_close(&sc);
	return r < 0 ? r : n;
}