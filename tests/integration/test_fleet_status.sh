#!/bin/sh
# test_fleet_status.sh - `tcpxo-agent status` and `kubectl fabric` on a fleet the agent published itself: `--once`
# against the fake API for each fixture scenario (healthy, a NIC down, a stale aperture entry, a skewed daemon, a
# CPU node), the Nodes it left collected into one NodeList; each cause grouped; a heartbeat made old is stale; then
# build/kubectl-fabric (tcpxo-agent not on PATH; ldd: no node library) with a stand-in kubectl that answers the NodeList and records its argv (the
# flags passed through), one that fails with a message, and none at all. Env: TOPDIR, BUILD, TCPXO_AGENT.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TCPXO_AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
. "$TOPDIR/tests/lib/netns.sh"
. "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
. "$TOPDIR/tests/lib/api_scenario.sh"

api_test_begin fleet-status
T=$API_TMP/fleet
mkdir -p "$T/items" "$T/bin"

# publish NAME SCENARIO PODS RC [CPU]: `--once` publishes SCENARIO's verdict on the fake API's node, exiting RC
# (a step that exits otherwise fails); the Node as the agent left it, renamed NAME (a CPU machine type with
# CPU), is kept for the NodeList.
publish() {
	api_state node-fixture-a3mega "$3" networks
	if [ -n "${5:-}" ]; then
		/usr/bin/python3 - "$API_STATE/node.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
lab = d["metadata"]["labels"]
for k in ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type"):
    lab[k] = "n2-standard-8"
lab.pop("cloud.google.com/gke-accelerator", None)
json.dump(d, open(sys.argv[1], "w"))
EOF
	fi
	api_run "$2" --once
	if [ ! -s "$API_STATE/node.json" ] || [ "$API_RC" != "$4" ]; then
		nok "publish-$1" "exit $API_RC (want $4), node.json $([ -s "$API_STATE/node.json" ] || echo missing): $(head -c 300 "$API_TMP/err")"
		failed=1
		return
	fi
	/usr/bin/python3 - "$API_STATE/node.json" "$1" "$T/items/$1.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["metadata"]["name"] = sys.argv[2]
json.dump(d, open(sys.argv[3], "w"))
EOF
	ok "publish-$1 (exit $API_RC)"
}

publish a3-mega a3-mega pods-healthy 0
publish a3-mega-nic-down a3-mega-nic-down pods-healthy 1
publish a3-mega-stale-aperture a3-mega-stale-aperture pods-healthy 1
publish a3-mega-skew a3-mega pods-skew 1
publish cpu-node cpu-node pods-idle 1 cpu

# list OUT [STALE_NODE]: the NodeList of every Node kept (kubectl's List), STALE_NODE's heartbeat 20 minutes old.
list() {
	/usr/bin/python3 - "$T/items" "$1" "${2:-}" <<'EOF'
import json, os, sys, time
items = [json.load(open(os.path.join(sys.argv[1], f))) for f in sorted(os.listdir(sys.argv[1]))]
for n in items:
    if n["metadata"]["name"] == sys.argv[3]:
        for c in n["status"]["conditions"]:
            if c["type"] == "FabricReady":
                c["lastHeartbeatTime"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1200))
json.dump({"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items},
          open(sys.argv[2], "w"))
EOF
}
list "$T/nodes.json"

# judge NAME RC: python assertions (stdin) over $T/out (JSON as j), $T/err, the exit status rc.
judge() {
	/usr/bin/python3 - "$T/out" "$T/err" "$2" "$1" <<EOF
import json, sys
out, err, rc, name = open(sys.argv[1]).read(), open(sys.argv[2]).read(), int(sys.argv[3]), sys.argv[4]
try:
    j = json.loads(out)
except ValueError:
    j = None
def eq(got, want, what):
    if got != want:
        raise SystemExit("not ok %s: %s: got %r, want %r" % (name, what, got, want))
def ok(cond, what):
    if not cond:
        raise SystemExit("not ok %s: %s" % (name, what))
$(cat)
print("ok " + name)
EOF
	[ $? -eq 0 ] || failed=1
}

ACCEPT='
eq(rc, 1, "exit")
eq([n["name"] for n in j["nodes"]], ["a3-mega", "a3-mega-nic-down", "a3-mega-skew", "a3-mega-stale-aperture"], "listed")
eq([n["name"] for n in j["nodes"] if n["ready"]], ["a3-mega"], "ready nodes")
eq(j["causes"], {"links": ["a3-mega-nic-down"], "aperture-devices": ["a3-mega-stale-aperture"],
                 "version-pair": ["a3-mega-skew"]}, "causes")
