#!/bin/sh
# run.sh - make bench: the agent beside the peer tools and the library floor, in one run on the same
# fixture, each figure the median (min..max) of RUNS runs; prints one table and writes bench/results.md.
#   1. --once --no-publish --json on fixtures/a3-mega in its namespace, vs lspci -tv + ip -j addr
#   2. the same node with EXTRA_LINKS veth links (each with its peer) and EXTRA_PCI PCI functions more
#   2b. ("veths") the same node with the EXTRA_LINKS veth links alone, vs ip -j addr by itself
#   3. --once --json against the fake API server (TLS, token) in the same namespace
#   4. the daemon (bench/daemon.sh): idle CPU and requests, steady-state requests, reaction to links
#      and to a skewed daemon, RSS under watch events and relists, rollout of many agents
#   5. --once --json against the fake API with 110 pods on the node (the kubelet's default maximum,
#      15 of them GPU workloads), and the workload check's own cost in process ($BUILD/bench/judge)
#   6. the writes of the node's state (bench/status.sh): none in a steady state, exactly one of each
#      (merge patch, status patch, Event) per transition, and how fast
#   7. the GPU pods' transport: one sample's cost (bench/transport.sh: podnet-dump on a 2,000-process
#      fixture /proc and on this machine's /proc grown to as many), and what the one-shot commands'
#      window costs end to end (bench/window.sh: workloads with pods on FasTrak, idle pods read twice)
#   8. reading the PCI tree (bench/pci.sh): pcitopo_scan() alone in process (pci-dump --repeat), --once on the
#      a3-mega tree (wall, peak RSS), the libraries the agent maps; BENCH_OTHER_AGENT with BENCH_OTHER_PCI_DUMP
#      times another build's beside ours
# Env: BUILD (build), RUNS (30), EXTRA_LINKS (512), EXTRA_PCI (256), and bench/daemon.sh's
#      IDLE_SECONDS (120), STEADY_SECONDS (300), ROLLOUT_AGENTS (1000), ROLLOUT_RATE (100),
#      ROLLOUT_LIMIT (600 s), ROLLOUT_MODES ("watch poll"), DAEMON_PARTS ("idle api rollout"),
#      BENCH_CASES ("small big veths api pods daemon status transport pci"): which cases to run, JUDGE_RUNS (200),
#      bench/status.sh's STATUS_STEADY_SECONDS (600), STATUS_TRANSITIONS (10),
#      BENCH_OTHER_AGENT=PATH, BENCH_OTHER_LABEL=TEXT: also time another agent binary beside ours
#      (e.g. a build of the previous commit), labelled TEXT; BENCH_OTHER_PCI_DUMP=PATH: its pci-dump (case 8).
# Needs root (private network namespaces, device nodes), hyperfine, /usr/bin/time, lspci, ip; with
# strace installed, each case also counts the recvmsg calls of one run of the agent and its peer.
set -eu
cd "$(dirname "$0")/.."
TOPDIR=$PWD
BUILD=${BUILD:-build}
RUNS=${RUNS:-30}
EXTRA_LINKS=${EXTRA_LINKS:-512}
EXTRA_PCI=${EXTRA_PCI:-256}
AGENT=$TOPDIR/$BUILD/tcpxo-agent
FLOOR=$TOPDIR/$BUILD/bench/floor
FLOOR_NOCURL=$TOPDIR/$BUILD/bench/floor-nocurl
JUDGE=$TOPDIR/$BUILD/bench/judge
export TOPDIR TCPXO_AGENT="$AGENT"
. tests/lib/netns.sh
. tests/lib/devnodes.sh
. tests/lib/scenario.sh

for tool in hyperfine /usr/bin/time lspci ip openssl; do
	command -v "$tool" >/dev/null 2>&1 || { echo "bench: $tool missing (scripts/deps.sh bench test)" >&2; exit 1; }
done
for b in "$AGENT" "$FLOOR" "$FLOOR_NOCURL" "$JUDGE"; do
	[ -x "$b" ] || { echo "bench: $b missing (make bench builds it)" >&2; exit 1; }
