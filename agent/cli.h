/* cli.h - command-line options of every tcpxo-agent command, and the exit codes. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum cli_command {
	CLI_CMD_DAEMON = 0,
	CLI_CMD_ONCE,
	CLI_CMD_INTERFACES,
	CLI_CMD_HEALTH,
	CLI_CMD_CLEANUP,
	CLI_CMD_WORKLOADS,
	CLI_CMD_RUNTIME,
	CLI_CMD_STATUS,
};

enum cli_format {
	CLI_FORMAT_FLAG = 0,
	CLI_FORMAT_YAML,
	CLI_FORMAT_JSON,
	CLI_FORMAT_AICRCONFIG,
};

enum cli_log_format {
	CLI_LOG_TEXT = 0,
	CLI_LOG_JSON,
};

struct cli_options {
	enum cli_command cmd;
	const char *root;               /* "/" by default */
	const char *node;               /* --node or $NODE_NAME, may be NULL */
	bool json;
	bool no_publish;
	bool no_labels;                 /* publish no scheduling labels (and remove ours) */
	const char *api_server, *token_file, *ca_file;
	const char *nodes_file, *selector;
	bool any_network_names;         /* interfaces: AICR's gpu-nic naming rule not applied */
	const char *pods_file;          /* workloads: a PodList (kubectl get pods -o json) instead of the API */
	const char *name;               /* runtime: the runtime's name (default: the fleet's profile's) */
	const char *runtime_file;       /* runtime: JSON or YAML holding it instead of the API */
	const char *networks_file;      /* runtime: a NetworkList (kubectl get networks.networking.gke.io -o json) */
	enum cli_format format;
	unsigned interval;              /* seconds: the full resync (CLI_INTERVAL_* unless given) */
	bool no_watch;                  /* daemon: poll every interval instead of watching */
	unsigned start_jitter;          /* seconds */
	const char *health_file;
	const char *metrics_address;    /* daemon: serve /metrics there ("ADDRESS:PORT"); NULL: not at all */
	unsigned max_age;               /* health: seconds */
	enum cli_log_format log_format;
	const char *prefix;
	const char *releases;
	int verbose;
	unsigned transport_grace;       /* daemon, --once, workloads: seconds a GPU pod may run without a
					   buffer-op client before its transport is tcp or idle (0: at once) */
	unsigned transport_window;      /* --once, workloads: seconds between two readings of such a pod's net/dev */
	uint64_t transport_tcp_rate;    /* daemon, --once, workloads: bytes/s each way that make it tcp */
	unsigned heartbeat;             /* daemon: seconds between the condition's heartbeats (0: none) */
};


#define CLI_INTERVAL_WATCH 3600u        /* --interval's default while watches keep the facts */
#define CLI_INTERVAL_POLL 300u          /* ... and with --no-watch, when the interval is all there is */
#define CLI_HEARTBEAT_DEFAULT 300u      /* --heartbeat's default, like Node Problem Detector's 5 minutes */
#define CLI_HEARTBEAT_MIN 10u
#define CLI_HEARTBEAT_MAX 3600u

/* Exit codes of --once, interfaces, workloads, runtime and status (NPD custom-plugin convention). */
enum {
	EXIT_READY = 0,
	EXIT_NOT_READY = 1,
	EXIT_UNKNOWN = 2,
};

/*
 * cli_duration() - a duration argument of option @name: a whole number followed by s, m or h
 * ("10s", "5m", "1h"); a bare number is seconds. "0" (with or without a unit) is 0, which the
 * caller may take as "off". Any other value must lie within [@min_s, @max_s].
 * Return: 0 with *@ret_s; -EINVAL after printing a usage error naming @name.
 */
int cli_duration(const char *name, const char *s, unsigned min_s, unsigned max_s, unsigned *ret_s);

/*
 * cli_rate() - a byte rate argument of option @name: a number (a decimal fraction allowed) with a
 * unit B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (of 1024), each with an optional "/s"
 * ("100MB/s", "1.5GB/s", "64MiB"); a bare number is bytes/s. It must lie within [@min, @max].
 * Return: 0 with *@ret (bytes/s, rounded down); -EINVAL after printing a usage error naming @name.
 */
int cli_rate(const char *name, const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/**
 * cli_parse() - parse argv into @ret (defaults filled in).
 * Return: 0; 1 when --help or --version was printed (exit 0); -EINVAL after printing a
 * usage error to stderr (exit 2).
 */
int cli_parse(int argc, char **argv, struct cli_options *ret);
