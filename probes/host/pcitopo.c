/* pcitopo.c - the PCI functions under <root>/sys/bus/pci, read with libpci (its only includer). */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <pci/pci.h>

#include "probes/host/pcitopo.h"

#define PCITOPO_MAX_FUNCS 8192          /* a real host has a few hundred at most */
#define PCITOPO_MAX_NETDEVS 4096
#define PCITOPO_CONFIG_LEN 64           /* what an unprivileged reader gets: the header */

/* The scan in progress on this thread: where libpci's no-return error hook jumps back to. */
struct pcitopo_ctx {
	jmp_buf jmp;
	bool armed;
	char msg[OBS_MSG_MAX];
};

static __thread struct pcitopo_ctx *pcitopo_ctx;

struct pcitopo_name {
	unsigned domain, bus, dev, func;
	char bdf[OBS_BDF_MAX];
};

struct pcitopo_netdev {
	char name[OBS_IFNAME_MAX];
	char bdf[OBS_BDF_MAX];
};

struct pcitopo_netmap {
	struct pcitopo_netdev *v;       /* sorted by name */
	size_t n;
	bool loaded;
};

static void pcitopo_error(char *msg, ...) __attribute__((noreturn, format(printf, 1, 2)));
static void pcitopo_error(char *msg, ...)
{
	struct pcitopo_ctx *ctx = pcitopo_ctx;
	va_list ap;

	if (!ctx || !ctx->armed) {
		/* Unreachable: every libpci call below runs with the jump armed. */
		fputs("pcitopo: libpci error outside a scan\n", stderr);
		abort();
	}
	va_start(ap, msg);
	vsnprintf(ctx->msg, sizeof(ctx->msg), msg, ap);
	va_end(ap);
	ctx->armed = false;
	longjmp(ctx->jmp, 1);
}

/* libpci warns about e.g. an unopenable config file; the failed read says it again, ours. */
static void pcitopo_quiet(char *msg, ...) __attribute__((format(printf, 1, 2)));
static void pcitopo_quiet(char *msg, ...)
{
}

enum pci_kind pcitopo_classify(uint16_t vendor, uint16_t device, uint32_t class_code, int header_type)
{
	if (vendor == 0x10de && device == 0x2330)
		return PCI_KIND_GPU;
	if (vendor == 0x10de && (class_code >> 16) == 0x03)
		return PCI_KIND_OTHER_GPU;
	if (vendor == 0x1ae0 && device == 0x0042)
		return PCI_KIND_GVNIC;
	if (vendor == 0x1ae0 && device == 0x0084)
		return PCI_KIND_LLCM;
	if (header_type == 1 || (class_code >> 8) == 0x0604)
		return PCI_KIND_BRIDGE;
	return PCI_KIND_OTHER;
}

/* Parse a canonical sysfs BDF name ("0000:06:00.0", lower-case hex, 4..6 domain digits). */
static int pcitopo_parse_bdf(const char *s, struct pcitopo_name *ret)
{
	struct pcitopo_name n = { 0 };
	char canon[32];
	size_t len = strnlen(s, sizeof(canon));

	if (len < 12 || len >= OBS_BDF_MAX)
		return -EINVAL;
	if (sscanf(s, "%x:%x:%x.%x", &n.domain, &n.bus, &n.dev, &n.func) != 4)
		return -EINVAL;
	if (n.domain > 0xffffff || n.bus > 0xff || n.dev > 0x1f || n.func > 7)
		return -EINVAL;
	snprintf(canon, sizeof(canon), "%04x:%02x:%02x.%x", n.domain, n.bus, n.dev, n.func);
	if (strcmp(canon, s) != 0)
		return -EINVAL;
	memcpy(n.bdf, canon, len + 1);
	*ret = n;
	return 0;
}

int pcitopo_bdf_canonical(const char *s)
{
	struct pcitopo_name n;

	return pcitopo_parse_bdf(s, &n);
}

