/* cli_parse.c - the parser that reads a command line against the option and command table (cli.c). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "report/checks/transport.h"

#define CLI_GIVEN_MAX 128               /* options on one command line */

/* CLI_KIND_CHOICE writes the value's index through an int: the enums it fills are int-sized. */
_Static_assert(sizeof(enum cli_format) == sizeof(int) && sizeof(enum cli_log_format) == sizeof(int),
	       "a choice is stored as an int");

/* The command line read so far. */
struct cli_state {
	struct cli_options o;
	const char *name;               /* the program's, at the start of every message */
	const struct cli_cmd *word;     /* the command word given, NULL: none */
	bool once, cleanup, help, version, format_given, node_given;
	const char *topic;              /* help COMMAND */
	const char *node_arg;           /* kubectl fabric workloads NODE */
	const char *output;             /* -o's value, judged once the command is known */
	const struct cli_opt *given[CLI_GIVEN_MAX];     /* each option given: its first row */
	size_t n_given;
};

/* The first row of @prog for long option @name (@n bytes) or, with @n 0, short option @c. */
static const struct cli_opt *cli_find(enum cli_program prog, const char *name, size_t n, char c)
{
	for (size_t i = 0; i < cli_n_opts; i++) {
		const struct cli_opt *r = &cli_opts[i];

		if (!(r->progs & (1u << prog)))
			continue;
		if (n ? r->name && strlen(r->name) == n && strncmp(r->name, name, n) == 0 : r->short_name == c)
			return r;
	}
	return NULL;
}

/* The commands option @r works for in @prog: the union of its rows. */
static unsigned cli_scope(enum cli_program prog, const struct cli_opt *r)
{
	unsigned cmds = 0;

	for (size_t i = 0; i < cli_n_opts; i++)
		if ((cli_opts[i].progs & (1u << prog)) && cli_same_opt(&cli_opts[i], r))
			cmds |= cli_opts[i].cmds;
	return cmds;
}

static int cli_choice(struct cli_state *s, const struct cli_opt *r, const char *v)
{
	char label[64];

	for (int k = 0; r->words[k]; k++)
		if (strcmp(r->words[k], v) == 0) {
			memcpy((char *)&s->o + r->off, &k, sizeof(k));
			return 0;
		}
	cli_opt_label(r, label, sizeof(label));
	fprintf(stderr, "%s: %s: expected ", s->name, label);
	for (int k = 0; r->words[k]; k++)
		fprintf(stderr, "%s%s", k == 0 ? "" : r->words[k + 1] ? ", " : " or ", r->words[k]);
	fprintf(stderr, ", got '%s'\n", v);
	return -EINVAL;
}


static int cli_kubectl_arg(struct cli_state *s, const char *arg)
{
	if (s->o.n_kubectl_args == CLI_KUBECTL_ARGS_MAX)
		return cli_refuse(s->name, "more than %d of kubectl's flags", CLI_KUBECTL_ARGS_MAX);
	s->o.kubectl_args[s->o.n_kubectl_args++] = arg;
	return 0;
}

/*
 * One option @r into @s: @value is its value (NULL for none), @typed the argument as typed,
 * @value_apart whether the value was the next argument (kubectl's flags are passed on as typed).
 */
static int cli_apply(struct cli_state *s, const struct cli_opt *r, const char *typed, const char *value,
		     bool value_apart)
{
	char *base = (char *)&s->o, label[64];

	cli_opt_label(r, label, sizeof(label));
	switch (r->kind) {
	case CLI_KIND_FLAG:
		*(bool *)(base + r->off) = true;
		return 0;
	case CLI_KIND_STRING:
		*(const char **)(base + r->off) = value;
		return 0;
	case CLI_KIND_DURATION:
		return cli_duration_in(s->name, label, value, r->min, r->max, r->zero, (unsigned *)(base + r->off));
	case CLI_KIND_RATE:
		return cli_rate(s->name, label, value, CLI_RATE_MIN, CLI_RATE_MAX, (uint64_t *)(base + r->off));
	case CLI_KIND_CHOICE:
		if (r->off == offsetof(struct cli_options, format))
			s->format_given = true;
		return cli_choice(s, r, value);
	case CLI_KIND_COUNT:
		(*(int *)(base + r->off))++;
		return 0;
	case CLI_KIND_OUTPUT:
		if (s->output && strcmp(s->output, value) != 0)
			return cli_refuse(s->name, "-o given twice: %s and %s", s->output, value);
		s->output = value;
		return 0;
	case CLI_KIND_KUBECTL:
		if (r->short_name == 'v')
			s->o.kubectl_verbose = true;
		if (cli_kubectl_arg(s, typed) < 0)
			return -EINVAL;
		return value_apart ? cli_kubectl_arg(s, value) : 0;
	case CLI_KIND_KUBECTL_FLAG:
		return cli_kubectl_arg(s, typed);
	case CLI_KIND_ONCE:
		s->once = true;
		return 0;
	case CLI_KIND_CLEANUP:
		s->cleanup = true;
		return 0;
	case CLI_KIND_HELP:
		s->help = true;
		return 0;
	case CLI_KIND_VERSION:
		s->version = true;
		return 0;
	}
	return -EINVAL;
}

