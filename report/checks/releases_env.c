/* releases_env.c - each release's NCCL variable set, from Google's release notes (TCPXO and TCPX). */
#include <stddef.h>

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
 */
#define REQ RELEASES_ENV_REQUIRED
#define OPT RELEASES_ENV_OPTIONAL
#define LIB RELEASES_ENV_LIB_FILE
#define IFNAME8 "eth1,eth2,eth3,eth4,eth5,eth6,eth7,eth8"

/*
 * Nov 19, 2025 (v1.0.14) and Jan 9, 2026 (v1.0.15): the same list. Kept in the installed
 * profile's order (the workload check names missing variables in it), NCCL_NVLS_ENABLE added.
 */
static const struct releases_env releases_env_tcpxo_v1014[] = {
	{ "NCCL_FASTRAK_IFNAME", IFNAME8, REQ },
	{ "NCCL_FASTRAK_CTRL_DEV", "eth0", REQ },
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_PROTO", "Simple,LL128", REQ },
	{ "NCCL_MIN_NCHANNELS", "4", REQ },
	{ "NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_FASTRAK_NUM_FLOWS", "2", REQ },
	{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ },
	{ "NCCL_BUFFSIZE", "8388608", REQ },
	{ "NCCL_FASTRAK_USE_SNAP", "1", REQ },
	{ "NCCL_FASTRAK_USE_LLCM", "1", REQ },
	{ "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", OPT },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT },
	{ "NCCL_TUNER_PLUGIN", "libnccl-tuner.so", REQ },
	{ "NCCL_TUNER_CONFIG_PATH", "a3plus_tuner_config.textproto", LIB },
	{ "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "a3plus_guest_config.textproto", LIB },
	{ "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000", REQ },
	{ "NCCL_NVLS_ENABLE", "1", OPT },
	{ "NCCL_DEBUG", "WARN", OPT },
	{ "NCCL_DEBUG_SUBSYS", "INIT,NET,ENV,COLL,GRAPH", OPT },
};

/* Aug 21, 2025 (v1.0.12): NVLSTree by default, NCCL_ALGO and NCCL_NVLS_ENABLE dropped. */
static const struct releases_env releases_env_tcpxo_v1012[] = {
	{ "NCCL_FASTRAK_CTRL_DEV", "eth0", REQ },
	{ "NCCL_FASTRAK_IFNAME", IFNAME8, REQ },
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_PROTO", "Simple,LL128", REQ },
	{ "NCCL_MIN_NCHANNELS", "4", REQ },
	{ "NCCL_TUNER_PLUGIN", "libnccl-tuner.so", REQ },
	{ "NCCL_TUNER_CONFIG_PATH", "a3plus_tuner_config.textproto", LIB },
	{ "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "a3plus_guest_config.textproto", LIB },
	{ "NCCL_NVLSTREE_MAX_CHUNKSIZE", "131072", REQ },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_FASTRAK_NUM_FLOWS", "2", REQ },
	{ "NCCL_FASTRAK_USE_SNAP", "1", REQ },
	{ "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000", REQ },
	{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ },
	{ "NCCL_BUFFSIZE", "8388608", REQ },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT },
	{ "NCCL_FASTRAK_USE_LLCM", "1", REQ },
	{ "NCCL_DEBUG", "WARN", OPT },
};

/* May 01, 2025 (v1.0.9-1) and Jun 27, 2025 (v1.0.11): LL128 by default; the same list. */
static const struct releases_env releases_env_tcpxo_v109[] = {
	{ "NCCL_FASTRAK_CTRL_DEV", "eth0", REQ },
	{ "NCCL_FASTRAK_IFNAME", IFNAME8, REQ },
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_ALGO", "Ring,Tree", REQ },
	{ "NCCL_PROTO", "Simple,LL128", REQ },
	{ "NCCL_MIN_NCHANNELS", "4", REQ },
	{ "NCCL_TUNER_PLUGIN", "libnccl-tuner.so", REQ },
	{ "NCCL_TUNER_CONFIG_PATH", "a3plus_tuner_config.textproto", LIB },
	{ "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "a3plus_guest_config.textproto", LIB },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_FASTRAK_NUM_FLOWS", "2", REQ },
	{ "NCCL_FASTRAK_USE_SNAP", "1", REQ },
	{ "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000", REQ },
	{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ },
	{ "NCCL_BUFFSIZE", "8388608", REQ },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT },
	{ "NCCL_FASTRAK_USE_LLCM", "1", REQ },
	{ "NCCL_NVLS_ENABLE", "0", REQ },
	{ "NCCL_DEBUG", "WARN", OPT },
};

/*
 * Jun 27, 2024 (v1.0.3) to Feb 06, 2025 (v1.0.8-1): the same list (NCCL_DEBUG* recommended from
 * Sept 19, 2024 on).
 */
