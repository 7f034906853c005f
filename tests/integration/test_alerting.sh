#!/bin/sh
# test_alerting.sh - the shipped alerting rules (docs/examples/prometheusrule.yaml, and gmp-rules.yaml for
# GKE Managed Prometheus) and the user guide's PromQL, held to what the agent and kube-state-metrics
# publish: the two files carry the same groups; the alerts key on the machine type (the DaemonSet's node
# affinity), never on the agent's own profile label; every metric name exists
# (tests/integration/data/metric-families.txt); the guide shows the same rule and ratio; GMP's rule
# schema knows every field. (The scrape configs in docs/examples, which must add the `node` label and
# leave honorLabels off as the rules expect, are tests/lib/check_manifests.py's metrics-port case.)
# With promtool on PATH or in .tools/bin (scripts/deps.sh test puts it there from Debian's prometheus
# package), the rules (once: the two files' groups are equal) are also checked by Prometheus' own
# parser and run through tests/integration/data/alerting.test.yaml (every alert firing and not
# firing; one scenario group per failure mode and one healthy group per kind of kube-state-metrics,
# each asserting every alert: the "silence" case holds the file to that shape); without it those cases skip, or fail with REQUIRE_PROMTOOL=1 (CI sets it: there
# deps.sh must have provided it).
# Env: TOPDIR. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
EX=$TOPDIR/docs/examples
DATA=$TOPDIR/tests/integration/data
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

# The text checks; they also write the plain rules file promtool reads ($tmp/rules/rules.yaml).
PYTHONPATH=$TOPDIR/tests/lib $PY - "$EX/prometheusrule.yaml" "$EX/gmp-rules.yaml" "$TOPDIR/docs/user-guide.md" \
	"$TOPDIR/agent/cli_parse.c" "$TOPDIR/manifests/daemonset/daemonset.yaml" "$DATA/metric-families.txt" "$tmp" \
	"$DATA/alerting.test.yaml" <<'EOF' || failed=1
import os, re, sys, yaml
import promnames

rule_file, gmp_file, guide, cli, ds_file, fam_file, tmp, test_file = sys.argv[1:9]
case = promnames.Cases("alerting")


def load(path, api, kind, namespaced):
    errs = []
    try:
        docs = list(yaml.safe_load_all(open(path)))
    except yaml.YAMLError as e:
        return [], ["%s: %s" % (os.path.basename(path), e)]
    if len(docs) != 1 or not isinstance(docs[0], dict):
        return [], ["%s: %d documents, want one object" % (os.path.basename(path), len(docs))]
    d = docs[0]
    if (d.get("apiVersion"), d.get("kind")) != (api, kind):
        errs.append("%s: %s %s, want %s %s" % (os.path.basename(path), d.get("apiVersion"), d.get("kind"), api, kind))
    if ("namespace" in (d.get("metadata") or {})) != namespaced:
        errs.append("%s: metadata.namespace %s" % (os.path.basename(path), "missing" if namespaced else "set on a cluster-scoped kind"))
    return (d.get("spec") or {}).get("groups") or [], errs


norm = lambda s: " ".join(s.split())
groups, errs = load(rule_file, "monitoring.coreos.com/v1", "PrometheusRule", True)
rules = [r for g in groups for r in g.get("rules", [])]
alerts = {r["alert"]: r for r in rules if "alert" in r}
records = {r["record"]: r for r in rules if "record" in r}
case("parses", errs, "%d group(s), %d alert(s), %d recording rule(s)" % (len(groups), len(alerts), len(records)))

# GKE Managed Prometheus: a ClusterRules (a namespaced Rules reads only its namespace's series, and the
# node alerts join kube-state-metrics' with the agent's), holding exactly the same groups.
ggroups, errs = load(gmp_file, "monitoring.googleapis.com/v1", "ClusterRules", False)
if not errs and ggroups != groups:
    errs.append("gmp-rules.yaml's spec.groups differ from prometheusrule.yaml's: change both")
# GMP's RuleGroup and Rule (pkg/operator/apis/monitoring/v1/rules_types.go) know only these fields;
# its CRD would prune any other (keep_firing_for, limit) without a word.
for g in ggroups:
    errs += ["group %s: field %s, which GMP's RuleGroup lacks" % (g.get("name"), k)
             for k in sorted(set(g) - {"name", "interval", "rules"})]
    errs += ["%s: field %s, which GMP's Rule lacks" % (r.get("alert") or r.get("record"), k)
             for r in g.get("rules", []) for k in sorted(set(r) - {"record", "alert", "expr", "for", "labels", "annotations"})]
