#!/bin/sh
# test_schema.sh - docs/schema/*.schema.json against every golden report, the attachment of every scenario and what --once publishes.
# Env: TOPDIR (repo root), BUILD, TCPXO_AGENT (the binary). Prints ok/not ok/skip per case.
#   report/*        each fixtures/*/expected.json is valid and sorted as DESIGN.md says
#   negative/*      broken reports, attachments and annotation values are rejected (the schemas are strict)
#   attachment/*    tests/helpers/attachment-dump on each scenario (netns, root): valid, < 4 KiB, and
#                   the same failed/warned checks as the golden report, failures first
#   published/*     --once against tests/lib/fakeapi.py (netns, root): every annotation value the agent
#                   published (annotations.schema.json, the JSON ones through their contentSchema) and
#                   the --once --json report are valid and agree with each other
#   workloads/*     `workloads --json --pods-file` on the fixture pods (netns, root) against
#                   workloads.schema.json, whose definitions must equal report.schema.json's
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
AGENT=${TCPXO_AGENT:-$TOPDIR/$BUILD/tcpxo-agent}
DUMP=$TOPDIR/$BUILD/tests/helpers/attachment-dump
PY=/usr/bin/python3
failed=0

if ! $PY -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
	nok "schema" "/usr/bin/python3 has no jsonschema with draft 2020-12 (apt-get install python3-jsonschema)"
	exit 1
