/* procnet.h - pure parsers of a network namespace's /proc/<pid>/net/{unix,udp,dev}: RxDM sockets, DXS flows, byte counters. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/obs_transport.h"

/*
 * Each parser takes the bytes of one file (as read, not NUL-terminated), checks the kernel's
 * header, and reads every line by its fixed format; a line that does not match is an error that
 * names it (-EBADMSG), never a guess. @cut: the caller's bounded read stopped before the end of
 * the file, so a last line without its '\n' is the cut and is dropped (without @cut it is an
 * error: the kernel ends every line).
 *
 * Bounds: a line longer than PROCNET_LINE_MAX is an error; at most PROCNET_ADDRS_MAX distinct NIC
 * addresses are told apart (more are counted once per client line, see n_rails_dropped).
 */
#define PROCNET_LINE_MAX 512            /* net/unix: 67 + a 108-byte path; net/udp: 127; net/dev: ~200 */
#define PROCNET_UNIX_PATH_MAX 108       /* sizeof(sun_path): the kernel prints at most this much */
#define PROCNET_ADDRS_MAX 256           /* distinct NIC addresses told apart per namespace */
#define PROCNET_DEVS_SEEN_MAX 4096      /* interfaces read from one net/dev */

#define PROCNET_BUF_OP_NAME "rxdm_uds_buf_op:"
#define PROCNET_DXS_PORT 55555          /* dxs-client-types.h kDefaultDxsPort */
#define PROCNET_RXDM_PORT 338           /* kBufferManagerSourcePort: RxDM's own DXS socket */

/* What a namespace's net/unix shows of RxDM's buffer-op sockets. */
struct procnet_unix {
	size_t sockets;                 /* socket lines read */
	size_t listeners;               /* stream listeners (flags 00010000, state 01) on a buffer-op name */
	size_t clients;                 /* accepted stream connections (flags 0, state 03) on one */
	char rails[OBS_TRANSPORT_RAILS_MAX][OBS_TRANSPORT_ADDR_MAX];    /* distinct addresses of the clients, sorted */
	size_t n_rails;
	size_t n_rails_dropped;         /* distinct addresses beyond OBS_TRANSPORT_RAILS_MAX */
};

/* What a namespace's net/udp shows of the plugin's DXS clients. */
struct procnet_udp {
	size_t sockets;                 /* socket lines read */
	size_t flows;                   /* connected (state 01) to 169.254.169.254:55555, local port != 338 */
};

/* A namespace's interfaces and their byte counters, sorted by name. */
struct procnet_dev {
	struct obs_transport_dev v[OBS_TRANSPORT_DEVS_MAX];
	size_t n;
	size_t n_dropped;               /* interfaces beyond OBS_TRANSPORT_DEVS_MAX (the last by name) */
};

/**
 * procnet_unix_parse() - read net/unix (net/unix/af_unix.c unix_seq_show: "Num RefCount Protocol
 * Flags Type St Inode Path", then "%pK: %08X %08X %08X %04X %02X %5lu[ path]" per socket).
 * A path holds raw bytes: a '\n' in a bound name goes on to the next line, which is read as the
 * rest of that path (at most PROCNET_UNIX_PATH_MAX bytes in all) and makes it no RxDM name.
 * Return: 0 (@ret written), or -EBADMSG (@err says which line and why).
 */
int procnet_unix_parse(const char *buf, size_t len, bool cut, struct procnet_unix *ret, char *err, size_t errlen);

/**
 * procnet_udp_parse() - read net/udp (net/ipv4/udp.c udp4_format_sock: "sl local_address
 * rem_address st ...", each address "%08X:%04X" of the __be32 as the host prints it).
 * Return: 0 (@ret written), or -EBADMSG (@err says which line and why).
 */
int procnet_udp_parse(const char *buf, size_t len, bool cut, struct procnet_udp *ret, char *err, size_t errlen);

/**
 * procnet_dev_parse() - read net/dev (net/core/net-procfs.c: two header lines, then
 * "%6s: " and 16 counters per interface; rx bytes is the first, tx bytes the ninth).
 * A name twice is an error; more than OBS_TRANSPORT_DEVS_MAX interfaces keep the first by name.
 * Return: 0 (@ret written), or -EBADMSG (@err says which line and why).
 */
int procnet_dev_parse(const char *buf, size_t len, bool cut, struct procnet_dev *ret, char *err, size_t errlen);