case("gmp-same-groups", errs)

# The alerts that must exist, each with a duration, a severity and both annotations.
want = {"FabricNotReady": "10m", "FabricAgentAbsent": "15m", "FabricAgentNotObserving": "15m",
        "FabricPodTransportDegraded": "5m", "FabricRulesMissNode": "15m", "FabricAgentReportsNotReady": "10m",
        "FabricAgentCannotPublish": "15m", "FabricAgentCrashLooping": "10m", "FabricAgentsMissing": "15m"}
errs = []
if sorted(alerts) != sorted(want):
    errs.append("alerts %s, want %s" % (sorted(alerts), sorted(want)))
for name, a in sorted(alerts.items()):
    if a.get("for") != want.get(name):
        errs.append("%s: for %r, want %r" % (name, a.get("for"), want.get(name)))
    if (a.get("labels") or {}).get("severity") not in ("warning", "critical"):
        errs.append("%s: no severity label" % name)
    ann = a.get("annotations") or {}
    if not ann.get("summary") or not ann.get("description"):
        errs.append("%s: needs a summary and a description" % name)
case("alerts", errs, ", ".join("%s for %s" % (n, want[n]) for n in sorted(want)))

# Keyed on the machine type: the node set is the DaemonSet's node affinity, in one recording rule,
# and no rule reads the agent's own profile label (it turns `none` exactly when the NICs vanish). What
# each alert does is alerting.test.yaml's to say, through promtool below.
prefix = re.search(r'\.prefix = "([^"]+)"', open(cli).read()).group(1)
profile = "label_" + re.sub(r"[^a-zA-Z0-9_]", "_", prefix + "profile")
ds = yaml.safe_load(open(ds_file))
types = [v for t in ds["spec"]["template"]["spec"]["affinity"]["nodeAffinity"]
         ["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
         for e in t.get("matchExpressions", []) if e.get("key") == "node.kubernetes.io/instance-type"
         for v in e.get("values", [])]
errs = []
node_info = norm((records.get("tcpxo:fabric_node:info") or {}).get("expr", ""))
need = 'max by (node) (kube_node_labels{label_node_kubernetes_io_instance_type=~"%s"})' % "|".join(types)
if not types:
    errs.append("no node.kubernetes.io/instance-type values in the DaemonSet's node affinity")
elif node_info != need:
    errs.append("tcpxo:fabric_node:info is %r, want %r (the DaemonSet's machine types)" % (node_info, need))
for r in rules:
    if profile in r["expr"]:
        errs.append("%s reads the agent's own %s" % (r.get("alert") or r.get("record"), profile))
case("machine-type", errs, "instance type =~ %s" % "|".join(types))

# Every name read exists: the agent's families, these recording rules, kube-state-metrics'.
fams = promnames.families(fam_file)
errs = []
for r in rules:
    u = promnames.unknown(r["expr"], fams, records)
    if u:
        errs.append("%s reads %s" % (r.get("alert") or r.get("record"), ", ".join(u)))
case("metric-names", errs)

# The user guide shows the same alert expr and the same ratio, and says what the inputs need.
text = open(guide).read()
exprs = {n: norm(a.get("expr", "")) for n, a in alerts.items()}
errs = []
m = re.search(r"- alert: FabricNotReady\n  expr: \|\n((?:    .*\n)+)  for: (\S+)", text)
if not m:
    errs.append("the guide shows no FabricNotReady rule")
elif norm(m.group(1)) != exprs.get("FabricNotReady") or m.group(2) != alerts["FabricNotReady"].get("for"):
    errs.append("the guide's rule differs from the file's: %r for %s" % (norm(m.group(1)), m.group(2)))
ratio = records.get("tcpxo:fabric_ready:ratio")
lines = [l for l in text.splitlines() if l.startswith("sum(kube_node_status_condition")]
if not ratio:
    errs.append("no recording rule tcpxo:fabric_ready:ratio")
elif len(lines) != 1 or norm(lines[0]) != norm(ratio["expr"]):
    errs.append("the guide's PromQL line %r is not the recording rule's %r" % (lines, norm(ratio["expr"])))
for need in ["--metric-labels-allowlist=nodes=[node.kubernetes.io/instance-type", "honorLabels",
             "exported_pod", "ClusterRules", "gmp-rules.yaml"] + sorted(alerts):
    if need not in text:
        errs.append("the guide does not say %r" % need)
case("guide", errs)

# Alert silence (TESTING.md): alerting.test.yaml's scenario groups are one per failure mode and one healthy
# group per kind of kube-state-metrics; each asserts every alert at two eval times or more (exp_alerts: []
# where it must stay quiet), so an alert that fires where it should not fails promtool; in each failure mode
# an alert fires that every healthy group asserts quiet at each of its times. promtool checks the values.
t = yaml.safe_load(open(test_file))
tgroups = t.get("tests") or []
errs = []
by_name = {g.get("name"): g for g in tgroups}
healthy = [g for g in tgroups if str(g.get("name", "")).startswith("healthy: ")]
failure = [g for g in tgroups if str(g.get("name", "")).startswith("failure: ")]
for need, kind in (("curated", healthy), ("metric-labels-allowlist", healthy), ("publish denied", failure),
                   ("crash loop", failure), ("curated kube-state-metrics package only", failure),
                   ("agent missing on one node", failure)):
    if not any(need in g["name"] for g in kind):
        errs.append("no %s group whose name says %r" % ("healthy" if kind is healthy else "failure", need))
if len(by_name) != len(tgroups) or None in by_name:
    errs.append("every test group needs a name of its own")
for g in tgroups:
    times = {}
    for c in g.get("alert_rule_test") or []:
        times.setdefault(c["alertname"], set()).add(c["eval_time"])
    thin = sorted(a for a in alerts if len(times.get(a, ())) < 2)
    if thin:
        errs.append("group %r asserts %s at fewer than two times" % (g.get("name"), ", ".join(thin)))
quiet = lambda g, a: all(not c.get("exp_alerts") for c in g.get("alert_rule_test") or [] if c["alertname"] == a)
fired = []
for g in failure:
    firing = sorted({c["alertname"] for c in g.get("alert_rule_test") or [] if c.get("exp_alerts")})
    ok_ = [a for a in firing if all(quiet(h, a) for h in healthy)]
    if not ok_:
        errs.append("failure group %r: no alert fires that every healthy group holds quiet (firing: %s)" % (g["name"], firing))
    fired.append("%s: %s" % (g["name"][len("failure: "):], "/".join(ok_)))
case("silence", errs, "%d healthy and %d failure groups, every alert asserted in each; %s" % (len(healthy), len(failure), "; ".join(fired)))

# One plain rules file for promtool: gmp-same-groups holds gmp-rules.yaml's groups equal to these.
os.makedirs(os.path.join(tmp, "rules"))
with open(os.path.join(tmp, "rules", "rules.yaml"), "w") as f:
    yaml.safe_dump({"groups": groups}, f, sort_keys=False)
sys.exit(case.bad)
EOF

need_promtool alerting promtool-check promtool-test promtool-test-can-fail promtool-test-can-fail-curated || exit $failed

# The unit test, with each expected alert's annotations rendered from the rule's own templates
# ({{ $labels.X }} only; a label the alert does not carry is a failure, not an empty string).
fill_annotations() {  # $1 = dir holding rules.yaml: writes $1/test.yaml
	$PY - "$1/rules.yaml" "$DATA/alerting.test.yaml" "$1/test.yaml" <<'EOF'
import re, sys, yaml

rules, test, out = sys.argv[1:4]
alerts = {r["alert"]: r for g in yaml.safe_load(open(rules))["groups"] for r in g["rules"] if "alert" in r}
t = yaml.safe_load(open(test))


def render(tmpl, labels, where):
    def one(m):
        if m.group(1) not in labels:
            sys.exit("%s: the template names $labels.%s, which the alert does not carry" % (where, m.group(1)))
        return labels[m.group(1)]
    s = re.sub(r"\{\{ \$labels\.(\w+) \}\}", one, tmpl)
    if "{{" in s:
        sys.exit("%s: a template this test cannot render: %r" % (where, s))
    return s


for g in t["tests"]:
    for c in g.get("alert_rule_test", []):
        rule = alerts.get(c["alertname"])
        if rule is None:
            sys.exit("alerting.test.yaml tests %s, which the rules lack" % c["alertname"])
        for e in c.get("exp_alerts") or []:
            labels = dict(e["exp_labels"])
            e["exp_annotations"] = {k: render(v, labels, c["alertname"]) for k, v in rule["annotations"].items()}
yaml.safe_dump(t, open(out, "w"), sort_keys=False)
EOF
}

r=$tmp/rules
if [ ! -s "$r/rules.yaml" ]; then
	nok "alerting/promtool-check" "no rules extracted (see above)"
	nok "alerting/promtool-test" "no rules extracted (see above)"
	exit 1
fi
if promtool check rules "$r/rules.yaml" >"$r/check.out" 2>&1; then
	ok "alerting/promtool-check: $(grep -o 'SUCCESS: [0-9]* rules found' "$r/check.out")"
else
	nok "alerting/promtool-check" "$(tr '\n' ' ' <"$r/check.out" | head -c 400)"
fi
if ! fill_annotations "$r" 2>"$r/fill.out"; then
	nok "alerting/promtool-test" "$(tr '\n' ' ' <"$r/fill.out" | head -c 400)"
elif (cd "$r" && promtool test rules test.yaml) >"$r/test.out" 2>&1; then
	ok "alerting/promtool-test: FabricNotReady (profile none too), FabricAgentAbsent (never, gone, back), FabricAgentNotObserving, FabricPodTransportDegraded (each state), FabricRulesMissNode (an agent on a machine type the rules miss) fire and stay quiet as alerting.test.yaml says; a CPU node never; in each failure group (publish denied, crash loop with either kube-state-metrics, curated package only, an agent missing) its alert fires and every other stays quiet, and nothing fires on the healthy nodes of either kube-state-metrics"
else
	nok "alerting/promtool-test" "$(tr '\n' ' ' <"$r/test.out" | head -c 600)"
fi

# The unit test can fail: the rule keyed on the agent's profile label (the shipped rule before issue 24)
# must miss mega-none's alert.
mkdir "$tmp/neg"
sed 's/label_node_kubernetes_io_instance_type=~"[^"]*"/label_fabric_aicr_run_profile="tcpxo"/' \
	"$r/rules.yaml" >"$tmp/neg/rules.yaml"
if ! grep -q label_fabric_aicr_run_profile "$tmp/neg/rules.yaml"; then
	nok "alerting/promtool-test-can-fail" "could not rewrite the machine-type selector"
elif ! fill_annotations "$tmp/neg" 2>/dev/null; then
	nok "alerting/promtool-test-can-fail" "the annotations of the rewritten rules could not be rendered"
elif (cd "$tmp/neg" && promtool test rules test.yaml) >"$tmp/neg/test.out" 2>&1; then
	nok "alerting/promtool-test-can-fail" "rules keyed on the profile label passed alerting.test.yaml"
elif grep -q 'mega-none' "$tmp/neg/test.out"; then
	ok "alerting/promtool-test-can-fail: keyed on the profile label, mega-none's FabricNotReady is missed and the test says so"
else
	nok "alerting/promtool-test-can-fail" "failed, but not on mega-none: $(tr '\n' ' ' <"$tmp/neg/test.out" | head -c 400)"
fi

# ... and the silence can be broken: FabricRulesMissNode as it was before issue 32 (an agent on any node
# tcpxo:fabric_node:info lacks, kube-state-metrics listing it or not) fires on every healthy node of GKE's
# curated package, which has no node metrics.
mkdir "$tmp/neg2"
$PY - "$r/rules.yaml" "$tmp/neg2/rules.yaml" <<'EOF'
import sys, yaml
d = yaml.safe_load(open(sys.argv[1]))
for g in d["groups"]:
    for r in g["rules"]:
        if r.get("alert") == "FabricRulesMissNode":
            r["expr"] = "tcpxo_build_info unless on (node) tcpxo:fabric_node:info\n"
yaml.safe_dump(d, open(sys.argv[2], "w"), sort_keys=False)
EOF
if ! fill_annotations "$tmp/neg2" 2>/dev/null; then
	nok "alerting/promtool-test-can-fail-curated" "the annotations of the rewritten rules could not be rendered"
elif (cd "$tmp/neg2" && promtool test rules test.yaml) >"$tmp/neg2/test.out" 2>&1; then
	nok "alerting/promtool-test-can-fail-curated" "FabricRulesMissNode without kube_node_labels passed alerting.test.yaml"
elif grep -q "healthy: GKE's curated" "$tmp/neg2/test.out" && grep -q 'alertname: FabricRulesMissNode' "$tmp/neg2/test.out"; then
	ok "alerting/promtool-test-can-fail-curated: FabricRulesMissNode as it was fires on the curated package's healthy nodes, and the test says so"
else
	nok "alerting/promtool-test-can-fail-curated" "failed, but not on the curated healthy group: $(tr '\n' ' ' <"$tmp/neg2/test.out" | head -c 400)"
fi
exit $failed