/* One argument that starts with '-' (and is not "-" or "--"), and its value from @argv[*@i + 1] when apart. */
static int cli_option(struct cli_state *s, int argc, char **argv, int *i)
{
	const char *a = argv[*i], *value = NULL, *eq;
	const struct cli_opt *r;
	bool apart = false;

	if (a[1] == '-') {
		eq = strchr(a + 2, '=');
		r = cli_find(s->o.prog, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2), 0);
		value = eq ? eq + 1 : NULL;
	} else {
		r = cli_find(s->o.prog, NULL, 0, a[1]);
		if (r && a[2])
			value = a[2] == '=' ? a + 3 : a + 2;
		/* -vv: the agent's -v twice (one debug level all the same). */
		if (r && r->kind == CLI_KIND_COUNT && value && strspn(a + 1, "v") == strlen(a + 1))
			value = NULL;
	}
	if (!r)
		return cli_refuse(s->name, "unknown option '%.*s' (try --help)",
			(int)(a[1] == '-' && (eq = strchr(a, '=')) ? eq - a : (ptrdiff_t)strlen(a)), a);
	if (r->arg && !value) {
		if (*i + 1 >= argc)
			return cli_refuse(s->name, "%s needs a value (try --help)", a);
		value = argv[++*i];
		apart = true;
	} else if (!r->arg && value && r->kind != CLI_KIND_KUBECTL_FLAG) {
		return cli_refuse(s->name, "%s takes no value (try --help)", a);
	}
	if (r->kind != CLI_KIND_HELP && r->kind != CLI_KIND_VERSION) {
		if (s->n_given == CLI_GIVEN_MAX)
			return cli_refuse(s->name, "more than %d options", CLI_GIVEN_MAX);
		s->given[s->n_given++] = r;
	}
	return cli_apply(s, r, a, value, apart);
}

/* A word that is not an option: the command, then help's topic or kubectl fabric workloads' NODE. */
static int cli_positional(struct cli_state *s, const char *a)
{
	const struct cli_cmd *c;

	if (!s->word && !s->once && !s->cleanup) {
		c = cli_table_word(a, s->o.prog);
		/* daemon, once and cleanup are help topics, not words that run them. */
		if (!c || c->cmd == CLI_CMD_DAEMON || c->cmd == CLI_CMD_ONCE || c->cmd == CLI_CMD_CLEANUP)
			return cli_refuse(s->name, "unknown command '%s' (try --help)", a);
		s->word = c;
		return 0;
	}
	if (s->word && s->word->cmd == CLI_CMD_HELP && !s->topic) {
		s->topic = a;
		return 0;
	}
	if (s->word && s->word->cmd == CLI_CMD_WORKLOADS && s->o.prog == CLI_PROG_FABRIC && !s->node_arg) {
		s->node_arg = a;
		return 0;
	}
	return cli_refuse(s->name, "unexpected argument '%s' (try --help)", a);
}

/* --once and --cleanup against each other and the command word; then the command they choose. */
static int cli_resolve_command(struct cli_state *s)
{
	struct cli_options *o = &s->o;

	/* help --once, help --cleanup: the help of those. */
	if (s->word && s->word->cmd == CLI_CMD_HELP && !s->topic && s->once != s->cleanup) {
		s->topic = s->once ? "once" : "cleanup";
		s->once = s->cleanup = false;
	}
	if (s->once && s->cleanup)
		return cli_refuse(s->name, "--once and --cleanup exclude each other");
	if ((s->once || s->cleanup) && s->word)
		return cli_refuse(s->name, "--once and --cleanup do not apply to the %s command", s->word->word);
	o->cmd = s->word ? s->word->cmd : s->once ? CLI_CMD_ONCE : s->cleanup ? CLI_CMD_CLEANUP : CLI_CMD_DAEMON;
	return 0;
}

