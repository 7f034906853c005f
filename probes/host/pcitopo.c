/*
 * pcitopo.c - the PCI functions under <root>/sys/bus/pci, read from sysfs through hostfs.
 *
 * Every file, the config header too, is read from the function's directory resolved inside the
 * root: what lspci's libpci would add is one 64-byte read behind a no-return error hook, and
 * bench/pci.sh measured the scan without it as fast (docs/ARCHITECTURE.md, "libpci").
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "probes/host/hostfs.h"
#include "probes/host/pcitopo.h"
#include "probes/host/pcitopo_parse.h"

#define PCITOPO_MAX_FUNCS 8192          /* a real host has a few hundred at most */
#define PCITOPO_MAX_NETDEVS 4096
#define PCITOPO_CONFIG_LEN 64           /* what an unprivileged reader gets: the header */
#define PCITOPO_DEVICES "sys/bus/pci/devices"
#define PCITOPO_PATH_MAX 96             /* PCITOPO_DEVICES/<bdf>/<attribute> */

/* The scan in progress: what the function being read failed on. */
struct pcitopo_ctx {
	char msg[OBS_MSG_MAX];
};

struct pcitopo_netdev {
	char name[OBS_IFNAME_MAX];
	char bdf[OBS_BDF_MAX];
};

struct pcitopo_netmap {
	struct pcitopo_netdev *v;       /* in listing order */
	size_t n;
	bool loaded;
};

enum pci_kind pcitopo_classify(uint16_t vendor, uint16_t device, uint32_t class_code, int header_type)
{
	/* H100 (A3), H200 (A3 Ultra), B200 (A4): gce-nic-naming's table of GPU ids per machine. */
	if (vendor == 0x10de && (device == 0x2330 || device == 0x2335 || device == 0x2901))
		return PCI_KIND_GPU;
	if (vendor == 0x10de && (class_code >> 16) == 0x03)
		return PCI_KIND_OTHER_GPU;
	if (vendor == 0x1ae0 && device == 0x0042)
		return PCI_KIND_GVNIC;
	if (vendor == 0x1ae0 && device == 0x0084)
		return PCI_KIND_LLCM;
	/* The mlx5 VF an A3 Ultra / A4 VM sees (gce-nic-naming: "Mellanox CX7"), or the CX-7 PF. */
	if (vendor == 0x15b3 && (device == 0x101e || device == 0x1021))
		return PCI_KIND_RDMA_NIC;
	if (header_type == 1 || (class_code >> 8) == 0x0604)
		return PCI_KIND_BRIDGE;
	return PCI_KIND_OTHER;
}

static int pcitopo_name_cmp(const void *pa, const void *pb)
{
	const struct pcitopo_name *a = pa, *b = pb;
	/* domain (24 bits), bus (8), dev (5), func (3): one number in the order lspci sorts them. */
	uint64_t x = (uint64_t)a->domain << 16 | a->bus << 8 | a->dev << 3 | a->func;
	uint64_t y = (uint64_t)b->domain << 16 | b->bus << 8 | b->dev << 3 | b->func;

	return (x > y) - (x < y);
}

/* Copy @src into @dst (@len bytes); -ENAMETOOLONG, and @dst untouched, when it does not fit. */
static int pcitopo_copy(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len);

	if (n >= len)
		return -ENAMETOOLONG;
	memcpy(dst, src, n + 1);
	return 0;
}

/* A name we are willing to report: printable, no '/' or space, shorter than @max. */
static bool pcitopo_name_ok(const char *s, size_t max)
{
	size_t len = strnlen(s, max);

	if (len == 0 || len >= max || strcmp(s, ".") == 0 || strcmp(s, "..") == 0)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isgraph((unsigned char)s[i]) || s[i] == '/')
			return false;
	return true;
}

