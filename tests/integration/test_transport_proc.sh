#!/bin/sh
# test_transport_proc.sh - each running GPU pod's transport, end to end: fixture /proc trees (fixtures/gen_proc.py) holding
# the pod's process in each situation, the pod in the fake API; a background writer (gen_proc.py --follow) makes
# eth0's counters rise. workloads and --once: 8 clients on 8 NIC addresses fastrak (exit 0), 2 addresses partial
# (exit 1), 2 h without a client and eth0 still idle (exit 0), eth0 moving 2 GB/s each way tcp (exit 1, --once
# still ready), 60 s pending, no process unknown, a process gone within the window unknown, hostNetwork
# not-observed. The daemon over three samples each (SIGHUP re-samples): idle posts nothing, tcp exactly one
# TCPXONotInUse, 8 clients then none no TCPXONotInUse (its log says it had them), 2 rails then 8 no
# TCPXOPartialRails, 2 rails three times exactly one; and nothing read under /proc/*/net while no GPU pod runs.
# Env: TOPDIR, BUILD, TCPXO_AGENT. Everything runs in one private namespace (tests/lib/daemon_env.sh).
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec transport "$0"
strace_pid="" writer_pid=""
trap 'daemon_env_cleanup; [ -n "$strace_pid" ] && kill "$strace_pid" 2>/dev/null; [ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
# Six daemons and a dozen one-shot runs: under a loaded CI machine this outlasts the fake API's default 10 minutes.
DAEMON_ENV_API_SECONDS=${DAEMON_ENV_API_SECONDS:-1800}
daemon_env_setup || exit 1

UID_POD=d19249ce-9207-4546-806b-40c7569ab007       # pods-healthy.json's ml-team/llama-train-node-0-0-x2b9f
CID=4f3c2b1a09e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2
PID=4242

# pods AGE_S [hostNetwork]: the healthy pods, the llama worker's containers with their containerID and started
# AGE_S ago (on the host network with a second argument).
pods() {
	/usr/bin/python3 - "$TOPDIR/fixtures/kube/pods-healthy.json" "$state/pods.json.new" "$CID" "$1" "${2:-}" <<'PY' || return 1
import json, sys, time
d = json.load(open(sys.argv[1]))
started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - int(sys.argv[4])))
for p in d["items"]:
    if p["metadata"]["name"] != "llama-train-node-0-0-x2b9f":
        continue
    if sys.argv[5]:
        p["spec"]["hostNetwork"] = True
    for i, c in enumerate(p["status"].get("containerStatuses", []) + p["status"].get("initContainerStatuses", [])):
        c["containerID"] = "containerd://" + (sys.argv[3] if c["name"] == "node" else "%064x" % (i + 1))
        c["state"] = {"running": {"startedAt": started}}
json.dump(d, open(sys.argv[2], "w"))
PY
	mv "$state/pods.json.new" "$state/pods.json"
}

# proc RAILS [ARGS...]: the worker's process in the tree's /proc with clients on RAILS NIC addresses (one DXS flow
# each), RxDM listening on 8, eth0's counters still.
proc() {
	_r=$1; shift
	stop_writer
	rm -rf "$root/proc/$PID"
	/usr/bin/python3 "$TOPDIR/fixtures/gen_proc.py" "$root" --pid $PID --pod-uid $UID_POD --container-id $CID \
		--rails "$_r" --listeners 8 --flows "$_r" "$@"
}
# busy: the same without a client, eth0 receiving and sending 2 GB/s each, rewritten every 100 ms until stop_writer.
busy() {
	proc 0
	/usr/bin/python3 "$TOPDIR/fixtures/gen_proc.py" "$root" --pid $PID --pod-uid $UID_POD --container-id $CID \
		--rails 0 --listeners 8 --dev eth0:5000000000:4000000000 --dev-rate eth0:2000000000:2000000000 \
		--follow 0.1 &
	writer_pid=$!
	wait_for '[ -s "$root/proc/$PID/net/dev" ] && grep -q "eth0: *[0-9]\{11\}" "$root/proc/$PID/net/dev"' 10
}
stop_writer() {
	[ -n "$writer_pid" ] && kill "$writer_pid" 2>/dev/null && wait "$writer_pid" 2>/dev/null
	writer_pid=""
}

agent() {  # ARGS...: the agent once against the fake API: $out, $err, $rc
	"$AGENT" "$@" --root "$root" --node "$NODE" --api-server "$SERVER" --token-file "$tmp/token" \
		--ca-file "$tmp/certs/ca.crt" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}