done
why=$(netns_can_run) || { echo "bench: needs private network namespaces: $why" >&2; exit 1; }

T=$(mktemp -d /dev/shm/tcpxo-bench.XXXXXX)
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null || true; done
	rm -rf "$T"
}
trap cleanup EXIT INT TERM
OUT=$T/out
mkdir -p "$OUT"
SCENARIO_TMP=$T     # the fixture copies go with $T

# The commands every case times, in its own namespace and tree ($1 root, $2 node name, $3 extra agent args).
peer() {
	echo "sh -c 'lspci -A linux-sysfs -O sysfs.path=$1/sys/bus/pci -tv >/dev/null; ip -j addr >/dev/null'"
}
cmds() {  # cmds ROOT EXTRA_AGENT_ARGS [PEER] -> NAME CMD pairs on separate lines (PEER ip-addr: ip -j addr alone)
	printf '%s\n%s\n' agent "$AGENT --once --json --root $1 --node fixture-a3-mega $2"
	if [ -n "${BENCH_OTHER_AGENT:-}" ]; then
		printf '%s\n%s\n' agent-other "$BENCH_OTHER_AGENT --once --json --root $1 --node fixture-a3-mega $2"
	fi
	if [ "${3:-}" = ip-addr ]; then
		printf '%s\n%s\n' peer-addr "ip -j addr"
	else
		printf '%s\n%s\n' peer "$(peer "$1")"
	fi
	printf '%s\n%s\n' floor "$FLOOR"
	printf '%s\n%s\n' floor-nocurl "$FLOOR_NOCURL"
	printf '%s\n%s\n' true /bin/true
}
measure() {  # measure CASE SPEC ROOT EXTRA_AGENT_ARGS [PRE-COMMAND [PEER]]
	_case=$1 _spec=$2 _root=$3 _extra=$4 _pre=${5:-} _peer=${6:-}
	cmds "$_root" "$_extra" "$_peer" >"$T/cmds-$_case"
	# Sanity first: the agent must produce a JSON report here, or the timings mean nothing.
	cat >"$T/run-$_case.sh" <<EOS
set -e
$_pre
eval "\$(sed -n 2p "$T/cmds-$_case")" >"$OUT/$_case.json" 2>"$OUT/$_case.err" || echo \$? >"$OUT/$_case.exit"
[ -f "$OUT/$_case.exit" ] || echo 0 >"$OUT/$_case.exit"
set --
while read -r n && read -r c; do set -- "\$@" "\$n" "\$c"; done <"$T/cmds-$_case"
sh "$TOPDIR/bench/measure.sh" "$OUT/$_case" "$RUNS" "\$@"
ip -o link | wc -l >"$OUT/$_case.links"
# recvmsg calls of one run of each agent and of the peer (the netlink cost that grows with links).
if command -v strace >/dev/null 2>&1; then
	while read -r n && read -r c; do
		case \$n in agent|agent-other|peer|peer-addr) ;; *) continue ;; esac
		eval "strace -f -c -e trace=recvmsg,recvfrom -o '$OUT/$_case.strace-\$n' \$c" >/dev/null 2>&1 || true
	done <"$T/cmds-$_case"
fi
EOS
	netns_run "$_spec" sh "$T/run-$_case.sh"
	ls "$_root/sys/bus/pci/devices" | wc -l >"$OUT/$_case.pci"
}

ALL_CASES="small big veths api pods daemon status transport pci"
CASES=${BENCH_CASES:-$ALL_CASES}
cat /proc/loadavg >"$OUT/loadavg"
case " $CASES " in *" small "*)
echo "bench: case 1: a3-mega, --no-publish" >&2
R1=$(scenario_prepare a3-mega)
measure small fixtures/a3-mega/links.spec "$R1" --no-publish
;; esac

