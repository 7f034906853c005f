/* cli.c - parse the command line of every command into struct cli_options. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "probes/kube/kube.h"
#include "report/checks/transport.h"

static const char cli_usage[] =
"Usage:\n"
"  tcpxo-agent [OPTIONS]              run as the DaemonSet agent: observe, publish on change, repeat\n"
"  tcpxo-agent --once [OPTIONS]       observe once, print the report, publish unless --no-publish\n"
"  tcpxo-agent --cleanup [OPTIONS]    remove the agent's annotations, labels, condition from the node\n"
"  tcpxo-agent interfaces [OPTIONS]   check the TCPXO nodes' published mappings agree; print it\n"
"  tcpxo-agent health [OPTIONS]       liveness probe for the daemon\n"
"  tcpxo-agent workloads [OPTIONS]    judge every GPU pod on this node against its fabric (or, with\n"
"                                     --nodes-file, against what the node published)\n"
"  tcpxo-agent runtime [OPTIONS]      hold the named ClusterTrainingRuntime against the fleet\n"
"  tcpxo-agent status [OPTIONS]       the fleet's A3 nodes: which are not ready, and why\n"
"\n"
"Observe whether this GKE a3-megagpu-8g node is attached to the GPUDirect-TCPXO fabric\n"
"(GPUs, GPU NICs, PCIe pairing, links, LLCM aperture devices, device nodes, NVIDIA host\n"
"path, NCCL plugin files, installer/daemon versions) and publish it on the Node: annotations,\n"
"the labels <prefix>profile and <prefix>ready, the condition FabricReady, and an Event when\n"
"ready, profile or runtime changes (the daemon also posts an Event on each GPU pod that is\n"
"unattached or partially attached).\n"
"\n"
"Options:\n"
"  --once                 observe once, print the verdict and exit (0 ready, 1 not, 2 unknown)\n"
"  --root DIR             daemon, --once, workloads: host root prefix for sys/, dev/, proc/,\n"
"                         home/ (default /)\n"
"  --node NAME            this node's name (default $NODE_NAME)\n"
"  --json                 print the JSON report instead of the human one\n"
"  --no-publish           never write to the Kubernetes API\n"
"  --no-labels            publish no scheduling labels <prefix>profile and <prefix>ready\n"
"                         (and remove the agent's own from the node)\n"
"  --api-server URL       API server (default in-cluster: KUBERNETES_SERVICE_HOST/_PORT)\n"
"  --token-file F         bearer token file, re-read when it changes (default: service account)\n"
"  --ca-file F            CA bundle for the API server (default: service account ca.crt)\n"
"  --nodes-file F         interfaces, runtime, status: read a NodeList (kubectl get nodes -o json)\n"
"                         from F or -; workloads: judge --node's pods against what it published\n"
"  --selector S           interfaces, runtime, status: label selector for the API's node list\n"
"  --format FMT           interfaces: flag (default), yaml, json or aicrconfig\n"
"  --any-network-names    interfaces: check the mapping without AICR's rule that each Network\n"
"                         name contains gpu-nic (Google names them vpc1..vpc8)\n"
"  --pods-file F          workloads: read a PodList (kubectl get pods -o json) from F or -\n"
"  --name NAME            runtime: the runtime to check (default: the one the fleet's nodes name)\n"
"  --runtime-file F       runtime: read it from F or - (kubectl get -o json, or helm template YAML)\n"
"  --networks-file F      runtime: read the Networks (kubectl get networks.networking.gke.io -o json)\n"
"  --interval SEC         daemon: full resync of the API facts (default 3600; 300 with --no-watch)\n"
"  --no-watch             daemon: poll the node, its pods and the Networks every --interval\n"
"                         instead of following them with API watches\n"
"  --start-jitter SEC     daemon: random delay before the first API request (default 60)\n"
"  --heartbeat DURATION   daemon: refresh the condition's lastHeartbeatTime this often with one\n"
"                         status patch (default 5m; 10s to 1h; 0 off); status: the period the\n"
"                         agents run with: a heartbeat older than three periods is stale\n"
"  --health-file F        daemon: touched after each loop iteration; health: the file to check\n"
"  --metrics-address A    daemon: serve Prometheus metrics on GET /metrics at A, ADDRESS:PORT\n"
"                         (numeric IPv4, or [IPv6]; default: none, as an empty A)\n"
"  --max-age SEC          health: the longest age of the health file that is healthy (default 60)\n"
"  --log-format FMT       daemon, --cleanup: log lines on stderr as text (default) or json\n"
"                         (one object a line: time, severity, message, fields)\n"
"  --prefix P             annotation key prefix (default fabric.aicr.run/)\n"
"  --releases F           installer<->daemon release table file (default: built in); the\n"
"                         daemon re-reads it when it changes (a bad file is refused, logged)\n"
"  --transport-grace D    daemon, --once, workloads: how long a GPU pod's containers may run\n"
"                         without a buffer-op client of the TCPXO daemon before its transport\n"
"                         is judged tcp or idle by its traffic (default 10m; 10s, 5m, 1h; 0: at once)\n"
"  --transport-window D   --once, workloads: the time between two readings of such a pod's\n"
"                         net/dev, for its rates (default 3s; 1s to 60s; only pods with no client)\n"
"  --transport-tcp-rate R daemon, --once, workloads: such a pod is tcp when its interfaces but lo\n"
"                         receive and send at least R each (default 100MB/s; B, kB, MB, GB, KiB,\n"
"                         MiB, GiB, /s optional; a bare number is bytes/s; at least 1MB/s)\n"
"  --cleanup              remove this agent's annotations, labels and FabricReady condition\n"
"                         from the node (two writes) and exit\n"
"  -v                     daemon: log debug lines too: each event that wakes the loop, API\n"
"                         reads and resyncs, writes held back, heartbeats (-vv is the same)\n"
"  --version              print the version and exit\n"
"  --help                 print this help and exit\n"
"\n"
"An option given to a command that does not use it is refused (exit 2).\n"
"Exit codes (--once, interfaces): 0 ready/coherent, 1 not ready/incoherent, 2 unknown.\n"
"Exit codes (workloads): 0 every GPU pod attached (or none), 1 any partial or unattached, or its\n"
"transport tcp or partial, 2 unknown.\n"
"Exit codes (runtime): 0 the runtime matches the fleet, 1 a finding fails, 2 unknown.\n"
"Exit codes (status): 0 every listed node ready, 1 any not ready, 2 the list could not be read.\n"
"See tcpxo-agent(8).\n";

enum {
	OPT_ONCE = 256, OPT_ROOT, OPT_NODE, OPT_JSON, OPT_NO_PUBLISH, OPT_API_SERVER,
	OPT_TOKEN_FILE, OPT_CA_FILE, OPT_NODES_FILE, OPT_SELECTOR, OPT_FORMAT, OPT_INTERVAL,
	OPT_START_JITTER, OPT_HEALTH_FILE, OPT_MAX_AGE, OPT_LOG_FORMAT, OPT_PREFIX,
	OPT_RELEASES, OPT_CLEANUP, OPT_VERSION, OPT_HELP, OPT_ANY_NETWORK_NAMES, OPT_PODS_FILE,
	OPT_NAME, OPT_RUNTIME_FILE, OPT_NETWORKS_FILE, OPT_NO_LABELS,
	OPT_NO_WATCH,
	OPT_TRANSPORT_GRACE,
	OPT_HEARTBEAT,
	OPT_METRICS_ADDRESS,
	OPT_TRANSPORT_WINDOW,
	OPT_TRANSPORT_TCP_RATE,
};

static const struct option cli_longopts[] = {
	{ "once", no_argument, NULL, OPT_ONCE },
	{ "root", required_argument, NULL, OPT_ROOT },
	{ "node", required_argument, NULL, OPT_NODE },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "no-publish", no_argument, NULL, OPT_NO_PUBLISH },
	{ "no-labels", no_argument, NULL, OPT_NO_LABELS },
	{ "api-server", required_argument, NULL, OPT_API_SERVER },
	{ "token-file", required_argument, NULL, OPT_TOKEN_FILE },
	{ "ca-file", required_argument, NULL, OPT_CA_FILE },
	{ "nodes-file", required_argument, NULL, OPT_NODES_FILE },
	{ "selector", required_argument, NULL, OPT_SELECTOR },
	{ "pods-file", required_argument, NULL, OPT_PODS_FILE },
	{ "name", required_argument, NULL, OPT_NAME },
	{ "runtime-file", required_argument, NULL, OPT_RUNTIME_FILE },
	{ "networks-file", required_argument, NULL, OPT_NETWORKS_FILE },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "any-network-names", no_argument, NULL, OPT_ANY_NETWORK_NAMES },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "start-jitter", required_argument, NULL, OPT_START_JITTER },
	{ "no-watch", no_argument, NULL, OPT_NO_WATCH },
	{ "heartbeat", required_argument, NULL, OPT_HEARTBEAT },
	{ "health-file", required_argument, NULL, OPT_HEALTH_FILE },
	{ "metrics-address", required_argument, NULL, OPT_METRICS_ADDRESS },
	{ "max-age", required_argument, NULL, OPT_MAX_AGE },
	{ "log-format", required_argument, NULL, OPT_LOG_FORMAT },
	{ "prefix", required_argument, NULL, OPT_PREFIX },
	{ "releases", required_argument, NULL, OPT_RELEASES },
	{ "cleanup", no_argument, NULL, OPT_CLEANUP },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "transport-grace", required_argument, NULL, OPT_TRANSPORT_GRACE },
	{ "transport-window", required_argument, NULL, OPT_TRANSPORT_WINDOW },
	{ "transport-tcp-rate", required_argument, NULL, OPT_TRANSPORT_TCP_RATE },
	{ 0 },
};

static int cli_uint(const char *name, const char *s, unsigned max, unsigned *ret)
{
	unsigned long v;
	char *end;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || end == s || *end || *s == '-' || v > max) {
		fprintf(stderr, "tcpxo-agent: %s: expected a whole number of seconds from 0 to %u, got '%s'\n",
			name, max, s);
		return -EINVAL;
	}
	*ret = (unsigned)v;
	return 0;
}

int cli_duration(const char *name, const char *s, unsigned min_s, unsigned max_s, unsigned *ret_s)
{
	unsigned long long v, unit = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end != s && *end && !end[1])
		unit = *end == 's' ? 1 : *end == 'm' ? 60 : *end == 'h' ? 3600 : 0;
	else if (end != s && *end)
		unit = 0;
	if (errno || end == s || *s == '-' || *s == '+' || !unit || v > max_s / unit) {
		fprintf(stderr, "tcpxo-agent: %s: expected a duration such as 10s, 5m or 1h (at most %us), got '%s'\n",
			name, max_s, s);
		return -EINVAL;
	}
	v *= unit;
	if (v && v < min_s) {
		fprintf(stderr, "tcpxo-agent: %s: at least %u seconds (or 0 for off), got '%s'\n", name, min_s, s);
		return -EINVAL;
	}
	*ret_s = (unsigned)v;
	return 0;
}

int cli_rate(const char *name, const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
	static const struct { const char *unit; double mul; } units[] = {
		{ "", 1 }, { "B", 1 }, { "kB", 1e3 }, { "KB", 1e3 }, { "MB", 1e6 }, { "GB", 1e9 },
		{ "KiB", 1024.0 }, { "MiB", 1048576.0 }, { "GiB", 1073741824.0 },
	};
	char unit[8];
	double v, mul = 0;
	char *end;
	size_t n;

	errno = 0;
	v = strtod(s, &end);
	n = strlen(end);
	if (n >= 2 && strcmp(end + n - 2, "/s") == 0)
		n -= 2;
	if (!errno && end != s && strspn(s, "0123456789.") == (size_t)(end - s) && n < sizeof(unit)) {
		memcpy(unit, end, n);
		unit[n] = '\0';
		for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (strcmp(unit, units[i].unit) == 0)
				mul = units[i].mul;
	}
	/* strtod also reads "inf", "nan", hex and exponents: the number must be digits and a point only. */
	if (!mul || !(v * mul >= (double)min && v * mul <= (double)max)) {
		fprintf(stderr, "tcpxo-agent: %s: expected a rate such as 100MB/s, 1.5GB/s or 64MiB/s from %llu to %llu "
			"bytes/s, got '%s'\n", name, (unsigned long long)min, (unsigned long long)max, s);
		return -EINVAL;
	}
	*ret = (uint64_t)(v * mul);
	return 0;
}

