/* cli_help.c - help and the version from the one table: the program's commands, each command's own options, examples, exit codes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli_help.h"
#include "probes/model/json.h"

#define CLI_HELP_OPT_W 28               /* the option column: "  -o, --output FORMAT" padded */
#define CLI_HELP_WIDTH 100              /* a paragraph of names is wrapped here */
#define CLI_HELP_USAGE_MAX 40           /* the command list's column: a longer usage has its summary below */

#if defined(__linux__)
#define CLI_HELP_OS "linux"
#elif defined(__APPLE__)
#define CLI_HELP_OS "darwin"
#elif defined(__FreeBSD__)
#define CLI_HELP_OS "freebsd"
#else
#define CLI_HELP_OS "unknown"
#endif
#if defined(__x86_64__)
#define CLI_HELP_ARCH "amd64"
#elif defined(__aarch64__)
#define CLI_HELP_ARCH "arm64"
#else
#define CLI_HELP_ARCH "unknown"
#endif

/* @text's lines, each after @indent spaces but the first after @first (the caller printed what precedes it). */
static void cli_help_lines(const char *text, int first, int indent, FILE *out)
{
	int pad = first;

	while (*text) {
		size_t n = strcspn(text, "\n");

		fprintf(out, "%*s%.*s\n", pad, "", (int)n, text);
		text += n;
		if (*text)
			text++;
		pad = indent;
	}
}

/* The formats -o takes for @c: "json, wide or name". */
static void cli_help_outputs(const struct cli_cmd *c, char *buf, size_t len)
{
	size_t n = 0, k = 0, pos = 0;

	for (int o = 1; o < CLI_OUTPUT__COUNT; o++)
		n += !!(c->outputs & (1u << o));
	buf[0] = '\0';
	for (int o = 1; o < CLI_OUTPUT__COUNT && pos < len; o++) {
		if (!(c->outputs & (1u << o)))
			continue;
		pos += (size_t)snprintf(buf + pos, len - pos, "%s%s", k == 0 ? "" : k + 1 == n ? " or " : ", ",
					cli_output_words[o]);
		k++;
	}
}

/* Whether row @i is the first of its option in @prog (an option with several meanings has several rows). */
static bool cli_help_first_row(size_t i, enum cli_program prog)
{
	const struct cli_opt *r = &cli_opts[i];

	for (size_t j = 0; j < i; j++)
		if ((cli_opts[j].progs & (1u << prog)) && cli_same_opt(&cli_opts[j], r))
			return false;
	return true;
}

/* One option's line(s): "  -o, --output FORMAT   text". */
static void cli_help_opt(const struct cli_opt *r, const char *text, FILE *out)
{
	char cell[64];
	int n;

	if (r->short_name && r->name)
		n = snprintf(cell, sizeof(cell), "  -%c, --%s", r->short_name, r->name);
	else if (r->short_name)
		n = snprintf(cell, sizeof(cell), "  -%c", r->short_name);
	else
		n = snprintf(cell, sizeof(cell), "      --%s", r->name);
	if (r->arg && n > 0 && (size_t)n < sizeof(cell))
		n += snprintf(cell + n, sizeof(cell) - (size_t)n, " %s", r->arg);
	fputs(cell, out);
	if (n > CLI_HELP_OPT_W) {
		fputc('\n', out);
		n = 0;
	}
	cli_help_lines(text, CLI_HELP_OPT_W + 2 - n, CLI_HELP_OPT_W + 2, out);
}