fi
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-schema.XXXXXX") || exit 2
api_pid=""
cleanup() {
	[ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null && wait "$api_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT NODE_NAME

cat >"$tmp/v.py" <<'PYEOF'
import copy, json, os, sys
import warnings
from jsonschema import Draft202012Validator

DOCS = os.path.join(os.environ["TOPDIR"], "docs", "schema")
ORDER = ["machine-type", "gpus", "gpu-nics", "pairing", "links", "networks", "aperture-devices",
         "device-nodes", "nvidia-host-path", "plugin-files", "version-pair", "daemon-args", "daemon-pod"]
PREFIX = "fabric.aicr.run/"
bad = 0


def load_schema(name):
    with open(os.path.join(DOCS, name)) as f:
        s = json.load(f)
    Draft202012Validator.check_schema(s)
    return s


def load(path):
    with open(path, "rb") as f:
        return json.loads(f.read())


def report(name, errs):
    global bad
    if errs:
        bad = 1
        print("not ok %s: %s" % (name, "; ".join(errs)[:600]))
    else:
        print("ok %s" % name)


def errors(schema, value, resolver=None):
    v = Draft202012Validator(schema, resolver=resolver) if resolver else Draft202012Validator(schema)
    return ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(top)", e.message[:160])
            for e in v.iter_errors(value)]


ANN = None


def annotation_errors(ours):
    """annotations.schema.json over the published values (keyed without the prefix), and each JSON
    value through its contentSchema, which JSON Schema validators leave unchecked by default."""
    global ANN
    if ANN is None:
        from jsonschema import RefResolver
        s = load_schema("annotations.schema.json")
        store = {x["$id"]: x for x in (s, load_schema("report.schema.json"), load_schema("attachment.schema.json"))}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            ANN = (s, RefResolver.from_schema(s, store=store))
    s, res = ANN
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        errs = errors(s, ours, res)
        for k, sub in s["properties"].items():
            if "contentSchema" not in sub or not isinstance(ours.get(k), str):
                continue
            try:
                val = json.loads(ours[k])
            except ValueError as e:
                errs.append("%s: not JSON: %s" % (k, e))
                continue
            errs += ["%s: %s" % (k, e) for e in errors(sub["contentSchema"], val, res)]
    return errs


def report_rules(r):
    """What JSON Schema cannot say: sort orders and cross-references inside one report."""
    errs = []
    if [g["pci"] for g in r["gpus"]] != sorted(g["pci"] for g in r["gpus"]):
        errs.append("gpus not sorted by PCI address")
    if [n["pci"] for n in r["nics"]] != sorted(n["pci"] for n in r["nics"]):
        errs.append("nics not sorted by PCI address")
    gpus = {g["pci"] for g in r["gpus"]}
    for n in r["nics"]:
        for g in n["gpus"]:
            if g not in gpus:
                errs.append("nic %s lists GPU %s that is not in gpus" % (n["pci"], g))
    if r["interfaces"] is not None and [c for c in r["checks"] if c["id"] == "networks"][0]["status"] != "pass":
        errs.append("interfaces published while the networks check did not pass")
    if not r["ready"] and r["profile"] != "none":
        first = [c for c in r["checks"] if c["status"] == "fail"][0]
        if r["summary"] != "tcpxo: not ready: %s: %s" % (first["id"], first["message"]):
            errs.append("summary does not name the first failed check")
    return errs


def attachment_rules(a, text, r=None):
    errs = []
    if len(text.encode()) >= 4096:
        errs.append("attachment is %d bytes, must be under 4096" % len(text.encode()))
    ids = [(c["status"] != "fail", ORDER.index(c["id"])) for c in a["checks"]]
    if ids != sorted(ids):
        errs.append("attachment checks not ordered failures first, then warnings, each in check order")
    if r is None:
        return errs
    want = [(c["id"], c["status"]) for st in ("fail", "warn") for c in r["checks"] if c["status"] == st]
    got = [(c["id"], c["status"]) for c in a["checks"]]
    if not a.get("truncated") and got != want:
        errs.append("attachment checks %s, report has %s" % (got, want))
    byid = {c["id"]: c for c in r["checks"]}
    for c in a["checks"]:
        m, full = c.get("message"), byid[c["id"]]["message"]
        if m is not None and m != full and not (m.endswith("...") and full.startswith(m[:-3])):
            errs.append("%s message is neither the report's nor a cut of it" % c["id"])
    if "pairs" in a:
        want_pairs = [(g["pci"], g["nic"]) for g in r["gpus"]]
        if [(p["gpu"], p["nic"]) for p in a["pairs"]] != want_pairs:
            errs.append("pairs differ from the report's GPU rows")
    for k in ("installer", "expectedDaemon"):
        if a["versions"][k] != r["versions"][k]:
            errs.append("versions.%s differs from the report" % k)
    if "daemons" in a["versions"] and a["versions"]["daemons"] != r["versions"]["daemons"]:
        errs.append("versions.daemons differs from the report")
    return errs


def cmd_reports(files):
    s = load_schema("report.schema.json")
    for f in files:
        name = "report/" + os.path.basename(os.path.dirname(f))
        try:
            r = load(f)
        except (OSError, ValueError) as e:
            report(name, ["cannot read: %s" % e])
            continue
        errs = errors(s, r)
        report(name, errs or report_rules(r))


def cmd_negative(golden, attach):
    """Each mutation must be rejected: a schema that accepts these is not the contract."""
    s, sa = load_schema("report.schema.json"), load_schema("attachment.schema.json")
    base, abase = load(golden), load(attach)

    def mutate(f):
        r = copy.deepcopy(base)
        f(r)
        return r

    def amutate(f):
        a = copy.deepcopy(abase)
        f(a)
        return a

    def swap_checks(r):
        r["checks"][1], r["checks"][2] = r["checks"][2], r["checks"][1]

    def set_fail(r):
        r["ready"] = True
        r["checks"][7]["status"] = "fail"

    cases = [
        ("report-extra-key", mutate(lambda r: r.__setitem__("extra", 1))),
        ("report-check-order", mutate(swap_checks)),
        ("report-check-missing", mutate(lambda r: r["checks"].pop())),
        ("report-ready-with-fail", mutate(set_fail)),
        ("report-bad-profile", mutate(lambda r: r.__setitem__("profile", "tcpxo2"))),
        ("report-runtime-mismatch", mutate(lambda r: r.__setitem__("runtime", "torch-distributed-tcpx"))),
        ("report-bad-state", mutate(lambda r: r["nics"][0].__setitem__("state", "gone"))),
        ("report-bad-status", mutate(lambda r: r["checks"][0].__setitem__("status", "ok"))),
        ("report-nic-extra-key", mutate(lambda r: r["nics"][0].__setitem__("speed", 200))),
        ("report-seven-interfaces", mutate(lambda r: r.__setitem__(
            "interfaces", [{"interfaceName": "eth%d" % i, "network": "gpu-nic-%d" % i} for i in range(1, 8)]))),
        ("report-default-network", mutate(lambda r: r.__setitem__(
            "interfaces", [{"interfaceName": "eth%d" % i, "network": "default" if i == 1 else "gpu-nic-%d" % i}
                           for i in range(1, 9)]))),
        ("report-unknown-as-empty", mutate(lambda r: r.__setitem__("machineType", ""))),
    ]
    for name, r in cases:
        report("negative/" + name, [] if errors(s, r) else ["accepted by report.schema.json"])
    acases = [
        ("attachment-extra-key", amutate(lambda a: a.__setitem__("ready", True))),
        ("attachment-pass-listed", amutate(lambda a: a["checks"].append({"id": "gpus", "status": "pass"}))),
        ("attachment-unknown-id", amutate(lambda a: a["checks"].append({"id": "fabric", "status": "fail"}))),
        ("attachment-truncated-false", amutate(lambda a: a.__setitem__("truncated", False))),
        ("attachment-no-versions", amutate(lambda a: a.pop("versions"))),
        ("attachment-bad-time", amutate(lambda a: a.__setitem__("changedAt", "yesterday"))),
    ]
    for name, a in acases:
        report("negative/" + name, [] if errors(sa, a) else ["accepted by attachment.schema.json"])
    ifaces = [{"interfaceName": "eth%d" % i, "network": "gpu-nic-%d" % (i - 1)} for i in range(1, 9)]
    good = {"profile": "tcpxo", "ready": "true", "runtime": "torch-distributed-tcpxo",
            "interfaces": json.dumps(ifaces, separators=(",", ":")),
            "attachment": json.dumps(abase, separators=(",", ":"))}
    errs = annotation_errors(good)
    report("negative/annotations-baseline", ["the unmutated values are rejected: %s" % errs] if errs else [])

    def nmut(**kw):
        v = dict(good)
        for k, x in kw.items():
            if x is None:
                v.pop(k, None)
            else:
                v[k] = x
        return v

    ncases = [
        ("annotations-ready-capitalised", nmut(ready="True")),
        ("annotations-ready-bool", nmut(ready=True)),
        ("annotations-bad-profile", nmut(profile="tcpxo2")),
        ("annotations-runtime-of-other-profile", nmut(runtime="torch-distributed-tcpx")),
        ("annotations-no-runtime", nmut(runtime=None)),
        ("annotations-none-with-runtime", nmut(profile="none", ready="false")),
        ("annotations-none-ready", nmut(profile="none", runtime=None, interfaces=None)),
        ("annotations-interfaces-not-json", nmut(interfaces="eth1=gpu-nic-0")),
        ("annotations-interfaces-seven", nmut(interfaces=json.dumps(ifaces[:7], separators=(",", ":")))),
        ("annotations-interfaces-default-network", nmut(interfaces=json.dumps(
            [dict(x, network="default") if x["interfaceName"] == "eth1" else x for x in ifaces],
            separators=(",", ":")))),
        ("annotations-interfaces-pretty", nmut(interfaces=json.dumps(ifaces, indent=1))),
        ("annotations-attachment-extra-key", nmut(attachment=json.dumps(dict(abase, ready=True)))),
        ("annotations-unknown-key", nmut(probe="1")),
        ("annotations-no-attachment", nmut(attachment=None)),
    ]
    for name, v in ncases:
        report("negative/" + name, [] if annotation_errors(v) else ["accepted by annotations.schema.json"])


def workloads_rules(w):
    errs = []
    names = [(p["namespace"] or "", p["name"] or "") for p in w["pods"]]
    if names != sorted(names):
        errs.append("pods not sorted by namespace and name")
    counts = {v: 0 for v in ("attached", "partial", "unattached", "not-fabric")}
    for p in w["pods"]:
        counts[p["verdict"]] += 1
        ids = [FINDINGS.index(f["id"]) for f in p["findings"]]
        if ids != sorted(set(ids)):
            errs.append("%s: findings not in id order or repeated" % p["name"])
    if counts != w["counts"]:
        errs.append("counts %s, the pods say %s" % (w["counts"], counts))
    return errs


FINDINGS = ["all-gpus", "daemon-sidecar", "daemon-version", "daemon-args", "daemon-mounts", "device-injection",
            "interfaces", "aperture", "plugin-path", "nccl-env", "ipc-lock"]


def cmd_workloads(files):
    """Each file a `workloads --json` document (or a --once report with a workloads member)."""
    s, sr = load_schema("workloads.schema.json"), load_schema("report.schema.json")
    same = [k for k in s["$defs"] if s["$defs"][k] != sr["$defs"].get(k)]
    report("workloads/definitions", ["$defs/%s differs from report.schema.json's" % k for k in same] +
           ([] if sr["$defs"]["workloads"]["properties"]["pods"] == s["properties"]["pods"] else
            ["pods differs from report.schema.json's workloads.pods"]))
    for f in files:
        d = load(f)
        if "checks" in d:
            errs = errors(sr, d) or (workloads_rules(d["workloads"]) if d["workloads"] else ["workloads is null"])
        else:
            errs = errors(s, d) or workloads_rules(d)
        report("workloads/" + os.path.basename(f), errs)
    base = load(files[0])

    def mutate(f):
        d = copy.deepcopy(base)
        f(d)
        return d

    nf = [i for i, p in enumerate(base["pods"]) if p["verdict"] == "not-fabric"][0]
    part = [i for i, p in enumerate(base["pods"]) if p["verdict"] == "partial"][0]
    att = [i for i, p in enumerate(base["pods"]) if p["verdict"] == "attached"][0]
    cases = [
        ("workloads-not-fabric-with-findings", mutate(lambda d: d["pods"][nf]["findings"].append(
            {"id": "all-gpus", "status": "skip", "message": "x"}))),
        ("workloads-partial-without-fail", mutate(lambda d: d["pods"][part].__setitem__("findings", []))),
        ("workloads-attached-with-fail", mutate(lambda d: d["pods"][att]["findings"].append(
            {"id": "aperture", "status": "fail", "message": "x"}))),
        ("workloads-pass-listed", mutate(lambda d: d["pods"][att]["findings"].append(
            {"id": "aperture", "status": "pass", "message": "x"}))),
        ("workloads-unknown-finding", mutate(lambda d: d["pods"][part]["findings"].append(
            {"id": "fabric", "status": "fail", "message": "x"}))),
        ("workloads-bad-verdict", mutate(lambda d: d["pods"][0].__setitem__("verdict", "detached"))),
        ("workloads-remedy-member", mutate(lambda d: d["pods"][part]["findings"][0].__setitem__("remedy", "x"))),
        ("workloads-no-counts", mutate(lambda d: d.pop("counts"))),
    ]
    for name, d in cases:
        report("negative/" + name, [] if errors(s, d) else ["accepted by workloads.schema.json"])


def cmd_attachments(listfile):
    """listfile: one "NAME ATTACHMENT-FILE REPORT-FILE|-" a line."""
    sa = load_schema("attachment.schema.json")
    for line in open(listfile):
        name, attach_file, report_file = line.split()
        with open(attach_file, "rb") as f:
            text = f.read().decode().rstrip("\n")
        try:
            a = json.loads(text)
        except ValueError as e:
            report(name, ["not JSON: %s" % e])
            continue
        r = load(report_file) if report_file != "-" else None
        errs = errors(sa, a)
        report(name, errs or attachment_rules(a, text, r))


def cmd_published(listfile):
    """listfile: one "NAME NODE-FILE REPORT-FILE true|false" a line."""
    for line in open(listfile):
        published_one(*line.split())


def published_one(name, node_file, report_file, want_ready):
    s = load_schema("report.schema.json")
    ann = load(node_file)["metadata"].get("annotations", {})
    r = load(report_file)
    errs = ["report: " + e for e in errors(s, r)] or report_rules(r)
    ours = {k[len(PREFIX):]: v for k, v in ann.items() if k.startswith(PREFIX)}
    errs += ["annotations: " + e for e in annotation_errors(ours)]
    if ours.get("profile") != r["profile"]:
        errs.append("profile %r, report says %r" % (ours.get("profile"), r["profile"]))
    if ours.get("runtime") != r["runtime"]:
        errs.append("runtime %r, report says %r" % (ours.get("runtime"), r["runtime"]))
    if ours.get("ready") != ("true" if r["ready"] else "false") or ours.get("ready") != want_ready:
        errs.append("ready %r, report says %r, want %s" % (ours.get("ready"), r["ready"], want_ready))
    if r["interfaces"] is None:
        if "interfaces" in ours:
            errs.append("interfaces published without a mapping in the report")
    elif "interfaces" not in ours:
        errs.append("interfaces not published")
    else:
        iface = json.loads(ours["interfaces"])
        if iface != r["interfaces"]:
            errs.append("interfaces annotation differs from the report's")
    if "attachment" in ours and not errs:
        a = json.loads(ours["attachment"])
        errs += attachment_rules(a, ours["attachment"], r)
    report(name, errs)


cmd = sys.argv[1]
try:
    if cmd == "reports":
        cmd_reports(sys.argv[2:])
    elif cmd == "negative":
        cmd_negative(sys.argv[2], sys.argv[3])
    elif cmd == "attachments":
        cmd_attachments(sys.argv[2])
    elif cmd == "published":
        cmd_published(sys.argv[2])
    elif cmd == "workloads":
        cmd_workloads(sys.argv[2:])
except Exception as e:  # a broken schema file or input: one clear failure, not a traceback
    print("not ok %s: %s: %s" % (cmd, type(e).__name__, e))
    sys.exit(1)
sys.exit(bad)
PYEOF

v() { TOPDIR=$TOPDIR $PY "$tmp/v.py" "$@" || failed=1; }

# --- every golden report, and the schemas' strictness ---
v reports "$TOPDIR"/fixtures/*/expected.json
printf '%s\n' '{"schema":"fabric.aicr.run/v1","agentVersion":"0.1.0","changedAt":"2026-01-01T00:00:00Z","versions":{"installer":"v1.0.15","daemons":["v1.0.20"],"expectedDaemon":"v1.0.21"},"pairs":[{"gpu":"0000:04:00.0","nic":"eth1","nicPci":"0000:06:00.0"}],"checks":[{"id":"version-pair","status":"fail","message":"daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)"}]}' >"$tmp/attach.json"
v negative "$TOPDIR/fixtures/a3-mega/expected.json" "$tmp/attach.json"

# --- the attachment of every scenario (needs the fixture's links in a private netns) ---
. "$TOPDIR/tests/lib/netns.sh"
[ -f "$TOPDIR/tests/lib/devnodes.sh" ] && . "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
SCENARIO_TMP=$tmp
if ! why=$(netns_can_run 2>&1); then
	skip "attachment" "$why (the scenarios' links need a private network namespace)"
	skip "published" "$why"
	exit $failed
fi
if [ ! -x "$DUMP" ]; then
	nok "attachment" "$DUMP is not built (make $BUILD/tests/helpers/attachment-dump)"
	exit 1
fi

# dump NAME ROOT OUT ARGS...: the helper on scenario NAME's tree ROOT inside its links, output in OUT
dump() {
	_d=$1 _r=$2 _o=$3; shift 3
	netns_run "$TOPDIR/fixtures/$_d/links.spec" "$DUMP" --root "$_r" --node "fixture-$_d" "$@" >"$_o" 2>"$tmp/err"
}

: >"$tmp/attachments"
for d in "$TOPDIR"/fixtures/*/; do
	d=${d%/}; d=${d##*/}
	[ -f "$TOPDIR/fixtures/$d/links.spec" ] && [ -f "$TOPDIR/fixtures/$d/expected.json" ] || continue
	root=$(scenario_prepare "$d") || { nok "attachment/$d" "cannot copy the fixture"; continue; }
	if dump "$d" "$root" "$tmp/attach-$d.json"; then
		echo "attachment/$d $tmp/attach-$d.json $TOPDIR/fixtures/$d/expected.json" >>"$tmp/attachments"
	else
		echo "not ok attachment/$d: attachment-dump failed: $(head -c 300 "$tmp/err")"; failed=1
	fi
	case $d in
	a3-mega) mega=$root ;;
	cpu-node) cpu=$root ;;
	*) rm -rf "$root" ;;
	esac