/* "sys/bus/pci/devices/<bdf>/<name>" (@name "" for the directory) into @buf. */
static void pcitopo_dev_path(char *buf, size_t len, const char *bdf, const char *name)
{
	/*
	 * A BDF is at most 14 bytes and @name one of ours: always fits PCITOPO_PATH_MAX. Joined by
	 * hand: it runs a dozen times per function, and snprintf() was a sixth of --once's work.
	 */
	size_t nd = sizeof(PCITOPO_DEVICES) - 1, nb = strlen(bdf), nn = strlen(name);

	if (nd + 1 + nb + 1 + nn >= len) {
		snprintf(buf, len, PCITOPO_DEVICES "/%s%s%s", bdf, *name ? "/" : "", name);
		return;
	}
	memcpy(buf, PCITOPO_DEVICES "/", nd + 1);
	memcpy(buf + nd + 1, bdf, nb);
	buf += nd + 1 + nb;
	if (nn) {
		*buf++ = '/';
		memcpy(buf, name, nn);
		buf += nn;
	}
	*buf = '\0';
}

/* Say in ctx->msg why @path (root-relative, short) could not be used, from hostfs's -errno @r. */
static int pcitopo_file_error(struct pcitopo_ctx *ctx, int rootfd, const char *path, int r)
{
	int err;

	if (r == -EINVAL)
		snprintf(ctx->msg, sizeof(ctx->msg), "/%s is %s, not a regular file", path,
			 obs_file_type_name(hostfs_type(rootfd, path, false, &err)));
	else if (r == -ELOOP)
		snprintf(ctx->msg, sizeof(ctx->msg), "/%s is a symbolic link, not a sysfs attribute", path);
	else if (r == -ENOENT)
		snprintf(ctx->msg, sizeof(ctx->msg), "/%s is missing", path);
	else
		snprintf(ctx->msg, sizeof(ctx->msg), "/%s: %s", path, strerror(-r));
	return r;
}

/*
 * One sysfs ID file of the function's directory @dfd read strictly (@type: its type, known when
 * vetted): libpci would parse it with strtol() and keep the low bits, so "0x1234567890abcdef"
 * would become vendor 0xcdef and the function would silently change kind.
 */
static int pcitopo_read_hex(struct pcitopo_ctx *ctx, int rootfd, int dfd, mode_t type,
			    const char *bdf, const char *name, const char *what, unsigned digits, uint32_t *ret)
{
	char path[PCITOPO_PATH_MAX], buf[64], q[sizeof(buf) * 4 + 8];
	size_t len;
	bool trunc;
	int r;

	pcitopo_dev_path(path, sizeof(path), bdf, name);
	r = hostfs_read_at(dfd, name, type, buf, sizeof(buf) - 1, &len, &trunc);
	if (r < 0)
		return pcitopo_file_error(ctx, rootfd, path, r);
	buf[len] = '\0';
	if (trunc || strlen(buf) != len || pcitopo_parse_hex(buf, len, digits, ret) < 0) {
		if (len && buf[len - 1] == '\n')
			buf[len - 1] = '\0';   /* the usual newline is no part of what is wrong */
		obs_host_quote(buf, q, sizeof(q));
		snprintf(ctx->msg, sizeof(ctx->msg), "/%s: invalid %s %s%s (not a %u-digit hex number)", path,
			 what, q, trunc ? "..." : "", digits);
		return -EINVAL;
	}
	return 0;
}

/*
 * Before anything reads a function, from its directory resolved inside the root: each file
 * below must be a regular file, not a link (a fifo would block a reader forever), and config
 * must hold at least the 64-byte header. A real sysfs passes. What fails is named, file and
 * cause; the function is then left out whole.
 */
enum pcitopo_file {
	PCITOPO_VENDOR, PCITOPO_DEVICE, PCITOPO_CLASS, PCITOPO_CONFIG,
	PCITOPO_NUMA, PCITOPO_DRIVER, PCITOPO_NET, PCITOPO_NFILES
};

