/* test_cli.c - command-line parsing: defaults, every option, -o, help from the one table, kubectl fabric's flags, and clear errors for bad input. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent/cli.h"
#include "agent/cli_help.h"

static int parse(struct cli_options *o, int argc, char **argv)
{
	return cli_parse(argc, argv, o);
}

#define PARSE(o, ...) ({ char *a_[] = { "tcpxo-agent", __VA_ARGS__, NULL }; \
			 parse(o, (int)(sizeof(a_) / sizeof(a_[0])) - 1, a_); })
#define FABRIC(o, ...) ({ char *a_[] = { "kubectl-fabric", __VA_ARGS__, NULL }; \
			  cli_parse_program(CLI_PROG_FABRIC, (int)(sizeof(a_) / sizeof(a_[0])) - 1, a_, o); })

/* Most cases run the daemon's options: they need a node name (a bare daemon is refused). */
static int with_node(void **state)
{
	(void)state;
	setenv("NODE_NAME", "gke-n0", 1);
	return 0;
}

static void test_defaults(void **state)
{
	char *argv[] = { "tcpxo-agent", NULL };
	struct cli_options o;

	/* No accidental daemon: without --node or NODE_NAME it refuses to start (exit 2). */
	unsetenv("NODE_NAME");
	assert_int_equal(parse(&o, 1, argv), -EINVAL);
	setenv("NODE_NAME", "", 1);
	assert_int_equal(parse(&o, 1, argv), -EINVAL);
	assert_int_equal(PARSE(&o, "--node", ""), -EINVAL);
	assert_int_equal(PARSE(&o, "--once"), 0);  /* --once looks at this machine: no node needed */
	assert_null(o.node);
	assert_int_equal(PARSE(&o, "--node", "gke-n1"), 0);
	assert_string_equal(o.node, "gke-n1");
	assert_int_equal(o.cmd, CLI_CMD_DAEMON);
	assert_string_equal(o.root, "/");
	assert_string_equal(o.prog_name, "tcpxo-agent");
	assert_int_equal(o.output, CLI_OUTPUT_DEFAULT);
	assert_false(o.json);
	setenv("NODE_NAME", "gke-n0", 1);
	assert_int_equal(parse(&o, 1, argv), 0);
	assert_int_equal(o.interval, 3600);      /* watches keep the facts: the interval is a safety net */
	assert_false(o.no_watch);
	assert_int_equal(o.start_jitter, 60);
	assert_int_equal(o.heartbeat, 300);     /* NPD's 5 minutes */
	assert_string_equal(o.prefix, "fabric.aicr.run/");
	assert_int_equal(o.transport_grace, 600);       /* 10 minutes for NCCL to initialise */
	assert_int_equal(o.transport_window, 3);        /* two readings 3 s apart */
	assert_true(o.transport_tcp_rate == 100000000ull);     /* 100 MB/s each way */
	assert_int_equal(PARSE(&o, "--heartbeat", "0"), 0);
	assert_int_equal(o.heartbeat, 0);       /* off */
	assert_int_equal(PARSE(&o, "--heartbeat", "10s"), 0);
	assert_int_equal(o.heartbeat, 10);
	assert_int_equal(PARSE(&o, "--heartbeat", "1h"), 0);
	assert_int_equal(o.heartbeat, 3600);
	assert_int_equal(PARSE(&o, "--heartbeat", "9s"), -EINVAL);
	assert_int_equal(PARSE(&o, "--heartbeat", "61m"), -EINVAL);
	assert_int_equal(PARSE(&o, "--heartbeat", "5d"), -EINVAL);
	setenv("NODE_NAME", "gke-n1", 1);
	assert_int_equal(parse(&o, 1, argv), 0);
	assert_string_equal(o.node, "gke-n1");
	setenv("NODE_NAME", "gke-n0", 1);
}

