"""promnames.py - the metric names a PromQL expression reads, held to the families that exist.

promtool accepts any well-formed name, so a typo (tcpxo_node_redy) would pass its checks and give a
rule that never fires or a panel that stays empty. test_alerting.sh and test_dashboard.sh import
this to refuse names the agent does not export (tests/integration/data/metric-families.txt, its
process_* families too), the
recording rules do not define, or kube-state-metrics does not give (Prometheus' own ALERTS only for an
alert the rules define); and prints their cases' lines
through Cases, in tests/lib/tap.sh's dialect.
"""
import re

# kube-state-metrics' series the shipped rules and dashboard may read. GKE's curated package
# (https://cloud.google.com/kubernetes-engine/docs/how-to/kube-state-metrics: DaemonSet, Pod,
# Deployment, StatefulSet, HPA, storage; no node metrics) has the kube_daemonset_status_* and
# kube_pod_container_status_waiting_reason ones; the node ones and the restart counter need a
# kube-state-metrics of the cluster's own.
KSM = {"kube_node_labels", "kube_node_status_condition", "kube_daemonset_status_desired_number_scheduled",
       "kube_daemonset_status_number_ready", "kube_pod_container_status_waiting_reason",
       "kube_pod_container_status_restarts_total"}
_KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or",
             "unless", "offset", "inf", "nan", "atan2",
             # aggregations, which may be followed by `by (...)` rather than by their parenthesis
             "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
             "bottomk", "topk", "quantile"}


def families(path):
    """The series names metric-families.txt allows (a histogram's _bucket, _sum and _count too).

    It also proves unknown() can fail with them: the typo tcpxo_node_redy must come back, or the
    metric-names cases would pass whatever the rules and the dashboard read."""
    names = set()
    for line in open(path):
        line = line.split("#", 1)[0].split()
        if not line:
            continue
        names.add(line[0])
        if len(line) > 1 and line[1] == "histogram":
            names.update(line[0] + s for s in ("_bucket", "_sum", "_count"))
    if unknown("tcpxo_node_redy", names, set()) != ["tcpxo_node_redy"]:
        raise SystemExit("promnames: unknown() does not report tcpxo_node_redy with %s's families: "
                         "the metric-names checks could pass vacuously" % path)
    return names


def names(expr):
    """The metric names expr selects: no functions, keywords, label names, strings or durations."""
    e = re.sub(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`', '""', expr)
    e = re.sub(r"\{[^}]*\}", "{}", e)
    e = re.sub(r"\[[^\]]*\]", "[]", e)
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", r"\1", e)
    out = set()
    for m in re.finditer(r"(?<![\w:.])([a-zA-Z_:][a-zA-Z0-9_:]*)(\s*\()?", e):
        if m.group(2) or m.group(1).lower() in _KEYWORDS:
            continue
        out.add(m.group(1))
    return out


def alertnames(expr):
    """The alertname each ALERTS selector of expr matches by equality, in order; None for one that
    names no single alert."""
    out = []
    for m in re.finditer(r"(?<![\w:])ALERTS\b\s*(\{[^}]*\})?", expr):
        a = re.search(r'\balertname\s*=\s*"([^"]*)"', m.group(1) or "")
        out.append(a.group(1) if a else None)
    return out


def unknown(expr, allowed, records, alerts=()):
    """The names in expr that are neither an agent family (its process_* among them), a recording
    rule, KSM's nor ALERTS of one of alerts (the rules' alert names): a list."""
    bad = []
    for n in sorted(names(expr)):
        if n in allowed:
            continue
        if n == "ALERTS":
            bad += ["ALERTS{alertname=%r}" % a for a in alertnames(expr) if a not in alerts]
        elif n.startswith("tcpxo_") and n not in allowed:
            bad.append(n)
        elif n.startswith("tcpxo:") and n not in records:
            bad.append(n)
        elif n.startswith("kube_") and n not in KSM:
            bad.append(n)
        elif not n.startswith(("tcpxo_", "tcpxo:", "kube_")):
            bad.append(n)
    return bad


class Cases:
    """The cases of one script: case = Cases("alerting"); case(name, errs, detail) prints
    `ok alerting/name[: detail]`, or `not ok alerting/name: ...` with the first 8 of errs (and bad
    turns 1: the script ends with sys.exit(case.bad))."""

    def __init__(self, script):
        self.script, self.bad = script, 0

    def __call__(self, name, errs, detail=""):
        if errs:
            self.bad = 1
            print("not ok %s/%s: %s" % (self.script, name, "; ".join(errs[:8]) + (" ..." if len(errs) > 8 else "")))
        else:
            print("ok %s/%s%s" % (self.script, name, ": " + detail if detail else ""))
