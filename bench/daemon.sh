#!/bin/sh
# daemon.sh - the daemon's figures, run inside the a3-mega namespace by bench/run.sh:
#   idle      CPU seconds and API requests over IDLE_SECONDS with nothing changing (resync 3600 s)
#   reaction  link change -> its PATCH arriving at the fake API, median and max of 16 changes
#   rollout   ROLLOUT_AGENTS daemons started together against one server that admits
#             ROLLOUT_RATE requests/s (429 + Retry-After beyond): requests per agent, time until
#             every node is published, peak request rate seen by the server, agents that gave up
# Usage: daemon.sh OUTDIR ROOT   (env AGENT, TOPDIR; writes OUTDIR/daemon.md and raw files)
set -u
out=$1 root=$2
IDLE_SECONDS=${IDLE_SECONDS:-120}
ROLLOUT_AGENTS=${ROLLOUT_AGENTS:-1000}
ROLLOUT_RATE=${ROLLOUT_RATE:-100}
ROLLOUT_LIMIT=${ROLLOUT_LIMIT:-300}
NODE=fixture-a3-mega
mkdir -p "$out"
tmp=$(mktemp -d /dev/shm/tcpxo-bench-daemon.XXXXXX) || exit 2
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	[ -f "$tmp/rollout.pids" ] && xargs -r kill <"$tmp/rollout.pids" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
ip link set lo up
now_ms() { echo $(($(date +%s%N) / 1000000)); }
cpu_ns() { cut -d' ' -f1 "/proc/$1/schedstat"; }      # CPU time of the process so far, in ns

sh "$TOPDIR/tests/lib/certs.sh" "$tmp/certs" >/dev/null 2>&1 || { echo "daemon: certs.sh failed" >&2; exit 1; }
mkdir -p "$tmp/api"
printf 'bench-token\n' >"$tmp/api/token"
# The fixture node, with eth0 at the address the a3-mega links.spec gives it (as test_daemon.sh), its pods and Networks.
/usr/bin/python3 - "$tmp/api" "$NODE" <<'PY'
import json, sys
d, name = sys.argv[1], sys.argv[2]
node = json.loads(open("fixtures/kube/node-a3mega.json").read().replace("10.128.0.41", "10.128.0.2"))
node["metadata"]["name"] = name
json.dump(node, open(d + "/node.json", "w"))
pods = json.load(open("fixtures/kube/pods-healthy.json"))
for p in pods.get("items", []):
    p.setdefault("spec", {})["nodeName"] = name
