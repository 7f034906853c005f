/* cli_table.h - the one table of every option and command: what each takes, which commands it works for, its help. */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "agent/cli.h"

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
	CLI_KIND_DURATION,              /* unsigned seconds at off: cli_duration() within [min, max] (0 too with zero) */
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
	const char *summary;            /* the line in the command list of the top-level --help */
	const char *about[2];           /* per program; NULL: as [0] */
	const char *examples[2];        /* per program; NULL: as [0]; lines, "# ..." ones are comments */
	const char *exits;              /* lines "N  meaning" */
};

extern const struct cli_opt cli_opts[];
extern const size_t cli_n_opts;
extern const struct cli_cmd cli_cmds[];
extern const size_t cli_n_cmds;
extern const char *const cli_output_words[];    /* by enum cli_output: "json", ...; [0] is "" */

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