# check NAME PYTHON: assertions on the last run (j: the JSON on stdout, rc, err); ok or not ok NAME.
check() {
	if _why=$(RC=$rc /usr/bin/python3 - "$tmp/out" "$tmp/err" "$2" <<'PY' 2>&1
import json, os, sys
out, err = open(sys.argv[1]).read(), open(sys.argv[2]).read()
rc = int(os.environ["RC"])
try:
    j = json.loads(out)
except ValueError:
    j = None
bad = []
def eq(got, want, what):
    if got != want:
        bad.append("%s: got %r, want %r" % (what, got, want))
def ok(cond, what):
    if not cond:
        bad.append(what)
def pod(doc):
    return [p for p in doc["pods"] if p["uid"] == "d19249ce-9207-4546-806b-40c7569ab007"][0]
exec(sys.argv[3])
if bad:
    print("; ".join(bad) + " [exit %d, stderr: %s]" % (rc, err.strip()[:300]))
    sys.exit(1)
PY
	); then ok "$1"; else nok "$1" "$_why"; fi
}

# ---- workloads and --once, one situation each (a 1 s window between the two readings of a pod without client) ----
W="--transport-window 1s"
pods 7200
proc 8
agent workloads --json $W
check "fastrak: 8 clients on 8 NIC addresses, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq((t["state"], t["rails"], t["clients"], t["flows"]), ("fastrak", 8, 8, 8), "state, rails, clients, flows")
ok("10.64.1.1, 10.64.1.2" in t["evidence"], "the evidence names the NIC addresses: %r" % t["evidence"])
ok("8 DXS flows" in t["evidence"], "one DXS flow per client: %r" % t["evidence"])
'
agent workloads $W
check "fastrak: the table's TRANSPORT column" '
row = [l for l in out.splitlines() if l.startswith("  ml-team/llama-train-node-0-0-x2b9f ")]
eq(row and row[0].split()[1:], ["8", "attached", "fastrak", "-"], "row")
'

proc 2
agent workloads --json $W
check "partial: clients on 2 NIC addresses, exit 1" '
eq(rc, 1, "exit")
t = pod(j)["transport"]
eq((t["state"], t["rails"]), ("partial", 2), "state, rails")
eq(pod(j)["verdict"], "attached", "the attachment verdict is its own")
'

# (a) running 2 h, RxDM listening, no client, eth0 still: idle, exit 0.
proc 0
agent workloads --json $W
check "idle: 2 h without a client, eth0 still over the window, exit 0" '
import re
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq((t["state"], t["rails"], t["clients"]), ("idle", 0, 0), "state, rails, clients")
ok(re.search(r"after 2h0[0-9]m running \(grace 10m\), and no bulk traffic both ways over 1s", t["evidence"]), "evidence: %r" % t["evidence"])
ok("0 B/s on eth0" in t["evidence"] and "no NCCL communicator yet" in t["evidence"], "evidence: %r" % t["evidence"])
ok("the daemon listens on 8 NIC addresses" in t["evidence"], "evidence: %r" % t["evidence"])
'
agent workloads $W
check "idle: the table says why under the row, exit 0" '
eq(rc, 0, "exit")
ok("      transport         SKIP  no buffer-op client after 2h0" in out, "table: %r" % out[-600:])
'

# (b) the same with eth0 receiving and sending 2 GB/s each: tcp, exit 1; --once still ready.
busy
agent workloads --json $W
check "tcp: no client, eth0 2 GB/s each way over the window, exit 1" '
import re
eq(rc, 1, "exit")
t = pod(j)["transport"]
eq((t["state"], t["rails"], t["clients"]), ("tcp", 0, 0), "state, rails, clients")
m = re.search(r"eth0 rx ([0-9.]+) GB/s, tx ([0-9.]+) GB/s", t["evidence"])
ok(m and 0.5 <= float(m.group(1)) <= 4.0 and 0.5 <= float(m.group(2)) <= 4.0, "the interface and its rates: %r" % t["evidence"])
ok("at least 100.0 MB/s each" in t["evidence"] and "NCCL runs over TCP sockets" in t["evidence"], "evidence: %r" % t["evidence"])
'
agent --once --json --no-publish $W
check "tcp: --once shows it, the node still ready, exit 0" '
eq(rc, 0, "exit")
eq(j["ready"], True, "ready")
eq(pod(j["workloads"])["transport"]["state"], "tcp", "transport")
'
agent workloads --json $W --transport-tcp-rate 5GB/s
check "tcp: under --transport-tcp-rate 5GB/s idle, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq(t["state"], "idle", "state")
ok("limit 5.0 GB/s each way" in t["evidence"], "evidence: %r" % t["evidence"])
'
agent workloads --json $W --transport-grace 3h
check "tcp: pending under --transport-grace 3h, exit 0" '
eq(rc, 0, "exit")
eq(pod(j)["transport"]["state"], "pending", "transport")
'
stop_writer

