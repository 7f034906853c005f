#!/bin/sh
# test_interfaces.sh - `tcpxo-agent interfaces --nodes-file`: exact stdout, stderr and exit code per NodeList fixture.
# Env: TOPDIR (repo root), BUILD, TCPXO_AGENT (the binary). Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
FIX=$TOPDIR/fixtures/nodelists
failed=0

if [ ! -x "$AGENT" ]; then
	nok "interfaces" "$AGENT is not built"
	exit 1
fi
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-ifaces.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
# No in-cluster environment may leak in: without --nodes-file the command must not find an API.
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT

# check NAME RC: compare $tmp/out, $tmp/err and the exit code with $tmp/want.out, $tmp/want.err, RC.
check() {
	name=$1 want_rc=$2 got_rc=$3
	why=""
	[ "$got_rc" = "$want_rc" ] || why="exit $got_rc, want $want_rc"
	cmp -s "$tmp/out" "$tmp/want.out" || why="${why:+$why; }stdout differs: $(diff "$tmp/want.out" "$tmp/out" | head -n 6 | tr '\n' '|')"
	cmp -s "$tmp/err" "$tmp/want.err" || why="${why:+$why; }stderr differs: $(diff "$tmp/want.err" "$tmp/err" | head -n 6 | tr '\n' '|')"
	if [ -z "$why" ]; then
		ok "$name"
	else
		nok "$name" "$why"
	fi
}

# run NAME RC ARGS...: run the agent's interfaces command with ARGS, then check.
run() {
	name=$1 rc=$2
	shift 2
	"$AGENT" interfaces "$@" >"$tmp/out" 2>"$tmp/err"
	check "$name" "$rc" $?
}

want_out() { cat >"$tmp/want.out"; }
want_err() { cat >"$tmp/want.err"; }
no_out() { : >"$tmp/want.out"; }

X=gke-train-a3mega-5c1e7a90

# --- 16 coherent nodes: the four formats, byte for byte ---
want_err <<'EOF_'
coherent: 16 TCPXO nodes carry the same mapping
EOF_
want_out <<'EOF_'
eth1=gpu-nic-0,eth2=gpu-nic-1,eth3=gpu-nic-2,eth4=gpu-nic-3,eth5=gpu-nic-4,eth6=gpu-nic-5,eth7=gpu-nic-6,eth8=gpu-nic-7
EOF_
run coherent-flag 0 --nodes-file "$FIX/coherent-16.json"
run coherent-flag-explicit 0 --format flag --nodes-file "$FIX/coherent-16.json"
"$AGENT" interfaces --nodes-file - <"$FIX/coherent-16.json" >"$tmp/out" 2>"$tmp/err"
check coherent-stdin 0 $?
want_out <<'EOF_'
tcpxoInterfaces:
  - interfaceName: eth1
    network: gpu-nic-0
  - interfaceName: eth2
    network: gpu-nic-1
  - interfaceName: eth3
    network: gpu-nic-2
  - interfaceName: eth4
    network: gpu-nic-3
  - interfaceName: eth5
    network: gpu-nic-4
  - interfaceName: eth6
    network: gpu-nic-5
  - interfaceName: eth7
    network: gpu-nic-6
  - interfaceName: eth8
    network: gpu-nic-7
EOF_
run coherent-yaml 0 --format yaml --nodes-file "$FIX/coherent-16.json"
want_out <<'EOF_'
[{"interfaceName":"eth1","network":"gpu-nic-0"},{"interfaceName":"eth2","network":"gpu-nic-1"},{"interfaceName":"eth3","network":"gpu-nic-2"},{"interfaceName":"eth4","network":"gpu-nic-3"},{"interfaceName":"eth5","network":"gpu-nic-4"},{"interfaceName":"eth6","network":"gpu-nic-5"},{"interfaceName":"eth7","network":"gpu-nic-6"},{"interfaceName":"eth8","network":"gpu-nic-7"}]
EOF_
run coherent-json 0 --format json --nodes-file "$FIX/coherent-16.json"