static int pcitopo_name_cmp(const void *pa, const void *pb)
{
	const struct pcitopo_name *a = pa, *b = pb;

	if (a->domain != b->domain)
		return a->domain < b->domain ? -1 : 1;
	if (a->bus != b->bus)
		return a->bus < b->bus ? -1 : 1;
	if (a->dev != b->dev)
		return a->dev < b->dev ? -1 : 1;
	if (a->func != b->func)
		return a->func < b->func ? -1 : 1;
	return 0;
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

/* "<dir>/<name>" into @buf; -ENAMETOOLONG when it does not fit. */
static int pcitopo_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Read a small text file; -errno, or the number of bytes (NUL-terminated, < @len). */
static ssize_t pcitopo_read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n >= 0)
		buf[n] = '\0';
	return n;
}

int pcitopo_parse_numa(const char *text)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno || end == text || (*end && strcmp(end, "\n") != 0) || v < -1 || v > 4095)
		return -1;
	return (int)v;
}

/* numa_node: a decimal integer and a newline; anything else (or absent) is -1. */
static int pcitopo_read_numa(const char *devdir)
{
	char path[PATH_MAX], buf[32];

	if (pcitopo_path(path, sizeof(path), devdir, "numa_node") < 0 ||
	    pcitopo_read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	return pcitopo_parse_numa(buf);
}

/* The bound driver: basename of the `driver` link, "" when absent, dangling or odd. */
static void pcitopo_read_driver(const char *devdir, char *out, size_t outlen)
{
	char path[PATH_MAX], target[PATH_MAX];
	struct stat st;
	const char *base;
	ssize_t n;

	out[0] = '\0';
	if (pcitopo_path(path, sizeof(path), devdir, "driver") < 0)
		return;
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return;
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (pcitopo_name_ok(base, outlen))
		pcitopo_copy(out, outlen, base);
}

/* The first (by name) entry of @dir that passes pcitopo_name_ok(); -errno of opendir. */
static int pcitopo_first_entry(const char *dir, char *out, size_t outlen)
{
	struct dirent *de;
	DIR *d = opendir(dir);
	size_t seen = 0;

	out[0] = '\0';
	if (!d)
		return -errno;
	while ((de = readdir(d)) && seen++ < PCITOPO_MAX_NETDEVS) {
		if (de->d_name[0] == '.' || !pcitopo_name_ok(de->d_name, outlen))
			continue;
		if (!out[0] || strcmp(de->d_name, out) < 0)
			pcitopo_copy(out, outlen, de->d_name);
	}
	closedir(d);
	return 0;
}

/* The PCI function a netdev's `device` link leads to: the nearest BDF-named ancestor. */
static int pcitopo_netdev_bdf(const char *classdir, const char *ifname, char *out)
{
	char path[PATH_MAX], real[PATH_MAX];
	struct pcitopo_name n;
	char *slash;

	if (pcitopo_path(path, sizeof(path), classdir, ifname) < 0 ||
	    strlen(path) + sizeof("/device") > sizeof(path))
		return -ENAMETOOLONG;
	strcat(path, "/device");
	if (!realpath(path, real))
		return -errno;
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

static int pcitopo_netdev_cmp(const void *pa, const void *pb)
{
	return strcmp(((const struct pcitopo_netdev *)pa)->name, ((const struct pcitopo_netdev *)pb)->name);
}

/* <root>/sys/class/net/<if>/device -> BDF, for functions without a net/ folder. */
static void pcitopo_netmap_load(const char *root, struct pcitopo_netmap *m)
{
	char classdir[PATH_MAX];
	struct dirent *de;
	DIR *d;

	m->loaded = true;
	if (snprintf(classdir, sizeof(classdir), "%s/sys/class/net", root) >= (int)sizeof(classdir))
		return;
	d = opendir(classdir);
	if (!d)
		return;
	while ((de = readdir(d)) && m->n < PCITOPO_MAX_NETDEVS) {
		struct pcitopo_netdev nd = { 0 };
		void *grown;

		if (de->d_name[0] == '.' || !pcitopo_name_ok(de->d_name, sizeof(nd.name)))
			continue;
		pcitopo_copy(nd.name, sizeof(nd.name), de->d_name);
		if (pcitopo_netdev_bdf(classdir, nd.name, nd.bdf) < 0)
			continue;
		grown = realloc(m->v, (m->n + 1) * sizeof(*m->v));
		if (!grown)
			break;
		m->v = grown;
		m->v[m->n++] = nd;
	}
	closedir(d);
	if (m->n)
		qsort(m->v, m->n, sizeof(*m->v), pcitopo_netdev_cmp);
}

/* The function's interface: the entry of its net/ folder, or, without one, class/net's. */
static void pcitopo_read_netdev(const char *root, const char *devdir, const char *bdf,
				struct pcitopo_netmap *m, char *out, size_t outlen)
{
	char path[PATH_MAX];

	out[0] = '\0';
	if (pcitopo_path(path, sizeof(path), devdir, "net") < 0)
		return;
	if (pcitopo_first_entry(path, out, outlen) != -ENOENT)
		return;         /* an empty net/ is a NIC whose netdev left this namespace */
	if (!m->loaded)
		pcitopo_netmap_load(root, m);
	for (size_t i = 0; i < m->n; i++)
		if (strcmp(m->v[i].bdf, bdf) == 0) {
			pcitopo_copy(out, outlen, m->v[i].name);
			return;
		}
}

/*
 * The libpci part of one function: IDs and class from sysfs, header type and bus range from
 * config. A libpci error (missing vendor file, ...) jumps back here and fails this function.
 */
static int pcitopo_fill_libpci(struct pci_access *a, struct pcitopo_ctx *ctx,
			       const struct pcitopo_name *n, struct obs_pci_func *f)
{
	struct pci_dev *volatile d = NULL;
	uint8_t cfg[PCITOPO_CONFIG_LEN];
	volatile int header_type = -1;

	if (setjmp(ctx->jmp)) {
		if (d)
			pci_free_dev(d);
		return -EIO;
	}
	ctx->armed = true;
	d = pci_get_dev(a, (int)n->domain, (int)n->bus, (int)n->dev, (int)n->func);
	pci_fill_info(d, PCI_FILL_IDENT | PCI_FILL_CLASS | PCI_FILL_CLASS_EXT);
	f->vendor = d->vendor_id;
	f->device = d->device_id;
	f->class_code = (uint32_t)d->device_class << 8 | d->prog_if;
	if (pci_read_block(d, 0, cfg, sizeof(cfg))) {
		header_type = cfg[0x0e] & 0x7f;
		if (header_type == 1 && cfg[0x19] <= cfg[0x1a]) {
			f->has_bus_range = true;
			f->secondary = cfg[0x19];
			f->subordinate = cfg[0x1a];
		}
	}
	ctx->armed = false;
	pci_free_dev(d);
	d = NULL;
	if (f->vendor == 0x0000 || f->vendor == 0xffff) {
		snprintf(ctx->msg, sizeof(ctx->msg), "%s: invalid vendor ID 0x%04x", n->bdf, f->vendor);
		return -EINVAL;
	}
	f->kind = pcitopo_classify(f->vendor, f->device, f->class_code, header_type);
	return 0;
}

/* List <devices> into a sorted array of BDF names; bad names are counted in @bad/@first_bad. */
static int pcitopo_list(const char *devices, struct pcitopo_name **ret, size_t *ret_n,
			size_t *bad, char *first_bad, size_t first_bad_len)
{
	struct pcitopo_name *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *d = opendir(devices);
	int r = 0;

	if (!d)
		return -errno;
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
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : 64;
			void *grown = realloc(v, ncap * sizeof(*v));

			if (!grown) {
				r = -ENOMEM;
				break;
			}
			v = grown;
			cap = ncap;
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

/* pci_alloc + our hooks + the sysfs method on @busdir; NULL with ctx->msg set on failure. */
static struct pci_access *pcitopo_open(struct pcitopo_ctx *ctx, char *busdir)
{
	struct pci_access *volatile a = pci_alloc();

	if (!a) {
		snprintf(ctx->msg, sizeof(ctx->msg), "libpci: out of memory");
		return NULL;
	}
	a->error = pcitopo_error;
	a->warning = pcitopo_quiet;
	a->debug = pcitopo_quiet;
	a->method = PCI_ACCESS_SYS_BUS_PCI;
	if (setjmp(ctx->jmp)) {
		pci_cleanup(a);
		return NULL;
	}
	ctx->armed = true;
	if (pci_set_param(a, "sysfs.path", busdir) < 0) {
		ctx->armed = false;
		snprintf(ctx->msg, sizeof(ctx->msg), "libpci: no sysfs.path parameter");
		pci_cleanup(a);
		return NULL;
	}
	pci_init(a);
	ctx->armed = false;
	return a;
}

int pcitopo_scan(const char *root, struct obs_pci *ret)
{
	struct pcitopo_ctx ctx = { .armed = false };
	struct pcitopo_netmap netmap = { 0 };
	struct pcitopo_name *names = NULL;
	struct obs_pci out = { 0 };
	struct pci_access *a = NULL;
	char busdir[PATH_MAX], devices[PATH_MAX], first_bad[80] = "", first_err[OBS_MSG_MAX] = "";
	size_t n_names = 0, bad_names = 0, bad_funcs = 0;
	int r;

	if (!root || !*root)
		root = "/";
	if (snprintf(busdir, sizeof(busdir), "%s/sys/bus/pci", root) >= (int)sizeof(busdir) ||
	    pcitopo_path(devices, sizeof(devices), busdir, "devices") < 0) {
		r = -ENAMETOOLONG;
		probe_status_fail(&out.status, r, "%.200s...: path too long", root);
		goto done;
	}
	r = pcitopo_list(devices, &names, &n_names, &bad_names, first_bad, sizeof(first_bad));
	if (r < 0) {
		if (r == -E2BIG)
			probe_status_fail(&out.status, r, "%s: more than %d PCI functions", devices,
					  PCITOPO_MAX_FUNCS);
		else
			probe_status_fail(&out.status, r, "%s: %s", devices, strerror(-r));
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

	pcitopo_ctx = &ctx;
	a = pcitopo_open(&ctx, busdir);
	if (!a) {
		r = -EIO;
		probe_status_fail(&out.status, r, "%s: %s", busdir, ctx.msg);
		goto done;
	}
	for (size_t i = 0; i < n_names; i++) {
		struct obs_pci_func *f = &out.v[out.n];
		char devdir[PATH_MAX];

		memset(f, 0, sizeof(*f));
		ctx.msg[0] = '\0';
		if (pcitopo_path(devdir, sizeof(devdir), devices, names[i].bdf) < 0 ||
		    pcitopo_fill_libpci(a, &ctx, &names[i], f) < 0) {
			if (bad_funcs++ == 0)
				snprintf(first_err, sizeof(first_err), "%.*s", (int)sizeof(first_err) - 1,
					 ctx.msg[0] ? ctx.msg : devdir);
			continue;
		}
		memcpy(f->bdf, names[i].bdf, sizeof(f->bdf));
		f->domain = names[i].domain;
		f->bus = names[i].bus;
		f->dev = names[i].dev;
		f->func = names[i].func;
		f->numa = pcitopo_read_numa(devdir);
		pcitopo_read_driver(devdir, f->driver, sizeof(f->driver));
		pcitopo_read_netdev(root, devdir, f->bdf, &netmap, f->netdev, sizeof(f->netdev));
		out.n++;
	}

	if (bad_funcs) {
		r = -EIO;
		probe_status_fail(&out.status, r, "%zu of %zu PCI functions unreadable, first: %s",
				  bad_funcs, n_names, first_err);
	} else if (bad_names) {
		r = -EINVAL;
		probe_status_fail(&out.status, r, "%s: %zu entries are not PCI addresses, first: '%s'",
				  devices, bad_names, first_bad);
	} else {
		r = 0;
		out.status.state = PROBE_OK;
	}
done:
	if (a)
		pci_cleanup(a);
	pcitopo_ctx = NULL;
	free(names);
	free(netmap.v);
	*ret = out;
	return r;
}

void pcitopo_free(struct obs_pci *p)
{
	if (!p)
		return;
	free(p->v);
	p->v = NULL;
	p->n = 0;
}