static void test_once(void **state)
{
	struct cli_options o;

	assert_int_equal(PARSE(&o, "--once", "--root", "/host", "--json", "--no-publish", "--node", "n"), 0);
	assert_int_equal(o.cmd, CLI_CMD_ONCE);
	assert_string_equal(o.root, "/host");
	assert_true(o.json);
	assert_true(o.no_publish);
	assert_string_equal(o.node, "n");
	assert_false(o.no_labels);
	/* --no-labels: the daemon and --once publish the node's state; nothing else does. */
	assert_int_equal(PARSE(&o, "--once", "--no-labels"), 0);
	assert_true(o.no_labels);
	assert_int_equal(PARSE(&o, "--no-labels"), 0);
	assert_int_equal(o.cmd, CLI_CMD_DAEMON);
	assert_true(o.no_labels);
	assert_int_equal(PARSE(&o, "--cleanup", "--no-labels"), -EINVAL);
	assert_int_equal(PARSE(&o, "interfaces", "--no-labels"), -EINVAL);
	assert_int_equal(PARSE(&o, "workloads", "--no-labels"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "--transport-grace", "2m"), 0);
	assert_int_equal(o.transport_grace, 120);
	assert_int_equal(PARSE(&o, "workloads", "--transport-grace", "0"), 0);
	assert_int_equal(o.transport_grace, 0);
	assert_int_equal(PARSE(&o, "workloads", "--transport-grace", "2d"), -EINVAL);
	assert_int_equal(PARSE(&o, "workloads", "--transport-grace", "25h"), -EINVAL);
	/* -o: json is --json; npd is node-problem-detector's one line; nothing else, and never both. */
	assert_int_equal(PARSE(&o, "--once", "-o", "json"), 0);
	assert_true(o.json);
	assert_int_not_equal(o.output, CLI_OUTPUT_NPD);
	assert_int_equal(PARSE(&o, "--once", "-o", "npd", "--no-publish"), 0);
	assert_int_equal(o.output, CLI_OUTPUT_NPD);
	assert_false(o.json);
	assert_int_equal(PARSE(&o, "--once", "-onpd"), 0);
	assert_int_equal(o.output, CLI_OUTPUT_NPD);
	assert_int_equal(PARSE(&o, "--once", "-o", "npd", "--json"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "-o", "npd", "-o", "json"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "-o", "yaml"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "-o"), -EINVAL);
	assert_int_equal(PARSE(&o, "workloads", "--transport-window", "10s"), 0);
	assert_int_equal(o.transport_window, 10);
	assert_int_equal(PARSE(&o, "--once", "--transport-window", "1"), 0);
	assert_int_equal(o.transport_window, 1);
	assert_int_equal(PARSE(&o, "workloads", "--transport-window", "0"), -EINVAL);    /* no window, no rate */
	assert_int_equal(PARSE(&o, "workloads", "--transport-window", "2m"), -EINVAL);
	assert_int_equal(PARSE(&o, "--transport-window", "3s"), -EINVAL);       /* the daemon rates between its samples */
	assert_int_equal(PARSE(&o, "--transport-tcp-rate", "1.5GB/s"), 0);
	assert_true(o.transport_tcp_rate == 1500000000ull);
	assert_int_equal(PARSE(&o, "workloads", "--transport-tcp-rate", "500MB"), 0);
	assert_true(o.transport_tcp_rate == 500000000ull);
	assert_int_equal(PARSE(&o, "--once", "--transport-tcp-rate", "512KiB/s"), -EINVAL);     /* under 1 MB/s */
}