static const char *const pcitopo_file_names[PCITOPO_NFILES] = {
	"vendor", "device", "class", "config", "numa_node", "driver", "net",
};

static const struct {
	bool vetted;            /* required, and a regular file, before the function is read */
	const char *what;       /* read here as a hex number of @digits, when set */
	unsigned digits;
} pcitopo_files[PCITOPO_NFILES] = {
	[PCITOPO_VENDOR] = { true, "vendor ID", 4 },
	[PCITOPO_DEVICE] = { true, "device ID", 4 },
	[PCITOPO_CLASS] = { true, "class code", 6 },
	[PCITOPO_CONFIG] = { true, NULL, 0 },
};

/*
 * Vet each file of the function's directory @dfd from its type in the listing (@type: updated
 * where an lstat was needed: an unknown type, config's size). 0, or -errno with ctx->msg.
 */
static int pcitopo_vet_files(struct pcitopo_ctx *ctx, int rootfd, int dfd, const char *bdf,
			     mode_t type[PCITOPO_NFILES])
{
	char path[PCITOPO_PATH_MAX];

	for (size_t i = 0; i < PCITOPO_NFILES; i++) {
		const char *name = pcitopo_file_names[i];
		struct stat st = { .st_size = PCITOPO_CONFIG_LEN };

		if (!pcitopo_files[i].vetted)
			continue;
		pcitopo_dev_path(path, sizeof(path), bdf, name);
		if (type[i] == HOSTFS_TYPE_ABSENT)
			return pcitopo_file_error(ctx, rootfd, path, -ENOENT);
		if (!type[i] || (i == PCITOPO_CONFIG && S_ISREG(type[i]))) {
			if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
				return pcitopo_file_error(ctx, rootfd, path, -errno);
			type[i] = st.st_mode & S_IFMT;
		}
		if (S_ISLNK(type[i]))
			return pcitopo_file_error(ctx, rootfd, path, -ELOOP);
		if (!S_ISREG(type[i]))
			return pcitopo_file_error(ctx, rootfd, path, -EINVAL);
		if (i == PCITOPO_CONFIG && st.st_size < PCITOPO_CONFIG_LEN) {
			snprintf(ctx->msg, sizeof(ctx->msg), "/%s: PCI config space unreadable: %lld byte%s, "
				 "shorter than the %d-byte header", path, (long long)st.st_size,
				 st.st_size == 1 ? "" : "s", PCITOPO_CONFIG_LEN);
			return -EBADMSG;
		}
	}
	return 0;
}

/*
 * Vet the function @bdf and read its IDs and class into @f; @type gets the type of each of
 * pcitopo_files from one listing of its directory.
 * Return: its directory (an fd resolved inside the root; the caller closes it), or -errno
 * with ctx->msg saying what and where.
 */
static int pcitopo_vet(struct pcitopo_ctx *ctx, int rootfd, const char *bdf, struct obs_pci_func *f,
		       mode_t type[PCITOPO_NFILES])
{
	char dev[PCITOPO_PATH_MAX];
	uint32_t v[PCITOPO_NFILES] = { 0 };
	int dfd, r;

	pcitopo_dev_path(dev, sizeof(dev), bdf, "");
	dfd = hostfs_open(rootfd, dev, O_RDONLY | O_DIRECTORY | O_NONBLOCK);
	if (dfd < 0) {
		/* devices/ holds links: dangling (ENOENT), looping (ELOOP), or not to a directory. */
		snprintf(ctx->msg, sizeof(ctx->msg), "/%s: %s", dev, strerror(-dfd));
		return dfd;
	}
	hostfs_list_types(dfd, pcitopo_file_names, PCITOPO_NFILES, type);     /* failed: all 0, lstat each */
	r = pcitopo_vet_files(ctx, rootfd, dfd, bdf, type);
	for (size_t i = 0; r == 0 && i < PCITOPO_NFILES; i++)
		if (pcitopo_files[i].what)
			r = pcitopo_read_hex(ctx, rootfd, dfd, type[i], bdf, pcitopo_file_names[i],
					     pcitopo_files[i].what, pcitopo_files[i].digits, &v[i]);
	if (r < 0) {
		close(dfd);
		return r;
	}
	f->vendor = (uint16_t)v[PCITOPO_VENDOR];
	f->device = (uint16_t)v[PCITOPO_DEVICE];
	f->class_code = v[PCITOPO_CLASS];
	return dfd;
}