pods 60
agent workloads --json $W
check "pending: started 60 s ago, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq(t["state"], "pending", "state")
ok("have run 1m" in t["evidence"] or "have run 6" in t["evidence"], "evidence: %r" % t["evidence"])
'

pods 7200 hostNetwork
agent workloads --json $W
check "not-observed: a hostNetwork pod, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq(t["state"], "not-observed", "state")
ok("hostNetwork: the pod shares the host" in t["evidence"] and "TCPXO prober" in t["evidence"], "evidence: %r" % t["evidence"])
'

rm -rf "$root/proc/$PID"
pods 7200
agent workloads --json $W
check "unknown: no process of the pod, never tcp or idle, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq(t["state"], "unknown", "state")
ok("no process of the pod found" in t["evidence"], "evidence: %r" % t["evidence"])
'

# ---- under strace, to see each reading: the daemon's samples, and a process that leaves within the window ----
if ! command -v strace >/dev/null 2>&1; then
	skip "the window and the daemon's samples" "no strace"
	exit $failed
fi
# The probe opens /proc/<pid>/net, then "unix", "udp", "dev" in it: one "unix" per reading of the pod.
reads() { grep -cE "$1" "$2" 2>/dev/null || true; }

proc 0
# LeakSanitizer cannot run under ptrace (SAN=1 builds): the leak check is the other cases'.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
strace -f -qq -e trace=open,openat,openat2 -o "$tmp/strace.window" "$AGENT" workloads --json --transport-window 3s \
	--root "$root" --node "$NODE" --api-server "$SERVER" --token-file "$tmp/token" --ca-file "$tmp/certs/ca.crt" \
	>"$tmp/out" 2>"$tmp/err" &
wpid=$!
wait_for '[ "$(reads "\"unix\"" "$tmp/strace.window")" -ge 1 ]' 15
rm -rf "$root/proc/$PID"
wait "$wpid"
rc=$?
check "the window: a process gone before the second reading is unknown, never idle, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq(t["state"], "unknown", "state")
ok("exited (or left the pod) between two readings of its net/dev" in t["evidence"], "evidence: %r" % t["evidence"])
'