static int cli_check_prefix(const char *p)
{
	size_t n = strlen(p);

	/* A DNS subdomain followed by '/': the qualified-name prefix of an annotation key. */
	if (n < 2 || n > 254 || p[n - 1] != '/')
		return -EINVAL;
	for (size_t i = 0; i + 1 < n; i++) {
		char c = p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
			return -EINVAL;
	}
	if (p[0] == '.' || p[0] == '-' || p[n - 2] == '.' || p[n - 2] == '-')
		return -EINVAL;
	return 0;
}

/* More than one input file of runtime is "-": only one can have standard input. */
static bool cli_stdin_twice(const struct cli_options *o)
{
	const char *files[] = { o->nodes_file, o->runtime_file, o->networks_file };
	int n = 0;

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		n += files[i] && strcmp(files[i], "-") == 0;
	return n > 1;
}

/* The command word, when argv[1] is one; moves argv past it. */
static int cli_command_word(int *argc, char ***argv, enum cli_command *cmd)
{
	static const struct {
		const char *word;
		enum cli_command cmd;
	} words[] = {
		{ "interfaces", CLI_CMD_INTERFACES },
		{ "health", CLI_CMD_HEALTH },
		{ "workloads", CLI_CMD_WORKLOADS },
		{ "runtime", CLI_CMD_RUNTIME },
		{ "status", CLI_CMD_STATUS },
	};
	const char *w;

	if (*argc <= 1 || (*argv)[1][0] == '-')
		return 0;
	w = (*argv)[1];
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strcmp(w, words[i].word) == 0) {
			*cmd = words[i].cmd;
			(*argv)++;
			(*argc)--;
			return 0;
		}
	}
	fprintf(stderr, "tcpxo-agent: unknown command '%s' (try --help)\n", w);
	return -EINVAL;
}

