#!/bin/sh
# daemon.sh - the daemon's figures, run inside the a3-mega namespace by bench/run.sh; raw numbers
# under OUTDIR, summarised by bench/report.py:
#   idle      CPU seconds and API requests over IDLE_SECONDS with nothing changing (default interval)
#   steady    API requests over STEADY_SECONDS at --interval STEADY_INTERVAL with nothing changing:
#             the requests of one resync period, which at the default --interval are those of an hour
#   reaction  link change -> its PATCH arriving at the fake API (eth1..eth8 down and up once each)
#   skew      the node's TCPXO daemon container restarted at a skewed release (and back), through
#             the fake API's scripted changes -> the PATCH arriving, SKEW_CHANGES times
#   rss       the agent's RSS after warming up, then after RSS_EVENTS watch events and RSS_RELISTS
#             relists (410 after a compaction)
#   metrics   idle over IDLE_SECONDS twice, without and with --metrics-address (scraped every
#             METRICS_SCRAPE_S): CPU seconds and RSS at the end of each, scrapes answered, page size
#   rollout   ROLLOUT_AGENTS daemons started together against one server that admits ROLLOUT_RATE
#             requests/s (429 + Retry-After beyond), once per mode of ROLLOUT_MODES (watch: the
#             default; poll: --no-watch): its timeline of requests, the agents still running;
#             ROLLOUT_ARGS adds options, ROLLOUT_SPAWN_MS spaces the starts (another binary: AGENT);
#             ROLLOUT_KEEP=DIR keeps every agent's log and the server's request log under DIR/<mode>/
# Usage: daemon.sh OUTDIR ROOT   (env AGENT, TOPDIR)
set -u
out=$1 root=$2
IDLE_SECONDS=${IDLE_SECONDS:-120}
STEADY_SECONDS=${STEADY_SECONDS:-300}
STEADY_INTERVAL=${STEADY_INTERVAL:-60}
SKEW_CHANGES=${SKEW_CHANGES:-20}
RSS_EVENTS=${RSS_EVENTS:-1000}
RSS_RELISTS=${RSS_RELISTS:-10}
ROLLOUT_AGENTS=${ROLLOUT_AGENTS:-1000}
ROLLOUT_RATE=${ROLLOUT_RATE:-100}
ROLLOUT_LIMIT=${ROLLOUT_LIMIT:-600}
ROLLOUT_MODES=${ROLLOUT_MODES:-watch poll}
ROLLOUT_ARGS=${ROLLOUT_ARGS:-}
ROLLOUT_SPAWN_MS=${ROLLOUT_SPAWN_MS:-0}        # a pause between two agents' starts (0: all at once)
METRICS_SCRAPE_S=${METRICS_SCRAPE_S:-15}
DAEMON_PARTS=${DAEMON_PARTS:-idle metrics api rollout}   # idle: idle and steady; api: reaction, skew, RSS
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
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
part() { case " $DAEMON_PARTS " in *" $1 "*) return 0 ;; esac; return 1; }