case " $CASES " in *" big "*)
echo "bench: case 2: a3-mega + $EXTRA_LINKS links + $EXTRA_PCI PCI functions, --no-publish" >&2
R2=$(scenario_prepare a3-mega)
sh bench/grow.sh "$R2" fixtures/a3-mega/links.spec "$T/big.spec" "$EXTRA_PCI" "$EXTRA_LINKS"
measure big "$T/big.spec" "$R2" --no-publish
;; esac

case " $CASES " in *" veths "*)
echo "bench: case 2b: a3-mega + $EXTRA_LINKS veth links alone, vs ip -j addr, --no-publish" >&2
R2b=$(scenario_prepare a3-mega)
sh bench/grow.sh "$R2b" fixtures/a3-mega/links.spec "$T/veths.spec" 0 "$EXTRA_LINKS"
measure veths "$T/veths.spec" "$R2b" --no-publish "" ip-addr
;; esac

case " $CASES " in *" api "*)
echo "bench: case 3: a3-mega with the API (fake server, TLS)" >&2
sh tests/lib/certs.sh "$T/certs"
mkdir -p "$T/api"
printf 'bench-token\n' >"$T/api/token"
/usr/bin/python3 - "$T/api" <<'PY'
import json, sys
d = sys.argv[1]
# The fixture's Node with eth0 at the address the a3-mega links.spec gives it, its pods and Networks.
node = json.loads(open("fixtures/kube/node-a3mega.json").read().replace("10.128.0.41", "10.128.0.2"))
node["metadata"]["name"] = "fixture-a3-mega"
json.dump(node, open(d + "/node.json", "w"))
json.dump(json.load(open("fixtures/kube/networks.json")), open(d + "/networks.json", "w"))
pods = json.load(open("fixtures/kube/pods-healthy.json"))
for p in pods.get("items", []):
    p.setdefault("spec", {})["nodeName"] = "fixture-a3-mega"
json.dump(pods, open(d + "/pods.json", "w"))
PY
API_ARGS="--api-server https://127.0.0.1:__PORT__ --token-file $T/api/token --ca-file $T/certs/ca.crt"
# The server must live in the agent's namespace: start it there, then substitute its port.
PRE="ip link set lo up
/usr/bin/python3 $TOPDIR/tests/lib/fakeapi.py --state $T/api --port-file $T/api/port --cert $T/certs/server.crt --key $T/certs/server.key --max-seconds 600 2>$T/api/server.err &
i=0; while [ ! -s $T/api/port ] && [ \$i -lt 500 ]; do sleep 0.02; i=\$((i + 1)); done
sed -i \"s/__PORT__/\$(cat $T/api/port)/g\" $T/cmds-api"
R3=$(scenario_prepare a3-mega)
measure api fixtures/a3-mega/links.spec "$R3" "$API_ARGS" "$PRE"
grep -c . "$T/api/requests.log" >"$OUT/api.requests" 2>/dev/null || echo 0 >"$OUT/api.requests"
[ -s "$T/api/server.err" ] && sed 's/^/fakeapi: /' "$T/api/server.err" >&2
;; esac

case " $CASES " in *" pods "*)
echo "bench: case 5: a3-mega with the API and 110 pods on the node" >&2
[ -s "$T/certs/ca.crt" ] || sh tests/lib/certs.sh "$T/certs"
mkdir -p "$T/pods"
printf 'bench-token\n' >"$T/pods/token"
/usr/bin/python3 fixtures/kube/gen.py pods-110 >"$T/pods110.json"
/usr/bin/python3 - "$T/pods" "$T/pods110.json" <<'PY'
import json, sys
d = sys.argv[1]
node = json.loads(open("fixtures/kube/node-a3mega.json").read().replace("10.128.0.41", "10.128.0.2"))
node["metadata"]["name"] = "fixture-a3-mega"
json.dump(node, open(d + "/node.json", "w"))
json.dump(json.load(open("fixtures/kube/networks.json")), open(d + "/networks.json", "w"))
pods = json.load(open(sys.argv[2]))
for p in pods["items"]:
    p["spec"]["nodeName"] = "fixture-a3-mega"
