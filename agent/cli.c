/* cli.c - the one table of every option and command of tcpxo-agent and kubectl-fabric, and the parser that reads a command line against it. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/cli.h"
#include "probes/kube/kubename.h"
#include "probes/model/timetext.h"
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
	{ "context", 0, CLI_KIND_KUBECTL, "NAME", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "kubeconfig", 0, CLI_KIND_KUBECTL, "F", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "cluster", 0, CLI_KIND_KUBECTL, "NAME", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "user", 0, CLI_KIND_KUBECTL, "NAME", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "namespace", 'n', CLI_KIND_KUBECTL, "NS", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "request-timeout", 0, CLI_KIND_KUBECTL, "D", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "server", 's', CLI_KIND_KUBECTL, "URL", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "token", 0, CLI_KIND_KUBECTL, "T", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "as", 0, CLI_KIND_KUBECTL, "USER", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "as-group", 0, CLI_KIND_KUBECTL, "GROUP", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "as-uid", 0, CLI_KIND_KUBECTL, "UID", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "certificate-authority", 0, CLI_KIND_KUBECTL, "F", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "client-certificate", 0, CLI_KIND_KUBECTL, "F", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "client-key", 0, CLI_KIND_KUBECTL, "F", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "tls-server-name", 0, CLI_KIND_KUBECTL, "NAME", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "cache-dir", 0, CLI_KIND_KUBECTL, "DIR", .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "insecure-skip-tls-verify", 0, CLI_KIND_KUBECTL_FLAG, NULL, .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "disable-compression", 0, CLI_KIND_KUBECTL_FLAG, NULL, .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "match-server-version", 0, CLI_KIND_KUBECTL_FLAG, NULL, .cmds = CLI_FLEET, .progs = CLI_FABRIC },
	{ "v", 'v', CLI_KIND_KUBECTL, "LEVEL", .cmds = CLI_FLEET, .progs = CLI_FABRIC },

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

/* ---- the parser ---- */

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

/* An option as the user types it, for messages: "--root", "-v", "-o/--output". */
static void cli_opt_label(const struct cli_opt *r, char *buf, size_t len)
{
	if (r->name && r->short_name)
		snprintf(buf, len, "-%c/--%s", r->short_name, r->name);
	else if (r->name)
		snprintf(buf, len, "--%s", r->name);
	else
		snprintf(buf, len, "-%c", r->short_name);
}

static bool cli_same_opt(const struct cli_opt *a, const struct cli_opt *b)
{
	return a->short_name == b->short_name && (a->name == b->name || (a->name && b->name && strcmp(a->name, b->name) == 0));
}

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

/* Duration @s of option @name against [@min_s, @max_s], 0 taken when @zero. */
static int cli_duration_in(const char *prog, const char *name, const char *s, unsigned min_s, unsigned max_s,
			   bool zero, unsigned *ret_s)
{
	unsigned long long v = 0;
	int r = timetext_duration_parse(s, max_s, &v);

	if (r == -EINVAL) {
		fprintf(stderr, "%s: %s: expected a duration such as 90s, 5m or 1h30m (a bare number is seconds), got "
			"'%s'\n", prog, name, s);
		return -EINVAL;
	}
	if (r == -ERANGE) {
		bool h = max_s % 3600 == 0, m = max_s % 60 == 0;

		fprintf(stderr, "%s: %s: at most %u%s (%u seconds), got '%s'\n", prog, name,
			h ? max_s / 3600 : m ? max_s / 60 : max_s, h ? "h" : m ? "m" : "s", max_s, s);
		return -EINVAL;
	}
	if ((v || !zero) && v < min_s) {
		fprintf(stderr, "%s: %s: at least %u seconds%s, got '%s'\n", prog, name, min_s,
			zero ? " (or 0 for off)" : "", s);
		return -EINVAL;
	}
	*ret_s = (unsigned)v;
	return 0;
}

int cli_duration(const char *name, const char *s, unsigned min_s, unsigned max_s, unsigned *ret_s)
{
	return cli_duration_in("tcpxo-agent", name, s, min_s, max_s, true, ret_s);
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

int cli_rate(const char *prog, const char *name, const char *s, uint64_t min, uint64_t max, uint64_t *ret)
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
		fprintf(stderr, "%s: %s: expected a rate such as 100MB/s, 1.5GB/s or 64MiB/s from %llu to %llu "
			"bytes/s, got '%s'\n", prog, name, (unsigned long long)min, (unsigned long long)max, s);
		return -EINVAL;
	}
	*ret = (uint64_t)(v * mul);
	return 0;
}