sh "$TOPDIR/tests/lib/certs.sh" "$tmp/certs" >/dev/null 2>&1 || { echo "daemon: certs.sh failed" >&2; exit 1; }
mkdir -p "$tmp/api"
printf 'bench-token\n' >"$tmp/api/token"
# The fixture node, with eth0 at the address the a3-mega links.spec gives it (as test_daemon.sh), its pods and
# Networks, as no agent has written them: at the start, and again before each rollout (the parts before it
# publish into node.json, and a rollout whose nodes already carry our annotations would be no first publish).
api_state() {
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
}
api_state
start_api() {  # start_api SCRIPT: the server on $tmp/api; sets $server
	rm -f "$tmp/api/port"
	/usr/bin/python3 "$1" --state "$tmp/api" --port-file "$tmp/api/port" --cert "$tmp/certs/server.crt" \
		--key "$tmp/certs/server.key" --max-seconds 3000 2>>"$tmp/api/server.err" &
	api_pid=$!
	pids="$pids $api_pid"
	i=0
	while [ ! -s "$tmp/api/port" ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	server=https://127.0.0.1:$(cat "$tmp/api/port")
}
ctl() { /usr/bin/python3 "$TOPDIR/tests/lib/fakeapi.py" ctl --port-file "$tmp/api/port" --ca "$tmp/certs/ca.crt" \
	--token-file "$tmp/api/token" "$@" >/dev/null; }
reqs() { wc -l <"$tmp/api/requests.log" 2>/dev/null || echo 0; }
patches_after() { tail -n +"$(($1 + 1))" "$tmp/api/requests.log" 2>/dev/null | grep -c '"method": "PATCH"'; }
start_agent() {  # LOG ARGS...
	_log=$1; shift
	"$AGENT" --root "$root" --node "$NODE" --api-server "$server" --token-file "$tmp/api/token" \
		--ca-file "$tmp/certs/ca.crt" --start-jitter 0 "$@" 2>"$_log" &
	agent=$!
	pids="$pids $agent"
	i=0
	while [ "$(patches_after 0)" -lt 1 ] && [ $i -lt 300 ]; do sleep 0.05; i=$((i + 1)); done
}
stop_agent() { kill "$agent" 2>/dev/null; wait "$agent" 2>/dev/null; }

start_api "$TOPDIR/tests/lib/fakeapi.py"
if part idle; then
# --- idle: the default interval; steady: one resync period's requests ---
# Without the heartbeat (--heartbeat 0): these count the watches' cost; status.sh counts the heartbeat's.
start_agent "$tmp/agent-idle.log" --heartbeat 0
sleep 2
r0=$(reqs); c0=$(cpu_ns $agent)
sleep "$IDLE_SECONDS"
r1=$(reqs); c1=$(cpu_ns $agent)
echo "$c0 $c1 $((r1 - r0)) $IDLE_SECONDS" | awk '{ printf "%.4f %d %d\n", ($2 - $1) / 1e9, $3, $4 }' >"$out/idle.txt"
stop_agent

: >"$tmp/api/requests.log"
start_agent "$tmp/agent-steady.log" --interval "$STEADY_INTERVAL" --heartbeat 0
sleep 2
r0=$(reqs)
sleep "$STEADY_SECONDS"
tail -n +"$((r0 + 1))" "$tmp/api/requests.log" >"$out/steady.log"
echo "$STEADY_SECONDS $STEADY_INTERVAL" >"$out/steady.txt"
stop_agent

fi

if part metrics; then
# --- metrics: the same idle daemon without and with /metrics, scraped as Prometheus would ---
: >"$tmp/api/requests.log"
start_agent "$tmp/agent-nometrics.log"
sleep 2
c0=$(cpu_ns $agent)
sleep "$IDLE_SECONDS"
c1=$(cpu_ns $agent); m_off_rss=$(rss_kb $agent)
m_off_cpu=$(echo "$c0 $c1" | awk '{ printf "%.4f", ($2 - $1) / 1e9 }')
stop_agent
start_agent "$tmp/agent-metrics.log" --metrics-address 127.0.0.1:0
i=0
while ! grep -q 'serving metrics' "$tmp/agent-metrics.log" && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
maddr=$(sed -n 's/.*serving metrics.*address=\([0-9.]*:[0-9]*\).*/\1/p' "$tmp/agent-metrics.log" | head -n 1)
sleep 2
c0=$(cpu_ns $agent)
/usr/bin/python3 - "$maddr" "$IDLE_SECONDS" "$METRICS_SCRAPE_S" >"$tmp/scrapes" <<'PY'
import sys, time, urllib.request
addr, secs, every = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
ok = size = 0
end = time.monotonic() + secs
while time.monotonic() < end:
    try:
        body = urllib.request.urlopen("http://%s/metrics" % addr, timeout=5).read()
        ok += 1
        size = len(body)
    except OSError:
        pass
    time.sleep(max(0.0, min(every, end - time.monotonic())))
print(ok, size)
PY
c1=$(cpu_ns $agent); m_on_rss=$(rss_kb $agent)
m_on_cpu=$(echo "$c0 $c1" | awk '{ printf "%.4f", ($2 - $1) / 1e9 }')
stop_agent
echo "$m_off_cpu $m_off_rss $m_on_cpu $m_on_rss $(cat "$tmp/scrapes") $IDLE_SECONDS $METRICS_SCRAPE_S" >"$out/metrics.txt"
fi

if part api; then
# --- reaction to links, skewed daemon, RSS: one agent following the API ---
: >"$tmp/api/requests.log"
start_agent "$tmp/agent.log"
sleep 1
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

# The daemon pod's tcpxo-daemon container restarted at v1.0.20 (the installer v1.0.15 pairs with
# v1.0.21: version-pair fails), then at v1.0.21 again; each a whole-object update of the pod.
/usr/bin/python3 - "$tmp/api/pods.json" "$tmp" <<'PY'
import copy, json, sys
pods, tmp = json.load(open(sys.argv[1])), sys.argv[2]
pod = next(p for p in pods["items"] if any(c["name"] == "tcpxo-daemon" for c in p["spec"].get("initContainers", [])))
for n, tag in enumerate(("v1.0.20", "v1.0.21")):
    p = copy.deepcopy(pod)
    p["metadata"].pop("resourceVersion", None)
    for c in p["spec"]["initContainers"]:
        if c["name"] == "tcpxo-daemon":
            c["image"] = c["image"].rsplit(":", 1)[0] + ":" + tag
    for s in p["status"]["initContainerStatuses"]:
        if s["name"] == "tcpxo-daemon":
            s["image"] = s["image"].rsplit(":", 1)[0] + ":" + tag
            s["imageID"] = s["imageID"].split("@")[0] + "@sha256:" + ("%064x" % (n + 0xbe9c4))
            s["restartCount"] = s.get("restartCount", 0) + 1
    json.dump({"op": "update", "resource": "pods", "object": p}, open("%s/skew-%d.json" % (tmp, n), "w"))
PY
: >"$out/skew.txt"
k=0
while [ $k -lt "$SKEW_CHANGES" ]; do
	m=$(reqs)
	ctl "$(cat "$tmp/skew-$((k % 2)).json")"
	t0=$(tail -n 1 "$tmp/api/control.log" | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["t"])')
	i=0
	while [ "$(patches_after "$m")" -lt 1 ] && [ $i -lt 1000 ]; do sleep 0.005; i=$((i + 1)); done
	# The PATCH's arrival after the change was applied ("t" of both: Unix seconds at the server).
	tail -n +"$((m + 1))" "$tmp/api/requests.log" | /usr/bin/python3 -c '
import json, sys
t0 = float(sys.argv[1])
ts = [json.loads(l)["t"] for l in sys.stdin if "\"PATCH\"" in l]
print("%.0f" % ((ts[0] - t0) * 1000) if ts else "timeout")' "$t0" >>"$out/skew.txt"
	sleep 1.5       # past the debounce window the PATCH's own node event opened: each change starts cold
	k=$((k + 1))
done

# RSS: warm up (100 events, one relist), then RSS_EVENTS events and RSS_RELISTS relists.
POD=$(/usr/bin/python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["items"][0]["metadata"]; print(p["namespace"], p["name"])' "$tmp/api/pods.json")
cat >"$tmp/events.py" <<'PY'
import json, sys
first, count, ns, name = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
for b in range(first, first + count, 50):
    print(json.dumps([{"op": "patch", "resource": "pods", "namespace": ns, "name": name,
                       "patch": {"metadata": {"labels": {"bench-event": str(i)}}}}
                      for i in range(b, min(b + 50, first + count))]))
PY
events() {  # events FIRST COUNT: label changes of one pod, 50 to a scripted change
	# shellcheck disable=SC2086
	/usr/bin/python3 "$tmp/events.py" "$1" "$2" $POD >"$tmp/ops"
	while read -r line; do ctl "$line"; done <"$tmp/ops"
}
relist() {  # relist N: a change the pods watch does not see (a pod of another node), the history
	# forgotten, the watch closed: its resume is older than the history, 410, the agent relists
	m=$(reqs)
	ctl '[{"op": "create", "resource": "pods", "object": {"metadata": {"name": "elsewhere-'"$1"'", "namespace": "default"},
	      "spec": {"nodeName": "another-node", "containers": [{"name": "c", "image": "busybox"}]}}},
	      {"op": "compact"}, {"op": "close", "resource": "pods", "mode": "clean"}]'
	i=0
	while [ "$(tail -n +"$((m + 1))" "$tmp/api/requests.log" | grep -c 'sendInitialEvents=true')" -lt 1 ] && [ $i -lt 400 ]; do
		sleep 0.05; i=$((i + 1))
	done
}
events 0 100
relist 0
sleep 2
rss0=$(rss_kb $agent)
n=0
while [ $n -lt "$RSS_RELISTS" ]; do
	events $((100 + n * RSS_EVENTS / RSS_RELISTS)) $((RSS_EVENTS / RSS_RELISTS))
	relist $((n + 1))
	n=$((n + 1))
