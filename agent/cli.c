/* cli.c - the one table of every option and command of tcpxo-agent and kubectl-fabric, and the lookups in it. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "agent/cli.h"
#include "report/checks/transport.h"

#define OFF(field) offsetof(struct cli_options, field)

static const char *const cli_format_words[] = { "flag", "yaml", "json", "aicrconfig", NULL };    /* enum cli_format */
static const char *const cli_log_format_words[] = { "text", "json", NULL };                     /* enum cli_log_format */

const char *const cli_output_words[] = {
	[CLI_OUTPUT_DEFAULT] = "",
	[CLI_OUTPUT_JSON] = "json",
	[CLI_OUTPUT_YAML] = "yaml",
	[CLI_OUTPUT_WIDE] = "wide",
	[CLI_OUTPUT_NAME] = "name",
	[CLI_OUTPUT_FLAG] = "flag",
	[CLI_OUTPUT_AICRCONFIG] = "aicrconfig",
	[CLI_OUTPUT_NPD] = "npd",
};

#define OUT(o) (1u << CLI_OUTPUT_##o)
/* A row of kubectl fabric's own: one of kubectl's global flags (with a value, or a flag). */
#define KUBECTL(name, short_name, arg) { name, short_name, CLI_KIND_KUBECTL, arg, .cmds = CLI_FLEET, .progs = CLI_FABRIC }
#define KUBECTL_FLAG(name, short_name) \
	{ name, short_name, CLI_KIND_KUBECTL_FLAG, NULL, .cmds = CLI_FLEET, .progs = CLI_FABRIC }

/*
 * Every option, in the order --help lists them. The commands an option works for are the union
 * of its rows; the scope test (tests/unit/test_cli.c) holds this table to what each command reads.
 */
