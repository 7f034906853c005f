/* cli.h - command-line options of every tcpxo-agent command, and the exit codes. */
#pragma once

#include <stdbool.h>

enum cli_command {
	CLI_CMD_DAEMON = 0,
	CLI_CMD_ONCE,
	CLI_CMD_INTERFACES,
	CLI_CMD_HEALTH,
	CLI_CMD_CLEANUP,
	CLI_CMD_WORKLOADS,
	CLI_CMD_RUNTIME,
	CLI_CMD_STATUS,
	CLI_CMD_HELP,                   /* help [COMMAND]: printed by cli_parse() */
	CLI_CMD_VERSION,                /* version [-o json|yaml]: printed by cli_parse() */
	CLI_CMD__COUNT
};

/* The programs built from these sources: the node agent, and the workstation's kubectl plugin. */
enum cli_program {
	CLI_PROG_AGENT = 0,             /* tcpxo-agent: every command */
	CLI_PROG_FABRIC,                /* kubectl-fabric: status, interfaces, runtime, workloads NODE through kubectl */
};

enum cli_format {
	CLI_FORMAT_FLAG = 0,
	CLI_FORMAT_YAML,
	CLI_FORMAT_JSON,
	CLI_FORMAT_AICRCONFIG,
};

/*
 * -o FORMAT. Each command takes its own (agent/cli_table.c: cli_cmds[].outputs) and refuses the
 * others (exit 2). A new format is a value here, its word in cli_output_words, its bit in the
 * outputs of the commands that print it (--once's npd, say), and the command's renderer.
 */
enum cli_output {
	CLI_OUTPUT_DEFAULT = 0,         /* the command's human text (interfaces: --format's) */
	CLI_OUTPUT_JSON,                /* = --json; interfaces: --format json */
	CLI_OUTPUT_YAML,                /* interfaces (--format yaml), version */
	CLI_OUTPUT_WIDE,                /* status: more columns */
	CLI_OUTPUT_NAME,                /* status: node/NAME lines */
	CLI_OUTPUT_FLAG,                /* interfaces: --format flag */
	CLI_OUTPUT_AICRCONFIG,          /* interfaces: --format aicrconfig */
	CLI_OUTPUT__COUNT
};

#define CLI_KUBECTL_ARGS_MAX 64         /* kubectl fabric: kubectl's global flags kept, as typed */

enum cli_log_format {
	CLI_LOG_TEXT = 0,
	CLI_LOG_JSON,
};

struct cli_options {
	enum cli_command cmd;
	enum cli_program prog;
	const char *prog_name;          /* "tcpxo-agent", "kubectl-fabric": the start of every message */
	const char *root;               /* "/" by default */
	const char *node;               /* --node or $NODE_NAME, may be NULL */
	bool json;                      /* -o json or --json */
	enum cli_output output;         /* -o, --json: what the command prints */
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
					   buffer-op client before its transport is none (0: at once) */
	unsigned heartbeat;             /* daemon: seconds between the condition's heartbeats (0: none) */
	const char *kubectl_args[CLI_KUBECTL_ARGS_MAX]; /* kubectl fabric: kubectl's global flags as typed */
	size_t n_kubectl_args;
	bool kubectl_verbose;           /* kubectl fabric: -v given: kubectl's own log lines go to stderr */
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
 * cli_duration() - the value @s of time option @name (every one: --interval, --heartbeat, ...):
 * timetext_duration_parse()'s syntax, "90s", "5m", "1h30m", a bare number of seconds. 0 (with
 * or without a unit) is 0, which the caller may take as "off" or "at once"; any other value
 * must lie within [@min_s, @max_s].
 * Return: 0 with *@ret_s; -EINVAL after printing a usage error that names @name and shows an
 * example (*@ret_s untouched).
 */
int cli_duration(const char *name, const char *s, unsigned min_s, unsigned max_s, unsigned *ret_s);

/**
 * cli_parse_program() - parse argv of program @prog into @ret (defaults filled in): the
 * command (a word anywhere before "--", or --once, --cleanup), each option against the one
 * table (agent/cli_table.c), -o against the command's outputs, the values' own rules.
 * help [COMMAND], -h/--help, version and --version print here.
 * Return: 0; 1 when help or the version was printed (exit 0); -EINVAL after printing a
 * usage error to stderr (exit 2).
 */
int cli_parse_program(enum cli_program prog, int argc, char **argv, struct cli_options *ret);

/* cli_parse() - cli_parse_program() for tcpxo-agent. */
int cli_parse(int argc, char **argv, struct cli_options *ret);
