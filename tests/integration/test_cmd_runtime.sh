#!/bin/sh
# test_cmd_runtime.sh - `tcpxo-agent runtime`: AICR's runtime as YAML and JSON against a published fleet, one mutation per
# finding, a TCPX fleet, mixed and skewed fleets, hostile manifests (clear error, bounded memory), the JSON schema, and
# the API path against tests/lib/fakeapi.py (the runtime installed, not installed, no Trainer CRD; Networks).
# Env: TOPDIR (repo root), BUILD, TCPXO_AGENT (the binary). Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
FIX=$TOPDIR/fixtures/runtime
PY=/usr/bin/python3
failed=0

if [ ! -x "$AGENT" ]; then
	nok "runtime" "$AGENT is not built"
	exit 1
fi
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-runtime.XXXXXX") || exit 2
api_pid=""
cleanup() {
	[ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null && wait "$api_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT


for f in tcpxo tcpx mixed skew; do
	if ! $PY "$FIX/gen.py" --fleet $f --nodes 64 --out "$tmp/fleet-$f.json"; then
		nok "runtime" "fixtures/runtime/gen.py --fleet $f failed"
		exit 1
	fi
done

# run NAME RC ARGS...: the runtime command on files; stdout in $tmp/out, stderr in $tmp/err.
run() {
	name=$1 want=$2
	shift 2
	"$AGENT" runtime "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		nok "$name" "exit $rc, want $want: $(head -c 300 "$tmp/err")$(head -n 1 "$tmp/out" | head -c 300)"
		return 1
	fi
	return 0
}

# first NAME TEXT: the first line of stdout is TEXT.
first() {
	if [ "$(head -n 1 "$tmp/out")" = "$2" ]; then ok "$1"; else nok "$1" "first line: $(head -n 1 "$tmp/out" | head -c 400)"; fi
}

# row NAME ID JOB STATUS TEXT: the table has that finding with that status and TEXT in its detail.
row() {
	if awk -v id="$2" -v job="$3" -v st="$4" -v t="$5" '
		$1 == id && $2 == job && $3 == st && index($0, t) { found = 1 }
		END { exit !found }' "$tmp/out"; then
		ok "$1"
	else
		nok "$1" "no row '$2 $3 $4 ...$5': $(grep "^  $2 " "$tmp/out" | head -n 3 | tr '\n' '|' | head -c 400)"
	fi
}

FLEET="--nodes-file $tmp/fleet-tcpxo.json --networks-file $FIX/networks.json"

# --- AICR's runtime, rendered: it matches, except what is really wrong with it ---
if run aicr-yaml 0 $FLEET --runtime-file "$FIX/aicr-tcpxo.yaml"; then
	first aicr-yaml "runtime torch-distributed-tcpxo: matches 64 TCPXO nodes (1 warning: daemon-args of job node)"
	row aicr-yaml/num-nics daemon-args node WARN "--num_nics was retired in daemon v1.0.20 (accepted, no effect)"
	row aicr-yaml/env-pin env-pin - pass "the 23 NCCL variables of installer v1.0.15's release notes"
	row aicr-yaml/pin daemon-pin - pass "pinned by the release table's digest"
	if [ "$(grep -c ' FAIL ' "$tmp/out")" = 0 ] && [ "$(grep -c '^  [a-z-]* ' "$tmp/out")" = 20 ]; then
		ok aicr-yaml/table
	else
		nok aicr-yaml/table "$(grep -c '^  [a-z-]* ' "$tmp/out") rows, $(grep -c ' FAIL ' "$tmp/out") failing"
	fi
	cp "$tmp/out" "$tmp/yaml.out"
fi
if run aicr-json 0 $FLEET --runtime-file "$FIX/aicr-tcpxo.json"; then
	if cmp -s "$tmp/out" "$tmp/yaml.out"; then ok aicr-json/same-as-yaml; else
		nok aicr-json/same-as-yaml "$(diff "$tmp/yaml.out" "$tmp/out" | head -n 4 | tr '\n' '|')"; fi
fi
# The same from standard input.
if "$AGENT" runtime $FLEET --runtime-file - <"$FIX/aicr-tcpxo.yaml" >"$tmp/out" 2>"$tmp/err" &&
   cmp -s "$tmp/out" "$tmp/yaml.out"; then ok aicr-stdin; else nok aicr-stdin "$(head -c 300 "$tmp/err")"; fi

# --- one mutation per finding: the summary names the first failure ---
mutation() {  # NAME RC SUMMARY [ROW: ID JOB STATUS TEXT] [extra args...]
	m=$1 want=$2 summary=$3
	shift 3
	extra=""
	[ "$m" = wrong-name ] && extra="--name torch-distributed-tcpx"
	if run "mutation/$m" "$want" $FLEET --runtime-file "$FIX/mutations/$m.json" $extra; then
		first "mutation/$m" "$summary"
		[ $# -ge 4 ] && row "mutation/$m/row" "$1" "$2" "$3" "$4"
	fi
}
S="runtime torch-distributed-tcpxo: does not match"
mutation skewed-sidecar 1 "$S: daemon-version (job node): container tcpxo-daemon runs daemon v1.0.20, which does not pair with the installed plugin v1.0.15 (expects v1.0.21)" \
	daemon-pin - WARN "is not pinned by digest"
mutation eth-swap 1 "$S: mapping: eth3 is a3pool-gpu-nic-4 in the runtime, a3pool-gpu-nic-3 on 64 nodes; eth4 is a3pool-gpu-nic-3 in the runtime, a3pool-gpu-nic-4 on 64 nodes" \
	interfaces node FAIL "eth3 -> a3pool-gpu-nic-4 (a3pool-gpu-nic-3)"
mutation unpublished-network 1 "$S: networks-published: Network vpc4 (eth3 of job node) is not a Network of the cluster" \
	mapping - FAIL "eth3 is vpc4 in the runtime, a3pool-gpu-nic-3 on 64 nodes"
mutation eth0-only 1 "$S: empty-mapping: job node: networking.gke.io/interfaces binds eth0 only: the renderer's visibly broken output when its mapping value was absent" \
	mapping - skip "(see empty-mapping)"
mutation no-aperture-volume 1 "$S: aperture (job node): container node does not mount hostPath /dev/aperture_devices: the plugin then reads /sys/bus/pci/devices, read-only in an unprivileged pod"
mutation tcpx-env 1 "$S: env-pin: job node, container node: 8 of installer v1.0.15's variables are not set: NCCL_FASTRAK_IFNAME, NCCL_FASTRAK_CTRL_DEV, NCCL_FASTRAK_NUM_FLOWS, NCCL_FASTRAK_ENABLE_CONTROL_CHANNEL, NCCL_FASTRAK_USE_SNAP, NCCL_FASTRAK_USE_LLCM and 2 more; job node, container node sets variables the release does not: NCCL_GPUDIRECTTCPX_SOCKET_IFNAME, NCCL_GPUDIRECTTCPX_CTRL_DEV, NCCL_GPUDIRECTTCPX_TX_BINDINGS, NCCL_GPUDIRECTTCPX_RX_BINDINGS, NCCL_GPUDIRECTTCPX_PROGRAM_FLOW_STEERING_WAIT_MICROS" \
	nccl-env node FAIL "a TCPX variable, on a tcpxo node"
mutation tag-only 0 "runtime torch-distributed-tcpxo: matches 64 TCPXO nodes (2 warnings: daemon-pin, daemon-args of job node)" \
	daemon-pin - WARN "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21 is not pinned by digest"
mutation wrong-digest 1 "$S: daemon-pin: job node, container tcpxo-daemon: the digest sha256:000000000000… is not the release table's digest of v1.0.21 (sha256:8d9e10fd589a…)"
mutation gpu-16 1 "$S: gpus: job node requests 16 nvidia.com/gpu per pod, the fleet's nodes have 8" \
	all-gpus node pass "requests 16 of the node's 8 GPUs"
mutation wrong-name 1 "runtime torch-distributed-tcpx: does not match: name: named torch-distributed-tcpx: its suffix names TCPX, the fleet is TCPXO (its nodes publish torch-distributed-tcpxo)"

# --- a TCPX fleet with a TCPX runtime ---
if run tcpx 0 --nodes-file "$tmp/fleet-tcpx.json" --networks-file "$FIX/networks.json" --runtime-file "$FIX/tcpx.yaml"; then
	first tcpx "runtime torch-distributed-tcpx: matches 64 TCPX nodes (1 warning: daemon-pin)"
	row tcpx/mapping mapping - skip "TCPX nodes publish no mapping"
	row tcpx/env env-pin - pass "the 18 NCCL variables of installer v3.1.12's release notes"
	row tcpx/sockets daemon-mounts node pass "has its host mounts and capabilities"
fi
# The TCPXO runtime on the TCPX fleet: its name, daemon and variables are the other fabric's.
if run tcpx/wrong-fabric 1 --nodes-file "$tmp/fleet-tcpx.json" --runtime-file "$FIX/aicr-tcpxo.yaml" --name torch-distributed-tcpxo; then
	row tcpx/wrong-fabric name - FAIL "its suffix names TCPXO, the fleet is TCPX"
fi

# --- both fabrics: --name picks the runtime, its wiring the fleet ---
if run mixed/no-name 2 --nodes-file "$tmp/fleet-mixed.json" --runtime-file "$FIX/tcpx.yaml"; then
	if grep -q "the cluster has 64 TCPXO and 32 TCPX nodes: name the runtime to check with --name" "$tmp/err"; then
		ok mixed/no-name; else nok mixed/no-name "$(head -c 300 "$tmp/err")"; fi
fi
if run mixed/tcpx 0 --nodes-file "$tmp/fleet-mixed.json" --runtime-file "$FIX/tcpx.yaml" --name torch-distributed-tcpx; then
	first mixed/tcpx "runtime torch-distributed-tcpx: matches 32 TCPX nodes (1 warning: daemon-pin)"
fi
run mixed/tcpxo 0 --nodes-file "$tmp/fleet-mixed.json" --runtime-file "$FIX/aicr-tcpxo.yaml" --name torch-distributed-tcpxo &&
	first mixed/tcpxo "runtime torch-distributed-tcpxo: matches 64 TCPXO nodes (1 warning: daemon-args of job node)"

# --- two installer releases in the fleet ---
if run skew 1 --nodes-file "$tmp/fleet-skew.json" --runtime-file "$FIX/aicr-tcpxo.yaml"; then
	row skew daemon-version - FAIL "the TCPXO nodes disagree on the installed plugin release: v1.0.15 on 60 nodes"
	row skew/env env-pin - pass "installer v1.0.15's release notes"
fi

# --- no Networks given and no API: networks-published says so ---
if run no-networks 0 --nodes-file "$tmp/fleet-tcpxo.json" --runtime-file "$FIX/aicr-tcpxo.yaml"; then
	row no-networks networks-published - skip "no Network list: read from the API, or give kubectl get networks.networking.gke.io -o json with --networks-file"
fi

# --- unknown: no fleet, no runtime of that name, bad usage ---
expect_err() {  # NAME RC TEXT ARGS...: exit RC and TEXT on stderr
	n=$1 want=$2 text=$3
	shift 3
	if run "$n" "$want" "$@"; then
		if grep -qF -- "$text" "$tmp/err"; then ok "$n"; else nok "$n" "stderr: $(head -c 400 "$tmp/err")"; fi
	fi
}
expect_err unknown/absent-name 2 "no ClusterTrainingRuntime or TrainingRuntime named llama; it holds ClusterTrainingRuntime torch-distributed, ClusterTrainingRuntime torch-distributed-tcpxo, and 2 objects of other kinds (ServiceAccount, ConfigMap)" \
	$FLEET --runtime-file "$FIX/aicr-tcpxo.yaml" --name llama
expect_err unknown/no-fleet 2 "no node publishes a tcpxo or tcpx profile (other.example/profile)" \
	--nodes-file "$TOPDIR/fixtures/nodelists/zero-tcpxo.json" --runtime-file "$FIX/aicr-tcpxo.yaml" --name x --prefix other.example/
expect_err unknown/no-api 2 "no Kubernetes API configured" --runtime-file "$FIX/aicr-tcpxo.yaml"
expect_err unknown/no-runtime-source 2 "and no --runtime-file" --nodes-file "$tmp/fleet-tcpxo.json"
expect_err unknown/not-a-nodelist 2 "expected kind NodeList or List (kubectl get nodes -o json), got 'ClusterTrainingRuntime'" \
	--nodes-file "$FIX/aicr-tcpxo.json" --runtime-file "$FIX/aicr-tcpxo.yaml"
expect_err unknown/bad-networks 2 "--networks-file" --nodes-file "$tmp/fleet-tcpxo.json" --runtime-file "$FIX/aicr-tcpxo.yaml" \
	--networks-file "$FIX/aicr-tcpxo.yaml"
expect_err unknown/selector-with-file 2 "--selector filters the API's node list" --selector a=b $FLEET --runtime-file "$FIX/aicr-tcpxo.yaml"

# --- hostile manifests: a clear error naming the place, and memory bounded by one document ---
$PY - "$tmp" <<'PYEOF'
import os, sys
d = sys.argv[1]
def w(name, data):
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)
bomb = b'a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
for i in range(1, 9):
    bomb += b"a%d: &a%d [%s]\n" % (i, i, b",".join([b"*a%d" % (i - 1)] * 9))
w("bomb.yaml", bomb)
w("deep.yaml", b"kind: ClusterTrainingRuntime\nspec: " + b"[" * 200 + b"]" * 200 + b"\n")
w("deep.json", b'{"kind":"ClusterTrainingRuntime","spec":' + b'{"a":' * 200 + b"1" + b"}" * 201)
# 10 MB of small nodes: the worst case for a tree (one node per 8 bytes); and four times as much.
w("big.yaml", b"apiVersion: v1\nkind: List\nmetadata: {name: big}\nitems:\n" + b"  - value\n" * (1 << 20))
w("big4x.yaml", b"apiVersion: v1\nkind: List\nmetadata: {name: big}\nitems:\n" + b"  - value\n" * (4 << 20))
w("latin1.yaml", b"apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata:\n  name: torch-\xe9\n")
w("utf16.yaml", "kind: ClusterTrainingRuntime\n".encode("utf-16"))
w("kinds.yaml", b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: torch-distributed-tcpxo}\n---\n"
  b"apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: torch-distributed-tcpxo}\n")
w("old-group.yaml", b"apiVersion: kubeflow.org/v1\nkind: ClusterTrainingRuntime\nmetadata: {name: torch-distributed-tcpxo}\n")
PYEOF
hostile() {  # NAME FILE TEXT
	expect_err "hostile/$1" 2 "$3" --nodes-file "$tmp/fleet-tcpxo.json" --runtime-file "$tmp/$2"
}
hostile bomb bomb.yaml "aliases expand to more than 100000 nodes"
hostile deep-yaml deep.yaml "nested deeper than 64 levels"
hostile deep-json deep.json "nested deeper than 64 levels"
hostile big big.yaml "document 1 (from line 1) is larger than 4194304 bytes"
hostile latin1 latin1.yaml "line 4, column 15: not UTF-8 text without control characters"
hostile utf16 utf16.yaml "UTF-16 text (byte order mark): only UTF-8 is read"
hostile kinds kinds.yaml "no ClusterTrainingRuntime or TrainingRuntime named torch-distributed-tcpxo; it holds 2 objects of other kinds (Deployment, PyTorchJob)"
hostile old-group old-group.yaml "document 1 (line 1): apiVersion kubeflow.org/v1 is not in the group trainer.kubeflow.org"
# Memory: the refused document's tree stops at the limit; a text four times larger costs its own bytes, not four times the tree.
if [ "${SAN:-0}" = 1 ]; then
	skip "hostile/bounded-memory" "SAN=1 (AddressSanitizer's shadow and quarantine are not the agent's memory)"
else
$PY - "$AGENT" "$tmp" <<'PYEOF' || failed=1
import os, sys
agent, d = sys.argv[1], sys.argv[2]
def maxrss_kib(path):
    # posix_spawn: the child shares no pages of this process, so ru_maxrss is the agent's own.
    fa = [(os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0), (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    pid = os.posix_spawn(agent, [agent, "runtime", "--nodes-file", os.path.join(d, "fleet-tcpxo.json"),
                                 "--runtime-file", os.path.join(d, path)], os.environ, file_actions=fa)
    _, status, ru = os.wait4(pid, 0)
    return os.waitstatus_to_exitcode(status), ru.ru_maxrss
rc1, small = maxrss_kib("big.yaml")
rc4, large = maxrss_kib("big4x.yaml")
text1, text4 = os.path.getsize(os.path.join(d, "big.yaml")), os.path.getsize(os.path.join(d, "big4x.yaml"))
grow = (large - small) * 1024
# One document's tree is bounded (the 4 MiB limit); the text itself is read whole.
if rc1 == 2 and rc4 == 2 and grow < (text4 - text1) + (16 << 20) and large < (text4 >> 10) + 160 * 1024:
    print("ok hostile/bounded-memory")
else:
    print("not ok hostile/bounded-memory: exit %d/%d, max RSS %d KiB for %d bytes, %d KiB for %d bytes"
          % (rc1, rc4, small, text1, large, text4))
    sys.exit(1)
PYEOF
fi

# --- the JSON output against docs/schema/runtime.schema.json, for every case above's input ---
if ! $PY -c 'import jsonschema; jsonschema.Draft202012Validator' 2>/dev/null; then
	nok schema "/usr/bin/python3 has no jsonschema with draft 2020-12 (apt-get install python3-jsonschema)"
else
	for m in "$FIX"/aicr-tcpxo.yaml "$FIX"/mutations/*.json; do
		extra=""
		case "$m" in */wrong-name.json) extra="--name torch-distributed-tcpx" ;; esac
		"$AGENT" runtime --json $FLEET --runtime-file "$m" $extra >"$tmp/json.$(basename "$m")" 2>/dev/null
	done
	"$AGENT" runtime --json --nodes-file "$tmp/fleet-tcpx.json" --runtime-file "$FIX/tcpx.yaml" >"$tmp/json.tcpx" 2>/dev/null
	"$AGENT" runtime --json --nodes-file "$tmp/fleet-skew.json" --runtime-file "$FIX/aicr-tcpxo.yaml" >"$tmp/json.skew" 2>/dev/null
	TOPDIR=$TOPDIR $PY - "$tmp" <<'PYEOF' || failed=1
import glob, json, os, sys
from jsonschema import Draft202012Validator
with open(os.path.join(os.environ["TOPDIR"], "docs", "schema", "runtime.schema.json")) as f:
    schema = json.load(f)
Draft202012Validator.check_schema(schema)
v = Draft202012Validator(schema)
RT = ["name", "networks-published", "mapping", "daemon-pin", "env-pin", "gpus", "scheduling", "empty-mapping"]
bad = 0
for path in sorted(glob.glob(os.path.join(sys.argv[1], "json.*"))):
    name = "schema/" + os.path.basename(path)[5:]
    with open(path) as f:
        doc = json.load(f)
    errs = ["%s: %s" % ("/".join(map(str, e.absolute_path)) or "(top)", e.message[:160]) for e in v.iter_errors(doc)]
    ids = [x["id"] for x in doc["findings"] if x["template"] is None]
    if ids[:8] != RT:
        errs.append("runtime-level findings %s, not in DESIGN.md's order" % ids)
    if doc["matches"] != (not any(x["status"] == "fail" for x in doc["findings"])):
        errs.append("matches disagrees with the findings")
    if errs:
        bad = 1
        print("not ok %s: %s" % (name, "; ".join(errs)[:600]))
    else:
        print("ok %s" % name)
sys.exit(bad)
PYEOF
	# A broken document is refused: the schema is strict.
	$PY - "$TOPDIR/docs/schema/runtime.schema.json" "$tmp/json.aicr-tcpxo.yaml" <<'PYEOF' || failed=1
import copy, json, sys
from jsonschema import Draft202012Validator
v = Draft202012Validator(json.load(open(sys.argv[1])))
doc = json.load(open(sys.argv[2]))
cases = {"unknown-id": lambda d: d["findings"][0].update(id="names"),
         "remedy-on-pass": lambda d: d["findings"][0].update(remedy="x"),
         "template-finding-at-runtime-level": lambda d: d["findings"][0].update(id="aperture"),
         "extra-member": lambda d: d.update(extra=1),
         "summary": lambda d: d.update(summary="runtime x: fine")}
bad = 0
for n, f in cases.items():
    d = copy.deepcopy(doc)
    f(d)
    if v.is_valid(d):
        bad = 1
        print("not ok schema/negative/%s: accepted" % n)
    else:
        print("ok schema/negative/%s" % n)
sys.exit(bad)
PYEOF
fi

# --- the API: the runtime as installed, not installed, no Trainer; Networks read or forbidden ---
FAKEAPI=$TOPDIR/tests/lib/fakeapi.py
state=$tmp/state
mkdir -p "$state"
if ! sh "$TOPDIR/tests/lib/certs.sh" "$tmp/certs" >/dev/null 2>&1; then
	nok api "tests/lib/certs.sh failed"
	exit 1
fi
printf 'tok-%s\n' "$$" >"$state/token"
cp "$tmp/fleet-tcpxo.json" "$state/nodes.json"
cp "$FIX/networks.json" "$state/networks.json"
$PY -c 'import json, sys
rt = json.load(open(sys.argv[1]))
json.dump({"apiVersion": "trainer.kubeflow.org/v1alpha1", "kind": "ClusterTrainingRuntimeList", "metadata": {},
           "items": [rt]}, open(sys.argv[2], "w"))' "$FIX/aicr-tcpxo.json" "$state/clustertrainingruntimes.json"
$PY "$FAKEAPI" --state "$state" --port-file "$tmp/port" --cert "$tmp/certs/server.crt" --key "$tmp/certs/server.key" \
	--max-seconds 300 2>"$tmp/fakeapi.err" &
api_pid=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -s "$tmp/port" ]; then
	nok api "the fake API server did not start: $(head -c 300 "$tmp/fakeapi.err")"
	exit 1
fi
API="--api-server https://127.0.0.1:$(cat "$tmp/port") --token-file $state/token --ca-file $tmp/certs/ca.crt"
requests() {  # the GETs the server received since the last call, "PATH?QUERY STATUS" a line
	$PY -c 'import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print("%s%s %s" % (r["path"], "?" + r["query"] if r["query"] else "", r["status"]))' "$state/requests.log" \
		>"$tmp/requests" 2>/dev/null || : >"$tmp/requests"
	rm -f "$state/requests.log"
}
rm -f "$state/requests.log"
if run api/installed 0 $API; then
	cmp -s "$tmp/out" "$tmp/yaml.out" && ok api/installed || nok api/installed "differs from the file run: $(diff "$tmp/yaml.out" "$tmp/out" | head -n 4 | tr '\n' '|')"
	requests
	want="/api/v1/nodes?limit=500 200
/apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed-tcpxo 200
/apis/networking.gke.io/v1/networks 200"
	[ "$(cat "$tmp/requests")" = "$want" ] && ok api/requests || nok api/requests "$(tr '\n' '|' <"$tmp/requests")"
fi
rm -f "$state/requests.log"
expect_err api/not-installed 2 "ClusterTrainingRuntime torch-distributed-tcpx is not installed (GET /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed-tcpx: 404)" \
	$API --name torch-distributed-tcpx
run api/selector 0 $API --selector cloud.google.com/gke-nodepool=a3pool >/dev/null && {
	requests
	grep -q '^/api/v1/nodes?limit=500&labelSelector=cloud.google.com%2Fgke-nodepool%3Da3pool 200$' "$tmp/requests" &&
		ok api/selector || nok api/selector "$(tr '\n' '|' <"$tmp/requests")"
}
# Networks not allowed: the finding is skipped, saying so; the runtime still matches.
printf '{"forbidden": ["networks"]}\n' >"$state/settings"
if run api/networks-forbidden 0 $API; then
	row api/networks-forbidden networks-published - skip "the Network list could not be read (GET /apis/networking.gke.io/v1/networks"
fi
rm -f "$state/settings"
# No multi-networking CRD: no Network the runtime names exists.
mv "$state/networks.json" "$tmp/networks.saved"
if run api/no-network-crd 1 $API; then
	row api/no-network-crd networks-published - FAIL "the cluster has no networks.networking.gke.io resource (404)"
fi
mv "$tmp/networks.saved" "$state/networks.json"
# No Kubeflow Trainer: the resource itself is absent.
rm -f "$state/clustertrainingruntimes.json"
expect_err api/no-trainer 2 "the API has no clustertrainingruntimes.trainer.kubeflow.org resource (GET /apis/trainer.kubeflow.org/v1alpha1/clustertrainingruntimes/torch-distributed-tcpxo: 404): Kubeflow Trainer v2 is not installed" $API
# Files and the API together: --runtime-file wins for the runtime, the API gives the fleet and the Networks.
rm -f "$state/requests.log"
run api/file-runtime 1 $API --runtime-file "$FIX/mutations/eth-swap.json" &&
	first api/file-runtime "runtime torch-distributed-tcpxo: does not match: mapping: eth3 is a3pool-gpu-nic-4 in the runtime, a3pool-gpu-nic-3 on 64 nodes; eth4 is a3pool-gpu-nic-3 in the runtime, a3pool-gpu-nic-4 on 64 nodes"
exit $failed
