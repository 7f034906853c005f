#!/bin/sh
# test_alerting.sh - the alerting example (docs/examples/prometheusrule.yaml) and the user guide's PromQL lines, held
# to what the agent publishes: the condition type, the label key as kube-state-metrics names it, the 10 minutes.
# With promtool on PATH or in .tools/bin (scripts/deps.sh test puts it there from Debian's prometheus
# package), the rules are also checked by Prometheus' own parser and run
# against series that must and must not fire; without it those two cases skip, or fail with
# REQUIRE_PROMTOOL=1 (CI sets it: there deps.sh must have provided it).
# Env: TOPDIR. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
RULE=$TOPDIR/docs/examples/prometheusrule.yaml
PY=/usr/bin/python3
failed=0
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-alerting.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

if ! $PY -c 'import yaml' 2>/dev/null; then
	skip "alerting" "python3-yaml is not installed (sh scripts/deps.sh test)"
	exit 0
fi

# The text checks; they also write the plain rules file promtool reads ($tmp/rules.yaml).
$PY - "$RULE" "$TOPDIR/docs/user-guide.md" "$TOPDIR/agent/cli.c" "$tmp/rules.yaml" <<'EOF' || failed=1
import re, sys, yaml

rule_file, guide, cli, out = sys.argv[1:5]
bad = 0


def case(name, errs, detail=""):
    global bad
    if errs:
        bad = 1
        print("not ok alerting/%s: %s" % (name, "; ".join(errs)))
    else:
        print("ok alerting/%s%s" % (name, ": " + detail if detail else ""))


norm = lambda s: " ".join(s.split())
docs = list(yaml.safe_load_all(open(rule_file)))
errs = []
if len(docs) != 1:
    errs.append("%d documents" % len(docs))
d = docs[0]
if (d.get("apiVersion"), d.get("kind")) != ("monitoring.coreos.com/v1", "PrometheusRule"):
    errs.append("not a monitoring.coreos.com/v1 PrometheusRule: %s %s" % (d.get("apiVersion"), d.get("kind")))
groups = (d.get("spec") or {}).get("groups") or []
rules = [r for g in groups for r in g.get("rules", [])]
alerts = [r for r in rules if "alert" in r]
records = [r for r in rules if "record" in r]
case("parses", errs, "%d group(s), %d alert(s), %d recording rule(s)" % (len(groups), len(alerts), len(records)))

# What the agent publishes: the condition type (probes/model/obs_kube.h), the label key under the default
# prefix (agent/cli.c), and the label as kube-state-metrics exports it (label_ + [^a-zA-Z0-9_] -> _).
prefix = re.search(r'\.prefix = "([^"]+)"', open(cli).read()).group(1)
ksm_label = "label_" + re.sub(r"[^a-zA-Z0-9_]", "_", prefix + "profile")
errs = []
a = alerts[0] if len(alerts) == 1 else {}
if len(alerts) != 1 or a.get("alert") != "FabricNotReady":
    errs.append("alerts %s, want one FabricNotReady" % [x.get("alert") for x in alerts])
expr = norm(a.get("expr", ""))
for need in ('kube_node_status_condition{condition="FabricReady",status="true"} == 0',
             'and on (node) kube_node_labels{%s="tcpxo"}' % ksm_label):
    if need not in expr:
        errs.append("the expr lacks %r: %r" % (need, expr))
if a.get("for") != "10m":
    errs.append("for: %r, want 10m" % a.get("for"))
if not (a.get("annotations") or {}).get("summary"):
    errs.append("no summary annotation")
case("alert", errs, expr)

# The user guide shows the same alert expr and the same ratio, in one line.
text = open(guide).read()
errs = []
m = re.search(r"- alert: FabricNotReady\n  expr: \|\n((?:    .*\n)+)  for: (\S+)", text)
if not m:
    errs.append("the guide shows no FabricNotReady rule")
elif norm(m.group(1)) != expr or m.group(2) != a.get("for"):
    errs.append("the guide's rule differs from the file's: %r for %s" % (norm(m.group(1)), m.group(2)))
ratio = [r for r in records if r.get("record") == "tcpxo:fabric_ready:ratio"]
lines = [l for l in text.splitlines() if l.startswith("sum(kube_node_status_condition")]
if len(ratio) != 1:
    errs.append("no recording rule tcpxo:fabric_ready:ratio")
elif len(lines) != 1 or norm(lines[0]) != norm(ratio[0]["expr"]):
    errs.append("the guide's PromQL line %r is not the recording rule's %r" % (lines, norm(ratio[0]["expr"])))