static int cli_kubectl_arg(struct cli_state *s, const char *arg)
{
	if (s->o.n_kubectl_args == CLI_KUBECTL_ARGS_MAX) {
		fprintf(stderr, "%s: more than %d of kubectl's flags\n", s->name, CLI_KUBECTL_ARGS_MAX);
		return -EINVAL;
	}
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
		if (s->output && strcmp(s->output, value) != 0) {
			fprintf(stderr, "%s: -o given twice: %s and %s\n", s->name, s->output, value);
			return -EINVAL;
		}
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

static bool cli_takes_value(const struct cli_opt *r)
{
	return r->arg != NULL;
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
	if (!r) {
		fprintf(stderr, "%s: unknown option '%.*s' (try --help)\n", s->name,
			(int)(a[1] == '-' && (eq = strchr(a, '=')) ? eq - a : (ptrdiff_t)strlen(a)), a);
		return -EINVAL;
	}
	if (cli_takes_value(r) && !value) {
		if (*i + 1 >= argc) {
			fprintf(stderr, "%s: %s needs a value (try --help)\n", s->name, a);
			return -EINVAL;
		}
		value = argv[++*i];
		apart = true;
	} else if (!cli_takes_value(r) && value && r->kind != CLI_KIND_KUBECTL_FLAG) {
		fprintf(stderr, "%s: %s takes no value (try --help)\n", s->name, a);
		return -EINVAL;
	}
	if (r->kind != CLI_KIND_HELP && r->kind != CLI_KIND_VERSION) {
		if (s->n_given == CLI_GIVEN_MAX) {
			fprintf(stderr, "%s: more than %d options\n", s->name, CLI_GIVEN_MAX);
			return -EINVAL;
		}
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
		if (!c || c->cmd == CLI_CMD_DAEMON || c->cmd == CLI_CMD_ONCE || c->cmd == CLI_CMD_CLEANUP) {
			fprintf(stderr, "%s: unknown command '%s' (try --help)\n", s->name, a);
			return -EINVAL;
		}
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
	fprintf(stderr, "%s: unexpected argument '%s' (try --help)\n", s->name, a);
	return -EINVAL;
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
	if (s->once && s->cleanup) {
		fprintf(stderr, "%s: --once and --cleanup exclude each other\n", s->name);
		return -EINVAL;
	}
	if ((s->once || s->cleanup) && s->word) {
		fprintf(stderr, "%s: --once and --cleanup do not apply to the %s command\n", s->name, s->word->word);
		return -EINVAL;
	}
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
		if (!c) {
			fprintf(stderr, "%s: help: no command '%s' (try %s help)\n", s->name, s->topic,
				cli_table_prog_usage(prog));
			return -EINVAL;
		}
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
	if (o->json && out != CLI_OUTPUT_DEFAULT && out != CLI_OUTPUT_JSON) {
		fprintf(stderr, "%s: --json and -o %s disagree\n", s->name, s->output);
		return -EINVAL;
	}
	if (o->json)
		out = CLI_OUTPUT_JSON;
	if (o->cmd == CLI_CMD_INTERFACES && out != CLI_OUTPUT_DEFAULT) {
		if (s->format_given && o->format != as_format[out]) {
			fprintf(stderr, "%s: --format and -o %s disagree\n", s->name, s->output);
			return -EINVAL;
		}
		o->format = as_format[out];
	}
	o->output = (enum cli_output)out;
	o->json = out == CLI_OUTPUT_JSON;
	return 0;
}

/* Where a command is named in messages: "status", "--once", "the daemon". */
static const char *cli_cmd_label(enum cli_command c)
{
	switch (c) {
	case CLI_CMD_DAEMON: return "the daemon";
	case CLI_CMD_ONCE: return "--once";
	case CLI_CMD_CLEANUP: return "--cleanup";
	case CLI_CMD_INTERFACES:
	case CLI_CMD_HEALTH:
	case CLI_CMD_WORKLOADS:
	case CLI_CMD_RUNTIME:
	case CLI_CMD_STATUS:
	case CLI_CMD_HELP:
	case CLI_CMD_VERSION:
	case CLI_CMD__COUNT:
		break;
	}
	return cli_table_cmd(c) ? cli_table_cmd(c)->word : "?";
}

/* Each option given against the table: one that the resolved command does not use is refused. */
static int cli_check_scope(const struct cli_state *s)
{
	for (size_t i = 0; i < s->n_given; i++) {
		const struct cli_opt *r = s->given[i];
		unsigned cmds = cli_scope(s->o.prog, r);
		const char *sep = "";
		char label[64];

		if (cmds & (1u << s->o.cmd))
			continue;
		cli_opt_label(r, label, sizeof(label));
		fprintf(stderr, "%s: %s does not apply to %s; it applies to ", s->name, label, cli_cmd_label(s->o.cmd));
		for (int c = 0; c < CLI_CMD__COUNT; c++)
			if ((cmds & (1u << c)) && cli_table_cmd((enum cli_command)c)->progs & (1u << s->o.prog)) {
				fprintf(stderr, "%s%s", sep, cli_cmd_label((enum cli_command)c));
				sep = ", ";
			}
		fputc('\n', stderr);
		return -EINVAL;
	}
	return 0;
}

/* The values' own rules, and what each command needs. */
static int cli_check(const struct cli_state *s)
{
	const struct cli_options *o = &s->o;

	if (!*o->root) {
		fprintf(stderr, "%s: --root must not be empty\n", s->name);
		return -EINVAL;
	}
	if (cli_check_prefix(o->prefix) < 0) {
		fprintf(stderr, "%s: --prefix: expected a DNS subdomain ending in '/', got '%s'\n", s->name, o->prefix);
		return -EINVAL;
	}
	if (o->node && strlen(o->node) > KUBENAME_MAX) {
		fprintf(stderr, "%s: --node: a node name has at most %d characters\n", s->name, KUBENAME_MAX);
		return -EINVAL;
	}
	if (o->name && !kubename_valid(o->name)) {
		fprintf(stderr, "%s: --name: a runtime's name is a DNS subdomain ([a-z0-9.-], at most 253 "
			"characters)\n", s->name);
		return -EINVAL;
	}
	if (o->cmd == CLI_CMD_RUNTIME && cli_stdin_twice(o)) {
		fprintf(stderr, "%s: runtime: standard input (-) can feed one of --nodes-file, --runtime-file "
			"and --networks-file\n", s->name);
		return -EINVAL;
	}
	if (o->cmd == CLI_CMD_HEALTH && !o->health_file) {
		fprintf(stderr, "%s: health needs --health-file\n", s->name);
		return -EINVAL;
	}
	/* No accidental daemon: on a workstation, a bare tcpxo-agent would loop with no node to publish on. */
	if (o->cmd == CLI_CMD_DAEMON && !o->node) {
		fprintf(stderr, "%s: no node name: the daemon publishes on its own Node; give --node NAME (the "
			"DaemonSet sets NODE_NAME from spec.nodeName), or run --once to look at this machine once "
			"(see --help)\n", s->name);
		return -EINVAL;
	}
	if (o->cmd == CLI_CMD_WORKLOADS && o->prog == CLI_PROG_FABRIC && !o->node) {
		fprintf(stderr, "%s: workloads needs the node's name: kubectl fabric workloads NODE\n", s->name);
		return -EINVAL;
	}
	if (o->cmd == CLI_CMD_WORKLOADS && o->prog == CLI_PROG_FABRIC && !kubename_valid(o->node)) {
		fprintf(stderr, "%s: workloads: '%s' is not a node name (a DNS subdomain: [a-z0-9.-])\n", s->name,
			o->node);
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
		if (s.node_given && s.o.node && strcmp(s.o.node, s.node_arg) != 0) {
			fprintf(stderr, "%s: workloads: NODE %s and --node %s disagree\n", s.name, s.node_arg, s.o.node);
			return -EINVAL;
		}
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
	if (prog == CLI_PROG_FABRIC && !s.word) {
		fprintf(stderr, "%s: which command? status, interfaces, runtime or workloads NODE (try --help)\n", s.name);
		return -EINVAL;
	}
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
	if (cli_check(&s) < 0)
		return -EINVAL;
	*ret = s.o;
	return 0;
}

int cli_parse(int argc, char **argv, struct cli_options *ret)
{
	return cli_parse_program(CLI_PROG_AGENT, argc, argv, ret);
}
