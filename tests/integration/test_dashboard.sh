#!/bin/sh
# test_dashboard.sh - the Grafana dashboard (docs/examples/grafana-dashboard.json) imports and queries what
# exists: it parses; its panels have unique ids, sit on the 24-column grid without overlapping, and
# query through the one Prometheus data source variable; every selector selects the Cluster variable; it
# covers fleet readiness, nodes without an agent (from the series, honouring $node, never ALERTS), failing
# checks, transport states, API errors and relists, observation duration, agents that cannot publish,
# the DaemonSet's count, the agents' restarts and memory; every metric name it reads is
# one of the agent's families (tests/integration/data/metric-families.txt), a recording rule of
# docs/examples/prometheusrule.yaml, kube-state-metrics' or ALERTS of one of its alerts. With promtool on PATH or in .tools/bin,
# every PromQL expression (panel targets and the variables' label_values metrics), with the Grafana
# variables replaced by valid values, is wrapped as a recording rule and must pass `promtool check
# rules`; a deliberately broken one must fail it. Without promtool that case skips, or fails with
# REQUIRE_PROMTOOL=1 (CI).
# Env: TOPDIR. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
DASH=$TOPDIR/docs/examples/grafana-dashboard.json
PY=/usr/bin/python3
failed=0
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-dashboard.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

if ! $PY -c 'import yaml' 2>/dev/null; then
	skip "dashboard" "python3-yaml is not installed (sh scripts/deps.sh test)"
	exit 0
fi

# The structure checks; they also write the expressions as recording rules ($tmp/exprs.yaml), how many
# expressions the dashboard holds ($tmp/exprs.count) and the rules with one broken expression added
# ($tmp/broken.yaml).
PYTHONPATH=$TOPDIR/tests/lib $PY - "$DASH" "$TOPDIR/docs/examples/prometheusrule.yaml" \
	"$TOPDIR/tests/integration/data/metric-families.txt" "$tmp" <<'EOF' || failed=1
import json, os, re, sys, yaml
import promnames

dash_file, rule_file, fam_file, tmp = sys.argv[1:5]
case = promnames.Cases("dashboard")


try:
    d = json.load(open(dash_file))
except ValueError as e:
    case("parses", ["not JSON: %s" % e])
    sys.exit(1)
errs = []
for k, t in (("title", str), ("uid", str), ("schemaVersion", int), ("panels", list), ("templating", dict)):
    if not isinstance(d.get(k), t):
        errs.append("%s: %r, want a %s" % (k, d.get(k), t.__name__))
if d.get("id") is not None:
    errs.append("id %r: an importable dashboard has id null" % d.get("id"))
if not re.fullmatch(r"[A-Za-z0-9_-]{1,40}", str(d.get("uid"))):
    errs.append("uid %r is not a Grafana uid (40 characters of [A-Za-z0-9_-] at most)" % d.get("uid"))
if errs:
    case("parses", errs)
    sys.exit(1)

# The variables: one data source variable of type prometheus; every other variable queries through it.
tvars = (d["templating"] or {}).get("list") or []
names = {v.get("name") for v in tvars}
dsvars = [v for v in tvars if v.get("type") == "datasource"]
errs = []
if len(dsvars) != 1 or dsvars[0].get("query") != "prometheus":
    errs.append("want one variable of type datasource with query prometheus, got %s" % [(v.get("name"), v.get("query")) for v in dsvars])
DSREF = {"type": "prometheus", "uid": "${%s}" % (dsvars[0]["name"] if dsvars else "datasource")}
for v in tvars:
    if v.get("type") == "query" and v.get("datasource") != DSREF:
        errs.append("variable %s queries %r, not %r" % (v.get("name"), v.get("datasource"), DSREF))
if len(names) != len(tvars):
    errs.append("duplicate variable names")
case("parses", errs, "%r, %d top-level panels, variables %s" % (d["title"], len(d["panels"]), sorted(names)))

# The panels: rows' nested ones too; unique ids; on the grid, no two overlapping; every query panel
# and target through the data source variable, with unique refIds and an expression.
flat = []
for p in d["panels"]:
    flat.append(p)
    flat.extend(p.get("panels") or [])
errs = []
ids = [p.get("id") for p in flat]
if len(set(ids)) != len(ids) or None in ids:
    errs.append("panel ids not unique: %s" % ids)
cells = {}
for p in flat:
    g = p.get("gridPos") or {}
    if not all(isinstance(g.get(k), int) for k in "xywh") or g["x"] < 0 or g["w"] < 1 or g["h"] < 1 or g["x"] + g["w"] > 24:
        errs.append("panel %s %r: gridPos %r is off the 24-column grid" % (p.get("id"), p.get("title"), g))
        continue
    if p not in d["panels"]:
        continue  # a collapsed row's panels: placed when it opens
    area = [(x, y) for x in range(g["x"], g["x"] + g["w"]) for y in range(g["y"], g["y"] + g["h"])]
    hit = [c for c in area if c in cells]
    if hit:
        errs.append("panels %s and %s overlap at x=%d y=%d" % (cells[hit[0]], p.get("id"), hit[0][0], hit[0][1]))
    cells.update((c, p.get("id")) for c in area)