/*
 * Help or the version, when asked for: the command becomes CLI_CMD_HELP (help_of: whose) or
 * CLI_CMD_VERSION. Return: 1 asked; 0 not; -EINVAL for help on no such command.
 */
static int cli_resolve_asked(struct cli_state *s)
{
	enum cli_program prog = s->o.prog;
	struct cli_options *o = &s->o;
	const struct cli_cmd *c;

	if (o->cmd == CLI_CMD_HELP && s->topic) {
		c = cli_table_word(s->topic[0] == '-' && s->topic[1] == '-' ? s->topic + 2 : s->topic, prog);
		if (!c)
			return cli_refuse(s->name, "help: no command '%s' (try %s help)", s->topic,
				cli_table_prog_usage(prog));
		o->help_of = c->cmd;
	} else if (o->cmd == CLI_CMD_HELP || (s->help && o->cmd == CLI_CMD_DAEMON) ||
		   (s->help && prog == CLI_PROG_FABRIC && !s->word)) {
		o->help_of = CLI_CMD__COUNT;
	} else if (s->help) {
		o->help_of = o->cmd;
	} else if (s->version && o->cmd != CLI_CMD_VERSION) {
		o->cmd = CLI_CMD_VERSION;
		o->output = CLI_OUTPUT_DEFAULT;
		return 1;
	} else {
		return 0;
	}
	o->cmd = CLI_CMD_HELP;
	return 1;
}

/* -o against the command's formats; --json and --format beside it. */
static int cli_resolve_output(struct cli_state *s)
{
	static const enum cli_format as_format[CLI_OUTPUT__COUNT] = {
		[CLI_OUTPUT_DEFAULT] = CLI_FORMAT_FLAG, [CLI_OUTPUT_FLAG] = CLI_FORMAT_FLAG,
		[CLI_OUTPUT_JSON] = CLI_FORMAT_JSON, [CLI_OUTPUT_YAML] = CLI_FORMAT_YAML,
		[CLI_OUTPUT_AICRCONFIG] = CLI_FORMAT_AICRCONFIG,
	};
	struct cli_options *o = &s->o;
	const struct cli_cmd *c = cli_table_cmd(o->cmd);
	int out = CLI_OUTPUT_DEFAULT;

	if (s->output) {
		for (int k = 1; k < CLI_OUTPUT__COUNT; k++)
			if (strcmp(cli_output_words[k], s->output) == 0)
				out = k;
		if (out == CLI_OUTPUT_DEFAULT || !(c->outputs & (1u << out))) {
			fprintf(stderr, "%s: -o %s: %s ", s->name, s->output,
				o->cmd == CLI_CMD_DAEMON ? "the daemon" : c->word);
			if (!c->outputs) {
				fputs("has no other output\n", stderr);
			} else {
				fputs("takes ", stderr);
				for (int k = 1, n = 0; k < CLI_OUTPUT__COUNT; k++)
					if (c->outputs & (1u << k))
						fprintf(stderr, "%s%s", n++ ? ", " : "", cli_output_words[k]);
				fputc('\n', stderr);
			}
			return -EINVAL;
		}
	}
	if (o->json && out != CLI_OUTPUT_DEFAULT && out != CLI_OUTPUT_JSON)
		return cli_refuse(s->name, "--json and -o %s disagree", s->output);
	if (o->json)
		out = CLI_OUTPUT_JSON;
	if (o->cmd == CLI_CMD_INTERFACES && out != CLI_OUTPUT_DEFAULT) {
		if (s->format_given && o->format != as_format[out])
			return cli_refuse(s->name, "--format and -o %s disagree", s->output);
		o->format = as_format[out];
	}
	o->output = (enum cli_output)out;
	o->json = out == CLI_OUTPUT_JSON;
	return 0;
}