done
[ -n "${mega:-}" ] || { nok "attachment" "no a3-mega scenario"; exit 1; }
[ -n "${cpu:-}" ] || { nok "attachment" "no cpu-node scenario"; exit 1; }

# --- workloads --json: every fixture pod, offline (--pods-file), and the same in a --once report ---
if [ -x "$AGENT" ]; then
	netns_run "$TOPDIR/fixtures/a3-mega/links.spec" "$AGENT" workloads --json --root "$mega" \
		--node gke-a3mega-a3mega-pool-1a2b3c4d-x7k2 --pods-file "$TOPDIR/fixtures/kube/pods-workloads.json" \
		>"$tmp/workloads.json" 2>"$tmp/workloads.err"
	rc=$?
	if [ $rc = 1 ]; then
		v workloads "$tmp/workloads.json"
	else
		echo "not ok workloads: workloads --json exit $rc, want 1: $(head -c 300 "$tmp/workloads.err")"; failed=1
	fi
fi

# With API facts: GKE's node (eth0's birth address made the fixture's own) and the pod lists.
KUBE=$TOPDIR/fixtures/kube
sed 's/10\.128\.0\.41/10.128.0.2/g' "$KUBE/node-a3mega.json" >"$tmp/node-a3mega.json"
for pods in pods-healthy pods-skew pods-idle; do
	out=$tmp/attach-a3-mega+$pods.json
	if dump a3-mega "$mega" "$out" --node-json "$tmp/node-a3mega.json" --pods-json "$KUBE/$pods.json" \
		--networks-json "$KUBE/networks.json"; then
		echo "attachment/a3-mega+$pods $out -" >>"$tmp/attachments"
	else
		echo "not ok attachment/a3-mega+$pods: attachment-dump failed: $(head -c 300 "$tmp/err")"; failed=1
	fi