done
sleep 2
rss1=$(rss_kb $agent)
# The events the server applied after the warm-up (its control.log), not the ones asked for.
applied=$(grep -o '"bench-event"' "$tmp/api/control.log" | wc -l)
echo "$rss0 $rss1 $((applied - 100)) $RSS_RELISTS" >"$out/rss.txt"
grep -c 'API watch expired: relisting' "$tmp/agent.log" >"$out/rss.relists"
stop_agent
kill "$api_pid" 2>/dev/null
wait "$api_pid" 2>/dev/null

fi

# --- rollout: many agents, one rate-limited server ---
part rollout || ROLLOUT_MODES=""
for mode in $ROLLOUT_MODES; do
	rm -f "$tmp/api/requests.log" "$tmp/api/timeline.log" "$tmp/api/watches.log"
	api_state
	printf '{"rate_limit": %d, "retry_after": 1}\n' "$ROLLOUT_RATE" >"$tmp/api/faults"
	printf '{"poll_ms": 1000, "events_file": false}\n' >"$tmp/api/settings"
	start_api "$TOPDIR/bench/rollout_api.py"
	args=$ROLLOUT_ARGS
	[ "$mode" = poll ] && args="$args --no-watch"
	: >"$tmp/rollout.pids"
	rm -rf "$tmp/logs" && mkdir -p "$tmp/logs"
	t_start=$(awk '{ print $1 }' /proc/uptime)
	n=1
	while [ $n -le "$ROLLOUT_AGENTS" ]; do
		# shellcheck disable=SC2086
		"$AGENT" --root "$root" --node "$(printf 'bench-node-%04d' $n)" --api-server "$server" \
			--token-file "$tmp/api/token" --ca-file "$tmp/certs/ca.crt" $args 2>"$tmp/logs/$n.log" &
		echo $! >>"$tmp/rollout.pids"
		[ "$ROLLOUT_SPAWN_MS" = 0 ] || sleep "$(echo "$ROLLOUT_SPAWN_MS" | awk '{ printf "%.3f", $1 / 1000 }')"
		n=$((n + 1))
	done
	# Published = a PATCH of that node answered 200 (timeline: "<t> PATCH /api/v1/nodes/<name> 200 -"),
	# and its condition (".../<name>/status") too.
	patched() {  # SUFFIX: how many nodes got a PATCH of /api/v1/nodes/<name>SUFFIX answered 200
		grep -E " PATCH /api/v1/nodes/[^/ ]+$1 200 " "$tmp/api/timeline.log" 2>/dev/null | awk '{ print $3 }' | sort -u | wc -l
	}
	i=0
	while [ $i -lt "$ROLLOUT_LIMIT" ]; do
		[ "$(patched '')" -ge "$ROLLOUT_AGENTS" ] && [ "$(patched /status)" -ge "$ROLLOUT_AGENTS" ] && break
		sleep 1
		i=$((i + 1))
	done
	sleep 5
	alive=0
	for p in $(cat "$tmp/rollout.pids"); do kill -0 "$p" 2>/dev/null && alive=$((alive + 1)); done
	mkdir -p "$out/rollout-$mode"
	echo "$t_start" >"$out/rollout-$mode/start"
	echo "$alive $ROLLOUT_AGENTS $ROLLOUT_RATE" >"$out/rollout-$mode/agents"
	cp "$tmp/api/timeline.log" "$out/rollout-$mode/timeline.log"
	# The logs of the agents that did not publish, or wrote more than once, to tell why.
	grep -E ' PATCH /api/v1/nodes/[^/ ]+ 200 ' "$tmp/api/timeline.log" | awk '{ print $3 }' | sort | uniq -c \
		>"$tmp/published"
	n=1
	while [ $n -le "$ROLLOUT_AGENTS" ]; do
		c=$(awk -v p="$(printf '/api/v1/nodes/bench-node-%04d' $n)" '$2 == p { print $1 }' "$tmp/published")
		[ -z "$c" ] && cp "$tmp/logs/$n.log" "$out/rollout-$mode/unpublished-$n.log"
		[ "${c:-0}" -gt 1 ] && cp "$tmp/logs/$n.log" "$out/rollout-$mode/written-$c-times-$n.log"
		n=$((n + 1))
	done
	xargs -r kill <"$tmp/rollout.pids" 2>/dev/null
	for p in $(cat "$tmp/rollout.pids"); do wait "$p" 2>/dev/null; done
	: >"$tmp/rollout.pids"
	if [ -n "${ROLLOUT_KEEP:-}" ]; then
		mkdir -p "$ROLLOUT_KEEP/$mode" && cp -r "$tmp/logs" "$tmp/api/timeline.log" "$tmp/api/requests.log" \
			"$tmp/api/server.err" "$ROLLOUT_KEEP/$mode/"
	fi
	kill "$api_pid" 2>/dev/null
	wait "$api_pid" 2>/dev/null
	rm -f "$tmp/api/faults" "$tmp/api/settings"
done
exit 0
