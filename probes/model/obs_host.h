/* obs_host.h - host files, device nodes and processes seen under --root (filled by probes/host/hostprobe.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probes/model/probe_status.h"

#define OBS_HOST_MSG_MAX 512
#define OBS_HOST_NAME_MAX 256           /* NAME_MAX + NUL: a directory entry name fits whole */
#define OBS_HOST_DEVNAME_MAX 32
#define OBS_HOST_COMM_MAX 16            /* TASK_COMM_LEN, NUL included */
#define OBS_APERTURE_MAX 64             /* aperture entries kept; more are only counted */
#define OBS_DEVNODES_MAX 90             /* nvidia0..63 + nvidiactl, nvidia-uvm, dmabuf_import_helper,
					   infiniband/uverbs0..N-1, infiniband/rdma_cm */
#define OBS_HOST_FILES_MAX 512          /* relevant lib64 names kept; more are only counted */
#define OBS_PROCS_MAX 64                /* daemon processes kept; more are only counted */
#define OBS_CMDLINE_MAX (64 * 1024)     /* bytes of /proc/<pid>/cmdline read */
#define OBS_ARGV_MAX 1024               /* arguments kept per process */

/* What a path turned out to be (links are followed unless stated otherwise). */
enum obs_file_type {
	OBS_FILE_ABSENT = 0,
	OBS_FILE_REGULAR,
	OBS_FILE_DIR,
	OBS_FILE_CHAR,
	OBS_FILE_BLOCK,
	OBS_FILE_SYMLINK,               /* only where links are not followed (device nodes) */
	OBS_FILE_OTHER,                 /* fifo, socket */
	OBS_FILE_BROKEN,                /* dangling or looping link */
	OBS_FILE_ERROR,                 /* stat failed otherwise: see err */
};

/* ---- /dev/aperture_devices (probes/host/aperture.c) ---- */

enum obs_bar4_state {
	OBS_BAR4_NOT_READ = 0,          /* the entry is not a readable directory */
	OBS_BAR4_OK,
	OBS_BAR4_MISSING,               /* no resource4 */
	OBS_BAR4_NOT_FILE,              /* resource4 is not a regular file */
	OBS_BAR4_EMPTY,                 /* 0 bytes */
	OBS_BAR4_SHORT,                 /* fewer than 4 bytes */
	OBS_BAR4_UNREADABLE,            /* open/mmap/read failed: bar4_err */
};

struct obs_aperture_entry {
	char name[OBS_HOST_NAME_MAX];   /* raw entry name: escape before printing */
	enum obs_file_type type;        /* links followed; BROKEN for a symlink loop */
	int err;                        /* -errno when type is BROKEN/ERROR or the dir can't be opened */
	bool ids_known;                 /* vendor and device files parsed */
	uint16_t vendor, device;
	unsigned n_resources;           /* resourceN / resourceN_wc files */
	unsigned n_narrow;              /* of those, not readable and writable by all */
	char narrow[48];                /* the first narrow one, "resource4 0644" */
	enum obs_bar4_state bar4;
	int bar4_err;                   /* -errno for UNREADABLE */
	bool bar4_mapped;               /* read with mmap (else read() fallback) */
	uint32_t bar4_ipv4;             /* network byte order, when bar4 == OBS_BAR4_OK */
};

struct obs_aperture {
	bool present;                   /* the folder exists */
	struct obs_aperture_entry *v;   /* sorted by name (bytewise) */
	size_t n;
	size_t n_dropped;               /* entries beyond OBS_APERTURE_MAX */
	struct probe_status status;
};

/* ---- device nodes under /dev (probes/host/devnodes.c), stat only ---- */

struct obs_devnode {
	char name[OBS_HOST_DEVNAME_MAX];        /* relative to /dev: "nvidia0", "nvidia-uvm" */
	enum obs_file_type type;                /* links are NOT followed: a link is SYMLINK */
	int err;                                /* -errno for ERROR */
	unsigned major, minor;                  /* CHAR/BLOCK */
};

struct obs_devnodes {
	struct obs_devnode *v;          /* nvidia0..N-1 (N = GPUs on the bus), nvidiactl, nvidia-uvm,
					   dmabuf_import_helper, then with M RDMA NICs on the bus
					   infiniband/uverbs0..M-1 and infiniband/rdma_cm: in that order */
	size_t n;
	size_t n_gpus;                  /* N */
	size_t n_uverbs;                /* M */
	struct probe_status status;
};

/* ---- /home/kubernetes/bin/nvidia (probes/host/nvpath.c) ---- */

struct obs_host_file {
	char *name;                     /* owned; raw bytes */
	enum obs_file_type type;        /* links followed */
};

struct obs_nvpath {
	enum obs_file_type dir;         /* home/kubernetes/bin/nvidia itself */
	enum obs_file_type smi;         /* bin/nvidia-smi */
	enum obs_file_type lib64_dir;   /* lib64 */
	struct obs_host_file *lib64;    /* names in lib64 that hostfiles_relevant() keeps, sorted */
	size_t n_lib64;
	size_t n_dropped;
	struct probe_status status;
};