eq({n["name"]: n["causes"] for n in j["nodes"]}, {"a3-mega": [], "a3-mega-nic-down": ["links"],
   "a3-mega-skew": ["version-pair"], "a3-mega-stale-aperture": ["aperture-devices"]}, "each node'"'"'s causes")
eq({n["profile"] for n in j["nodes"]}, {"tcpxo"}, "profiles")
ok(all(n["heartbeat"] and 0 <= n["ageSeconds"] < 600 and not n["stale"] for n in j["nodes"]), "heartbeats: %r" % j["nodes"])
eq(j["ready"], False, "ready")
eq(err, "", "stderr")
'

"$TCPXO_AGENT" status --json --nodes-file "$T/nodes.json" >"$T/out" 2>"$T/err"
judge status-published $? <<EOF
$ACCEPT
EOF
cp "$T/out" "$T/direct.json"
cp "$T/out" "$T/json.published"

# -o json is --json; -o wide adds machine type, heartbeat, transport; -o name lists node/NAME.
"$TCPXO_AGENT" status -o json --nodes-file "$T/nodes.json" >"$T/out" 2>"$T/err"
rc=$?
cp "$T/out" "$T/json.o-json"
judge status-o-json $rc <<EOF
$ACCEPT
direct = json.load(open("$T/direct.json"))
strip = lambda d: dict(d, nodes=[dict(n, ageSeconds=None) for n in d["nodes"]])
eq(strip(j), strip(direct), "the same JSON as --json")
eq([(n["name"], n["transport"]) for n in j["nodes"]][0], ("a3-mega", {"path": "fastrak", "gpus": 8, "nics": 8}),
   "the published pairs")
EOF
"$TCPXO_AGENT" status -o wide --nodes-file "$T/nodes.json" >"$T/out" 2>"$T/err"
judge status-o-wide $? <<'EOF'
import re
eq(rc, 1, "exit")
lines = out.splitlines()
eq(lines[0], "fleet: 4 nodes listed, 1 ready, 3 not ready", "summary")
eq(lines[2].split(), ["NODE", "PROFILE", "READY", "AGE", "MACHINE", "TYPE", "HEARTBEAT", "TRANSPORT", "CAUSES"], "header")
row = [l for l in lines if l.startswith("  a3-mega ")][0]
ok(re.search(r" a3-megagpu-8g +20[0-9-]+T[0-9:.]+Z +fastrak \(8 GPUs, 8 NICs\) +-$", row), "row %r" % row)
EOF
"$TCPXO_AGENT" status -o name --nodes-file "$T/nodes.json" >"$T/out" 2>"$T/err"
judge status-o-name $? <<'EOF'
eq(rc, 1, "exit: as the table's")
eq(out, "node/a3-mega\nnode/a3-mega-nic-down\nnode/a3-mega-skew\nnode/a3-mega-stale-aperture\n", "names")
EOF
"$TCPXO_AGENT" status -o yaml --nodes-file "$T/nodes.json" >"$T/out" 2>"$T/err"
judge status-o-yaml-refused $? <<'EOF'
eq((rc, out), (2, ""), "exit, stdout")
eq(err, "tcpxo-agent: -o yaml: status takes json, wide, name\n", "stderr")
EOF

"$TCPXO_AGENT" status --nodes-file - <"$T/nodes.json" >"$T/out" 2>"$T/err"
judge status-human $? <<'EOF'
eq(rc, 1, "exit")
lines = out.splitlines()
eq(lines[0], "fleet: 4 nodes listed, 1 ready, 3 not ready", "summary")
ok(not [l for l in lines if "cpu-node" in l], "the CPU node is not listed")
tail = lines[lines.index("not ready, by cause:") + 1:]
eq(sorted(tail), ["  aperture-devices: 1 node: a3-mega-stale-aperture", "  links: 1 node: a3-mega-nic-down",
                  "  version-pair: 1 node: a3-mega-skew"], "by cause")
EOF

# An old heartbeat: stale, not ready whatever the node published.
list "$T/stale.json" a3-mega
"$TCPXO_AGENT" status --json --nodes-file "$T/stale.json" >"$T/out" 2>"$T/err"
rc=$?
cp "$T/out" "$T/json.stale"
judge status-stale $rc <<'EOF'
eq(rc, 1, "exit")
n = [n for n in j["nodes"] if n["name"] == "a3-mega"][0]
eq((n["ready"], n["stale"], n["causes"]), (False, True, ["stale"]), "a3-mega")
ok(1190 <= n["ageSeconds"] < 1800, "age %r" % n["ageSeconds"])
eq(j["causes"]["stale"], ["a3-mega"], "stale group")
EOF

# Only the healthy node: exit 0. Not a NodeList: exit 2.
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
d["items"] = [n for n in d["items"] if n["metadata"]["name"] in ("a3-mega", "cpu-node")]
json.dump(d, open(sys.argv[2], "w"))' "$T/nodes.json" "$T/healthy.json"
"$TCPXO_AGENT" status --nodes-file "$T/healthy.json" >"$T/out" 2>"$T/err"
judge status-ready $? <<'EOF'
eq(rc, 0, "exit")
eq(out.splitlines()[0], "fleet: 1 node listed, 1 ready, 0 not ready", "summary")
EOF
"$TCPXO_AGENT" status --json --nodes-file "$T/healthy.json" >"$T/json.ready" 2>/dev/null
# An A3 node the agent never reached, and a CPU node alone (nothing listed: exit 0, said on stderr).
/usr/bin/python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
cpu = [n for n in d["items"] if n["metadata"]["name"] == "cpu-node"]
bare = json.loads(json.dumps([n for n in d["items"] if n["metadata"]["name"] == "a3-mega"]))
for n in bare:
    n["metadata"]["name"] = "a3-mega-new"
    n["metadata"]["annotations"] = {k: v for k, v in n["metadata"]["annotations"].items() if not k.startswith("fabric.aicr.run/")}
    n["status"]["conditions"] = [c for c in n["status"]["conditions"] if c["type"] != "FabricReady"]
json.dump(dict(d, items=d["items"] + bare), open(sys.argv[2], "w"))
json.dump(dict(d, items=cpu), open(sys.argv[3], "w"))' "$T/nodes.json" "$T/unobserved.json" "$T/cpu.json"
"$TCPXO_AGENT" status --json --nodes-file "$T/unobserved.json" >"$T/out" 2>"$T/err"
rc=$?
cp "$T/out" "$T/json.unobserved"
judge status-unobserved $rc <<'EOF'
eq(rc, 1, "exit")
n = [n for n in j["nodes"] if n["name"] == "a3-mega-new"][0]
eq((n["profile"], n["ready"], n["unobserved"], n["causes"], n["heartbeat"], n["ageSeconds"]),
   (None, False, True, ["unobserved"], None, None), "a3-mega-new")
eq(j["causes"]["unobserved"], ["a3-mega-new"], "unobserved group")
EOF
"$TCPXO_AGENT" status --json --nodes-file "$T/cpu.json" >"$T/out" 2>"$T/err"
rc=$?
cp "$T/out" "$T/json.cpu"
judge status-cpu-only $rc <<'EOF'
eq(rc, 0, "exit")
eq((j["nodes"], j["causes"], j["ready"]), ([], {}, True), "nothing listed")
eq(err, "tcpxo-agent: status: none of the 1 nodes is an A3 GPU machine type or carries a fabric profile "
   "(fabric.aicr.run/profile)\n", "stderr")
EOF

# ---- issue 30: status vouches only for what it can see: a heartbeat in the future (a node clock ahead
# by an hour), a verdict without its FabricReady condition (the status patch never landed): not ready,
# unknown, by cause; exit 1, and 2 when no listed node can be vouched for ----
/usr/bin/python3 - "$T/nodes.json" "$T/vouch.json" "$T/vouch-none.json" <<'PY'
import json, sys, time
d = json.load(open(sys.argv[1]))
for n in d["items"]:
    if n["metadata"]["name"] == "a3-mega":
        for c in n["status"]["conditions"]:
            if c["type"] == "FabricReady":
                c["lastHeartbeatTime"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() + 3600))
    if n["metadata"]["name"] == "a3-mega-nic-down":
        n["status"]["conditions"] = [c for c in n["status"]["conditions"] if c["type"] != "FabricReady"]