/* Where a command is named in messages: "status", "--once", "the daemon". */
static const char *cli_cmd_label(enum cli_command c)
{
	if (c == CLI_CMD_DAEMON || c == CLI_CMD_ONCE || c == CLI_CMD_CLEANUP)
		return c == CLI_CMD_DAEMON ? "the daemon" : c == CLI_CMD_ONCE ? "--once" : "--cleanup";
	return cli_table_cmd(c) ? cli_table_cmd(c)->word : "?";
}

/* Each option given against the table: one that the resolved command does not use is refused. */
static int cli_check_scope(const struct cli_state *s)
{
	for (size_t i = 0; i < s->n_given; i++) {
		const struct cli_opt *r = s->given[i];
		unsigned cmds = cli_scope(s->o.prog, r), n = 0;
		char label[64];

		if (cmds & (1u << s->o.cmd))
			continue;
		cli_opt_label(r, label, sizeof(label));
		fprintf(stderr, "%s: %s does not apply to %s; it applies to ", s->name, label, cli_cmd_label(s->o.cmd));
		for (int c = 0; c < CLI_CMD__COUNT; c++)
			if ((cmds & (1u << c)) && cli_table_cmd((enum cli_command)c)->progs & (1u << s->o.prog))
				fprintf(stderr, "%s%s", n++ ? ", " : "", cli_cmd_label((enum cli_command)c));
		fputc('\n', stderr);
		return -EINVAL;
	}
	return 0;
}

int cli_parse_program(enum cli_program prog, int argc, char **argv, struct cli_options *ret)
{
	struct cli_state s = {
		.o = {
			.cmd = CLI_CMD_DAEMON,
			.prog = prog,
			.prog_name = cli_table_prog_name(prog),
			.root = "/",
			.node = prog == CLI_PROG_AGENT ? getenv("NODE_NAME") : NULL,
			.start_jitter = 60,
			.heartbeat = CLI_HEARTBEAT_DEFAULT,
			.max_age = 60,
			.prefix = "fabric.aicr.run/",
			.transport_grace = TRANSPORT_GRACE_DEFAULT_S,
			.transport_window = TRANSPORT_WINDOW_DEFAULT_S,
			.transport_tcp_rate = TRANSPORT_TCP_RATE_DEFAULT,
		},
		.name = cli_table_prog_name(prog),
	};
	const char *env_node;
	bool options_done = false;
	int r;

	if (s.o.node && !*s.o.node)
		s.o.node = NULL;
	env_node = s.o.node;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!options_done && strcmp(a, "--") == 0) {
			options_done = true;
			continue;
		}
		r = !options_done && a[0] == '-' && a[1] ? cli_option(&s, argc, argv, &i) : cli_positional(&s, a);
		if (r < 0)
			return -EINVAL;
	}
	s.node_given = s.o.node != env_node;
	if (s.o.node && !*s.o.node)
		s.o.node = NULL;        /* --node "": none, as an empty NODE_NAME */
	if (s.node_arg) {
		if (s.node_given && s.o.node && strcmp(s.o.node, s.node_arg) != 0)
			return cli_refuse(s.name, "workloads: NODE %s and --node %s disagree", s.node_arg, s.o.node);
		s.o.node = s.node_arg;
	}
	if (cli_resolve_command(&s) < 0)
		return -EINVAL;
	r = cli_resolve_asked(&s);
	if (r < 0)
		return -EINVAL;
	if (r > 0) {
		*ret = s.o;
		return 0;
	}
	if (prog == CLI_PROG_FABRIC && !s.word)
		return cli_refuse(s.name, "which command? status, interfaces, runtime or workloads NODE (try --help)");
	if (cli_check_scope(&s) < 0 || cli_resolve_output(&s) < 0)
		return -EINVAL;
	if (s.o.cmd == CLI_CMD_VERSION) {
		*ret = s.o;
		return 0;
	}
	if (!s.o.interval)
		s.o.interval = s.o.no_watch ? CLI_INTERVAL_POLL : CLI_INTERVAL_WATCH;
	if (s.o.metrics_address && !*s.o.metrics_address)
		s.o.metrics_address = NULL;
	if (cli_check_values(s.name, &s.o) < 0)
		return -EINVAL;
	*ret = s.o;
	return 0;
}

int cli_parse(int argc, char **argv, struct cli_options *ret)
{
	return cli_parse_program(CLI_PROG_AGENT, argc, argv, ret);
}