elif "--metric-labels-allowlist=nodes=[%sprofile" % prefix not in text:
    errs.append("the guide does not say which kube-state-metrics allowlist the label needs")
case("guide", errs)

with open(out, "w") as f:
    yaml.safe_dump({"groups": groups}, f, sort_keys=False)
sys.exit(bad)
EOF

PATH=$PATH:$TOPDIR/.tools/bin
if ! command -v promtool >/dev/null 2>&1 && [ "${REQUIRE_PROMTOOL:-0}" = 1 ]; then
	nok "alerting/promtool" "REQUIRE_PROMTOOL=1 (CI) and no promtool on PATH or in .tools/bin (scripts/deps.sh test)"
	exit 1
fi
if ! command -v promtool >/dev/null 2>&1; then
	skip "alerting/promtool-check" "promtool is not installed (sh scripts/deps.sh test; Debian: prometheus)"
	skip "alerting/promtool-test" "promtool is not installed (sh scripts/deps.sh test; Debian: prometheus)"
	exit $failed
fi
if promtool check rules "$tmp/rules.yaml" >"$tmp/check.out" 2>&1; then
	echo "ok alerting/promtool-check: $(grep -o 'SUCCESS: [0-9]* rules found' "$tmp/check.out")"
else
	echo "not ok alerting/promtool-check: $(tr '\n' ' ' <"$tmp/check.out" | head -c 400)"
	failed=1
fi
# Four TCPXO nodes and one that lost its profile, as kube-state-metrics exports them, over 15 minutes:
# a: False all along (fires at 10 m, not at 9 m); b: True; c: Unknown; d: False for 5 minutes only; e:
# False but profile none (not selected). The ratio: 1 ready (b) of 4 TCPXO nodes, then 2 of 4. The
# alerts' annotations are the rule's, with the node filled in.
$PY - "$tmp/rules.yaml" "$tmp/test.yaml" <<'EOF'
import sys, yaml

rules, out = sys.argv[1:3]
alert = [r for g in yaml.safe_load(open(rules))["groups"] for r in g["rules"] if r.get("alert") == "FabricNotReady"][0]
ann = lambda node: {k: v.replace("{{ $labels.node }}", node) for k, v in alert["annotations"].items()}
series = lambda name, labels, values: {"series": "%s{%s}" % (name, ",".join('%s="%s"' % kv for kv in labels.items())),
                                       "values": values}
cond = lambda node, values: series("kube_node_status_condition", {"node": node, "condition": "FabricReady",
                                                                  "status": "true"}, values)
prof = lambda node, p: series("kube_node_labels", {"node": node, "label_fabric_aicr_run_profile": p}, "1x15")
fired = lambda node: {"exp_labels": {"node": node, "condition": "FabricReady", "status": "true", "severity": "warning"},
                      "exp_annotations": ann(node)}
test = {"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": [{
    "interval": "1m",
    "input_series": [cond("a", "0x15"), cond("b", "1x15"), cond("c", "0x15"), cond("d", "0 0 0 0 0 1x10"),
                     cond("e", "0x15"), prof("a", "tcpxo"), prof("b", "tcpxo"), prof("c", "tcpxo"), prof("d", "tcpxo"),
                     prof("e", "none")],
    "alert_rule_test": [{"eval_time": "9m", "alertname": "FabricNotReady", "exp_alerts": []},
                        {"eval_time": "10m", "alertname": "FabricNotReady", "exp_alerts": [fired("a"), fired("c")]}],
    "promql_expr_test": [{"expr": "tcpxo:fabric_ready:ratio", "eval_time": "2m", "exp_samples": [{"labels": "tcpxo:fabric_ready:ratio", "value": 0.25}]},
                         {"expr": "tcpxo:fabric_ready:ratio", "eval_time": "10m", "exp_samples": [{"labels": "tcpxo:fabric_ready:ratio", "value": 0.5}]}],
}]}
yaml.safe_dump(test, open(out, "w"), sort_keys=False)
EOF
if (cd "$tmp" && promtool test rules test.yaml) >"$tmp/test.out" 2>&1; then
	ok "alerting/promtool-test: FabricNotReady fires at 10 m for the nodes False or Unknown since the start, not for one ready after 5 m nor one without profile tcpxo; the ratio 1/4 then 2/4"
else
	echo "not ok alerting/promtool-test: $(tr '\n' ' ' <"$tmp/test.out" | head -c 600)"
	failed=1
fi
exit $failed
