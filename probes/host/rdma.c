/* rdma.c - the RDMA devices of <root>/sys/class/infiniband (kernel ABI sysfs-class-infiniband). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probes/host/hostfs.h"
#include "probes/host/pcitopo_parse.h"
#include "probes/host/rdma.h"

#define RDMA_DIR "sys/class/infiniband"
#define RDMA_TEXT_MAX 128

int rdma_parse_state(const char *text, int *ret_num, char *name, size_t len)
{
	char *end;
	long v;
	size_t n;

	errno = 0;
	v = strtol(text, &end, 10);
	if (end == text || errno || v < 0 || v > 255 || end[0] != ':' || end[1] != ' ')
		return -EINVAL;
	end += 2;
	n = strcspn(end, "\n");
	if (n == 0 || n >= len || (end[n] == '\n' && end[n + 1] != '\0') || (end[n] && end[n] != '\n'))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (end[i] < ' ' || end[i] > '~')
			return -EINVAL;
	memcpy(name, end, n);
	name[n] = '\0';
	*ret_num = (int)v;
	return 0;
}

static int rdma_hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rdma_parse_gid(const char *text, uint8_t gid[16])
{
	/* 8 groups x 4 digits + 7 colons = 39 characters, then at most a newline. */
	for (size_t g = 0; g < 8; g++) {
		const char *p = text + g * 5;
		int d[4];

		for (size_t i = 0; i < 4; i++)
			if ((d[i] = rdma_hex(p[i])) < 0)
				return -EINVAL;
		if (p[4] != (g == 7 ? p[4] : ':'))
			return -EINVAL;
		gid[2 * g] = (uint8_t)(d[0] << 4 | d[1]);
		gid[2 * g + 1] = (uint8_t)(d[2] << 4 | d[3]);
	}
	if (!(text[39] == '\0' || (text[39] == '\n' && text[40] == '\0')))
		return -EINVAL;
	return 0;
}

bool rdma_gid_ipv4(const uint8_t gid[16], uint32_t *ret)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(gid, prefix, sizeof(prefix)) != 0)
		return false;
	memcpy(ret, gid + 12, 4);
	return true;
}