static const struct releases_env releases_env_tcpxo_v103[] = {
	{ "NCCL_FASTRAK_CTRL_DEV", "eth0", REQ },
	{ "NCCL_FASTRAK_IFNAME", IFNAME8, REQ },
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_ALGO", "Ring,Tree", REQ },
	{ "NCCL_PROTO", "Simple", REQ },
	{ "NCCL_MIN_NCHANNELS", "4", REQ },
	{ "NCCL_TUNER_PLUGIN", "libnccl-tuner.so", REQ },
	{ "NCCL_TUNER_CONFIG_PATH", "a3plus_tuner_config.textproto", LIB },
	{ "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "a3plus_guest_config.textproto", LIB },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_FASTRAK_NUM_FLOWS", "2", REQ },
	{ "NCCL_FASTRAK_USE_SNAP", "1", REQ },
	{ "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000", REQ },
	{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ },
	{ "NCCL_BUFFSIZE", "8388608", REQ },
	{ "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", OPT },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT },
	{ "NCCL_FASTRAK_USE_LLCM", "1", REQ },
	{ "NCCL_NVLS_ENABLE", "0", REQ },
	{ "NCCL_DEBUG", "WARN", OPT },
	{ "NCCL_DEBUG_SUBSYS", "INIT,NET,ENV,COLL,GRAPH", OPT },
};

/* May 30, 2024 (v1.0.2): the guest config checker and the accept timeout, no tuner config yet. */
static const struct releases_env releases_env_tcpxo_v102[] = {
	{ "NCCL_FASTRAK_CTRL_DEV", "eth0", REQ },
	{ "NCCL_FASTRAK_IFNAME", IFNAME8, REQ },
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_ALGO", "Ring,Tree", REQ },
	{ "NCCL_PROTO", "Simple", REQ },
	{ "NCCL_MIN_NCHANNELS", "4", REQ },
	{ "NCCL_TUNER_PLUGIN", "libnccl-tuner.so", REQ },
	{ "NCCL_SHIMNET_GUEST_CONFIG_CHECKER_CONFIG_FILE", "a3plus_guest_config.textproto", LIB },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_FASTRAK_NUM_FLOWS", "2", REQ },
	{ "NCCL_FASTRAK_USE_SNAP", "1", REQ },
	{ "NCCL_FASTRAK_PLUGIN_ACCEPT_TIMEOUT_MS", "600000", REQ },
	{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ },
	{ "NCCL_BUFFSIZE", "8388608", REQ },
	{ "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", OPT },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT },
	{ "NCCL_FASTRAK_USE_LLCM", "1", REQ },
	{ "NCCL_NVLS_ENABLE", "0", REQ },
};

/* May 20, 2024 (v1.0.1): the tuner plugin, without its config. */
static const struct releases_env releases_env_tcpxo_v101[] = {
	{ "NCCL_FASTRAK_CTRL_DEV", "eth0", REQ },
	{ "NCCL_FASTRAK_IFNAME", IFNAME8, REQ },
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_ALGO", "Ring,Tree", REQ },
	{ "NCCL_PROTO", "Simple", REQ },
	{ "NCCL_MIN_NCHANNELS", "4", REQ },
	{ "NCCL_TUNER_PLUGIN", "libnccl-tuner.so", REQ },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_FASTRAK_NUM_FLOWS", "2", REQ },
	{ "NCCL_FASTRAK_USE_SNAP", "1", REQ },
	{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ },
	{ "NCCL_BUFFSIZE", "8388608", REQ },
	{ "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", OPT },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT },
	{ "NCCL_FASTRAK_USE_LLCM", "1", REQ },
	{ "NCCL_NVLS_ENABLE", "0", REQ },
};

/* Apr 17, 2024 (v1.0.0). */
static const struct releases_env releases_env_tcpxo_v100[] = {
	{ "NCCL_FASTRAK_CTRL_DEV", "eth0", REQ },
	{ "NCCL_FASTRAK_IFNAME", IFNAME8, REQ },
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_ALGO", "Ring", REQ },
	{ "NCCL_PROTO", "Simple", REQ },
	{ "NCCL_MIN_NCHANNELS", "4", REQ },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_FASTRAK_NUM_FLOWS", "2", REQ },
	{ "NCCL_FASTRAK_USE_SNAP", "1", REQ },
	{ "NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL", "0", REQ },
	{ "NCCL_BUFFSIZE", "8388608", REQ },
	{ "CUDA_VISIBLE_DEVICES", "0,1,2,3,4,5,6,7", OPT },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_FASTRAK_ENABLE_HOTPATH_LOGGING", "0", OPT },
	{ "NCCL_FASTRAK_USE_LLCM", "1", REQ },
};

#define TCPX_TX "eth1:8-21,112-125;eth2:8-21,112-125;eth3:60-73,164-177;eth4:60-73,164-177"
#define TCPX_RX "eth1:22-35,126-139;eth2:22-35,126-139;eth3:74-87,178-191;eth4:74-87,178-191"