json.dump(d, open(sys.argv[2], "w"))
d["items"] = [n for n in d["items"] if n["metadata"]["name"] in ("a3-mega", "cpu-node")]
json.dump(d, open(sys.argv[3], "w"))
PY
"$TCPXO_AGENT" status --json --nodes-file "$T/vouch.json" >"$T/out" 2>"$T/err"
judge status-not-vouched $? <<'EOF'
eq(rc, 1, "exit")
n = {n["name"]: n for n in j["nodes"]}
eq((n["a3-mega"]["ready"], n["a3-mega"]["unknown"], n["a3-mega"]["causes"], n["a3-mega"]["ageSeconds"]),
   (False, True, ["heartbeat-in-future"], None), "a3-mega: heartbeat an hour ahead")
eq((n["a3-mega-nic-down"]["ready"], n["a3-mega-nic-down"]["unknown"], n["a3-mega-nic-down"]["causes"]),
   (False, True, ["links", "condition-missing"]), "a3-mega-nic-down: no condition")
eq(n["a3-mega-skew"]["unknown"], False, "a3-mega-skew vouched for (not ready)")
eq(j["causes"]["heartbeat-in-future"], ["a3-mega"], "group")
eq(j["causes"]["condition-missing"], ["a3-mega-nic-down"], "group")
ok(j["summary"].endswith("0 ready, 4 not ready (2 unknown: not vouched for)"), j["summary"])
EOF
"$TCPXO_AGENT" status --nodes-file "$T/vouch-none.json" >"$T/out" 2>"$T/err"
judge status-nothing-vouched $? <<'EOF'
eq(rc, 2, "exit")
lines = out.splitlines()
eq(lines[0], "fleet: 1 node listed, 0 ready, 1 not ready (1 unknown: not vouched for)", "summary")
ok([l for l in lines if l.startswith("  a3-mega ") and " unknown " in l and l.endswith("heartbeat-in-future")], out)
EOF

