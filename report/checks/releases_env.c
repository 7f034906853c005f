/* releases_env.c - each release's NCCL variable set, from Google's release notes (TCPXO and TCPX). */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "probes/kube/imageref.h"
#include "report/checks/releases_env.h"

/*
 * Each release's NCCL variables, from the "NCCL configs" block of its release notes
 * (container-engine-accelerators gpudirect-tcpxo/README.md and gpudirect-tcpx/README.md), in the
 * notes' order. LIB_FILE values are the file's name: the notes write
 * "/usr/local/nvidia/lib64/<file>" (v1.0.14 and v1.0.15: "/usr/local/tcpxo/lib64/<file>") and say
 * to "replace [the directory] as the NCCL lib directory installed inside the workload container",
 * so the directory is the container's own mount of the NVIDIA path. LD_LIBRARY_PATH, which the
 * older notes list first, is the plugin-path finding's concern, not part of a set.
 * REQUIRED / OPTIONAL is the workload check's (nccl-env) distinction: OPTIONAL are logging and
 * visibility knobs, and NCCL_NVLS_ENABLE=1, which the notes list from v1.0.14 on while the
 * installed nccl-env-profile.sh does not set it. The runtime's env-pin holds a runtime to the
 * whole set (NCCL_DEBUG* apart).
 *
 * The table lists the releases oldest first; each states only what it changes in its
 * predecessor's set (the row above of the same fabric), and the first of a fabric its whole set.
 * A new release is one row with its changes. The order of a set is the notes' (the workload
 * check names missing variables in it), so a change may say where a variable stands.
 */
enum releases_env_op {
	RELEASES_ENV_OP_SET = 0,        /* add a variable, or change its value, kind or place */
	RELEASES_ENV_OP_REMOVE,
};

/* One change a release makes to its predecessor's set. */
struct releases_env_change {
	enum releases_env_op op;
	const char *name;
	const char *value;              /* SET: NULL keeps the value and kind (a move) */
	enum releases_env_kind kind;
	const char *after;              /* SET: the variable it follows, "" for the first; NULL: where it is, a new one last */
};

struct releases_env_release {
	enum releases_fabric fabric;
	const char *installer;          /* a built-in row's installer tag */
	const struct releases_env_change *changes;
	size_t n_changes;
};

#define REQ RELEASES_ENV_REQUIRED
#define OPT RELEASES_ENV_OPTIONAL
#define LIB RELEASES_ENV_LIB_FILE
#define TCPXO RELEASES_FABRIC_TCPXO
#define TCPX RELEASES_FABRIC_TCPX
#define SET(name, value, kind) { RELEASES_ENV_OP_SET, name, value, kind, NULL }
#define SET_AFTER(prev, name, value, kind) { RELEASES_ENV_OP_SET, name, value, kind, prev }
#define MOVE_AFTER(prev, name) { RELEASES_ENV_OP_SET, name, NULL, REQ, prev }
#define REMOVE(name) { RELEASES_ENV_OP_REMOVE, name, NULL, REQ, NULL }
#define UNCHANGED NULL, 0
#define CHANGES(...) (const struct releases_env_change[]){ __VA_ARGS__ }, \
	sizeof((const struct releases_env_change[]){ __VA_ARGS__ }) / sizeof(struct releases_env_change)

#define IFNAME8 "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8"
#define TCPX_TX "eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177"
#define TCPX_RX "eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191"