/* TCPX, Jun 22, 2026 (v3.1.12); Feb 15, 2024 (v3.1.9) differs only in NCCL_ALGO. */
static const struct releases_env releases_env_tcpx_v3112[] = {
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_ALGO", "Ring,Tree", REQ },
	{ "NCCL_PROTO", "Simple", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_P2P_PXN_LEVEL", "0", REQ },
	{ "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2,eth3,eth4", REQ },
	{ "NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0", REQ },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_BUFFSIZE", "4194304", REQ },
	{ "NCCL_NSOCKS_PERTHREAD", "4", REQ },
	{ "NCCL_SOCKET_NTHREADS", "1", REQ },
	{ "NCCL_GPUDIRECTTCPX_TX_BINDINGS", TCPX_TX, REQ },
	{ "NCCL_GPUDIRECTTCPX_RX_BINDINGS", TCPX_RX, REQ },
	{ "NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS", "500000", REQ },
};

static const struct releases_env releases_env_tcpx_v319[] = {
	{ "NCCL_SOCKET_IFNAME", "eth0", REQ },
	{ "NCCL_ALGO", "Ring", REQ },
	{ "NCCL_PROTO", "Simple", REQ },
	{ "NCCL_CROSS_NIC", "0", REQ },
	{ "NCCL_NET_GDR_LEVEL", "PIX", REQ },
	{ "NCCL_P2P_PXN_LEVEL", "0", REQ },
	{ "NCCL_GPUDIRECTTCPX_SOCKET_IFNAME", "eth1,eth2,eth3,eth4", REQ },
	{ "NCCL_GPUDIRECTTCPX_CTRL_DEV", "eth0", REQ },
	{ "NCCL_DYNAMIC_CHUNK_SIZE", "524288", REQ },
	{ "NCCL_P2P_NET_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_PCI_CHUNKSIZE", "524288", REQ },
	{ "NCCL_P2P_NVL_CHUNKSIZE", "1048576", REQ },
	{ "NCCL_BUFFSIZE", "4194304", REQ },
	{ "NCCL_NSOCKS_PERTHREAD", "4", REQ },
	{ "NCCL_SOCKET_NTHREADS", "1", REQ },
	{ "NCCL_GPUDIRECTTCPX_TX_BINDINGS", TCPX_TX, REQ },
	{ "NCCL_GPUDIRECTTCPX_RX_BINDINGS", TCPX_RX, REQ },
	{ "NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS", "500000", REQ },
};

#undef REQ
#undef OPT
#undef LIB

#define RELEASES_ENV_SET(a) a, sizeof(a) / sizeof(a[0])

/* Which set each release of the notes has: the built-in rows' installer tags. */
static const struct {
	enum releases_fabric fabric;
	const char *installer;
	const struct releases_env *env;
	size_t n;
} releases_env_sets[] = {
	{ RELEASES_FABRIC_TCPXO, "v1.0.15", RELEASES_ENV_SET(releases_env_tcpxo_v1014) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.14", RELEASES_ENV_SET(releases_env_tcpxo_v1014) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.12", RELEASES_ENV_SET(releases_env_tcpxo_v1012) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.11", RELEASES_ENV_SET(releases_env_tcpxo_v109) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.9-1", RELEASES_ENV_SET(releases_env_tcpxo_v109) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.8-1", RELEASES_ENV_SET(releases_env_tcpxo_v103) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.7", RELEASES_ENV_SET(releases_env_tcpxo_v103) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.6", RELEASES_ENV_SET(releases_env_tcpxo_v103) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.5", RELEASES_ENV_SET(releases_env_tcpxo_v103) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.4", RELEASES_ENV_SET(releases_env_tcpxo_v103) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.3", RELEASES_ENV_SET(releases_env_tcpxo_v103) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.2", RELEASES_ENV_SET(releases_env_tcpxo_v102) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.1", RELEASES_ENV_SET(releases_env_tcpxo_v101) },
	{ RELEASES_FABRIC_TCPXO, "v1.0.0", RELEASES_ENV_SET(releases_env_tcpxo_v100) },
	{ RELEASES_FABRIC_TCPX, "v3.1.12", RELEASES_ENV_SET(releases_env_tcpx_v3112) },
	{ RELEASES_FABRIC_TCPX, "v3.1.9", RELEASES_ENV_SET(releases_env_tcpx_v319) },
};

const struct releases_env *releases_env_of(const struct releases *t, enum releases_fabric fabric,
					   const char *installer_tag, size_t *ret_n)
{
	*ret_n = 0;
	/* The release must be in the table in effect; its set is the notes' of that release. */
	if (!releases_find_installer(t ? t : releases_builtin(), fabric, installer_tag))
		return NULL;
	for (size_t i = 0; i < sizeof(releases_env_sets) / sizeof(releases_env_sets[0]); i++)
		if (releases_env_sets[i].fabric == fabric &&
		    imageref_version_equal(releases_env_sets[i].installer, installer_tag)) {
			*ret_n = releases_env_sets[i].n;
			return releases_env_sets[i].env;
		}
	return NULL;
}

const struct releases_env *releases_env_latest(size_t *ret_n)
{
	*ret_n = sizeof(releases_env_tcpxo_v1014) / sizeof(releases_env_tcpxo_v1014[0]);
	return releases_env_tcpxo_v1014;
}