done
v attachments "$tmp/attachments"

# --- what --once publishes, through the fake API server, in the namespace of the fixture's links ---
if [ ! -x "$AGENT" ]; then
	nok "published" "$AGENT is not built"
	exit 1
fi
if ! sh "$TOPDIR/tests/lib/certs.sh" "$tmp/certs" >/dev/null 2>&1; then
	nok "published" "tests/lib/certs.sh failed"
	exit 1
fi
NODE=gke-a3mega-a3mega-pool-1a2b3c4d-x7k2
cat >"$tmp/publish.sh" <<'SHEOF'
# publish.sh TOPDIR AGENT ROOT STATE CERTS NODE OUT: inside the netns, serve STATE and run --once twice.
set -u
TOPDIR=$1 AGENT=$2 ROOT=$3 STATE=$4 CERTS=$5 NODE=$6 OUT=$7
ip link set lo up || exit 3
rm -f "$OUT/port"
/usr/bin/python3 "$TOPDIR/tests/lib/fakeapi.py" --state "$STATE" --port-file "$OUT/port" \
	--cert "$CERTS/server.crt" --key "$CERTS/server.key" --max-seconds 120 2>"$OUT/fakeapi.err" &
pid=$!
i=0
while [ ! -s "$OUT/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$OUT/port" ] || { kill $pid; exit 3; }
set -- --once --root "$ROOT" --node "$NODE" --api-server "https://127.0.0.1:$(cat "$OUT/port")" \
	--token-file "$STATE/token" --ca-file "$CERTS/ca.crt"