# ---- issue 30: C1 controls (U+009B CSI, U+009D OSC) and bidi overrides (U+202E) in a published attachment
# reach no terminal: status prints each as '?' ----
/usr/bin/python3 - "$T/nodes.json" "$T/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for n in d["items"]:
    if n["metadata"]["name"] == "a3-mega-skew":
        ann = n["metadata"]["annotations"]
        att = json.loads(ann["fabric.aicr.run/attachment"])
        for c in att["checks"]:
            if c["id"] == "version-pair":
                c["id"] = "version\u009b31m-pair\u202e\u009d0;x\u2066"
        ann["fabric.aicr.run/attachment"] = json.dumps(att)
json.dump(d, open(sys.argv[2], "w"))
PY
"$TCPXO_AGENT" status --nodes-file "$T/hostile.json" >"$T/out" 2>"$T/err"
judge status-hostile-unicode $? <<'EOF'
eq(rc, 1, "exit")
raw = open(sys.argv[1], "rb").read()
for bad in (b"\xc2\x9b", b"\xc2\x9d", b"\xe2\x80\xae", b"\xe2\x81\xa6"):
    ok(bad not in raw, "%r in the output" % bad)
ok("version?31m-pair??0;x?" in out, out)
EOF

# Issue 30: a lone UTF-16 surrogate in the NodeList is said to be one (before: "out of memory").
printf '{"kind":"NodeList","items":[{"metadata":{"name":"a3-mega-\\ud800"}}]}' >"$T/surrogate.json"
"$TCPXO_AGENT" status --nodes-file "$T/surrogate.json" >"$T/out" 2>"$T/err"
judge status-lone-surrogate $? <<'EOF'
eq(rc, 2, "exit")
ok("a lone UTF-16 surrogate such as \\ud800" in err and "memory" not in err, err)
EOF

# ---- the API: the same list read page by page from the fake API; a selector; a refused token ----
api_state_dir=$T/apistate
mkdir -p "$api_state_dir"
cp "$T/nodes.json" "$api_state_dir/nodes.json"
printf 'fleet-tok-%s\n' "$$" >"$api_state_dir/token"
/usr/bin/python3 "$TOPDIR/tests/lib/fakeapi.py" --state "$api_state_dir" --port-file "$T/port" \
	--cert "$API_TMP/certs/server.crt" --key "$API_TMP/certs/server.key" --max-seconds 120 2>"$T/fakeapi.err" &
fleet_api_pid=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
SERVER=https://127.0.0.1:$(cat "$T/port" 2>/dev/null)
"$TCPXO_AGENT" status --json --api-server "$SERVER" --token-file "$api_state_dir/token" \
	--ca-file "$API_TMP/certs/ca.crt" >"$T/out" 2>"$T/err"
rc=$?
cp "$T/out" "$T/json.api"
judge status-api $rc <<EOF
$ACCEPT
direct = json.load(open("$T/direct.json"))
strip = lambda d: [dict(n, ageSeconds=None) for n in d["nodes"]]
eq(strip(j), strip(direct), "the same nodes as from the file")
EOF
"$TCPXO_AGENT" status --api-server "$SERVER" --token-file "$api_state_dir/token" --ca-file "$API_TMP/certs/ca.crt" \
	--selector 'node.kubernetes.io/instance-type=n2-standard-8' >"$T/out" 2>"$T/err"
judge status-api-selector $? <<'EOF'
eq(rc, 0, "exit")
eq(out, "fleet: no A3 node and no node with a fabric profile\n", "stdout")
EOF
printf 'wrong-token\n' >"$T/wrong-token"
"$TCPXO_AGENT" status --api-server "$SERVER" --token-file "$T/wrong-token" --ca-file "$API_TMP/certs/ca.crt" \
	>"$T/out" 2>"$T/err"
