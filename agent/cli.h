/* cli.h - the command line of tcpxo-agent and kubectl-fabric: the options, the one table of them and of the commands, the exit codes. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
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
	CLI_CMD_HELP,                   /* help [COMMAND], -h, --help: cli_help_run() */
	CLI_CMD_VERSION,                /* version [-o json|yaml], --version: cli_help_run() */
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
 * -o FORMAT. Each command takes its own (agent/cli.c: cli_cmds[].outputs) and refuses the
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
	CLI_OUTPUT_NPD,                 /* --once: one line of at most 80 characters for node-problem-detector */
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
	enum cli_command help_of;       /* CLI_CMD_HELP: whose help; CLI_CMD__COUNT: the program's */
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
					   buffer-op client before its transport is tcp or idle (0: at once) */
	unsigned transport_window;      /* --once, workloads: seconds between two readings of such a pod's net/dev */
	uint64_t transport_tcp_rate;    /* daemon, --once, workloads: bytes/s each way that make it tcp */
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

#define CLI_RATE_MIN 1000000ull          /* 1 MB/s: below it a job's own control traffic would read as tcp */
#define CLI_RATE_MAX 1000000000000ull    /* 1 TB/s */

/* Exit codes of --once, interfaces, workloads, runtime and status (NPD custom-plugin convention). */
enum {
	EXIT_READY = 0,
	EXIT_NOT_READY = 1,
	EXIT_UNKNOWN = 2,
};

/* A bit per enum cli_command: the commands an option works for (any other refuses it, exit 2). */
#define CLI_D (1u << CLI_CMD_DAEMON)
#define CLI_O (1u << CLI_CMD_ONCE)
#define CLI_C (1u << CLI_CMD_CLEANUP)
#define CLI_I (1u << CLI_CMD_INTERFACES)
#define CLI_H (1u << CLI_CMD_HEALTH)
#define CLI_W (1u << CLI_CMD_WORKLOADS)
#define CLI_R (1u << CLI_CMD_RUNTIME)
#define CLI_S (1u << CLI_CMD_STATUS)
#define CLI_V (1u << CLI_CMD_VERSION)
#define CLI_FLEET (CLI_I | CLI_W | CLI_R | CLI_S)       /* the commands kubectl fabric runs */
#define CLI_API (CLI_D | CLI_O | CLI_C | CLI_FLEET)     /* every command that talks to the API */
#define CLI_ALL ((1u << CLI_CMD__COUNT) - 1)

/* A bit per enum cli_program: the programs an option or a command belongs to. */
#define CLI_AGENT (1u << CLI_PROG_AGENT)
#define CLI_FABRIC (1u << CLI_PROG_FABRIC)
#define CLI_BOTH (CLI_AGENT | CLI_FABRIC)

enum cli_kind {
	CLI_KIND_FLAG,                  /* bool at off */
	CLI_KIND_STRING,                /* const char * at off */
	CLI_KIND_DURATION,              /* unsigned seconds at off: cli_duration_in() within [min, max] (0 too with zero) */
	CLI_KIND_RATE,                  /* uint64_t bytes/s at off: cli_rate() within [CLI_RATE_MIN, CLI_RATE_MAX] */
	CLI_KIND_CHOICE,                /* int at off: the value's index in words (an enum in words' order) */
	CLI_KIND_COUNT,                 /* int at off, one more each time (-v) */
	CLI_KIND_OUTPUT,                /* -o: one of the command's outputs */
	CLI_KIND_KUBECTL,               /* kubectl fabric: one of kubectl's global flags with a value, passed on as typed */
	CLI_KIND_KUBECTL_FLAG,          /* ... one without a value (it may carry =VALUE) */
	CLI_KIND_ONCE,                  /* these choose what runs */
	CLI_KIND_CLEANUP,
	CLI_KIND_HELP,
	CLI_KIND_VERSION,
};

/*
 * One option, with one meaning. An option whose meaning differs by command (--heartbeat for the
 * daemon and for status) has a row per meaning: the commands it works for are the union of its
 * rows, and each command's --help prints the row that names it. Adding an option is one row.
 */
struct cli_opt {
	const char *name;               /* the long name without "--"; NULL for a short one alone */
	char short_name;                /* 'o' for -o; 0 for none */
	enum cli_kind kind;
	const char *arg;                /* the value's name in --help ("DIR"); NULL when it takes none */
	size_t off;                     /* where the value goes in struct cli_options */
	unsigned min, max;              /* CLI_KIND_DURATION: seconds */
	bool zero;                      /* CLI_KIND_DURATION: 0 is taken too (off, or at once) */
	const char *const *words;       /* CLI_KIND_CHOICE: the values, NULL-terminated */
	unsigned cmds;                  /* CLI_D | CLI_O | ...: the commands it works for, with this meaning */
	unsigned progs;                 /* CLI_AGENT, CLI_FABRIC or CLI_BOTH */
	const char *help;               /* one line per '\n', each at most 74 columns */
};