/*
 * numa_node: a decimal integer and a newline; garbage (or no file) is -1, unknown. A file that
 * is not a regular one (a fifo would block a reader) or cannot be read fails the function.
 */
static int pcitopo_read_numa(struct pcitopo_ctx *ctx, int rootfd, int dfd, mode_t type, const char *bdf,
			     int *ret)
{
	char path[PCITOPO_PATH_MAX], buf[32];
	size_t len;
	bool trunc;
	int r;

	*ret = -1;
	pcitopo_dev_path(path, sizeof(path), bdf, "numa_node");
	r = type == HOSTFS_TYPE_ABSENT ? -ENOENT :
	    hostfs_read_at(dfd, "numa_node", type, buf, sizeof(buf) - 1, &len, &trunc);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return pcitopo_file_error(ctx, rootfd, path, r);
	buf[len] = '\0';
	if (!trunc && strlen(buf) == len)
		*ret = pcitopo_parse_numa(buf);
	return 0;
}

/*
 * The bound driver: basename of the `driver` link, "" when absent, dangling or odd. The link's
 * text is read in the directory already resolved; it is followed inside the root.
 */
static void pcitopo_read_driver(int rootfd, int dfd, mode_t type, const char *bdf, char *out, size_t outlen)
{
	char path[PCITOPO_PATH_MAX], target[PATH_MAX];
	const char *base;
	ssize_t n;
	int err;

	out[0] = '\0';
	if (type == HOSTFS_TYPE_ABSENT)
		return;
	n = readlinkat(dfd, "driver", target, sizeof(target));
	if (n <= 0 || (size_t)n >= sizeof(target))
		return;
	target[n] = '\0';
	pcitopo_dev_path(path, sizeof(path), bdf, "driver");
	if (hostfs_type(rootfd, path, true, &err) != OBS_FILE_DIR)
		return;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (pcitopo_name_ok(base, outlen))
		pcitopo_copy(out, outlen, base);
}

/* The first (by name) entry of @d that passes pcitopo_name_ok(); closes @d. */
static void pcitopo_first_entry(DIR *d, char *out, size_t outlen)
{
	struct dirent *de;
	size_t seen = 0;

	out[0] = '\0';
	while ((de = readdir(d)) && seen++ < PCITOPO_MAX_NETDEVS) {
		if (de->d_name[0] == '.' || !pcitopo_name_ok(de->d_name, outlen))
			continue;
		if (!out[0] || strcmp(de->d_name, out) < 0)
			pcitopo_copy(out, outlen, de->d_name);
	}
	closedir(d);
}

/*
 * The usual shape, known without walking the whole path: the `device` link's last component X
 * is a BDF, and the entry X beside the directory the link leads to is that very directory (not
 * a link to it): then X is the last component of its canonical path. 0 (@out written), or
 * -EAGAIN: walk instead.
 */