static void test_rate(void **state)
{
	static const struct { const char *s; int r; uint64_t v; } cases[] = {
		{ "100MB/s", 0, 100000000ull }, { "100MB", 0, 100000000ull }, { "1.5GB/s", 0, 1500000000ull },
		{ "64MiB/s", 0, 67108864ull }, { "2GiB", 0, 2147483648ull }, { "1000kB/s", 0, 1000000ull },
		{ "1000KB/s", 0, 1000000ull }, { "5000000", 0, 5000000ull }, { "5000000B/s", 0, 5000000ull },
		{ "5000000/s", 0, 5000000ull }, { "999999", -EINVAL, 0 }, { "2TB/s", -EINVAL, 0 },
		{ "100mb/s", -EINVAL, 0 }, { "100 MB/s", -EINVAL, 0 }, { "MB/s", -EINVAL, 0 }, { "", -EINVAL, 0 },
		{ "-100MB/s", -EINVAL, 0 }, { "inf", -EINVAL, 0 }, { "nan", -EINVAL, 0 }, { "0x10MB", -EINVAL, 0 },
		{ "100MB/s/s", -EINVAL, 0 }, { "100MBps", -EINVAL, 0 }, { "1e400MB", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint64_t v = 12345;
		int r = cli_rate("t", "--x", cases[i].s, 1000000ull, 1000000000000ull, &v);

		if (r != cases[i].r)
			fail_msg("'%s': %d, expected %d", cases[i].s, r, cases[i].r);
		if (!r && v != cases[i].v)
			fail_msg("'%s': %llu, expected %llu", cases[i].s, (unsigned long long)v, (unsigned long long)cases[i].v);
		if (r && v != 12345)
			fail_msg("'%s': written on failure", cases[i].s);
	}
}

static void test_subcommands(void **state)
{
	struct cli_options o;

	assert_int_equal(PARSE(&o, "interfaces", "--format", "yaml", "--nodes-file", "-"), 0);
	assert_int_equal(o.cmd, CLI_CMD_INTERFACES);
	assert_int_equal(o.format, CLI_FORMAT_YAML);
	assert_int_equal(PARSE(&o, "interfaces", "--format", "aicrconfig", "--nodes-file", "-"), 0);
	assert_int_equal(o.format, CLI_FORMAT_AICRCONFIG);
	assert_false(o.any_network_names);
	assert_int_equal(PARSE(&o, "interfaces", "--any-network-names", "--nodes-file", "-"), 0);
	assert_true(o.any_network_names);
	assert_int_equal(PARSE(&o, "health", "--health-file", "/tmp/h", "--max-age", "30"), 0);
	assert_int_equal(o.cmd, CLI_CMD_HEALTH);
	assert_int_equal(o.max_age, 30);
	assert_int_equal(PARSE(&o, "health", "--health-file", "/tmp/h", "--max-age", "2m"), 0);
	assert_int_equal(o.max_age, 120);
	assert_int_equal(PARSE(&o, "health", "--max-age=1h30m", "--health-file=/tmp/h"), 0);
	assert_int_equal(o.max_age, 5400);
	assert_int_equal(PARSE(&o, "health", "--health-file", "/tmp/h", "--max-age", "5124095576030432h"), -EINVAL);
	assert_int_equal(PARSE(&o, "workloads", "--json", "--pods-file", "-", "--node", "n1"), 0);
	assert_int_equal(o.cmd, CLI_CMD_WORKLOADS);
	assert_true(o.json);
	assert_string_equal(o.pods_file, "-");
	assert_int_equal(PARSE(&o, "workloads", "--api-server", "https://127.0.0.1:6443"), 0);
	assert_null(o.pods_file);
	/* --pods-file is the workloads command's only; --once is not a workloads option. */
	assert_int_equal(PARSE(&o, "--once", "--pods-file", "p.json"), -EINVAL);
	assert_int_equal(PARSE(&o, "interfaces", "--pods-file", "p.json"), -EINVAL);
	assert_int_equal(PARSE(&o, "workloads", "--once"), -EINVAL);
	assert_int_equal(PARSE(&o, "workloads", "--pods-file"), -EINVAL);
	assert_int_equal(PARSE(&o, "--cleanup", "--node", "x"), 0);
	assert_int_equal(o.cmd, CLI_CMD_CLEANUP);
	/* status: the fleet's verdicts, from the API or a NodeList. */
	assert_int_equal(PARSE(&o, "status", "--json", "--nodes-file", "-"), 0);
	assert_int_equal(o.cmd, CLI_CMD_STATUS);
	assert_true(o.json);
	assert_string_equal(o.nodes_file, "-");
	assert_int_equal(PARSE(&o, "status", "--root", "/"), -EINVAL);
	assert_int_equal(PARSE(&o, "status", "extra"), -EINVAL);
}

/* runtime: its own options, the fleet's (--nodes-file, --selector), one of them on stdin at most. */
static void test_runtime(void **state)
{
	struct cli_options o;

	assert_int_equal(PARSE(&o, "runtime"), 0);
	assert_int_equal(o.cmd, CLI_CMD_RUNTIME);
	assert_null(o.name);
	assert_null(o.runtime_file);
	assert_null(o.networks_file);
	assert_int_equal(PARSE(&o, "runtime", "--name", "torch-distributed-tcpxo", "--runtime-file", "-", "--nodes-file",
			       "nodes.json", "--networks-file", "nets.json", "--json", "--releases", "r.json"), 0);
	assert_string_equal(o.name, "torch-distributed-tcpxo");
	assert_string_equal(o.runtime_file, "-");
	assert_string_equal(o.nodes_file, "nodes.json");
	assert_string_equal(o.networks_file, "nets.json");
	assert_true(o.json);
	assert_int_equal(PARSE(&o, "runtime", "--selector", "cloud.google.com/gke-nodepool=a3pool"), 0);
	assert_string_equal(o.selector, "cloud.google.com/gke-nodepool=a3pool");
	/* Only one input on stdin; a name goes into a request path: a DNS subdomain. */
	assert_int_equal(PARSE(&o, "runtime", "--runtime-file", "-", "--nodes-file", "-"), -EINVAL);
	assert_int_equal(PARSE(&o, "runtime", "--networks-file", "-", "--nodes-file", "-"), -EINVAL);
	assert_int_equal(PARSE(&o, "runtime", "--name", "Torch_Distributed"), -EINVAL);
	assert_int_equal(PARSE(&o, "runtime", "--name", "../nodes"), -EINVAL);
	assert_int_equal(PARSE(&o, "runtime", "--name"), -EINVAL);
	/* Its options are its own. */
	assert_int_equal(PARSE(&o, "interfaces", "--runtime-file", "rt.yaml"), -EINVAL);
	assert_int_equal(PARSE(&o, "workloads", "--networks-file", "n.json"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "--name", "x"), -EINVAL);
	assert_int_equal(PARSE(&o, "runtime", "--once"), -EINVAL);
}

static void test_errors(void **state)
{
	struct cli_options o;

	assert_int_equal(PARSE(&o, "--bogus"), -EINVAL);
	assert_int_equal(PARSE(&o, "--root"), -EINVAL);
	/* Polling: the interval is all there is, 300 s unless given; a given one stands in both modes. */
	assert_int_equal(PARSE(&o, "--no-watch"), 0);
	assert_true(o.no_watch);
	assert_int_equal(o.interval, 300);
	assert_int_equal(PARSE(&o, "--no-watch", "--interval", "42"), 0);
	assert_int_equal(o.interval, 42);
	assert_int_equal(PARSE(&o, "--interval", "42"), 0);
	assert_int_equal(o.interval, 42);
	assert_int_equal(PARSE(&o, "--interval", "abc"), -EINVAL);
	assert_int_equal(PARSE(&o, "--interval", "-5"), -EINVAL);
	assert_int_equal(PARSE(&o, "--interval", "5"), -EINVAL);
	assert_int_equal(PARSE(&o, "--format", "xml"), -EINVAL);
	assert_int_equal(PARSE(&o, "--log-format", "xml"), -EINVAL);
	assert_int_equal(PARSE(&o, "--prefix", "Bad_Prefix/"), -EINVAL);
	assert_int_equal(PARSE(&o, "--prefix", "noslash"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "--cleanup"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "--any-network-names"), -EINVAL);     /* interfaces only */
	assert_int_equal(PARSE(&o, "frobnicate"), -EINVAL);
	assert_int_equal(PARSE(&o, "health"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "extra"), -EINVAL);
	assert_int_equal(PARSE(&o, "--root", ""), -EINVAL);
	assert_int_equal(PARSE(&o, "interfaces", "--once"), -EINVAL);
	assert_int_equal(PARSE(&o, "status", "runtime"), -EINVAL);          /* one command */
	assert_int_equal(PARSE(&o, "once"), -EINVAL);                       /* a help topic, not a command */
	assert_int_equal(PARSE(&o, "daemon"), -EINVAL);
	assert_int_equal(PARSE(&o, "--json=yes", "--once"), -EINVAL);       /* a flag takes no value */
	assert_int_equal(PARSE(&o, "--once", "-x"), -EINVAL);
	assert_int_equal(PARSE(&o, "--once", "-"), -EINVAL);
}

/* kubectl's habits: the command word anywhere, --opt=value, -o json / -ojson / -o=json, --. */
static void test_habits(void **state)
{
	struct cli_options o;

	assert_int_equal(PARSE(&o, "--nodes-file", "n.json", "status"), 0);
	assert_int_equal(o.cmd, CLI_CMD_STATUS);
	assert_string_equal(o.nodes_file, "n.json");
	assert_int_equal(PARSE(&o, "status", "--nodes-file=n.json", "-ojson"), 0);
	assert_string_equal(o.nodes_file, "n.json");
	assert_true(o.json);
	assert_int_equal(PARSE(&o, "status", "-o=wide"), 0);
	assert_int_equal(o.output, CLI_OUTPUT_WIDE);
	assert_int_equal(PARSE(&o, "status", "--output", "name"), 0);
	assert_int_equal(o.output, CLI_OUTPUT_NAME);
	assert_int_equal(PARSE(&o, "status", "-l", "a=b"), 0);
	assert_string_equal(o.selector, "a=b");
	assert_int_equal(PARSE(&o, "status", "--", "--x"), -EINVAL);       /* after --, a word */
	assert_int_equal(PARSE(&o, "--", "status"), 0);
	assert_int_equal(o.cmd, CLI_CMD_STATUS);
	assert_int_equal(PARSE(&o, "-v", "-vv"), 0);
	assert_int_equal(o.verbose, 2);
	assert_int_equal(PARSE(&o, "-v3"), -EINVAL);                        /* the agent's -v takes no level */
	assert_int_equal(PARSE(&o, "--once", "--transport-grace", "1h30m"), 0);
	assert_int_equal(o.transport_grace, 5400);
	assert_int_equal(PARSE(&o, "--start-jitter", "90s", "--interval", "2m30s", "--heartbeat", "1h"), 0);
	assert_int_equal(o.start_jitter, 90);
	assert_int_equal(o.interval, 150);
	assert_int_equal(o.heartbeat, 3600);
	assert_int_equal(PARSE(&o, "--interval", "0"), -EINVAL);             /* 0 is no interval */
	assert_int_equal(PARSE(&o, "--start-jitter", "0"), 0);
	assert_int_equal(PARSE(&o, "--start-jitter", "61m"), -EINVAL);
}

/* -o: each command takes its own formats and refuses the others; --json is -o json. */
static void test_output(void **state)
{
	static const struct {
		const char *cmd;        /* NULL: --once */
		const char *takes;      /* " json wide " */
	} cmds[] = {
		{ NULL, " json " }, { "interfaces", " json yaml flag aicrconfig " }, { "workloads", " json " },
		{ "runtime", " json " }, { "status", " json wide name " },
	};
	static const char *const words[] = { "json", "yaml", "wide", "name", "flag", "aicrconfig", "xml", "" };
	struct cli_options o, p;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		for (size_t k = 0; k < sizeof(words) / sizeof(words[0]); k++) {
			char *argv[] = { "tcpxo-agent", cmds[i].cmd ? (char *)cmds[i].cmd : "--once", "-o",
					 (char *)words[k], NULL };
			char w[32];
			int want;

			snprintf(w, sizeof(w), " %s ", words[k]);
			want = *words[k] && strstr(cmds[i].takes, w) ? 0 : -EINVAL;
			if (parse(&o, 4, argv) != want)
				fail_msg("%s -o %s: want %d", argv[1], words[k], want);
		}
	/* -o json prints what --json prints: the same options. */
	assert_int_equal(PARSE(&o, "status", "-o", "json"), 0);
	assert_int_equal(PARSE(&p, "status", "--json"), 0);
	assert_int_equal(o.output, CLI_OUTPUT_JSON);
	assert_int_equal(p.output, CLI_OUTPUT_JSON);
	assert_true(o.json && p.json);
	assert_int_equal(PARSE(&o, "status", "--json", "-o", "json"), 0);
	assert_int_equal(PARSE(&o, "status", "--json", "-o", "wide"), -EINVAL);
	assert_int_equal(PARSE(&o, "status", "-o", "wide", "-o", "name"), -EINVAL);
	/* interfaces: -o is --format. */
	assert_int_equal(PARSE(&o, "interfaces", "-o", "yaml"), 0);
	assert_int_equal(o.format, CLI_FORMAT_YAML);
	assert_int_equal(PARSE(&o, "interfaces", "-o", "json"), 0);
	assert_int_equal(o.format, CLI_FORMAT_JSON);
	assert_int_equal(PARSE(&o, "interfaces", "-o", "aicrconfig", "--format", "aicrconfig"), 0);
	assert_int_equal(o.format, CLI_FORMAT_AICRCONFIG);
	assert_int_equal(PARSE(&o, "interfaces", "-o", "yaml", "--format", "json"), -EINVAL);
	assert_int_equal(PARSE(&o, "interfaces", "--json"), -EINVAL);       /* never was interfaces' */
	/* Commands without another output refuse -o. */
	assert_int_equal(PARSE(&o, "-o", "json"), -EINVAL);
	assert_int_equal(PARSE(&o, "--cleanup", "-o", "json"), -EINVAL);
	assert_int_equal(PARSE(&o, "health", "--health-file", "h", "-o", "json"), -EINVAL);
}

/* -h, --help, help [COMMAND]: whose help; --version, version; an unknown topic is bad usage. */
#define HELP_OF(o, want) do { assert_int_equal((o).cmd, CLI_CMD_HELP); assert_int_equal((o).help_of, (want)); } while (0)

static void test_help_version(void **state)
{
	struct cli_options o;

	unsetenv("NODE_NAME");
	assert_int_equal(PARSE(&o, "-h"), 0);                               /* no node needed for help */
	HELP_OF(o, CLI_CMD__COUNT);
	assert_int_equal(PARSE(&o, "--help"), 0);
	HELP_OF(o, CLI_CMD__COUNT);
	assert_int_equal(PARSE(&o, "--no-watch", "--help"), 0);            /* the daemon's options: still the program's */
	HELP_OF(o, CLI_CMD__COUNT);
	assert_int_equal(PARSE(&o, "status", "--help"), 0);
	HELP_OF(o, CLI_CMD_STATUS);
	assert_int_equal(PARSE(&o, "--help", "status"), 0);
	HELP_OF(o, CLI_CMD_STATUS);
	assert_int_equal(PARSE(&o, "status", "-h", "--root", "/"), 0);      /* help wins over scope */
	HELP_OF(o, CLI_CMD_STATUS);
	assert_int_equal(PARSE(&o, "--once", "-h"), 0);
	HELP_OF(o, CLI_CMD_ONCE);
	assert_int_equal(PARSE(&o, "help"), 0);
	HELP_OF(o, CLI_CMD__COUNT);
	assert_int_equal(PARSE(&o, "help", "status"), 0);
	HELP_OF(o, CLI_CMD_STATUS);
	assert_int_equal(PARSE(&o, "help", "daemon"), 0);
	HELP_OF(o, CLI_CMD_DAEMON);
	assert_int_equal(PARSE(&o, "help", "--once"), 0);
	HELP_OF(o, CLI_CMD_ONCE);
	assert_int_equal(PARSE(&o, "help", "cleanup"), 0);
	HELP_OF(o, CLI_CMD_CLEANUP);
	assert_int_equal(PARSE(&o, "help", "bogus"), -EINVAL);
	assert_int_equal(PARSE(&o, "help", "status", "extra"), -EINVAL);
	assert_int_equal(PARSE(&o, "--version"), 0);
	assert_int_equal(o.cmd, CLI_CMD_VERSION);
	assert_int_equal(o.output, CLI_OUTPUT_DEFAULT);
	assert_int_equal(PARSE(&o, "version"), 0);
	assert_int_equal(o.cmd, CLI_CMD_VERSION);
	assert_int_equal(PARSE(&o, "version", "-o", "json"), 0);
	assert_int_equal(o.output, CLI_OUTPUT_JSON);
	assert_int_equal(PARSE(&o, "version", "-o", "yaml"), 0);
	assert_int_equal(o.output, CLI_OUTPUT_YAML);
	assert_int_equal(PARSE(&o, "version", "-o", "wide"), -EINVAL);
	assert_int_equal(PARSE(&o, "version", "--root", "/"), -EINVAL);
	assert_int_equal(FABRIC(&o, "--help"), 0);
	HELP_OF(o, CLI_CMD__COUNT);
	assert_int_equal(FABRIC(&o, "workloads", "--help"), 0);
	HELP_OF(o, CLI_CMD_WORKLOADS);
	assert_int_equal(FABRIC(&o, "help", "daemon"), -EINVAL);            /* not kubectl fabric's */
	assert_int_equal(FABRIC(&o, "version", "-o", "json"), 0);
	assert_int_equal(o.cmd, CLI_CMD_VERSION);
	setenv("NODE_NAME", "gke-n0", 1);
}

/* What --help says of each command comes from the table: every option it takes, none it refuses. */
static void test_help_from_table(void **state)
{
	for (int prog = CLI_PROG_AGENT; prog <= CLI_PROG_FABRIC; prog++)
		for (size_t c = 0; c < cli_n_cmds; c++) {
			const struct cli_cmd *cmd = &cli_cmds[c];
			char *text = NULL;
			size_t len = 0;
			FILE *f;

			if (!(cmd->progs & (1u << prog)))
				continue;
			f = open_memstream(&text, &len);
			assert_non_null(f);
			cli_help_command((enum cli_program)prog, cmd->cmd, f);
			fclose(f);
			for (size_t i = 0; i < cli_n_opts; i++) {
				const struct cli_opt *r = &cli_opts[i];
				char want[80];
				bool in = (r->progs & (1u << prog)) && (r->cmds & (1u << cmd->cmd));
				bool listed;

				if (r->kind == CLI_KIND_ONCE || r->kind == CLI_KIND_CLEANUP || r->kind == CLI_KIND_VERSION)
					continue;
				if (r->name)
					snprintf(want, sizeof(want), "--%s%s", r->name, r->arg ? " " : "");
				else
					snprintf(want, sizeof(want), "  -%c ", r->short_name);
				listed = strstr(text, want) != NULL;
				/* An option of another meaning for this command, or of the other program, may share a name. */
				if (!in) {
					bool other = false;

					for (size_t j = 0; j < cli_n_opts; j++)
						other |= j != i && cli_opts[j].name && r->name &&
							 strcmp(cli_opts[j].name, r->name) == 0 &&
							 (cli_opts[j].progs & (1u << prog)) &&
							 (cli_opts[j].cmds & (1u << cmd->cmd));
					if (other)
						continue;
				}
				if (in != listed)
					fail_msg("%s %s --help: %s %s", prog ? "kubectl-fabric" : "tcpxo-agent", cmd->word, want,
						 in ? "missing" : "listed but refused");
				/* One meaning per option and command: two rows may not both name it. */
				for (size_t j = i + 1; in && j < cli_n_opts; j++)
					if (cli_opts[j].name && r->name && strcmp(cli_opts[j].name, r->name) == 0 &&
					    (cli_opts[j].progs & (1u << prog)) && (cli_opts[j].cmds & (1u << cmd->cmd)))
						fail_msg("--%s has two meanings for %s", r->name, cmd->word);
			}
			for (char *l = text; *l;) {
				size_t n = strcspn(l, "\n");

				if (n > 100)
					fail_msg("%s --help: a line of %zu columns: %.60s", cmd->word, n, l);
				l += n + (l[n] != 0);
			}
			assert_non_null(strstr(text, "Usage:\n"));
			assert_non_null(strstr(text, "\nExamples:\n"));
			assert_non_null(strstr(text, "\nExit codes:\n"));
			free(text);
		}
}

/* kubectl fabric: the fleet commands only, kubectl's global flags kept as typed, NODE after workloads. */
static void test_fabric(void **state)
{
	struct cli_options o;

	assert_int_equal(FABRIC(&o, "status", "--context", "c1", "--kubeconfig=/k", "-n", "team-a", "-v6",
				"--insecure-skip-tls-verify", "--request-timeout=5s", "-o", "json"), 0);
	assert_int_equal(o.cmd, CLI_CMD_STATUS);
	assert_int_equal(o.prog, CLI_PROG_FABRIC);
	assert_string_equal(o.prog_name, "kubectl-fabric");
	assert_true(o.json);
	assert_true(o.kubectl_verbose);
	assert_int_equal(o.n_kubectl_args, 8);
	{
		static const char *const want[] = { "--context", "c1", "--kubeconfig=/k", "-n", "team-a", "-v6",
						    "--insecure-skip-tls-verify", "--request-timeout=5s" };

		for (size_t i = 0; i < 8; i++)
			assert_string_equal(o.kubectl_args[i], want[i]);
	}
	assert_int_equal(FABRIC(&o, "--context", "c", "status", "-v", "4"), 0);   /* flags before the command */
	assert_int_equal(o.n_kubectl_args, 4);
	assert_string_equal(o.kubectl_args[3], "4");
	assert_int_equal(FABRIC(&o, "status", "--v=6", "-s", "https://k", "--as", "admin"), 0);
	assert_int_equal(o.n_kubectl_args, 5);
	assert_int_equal(FABRIC(&o, "status", "-v"), -EINVAL);                   /* kubectl's -v has a level */
	assert_int_equal(FABRIC(&o, "workloads", "gke-a3-1", "-o", "json"), 0);
	assert_string_equal(o.node, "gke-a3-1");
	assert_int_equal(FABRIC(&o, "workloads", "--node", "gke-a3-1"), 0);
	assert_int_equal(FABRIC(&o, "workloads", "gke-a3-1", "--node", "gke-a3-2"), -EINVAL);
	assert_int_equal(FABRIC(&o, "workloads"), -EINVAL);                      /* NODE needed */
	assert_int_equal(FABRIC(&o, "workloads", "--kubeconfig=/x"), -EINVAL);
	assert_int_equal(FABRIC(&o, "workloads", "Not_A_Node"), -EINVAL);
	assert_int_equal(FABRIC(&o, "workloads", "a", "b"), -EINVAL);
	assert_int_equal(FABRIC(&o, "workloads", "a", "-l", "x=y"), -EINVAL);   /* one node */
	assert_int_equal(FABRIC(&o, "runtime", "--name", "torch-distributed-tcpxo", "--heartbeat", "5m"), -EINVAL);
	assert_int_equal(FABRIC(&o, "status", "--heartbeat", "10m"), 0);
	assert_int_equal(o.heartbeat, 600);
	/* The agent's node options are not the workstation's; nor is a daemon. */
	assert_int_equal(FABRIC(&o, "status", "--root", "/"), -EINVAL);
	assert_int_equal(FABRIC(&o, "status", "--api-server", "https://a"), -EINVAL);
	assert_int_equal(FABRIC(&o, "workloads", "n", "--transport-grace", "5m"), -EINVAL);
	assert_int_equal(FABRIC(&o, "--once"), -EINVAL);
	assert_int_equal(FABRIC(&o, "health"), -EINVAL);
	{
		char *bare[] = { "kubectl-fabric", NULL };

		assert_int_equal(cli_parse_program(CLI_PROG_FABRIC, 1, bare, &o), -EINVAL);   /* which command? */
	}
	assert_int_equal(FABRIC(&o, "--context", "c"), -EINVAL);
	/* The agent takes none of kubectl's flags. */
	assert_int_equal(PARSE(&o, "status", "--context", "c"), -EINVAL);
	assert_int_equal(PARSE(&o, "status", "-n", "x"), -EINVAL);
}

static void test_prefix_ok(void **state)
{
	struct cli_options o;

	assert_int_equal(PARSE(&o, "--prefix", "example.com/"), 0);
	assert_string_equal(o.prefix, "example.com/");
}

/*
 * The one rule for options outside their command: every option against every command, parsed; it
 * works (0) for the commands listed, and is refused (-EINVAL, exit 2) by every other. The table is
 * written here from what each command reads, not copied from cli.c; test_docs checks it names every
 * option of --help.
 */
static const struct {
	const char *opt, *value;        /* value NULL: a flag */
	const char *cmds;               /* " daemon once cleanup interfaces health workloads runtime " */
} scope_cases[] = {
	{ "--root", "/r", " daemon once workloads " },
	{ "--node", "n", " daemon once cleanup workloads " },
	{ "--json", NULL, " once workloads runtime status " },
	{ "-o", "json", " once interfaces workloads runtime status version " },
	{ "--output", "json", " once interfaces workloads runtime status version " },
	{ "--no-publish", NULL, " daemon once " },
	{ "--no-labels", NULL, " daemon once " },
	{ "--api-server", "https://a", " daemon once cleanup interfaces workloads runtime status " },
	{ "--token-file", "/t", " daemon once cleanup interfaces workloads runtime status " },
	{ "--ca-file", "/c", " daemon once cleanup interfaces workloads runtime status " },
	{ "--nodes-file", "/n", " interfaces workloads runtime status " },
	{ "--selector", "a=b", " interfaces runtime status " },
	{ "-l", "a=b", " interfaces runtime status " },
	{ "--format", "yaml", " interfaces " },
	{ "--any-network-names", NULL, " interfaces " },
	{ "--pods-file", "/p", " workloads " },
	{ "--name", "rt", " runtime " },
	{ "--runtime-file", "/f", " runtime " },
	{ "--networks-file", "/w", " runtime " },
	{ "--interval", "60", " daemon " },
	{ "--no-watch", NULL, " daemon " },
	{ "--heartbeat", "10s", " daemon status " },
	{ "--start-jitter", "5", " daemon " },
	{ "--health-file", "/h", " daemon health " },
	{ "--metrics-address", "127.0.0.1:9863", " daemon " },
	{ "--max-age", "5", " health " },
	{ "--log-format", "json", " daemon cleanup " },
	{ "--prefix", "x.io/", " daemon once cleanup interfaces workloads runtime status " },
	{ "--releases", "/r", " daemon once workloads runtime " },
	{ "--transport-grace", "5m", " daemon once workloads " },
	{ "--transport-window", "5s", " once workloads " },
	{ "--transport-tcp-rate", "1GB/s", " daemon once workloads " },
	{ "-v", NULL, " daemon " },
	{ "-o", "npd", " once " },
};

static void test_duration(void **state)
{
	static const struct { const char *s; int r; unsigned v; } cases[] = {
		{ "10s", 0, 10 }, { "5m", 0, 300 }, { "1h", 0, 3600 }, { "90", 0, 90 }, { "0", 0, 0 },
		{ "0s", 0, 0 }, { "9s", -EINVAL, 0 }, { "25h", -EINVAL, 0 }, { "5x", -EINVAL, 0 },
		{ "5mm", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "-5m", -EINVAL, 0 }, { "+5m", -EINVAL, 0 },
		{ "m", -EINVAL, 0 }, { "99999999999999999999s", -EINVAL, 0 }, { "1441m", -EINVAL, 0 },
		{ "1h30m", 0, 5400 }, { "2m30s", 0, 150 }, { "24h", 0, 86400 }, { "30m1h", -EINVAL, 0 },
		/* 2^64 + 3584 seconds: refused, not wrapped to 3584 (an hour within the limit). */
		{ "5124095576030432h", -EINVAL, 0 }, { "307445734561825861m", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned v = 12345;
		int r = cli_duration_in("tcpxo-agent", "--x", cases[i].s, 10, 86400, true, &v);

		if (r != cases[i].r)
			fail_msg("'%s': %d, expected %d", cases[i].s, r, cases[i].r);
		if (!r && v != cases[i].v)
			fail_msg("'%s': %u, expected %u", cases[i].s, v, cases[i].v);
		if (r && v != 12345)
			fail_msg("'%s': written on failure", cases[i].s);
	}
}

static void test_option_scope(void **state)
{
	static const struct {
		const char *name;
		const char *args[3];    /* what selects the command (health needs its file) */
	} cmds[] = {
		{ "daemon", { NULL } }, { "once", { "--once" } }, { "cleanup", { "--cleanup" } },
		{ "interfaces", { "interfaces" } }, { "health", { "health", "--health-file", "/h" } },
		{ "workloads", { "workloads" } }, { "runtime", { "runtime" } }, { "status", { "status" } },
		{ "version", { "version" } },
	};

	for (size_t i = 0; i < sizeof(scope_cases) / sizeof(scope_cases[0]); i++)
		for (size_t j = 0; j < sizeof(cmds) / sizeof(cmds[0]); j++) {
			char *argv[8] = { "tcpxo-agent" }, name[32];
			struct cli_options o;
			int argc = 1, r, want;

			for (size_t k = 0; k < 3 && cmds[j].args[k]; k++)
				argv[argc++] = (char *)cmds[j].args[k];
			argv[argc++] = (char *)scope_cases[i].opt;
			if (scope_cases[i].value)
				argv[argc++] = (char *)scope_cases[i].value;
			snprintf(name, sizeof(name), " %s ", cmds[j].name);
			want = strstr(scope_cases[i].cmds, name) ? 0 : -EINVAL;
			r = parse(&o, argc, argv);
			if (r != want)
				fail_msg("%s %s: got %d, want %d", cmds[j].name, scope_cases[i].opt, r, want);
		}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_option_scope),
		cmocka_unit_test(test_duration),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_subcommands),
		cmocka_unit_test(test_runtime),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_habits),
		cmocka_unit_test(test_output),
		cmocka_unit_test(test_help_version),
		cmocka_unit_test(test_help_from_table),
		cmocka_unit_test(test_fabric),
		cmocka_unit_test(test_prefix_ok),
	};

	return cmocka_run_group_tests(tests, with_node, NULL);
}