static int cli_format_arg(const char *s, enum cli_format *ret)
{
	if (strcmp(s, "flag") == 0)
		*ret = CLI_FORMAT_FLAG;
	else if (strcmp(s, "yaml") == 0)
		*ret = CLI_FORMAT_YAML;
	else if (strcmp(s, "json") == 0)
		*ret = CLI_FORMAT_JSON;
	else if (strcmp(s, "aicrconfig") == 0)
		*ret = CLI_FORMAT_AICRCONFIG;
	else {
		fprintf(stderr, "tcpxo-agent: --format: expected flag, yaml, json or aicrconfig, got '%s'\n", s);
		return -EINVAL;
	}
	return 0;
}

static int cli_log_format_arg(const char *s, enum cli_log_format *ret)
{
	if (strcmp(s, "text") == 0)
		*ret = CLI_LOG_TEXT;
	else if (strcmp(s, "json") == 0)
		*ret = CLI_LOG_JSON;
	else {
		fprintf(stderr, "tcpxo-agent: --log-format: expected text or json, got '%s'\n", s);
		return -EINVAL;
	}
	return 0;
}

static int cli_interval_arg(const char *s, unsigned *ret)
{
	if (cli_uint("--interval", s, 86400, ret) < 0)
		return -EINVAL;
	if (*ret < 10) {
		fprintf(stderr, "tcpxo-agent: --interval: at least 10 seconds, got %u\n", *ret);
		return -EINVAL;
	}
	return 0;
}