static int pcitopo_netdev_bdf_direct(int rootfd, const char *path, char *out)
{
	char target[PATH_MAX], beside[PATH_MAX];
	struct pcitopo_name n;
	struct stat dev, named;
	const char *x;

	if (hostfs_readlink(rootfd, path, target, sizeof(target)) <= 0)
		return -EAGAIN;
	x = strrchr(target, '/');
	x = x ? x + 1 : target;
	if (pcitopo_parse_bdf(x, &n) < 0 || snprintf(beside, sizeof(beside), "%s/../%s", path, x) >= (int)sizeof(beside))
		return -EAGAIN;
	if (hostfs_stat(rootfd, path, true, &dev) < 0 || hostfs_stat(rootfd, beside, false, &named) < 0 ||
	    dev.st_dev != named.st_dev || dev.st_ino != named.st_ino)
		return -EAGAIN;
	memcpy(out, n.bdf, OBS_BDF_MAX);
	return 0;
}

/* The PCI function a netdev's `device` link leads to (inside the root): the nearest BDF-named ancestor. */
static int pcitopo_netdev_bdf(int rootfd, const char *ifname, char *out)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct pcitopo_name n;
	char *slash;
	int r;

	if (snprintf(path, sizeof(path), "sys/class/net/%s/device", ifname) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	if (pcitopo_netdev_bdf_direct(rootfd, path, out) == 0)
		return 0;
	r = hostfs_realpath(rootfd, path, real, sizeof(real));
	if (r < 0)
		return r;
	/* virtio NICs: .../0000:00:03.0/virtio0 -> walk up to the PCI function. */
	while ((slash = strrchr(real, '/'))) {
		if (pcitopo_parse_bdf(slash + 1, &n) == 0) {
			memcpy(out, n.bdf, OBS_BDF_MAX);
			return 0;
		}
		*slash = '\0';
	}
	return -ENODEV;
}

/* <root>/sys/class/net/<if>/device -> BDF, for functions without a net/ folder. */
static void pcitopo_netmap_load(int rootfd, struct pcitopo_netmap *m)
{
	struct dirent *de;
	DIR *d;

	m->loaded = true;
	/* Room for the most kept: pages never written are never touched. */
	m->v = malloc(PCITOPO_MAX_NETDEVS * sizeof(*m->v));
	if (!m->v || hostfs_opendir(rootfd, "sys/class/net", &d) < 0)
		return;
	while ((de = readdir(d)) && m->n < PCITOPO_MAX_NETDEVS) {
		struct pcitopo_netdev *nd = &m->v[m->n];

		if (de->d_name[0] == '.' || !pcitopo_name_ok(de->d_name, sizeof(nd->name)))
			continue;
		pcitopo_copy(nd->name, sizeof(nd->name), de->d_name);
		if (pcitopo_netdev_bdf(rootfd, nd->name, nd->bdf) == 0)
			m->n++;
	}
	closedir(d);
}

/*
 * The function's interface: the entry of its net/ folder, or, without one, class/net's. A net/
 * that exists but cannot be listed (a looping link, a file, no permission) is not "no netdev"
 * (which reads as a NIC moved into a pod): the function fails, naming it.
 */
static int pcitopo_read_netdev(struct pcitopo_ctx *ctx, int rootfd, int dfd, mode_t type, const char *bdf,
			       struct pcitopo_netmap *m, char *out, size_t outlen)
{
	char path[PCITOPO_PATH_MAX];
	DIR *d;
	int r;

	out[0] = '\0';
	pcitopo_dev_path(path, sizeof(path), bdf, "net");
	/* The usual folder in the directory at hand; anything else (a link...) again from the root. */
	r = type == HOSTFS_TYPE_ABSENT ? -ENOENT : hostfs_opendir(dfd, "net", &d);
	if (r < 0 && type != HOSTFS_TYPE_ABSENT)
		r = hostfs_opendir(rootfd, path, &d);
	if (r == 0) {
		pcitopo_first_entry(d, out, outlen);
		return 0;       /* an empty net/ is a NIC whose netdev left this namespace */
	}
	if (r == -ENOTDIR)
		return pcitopo_file_error(ctx, rootfd, path, -EINVAL);
	if (r != -ENOENT) {
		snprintf(ctx->msg, sizeof(ctx->msg), "/%s: %s", path, strerror(-r));
		return r;
	}
	if (!m->loaded)
		pcitopo_netmap_load(rootfd, m);
	/* The first by name of the interfaces that name it. */
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].bdf, bdf) == 0 && (!out[0] || strcmp(m->v[i].name, out) < 0))
			pcitopo_copy(out, outlen, m->v[i].name);
	return 0;
}