/* ---- TCPXO daemon processes in /proc (probes/host/procscan.c) ---- */

struct obs_process {
	int pid;
	char comm[OBS_HOST_COMM_MAX];
	char **argv;                    /* owned, argc strings; argc 0 when cmdline is empty */
	size_t argc;
	bool cmdline_truncated;         /* longer than OBS_CMDLINE_MAX or OBS_ARGV_MAX arguments */
	int cmdline_err;                /* -errno when cmdline could not be read */
};

struct obs_procs {
	struct obs_process *v;          /* daemon processes only, sorted by pid */
	size_t n;
	size_t n_dropped;
	size_t n_scanned;               /* numeric /proc entries looked at */
	struct probe_status status;
};

/* ---- /sys/class/infiniband (probes/host/rdma.c): RDMA devices, their port 1 ---- */

#define OBS_RDMA_MAX 16                 /* RDMA devices kept; more are only counted */
#define OBS_RDMA_NAME_MAX 32            /* "mlx5_0" (IB_DEVICE_NAME_MAX 64 truncated: escaped when printed) */
#define OBS_RDMA_GIDS 16                /* GID table entries of port 1 looked at */

struct obs_rdma_dev {
	char name[OBS_RDMA_NAME_MAX];   /* raw entry name */
	char bdf[16];                   /* the PCI function its device link names, "" unknown */
	char netdev[16];                /* from gid_attrs/ndevs of the RoCE v2 GID, "" unknown */
	bool port;                      /* ports/1 exists */
	int state;                      /* ports/1/state number (4 ACTIVE), -1 unread */
	char state_text[24];            /* "ACTIVE" */
	int phys_state;                 /* ports/1/phys_state number (5 LinkUp), -1 unread */
	char phys_text[32];             /* "LinkUp" */
	char link_layer[16];            /* "Ethernet", "InfiniBand", "" unread */
	bool roce_v2;                   /* a non-zero GID of type "RoCE v2" */
	bool roce_v2_ipv4;              /* ... that is IPv4-mapped (::ffff:a.b.c.d) */
	uint32_t gid_ipv4;              /* that address, network byte order */
	int gid_index;                  /* its index, -1 none */
};

struct obs_rdma {
	bool present;                   /* /sys/class/infiniband exists */
	struct obs_rdma_dev v[OBS_RDMA_MAX];    /* sorted by name */
	size_t n;
	size_t n_dropped;
	struct probe_status status;
};

/* ---- /home/kubernetes/bin/gib (probes/host/gib.c): the gIB install ---- */

#define OBS_GIB_LIBS_MAX 32             /* names in gib/lib64 kept; more are only counted */
#define OBS_GIB_NAME_MAX 64

struct obs_gib_lib {
	char name[OBS_GIB_NAME_MAX];    /* raw name in gib/lib64 */
	enum obs_file_type type;        /* in gib/lib64, links followed */
	enum obs_file_type in_nvidia;   /* the same name in nvidia/lib64, links followed */
};

struct obs_gib {
	enum obs_file_type dir;         /* home/kubernetes/bin/gib */
	enum obs_file_type env_script;  /* scripts/set_nccl_env.sh */
	enum obs_file_type lib64_dir;   /* lib64 */
	struct obs_gib_lib libs[OBS_GIB_LIBS_MAX];      /* sorted by name */
	size_t n_libs;
	size_t n_dropped;
	struct probe_status status;
};

struct obs_host {
	struct obs_aperture aperture;
	struct obs_devnodes devnodes;
	struct obs_nvpath nvpath;
	struct obs_procs procs;
	struct obs_rdma rdma;           /* only scanned when the PCI bus shows an RDMA NIC */
	struct obs_gib gib;             /* likewise */
};

/* Release everything @h owns and zero it. @h may be NULL. */
void obs_host_free(struct obs_host *h);
void obs_host_procs_free(struct obs_procs *p);
void obs_host_nvpath_free(struct obs_nvpath *n);

/**
 * obs_host_quote() - a host-supplied name made safe for a one-line message.
 * @s: raw bytes, NUL-terminated.
 * @buf, @len: output, always NUL-terminated (truncated with "..." when too small).
 *
 * Printable ASCII is kept; backslash, quote and every other byte become C escapes
 * (\n, \t, \xHH). The result is wrapped in double quotes when it had to be escaped or
 * contains a space, so "a b" and a\nb read as one name.
 */
void obs_host_quote(const char *s, char *buf, size_t len);

const char *obs_file_type_name(enum obs_file_type t);

/* obs_aperture_find() - the entry of @a named @name (an LLCM function's BDF), or NULL. */
const struct obs_aperture_entry *obs_aperture_find(const struct obs_aperture *a, const char *name);