/* The options parsed so far, and the two flags that choose the command after them. */
struct cli_state {
	struct cli_options o;
	bool once, cleanup;
	unsigned long long seen;        /* the options given: bit (OPT_x - OPT_ONCE); -v is CLI_SEEN_V */
};

/*
 * One option @c (the option parser's code for it, its value in optarg) into @s.
 * Return: 0; 1 after printing --help or --version; -EINVAL after printing a usage error.
 */
#define CLI_TCP_RATE_MIN 1000000ull              /* 1 MB/s: below it a job's own control traffic would read as tcp */
#define CLI_TCP_RATE_MAX 1000000000000ull        /* 1 TB/s */

/* --transport-window: a duration of 1 s to TRANSPORT_WINDOW_MAX_S; 0 leaves no window to take a rate over. */
static int cli_window_arg(const char *s, unsigned *ret)
{
	unsigned v;

	if (cli_duration("--transport-window", s, 1, TRANSPORT_WINDOW_MAX_S, &v) < 0)
		return -EINVAL;
	if (!v) {
		fprintf(stderr, "tcpxo-agent: --transport-window: at least 1s (two readings need time between them), "
			"got '%s'\n", s);
		return -EINVAL;
	}
	*ret = v;
	return 0;
}

static int cli_option(int c, char **argv, struct cli_state *s)
{
	struct cli_options *o = &s->o;

	switch (c) {
	case OPT_ONCE: s->once = true; break;
	case OPT_ROOT: o->root = optarg; break;
	case OPT_NODE: o->node = optarg; break;
	case OPT_JSON: o->json = true; break;
	case OPT_NO_PUBLISH: o->no_publish = true; break;
	case OPT_NO_LABELS: o->no_labels = true; break;
	case OPT_API_SERVER: o->api_server = optarg; break;
	case OPT_TOKEN_FILE: o->token_file = optarg; break;
	case OPT_CA_FILE: o->ca_file = optarg; break;
	case OPT_NODES_FILE: o->nodes_file = optarg; break;
	case OPT_SELECTOR: o->selector = optarg; break;
	case OPT_ANY_NETWORK_NAMES: o->any_network_names = true; break;
	case OPT_PODS_FILE: o->pods_file = optarg; break;
	case OPT_NAME: o->name = optarg; break;
	case OPT_RUNTIME_FILE: o->runtime_file = optarg; break;
	case OPT_NETWORKS_FILE: o->networks_file = optarg; break;
	case OPT_FORMAT: return cli_format_arg(optarg, &o->format);
	case OPT_INTERVAL: return cli_interval_arg(optarg, &o->interval);
	case OPT_NO_WATCH: o->no_watch = true; break;
	case OPT_HEARTBEAT:
		return cli_duration("--heartbeat", optarg, CLI_HEARTBEAT_MIN, CLI_HEARTBEAT_MAX, &o->heartbeat);
	case OPT_START_JITTER: return cli_uint("--start-jitter", optarg, 3600, &o->start_jitter);
	case OPT_HEALTH_FILE: o->health_file = optarg; break;
	case OPT_METRICS_ADDRESS: o->metrics_address = optarg[0] ? optarg : NULL; break;
	case OPT_MAX_AGE: return cli_uint("--max-age", optarg, 86400, &o->max_age);
	case OPT_LOG_FORMAT: return cli_log_format_arg(optarg, &o->log_format);
	case OPT_PREFIX: o->prefix = optarg; break;
	case OPT_RELEASES: o->releases = optarg; break;
	case OPT_CLEANUP: s->cleanup = true; break;
	case OPT_TRANSPORT_GRACE: return cli_duration("--transport-grace", optarg, 1, 86400, &o->transport_grace);
	case OPT_TRANSPORT_WINDOW: return cli_window_arg(optarg, &o->transport_window);
	case OPT_TRANSPORT_TCP_RATE:
		return cli_rate("--transport-tcp-rate", optarg, CLI_TCP_RATE_MIN, CLI_TCP_RATE_MAX, &o->transport_tcp_rate);
	case 'v': o->verbose++; break;
	case OPT_VERSION:
		printf("tcpxo-agent %s\n", TCPXO_VERSION);
		return 1;
	case OPT_HELP:
		fputs(cli_usage, stdout);
		return 1;
	case ':':
		fprintf(stderr, "tcpxo-agent: %s needs a value (try --help)\n", argv[optind - 1]);
		return -EINVAL;
	default:
		fprintf(stderr, "tcpxo-agent: unknown option '%s' (try --help)\n", argv[optind - 1]);
		return -EINVAL;
	}
	return 0;
}