# The AICRConfig document `aicr recipe --config` reads: AICR takes the mapping at recipe time only
# (spec.recipe.configuration.gke.tcpxoInterfaces, NVIDIA/aicr pkg/recipe/gke_tcpxo.go).
want_out <<'EOF_'
apiVersion: aicr.run/v1beta1
kind: AICRConfig
spec:
  recipe:
    configuration:
      gke:
        tcpxoInterfaces:
          - interfaceName: eth1
            network: gpu-nic-0
          - interfaceName: eth2
            network: gpu-nic-1
          - interfaceName: eth3
            network: gpu-nic-2
          - interfaceName: eth4
            network: gpu-nic-3
          - interfaceName: eth5
            network: gpu-nic-4
          - interfaceName: eth6
            network: gpu-nic-5
          - interfaceName: eth7
            network: gpu-nic-6
          - interfaceName: eth8
            network: gpu-nic-7
EOF_
run coherent-aicrconfig 0 --format aicrconfig --nodes-file "$FIX/coherent-16.json"
# Names outside AICR's gpu-nic rule print only with --any-network-names, as in every format.
want_out <<'EOF_'
apiVersion: aicr.run/v1beta1
kind: AICRConfig
spec:
  recipe:
    configuration:
      gke:
        tcpxoInterfaces:
          - interfaceName: eth1
            network: vpc1
          - interfaceName: eth2
            network: vpc2
          - interfaceName: eth3
            network: vpc3
          - interfaceName: eth4
            network: vpc4
          - interfaceName: eth5
            network: vpc5
          - interfaceName: eth6
            network: vpc6
          - interfaceName: eth7
            network: vpc7
          - interfaceName: eth8
            network: vpc8
EOF_
"$AGENT" interfaces --any-network-names --format aicrconfig --nodes-file "$FIX/vpc-16.json" >"$tmp/out" 2>/dev/null
rc=$?
: >"$tmp/err"
: >"$tmp/want.err"
check vpc-names-any-aicrconfig 0 $rc
want_err <<'EOF_'
tcpxo-agent: --format: expected flag, yaml, json or aicrconfig, got 'helm'
EOF_
no_out
run format-unknown 2 --format helm --nodes-file "$FIX/coherent-16.json"
want_err <<'EOF_'
coherent: 16 TCPXO nodes carry the same mapping
EOF_

# The YAML is what Helm reads, and the JSON is the annotation's own shape.
if /usr/bin/python3 -c 'import yaml' 2>/dev/null; then
	"$AGENT" interfaces --format yaml --nodes-file "$FIX/coherent-16.json" 2>/dev/null >"$tmp/y"
	"$AGENT" interfaces --format json --nodes-file "$FIX/coherent-16.json" 2>/dev/null >"$tmp/j"
	"$AGENT" interfaces --format aicrconfig --nodes-file "$FIX/coherent-16.json" 2>/dev/null >"$tmp/a"
	if /usr/bin/python3 - "$tmp/y" "$tmp/j" "$tmp/a" <<'EOF_'
import json, sys, yaml
y = yaml.safe_load(open(sys.argv[1]))["tcpxoInterfaces"]
j = json.load(open(sys.argv[2]))
a = yaml.safe_load(open(sys.argv[3]))
want = [{"interfaceName": "eth%d" % (i + 1), "network": "gpu-nic-%d" % i} for i in range(8)]
ok = a["kind"] == "AICRConfig" and a["apiVersion"] == "aicr.run/v1beta1" and list(a["spec"]) == ["recipe"]
sys.exit(0 if ok and y == j == want == a["spec"]["recipe"]["configuration"]["gke"]["tcpxoInterfaces"] else 1)
EOF_
	then ok "coherent-yaml-json-parse"; else nok "coherent-yaml-json-parse" "YAML, AICRConfig and JSON outputs do not load to the same list"; fi
else
	skip "coherent-yaml-json-parse" "python3-yaml not installed"
fi

# --- every incoherence is named, nothing on stdout, exit 1 ---
no_out
want_err <<EOF_
eth1: 15 nodes → gpu-nic-0, 1 node → gpu-nic-7 ($X-0q2e)
eth8: 15 nodes → gpu-nic-7, 1 node → gpu-nic-0 ($X-0q2e)
incoherent: 16 TCPXO nodes: mappings differ on 2 interfaces; no mapping printed
EOF_
run disagree-one 1 --nodes-file "$FIX/disagree-1.json"
run disagree-one-yaml 1 --format yaml --nodes-file "$FIX/disagree-1.json"

want_err <<EOF_
not ready: 1 node ($X-0q2e)
  version-pair: 1 node ($X-0q2e): daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)
incoherent: 16 TCPXO nodes: 1 not ready; no mapping printed
EOF_
run not-ready-one 1 --nodes-file "$FIX/not-ready-1.json"