const struct cli_opt cli_opts[] = {
	{ "root", 0, CLI_KIND_STRING, "DIR", OFF(root), .cmds = CLI_D | CLI_O | CLI_W, .progs = CLI_AGENT,
	  .help = "host root prefix for sys/, dev/, proc/, home/ (default /; the\n"
		  "DaemonSet mounts the host at /host)" },
	{ "node", 0, CLI_KIND_STRING, "NAME", OFF(node), .cmds = CLI_D | CLI_O | CLI_C, .progs = CLI_AGENT,
	  .help = "this node's name (default $NODE_NAME)" },
	{ "node", 0, CLI_KIND_STRING, "NAME", OFF(node), .cmds = CLI_W, .progs = CLI_AGENT,
	  .help = "the node whose pods are judged (default $NODE_NAME)" },
	{ "node", 0, CLI_KIND_STRING, "NAME", OFF(node), .cmds = CLI_W, .progs = CLI_FABRIC,
	  .help = "the node whose pods are judged (or NODE after the command)" },
	{ "output", 'o', CLI_KIND_OUTPUT, "FORMAT", OFF(output), .cmds = CLI_O | CLI_FLEET | CLI_V,
	  .progs = CLI_BOTH, .help = "" },    /* the command's formats, written by cli_help.c */
	{ "json", 0, CLI_KIND_FLAG, NULL, OFF(json), .cmds = CLI_O | CLI_W | CLI_R | CLI_S, .progs = CLI_BOTH,
	  .help = "the same as -o json" },
	{ "no-publish", 0, CLI_KIND_FLAG, NULL, OFF(no_publish), .cmds = CLI_D | CLI_O, .progs = CLI_AGENT,
	  .help = "never write to the Kubernetes API" },
	{ "no-labels", 0, CLI_KIND_FLAG, NULL, OFF(no_labels), .cmds = CLI_D | CLI_O, .progs = CLI_AGENT,
	  .help = "publish no scheduling labels <prefix>profile and <prefix>ready\n"
		  "(and remove the agent's own from the node)" },
	{ "nodes-file", 0, CLI_KIND_STRING, "F", OFF(nodes_file), .cmds = CLI_I | CLI_R | CLI_S, .progs = CLI_AGENT,
	  .help = "read a NodeList (kubectl get nodes -o json) from F, or - for\n"
		  "standard input, instead of the API" },
	{ "nodes-file", 0, CLI_KIND_STRING, "F", OFF(nodes_file), .cmds = CLI_I | CLI_R | CLI_S, .progs = CLI_FABRIC,
	  .help = "read a NodeList (kubectl get nodes -o json) from F, or - for\n"
		  "standard input, instead of asking kubectl" },
	{ "nodes-file", 0, CLI_KIND_STRING, "F", OFF(nodes_file), .cmds = CLI_W, .progs = CLI_BOTH,
	  .help = "judge --node's pods against what that node published, read from\n"
		  "this NodeList (kubectl get nodes -o json; - for standard input)" },
	{ "selector", 'l', CLI_KIND_STRING, "S", OFF(selector), .cmds = CLI_I | CLI_R | CLI_S, .progs = CLI_BOTH,
	  .help = "only the nodes this label selector selects" },
	{ "format", 0, CLI_KIND_CHOICE, "FMT", OFF(format), .words = cli_format_words, .cmds = CLI_I,
	  .progs = CLI_BOTH,
	  .help = "flag (default: eth1=<net>,...), yaml (tcpxoInterfaces:), json,\n"
		  "or aicrconfig (an AICRConfig document); -o takes the same" },
	{ "any-network-names", 0, CLI_KIND_FLAG, NULL, OFF(any_network_names), .cmds = CLI_I, .progs = CLI_BOTH,
	  .help = "check the mapping without AICR's rule that each Network name\n"
		  "contains gpu-nic (Google names them vpc1..vpc8)" },
	{ "pods-file", 0, CLI_KIND_STRING, "F", OFF(pods_file), .cmds = CLI_W, .progs = CLI_BOTH,
	  .help = "read the node's pods (kubectl get pods -A --field-selector\n"
		  "spec.nodeName=NODE -o json) from F, or - for standard input" },
	{ "name", 0, CLI_KIND_STRING, "NAME", OFF(name), .cmds = CLI_R, .progs = CLI_BOTH,
	  .help = "the runtime to check (default: the one the fleet's nodes name)" },
	{ "runtime-file", 0, CLI_KIND_STRING, "F", OFF(runtime_file), .cmds = CLI_R, .progs = CLI_BOTH,
	  .help = "read the runtime from F or - (kubectl get -o json, or helm\n"
		  "template's YAML) instead of the API" },
	{ "networks-file", 0, CLI_KIND_STRING, "F", OFF(networks_file), .cmds = CLI_R, .progs = CLI_BOTH,
	  .help = "read the Networks (kubectl get networks.networking.gke.io -o json)\n"
		  "from F or -" },
	{ "interval", 0, CLI_KIND_DURATION, "DURATION", OFF(interval), .min = 10, .max = 86400, .cmds = CLI_D,
	  .progs = CLI_AGENT,
	  .help = "full resync of the API facts (default 1h; 5m with --no-watch;\n"
		  "at least 10s)" },
	{ "no-watch", 0, CLI_KIND_FLAG, NULL, OFF(no_watch), .cmds = CLI_D, .progs = CLI_AGENT,
	  .help = "poll the node, its pods and the Networks every --interval instead\n"
		  "of following them with API watches" },
	{ "start-jitter", 0, CLI_KIND_DURATION, "DURATION", OFF(start_jitter), .max = 3600, .zero = true,
	  .cmds = CLI_D, .progs = CLI_AGENT,
	  .help = "random delay before the first API request (default 60s; at most 1h)" },
	{ "heartbeat", 0, CLI_KIND_DURATION, "DURATION", OFF(heartbeat), .min = CLI_HEARTBEAT_MIN,
	  .max = CLI_HEARTBEAT_MAX, .zero = true, .cmds = CLI_D, .progs = CLI_AGENT,
	  .help = "refresh the condition's lastHeartbeatTime this often with one\n"
		  "status patch (default 5m; 10s to 1h; 0 off)" },
	{ "heartbeat", 0, CLI_KIND_DURATION, "DURATION", OFF(heartbeat), .min = CLI_HEARTBEAT_MIN,
	  .max = CLI_HEARTBEAT_MAX, .zero = true, .cmds = CLI_S, .progs = CLI_BOTH,
	  .help = "the period the agents run with: a heartbeat older than three\n"
		  "periods is stale (default 5m; 0 when they send none)" },
	{ "health-file", 0, CLI_KIND_STRING, "F", OFF(health_file), .cmds = CLI_D, .progs = CLI_AGENT,
	  .help = "touch F after each loop iteration (for the health command)" },
	{ "health-file", 0, CLI_KIND_STRING, "F", OFF(health_file), .cmds = CLI_H, .progs = CLI_AGENT,
	  .help = "the file the daemon touches (required)" },
	{ "max-age", 0, CLI_KIND_DURATION, "DURATION", OFF(max_age), .max = 86400, .zero = true, .cmds = CLI_H,
	  .progs = CLI_AGENT, .help = "the oldest health file that is healthy (default 60s)" },
	{ "metrics-address", 0, CLI_KIND_STRING, "A", OFF(metrics_address), .cmds = CLI_D, .progs = CLI_AGENT,
	  .help = "serve Prometheus metrics on GET /metrics at A, ADDRESS:PORT\n"
		  "(numeric IPv4, or [IPv6]; default: none, as an empty A)" },
	{ "transport-grace", 0, CLI_KIND_DURATION, "DURATION", OFF(transport_grace), .max = 86400, .zero = true,
	  .cmds = CLI_D | CLI_O | CLI_W, .progs = CLI_AGENT,
	  .help = "how long a GPU pod's containers may run without a buffer-op\n"
		  "client of the TCPXO daemon before its transport is judged tcp\n"
		  "or idle by its traffic (default 10m; 0: at once)" },
	{ "transport-window", 0, CLI_KIND_DURATION, "DURATION", OFF(transport_window), .min = 1,
	  .max = TRANSPORT_WINDOW_MAX_S, .cmds = CLI_O | CLI_W, .progs = CLI_AGENT,
	  .help = "the time between two readings of the net/dev of a GPU pod with no\n"
		  "client past the grace, for its rates (default 3s; 1s to 60s)" },
	{ "transport-tcp-rate", 0, CLI_KIND_RATE, "RATE", OFF(transport_tcp_rate), .cmds = CLI_D | CLI_O | CLI_W,
	  .progs = CLI_AGENT,
	  .help = "such a pod is tcp when its interfaces but lo receive and send at\n"
		  "least RATE each (default 100MB/s; B, kB, MB, GB, KiB, MiB, GiB,\n"
		  "/s optional; a bare number is bytes/s; at least 1MB/s)" },
	{ "log-format", 0, CLI_KIND_CHOICE, "FMT", OFF(log_format), .words = cli_log_format_words,
	  .cmds = CLI_D | CLI_C, .progs = CLI_AGENT,
	  .help = "log lines on stderr as text (default) or json (one object a line:\n"
		  "time, severity, message, fields)" },
	{ "prefix", 0, CLI_KIND_STRING, "P", OFF(prefix), .cmds = CLI_API, .progs = CLI_BOTH,
	  .help = "annotation and label key prefix (default fabric.aicr.run/)" },
	{ "releases", 0, CLI_KIND_STRING, "F", OFF(releases), .cmds = CLI_D, .progs = CLI_AGENT,
	  .help = "installer<->daemon release table file (default: built in);\n"
		  "re-read when it changes (a bad file is refused, logged)" },
	{ "releases", 0, CLI_KIND_STRING, "F", OFF(releases), .cmds = CLI_O | CLI_W | CLI_R, .progs = CLI_BOTH,
	  .help = "installer<->daemon release table file (default: built in)" },
	{ "api-server", 0, CLI_KIND_STRING, "URL", OFF(api_server), .cmds = CLI_API, .progs = CLI_AGENT,
	  .help = "API server (default in-cluster: KUBERNETES_SERVICE_HOST/_PORT)" },
	{ "token-file", 0, CLI_KIND_STRING, "F", OFF(token_file), .cmds = CLI_API, .progs = CLI_AGENT,
	  .help = "bearer token file, re-read when it changes (default: the service\n"
		  "account's)" },
	{ "ca-file", 0, CLI_KIND_STRING, "F", OFF(ca_file), .cmds = CLI_API, .progs = CLI_AGENT,
	  .help = "CA bundle for the API server (default: the service account's)" },
	{ NULL, 'v', CLI_KIND_COUNT, NULL, OFF(verbose), .cmds = CLI_D, .progs = CLI_AGENT,
	  .help = "log debug lines too: each event that wakes the loop, API reads\n"
		  "and resyncs, writes held back, heartbeats (-vv is the same)" },

	/* kubectl fabric: kubectl's global flags, passed to every kubectl call as typed. */
	KUBECTL("context", 0, "NAME"),
	KUBECTL("kubeconfig", 0, "F"),
	KUBECTL("cluster", 0, "NAME"),
	KUBECTL("user", 0, "NAME"),
	KUBECTL("namespace", 'n', "NS"),
	KUBECTL("request-timeout", 0, "D"),
	KUBECTL("server", 's', "URL"),
	KUBECTL("token", 0, "T"),
	KUBECTL("as", 0, "USER"),
	KUBECTL("as-group", 0, "GROUP"),
	KUBECTL("as-uid", 0, "UID"),
	KUBECTL("certificate-authority", 0, "F"),
	KUBECTL("client-certificate", 0, "F"),
	KUBECTL("client-key", 0, "F"),
	KUBECTL("tls-server-name", 0, "NAME"),
	KUBECTL("cache-dir", 0, "DIR"),
	KUBECTL_FLAG("insecure-skip-tls-verify", 0),
	KUBECTL_FLAG("disable-compression", 0),
	KUBECTL_FLAG("match-server-version", 0),
	KUBECTL("v", 'v', "LEVEL"),

	/* What runs: the two modes chosen by an option, help and the version. */
	{ "once", 0, CLI_KIND_ONCE, NULL, .cmds = CLI_ALL, .progs = CLI_AGENT,
	  .help = "observe once, print the verdict and exit" },
	{ "cleanup", 0, CLI_KIND_CLEANUP, NULL, .cmds = CLI_ALL, .progs = CLI_AGENT,
	  .help = "remove the agent's annotations, labels and condition, and exit" },
	{ "help", 'h', CLI_KIND_HELP, NULL, .cmds = CLI_ALL, .progs = CLI_BOTH,
	  .help = "this help" },
	{ "version", 0, CLI_KIND_VERSION, NULL, .cmds = CLI_ALL, .progs = CLI_BOTH,
	  .help = "print the version and exit" },
};