# daemon NAME: the daemon under strace (the files it opens into $tmp/strace.NAME, its log $tmp/agent.NAME.log),
# against the fake API; $agent_pid is the agent itself (strace, its launcher, keeps SIGTERM and SIGHUP from
# reaching it), $strace_pid strace.
daemon() {
	strace -f -qq -e trace=open,openat,openat2 -o "$tmp/strace.$1" "$AGENT" --root "$root" --node "$NODE" \
		--api-server "$SERVER" --token-file "$tmp/token" --ca-file "$tmp/certs/ca.crt" --start-jitter 0 \
		--interval 600 --metrics-address 127.0.0.1:0 2>"$tmp/agent.$1.log" &
	strace_pid=$!
	wait_for '[ -n "$(cat /proc/$strace_pid/task/$strace_pid/children 2>/dev/null)" ]' 30
	agent_pid=$(cat "/proc/$strace_pid/task/$strace_pid/children" 2>/dev/null | awk '{ print $1 }')
	[ -n "$agent_pid" ] || { nok "daemon $1" "strace started no agent within 30 s"; return 1; }
}
# stop_daemon: SIGTERM to the agent, strace's exit waited for 30 s at most (then both killed): never a hang.
stop_daemon() {
	[ -n "$agent_pid" ] || agent_pid=$(cat "/proc/$strace_pid/task/$strace_pid/children" 2>/dev/null | awk '{ print $1 }')
	[ -n "$agent_pid" ] && kill -TERM "$agent_pid" 2>/dev/null
	if ! wait_for '! kill -0 '"$strace_pid"' || [ "$(ps -o stat= -p '"$strace_pid"' | cut -c1)" = Z ]' 30; then
		[ -n "$agent_pid" ] && kill -KILL "$agent_pid" 2>/dev/null
		kill -KILL "$strace_pid" 2>/dev/null
	fi
	wait "$strace_pid" 2>/dev/null
	agent_pid="" strace_pid=""
}
# sampled NAME N: wait until the daemon NAME has read the pod N times, then half a second (its judgement, Events).
sampled() {
	wait_for '[ "$(reads "\"unix\"" "'"$tmp/strace.$1"'")" -ge '"$2"' ]' 30 || return 1
	sleep 0.5
}
# resample NAME N: SIGHUP, then sampled NAME N.
resample() { kill -HUP "$agent_pid" 2>/dev/null; sampled "$1" "$2"; }
# scrape NAME: the daemon's /metrics into $tmp/scrape.
scrape() {
	_maddr=$(sed -n 's/.*serving metrics.*address=\([0-9.]*:[0-9]*\).*/\1/p' "$tmp/agent.$1.log" | head -n 1)
	/usr/bin/python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=5).read().decode())' \
		"$_maddr" >"$tmp/scrape" 2>"$tmp/scrape.err"
}
# state_is STATE: the scrape has the pod's transport in STATE (1) and no other state at 1.
state_is() {
	grep -q '^tcpxo_pod_transport{namespace="ml-team",pod="llama-train-node-0-0-x2b9f",state="'"$1"'"} 1$' "$tmp/scrape" &&
		[ "$(grep -c '^tcpxo_pod_transport{.*} 1$' "$tmp/scrape")" = 1 ]
}
events() { reqs "$m" | grep -c "^EVENT .*$1" || true; }
# daemon_case NAME STATE NOTINUSE PARTIAL WHAT: after three samples, the pod's state on /metrics and the Events counted.
daemon_case() {
	scrape "$1"
	stop_daemon
	_n=$(events TCPXONotInUse) _p=$(events TCPXOPartialRails) _s=$(reads '"unix"' "$tmp/strace.$1")
	if [ "$_s" -ge 3 ] && [ "$_n" = "$3" ] && [ "$_p" = "$4" ] && state_is "$2"; then
		ok "daemon: $5 ($_s samples: $_n TCPXONotInUse, $_p TCPXOPartialRails, /metrics $2)"
	else
		nok "daemon: $5" "$_s samples, $_n TCPXONotInUse, $_p TCPXOPartialRails (want $3, $4), /metrics: $(grep '^tcpxo_pod_transport{.*} 1$' "$tmp/scrape" | tr '\n' '|') $(head -c 200 "$tmp/scrape.err"); log: $(grep -E 'pod transport|Event' "$tmp/agent.$1.log" | tail -n 4 | tr '\n' '|')"
	fi
}
pods 7200

# (a) idle: nothing posted over three samples.
proc 0
m=$(mark)
daemon idle && sampled idle 1 && sleep 1 && resample idle 2 && resample idle 3     # the log's "since" a second before
daemon_case idle idle 0 0 "idle (2 h, RxDM listening, no client, eth0 still) posts nothing over three samples"
if grep -q 'pod transport pod=ml-team/llama-train-node-0-0-x2b9f state=idle evidence=.*0 B/s on eth0: no NCCL communicator yet.*no client on any sample since [0-9][0-9]:[0-9][0-9] UTC' "$tmp/agent.idle.log"; then
	ok "daemon: its log says why the pod is idle and that no sample saw a client"
else
	nok "daemon: the idle pod's log line" "$(grep 'pod transport' "$tmp/agent.idle.log" | tr '\n' '|')"
fi

# (b) tcp: exactly one TCPXONotInUse over three samples; its note carries the evidence.
busy
m=$(mark)
daemon tcp && sampled tcp 1 && sleep 0.5 && resample tcp 2 && sleep 0.5 && resample tcp 3
sleep 1         # a second Event would have been posted with its sample
daemon_case tcp tcp 1 0 "tcp (eth0 2 GB/s each way) posts exactly one TCPXONotInUse over three samples"
stop_writer
if grep -q 'Transport tcp: no buffer-op client after 2h0[0-9]m running (grace 10m), and over [0-9]*s bulk traffic both ways (at least 100.0 MB/s each): eth0 rx' "$state/events.json" 2>/dev/null; then
	ok "daemon: the TCPXONotInUse Event's note carries the evidence (the interface and its rates)"