"$AGENT" "$@" >/dev/null 2>"$OUT/once.err"
echo $? >"$OUT/once.rc"
# The second run reads back what the first published: it must not write again; its report is the one compared.
"$AGENT" "$@" --json >"$OUT/report.json" 2>"$OUT/json.err"
echo $? >"$OUT/json.rc"
kill $pid
wait $pid 2>/dev/null
exit 0
SHEOF

: >"$tmp/published"
# SCENARIO:PODS:READY:EXIT; cpu-node: GKE's A3 Mega node served to a host without the fabric
# (profile none: ready false, runtime and interfaces absent).
for run in a3-mega:pods-healthy:true:0 a3-mega:pods-skew:false:1 cpu-node:pods-healthy:false:1; do
	scen=${run%%:*}; rest=${run#*:}; p=${rest%%:*}; rest=${rest#*:}; want_ready=${rest%%:*}; want_rc=${rest#*:}
	root=$mega
	[ "$scen" = cpu-node ] && root=$cpu
	name=published/$scen+$p
	state=$tmp/state-$scen-$p out=$tmp/out-$scen-$p
	mkdir -p "$state" "$out"
	cp "$tmp/node-a3mega.json" "$state/node.json"
	cp "$KUBE/$p.json" "$state/pods.json"
	printf 'tok-%s\n' "$$" >"$state/token"
	if ! netns_run "$TOPDIR/fixtures/$scen/links.spec" sh "$tmp/publish.sh" "$TOPDIR" "$AGENT" "$root" \
		"$state" "$tmp/certs" "$NODE" "$out" >"$out/run.out" 2>&1; then
		echo "not ok $name: could not run the fake API in the namespace: $(cat "$out/fakeapi.err" "$out/run.out" 2>/dev/null | head -c 300)"
		failed=1; continue
	fi
	why=""
	[ "$(cat "$out/once.rc")" = "$want_rc" ] || why="--once exit $(cat "$out/once.rc"), want $want_rc: $(head -c 200 "$out/once.err")"
	[ "$(cat "$out/json.rc")" = "$want_rc" ] || why="${why:+$why; }--once --json exit $(cat "$out/json.rc"), want $want_rc"
	grep -q 'already carries this state' "$out/json.err" ||
		why="${why:+$why; }the second run wrote again: $(head -c 200 "$out/json.err")"
	# One merge patch of the node and one of its status (the condition), by the first run only.
	patches=$(grep '"method": "PATCH"' "$state/requests.log" 2>/dev/null | grep -vc '/status"')
	statuses=$(grep '"method": "PATCH"' "$state/requests.log" 2>/dev/null | grep -c '/status"')
	[ "$patches" = 1 ] && [ "$statuses" = 1 ] ||
		why="${why:+$why; }$patches node PATCH and $statuses status PATCH requests, want 1 each"
	if [ -n "$why" ]; then
		nok "$name" "$why"; continue
	fi
	echo "$name $state/node.json $out/report.json $want_ready" >>"$tmp/published"
done
[ -s "$tmp/published" ] && v published "$tmp/published"
exit $failed