/* --once and --cleanup against each other and the command word; then the command they choose. */
static int cli_resolve_command(struct cli_state *s)
{
	struct cli_options *o = &s->o;

	if (s->once && s->cleanup) {
		fprintf(stderr, "tcpxo-agent: --once and --cleanup exclude each other\n");
		return -EINVAL;
	}
	if ((s->once || s->cleanup) && o->cmd != CLI_CMD_DAEMON) {
		fprintf(stderr, "tcpxo-agent: --once and --cleanup do not apply to this command\n");
		return -EINVAL;
	}
	if (o->any_network_names && o->cmd != CLI_CMD_INTERFACES) {
		fprintf(stderr, "tcpxo-agent: --any-network-names applies to tcpxo-agent interfaces only\n");
		return -EINVAL;
	}
	if (!o->interval)
		o->interval = o->no_watch ? CLI_INTERVAL_POLL : CLI_INTERVAL_WATCH;
	if (s->once)
		o->cmd = CLI_CMD_ONCE;
	else if (s->cleanup)
		o->cmd = CLI_CMD_CLEANUP;
	return 0;
}

/* The values' own rules, and which options the resolved command accepts. */
static int cli_check(const struct cli_options *o)
{
	if (!*o->root) {
		fprintf(stderr, "tcpxo-agent: --root must not be empty\n");
		return -EINVAL;
	}
	if (cli_check_prefix(o->prefix) < 0) {
		fprintf(stderr, "tcpxo-agent: --prefix: expected a DNS subdomain ending in '/', got '%s'\n", o->prefix);
		return -EINVAL;
	}
	if (o->node && strlen(o->node) > 253) {
		fprintf(stderr, "tcpxo-agent: --node: a node name has at most 253 characters\n");
		return -EINVAL;
	}
	if (o->no_labels && o->cmd != CLI_CMD_DAEMON && o->cmd != CLI_CMD_ONCE) {
		fprintf(stderr, "tcpxo-agent: --no-labels applies to the daemon and --once only\n");
		return -EINVAL;
	}
	if (o->pods_file && o->cmd != CLI_CMD_WORKLOADS) {
		fprintf(stderr, "tcpxo-agent: --pods-file applies to the workloads command only\n");
		return -EINVAL;
	}
	if ((o->name || o->runtime_file || o->networks_file) && o->cmd != CLI_CMD_RUNTIME) {
		fprintf(stderr, "tcpxo-agent: --name, --runtime-file and --networks-file apply to the runtime command only\n");
		return -EINVAL;
	}
	if (o->name && !kube_name_valid(o->name)) {
		fprintf(stderr, "tcpxo-agent: --name: a runtime's name is a DNS subdomain ([a-z0-9.-], at most 253 "
			"characters)\n");
		return -EINVAL;
	}
	if (o->cmd == CLI_CMD_RUNTIME && cli_stdin_twice(o)) {
		fprintf(stderr, "tcpxo-agent: runtime: standard input (-) can feed one of --nodes-file, --runtime-file "
			"and --networks-file\n");
		return -EINVAL;
	}
	if (o->cmd == CLI_CMD_HEALTH && !o->health_file) {
		fprintf(stderr, "tcpxo-agent: health needs --health-file\n");
		return -EINVAL;
	}
	return 0;
}

