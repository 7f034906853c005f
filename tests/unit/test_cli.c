/* test_cli.c - command-line parsing: defaults, every option, and clear errors for bad input. */
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

static int parse(struct cli_options *o, int argc, char **argv)
{
	return cli_parse(argc, argv, o);
}

#define PARSE(o, ...) ({ char *a_[] = { "tcpxo-agent", __VA_ARGS__, NULL }; \
			 parse(o, (int)(sizeof(a_) / sizeof(a_[0])) - 1, a_); })

static void test_defaults(void **state)
{
	char *argv[] = { "tcpxo-agent", NULL };
	struct cli_options o;

	unsetenv("NODE_NAME");
	assert_int_equal(parse(&o, 1, argv), 0);
	assert_int_equal(o.cmd, CLI_CMD_DAEMON);
	assert_string_equal(o.root, "/");
	assert_null(o.node);
	assert_int_equal(o.interval, 3600);      /* watches keep the facts: the interval is a safety net */
	assert_false(o.no_watch);
	assert_int_equal(o.start_jitter, 60);
	assert_int_equal(o.heartbeat, 300);     /* NPD's 5 minutes */
	assert_string_equal(o.prefix, "fabric.aicr.run/");
	assert_int_equal(o.transport_grace, 600);       /* 10 minutes for NCCL to initialise */
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
	unsetenv("NODE_NAME");
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
	{ "--no-publish", NULL, " daemon once " },
	{ "--no-labels", NULL, " daemon once " },
	{ "--api-server", "https://a", " daemon once cleanup interfaces workloads runtime status " },
	{ "--token-file", "/t", " daemon once cleanup interfaces workloads runtime status " },
	{ "--ca-file", "/c", " daemon once cleanup interfaces workloads runtime status " },
	{ "--nodes-file", "/n", " interfaces workloads runtime status " },
	{ "--selector", "a=b", " interfaces runtime status " },
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
	{ "-v", NULL, " daemon " },
};

static void test_duration(void **state)
{
	static const struct { const char *s; int r; unsigned v; } cases[] = {
		{ "10s", 0, 10 }, { "5m", 0, 300 }, { "1h", 0, 3600 }, { "90", 0, 90 }, { "0", 0, 0 },
		{ "0s", 0, 0 }, { "9s", -EINVAL, 0 }, { "25h", -EINVAL, 0 }, { "5x", -EINVAL, 0 },
		{ "5mm", -EINVAL, 0 }, { "", -EINVAL, 0 }, { "-5m", -EINVAL, 0 }, { "+5m", -EINVAL, 0 },
		{ "m", -EINVAL, 0 }, { "99999999999999999999s", -EINVAL, 0 }, { "1441m", -EINVAL, 0 },
		/* Issue 30: 5124095576030432 * 3600 wraps to 3584 in 64 bits: the limit is checked before multiplying. */
		{ "5124095576030432h", -EINVAL, 0 }, { "307445734561825861m", -EINVAL, 0 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		unsigned v = 12345;
		int r = cli_duration("--x", cases[i].s, 10, 86400, &v);

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
	};

	unsetenv("NODE_NAME");
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
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_once),
		cmocka_unit_test(test_subcommands),
		cmocka_unit_test(test_runtime),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_prefix_ok),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
