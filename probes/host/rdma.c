/* rdma.c - the RDMA devices of <root>/sys/class/infiniband (kernel ABI sysfs-class-infiniband). */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probes/host/hostfs.h"
#include "probes/host/pcitopo_parse.h"
#include "probes/host/rdma.h"

#define RDMA_DIR "sys/class/infiniband"
#define RDMA_TEXT_MAX 128

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

int rdma_parse_state(const char *text, int *ret_num, char *name, size_t len)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (end == text || errno || v < 0 || v > 255 || end[0] != ':' || end[1] != ' ')
		return -EINVAL;
	end += 2;
	rdma_line(end, name, len);
	end += strcspn(end, "\n");
	if (!name[0] || (*end && strcmp(end, "\n") != 0))
		return -EINVAL;
	*ret_num = (int)v;
	return 0;
}

int rdma_parse_gid(const char *text, uint8_t gid[16])
{
	char addr[40];

	/* 8 groups x 4 digits + 7 colons = 39 characters, then at most a newline; inet_pton() reads it. */
	if (strcspn(text, "\n") != 39 || (text[39] && strcmp(text + 39, "\n") != 0))
		return -EINVAL;
	for (size_t i = 0; i < 39; i++)
		if (i % 5 == 4 ? text[i] != ':' : !isxdigit((unsigned char)text[i]))
			return -EINVAL;
	memcpy(addr, text, 39);
	addr[39] = '\0';
	return inet_pton(AF_INET6, addr, gid) == 1 ? 0 : -EINVAL;
}

bool rdma_gid_ipv4(const uint8_t gid[16], uint32_t *ret)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	if (memcmp(gid, prefix, sizeof(prefix)) != 0)
		return false;
	memcpy(ret, gid + 12, 4);
	return true;
}

/* The text of the small sysfs file @name of @dirfd, newline kept; "" when unreadable. Return: 0 or -errno. */
static int rdma_read(int dirfd, const char *name, char *buf, size_t size)
{
	size_t len = 0;
	bool trunc = false;
	int r;

	buf[0] = '\0';
	r = hostfs_read_at(dirfd, name, 0, buf, size - 1, &len, &trunc);
	if (r < 0)
		return r;
	if (trunc)
		return -EFBIG;
	buf[len] = '\0';
	if (strlen(buf) != len)         /* a NUL inside: not the kernel's text */
		return -EINVAL;
	return 0;
}

/* The first non-zero RoCE v2 GID of port 1 (@portfd; an IPv4-mapped one preferred) and the netdev it names. */
static void rdma_scan_gids(int portfd, struct obs_rdma_dev *d)
{
	static const char *const dirs[] = { "gid_attrs/types", "gids", "gid_attrs/ndevs" };
	char text[RDMA_TEXT_MAX], idx[16];
	int fd[3];

	for (size_t k = 0; k < 3; k++)
		fd[k] = hostfs_open(portfd, dirs[k], O_PATH | O_DIRECTORY);
	for (int i = 0; fd[0] >= 0 && fd[1] >= 0 && i < OBS_RDMA_GIDS; i++) {
		static const uint8_t zero[16];
		uint8_t gid[16];
		uint32_t ip = 0;
		bool v4;

		snprintf(idx, sizeof(idx), "%d", i);
		if (rdma_read(fd[0], idx, text, sizeof(text)) < 0 || strcmp(text, "RoCE v2\n") != 0)
			continue;
		if (rdma_read(fd[1], idx, text, sizeof(text)) < 0 || rdma_parse_gid(text, gid) < 0 ||
		    memcmp(gid, zero, sizeof(zero)) == 0)
			continue;
		v4 = rdma_gid_ipv4(gid, &ip);
		if (d->roce_v2 && (d->roce_v2_ipv4 || !v4))
			continue;
		d->roce_v2 = true;
		d->roce_v2_ipv4 = v4;
		d->gid_ipv4 = v4 ? ip : 0;
		d->gid_index = i;
		if (fd[2] >= 0 && rdma_read(fd[2], idx, text, sizeof(text)) == 0)
			rdma_line(text, d->netdev, sizeof(d->netdev));
		if (v4)
			break;  /* an IPv4-mapped RoCE v2 GID is what is kept: the rest need not be read */
	}
	for (size_t k = 0; k < 3; k++)
		if (fd[k] >= 0)
			close(fd[k]);
}

/* One device: its PCI function, then port 1's attributes, each read through the port's directory fd. */
static void rdma_scan_dev(int rootfd, struct obs_rdma_dev *d)
{
	char text[RDMA_TEXT_MAX], path[PATH_MAX], real[PATH_MAX];
	struct pcitopo_name bdf;
	const char *base;
	int port;

	d->state = d->phys_state = d->gid_index = -1;
	/* The device link names the PCI function ("dranet pciAddressForRDMADevice" follows it too). */
	snprintf(path, sizeof(path), RDMA_DIR "/%s/device", d->name);
	if (hostfs_realpath(rootfd, path, real, sizeof(real)) == 0 && (base = strrchr(real, '/')) &&
	    pcitopo_parse_bdf(base + 1, &bdf) == 0 && strlen(base + 1) < sizeof(d->bdf))
		snprintf(d->bdf, sizeof(d->bdf), "%s", base + 1);
	snprintf(path, sizeof(path), RDMA_DIR "/%s/ports/1", d->name);
	port = hostfs_open(rootfd, path, O_PATH | O_DIRECTORY);
	d->port = port >= 0;
	if (!d->port)
		return;
	if (rdma_read(port, "state", text, sizeof(text)) == 0 &&
	    rdma_parse_state(text, &d->state, d->state_text, sizeof(d->state_text)) < 0)
		d->state = -1;
	if (rdma_read(port, "phys_state", text, sizeof(text)) == 0 &&
	    rdma_parse_state(text, &d->phys_state, d->phys_text, sizeof(d->phys_text)) < 0)
		d->phys_state = -1;
	if (rdma_read(port, "link_layer", text, sizeof(text)) == 0)
		rdma_line(text, d->link_layer, sizeof(d->link_layer));
	rdma_scan_gids(port, d);
	close(port);
}

int rdma_scan(int rootfd, struct obs_rdma *ret)
{
	struct obs_rdma *m = ret;
	int n;

	*m = (struct obs_rdma){ 0 };
	n = hostfs_list_names(rootfd, RDMA_DIR, m->v, sizeof(m->v[0]), OBS_RDMA_MAX, OBS_RDMA_NAME_MAX,
			      &m->n_dropped);
	if (n == -ENOENT) {
		m->status.state = PROBE_OK;
		return 0;
	}
	if (n < 0) {
		probe_status_fail(&m->status, n, "/%s: %s", RDMA_DIR, strerror(-n));
		return 0;
	}
	m->present = true;
	m->n = (size_t)n;
	for (size_t i = 0; i < m->n; i++)
		rdma_scan_dev(rootfd, &m->v[i]);
	m->status.state = PROBE_OK;
	return 0;
}