queries = []  # (where, expr)
for p in flat:
    if p.get("type") == "row":
        continue
    where = "panel %s %r" % (p.get("id"), p.get("title"))
    if p.get("datasource") != DSREF:
        errs.append("%s: datasource %r, want %r" % (where, p.get("datasource"), DSREF))
    if not p.get("title") or not p.get("description"):
        errs.append("%s: needs a title and a description" % where)
    ts = p.get("targets") or []
    if not ts:
        errs.append("%s: no targets" % where)
    refs = [t.get("refId") for t in ts]
    if len(set(refs)) != len(refs):
        errs.append("%s: duplicate refIds %s" % (where, refs))
    for t in ts:
        if t.get("datasource") != DSREF:
            errs.append("%s target %s: datasource %r" % (where, t.get("refId"), t.get("datasource")))
        if not (t.get("expr") or "").strip():
            errs.append("%s target %s: no expr" % (where, t.get("refId")))
        else:
            queries.append(("%s target %s" % (where, t.get("refId")), t["expr"]))
for v in tvars:
    if v.get("type") != "query":
        continue
    q = v.get("query")
    q = q.get("query") if isinstance(q, dict) else q
    m = re.fullmatch(r"\s*label_values\(\s*(.+?)\s*,\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)\s*", q or "")
    if not m:
        errs.append("variable %s: query %r is not label_values(SELECTOR, LABEL)" % (v.get("name"), q))
    else:
        queries.append(("variable %s" % v.get("name"), m.group(1)))
case("panels", errs, "%d panels, %d expressions" % (len([p for p in flat if p.get("type") != "row"]), len(queries)))

# What the issue asks the dashboard to show, by the series each part reads (through an alert's
# ALERTS, what the alert's expr reads).
rgroups = yaml.safe_load(open(rule_file))["spec"]["groups"]
records = {r["record"] for g in rgroups for r in g["rules"] if "record" in r}
alerts = {r["alert"]: r["expr"] for g in rgroups for r in g["rules"] if "alert" in r}
errs = []
read = [n for _, e in queries for n in promnames.names(e)]
read += [n for _, e in queries for a in promnames.alertnames(e) if a in alerts for n in promnames.names(alerts[a])]
for what, name in (("fleet readiness", "tcpxo:fabric_ready:ratio"), ("fleet readiness (agents)", "tcpxo_node_ready"),
                   ("nodes without the agent", "tcpxo_build_info"), ("not-ready nodes by failing check", "tcpxo_check_status"),
                   ("pods by transport state", "tcpxo_pod_transport"), ("API errors", "tcpxo_api_requests_total"),
                   ("relists", "tcpxo_watch_relists_total"), ("observation duration", "tcpxo_observation_duration_seconds_bucket"),
                   ("agents that cannot publish", "tcpxo_node_publish_in_sync"),
                   ("agents missing by the DaemonSet's count (GKE's curated kube-state-metrics)",
                    "kube_daemonset_status_desired_number_scheduled"),
                   ("agent restarts", "process_start_time_seconds"), ("agent memory", "process_resident_memory_bytes")):
    if name not in read:
        errs.append("no panel shows %s (%s)" % (what, name))
# Nodes without an agent: from the series, among the nodes $node selects; never from ALERTS (pending for 15
# minutes, and blind to $node).
absent = [e for _, e in queries if "tcpxo:fabric_node:info" in e and "unless" in e and "tcpxo_build_info" in e]
if not absent or not all('node=~"$node"' in e for e in absent):
    errs.append("no panel counts the nodes without an agent from tcpxo:fabric_node:info unless tcpxo_build_info, "
                "selecting node=~\"$node\"")
if any(promnames.alertnames(e) for _, e in queries):
    errs.append("a panel reads ALERTS: %s" % [w for w, e in queries if promnames.alertnames(e)])
if not any('status="fail"' in e or 'status=~"fail' in e for _, e in queries if "tcpxo_check_status" in e):
    errs.append("no panel selects failing checks (tcpxo_check_status{status=\"fail\"})")
if not any(re.search(r'code!~"2\.\."', e) for _, e in queries if "tcpxo_api_requests_total" in e):
    errs.append("no panel selects API errors (code!~\"2..\")")
case("coverage", errs)

# A GMP data source spans every cluster of a project: a Cluster variable, and every selector of every
# query (the variables' own but Cluster's) selects cluster=~"$cluster" (which also matches series without
# the label: a one-cluster Prometheus needs nothing).
errs = []
cvar = [v for v in tvars if v.get("name") == "cluster"]
if len(cvar) != 1 or cvar[0].get("type") != "query" or not cvar[0].get("includeAll") or cvar[0].get("allValue") != ".*":
    errs.append("want one query variable cluster with an All of .*, got %r" % cvar)