/* ---- which commands each option works for: the one rule, any other command refuses it (exit 2) ---- */

#define CLI_SEEN_V 63                   /* -v's bit in cli_state.seen: after every OPT_x */
#define CLI_D (1u << CLI_CMD_DAEMON)
#define CLI_O (1u << CLI_CMD_ONCE)
#define CLI_C (1u << CLI_CMD_CLEANUP)
#define CLI_I (1u << CLI_CMD_INTERFACES)
#define CLI_H (1u << CLI_CMD_HEALTH)
#define CLI_W (1u << CLI_CMD_WORKLOADS)
#define CLI_R (1u << CLI_CMD_RUNTIME)
#define CLI_S (1u << CLI_CMD_STATUS)
#define CLI_API (CLI_D | CLI_O | CLI_C | CLI_I | CLI_W | CLI_R | CLI_S)    /* every command that talks to the API */

static const struct cli_scope {
	int opt;                        /* OPT_x, or 'v'; its name comes from cli_longopts */
	unsigned cmds;                  /* a bit per enum cli_command */
} cli_scopes[] = {
	{ OPT_ROOT, CLI_D | CLI_O | CLI_W },
	{ OPT_NODE, CLI_D | CLI_O | CLI_C | CLI_W },
	{ OPT_JSON, CLI_O | CLI_W | CLI_R | CLI_S },
	{ OPT_NO_PUBLISH, CLI_D | CLI_O },
	{ OPT_NO_LABELS, CLI_D | CLI_O },
	{ OPT_API_SERVER, CLI_API },
	{ OPT_TOKEN_FILE, CLI_API },
	{ OPT_CA_FILE, CLI_API },
	{ OPT_NODES_FILE, CLI_I | CLI_W | CLI_R | CLI_S },
	{ OPT_SELECTOR, CLI_I | CLI_R | CLI_S },
	{ OPT_FORMAT, CLI_I },
	{ OPT_ANY_NETWORK_NAMES, CLI_I },
	{ OPT_PODS_FILE, CLI_W },
	{ OPT_NAME, CLI_R },
	{ OPT_RUNTIME_FILE, CLI_R },
	{ OPT_NETWORKS_FILE, CLI_R },
	{ OPT_INTERVAL, CLI_D },
	{ OPT_NO_WATCH, CLI_D },
	{ OPT_HEARTBEAT, CLI_D | CLI_S },
	{ OPT_START_JITTER, CLI_D },
	{ OPT_HEALTH_FILE, CLI_D | CLI_H },
	{ OPT_METRICS_ADDRESS, CLI_D },
	{ OPT_MAX_AGE, CLI_H },
	{ OPT_LOG_FORMAT, CLI_D | CLI_C },
	{ OPT_PREFIX, CLI_D | CLI_O | CLI_C | CLI_I | CLI_W | CLI_R | CLI_S },
	{ OPT_RELEASES, CLI_D | CLI_O | CLI_W | CLI_R },
	{ OPT_TRANSPORT_GRACE, CLI_D | CLI_O | CLI_W },
	{ OPT_TRANSPORT_WINDOW, CLI_O | CLI_W },
	{ OPT_TRANSPORT_TCP_RATE, CLI_D | CLI_O | CLI_W },
	{ 'v', CLI_D },
};