want_err <<EOF_
not ready: 2 nodes ($X-0q2e, $X-1mwe)
  version-pair: 2 nodes ($X-0q2e, $X-1mwe): daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)
  links: 1 node ($X-1mwe): eth3 is down (lower layer down)
no fabric.aicr.run/interfaces annotation: 1 node ($X-1mwe)
incoherent: 16 TCPXO nodes: 2 not ready, 1 without a mapping; no mapping printed
EOF_
run not-ready-two 1 --nodes-file "$FIX/not-ready-2.json"

want_err <<EOF_
not yet observed: 1 node ($X-0q2e): labelled a3-megagpu-8g, no fabric.aicr.run/profile annotation yet
incoherent: 16 TCPXO nodes: 1 not yet observed; no mapping printed
EOF_
run not-yet-observed 1 --nodes-file "$FIX/unobserved-1.json"

# One node's eth3 on a3-data-3: AICR's naming rule, and a disagreement with the fleet's eth3.
want_err <<EOF_
mapping breaks the renderer's naming rule: 1 node ($X-0q2e): AICR's renderer requires 'gpu-nic' in each Network name: 'a3-data-3' does not contain it
  the nodes work: the names are AICR's rule, not the fabric's; --any-network-names checks the mapping without it
eth3: 15 nodes → gpu-nic-2, 1 node → a3-data-3 ($X-0q2e)
incoherent: 16 TCPXO nodes: 1 breaking the renderer's naming rule, mappings differ on 1 interface; no mapping printed
EOF_
run non-gpu-nic 1 --nodes-file "$FIX/non-gpu-nic.json"
want_err <<EOF_
eth3: 15 nodes → gpu-nic-2, 1 node → a3-data-3 ($X-0q2e)
incoherent: 16 TCPXO nodes: mappings differ on 1 interface; no mapping printed
EOF_
run non-gpu-nic-any-names 1 --any-network-names --nodes-file "$FIX/non-gpu-nic.json"

# Google's names (vpc1..vpc8): the fleet works; AICR's renderer would refuse them, so by default
# nothing is printed; --any-network-names checks the mapping's shape alone and prints it.
want_err <<EOF_
mapping breaks the renderer's naming rule: 16 nodes ($X-0q2e, $X-1mwe, $X-2iqe, …): AICR's renderer requires 'gpu-nic' in each Network name: 'vpc1', 'vpc2', 'vpc3', 'vpc4', 'vpc5', 'vpc6', 'vpc7', 'vpc8' do not contain it
  the nodes work: the names are AICR's rule, not the fabric's; --any-network-names checks the mapping without it
incoherent: 16 TCPXO nodes: 16 breaking the renderer's naming rule; no mapping printed
EOF_
run vpc-names 1 --nodes-file "$FIX/vpc-16.json"
want_err <<'EOF_'
coherent: 16 TCPXO nodes carry the same mapping
EOF_
want_out <<'EOF_'
eth1=vpc1,eth2=vpc2,eth3=vpc3,eth4=vpc4,eth5=vpc5,eth6=vpc6,eth7=vpc7,eth8=vpc8
EOF_
run vpc-names-any 0 --any-network-names --nodes-file "$FIX/vpc-16.json"
want_out <<'EOF_'
tcpxoInterfaces:
  - interfaceName: eth1
    network: vpc1
  - interfaceName: eth2
    network: vpc2
  - interfaceName: eth3
    network: vpc3
  - interfaceName: eth4
    network: vpc4
  - interfaceName: eth5
    network: vpc5
  - interfaceName: eth6
    network: vpc6
  - interfaceName: eth7
    network: vpc7
  - interfaceName: eth8
    network: vpc8
EOF_
run vpc-names-any-yaml 0 --any-network-names --format yaml --nodes-file "$FIX/vpc-16.json"
no_out
want_err <<'EOF_'
tcpxo-agent: --any-network-names does not apply to --once; it applies to interfaces
EOF_
"$AGENT" --once --any-network-names >"$tmp/out" 2>"$tmp/err"
check any-names-interfaces-only 2 $?

# Another prefix: none of these nodes carry its annotations, so all 16 are "not yet observed".
want_err <<EOF_
not yet observed: 16 nodes ($X-0q2e, $X-1mwe, $X-2iqe, …): labelled a3-megagpu-8g, no example.com/profile annotation yet
incoherent: 16 TCPXO nodes: 16 not yet observed; no mapping printed
EOF_
run other-prefix 1 --prefix example.com/ --nodes-file "$FIX/coherent-16.json"