/* The text of the small sysfs file @dev/@rel, newline kept; "" when unreadable. Return: 0 or -errno. */
static int rdma_read(int rootfd, const char *dev, const char *rel, char *buf, size_t size)
{
	char path[PATH_MAX];
	size_t len = 0;
	bool trunc = false;
	int r;

	buf[0] = '\0';
	if (snprintf(path, sizeof(path), RDMA_DIR "/%s/%s", dev, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	r = hostfs_read(rootfd, path, buf, size - 1, &len, &trunc);
	if (r < 0)
		return r;
	if (trunc)
		return -EFBIG;
	buf[len] = '\0';
	if (strlen(buf) != len)         /* a NUL inside: not the kernel's text */
		return -EINVAL;
	return 0;
}

/* One line of text without its newline, kept only when printable and shorter than @len. */
static void rdma_line(const char *text, char *out, size_t len)
{
	size_t n = strcspn(text, "\n");

	out[0] = '\0';
	if (n == 0 || n >= len)
		return;
	for (size_t i = 0; i < n; i++)
		if (text[i] < ' ' || text[i] > '~')
			return;
	memcpy(out, text, n);
	out[n] = '\0';
}

/* The first non-zero RoCE v2 GID of port 1 (an IPv4-mapped one preferred) and the netdev it names. */
static void rdma_scan_gids(int rootfd, struct obs_rdma_dev *d)
{
	char text[RDMA_TEXT_MAX], rel[64];

	for (int i = 0; i < OBS_RDMA_GIDS; i++) {
		static const uint8_t zero[16];
		uint8_t gid[16];
		uint32_t ip = 0;
		bool v4;

		snprintf(rel, sizeof(rel), "ports/1/gid_attrs/types/%d", i);
		if (rdma_read(rootfd, d->name, rel, text, sizeof(text)) < 0 || strcmp(text, "RoCE v2\n") != 0)
			continue;
		snprintf(rel, sizeof(rel), "ports/1/gids/%d", i);
		if (rdma_read(rootfd, d->name, rel, text, sizeof(text)) < 0 || rdma_parse_gid(text, gid) < 0 ||
		    memcmp(gid, zero, sizeof(zero)) == 0)
			continue;
		v4 = rdma_gid_ipv4(gid, &ip);
		if (d->roce_v2 && (d->roce_v2_ipv4 || !v4))
			continue;
		d->roce_v2 = true;
		d->roce_v2_ipv4 = v4;
		d->gid_ipv4 = v4 ? ip : 0;
		d->gid_index = i;
		snprintf(rel, sizeof(rel), "ports/1/gid_attrs/ndevs/%d", i);
		if (rdma_read(rootfd, d->name, rel, text, sizeof(text)) == 0)
			rdma_line(text, d->netdev, sizeof(d->netdev));
		if (v4)
			break;  /* an IPv4-mapped RoCE v2 GID is what is kept: the rest need not be read */
	}
}

static void rdma_scan_dev(int rootfd, struct obs_rdma_dev *d)
{
	char text[RDMA_TEXT_MAX], path[PATH_MAX], real[PATH_MAX];
	struct pcitopo_name bdf;
	const char *base;
	int err;

	d->state = d->phys_state = d->gid_index = -1;
	/* The device link names the PCI function ("dranet pciAddressForRDMADevice" follows it too). */
	snprintf(path, sizeof(path), RDMA_DIR "/%s/device", d->name);
	if (hostfs_realpath(rootfd, path, real, sizeof(real)) == 0 && (base = strrchr(real, '/')) &&
	    pcitopo_parse_bdf(base + 1, &bdf) == 0 && strlen(base + 1) < sizeof(d->bdf))
		snprintf(d->bdf, sizeof(d->bdf), "%s", base + 1);
	snprintf(path, sizeof(path), RDMA_DIR "/%s/ports/1", d->name);
	d->port = hostfs_type(rootfd, path, true, &err) == OBS_FILE_DIR;
	if (!d->port)
		return;
	if (rdma_read(rootfd, d->name, "ports/1/state", text, sizeof(text)) == 0 &&
	    rdma_parse_state(text, &d->state, d->state_text, sizeof(d->state_text)) < 0)
		d->state = -1;
	if (rdma_read(rootfd, d->name, "ports/1/phys_state", text, sizeof(text)) == 0 &&
	    rdma_parse_state(text, &d->phys_state, d->phys_text, sizeof(d->phys_text)) < 0)
		d->phys_state = -1;
	if (rdma_read(rootfd, d->name, "ports/1/link_layer", text, sizeof(text)) == 0)
		rdma_line(text, d->link_layer, sizeof(d->link_layer));
	rdma_scan_gids(rootfd, d);
}

static int rdma_cmp(const void *a, const void *b)
{
	return strcmp(((const struct obs_rdma_dev *)a)->name, ((const struct obs_rdma_dev *)b)->name);
}

int rdma_scan(int rootfd, struct obs_rdma *ret)
{
	struct obs_rdma *m = ret;
	struct dirent *de;
	DIR *dir;
	int r;

	*m = (struct obs_rdma){ 0 };
	r = hostfs_opendir(rootfd, RDMA_DIR, &dir);
	if (r == -ENOENT) {
		m->status.state = PROBE_OK;
		return 0;
	}
	if (r < 0) {
		probe_status_fail(&m->status, r, "/%s: %s", RDMA_DIR, strerror(-r));
		return 0;
	}
	m->present = true;
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		if (m->n == OBS_RDMA_MAX || strlen(de->d_name) >= OBS_RDMA_NAME_MAX) {
			/* A listing without end (a hostile --root) is not followed past a bound. */
			if (++m->n_dropped >= 4 * OBS_RDMA_MAX)
				break;
			continue;
		}
		snprintf(m->v[m->n++].name, OBS_RDMA_NAME_MAX, "%s", de->d_name);
	}
	closedir(dir);
	qsort(m->v, m->n, sizeof(m->v[0]), rdma_cmp);
	for (size_t i = 0; i < m->n; i++)
		rdma_scan_dev(rootfd, &m->v[i]);
	m->status.state = PROBE_OK;
	return 0;
}