/* kubectl fabric: kubectl's flags as one paragraph of names, wrapped. */
static void cli_help_kubectl(enum cli_command cmd, FILE *out)
{
	int col = 2;

	fputs("kubectl's flags, passed to every kubectl call as typed:\n  ", out);
	for (size_t i = 0; i < cli_n_opts; i++) {
		const struct cli_opt *r = &cli_opts[i];
		char word[80];
		int n;

		if ((r->kind != CLI_KIND_KUBECTL && r->kind != CLI_KIND_KUBECTL_FLAG) || !(r->cmds & (1u << cmd)) ||
		    !(r->progs & CLI_FABRIC))
			continue;
		n = cli_opt_label(r, word, sizeof(word));
		if (r->arg && n > 0 && (size_t)n < sizeof(word))
			n += snprintf(word + n, sizeof(word) - (size_t)n, " %s", r->arg);
		if (col > 2 && col + 2 + n > CLI_HELP_WIDTH) {
			fputs(",\n  ", out);
			col = 2;
		} else if (col > 2) {
			fputs(", ", out);
			col += 2;
		}
		fputs(word, out);
		col += n;
	}
	fputs("\n  (-v/--v LEVEL: kubectl's own log lines, on stderr)\n", out);
}

void cli_help_command(enum cli_program prog, enum cli_command cmd, FILE *out)
{
	const struct cli_cmd *c = cli_table_cmd(cmd);
	const char *usage = cli_table_prog_usage(prog), *ex;
	bool durations = false, kubectl = false;
	char outputs[128];

	fprintf(out, "Usage:\n  %s %s\n\n", usage, cli_table_text(c->usage, prog));
	cli_help_lines(cli_table_text(c->about, prog), 0, 0, out);
	fputs("\nOptions:\n", out);
	for (size_t i = 0; i < cli_n_opts; i++) {
		const struct cli_opt *r = &cli_opts[i];

		if (!(r->progs & (1u << prog)) || !(r->cmds & (1u << cmd)))
			continue;
		kubectl = kubectl || r->kind == CLI_KIND_KUBECTL || r->kind == CLI_KIND_KUBECTL_FLAG;
		durations = durations || r->kind == CLI_KIND_DURATION;
		/* kubectl's flags are listed apart; --once, --cleanup and --version choose what runs: the
		 * usage line and the top-level help show them. */
		if (r->kind == CLI_KIND_KUBECTL || r->kind == CLI_KIND_KUBECTL_FLAG || r->kind == CLI_KIND_ONCE ||
		    r->kind == CLI_KIND_CLEANUP || r->kind == CLI_KIND_VERSION)
			continue;
		if (r->kind == CLI_KIND_OUTPUT)
			cli_help_outputs(c, outputs, sizeof(outputs));
		cli_help_opt(r, r->kind == CLI_KIND_OUTPUT ? outputs : r->help, out);
	}
	if (kubectl) {
		fputc('\n', out);
		cli_help_kubectl(cmd, out);
	}
	if (durations)
		fputs("\nDurations: 90s, 5m, 1h, 1h30m; a bare number is seconds.\n", out);
	ex = cli_table_text(c->examples, prog);
	fputs("\nExamples:\n", out);
	cli_help_lines(ex, 2, 2, out);
	fputs("\nExit codes:\n", out);
	cli_help_lines(c->exits, 2, 2, out);
	fputs("\nSee tcpxo-agent(8).\n", out);
}