/*
 * The config header of one function (vetted: a regular file of at least its size): header type
 * and bus range (the IDs and class in @f are pcitopo_vet()'s).
 */
static int pcitopo_fill_config(struct pcitopo_ctx *ctx, int dfd, const struct pcitopo_name *n, struct obs_pci_func *f)
{
	uint8_t cfg[PCITOPO_CONFIG_LEN];
	int header_type;
	size_t len = 0;
	bool trunc;
	int r = hostfs_read_at(dfd, "config", S_IFREG, (char *)cfg, sizeof(cfg), &len, &trunc);

	if (r < 0 || len != sizeof(cfg)) {
		/* Bus ranges (pairing) and header types live there: without them nothing is known. */
		if (r < 0)
			snprintf(ctx->msg, sizeof(ctx->msg), "/" PCITOPO_DEVICES "/%s/config: PCI config space "
				 "unreadable: %s", n->bdf, strerror(-r));
		else
			snprintf(ctx->msg, sizeof(ctx->msg), "/" PCITOPO_DEVICES "/%s/config: PCI config space "
				 "unreadable: %zu of its %d-byte header read", n->bdf, len, PCITOPO_CONFIG_LEN);
		return -EIO;
	}
	header_type = cfg[0x0e] & 0x7f;
	if (header_type == 1 && cfg[0x19] <= cfg[0x1a]) {
		f->has_bus_range = true;
		f->secondary = cfg[0x19];
		f->subordinate = cfg[0x1a];
	}
	if (f->vendor == 0x0000 || f->vendor == 0xffff) {
		snprintf(ctx->msg, sizeof(ctx->msg), "/" PCITOPO_DEVICES "/%s/vendor: invalid vendor ID 0x%04x "
			 "(no device answers there)", n->bdf, f->vendor);
		return -EINVAL;
	}
	f->kind = pcitopo_classify(f->vendor, f->device, f->class_code, header_type);
	return 0;
}

/* List <devices> into a sorted array of BDF names; bad names are counted in @bad/@first_bad. */
static int pcitopo_list(int rootfd, struct pcitopo_name **ret, size_t *ret_n,
			size_t *bad, char *first_bad, size_t first_bad_len)
{
	struct pcitopo_name *v;
	size_t n = 0;
	struct dirent *de;
	DIR *d;
	int r = hostfs_opendir(rootfd, PCITOPO_DEVICES, &d);

	if (r < 0)
		return r;
	/* Room for the most we accept: pages never written are never touched. */
	v = malloc(PCITOPO_MAX_FUNCS * sizeof(*v));
	if (!v) {
		closedir(d);
		return -ENOMEM;
	}
	while ((de = readdir(d))) {
		struct pcitopo_name nm;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (pcitopo_parse_bdf(de->d_name, &nm) < 0) {
			if ((*bad)++ == 0) {
				/* it goes into the report: no control characters from a hostile name */
				snprintf(first_bad, first_bad_len, "%.64s", de->d_name);
				for (char *c = first_bad; *c; c++)
					if (!isprint((unsigned char)*c))
						*c = '?';
			}
			continue;
		}
		if (n == PCITOPO_MAX_FUNCS) {
			r = -E2BIG;
			break;
		}
		v[n++] = nm;
	}
	closedir(d);
	if (r < 0) {
		free(v);
		return r;
	}
	if (n)
		qsort(v, n, sizeof(*v), pcitopo_name_cmp);
	*ret = v;
	*ret_n = n;
	return 0;
}