judge status-api-unauthorized $? <<'EOF'
import re
eq(rc, 2, "exit")
eq(out, "", "stdout")
ok(re.match(r"^tcpxo-agent: status: .*401.*\n$", err) and "wrong-token" not in err, "stderr %r" % err)
EOF
kill "$fleet_api_pid" 2>/dev/null
wait "$fleet_api_pid" 2>/dev/null

# Every document above against docs/schema/status.schema.json; broken ones refused (the schema is strict).
if ! /usr/bin/python3 -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
	nok schema "/usr/bin/python3 has no jsonschema with draft 2020-12 (apt-get install python3-jsonschema)"
	failed=1
else
	/usr/bin/python3 - "$TOPDIR/docs/schema/status.schema.json" "$T" <<'EOF' || failed=1
import copy, glob, json, os, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
v = Draft202012Validator(schema)
bad = 0
def report(name, errs):
    global bad
    if errs:
        bad = 1
        print("not ok %s: %s" % (name, "; ".join(errs)[:600]))
    else:
        print("ok " + name)
for path in sorted(glob.glob(os.path.join(sys.argv[2], "json.*"))):
    doc = json.load(open(path))
    errs = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(top)", e.message[:160]) for e in v.iter_errors(doc)]
    if [n["name"] for n in doc["nodes"]] != sorted(n["name"] for n in doc["nodes"]):
        errs.append("nodes not sorted by name")
    if doc["ready"] != all(n["ready"] for n in doc["nodes"]):
        errs.append("ready disagrees with the nodes")
    want = {}
    for n in doc["nodes"]:
        for c in ([] if n["ready"] else n["causes"]):
            want.setdefault(c, []).append(n["name"])
    if doc["causes"] != want:
        errs.append("causes %r, the nodes say %r" % (doc["causes"], want))
    report("schema/" + os.path.basename(path)[5:], errs)
doc = json.load(open(os.path.join(sys.argv[2], "json.published")))
cases = {"extra-member": lambda d: d.update(extra=1),
         "node-extra-member": lambda d: d["nodes"][0].update(extra=1),
         "cause-empty": lambda d: d["nodes"][1]["causes"].append(""),
         "cause-longer-than-kept": lambda d: d["nodes"][1]["causes"].append("x" * 66),
         "stale-but-ready": lambda d: d["nodes"][0].update(stale=True),
         "unobserved-with-profile": lambda d: d["nodes"][0].update(unobserved=True, ready=False, causes=["unobserved"]),
         "negative-age": lambda d: d["nodes"][0].update(ageSeconds=-1),
         "empty-cause-group": lambda d: d["causes"].update(links=[]),
         "summary": lambda d: d.update(summary="fleet: fine")}
for n, f in cases.items():
    d = copy.deepcopy(doc)
    f(d)
    report("schema/negative/" + n, ["accepted"] if v.is_valid(d) else [])
sys.exit(bad)
EOF
fi
printf '{"kind":"PodList","items":[]}' >"$T/pods.json"
"$TCPXO_AGENT" status --nodes-file "$T/pods.json" >"$T/out" 2>"$T/err"
judge status-not-a-nodelist $? <<'EOF'
eq(rc, 2, "exit")
eq(out, "", "stdout")
ok("expected kind NodeList or List" in err and err.startswith("tcpxo-agent: status: --nodes-file "), "stderr %r" % err)
EOF

# ---- kubectl fabric: the workstation binary, tcpxo-agent not on PATH; a stand-in kubectl records its argv ----
cat >"$T/bin/kubectl" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$T/kubectl.argv"
if [ -n "\${FAKE_KUBECTL_FAIL:-}" ]; then
	echo "E1205 10:00:00.000000   4242 memcache.go:265] couldn't get current server API group list" >&2
	echo "error: You must be logged in to the server (Unauthorized)" >&2
	exit 1
fi
case "\$*" in
*"get nodes"*) cat "$T/nodes.json" ;;
*"get pods"*) cat "$T/pods.json" ;;
*"get clustertrainingruntimes.trainer.kubeflow.org"*) cat "$TOPDIR/fixtures/runtime/aicr-tcpxo.json" ;;
*) while [ "\$1" != get ]; do shift; done
   echo "error: the server doesn't have a resource type \"\$2\"" >&2; exit 1 ;;
esac
EOF
chmod +x "$T/bin/kubectl"
FABRIC=$TOPDIR/${BUILD:-build}/kubectl-fabric
FPATH=$T/bin:/usr/bin:/bin
if PATH=$FPATH command -v tcpxo-agent >/dev/null 2>&1; then
	nok kubectl-fabric-alone "tcpxo-agent is on $FPATH: the cases below would not show kubectl-fabric runs without it"
	failed=1