static const struct releases_env_release releases_env_releases[] = {
	/* Apr 17, 2024 (v1.0.0). */
	{ TCPXO, "v1.0.0", CHANGES(
		SET("NCCL_FASTRAK_CTRL_DEV", "eth0", REQ),
		SET("NCCL_FASTRAK_IFNAME", IFNAME8, REQ),
		SET("NCCL_SOCKET_IFNAME", "eth0", REQ),
		SET("NCCL_CROSS_NIC", "0", REQ),
		SET("NCCL_ALGO", "Ring", REQ),
		SET("NCCL_PROTO", "Simple", REQ),
		SET("NCCL_MIN_NCHANNELS", "4", REQ),
		SET("NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ),
		SET("NCCL_P2P_NET_CHUNKSIZE", "524288", REQ),
		SET("NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ),
		SET("NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ),
		SET("NCCL_FASTRAK_NUM_FLOWS", "2", REQ),
		SET("NCCL_FASTRAK_USE_SNAP", "1", REQ),
		SET("NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ),
		SET("NCCL_BUFFSIZE", "8388608", REQ),
		SET("CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", OPT),
		SET("NCCL_NET_GDR_LEVEL", "PIX", REQ),
		SET("NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT),
		SET("NCCL_FASTRAK_USE_LLCM", "1", REQ)) },
	/* May 20, 2024 (v1.0.1): the tuner plugin, without its config. */
	{ TCPXO, "v1.0.1", CHANGES(
		SET("NCCL_ALGO", "Ring,Tree", REQ),
		SET_AFTER("NCCL_MIN_NCHANNELS", "NCCL_TUNER_PLUGIN", "libnccl-tuner.so", REQ),
		SET("NCCL_NVLS_ENABLE", "0", REQ)) },
	/* May 30, 2024 (v1.0.2): the guest config checker and the accept timeout, no tuner config yet. */
	{ TCPXO, "v1.0.2", CHANGES(
		SET_AFTER("NCCL_TUNER_PLUGIN", "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE",
			  "a3plus_guest_config.textproto", LIB),
		SET_AFTER("NCCL_FASTRAK_USE_SNAP", "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000", REQ)) },
	/*
	 * Jun 27, 2024 (v1.0.3) to Feb 06, 2025 (v1.0.8-1): the same list (NCCL_DEBUG* recommended
	 * from Sept 19, 2024 on).
	 */
	{ TCPXO, "v1.0.3", CHANGES(
		SET_AFTER("NCCL_TUNER_PLUGIN", "NCCL_TUNER_CONFIG_PATH", "a3plus_tuner_config.textproto", LIB),
		SET("NCCL_DEBUG", "WARN", OPT),
		SET("NCCL_DEBUG_SUBSYS", "INIT,NET,ENV,COLL,GRAPH", OPT)) },
	{ TCPXO, "v1.0.4", UNCHANGED },
	{ TCPXO, "v1.0.5", UNCHANGED },
	{ TCPXO, "v1.0.6", UNCHANGED },
	{ TCPXO, "v1.0.7", UNCHANGED },
	{ TCPXO, "v1.0.8-1", UNCHANGED },
	/* May 01, 2025 (v1.0.9-1) and Jun 27, 2025 (v1.0.11): LL128 by default; the same list. */
	{ TCPXO, "v1.0.9-1", CHANGES(
		SET("NCCL_PROTO", "Simple,LL128", REQ),
		REMOVE("CUDA_VISIBLE_DEVICES"),
		REMOVE("NCCL_DEBUG_SUBSYS")) },
	{ TCPXO, "v1.0.11", UNCHANGED },
	/* Aug 21, 2025 (v1.0.12): NVLSTree by default, NCCL_ALGO and NCCL_NVLS_ENABLE dropped. */
	{ TCPXO, "v1.0.12", CHANGES(
		REMOVE("NCCL_ALGO"),
		REMOVE("NCCL_NVLS_ENABLE"),
		SET_AFTER("NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072", REQ)) },
	/*
	 * Nov 19, 2025 (v1.0.14) and Jan 9, 2026 (v1.0.15): the same list. Kept in the installed
	 * profile's order (the workload check names missing variables in it), NCCL_NVLS_ENABLE added.
	 */
	{ TCPXO, "v1.0.14", CHANGES(
		REMOVE("NCCL_DYNAMIC_CHUNK_SIZE"),
		MOVE_AFTER("", "NCCL_FASTRAK_IFNAME"),
		MOVE_AFTER("NCCL_BUFFSIZE", "NCCL_FASTRAK_USE_SNAP"),
		MOVE_AFTER("NCCL_FASTRAK_USE_SNAP", "NCCL_FASTRAK_USE_LLCM"),
		SET_AFTER("NCCL_FASTRAK_USE_LLCM", "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", OPT),
		MOVE_AFTER("NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "NCCL_TUNER_PLUGIN"),
		MOVE_AFTER("NCCL_TUNER_PLUGIN", "NCCL_TUNER_CONFIG_PATH"),
		MOVE_AFTER("NCCL_TUNER_CONFIG_PATH", "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE"),
		MOVE_AFTER("NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS"),
		SET_AFTER("NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "NCCL_NVLS_ENABLE", "1", OPT),
		SET("NCCL_DEBUG_SUBSYS", "INIT,NET,ENV,COLL,GRAPH", OPT)) },
	{ TCPXO, "v1.0.15", UNCHANGED },

	/* TCPX, Feb 15, 2024 (v3.1.9). */
	{ TCPX, "v3.1.9", CHANGES(
		SET("NCCL_SOCKET_IFNAME", "eth0", REQ),
		SET("NCCL_ALGO", "Ring", REQ),
		SET("NCCL_PROTO", "Simple", REQ),
		SET("NCCL_CROSS_NIC", "0", REQ),
		SET("NCCL_NET_GDR_LEVEL", "PIX", REQ),
		SET("NCCL_P2P_PXN_LEVEL", "0", REQ),
		SET("NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2,eth3,eth4", REQ),
		SET("NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0", REQ),
		SET("NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ),
		SET("NCCL_P2P_NET_CHUNKSIZE", "524288", REQ),
		SET("NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ),
		SET("NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ),
		SET("NCCL_BUFFSIZE", "4194304", REQ),
		SET("NCCL_NSOCKS_PERTHREAD", "4", REQ),
		SET("NCCL_SOCKET_NTHREADS", "1", REQ),
		SET("NCCL_GPUDIRECTTCPX_TX_BINDINGS", TCPX_TX, REQ),
		SET("NCCL_GPUDIRECTTCPX_RX_BINDINGS", TCPX_RX, REQ),
		SET("NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS", "500000", REQ)) },
	/* Jun 22, 2026 (v3.1.12). */
	{ TCPX, "v3.1.12", CHANGES(
		SET("NCCL_ALGO", "Ring,Tree", REQ)) },
};

#undef REQ
#undef OPT
#undef LIB
#undef TCPXO
#undef TCPX
#undef SET
#undef SET_AFTER
#undef MOVE_AFTER
#undef REMOVE
#undef CHANGES
#undef UNCHANGED

#define RELEASES_ENV_N (sizeof(releases_env_releases) / sizeof(releases_env_releases[0]))
#define RELEASES_ENV_VARS_MAX 32        /* variables in one set; the notes' longest has 26 */

/* Each release's set, resolved once: a release without changes shares its predecessor's. */
static struct releases_env releases_env_store[RELEASES_ENV_N][RELEASES_ENV_VARS_MAX];
static struct {
	const struct releases_env *env; /* NULL: the table is wrong (test_releases says where) */
	size_t n;
} releases_env_sets[RELEASES_ENV_N];
static pthread_once_t releases_env_once = PTHREAD_ONCE_INIT;

/* The place of @name in @set, or @n when absent. */
static size_t releases_env_index(const struct releases_env *set, size_t n, const char *name)
{
	size_t i = 0;

	while (i < n && strcmp(set[i].name, name) != 0)
		i++;
	return i;
}

/* Apply one change to @set of *@n variables. Return: false for a change the set cannot take. */
static bool releases_env_apply(struct releases_env *set, size_t *n, const struct releases_env_change *c)
{
	size_t i = releases_env_index(set, *n, c->name), to;
	struct releases_env v;

	if (c->op == RELEASES_ENV_OP_REMOVE) {
		if (i == *n)
			return false;
		memmove(&set[i], &set[i + 1], (--*n - i) * sizeof(*set));
		return true;
	}
	if (i == *n && (!c->value || *n == RELEASES_ENV_VARS_MAX))
		return false;
	v = c->value ? (struct releases_env){ c->name, c->value, c->kind } : set[i];
	if (i < *n && !c->after) {
		set[i] = v;
		return true;
	}
	if (i < *n)                     /* take it out, to put it back in its new place */
		memmove(&set[i], &set[i + 1], (--*n - i) * sizeof(*set));
	to = !c->after ? *n : !*c->after ? 0 : releases_env_index(set, *n, c->after) + 1;
	if (to > *n)
		return false;
	memmove(&set[to + 1], &set[to], (*n - to) * sizeof(*set));
	set[to] = v;
	++*n;
	return true;
}

static void releases_env_resolve(void)
{
	for (size_t i = 0; i < RELEASES_ENV_N; i++) {
		const struct releases_env_release *rel = &releases_env_releases[i];
		struct releases_env *set = releases_env_store[i];
		size_t p = i, n = 0;
		bool ok = true;

		while (p > 0 && releases_env_releases[p - 1].fabric != rel->fabric)
			p--;
		if (p > 0 && !rel->n_changes) {
			releases_env_sets[i] = releases_env_sets[p - 1];
			continue;
		}
		if (p > 0 && releases_env_sets[p - 1].env) {
			n = releases_env_sets[p - 1].n;
			memcpy(set, releases_env_sets[p - 1].env, n * sizeof(*set));
		}
		for (size_t k = 0; k < rel->n_changes && ok; k++)
			ok = releases_env_apply(set, &n, &rel->changes[k]);
		releases_env_sets[i].env = ok ? set : NULL;
		releases_env_sets[i].n = ok ? n : 0;
	}
}

const struct releases_env *releases_env_of(const struct releases *t, enum releases_fabric fabric,
					   const char *installer_tag, size_t *ret_n)
{
	*ret_n = 0;
	/* The release must be in the table in effect; its set is the notes' of that release. */
	if (!releases_find_installer(t ? t : releases_builtin(), fabric, installer_tag))
		return NULL;
	pthread_once(&releases_env_once, releases_env_resolve);
	for (size_t i = 0; i < RELEASES_ENV_N; i++)
		if (releases_env_releases[i].fabric == fabric &&
		    imageref_version_equal(releases_env_releases[i].installer, installer_tag)) {
			*ret_n = releases_env_sets[i].n;
			return releases_env_sets[i].env;
		}
	return NULL;
}

const struct releases_env *releases_env_latest(size_t *ret_n)
{
	size_t i = RELEASES_ENV_N;

	pthread_once(&releases_env_once, releases_env_resolve);
	while (i > 0 && releases_env_releases[i - 1].fabric != RELEASES_FABRIC_TCPXO)
		i--;
	*ret_n = i ? releases_env_sets[i - 1].n : 0;
	return i ? releases_env_sets[i - 1].env : NULL;
}