/* One command: how it is chosen, what --help says of it. */
struct cli_cmd {
	enum cli_command cmd;
	const char *word;               /* "status"; "once" and "cleanup" (chosen by --once, --cleanup); "daemon" */
	unsigned progs;
	unsigned outputs;               /* a bit per enum cli_output that -o takes (CLI_OUTPUT_DEFAULT not counted) */
	const char *usage[2];           /* per program, after its name: "status [OPTIONS]"; NULL: as [0] */
	const char *summary[2];         /* per program (NULL: as [0]): its line in the top-level --help */
	const char *about[2];           /* per program; NULL: as [0] */
	const char *examples[2];        /* per program; NULL: as [0]; lines, "# ..." ones are comments */
	const char *exits;              /* lines "N  meaning" */
};

extern const struct cli_opt cli_opts[];
extern const size_t cli_n_opts;
extern const struct cli_cmd cli_cmds[];
extern const size_t cli_n_cmds;
extern const char *const cli_output_words[];    /* by enum cli_output: "json", ...; [0] is "" */

/* cli_opt_label() - option @r as the user types it, for messages: "--root", "-v", "-o/--output". Return: snprintf's. */
int cli_opt_label(const struct cli_opt *r, char *buf, size_t len);

/* cli_same_opt() - whether rows @a and @b are the same option (its names; an option may have several rows). */
bool cli_same_opt(const struct cli_opt *a, const struct cli_opt *b);

/* cli_table_cmd() - the row of @cmd (never NULL for a valid command). */
const struct cli_cmd *cli_table_cmd(enum cli_command cmd);

/* cli_table_word() - the command @word names in @prog ("status", "help"; "daemon", "once", "cleanup" too), or NULL. */
const struct cli_cmd *cli_table_word(const char *word, enum cli_program prog);

/* cli_table_prog_name() - the program's name in messages: "tcpxo-agent", "kubectl-fabric". */
const char *cli_table_prog_name(enum cli_program prog);

/* cli_table_prog_usage() - the program as the user types it: "tcpxo-agent", "kubectl fabric". */
const char *cli_table_prog_usage(enum cli_program prog);

/* cli_table_text() - @texts[@prog], else @texts[0]. */
const char *cli_table_text(const char *const texts[2], enum cli_program prog);

/*
 * cli_duration_in() - the value @s of time option @name of program @prog (every one: --interval,
 * --heartbeat, ...): timetext_duration_parse()'s syntax, "90s", "5m", "1h30m", a bare number of
 * seconds. 0 (with or without a unit) is 0, taken only when @zero (the caller may take it as "off"
 * or "at once"); any other value must lie within [@min_s, @max_s].
 * Return: 0 with *@ret_s; -EINVAL after printing a usage error that names @name and shows an
 * example (*@ret_s untouched).
 */
int cli_duration_in(const char *prog, const char *name, const char *s, unsigned min_s, unsigned max_s,
		    bool zero, unsigned *ret_s);

/* cli_refuse() - a usage error: "@prog: MESSAGE" and a newline on stderr. Return: -EINVAL. */
int cli_refuse(const char *prog, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * cli_check_values() - the values' own rules (--prefix a DNS subdomain and '/', --node and --name
 * names), and what the command @o->cmd needs (the daemon a node name, health --health-file, ...).
 * Return: 0; -EINVAL after printing a usage error naming @prog.
 */
int cli_check_values(const char *prog, const struct cli_options *o);

/*
 * cli_rate() - the value @s of byte-rate option @name: a number (a decimal fraction allowed) with a
 * unit B, kB, MB, GB (powers of 1000) or KiB, MiB, GiB (of 1024), each with an optional "/s"
 * ("100MB/s", "1.5GB/s", "64MiB"); a bare number is bytes/s. It must lie within [@min, @max].
 * Return: 0 with *@ret (bytes/s, rounded down); -EINVAL after printing a usage error naming
 * @prog and @name.
 */
int cli_rate(const char *prog, const char *name, const char *s, uint64_t min, uint64_t max, uint64_t *ret);

/**
 * cli_parse_program() - parse argv of program @prog into @ret (defaults filled in): the
 * command (a word anywhere before "--", or --once, --cleanup), each option against the one
 * table (agent/cli.c), -o against the command's outputs, the values' own rules.
 * help [COMMAND], -h/--help, version and --version give CLI_CMD_HELP (help_of: the command,
 * or CLI_CMD__COUNT for the program's help) and CLI_CMD_VERSION: cli_help_run() prints them.
 * Return: 0; -EINVAL after printing a usage error to stderr (exit 2).
 */
int cli_parse_program(enum cli_program prog, int argc, char **argv, struct cli_options *ret);

/* cli_parse() - cli_parse_program() for tcpxo-agent. */
int cli_parse(int argc, char **argv, struct cli_options *ret);