fi
# What kubectl fabric runs links none of the node's libraries (nor libcurl: kubectl does the API).
if command -v ldd >/dev/null 2>&1; then
	libs=$(ldd "$FABRIC" 2>&1)
	if echo "$libs" | grep -Eq 'libnl|libpci|libudev|libcurl|libmicrohttpd|not found|not a dynamic'; then
		nok kubectl-fabric-ldd "$(echo "$libs" | tr '\n' ' ')"
		failed=1
	else
		ok kubectl-fabric-ldd
	fi
else
	skip kubectl-fabric-ldd "no ldd"
fi

: >"$T/kubectl.argv"
PATH=$FPATH "$FABRIC" status -o json --context gke_p_us-central1_c1 --kubeconfig /k/config \
	-n team-a --request-timeout=5s --user me --as=admin --insecure-skip-tls-verify >"$T/out" 2>"$T/err"
rc=$?
cp "$T/out" "$T/json.fabric"
judge kubectl-fabric-status $rc <<EOF
$ACCEPT
direct = json.load(open("$T/direct.json"))
strip = lambda d: dict(d, nodes=[dict(n, ageSeconds=None) for n in d["nodes"]])
eq(strip(j), strip(direct), "the same JSON as tcpxo-agent status --nodes-file")
eq(open("$T/kubectl.argv").read(), "--context gke_p_us-central1_c1 --kubeconfig /k/config -n team-a "
   "--request-timeout=5s --user me --as=admin --insecure-skip-tls-verify get nodes -o json\n", "kubectl argv")
EOF

: >"$T/kubectl.argv"
PATH=$FPATH "$FABRIC" status -l cloud.google.com/gke-nodepool=a3 --cluster c1 -v6 -o wide >"$T/out" 2>"$T/err"
judge kubectl-fabric-selector $? <<EOF
eq(rc, 1, "exit")
eq(open("$T/kubectl.argv").read(), "--cluster c1 -v6 get nodes -l cloud.google.com/gke-nodepool=a3 -o json\n",
   "kubectl argv: -v6 kubectl's, as typed")
ok("TRANSPORT" in out.splitlines()[2], "-o wide: %r" % out[:300])
EOF

PATH=$FPATH FAKE_KUBECTL_FAIL=1 "$FABRIC" status --json >"$T/out" 2>"$T/err"
judge kubectl-fabric-fails $? <<'EOF'
eq(rc, 2, "exit")
eq(out, "", "stdout")
eq(err, "kubectl-fabric: status: kubectl get nodes failed: You must be logged in to the server (Unauthorized)\n",
   "stderr: kubectl's error line, not its klog noise")
EOF

# With -v, kubectl's stderr is the user's: its lines pass through, the failure points at them.
PATH=$FPATH FAKE_KUBECTL_FAIL=1 "$FABRIC" status --v=6 >"$T/out" 2>"$T/err"
judge kubectl-fabric-fails-verbose $? <<'EOF'
eq(rc, 2, "exit")
eq(err.splitlines(), ["E1205 10:00:00.000000   4242 memcache.go:265] couldn't get current server API group list",
   "error: You must be logged in to the server (Unauthorized)",
   "kubectl-fabric: status: kubectl get nodes failed (exit 1): its messages are above"], "stderr")
EOF

PATH=$FPATH KUBECTL=kubectl-nowhere "$FABRIC" status >"$T/out" 2>"$T/err"
judge kubectl-fabric-no-kubectl $? <<'EOF'
eq(rc, 2, "exit")
ok(err.startswith("kubectl-fabric: status: kubectl not found (kubectl-nowhere): "), "stderr %r" % err)
EOF

PATH=$FPATH "$FABRIC" status --bogus >"$T/out" 2>"$T/err"
judge kubectl-fabric-bad-option $? <<'EOF'
eq(rc, 2, "exit")
eq(err, "kubectl-fabric: unknown option '--bogus' (try --help)\n", "stderr")
EOF

PATH=$FPATH "$FABRIC" status --root / >"$T/out" 2>"$T/err"
judge kubectl-fabric-no-root $? <<'EOF'
eq(rc, 2, "exit")
eq(err, "kubectl-fabric: unknown option '--root' (try --help)\n", "stderr: a node's option, not the workstation's")
EOF

# --heartbeat: the agents' period, status's; refused for another command.
PATH=$FPATH "$FABRIC" status --json --heartbeat 10m >"$T/out" 2>"$T/err"
judge kubectl-fabric-heartbeat $? <<'EOF'
eq(rc, 1, "exit")
eq(j["heartbeatPeriodSeconds"], 600, "heartbeat period")
EOF
PATH=$FPATH "$FABRIC" interfaces --heartbeat=10m >"$T/out" 2>"$T/err"
judge kubectl-fabric-heartbeat-interfaces $? <<'EOF'
eq(rc, 2, "exit")
eq(err, "kubectl-fabric: --heartbeat does not apply to interfaces; it applies to status\n", "stderr")
EOF