json.dump(pods, open(d + "/pods.json", "w"))
json.dump(json.load(open("fixtures/kube/networks.json")), open(d + "/networks.json", "w"))
PY
start_api() {  # start_api SCRIPT: the server on $tmp/api; sets $server
	rm -f "$tmp/api/port"
	/usr/bin/python3 "$1" --state "$tmp/api" --port-file "$tmp/api/port" --cert "$tmp/certs/server.crt" \
		--key "$tmp/certs/server.key" --max-seconds 1200 2>>"$tmp/api/server.err" &
	api_pid=$!
	pids="$pids $api_pid"
	i=0
	while [ ! -s "$tmp/api/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	server=https://127.0.0.1:$(cat "$tmp/api/port")
}
reqs() { wc -l <"$tmp/api/requests.log" 2>/dev/null || echo 0; }
patches_after() { tail -n +"$(($1 + 1))" "$tmp/api/requests.log" 2>/dev/null | grep -c '"method": "PATCH"'; }

# --- idle and reaction: one agent, the plain fake API server ---
start_api "$TOPDIR/tests/lib/fakeapi.py"
"$AGENT" --root "$root" --node "$NODE" --api-server "$server" --token-file "$tmp/api/token" \
	--ca-file "$tmp/certs/ca.crt" --start-jitter 0 --interval 3600 2>"$tmp/agent.log" &
agent=$!
pids="$pids $agent"
i=0
while [ "$(patches_after 0)" -lt 1 ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
sleep 2
r0=$(reqs); c0=$(cpu_ns $agent)
sleep "$IDLE_SECONDS"
r1=$(reqs); c1=$(cpu_ns $agent)
idle_cpu=$(echo "$c0 $c1" | awk '{ printf "%.4f", ($2 - $1) / 1e9 }')
idle_reqs=$((r1 - r0))
echo "$idle_cpu $idle_reqs" >"$out/idle.txt"

: >"$out/reaction.txt"
# One down and up per GPU NIC: a third change of one link within 60 s is a flap, which the agent
# holds not ready for 30 s on purpose (flap damping) and would not measure the reaction.
for nic in eth1 eth2 eth3 eth4 eth5 eth6 eth7 eth8; do
	for c in down up; do
		m=$(reqs)
		t0=$(now_ms)
		ip link set $nic $c
		i=0
		while [ "$(patches_after "$m")" -lt 1 ] && [ $i -lt 1000 ]; do sleep 0.005; i=$((i + 1)); done
		if [ "$(patches_after "$m")" -ge 1 ]; then echo $(($(now_ms) - t0)) >>"$out/reaction.txt"
		else echo "timeout" >>"$out/reaction.txt"; fi
		sleep 1.2
	done
done
kill "$agent" "$api_pid" 2>/dev/null
wait "$agent" 2>/dev/null
wait "$api_pid" 2>/dev/null

# --- rollout: many agents, one rate-limited server ---
rm -f "$tmp/api/requests.log" "$tmp/api/timeline.log"
printf '{"rate_limit": %d, "retry_after": 1}\n' "$ROLLOUT_RATE" >"$tmp/api/faults"
start_api "$TOPDIR/bench/rollout_api.py"
: >"$tmp/rollout.pids"
t_start=$(awk '{ print $1 }' /proc/uptime)
n=1
while [ $n -le "$ROLLOUT_AGENTS" ]; do
	"$AGENT" --root "$root" --node "$(printf 'bench-node-%04d' $n)" --api-server "$server" \
		--token-file "$tmp/api/token" --ca-file "$tmp/certs/ca.crt" --interval 3600 \
		2>/dev/null &
	echo $! >>"$tmp/rollout.pids"
	n=$((n + 1))
done
echo "$t_start" >"$out/rollout.start"
# Published = a PATCH of that node answered 200 (timeline: "<t> PATCH /api/v1/nodes/<name> 200").
i=0
while [ $i -lt "$ROLLOUT_LIMIT" ]; do
	done_n=$(grep ' PATCH .* 200$' "$tmp/api/timeline.log" 2>/dev/null | awk '{ print $3 }' | sort -u | wc -l)
	[ "$done_n" -ge "$ROLLOUT_AGENTS" ] && break
	sleep 1
	i=$((i + 1))
done
sleep 2
alive=0
for p in $(cat "$tmp/rollout.pids"); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
echo "$alive" >"$out/rollout.alive"
cp "$tmp/api/timeline.log" "$out/timeline.log"
# The server's clock is CLOCK_MONOTONIC like /proc/uptime's first field (both since boot).
/usr/bin/python3 - "$out" "$ROLLOUT_AGENTS" "$ROLLOUT_RATE" "$IDLE_SECONDS" <<'PY'
import collections, statistics, sys
out, agents, rate, idle_s = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
cpu, reqs = open(out + "/idle.txt").read().split()
times = [l.strip() for l in open(out + "/reaction.txt")]
ok = sorted(int(t) for t in times if t.isdigit())
lost = len(times) - len(ok)
t0 = float(open(out + "/rollout.start").read())
alive = int(open(out + "/rollout.alive").read())
rows = [l.split() for l in open(out + "/timeline.log") if len(l.split()) == 4]
per_node = collections.Counter()
published = {}
per_sec = collections.Counter()
codes = collections.Counter()
for t, method, path, status in rows:
    t = float(t)
    per_sec[int(t)] += 1
    codes[status] += 1
    if path.startswith("/api/v1/nodes/"):
        name = path.rsplit("/", 1)[1]
        per_node[name] += 1
        if method == "PATCH" and status == "200" and name not in published:
            published[name] = t
pods = sum(1 for r in rows if r[2].startswith("/api/v1/pods"))
nets = sum(1 for r in rows if "networks" in r[2])
total = len(rows)
peak = max(per_sec.values()) if per_sec else 0
last = max(published.values()) - t0 if published else float("nan")
def verdict(ok):
    return "met" if ok else "MISSED"
lines = [
    f"- idle: **{float(cpu):.4f} CPU s** and **{reqs} API requests** in {idle_s} s with nothing changing "
    f"(resync 3600 s) — targets <= 0.01 CPU s: {verdict(float(cpu) <= 0.01)}; 0 requests: {verdict(reqs == '0')}",
]
if ok:
    med = statistics.median(ok)
    lines.append(f"- reaction, link change -> PATCH received: **median {med:.0f} ms, max {max(ok)} ms** over "
                 f"{len(ok)} changes (eth1..eth8 down/up once each){f', {lost} without a PATCH within 5 s' if lost else ''} — "
                 f"target median <= 1500 ms: {verdict(med <= 1500 and not lost)}")
else:
    lines.append("- reaction: no PATCH followed any link change (MISSED)")
lines += [
    f"- rollout, {agents} daemons started together, server admitting {rate} requests/s (429 + Retry-After: 1 "
    f"beyond): **{total / agents:.2f} requests per agent** ({total} in all: {codes.get('200', 0)} answered 200, "
    f"{codes.get('429', 0)} answered 429; {pods} pod lists, {nets} network lists; most for one node "
    f"{max(per_node.values()) if per_node else 0}); **{len(published)} of {agents} nodes published**, the last "
    f"{last:.1f} s after the start; **peak {peak} requests/s** at the server; {agents - alive} agents exited — "
    f"targets <= 3 requests per agent: {verdict(total / agents <= 3)}; no agent gives up: "
    f"{verdict(alive == agents and len(published) == agents)}; peak <= {2 * rate}/s: {verdict(peak <= 2 * rate)}",
]
open(out + "/daemon.md", "w").write("\n".join(lines) + "\n")
PY