json.dump(pods, open(d + "/pods.json", "w"))
PY
PODS_ARGS="--api-server https://127.0.0.1:__PORT__ --token-file $T/pods/token --ca-file $T/certs/ca.crt"
PRE="ip link set lo up
/usr/bin/python3 $TOPDIR/tests/lib/fakeapi.py --state $T/pods --port-file $T/pods/port --cert $T/certs/server.crt --key $T/certs/server.key --max-seconds 600 2>$T/pods/server.err &
i=0; while [ ! -s $T/pods/port ] && [ \$i -lt 500 ]; do sleep 0.02; i=\$((i + 1)); done
sed -i \"s/__PORT__/\$(cat $T/pods/port)/g\" $T/cmds-pods"
R5=$(scenario_prepare a3-mega)
measure pods fixtures/a3-mega/links.spec "$R5" "$PODS_ARGS" "$PRE"
grep -c . "$T/pods/requests.log" >"$OUT/pods.requests" 2>/dev/null || echo 0 >"$OUT/pods.requests"
netns_run fixtures/a3-mega/links.spec "$JUDGE" "$R5" fixture-a3-mega "$T/pods/node.json" "$T/pods/pods.json" \
	"${JUDGE_RUNS:-200}" >"$OUT/judge.json" || echo "bench: the in-process workload measurement failed" >&2
;; esac

case " $CASES " in *" daemon "*)
echo "bench: case 4: the daemon: idle ${IDLE_SECONDS:-120} s, steady ${STEADY_SECONDS:-300} s, reaction, skew, RSS, rollout of ${ROLLOUT_AGENTS:-1000} agents" >&2
R4=$(scenario_prepare a3-mega)
AGENT=$AGENT netns_run fixtures/a3-mega/links.spec sh bench/daemon.sh "$OUT/daemon" "$R4" ||
	echo "bench: the daemon case failed" >&2
;; esac

case " $CASES " in *" status "*)
echo "bench: case 6: the node's state: steady ${STATUS_STEADY_SECONDS:-600} s, ${STATUS_TRANSITIONS:-10} transitions" >&2
AGENT=$AGENT netns_run fixtures/a3-mega/links.spec sh bench/status.sh "$OUT/status" ||
	echo "bench: the status case failed" >&2
;; esac

case " $CASES " in *" transport "*)
echo "bench: case 7: the transport sample and the one-shot window" >&2
mkdir -p "$OUT/transport"
BUILD=$BUILD sh bench/transport.sh >"$OUT/transport/sample.txt" 2>"$OUT/transport/sample.err" ||
	echo "bench: the transport sample case failed: $(tail -n 3 "$OUT/transport/sample.err")" >&2
R7=$(scenario_prepare a3-mega)
AGENT=$AGENT BUILD=$BUILD netns_run fixtures/a3-mega/links.spec sh bench/window.sh "$OUT/transport" "$R7" >/dev/null ||
	echo "bench: the window case failed" >&2
;; esac

case " $CASES " in *" pci "*)
echo "bench: case 8: reading the PCI tree" >&2
R8=$(scenario_prepare a3-mega)
AGENT=$AGENT BUILD=$BUILD OTHER_AGENT=${BENCH_OTHER_AGENT:-} OTHER_PCI_DUMP=${BENCH_OTHER_PCI_DUMP:-} \
	OTHER_LABEL=${BENCH_OTHER_LABEL:-${BENCH_OTHER_AGENT:-}} \
	netns_run fixtures/a3-mega/links.spec sh bench/pci.sh "$OUT/pci" "$R8" >/dev/null ||
	echo "bench: the PCI case failed" >&2
;; esac

BENCH_OTHER_LABEL=${BENCH_OTHER_LABEL:-${BENCH_OTHER_AGENT:-}} \
	/usr/bin/python3 bench/report.py "$OUT" "$RUNS" "$EXTRA_LINKS" "$EXTRA_PCI" >"$T/results.md"
[ "$CASES" = "$ALL_CASES" ] && cp "$T/results.md" bench/results.md
cat "$T/results.md"