/* An option's name as typed, without its dashes ("root"; "v" for -v). */
static const char *cli_opt_name(int opt)
{
	for (const struct option *o = cli_longopts; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "v";
}

static const char *cli_cmd_label(enum cli_command c)
{
	switch (c) {
	case CLI_CMD_DAEMON: return "the daemon";
	case CLI_CMD_ONCE: return "--once";
	case CLI_CMD_CLEANUP: return "--cleanup";
	case CLI_CMD_INTERFACES: return "interfaces";
	case CLI_CMD_HEALTH: return "health";
	case CLI_CMD_WORKLOADS: return "workloads";
	case CLI_CMD_RUNTIME: return "runtime";
	case CLI_CMD_STATUS: return "status";
	}
	return "?";
}

/* Each option given against the table: one that the resolved command does not use is refused. */
static int cli_check_scope(const struct cli_state *s)
{
	for (size_t i = 0; i < sizeof(cli_scopes) / sizeof(cli_scopes[0]); i++) {
		const struct cli_scope *sc = &cli_scopes[i];
		int bit = sc->opt == 'v' ? CLI_SEEN_V : sc->opt - OPT_ONCE;
		const char *sep = "";

		if (!(s->seen & (1ull << bit)) || (sc->cmds & (1u << s->o.cmd)))
			continue;
		fprintf(stderr, "tcpxo-agent: %s%s does not apply to %s; it applies to ", sc->opt == 'v' ? "-" : "--",
			cli_opt_name(sc->opt), cli_cmd_label(s->o.cmd));
		for (int c = CLI_CMD_DAEMON; c <= CLI_CMD_STATUS; c++)
			if (sc->cmds & (1u << c)) {
				fprintf(stderr, "%s%s", sep, cli_cmd_label((enum cli_command)c));
				sep = ", ";
			}
		fputc('\n', stderr);
		return -EINVAL;
	}
	return 0;
}

int cli_parse(int argc, char **argv, struct cli_options *ret)
{
	struct cli_state s = {
		.o = {
			.cmd = CLI_CMD_DAEMON,
			.root = "/",
			.node = getenv("NODE_NAME"),
			.start_jitter = 60,
			.heartbeat = CLI_HEARTBEAT_DEFAULT,
			.max_age = 60,
			.prefix = "fabric.aicr.run/",
			.transport_grace = TRANSPORT_GRACE_DEFAULT_S,
			.transport_window = TRANSPORT_WINDOW_DEFAULT_S,
			.transport_tcp_rate = TRANSPORT_TCP_RATE_DEFAULT,
		},
	};
	int c, r;

	if (s.o.node && !*s.o.node)
		s.o.node = NULL;
	if (cli_command_word(&argc, &argv, &s.o.cmd) < 0)
		return -EINVAL;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":v", cli_longopts, NULL)) != -1) {
		r = cli_option(c, argv, &s);
		if (r)
			return r;
		if (c == 'v')
			s.seen |= 1ull << CLI_SEEN_V;
		else if (c >= OPT_ONCE && c - OPT_ONCE < CLI_SEEN_V)
			s.seen |= 1ull << (c - OPT_ONCE);
	}
	if (optind < argc) {
		fprintf(stderr, "tcpxo-agent: unexpected argument '%s' (try --help)\n", argv[optind]);
		return -EINVAL;
	}
	if (cli_resolve_command(&s) < 0 || cli_check(&s.o) < 0 || cli_check_scope(&s) < 0)
		return -EINVAL;
	*ret = s.o;
	return 0;
}
