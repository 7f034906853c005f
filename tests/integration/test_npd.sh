#!/bin/sh
# test_npd.sh - docs/examples/npd-custom-plugin-monitor.json, node-problem-detector's custom plugin monitor config:
# its fields are those NPD's CustomPluginConfig and CustomRule know (pkg/custompluginmonitor/types/config.go,
# types.go), with NPD's own validation (plugin "custom", durations, rule timeout within the global one, a
# permanent rule's condition among the default conditions, max_output_length 80 = RENDER_NPD_MAX); then its
# rule run the way NPD's plugin.go runs it (the rule's path and args, exit code 0/1/2, stdout trimmed and held to
# max_output_length) on a fixture node in a private netns: eth3 (a GPU NIC) down exits 1 with one line that
# names the links check, the healthy A3 Mega exits 0. The rule's path and its `--root /host` are the only words
# mapped (to the built binary and the fixture's copy); everything else is the rule's own.
# Env: TOPDIR, TCPXO_AGENT. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
. "$TOPDIR/tests/lib/netns.sh"
[ -f "$TOPDIR/tests/lib/devnodes.sh" ] && . "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
A=${TCPXO_AGENT:-$TOPDIR/build/tcpxo-agent}
CFG=$TOPDIR/docs/examples/npd-custom-plugin-monitor.json
PY=/usr/bin/python3
failed=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# The config as NPD reads it; the rule's argv, one word a line, into $tmp/argv.
$PY - "$CFG" "$TOPDIR/report/render/render_npd.h" "$TOPDIR/docs/user-guide.md" "$tmp/argv" <<'EOF' || failed=1
import json, re, sys

cfg_file, header, guide, argv_file = sys.argv[1:5]
errs = []
try:
    cfg = json.load(open(cfg_file))
except ValueError as e:
    print("not ok npd/config: not JSON: %s" % e)
    sys.exit(1)

# Go's time.ParseDuration for what a config holds: one or more number+unit, no sign.
def duration(s):
    units = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1, "m": 60, "h": 3600}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ns|us|ms|s|m|h)", s or "")
    if not parts or "".join(a + b for a, b in parts) != s:
        raise ValueError("not a Go duration: %r" % s)
    return sum(float(a) * units[b] for a, b in parts)

# CustomPluginConfig, pluginGlobalConfig, CustomRule and types.Condition: their json tags.
top = {"plugin", "pluginConfig", "source", "conditions", "rules", "metricsReporting"}
glob = {"invoke_interval", "timeout", "max_output_length", "concurrency",
        "enable_message_change_based_condition_update", "skip_initial_status"}
rule_keys = {"type", "condition", "reason", "path", "args", "timeout", "invoke_interval"}
cond_keys = {"type", "reason", "message"}
errs += ["unknown field %s" % k for k in sorted(set(cfg) - top)]
pc = cfg.get("pluginConfig") or {}
errs += ["pluginConfig: unknown field %s" % k for k in sorted(set(pc) - glob)]
if cfg.get("plugin") != "custom":
    errs.append('plugin %r: NPD supports only "custom"' % cfg.get("plugin"))
if not cfg.get("source"):
    errs.append("no source")
try:
    gto = duration(pc.get("timeout", "5s"))
    if duration(pc.get("invoke_interval", "30s")) <= 0:
        errs.append("invoke_interval must be positive")
except ValueError as e:
    errs.append("pluginConfig: %s" % e)
    gto = 0
want = int(re.search(r"#define RENDER_NPD_MAX (\d+)", open(header).read()).group(1))
if pc.get("max_output_length") != want:
    errs.append("max_output_length %r, want %d (RENDER_NPD_MAX, NPD's default)" % (pc.get("max_output_length"), want))
conds = {c.get("type") for c in cfg.get("conditions") or []}
for c in cfg.get("conditions") or []:
    errs += ["condition %s: unknown field %s" % (c.get("type"), k) for k in sorted(set(c) - cond_keys)]
    if not all(c.get(k) for k in cond_keys):
        errs.append("condition %r needs type, reason and message" % c)
rules = cfg.get("rules") or []
if len(rules) != 1:
    errs.append("%d rules, want the one that runs the agent" % len(rules))
for r in rules:
    errs += ["rule: unknown field %s" % k for k in sorted(set(r) - rule_keys)]
    if r.get("type") not in ("temporary", "permanent"):
        errs.append("rule type %r" % r.get("type"))
    if r.get("type") == "permanent" and r.get("condition") not in conds:
        errs.append("permanent problem %s does not have preset default condition" % r.get("condition"))
    try:
        if "timeout" in r and duration(r["timeout"]) > gto:
            errs.append("plugin timeout is greater than global timeout")
    except ValueError as e:
        errs.append("rule: %s" % e)
    if not r.get("reason") or not r.get("path", "").startswith("/"):
        errs.append("rule needs a reason and an absolute path")
    args = r.get("args") or []
    if args[:3] != ["--once", "-o", "npd"] or "--no-publish" not in args:
        errs.append("args %r: want --once -o npd --no-publish (the DaemonSet agent publishes; NPD only reads)" % args)
    if "--root" not in args or args[args.index("--root") + 1:][:1] != ["/host"]:
        errs.append("args %r: want --root /host (the host mounts of the NPD pod)" % args)
    open(argv_file, "w").write("\n".join([r.get("path", "")] + args) + "\n")