# workloads NODE: the pods on NODE judged against what NODE published (the whole list answered: one node kept).
/usr/bin/python3 - "$TOPDIR/fixtures/kube/pods-skew.json" "$T/pods.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["items"]:
    if p["spec"].get("nodeName"):
        p["spec"]["nodeName"] = "a3-mega-skew"
json.dump(d, open(sys.argv[2], "w"))
EOF
: >"$T/kubectl.argv"
PATH=$FPATH "$FABRIC" workloads a3-mega-skew -o json --context c2 >"$T/out" 2>"$T/err"
judge kubectl-fabric-workloads $? <<EOF
eq(rc, 1, "exit")
eq(j["counts"], {"attached": 0, "partial": 1, "unattached": 0, "not-fabric": 0}, "counts")
eq([(p["name"], p["verdict"], [f["id"] for f in p["findings"] if f["status"] == "fail"]) for p in j["pods"]],
   [("llama-train-node-0-0-x2b9f", "partial", ["daemon-version"])], "the skewed daemon against the node's installer")
eq(open("$T/kubectl.argv").read(), "--context c2 get nodes --field-selector metadata.name=a3-mega-skew -o json\n"
   "--context c2 get pods --all-namespaces --field-selector spec.nodeName=a3-mega-skew -o json\n", "kubectl argv")
EOF

/usr/bin/python3 - "$TOPDIR/fixtures/kube/pods-healthy.json" "$T/pods.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["items"]:
    if p["spec"].get("nodeName"):
        p["spec"]["nodeName"] = "a3-mega"
json.dump(d, open(sys.argv[2], "w"))
EOF
PATH=$FPATH "$FABRIC" workloads a3-mega >"$T/out" 2>"$T/err"
judge kubectl-fabric-workloads-attached $? <<'EOF'
eq(rc, 0, "exit")
ok(out.startswith("workloads: 0 unattached, 0 partial, 1 attached on a3-mega\n"), "stdout %r" % out[:200])
EOF

# Issue 30: against what the node published too, a GPU pod that cannot be read is unknown (exit 2).
/usr/bin/python3 - "$T/pods.json" "$T/pods-odd-gpu.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
d["items"].append({"metadata": {"namespace": "batch", "name": "half", "uid": "uid-half"},
                   "spec": {"nodeName": "a3-mega", "containers": [{"name": "c", "image": "busybox",
                            "resources": {"limits": {"nvidia.com/gpu": "0.5"}}}]}, "status": {"phase": "Running"}})
json.dump(d, open(sys.argv[2], "w"))
EOF
"$TCPXO_AGENT" workloads --nodes-file "$T/nodes.json" --pods-file "$T/pods-odd-gpu.json" --node a3-mega >"$T/out" 2>"$T/err"
judge workloads-published-unreadable-gpu-pod $? <<'EOF'
eq(rc, 2, "exit: a GPU pod not judged")
ok(out.startswith("workloads: 0 unattached, 0 partial, 1 attached on a3-mega\n"), "stdout %r" % out[:200])
ok("unknown: 1 pod that may request GPUs could not be read" in err, err)
EOF

PATH=$FPATH "$FABRIC" workloads no-such-node >"$T/out" 2>"$T/err"
judge kubectl-fabric-workloads-unknown-node $? <<'EOF'
eq(rc, 2, "exit")
eq(err, "kubectl-fabric: workloads: node no-such-node is not in the cluster, or publishes no tcpxo or tcpx profile "
   "(fabric.aicr.run/profile): its facts are unknown\n", "stderr")
EOF

PATH=$FPATH "$FABRIC" workloads 'a,metadata.name!=b' >"$T/out" 2>"$T/err"
judge kubectl-fabric-workloads-bad-name $? <<'EOF'
eq(rc, 2, "exit: not a node name, never handed to kubectl's field selector")
ok(err.startswith("kubectl-fabric: workloads: 'a,metadata.name!=b' is not a node name"), "stderr %r" % err)
EOF