const size_t cli_n_opts = sizeof(cli_opts) / sizeof(cli_opts[0]);

const struct cli_cmd cli_cmds[] = {
	{ CLI_CMD_DAEMON, "daemon", CLI_AGENT, 0,
	  { "[OPTIONS]" },
	  { "run as the DaemonSet agent: observe, publish on change, repeat" },
	  { "Run as the DaemonSet agent on this node: observe the host (PCI, links, LLCM\n"
	    "aperture devices, device nodes, NVIDIA path, TCPXO daemons), judge it, and publish\n"
	    "the verdict on the node's own Node whenever it changes: annotations, the labels\n"
	    "<prefix>profile and <prefix>ready, the FabricReady condition, an Event on each\n"
	    "change; and an Event on each GPU pod that is unattached, partially attached or not\n"
	    "using FasTrak. The node, its pods and the Networks are followed with API watches.\n"
	    "It needs the node's name (--node or NODE_NAME) and refuses to start without one:\n"
	    "to look at a machine once, use --once." },
	  { "# In the DaemonSet: NODE_NAME from spec.nodeName, the host's /sys, /dev, /proc at /host\n"
	    "tcpxo-agent --root /host --health-file /run/tcpxo/healthy --metrics-address 0.0.0.0:9863\n"
	    "# By hand on a node: poll every 5 minutes, log each decision\n"
	    "tcpxo-agent --node gke-a3mega-pool-1a2b --no-watch --interval 5m -v" },
	  "0  stopped by SIGTERM or SIGINT\n"
	  "2  bad usage (no node name, an option it does not take), or it could not start" },
	{ CLI_CMD_ONCE, "once", CLI_AGENT, OUT(JSON) | OUT(NPD),
	  { "--once [OPTIONS]" },
	  { "observe once, print the report, publish unless --no-publish" },
	  { "Observe this node once and print the report: the verdict on the first line, each\n"
	    "check with its cause and remedy, the PCIe tree, the GPU pods; then publish it on the\n"
	    "Node as the daemon does (not with --no-publish, nor without an API). The exit code\n"
	    "is node-problem-detector's custom-plugin convention." },
	  { "# In the debug pod on a node (the host at /host)\n"
	    "tcpxo-agent --once --root /host --no-publish\n"
	    "tcpxo-agent --once --root /host --no-publish -o json | jq '.checks[] | select(.status == \"fail\")'\n"
	    "# As a node-problem-detector custom plugin (docs/examples/npd-custom-plugin-monitor.json)\n"
	    "tcpxo-agent --once --root /host --no-publish -o npd" },
	  "0  ready\n"
	  "1  not ready\n"
	  "2  unknown: the node could not be observed, a requested publish failed, or bad usage" },
	{ CLI_CMD_CLEANUP, "cleanup", CLI_AGENT, 0,
	  { "--cleanup [OPTIONS]" },
	  { "remove the agent's annotations, labels, condition from the node" },
	  { "Remove this agent's annotations, its labels and its FabricReady condition from the\n"
	    "node (two writes), for an uninstall. Needs the node's name and API access." },
	  { "tcpxo-agent --cleanup --node gke-a3mega-pool-1a2b" },
	  "0  removed (or there was nothing to remove)\n"
	  "2  the node could not be written, or bad usage" },
	{ CLI_CMD_INTERFACES, "interfaces", CLI_BOTH, OUT(FLAG) | OUT(JSON) | OUT(YAML) | OUT(AICRCONFIG),
	  { "interfaces [OPTIONS]" },
	  { "check the TCPXO nodes' published mappings agree; print it" },
	  { "Read the eth1..eth8 -> Network mapping each TCPXO node published (the API's Node\n"
	    "list, or a NodeList file), check that the nodes agree and that the mapping keeps the\n"
	    "renderer's rules, and print it in one of the renderer's input formats. What\n"
	    "disagrees, and which nodes, is said on stderr.",
	    "Read the eth1..eth8 -> Network mapping each TCPXO node published (your kubectl's\n"
	    "Node list), check that the nodes agree and that the mapping keeps the renderer's\n"
	    "rules, and print it in one of the renderer's input formats. What disagrees, and\n"
	    "which nodes, is said on stderr." },
	  { "kubectl get nodes -o json | tcpxo-agent interfaces --nodes-file - -o yaml\n"
	    "tcpxo-agent interfaces --selector cloud.google.com/gke-nodepool=a3mega --format aicrconfig",
	    "kubectl fabric interfaces -o yaml\n"
	    "kubectl fabric interfaces --context gke_my-project_us-central1_train --format aicrconfig" },
	  "0  the TCPXO nodes agree: the mapping is printed (or there is none: managed DRANET)\n"
	  "1  they disagree, or one is not ready: nothing printed, why on stderr\n"
	  "2  the nodes could not be read, or bad usage" },
	{ CLI_CMD_HEALTH, "health", CLI_AGENT, 0,
	  { "health [OPTIONS]" },
	  { "liveness probe for the daemon" },
	  { "The daemon's exec liveness probe (no shell needed in the image): healthy when the\n"
	    "file the daemon touches after each loop iteration is at most --max-age old." },
	  { "tcpxo-agent health --health-file /run/tcpxo/healthy --max-age 2m" },
	  "0  the health file is fresh\n"
	  "1  it is stale, missing, not a regular file, or far in the future\n"
	  "2  bad usage" },
	{ CLI_CMD_WORKLOADS, "workloads", CLI_BOTH, OUT(JSON),
	  { "workloads [OPTIONS]", "workloads NODE [OPTIONS]" },
	  { "judge every GPU pod on this node against its fabric (or, with\n"
	    "--nodes-file, against what the node published)",
	    "judge the GPU pods on NODE against what NODE published" },
	  { "Judge every GPU pod on this node against the node's fabric (attached, partial,\n"
	    "unattached, not-fabric, with findings) and the transport each running pod really\n"
	    "uses, from the host's /proc under --root. The pods come from the API, or\n"
	    "--pods-file. With --nodes-file, the pods of --node are judged against what that\n"
	    "node published instead of this host (what kubectl fabric workloads NODE does).",
	    "Judge the GPU pods on NODE against what NODE's agent published (its mapping,\n"
	    "release, devices): attached, partial, unattached or not-fabric, with findings.\n"
	    "The node and its pods are read with your kubectl." },
	  { "# In the debug pod on the node\n"
	    "tcpxo-agent workloads --root /host --node \"$NODE_NAME\"\n"
	    "# Anywhere, from files\n"
	    "tcpxo-agent workloads --node gke-a3mega-pool-1a2b --nodes-file nodes.json --pods-file pods.json",
	    "kubectl fabric workloads gke-a3mega-pool-1a2b\n"
	    "kubectl fabric workloads gke-a3mega-pool-1a2b --context gke_my-project_us-central1_train -o json" },
	  "0  every GPU pod attached and using FasTrak (or none running)\n"
	  "1  a pod partial or unattached, or its transport tcp or partial\n"
	  "2  unknown: the node's facts or a pod could not be read, or bad usage" },
	{ CLI_CMD_RUNTIME, "runtime", CLI_BOTH, OUT(JSON),
	  { "runtime [OPTIONS]" },
	  { "hold the named ClusterTrainingRuntime against the fleet" },
	  { "Hold the named runtime (a Kubeflow Trainer ClusterTrainingRuntime; by default the\n"
	    "one the fleet's nodes name) against what the fleet's agents published: its Network\n"
	    "mapping, the daemon and NCCL pins, the GPU count, scheduling, and each replicated\n"
	    "job's pod template through the checker of the pods on a node. The nodes, the\n"
	    "runtime and the Networks come from the API, or from files.",
	    "Hold the named runtime (a Kubeflow Trainer ClusterTrainingRuntime; by default the\n"
	    "one the fleet's nodes name) against what the fleet's agents published: its Network\n"
	    "mapping, the daemon and NCCL pins, the GPU count, scheduling, and each replicated\n"
	    "job's pod template through the checker of the pods on a node. The nodes, the\n"
	    "runtime and the Networks are read with your kubectl (without the Networks,\n"
	    "networks-published is skipped and says why)." },
	  { "tcpxo-agent runtime --name torch-distributed-tcpxo\n"
	    "# A rendered bundle before it ships\n"
	    "helm template aicr ./chart | tcpxo-agent runtime --runtime-file - --nodes-file nodes.json",
	    "kubectl fabric runtime\n"
	    "kubectl fabric runtime --name torch-distributed-tcpxo -o json" },
	  "0  the runtime matches the fleet\n"
	  "1  a finding fails\n"
	  "2  unknown: an input could not be read, or bad usage" },
	{ CLI_CMD_STATUS, "status", CLI_BOTH, OUT(JSON) | OUT(WIDE) | OUT(NAME),
	  { "status [OPTIONS]" },
	  { "the fleet's A3 nodes: which are not ready, and why" },
	  { "The fleet's verdicts as the agents published them on the Nodes: every A3 node and\n"
	    "every node with a fabric profile, ready or not, the age of its verdict, its causes;\n"
	    "then the not-ready nodes grouped by cause. A heartbeat older than three --heartbeat\n"
	    "periods is stale, never counted ready. -o wide adds the machine type, the heartbeat\n"
	    "and the transport; -o name prints node/NAME, one a line. The nodes come from the\n"
	    "API, or a NodeList file.",
	    "The fleet's verdicts as the agents published them on the Nodes: every A3 node and\n"
	    "every node with a fabric profile, ready or not, the age of its verdict, its causes;\n"
	    "then the not-ready nodes grouped by cause. A heartbeat older than three --heartbeat\n"
	    "periods is stale, never counted ready. -o wide adds the machine type, the heartbeat\n"
	    "and the transport; -o name prints node/NAME, one a line. The nodes are read with\n"
	    "your kubectl." },
	  { "tcpxo-agent status\n"
	    "kubectl get nodes -o json | tcpxo-agent status --nodes-file - -o wide",
	    "kubectl fabric status\n"
	    "kubectl fabric status --context gke_my-project_us-central1_train -o wide\n"
	    "kubectl fabric status -l cloud.google.com/gke-nodepool=a3mega -o json" },
	  "0  every listed node is ready (or none is listed)\n"
	  "1  a listed node is not ready\n"
	  "2  the nodes could not be read, or bad usage" },
	{ CLI_CMD_HELP, "help", CLI_BOTH, 0,
	  { "help [COMMAND]" },
	  { "a command's usage, options, examples and exit codes" },
	  { "Print a command's usage, its options, examples and exit codes (the same as\n"
	    "COMMAND --help); without one, the list of commands." },
	  { "tcpxo-agent help status\n"
	    "tcpxo-agent help daemon",
	    "kubectl fabric help status" },
	  "0  printed\n"
	  "2  no such command" },
	{ CLI_CMD_VERSION, "version", CLI_BOTH, OUT(JSON) | OUT(YAML),
	  { "version [OPTIONS]" },
	  { "print the version" },
	  { "Print the program's version (the same as --version), or its JSON or YAML\n"
	    "document: name, version, and the platform it was built for." },
	  { "tcpxo-agent version -o json",
	    "kubectl fabric version -o json" },
	  "0  printed\n"
	  "2  bad usage" },
};