else
	nok "daemon: the TCPXONotInUse Event's note" "no note with the evidence in events.json: $(grep -o 'Transport [^"]*' "$state/events.json" | head -n 2)"
fi

# (c) 8 clients on the first sample, none on the next two: no TCPXONotInUse; the log says it had them.
proc 8
m=$(mark)
daemon ended && sampled ended 1 && proc 0 && resample ended 2 && resample ended 3
daemon_case ended idle 0 0 "8 clients on the first sample, none on the next two: no TCPXONotInUse"
if grep -q 'pod transport pod=ml-team/llama-train-node-0-0-x2b9f state=idle evidence=.*it had 8 clients on 8 NIC addresses until [0-9][0-9]:[0-9][0-9] UTC ([0-9]*s before this sample): its NCCL processes ended or restarted' "$tmp/agent.ended.log"; then
	ok "daemon: its log says the idle pod had 8 clients until when, and that its processes ended or restarted"
else
	nok "daemon: the idle pod's history" "$(grep 'pod transport' "$tmp/agent.ended.log" | tr '\n' '|')"
fi

# (d) 2 rails then 8: no TCPXOPartialRails; 2 rails on three samples: exactly one.
proc 2
m=$(mark)
daemon late && sampled late 1 && proc 8 && resample late 2 && resample late 3
daemon_case late fastrak 0 0 "2 rails on the first sample, 8 on the next: no TCPXOPartialRails"
proc 2
m=$(mark)
daemon partial && sampled partial 1 && resample partial 2 && resample partial 3
sleep 1
daemon_case partial partial 0 1 "2 rails on three samples: exactly one TCPXOPartialRails"
if grep -q 'Transport partial (2 of 8 NIC addresses) on two samples in a row: ' "$state/events.json" 2>/dev/null; then
	ok "daemon: the TCPXOPartialRails Event's note"
else
	nok "daemon: the TCPXOPartialRails Event's note" "$(grep -o 'Transport [^"]*' "$state/events.json" | head -n 3)"
fi

# (e) An observation without a transport sample (a link event re-observes, it does not re-sample): the
# pod's transport stays on /metrics what its last sample judged, never dropped between samples.
proc 2
m=$(mark)
daemon keep && sampled keep 1
scans=$(reads '"comm"' "$tmp/strace.keep") samples=$(reads '"unix"' "$tmp/strace.keep")
ip link set eth8 mtu 8000
wait_for '[ "$(reads "\"comm\"" "$tmp/strace.keep")" -gt '"$scans"' ]' 5
sleep 0.5
resampled=$(($(reads '"unix"' "$tmp/strace.keep") - samples))
scrape keep
ip link set eth8 mtu 8244
stop_daemon
if [ "$(reads '"comm"' "$tmp/strace.keep")" -gt "$scans" ] && [ "$resampled" = 0 ] && state_is partial; then
	ok "daemon: an observation without a transport sample keeps the pod's last state on /metrics (partial)"
else
	nok "daemon: an observation without a sample" "scans $scans -> $(reads '"comm"' "$tmp/strace.keep"), $resampled net/unix reads more, /metrics: $(grep '^tcpxo_pod_transport{.*} 1$' "$tmp/scrape" | tr '\n' '|')"
fi

# ---- the daemon while no GPU pod runs: nothing under /proc/*/net, even on SIGHUP ----
cp "$TOPDIR/fixtures/kube/pods-idle.json" "$state/pods.json"
daemon noidle
wait_for '[ "$(reads "\"comm\"" "$tmp/strace.noidle")" -ge 1 ]' 15   # observed (the daemon processes' scan)
first=$(reads '"comm"' "$tmp/strace.noidle")
kill -HUP "$agent_pid" 2>/dev/null
wait_for '[ "$(reads "\"comm\"" "$tmp/strace.noidle")" -gt '"$first"' ]' 5
sleep 0.5
stop_daemon
net=$(reads '"(unix|udp)"' "$tmp/strace.noidle")
scans=$(reads '"comm"' "$tmp/strace.noidle")
if [ "$net" = 0 ] && [ "$scans" -gt "$first" ]; then
	ok "daemon without GPU pods: nothing read under /proc/*/net over 2 observations ($scans process scans)"
else
	nok "daemon without GPU pods" "$net reads under /proc/*/net, $scans scans: $(grep -E '"(unix|udp)"' "$tmp/strace.noidle" | head -n 2 | tr '\n' '|')"
fi
exit $failed