/*
 * One function @n into @f: vetted, IDs and class, its config header, driver, NUMA node, netdev.
 * Return: 0, or -errno with ctx->msg saying what (the function is then left out whole: a
 * half-read one would show a wrong state, e.g. in-pod).
 */
static int pcitopo_read_func(struct pcitopo_ctx *ctx, int rootfd, const struct pcitopo_name *n,
			     struct pcitopo_netmap *netmap, struct obs_pci_func *f)
{
	mode_t type[PCITOPO_NFILES];
	int dfd, r;

	memset(f, 0, sizeof(*f));
	dfd = pcitopo_vet(ctx, rootfd, n->bdf, f, type);
	if (dfd < 0)
		return dfd;
	r = pcitopo_fill_config(ctx, dfd, n, f);
	if (r == 0) {
		memcpy(f->bdf, n->bdf, sizeof(f->bdf));
		f->domain = n->domain;
		f->bus = n->bus;
		f->dev = n->dev;
		f->func = n->func;
		pcitopo_read_driver(rootfd, dfd, type[PCITOPO_DRIVER], n->bdf, f->driver, sizeof(f->driver));
		r = pcitopo_read_numa(ctx, rootfd, dfd, type[PCITOPO_NUMA], n->bdf, &f->numa);
	}
	if (r == 0)
		r = pcitopo_read_netdev(ctx, rootfd, dfd, type[PCITOPO_NET], n->bdf, netmap, f->netdev,
					sizeof(f->netdev));
	close(dfd);
	return r;
}

int pcitopo_scan(int rootfd, const char *root, struct obs_pci *ret)
{
	struct pcitopo_ctx ctx;
	struct pcitopo_netmap netmap = { 0 };
	struct pcitopo_name *names = NULL;
	struct obs_pci out = { 0 };
	char first_bad[80] = "", first_err[OBS_MSG_MAX] = "";
	size_t n_names = 0, bad_names = 0, bad_funcs = 0;
	int r;

	if (rootfd < 0) {
		probe_status_fail(&out.status, rootfd, "%s: %s", root, strerror(-rootfd));
		*ret = out;
		return rootfd;
	}
	r = pcitopo_list(rootfd, &names, &n_names, &bad_names, first_bad, sizeof(first_bad));
	if (r < 0) {
		if (r == -E2BIG)
			probe_status_fail(&out.status, r, "/%s: more than %d PCI functions", PCITOPO_DEVICES,
					  PCITOPO_MAX_FUNCS);
		else
			probe_status_fail(&out.status, r, "/%s: %s", PCITOPO_DEVICES, strerror(-r));
		goto done;
	}
	if (n_names) {
		out.v = calloc(n_names, sizeof(*out.v));
		if (!out.v) {
			r = -ENOMEM;
			probe_status_fail(&out.status, r, "PCI scan: out of memory");
			goto done;
		}
	}
	for (size_t i = 0; i < n_names; i++) {
		ctx.msg[0] = '\0';
		if (pcitopo_read_func(&ctx, rootfd, &names[i], &netmap, &out.v[out.n]) < 0) {
			if (bad_funcs++ == 0)
				snprintf(first_err, sizeof(first_err), "%.*s", (int)sizeof(first_err) - 1,
					 ctx.msg[0] ? ctx.msg : names[i].bdf);
			continue;
		}
		out.n++;
	}

	if (bad_funcs) {
		r = -EIO;
		probe_status_fail(&out.status, r, "%zu of %zu PCI functions unreadable, first: %s",
				  bad_funcs, n_names, first_err);
	} else if (bad_names) {
		r = -EINVAL;
		probe_status_fail(&out.status, r, "/%s: %zu entries are not PCI addresses, first: '%s'",
				  PCITOPO_DEVICES, bad_names, first_bad);
	} else {
		r = 0;
		out.status.state = PROBE_OK;
	}
done:
	free(names);
	free(netmap.v);
	*ret = out;
	return r;
}