const size_t cli_n_cmds = sizeof(cli_cmds) / sizeof(cli_cmds[0]);

int cli_opt_label(const struct cli_opt *r, char *buf, size_t len)
{
	if (r->name && r->short_name)
		return snprintf(buf, len, "-%c/--%s", r->short_name, r->name);
	if (r->name)
		return snprintf(buf, len, "--%s", r->name);
	return snprintf(buf, len, "-%c", r->short_name);
}

bool cli_same_opt(const struct cli_opt *a, const struct cli_opt *b)
{
	return a->short_name == b->short_name && (a->name == b->name || (a->name && b->name && strcmp(a->name, b->name) == 0));
}

const struct cli_cmd *cli_table_cmd(enum cli_command cmd)
{
	for (size_t i = 0; i < cli_n_cmds; i++)
		if (cli_cmds[i].cmd == cmd)
			return &cli_cmds[i];
	return NULL;
}

const struct cli_cmd *cli_table_word(const char *word, enum cli_program prog)
{
	for (size_t i = 0; i < cli_n_cmds; i++)
		if ((cli_cmds[i].progs & (1u << prog)) && strcmp(cli_cmds[i].word, word) == 0)
			return &cli_cmds[i];
	return NULL;
}

const char *cli_table_prog_name(enum cli_program prog)
{
	return prog == CLI_PROG_FABRIC ? "kubectl-fabric" : "tcpxo-agent";
}

const char *cli_table_prog_usage(enum cli_program prog)
{
	return prog == CLI_PROG_FABRIC ? "kubectl fabric" : "tcpxo-agent";
}

const char *cli_table_text(const char *const texts[2], enum cli_program prog)
{
	return texts[prog] ? texts[prog] : texts[0];
}