# --- issue 30: a network name carrying a bidi override (U+202E) and a C1 control (U+009B CSI) reaches no
# terminal: each is one '?' in the message ---
/usr/bin/python3 - "$FIX/coherent-16.json" "$tmp/hostile.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ann = d["items"][0]["metadata"]["annotations"]
m = json.loads(ann["fabric.aicr.run/interfaces"])
m[0]["network"] = "gpu-nic-0\u202e\u009b31m"
ann["fabric.aicr.run/interfaces"] = json.dumps(m)
json.dump(d, open(sys.argv[2], "w"))
PY
want_err <<'EOF_'
mapping breaks the renderer's rules: 1 node (gke-train-a3mega-5c1e7a90-dbvc): eth1: network 'gpu-nic-0??31m' is not a DNS label
incoherent: 16 TCPXO nodes: 1 breaking the renderer's rules; no mapping printed
EOF_
no_out
run hostile-unicode 1 --any-network-names --nodes-file "$tmp/hostile.json"

# --- only TCPXO nodes count ---
want_err <<'EOF_'
coherent: 16 TCPXO nodes carry the same mapping (not counted: 4 tcpx, 1 none, 3 other)
EOF_
want_out <<'EOF_'
eth1=gpu-nic-0,eth2=gpu-nic-1,eth3=gpu-nic-2,eth4=gpu-nic-3,eth5=gpu-nic-4,eth6=gpu-nic-5,eth7=gpu-nic-6,eth8=gpu-nic-7
EOF_
run mixed-tcpx-none 0 --nodes-file "$FIX/mixed.json"

no_out
want_err <<'EOF_'
incoherent: no TCPXO nodes among 7 nodes; no mapping printed (not counted: 4 tcpx, 3 other)
EOF_
run zero-tcpxo 1 --nodes-file "$FIX/zero-tcpxo.json"

# --- unknown: bad input, exit 2 ---
head -c 3000 "$FIX/coherent-16.json" >"$tmp/truncated.json"
want_err <<EOF_
tcpxo-agent: interfaces: --nodes-file $tmp/truncated.json: not valid JSON (or nested deeper than 64 levels)
EOF_
run malformed-truncated 2 --nodes-file "$tmp/truncated.json"

printf '{"kind":"List","items":[{"kind":"Node","metadata":{"name":"a"}},]}' >"$tmp/comma.json"
want_err <<EOF_
tcpxo-agent: interfaces: --nodes-file $tmp/comma.json: not valid JSON (or nested deeper than 64 levels)
EOF_
run malformed-trailing-comma 2 --nodes-file "$tmp/comma.json"

want_err <<'EOF_'
tcpxo-agent: interfaces: --nodes-file stdin: expected kind NodeList or List (kubectl get nodes -o json), got 'PodList'
EOF_
printf '{"kind":"PodList","items":[]}' | "$AGENT" interfaces --nodes-file - >"$tmp/out" 2>"$tmp/err"
check not-a-nodelist 2 $?

: >"$tmp/empty.json"
want_err <<EOF_
tcpxo-agent: interfaces: --nodes-file $tmp/empty.json: not valid JSON (or nested deeper than 64 levels)
EOF_
run empty-file 2 --nodes-file "$tmp/empty.json"

want_err <<EOF_
tcpxo-agent: interfaces: --nodes-file $tmp/absent.json: cannot open: No such file or directory
EOF_
run unreadable-missing 2 --nodes-file "$tmp/absent.json"

want_err <<EOF_
tcpxo-agent: interfaces: --nodes-file $tmp: is a directory, not a NodeList file
EOF_
run unreadable-directory 2 --nodes-file "$tmp"

if [ "$(id -u)" != 0 ]; then
	cp "$FIX/coherent-16.json" "$tmp/noperm.json" && chmod 000 "$tmp/noperm.json"
	want_err <<EOF_
tcpxo-agent: interfaces: --nodes-file $tmp/noperm.json: cannot open: Permission denied
EOF_
	run unreadable-permission 2 --nodes-file "$tmp/noperm.json"
else
	skip "unreadable-permission" "root reads any file"
fi

want_err <<'EOF_'
tcpxo-agent: interfaces: --selector filters the API's node list; with --nodes-file, select the nodes with kubectl get nodes -l SELECTOR -o json
EOF_
run selector-with-file 2 --selector cloud.google.com/gke-nodepool=a3mega --nodes-file "$FIX/coherent-16.json"