checked = 0
for w, e in queries:
    if w == "variable cluster":
        continue
    plain = re.sub(r'"(?:[^"\\]|\\.)*"', lambda m: m.group(0).replace("{", "(").replace("}", ")"), e)
    for n in sorted(promnames.names(e)):
        for m in re.finditer(r"(?<![\w:])%s(?![\w:])(\s*\{[^}]*\})?" % re.escape(n), e):
            checked += 1
            if not m.group(1) or 'cluster=~"$cluster"' not in m.group(1):
                errs.append("%s: %s selects no cluster=~\"$cluster\"" % (w, n))
    for m in re.finditer(r"(?<![\w:\]])\{[^}]*__name__[^}]*\}", plain):
        checked += 1
        if 'cluster=~"$cluster"' not in e:
            errs.append("%s: its selector selects no cluster=~\"$cluster\"" % w)
case("cluster", errs, "%d selectors select cluster=~\"$cluster\"" % checked)

# Every name read exists.
fams = promnames.families(fam_file)
errs = []
for w, e in queries:
    u = promnames.unknown(e, fams, records, alerts)
    if u:
        errs.append("%s reads %s" % (w, ", ".join(u)))
case("metric-names", errs)

# Grafana's variables replaced by values of their kind: the built-in intervals by durations, the
# dashboard's own by a multi-value regex as Grafana writes it. Any $ left over is a variable this
# test does not know: a failure, not a guess.
builtin = {"__rate_interval": "5m", "__interval": "1m", "__range": "1h", "__range_s": "3600", "__interval_ms": "60000"}
values = dict(builtin)
for v in tvars:
    if v.get("type") != "datasource":
        values[v["name"]] = "(node-a|node-b)"


VAR = re.compile(r"\$\{(\w+)(?::[\w-]+)?\}|\$(\w+)|\[\[(\w+)(?::[\w-]+)?\]\]")


def substitute(expr):
    def one(m):
        name = m.group(1) or m.group(2) or m.group(3)
        if name not in values:
            raise KeyError(name)
        return values[name]
    return VAR.sub(one, expr)


errs = []
rules = []
for i, (w, e) in enumerate(queries):
    try:
        s = substitute(e)
    except KeyError as k:
        errs.append("%s: unknown variable $%s" % (w, k.args[0]))
        continue
    if "$" in s:
        errs.append("%s: a $ left after substitution: %r" % (w, s))
        continue
    rules.append({"record": "dashboard:expr_%02d" % i, "expr": s, "labels": {"where": w}})
case("variables", errs, "%s replaced" % ", ".join("$" + k for k in sorted(values)))
with open(os.path.join(tmp, "exprs.yaml"), "w") as f:
    yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, f, sort_keys=False)
with open(os.path.join(tmp, "exprs.count"), "w") as f:
    f.write("%d\n" % len(queries))
broken = rules + [{"record": "dashboard:broken", "expr": "sum(rate(tcpxo_build_info[5m])", "labels": {"where": "broken"}}]
with open(os.path.join(tmp, "broken.yaml"), "w") as f:
    yaml.safe_dump({"groups": [{"name": "dashboard", "rules": broken}]}, f, sort_keys=False)
sys.exit(case.bad)
EOF

need_promtool dashboard promtool-check promtool-check-can-fail || exit $failed
if [ ! -s "$tmp/exprs.yaml" ]; then
	nok "dashboard/promtool-check" "no expressions extracted (see above)"
elif promtool check rules "$tmp/exprs.yaml" >"$tmp/check.out" 2>&1; then
	# promtool must have read every expression the dashboard holds, not fewer.
	found=$(sed -n 's/.*SUCCESS: \([0-9]*\) rules found.*/\1/p' "$tmp/check.out" | head -n 1)
	if [ "$found" = "$(cat "$tmp/exprs.count")" ]; then
		ok "dashboard/promtool-check: every expression parses (SUCCESS: $found rules found, as many as the dashboard holds)"
	else
		nok "dashboard/promtool-check" "promtool found ${found:-no} rules, the dashboard holds $(cat "$tmp/exprs.count") expressions"
	fi
else
	nok "dashboard/promtool-check" "$(tr '\n' ' ' <"$tmp/check.out" | head -c 600)"
fi
# The check can fail: the same expressions and one with an unclosed parenthesis.
if [ ! -s "$tmp/broken.yaml" ]; then
	nok "dashboard/promtool-check-can-fail" "no expressions extracted"
elif promtool check rules "$tmp/broken.yaml" >"$tmp/broken.out" 2>&1; then
	nok "dashboard/promtool-check-can-fail" "promtool accepted sum(rate(tcpxo_build_info[5m])"
else
	ok "dashboard/promtool-check-can-fail: promtool rejects an unclosed parenthesis among them"
fi
exit $failed