# runtime: the nodes, the named runtime, the Networks (no such resource here: the finding says so, as the API's 404).
: >"$T/kubectl.argv"
PATH=$FPATH "$FABRIC" runtime --name torch-distributed-tcpxo --json --context c3 >"$T/out" 2>"$T/err"
judge kubectl-fabric-runtime $? <<EOF
ok(rc in (0, 1), "exit %d: %r" % (rc, err[:300]))
eq(j["runtime"], "torch-distributed-tcpxo", "runtime")
f = [f for f in j["findings"] if f["id"] == "networks-published"]
eq([x["status"] for x in f], ["fail"], "networks-published")
ok("no networks.networking.gke.io resource (404)" in f[0]["message"], "message %r" % f[0]["message"])
eq(open("$T/kubectl.argv").read(), "--context c3 get nodes -o json\n"
   "--context c3 get clustertrainingruntimes.trainer.kubeflow.org torch-distributed-tcpxo -o json\n"
   "--context c3 get networks.networking.gke.io -o json\n", "kubectl argv")
EOF

# A kubectl that floods stderr before it answers (both pipes are read at once: no stall), and one whose Networks
# never end (read up to the bound of --networks-file, then stopped: the finding says why).
cat >"$T/bin/kubectl-flood" <<EOF
#!/bin/sh
case "\$*" in
*"get nodes"*) i=0; while [ \$i -lt 2000 ]; do
	echo "I1205 10:00:00.000000 4242 round_trippers.go:553] GET https://k/api/v1/nodes 200 OK in 3 milliseconds \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i \$i" >&2
	i=\$((i + 1)); done
   cat "$T/nodes.json" ;;
*"get clustertrainingruntimes.trainer.kubeflow.org"*) cat "$TOPDIR/fixtures/runtime/aicr-tcpxo.json" ;;
*) exec yes '{"kind": "NetworkList", "items": []}' ;;
esac
EOF
chmod +x "$T/bin/kubectl-flood"
PATH=$FPATH KUBECTL=kubectl-flood timeout -s KILL 60 "$FABRIC" status -o json >"$T/out" 2>"$T/err"
judge kubectl-fabric-stderr-flood $? <<EOF
$ACCEPT
EOF
PATH=$FPATH KUBECTL=kubectl-flood timeout -s KILL 60 "$FABRIC" runtime --name torch-distributed-tcpxo -o json >"$T/out" 2>"$T/err"
judge kubectl-fabric-endless-answer $? <<'EOF'
ok(rc in (0, 1), "exit %d (not killed by the timeout): %r" % (rc, err[:300]))
f = [f for f in j["findings"] if f["id"] == "networks-published"][0]
eq(f["status"], "skip", "networks-published")
ok("kubectl get networks.networking.gke.io: its answer is larger than 16 MiB" in f["message"], "message %r" % f["message"])
EOF

# interfaces: three of the four TCPXO nodes are not ready, so the fleet is incoherent (exit 1, nothing on stdout).
PATH=$FPATH "$FABRIC" interfaces -o json >"$T/out" 2>"$T/err"
judge kubectl-fabric-interfaces $? <<'EOF'
eq((rc, out), (1, ""), "exit, stdout")
ok("not ready: 3 nodes" in err, "stderr %r" % err[:300])
EOF

# Files instead of kubectl: the same program reads what it is given.
: >"$T/kubectl.argv"
PATH=$FPATH "$FABRIC" status -o json --nodes-file - <"$T/nodes.json" >"$T/out" 2>"$T/err"
judge kubectl-fabric-nodes-file $? <<EOF
$ACCEPT
eq(open("$T/kubectl.argv").read(), "", "kubectl not run")
EOF

PATH=$FPATH "$FABRIC" --help >"$T/out" 2>"$T/err"
judge kubectl-fabric-help $? <<'EOF'
eq(rc, 0, "exit")
ok("\nUsage:\n  kubectl fabric interfaces [OPTIONS]" in out, "usage %r" % out[:400])
EOF
PATH=$FPATH "$FABRIC" status --help >"$T/out" 2>"$T/err"
judge kubectl-fabric-status-help $? <<'EOF'
eq(rc, 0, "exit")
ok(out.startswith("Usage:\n  kubectl fabric status [OPTIONS]\n"), "usage %r" % out[:80])
ok("--context NAME" in out and "--nodes-file F" in out and "--api-server" not in out and "--root" not in out,
   "its own options, kubectl's flags: %r" % out)
EOF
PATH=$FPATH "$FABRIC" >"$T/out" 2>"$T/err"
judge kubectl-fabric-no-command $? <<'EOF'
eq((rc, out), (2, ""), "exit, stdout")
eq(err, "kubectl-fabric: which command? status, interfaces, runtime or workloads NODE (try --help)\n", "stderr")
EOF
PATH=$FPATH "$FABRIC" version -o json >"$T/out" 2>"$T/err"
judge kubectl-fabric-version $? <<'EOF'
eq(rc, 0, "exit")
eq(j["name"], "kubectl-fabric", "name")
EOF

exit $failed