/* cli_help_program() - the top-level help of @prog: its commands, the options of every one, where to read more. */
static void cli_help_program(enum cli_program prog, FILE *out)
{
	const char *usage = cli_table_prog_usage(prog);
	int col = 0;

	if (prog == CLI_PROG_FABRIC)
		fputs("kubectl fabric - the GPUDirect fabric of your GKE cluster's A3 nodes, as their tcpxo-agents\n"
		      "published it on the Nodes, read with your own kubectl (its kubeconfig, context and\n"
		      "credential plugins).\n", out);
	else
		fputs("tcpxo-agent - whether this GKE A3 node is really attached to the GPUDirect-TCPXO fabric:\n"
		      "it observes the node (GPUs, GPU NICs, PCIe pairing, links, LLCM aperture devices, device\n"
		      "nodes, NVIDIA host path, NCCL plugin files, installer/daemon versions), judges it, and\n"
		      "publishes the verdict on the Node: annotations, the labels <prefix>profile and\n"
		      "<prefix>ready, the condition FabricReady, and an Event when it changes.\n", out);
	fputs("\nUsage:\n", out);
	for (size_t i = 0; i < cli_n_cmds; i++)
		if (cli_cmds[i].progs & (1u << prog)) {
			int n = (int)(strlen(usage) + strlen(cli_table_text(cli_cmds[i].usage, prog))) + 6;

			if (n > col && n <= CLI_HELP_USAGE_MAX)
				col = n;
		}
	for (size_t i = 0; i < cli_n_cmds; i++) {
		const struct cli_cmd *c = &cli_cmds[i];
		int n;

		if (!(c->progs & (1u << prog)))
			continue;
		n = fprintf(out, "  %s %s", usage, cli_table_text(c->usage, prog));
		if (n > col - 2) {
			fputc('\n', out);
			n = 0;
		}
		cli_help_lines(cli_table_text(c->summary, prog), col - n, col, out);
	}
	fputs("\nOptions of every command:\n", out);
	for (size_t i = 0; i < cli_n_opts; i++) {
		const struct cli_opt *r = &cli_opts[i];

		if ((r->kind == CLI_KIND_HELP || r->kind == CLI_KIND_VERSION) && (r->progs & (1u << prog)) &&
		    cli_help_first_row(i, prog))
			cli_help_opt(r, r->kind == CLI_KIND_HELP ? "this help; after a command, that command's" : r->help,
				     out);
	}
	fprintf(out, "\nRun '%s COMMAND --help' or '%s help COMMAND' for a command's own options,\n"
		"examples and exit codes%s.\n", usage, usage,
		prog == CLI_PROG_AGENT ? " (the daemon's: 'tcpxo-agent help daemon')" : "");
	fputs("Durations (every time option): 90s, 5m, 1h, 1h30m; a bare number is seconds.\n"
	      "-o FORMAT: json (= --json)", out);
	if (prog == CLI_PROG_AGENT)
		fputs(" for --once, interfaces, workloads, runtime, status; yaml for\n"
		      "interfaces; wide and name for status.\n", out);
	else
		fputs(" for every command; yaml for interfaces; wide and name for status.\n", out);
	fputs("Exit codes: 0 ready / coherent, 1 not ready / incoherent, 2 unknown or bad usage.\n"
	      "See tcpxo-agent(8).\n", out);
}

/*
 * cli_help_version() - "tcpxo-agent 0.1.0", or with @output CLI_OUTPUT_JSON or CLI_OUTPUT_YAML
 * the document {name, version, platform}.
 * Return: 0; -ENOMEM.
 */
static int cli_help_version(enum cli_program prog, enum cli_output output, FILE *out)
{
	const char *name = cli_table_prog_name(prog), *platform = CLI_HELP_OS "/" CLI_HELP_ARCH;
	struct json *v;
	char *text;
	int r;

	if (output == CLI_OUTPUT_YAML) {
		fprintf(out, "name: %s\nversion: \"%s\"\nplatform: %s\n", name, TCPXO_VERSION, platform);
		return 0;
	}
	if (output != CLI_OUTPUT_JSON) {
		fprintf(out, "%s %s\n", name, TCPXO_VERSION);
		return 0;
	}
	v = json_new_object();
	r = v ? 0 : -ENOMEM;
	r |= json_add_string(v, "name", name);
	r |= json_add_string(v, "version", TCPXO_VERSION);
	r |= json_add_string(v, "platform", platform);
	text = r < 0 ? NULL : json_print(v, true);
	json_free(v);
	if (!text)
		return -ENOMEM;
	fprintf(out, "%s\n", text);
	free(text);
	return 0;
}

int cli_help_run(const struct cli_options *opt)
{
	int r = 0;

	if (opt->cmd == CLI_CMD_VERSION)
		r = cli_help_version(opt->prog, opt->output, stdout);
	else if (opt->help_of == CLI_CMD__COUNT)
		cli_help_program(opt->prog, stdout);
	else
		cli_help_command(opt->prog, opt->help_of, stdout);
	if (r < 0)
		fprintf(stderr, "%s: out of memory\n", opt->prog_name);
	if (fflush(stdout) != 0 || ferror(stdout))
		r = -EIO;
	return r < 0 ? EXIT_UNKNOWN : 0;
}