want_err <<'EOF_'
tcpxo-agent: interfaces: no Kubernetes API configured (no API server: KUBERNETES_SERVICE_HOST is not set and no --api-server given) and no --nodes-file: give kubectl get nodes -o json with --nodes-file F or - (kubectl fabric interfaces reads the nodes with your kubectl)
EOF_
run no-api-configured 2

# --- 5,000 nodes: correct, and timed (reported, never asserted) ---
if /usr/bin/python3 "$TOPDIR/fixtures/nodelists/gen.py" --big 5000 --out "$tmp/big.json" &&
   /usr/bin/python3 "$TOPDIR/fixtures/nodelists/gen.py" --big 5000 --disagree 3 --out "$tmp/big3.json"; then
	timing() {
		if [ -x /usr/bin/time ]; then
			/usr/bin/time -f '%e s, %M KiB' -o "$tmp/time" "$AGENT" interfaces "$@" >"$tmp/out" 2>"$tmp/err"
		else
			"$AGENT" interfaces "$@" >"$tmp/out" 2>"$tmp/err"
		fi
	}
	want_out <<'EOF_'
eth1=gpu-nic-0,eth2=gpu-nic-1,eth3=gpu-nic-2,eth4=gpu-nic-3,eth5=gpu-nic-4,eth6=gpu-nic-5,eth7=gpu-nic-6,eth8=gpu-nic-7
EOF_
	want_err <<'EOF_'
coherent: 5000 TCPXO nodes carry the same mapping
EOF_
	timing --nodes-file "$tmp/big.json"
	rc=$?
	check "big-5000-coherent ($(wc -c <"$tmp/big.json") bytes; $(tail -n 1 "$tmp/time" 2>/dev/null || echo untimed))" 0 $rc
	no_out
	want_err <<EOF_
eth2: 4997 nodes → gpu-nic-1, 3 nodes → gpu-nic-9 ($X-ko0w, $X-lkuw, $X-mgow)
incoherent: 5000 TCPXO nodes: mappings differ on 1 interface; no mapping printed
EOF_
	timing --nodes-file "$tmp/big3.json"
	rc=$?
	check "big-5000-disagree-3 ($(tail -n 1 "$tmp/time" 2>/dev/null || echo untimed))" 1 $rc
else
	nok "big-5000" "fixtures/nodelists/gen.py failed"
fi

# --- GKE managed DRANET (issue 22 point 9): the node label; no mapping exists, said, exit 0 ---
# dranet.json: every node labelled, no interfaces annotation; dranet-2.json: two of the 16 labelled.
if /usr/bin/python3 - "$FIX/coherent-16.json" "$tmp/dranet.json" "$tmp/dranet-2.json" <<'EOF_'
import copy, json, sys
src = json.load(open(sys.argv[1]))
every, two = copy.deepcopy(src), copy.deepcopy(src)
for item in every["items"]:
    item["metadata"]["labels"]["cloud.google.com/gke-networking-dra-driver"] = "true"
    item["metadata"]["annotations"].pop("fabric.aicr.run/interfaces", None)
for item in two["items"][:2]:
    item["metadata"]["labels"]["cloud.google.com/gke-networking-dra-driver"] = "true"
json.dump(every, open(sys.argv[2], "w"))
json.dump(two, open(sys.argv[3], "w"))
EOF_
then
	no_out
	want_err <<'EOF_'
no mapping: the GPU NICs of 16 TCPXO nodes are allocated by DRANET (node label cloud.google.com/gke-networking-dra-driver=true): they reach pods through ResourceClaims, not Networks and the networking.gke.io/interfaces annotation; no mapping printed
EOF_
	run dranet-all 0 --nodes-file "$tmp/dranet.json"
	want_out <<'EOF_'
eth1=gpu-nic-0,eth2=gpu-nic-1,eth3=gpu-nic-2,eth4=gpu-nic-3,eth5=gpu-nic-4,eth6=gpu-nic-5,eth7=gpu-nic-6,eth8=gpu-nic-7
EOF_
	want_err <<'EOF_'
coherent: 14 TCPXO nodes carry the same mapping (not counted: 2 DRANET)
EOF_
	run dranet-two 0 --nodes-file "$tmp/dranet-2.json"
else
	nok "dranet" "could not derive the DRANET NodeLists"
fi

exit $failed