print(("not ok npd/config: " + "; ".join(errs)) if errs else
      "ok npd/config: the fields NPD knows, valid as NPD validates it, max_output_length %d, rule %s %s" %
      (want, rules[0]["path"], " ".join(rules[0]["args"])))
# The user guide explains it: the file, the rule's command, what the condition's states mean.
text = open(guide).read()
derrs = [w for w in ["npd-custom-plugin-monitor.json", " ".join(rules[0]["args"]) if rules else "?",
                     "max_output_length", "FabricProblem"] if w not in text]
print(("not ok npd/docs: the user guide does not say %s" % ", ".join(derrs)) if derrs else
      "ok npd/docs: the user guide shows the config and its command")
sys.exit(1 if errs or derrs else 0)
EOF

if ! why=$(netns_can_run 2>&1); then
	skip "npd/run" "$why"
	exit $failed
fi
if [ ! -s "$tmp/argv" ]; then
	nok "npd/run" "no rule to run (see npd/config)"
	exit 1
fi

# run_rule SCENARIO: the rule's command on the scenario's tree, as NPD runs it (no shell, no API, NODE_NAME set).
run_rule() {
	sc=$1
	root=$(scenario_prepare "$sc") || return 2
	set --
	prev=""
	while IFS= read -r w; do
		if [ $# = 0 ]; then w=$A
		elif [ "$prev" = "--root" ] && [ "$w" = /host ]; then w=$root
		fi
		set -- "$@" "$w"
		prev=$w
	done <"$tmp/argv"
	env -u KUBERNETES_SERVICE_HOST -u KUBERNETES_SERVICE_PORT NODE_NAME="fixture-$sc" \
		sh -c '. "$0"; netns_run "$@"' "$NETNS_LIB" "$TOPDIR/fixtures/$sc/links.spec" "$@" \
		>"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	rm -rf "$root"
	return $rc
}

# npd_output: stdout as plugin.go keeps it (TrimSpace, then cut at max_output_length bytes), and whether it was cut.
npd_output() {
	$PY - "$tmp/stdout" "$CFG" <<'EOF'
import json, sys
out = open(sys.argv[1], "rb").read()
limit = json.load(open(sys.argv[2]))["pluginConfig"]["max_output_length"]
kept = out.strip()
msg = kept[:limit].decode("utf-8", "replace").replace("\t", " ").replace("\n", "|")
print("%s\t%d\t%d\t%d" % (msg, len(kept), out.count(b"\n"), len(kept) > limit))
EOF
}

for case in "a3-mega-nic-down 1 ^tcpxo: not ready: links: eth3 is down" "a3-mega 0 ^tcpxo: ready ("; do
	scenario=${case%% *}
	rest=${case#* }
	want_rc=${rest%% *}
	want_re=${rest#* }
	run_rule "$scenario"
	rc=$?
	npd_output >"$tmp/npd"
	IFS='	' read -r msg len lines cut <"$tmp/npd"
	if [ "$rc" = "$want_rc" ] && [ "$lines" = 1 ] && [ "$cut" = 0 ] && printf '%s' "$msg" | grep -q "$want_re"; then
		ok "npd/run $scenario: exit $rc, one line of $len bytes NPD keeps whole: $msg"
	else
		nok "npd/run $scenario" "exit $rc (want $want_rc), $lines lines, $len bytes (cut: $cut): '$msg'; stderr: $(head -c 300 "$tmp/stderr" | tr '\n' '|')"
	fi
done

# The check can fail: the same rule without -o npd prints the human report, which NPD would cut inside its tree.
grep -v -x -e '-o' -e npd "$tmp/argv" >"$tmp/argv.human"
mv "$tmp/argv.human" "$tmp/argv"
run_rule a3-mega-nic-down
rc=$?
npd_output >"$tmp/npd"
IFS='	' read -r msg len lines cut <"$tmp/npd"
if [ "$rc" = 1 ] && [ "$lines" -gt 1 ] && [ "$cut" = 1 ]; then
	ok "npd/run-can-fail: without -o npd, $lines lines ($len bytes) that NPD would cut to 80"
else
	nok "npd/run-can-fail" "the human report passed as NPD output: exit $rc, $lines lines, $len bytes"
fi
exit $failed
