#!/bin/sh
# test_transport.sh - each running GPU pod's transport, end to end: fixture /proc trees (fixtures/gen_proc.py) holding
# the pod's process in each situation, the pod in the fake API. workloads and --once: 8 clients on 8 NIC addresses
# fastrak (exit 0), 2 addresses partial (exit 1), 2 h without a client none (exit 1, the node still ready), 60 s
# pending, no process unknown. The daemon: exactly one TCPXONotInUse Event over several samples (SIGHUP
# re-samples), and nothing read under /proc/*/net while no GPU pod runs (strace).
# Env: TOPDIR, BUILD, TCPXO_AGENT. Everything runs in one private namespace (tests/lib/daemon_env.sh).
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec transport "$0"
strace_pid=""
trap 'daemon_env_cleanup; [ -n "$strace_pid" ] && kill "$strace_pid" 2>/dev/null' EXIT
trap 'exit 130' INT TERM
daemon_env_setup || exit 1

UID_POD=d19249ce-9207-4546-806b-40c7569ab007       # pods-healthy.json's ml-team/llama-train-node-0-0-x2b9f
CID=4f3c2b1a09e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2
PID=4242

# pods AGE_S: the healthy pods, the llama worker's containers with their containerID and started AGE_S ago.
pods() {
	/usr/bin/python3 - "$TOPDIR/fixtures/kube/pods-healthy.json" "$state/pods.json.new" "$CID" "$1" <<'PY' || return 1
import json, sys, time
d = json.load(open(sys.argv[1]))
started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - int(sys.argv[4])))
for p in d["items"]:
    if p["metadata"]["name"] != "llama-train-node-0-0-x2b9f":
        continue
    for i, c in enumerate(p["status"].get("containerStatuses", []) + p["status"].get("initContainerStatuses", [])):
        c["containerID"] = "containerd://" + (sys.argv[3] if c["name"] == "node" else "%064x" % (i + 1))
        c["state"] = {"running": {"startedAt": started}}
json.dump(d, open(sys.argv[2], "w"))
PY
	mv "$state/pods.json.new" "$state/pods.json"
}

# proc RAILS [ARGS...]: the worker's process in the tree's /proc with clients on RAILS NIC addresses.
proc() {
	_r=$1; shift
	rm -rf "$root/proc/$PID"
	/usr/bin/python3 "$TOPDIR/fixtures/gen_proc.py" "$root" --pid $PID --pod-uid $UID_POD --container-id $CID \
		--rails "$_r" --listeners 8 --flows $((2 * _r)) "$@"
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

# ---- workloads and --once, one situation each ----
pods 7200
proc 8
agent workloads --json
check "fastrak: 8 clients on 8 NIC addresses, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq((t["state"], t["rails"], t["clients"], t["flows"]), ("fastrak", 8, 8, 16), "state, rails, clients, flows")
ok("10.64.1.1, 10.64.1.2" in t["evidence"], "the evidence names the NIC addresses: %r" % t["evidence"])
'
agent workloads
check "fastrak: the table's TRANSPORT column" '
row = [l for l in out.splitlines() if l.startswith("  ml-team/llama-train-node-0-0-x2b9f ")]
eq(row and row[0].split()[1:], ["8", "attached", "fastrak", "-"], "row")
'

proc 2
agent workloads --json
check "partial: clients on 2 NIC addresses, exit 1" '
eq(rc, 1, "exit")
t = pod(j)["transport"]
eq((t["state"], t["rails"]), ("partial", 2), "state, rails")
eq(pod(j)["verdict"], "attached", "the attachment verdict is its own")
'

proc 0
agent workloads --json
check "none: running 2 h without a client, exit 1" '
eq(rc, 1, "exit")
t = pod(j)["transport"]
eq((t["state"], t["rails"], t["clients"]), ("none", 0, 0), "state, rails, clients")
ok("after 2h00m running (grace 10m)" in t["evidence"], "evidence: %r" % t["evidence"])
'
agent --once --json --no-publish
check "none: --once shows it, the node still ready, exit 0" '
eq(rc, 0, "exit")
eq(j["ready"], True, "ready")
eq(pod(j["workloads"])["transport"]["state"], "none", "transport")
'
agent workloads --json --transport-grace 3h
check "none: pending under --transport-grace 3h, exit 0" '
eq(rc, 0, "exit")
eq(pod(j)["transport"]["state"], "pending", "transport")
'

pods 60
agent workloads --json
check "pending: started 60 s ago, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq(t["state"], "pending", "state")
ok("have run 1m" in t["evidence"] or "have run 6" in t["evidence"], "evidence: %r" % t["evidence"])
'

rm -rf "$root/proc/$PID"
pods 7200
agent workloads --json
check "unknown: no process of the pod, never none, exit 0" '
eq(rc, 0, "exit")
t = pod(j)["transport"]
eq(t["state"], "unknown", "state")
ok("no process of the pod found" in t["evidence"], "evidence: %r" % t["evidence"])
'

# ---- the daemon (under strace, to see each sample): one TCPXONotInUse Event over several samples ----
if ! command -v strace >/dev/null 2>&1; then
	skip "daemon: one TCPXONotInUse Event, nothing under /proc/*/net without GPU pods" "no strace"
	exit $failed
fi
# daemon TRACE: the daemon under strace (the files it opens into TRACE), against the fake API; $agent_pid is
# the agent itself (strace, its launcher, keeps SIGTERM and SIGHUP from reaching it), $strace_pid strace.
daemon() {
	strace -f -qq -e trace=open,openat,openat2 -o "$1" "$AGENT" --root "$root" --node "$NODE" --api-server "$SERVER" \
		--token-file "$tmp/token" --ca-file "$tmp/certs/ca.crt" --start-jitter 0 --interval 600 \
		--metrics-address 127.0.0.1:0 2>"$tmp/agent.log" &
	strace_pid=$!
	# Bounded: under load strace can be slow to start its child; never wait on it for ever.
	wait_for '[ -n "$(cat /proc/$strace_pid/task/$strace_pid/children 2>/dev/null)" ]' 15
	agent_pid=$(cat "/proc/$strace_pid/task/$strace_pid/children" 2>/dev/null | awk '{ print $1 }')
	if [ -z "$agent_pid" ]; then
		nok "daemon under strace" "strace (pid $strace_pid) started no agent within 15 s"
		kill -KILL "$strace_pid" 2>/dev/null
		wait "$strace_pid" 2>/dev/null
		strace_pid=""
		return 1
	fi
}
stop_daemon() {
	[ -n "$agent_pid" ] && kill -TERM "$agent_pid" 2>/dev/null
	# Bounded too: the agent exits within a second of SIGTERM, strace right after it.
	if ! wait_for '! kill -0 "$strace_pid" 2>/dev/null' 10; then
		nok "daemon under strace: stop" "the agent (pid $agent_pid) or strace (pid $strace_pid) still runs 10 s after SIGTERM"
		kill -KILL "$agent_pid" "$strace_pid" 2>/dev/null
	fi
	wait "$strace_pid" 2>/dev/null
	agent_pid="" strace_pid=""
}
# PATTERN TRACE: the opens matching PATTERN. The probe opens /proc/<pid>/net, then "unix", "udp", "dev" in it.
reads() { grep -cE "$1" "$2" 2>/dev/null || true; }
pods 7200
proc 0
m=$(mark)
daemon "$tmp/strace.gpu" || exit 1
events() { reqs "$m" | grep -c "^EVENT .*TCPXONotInUse"; }
unix_reads() { reads '"unix"' "$tmp/strace.gpu"; }     # samples of the pod's net files
wait_for '[ "$(events)" -ge 1 ]' 15
for _i in 2 3 4; do
	kill -HUP "$agent_pid" 2>/dev/null
	wait_for '[ "$(unix_reads)" -ge $_i ]' 5
done
wait_for '[ "$(events)" -ge 2 ]' 1.5     # a second Event would have been posted with its sample
n=$(events)
samples=$(unix_reads)
# An observation without a transport sample (a link event: re-observed, not re-sampled): the pod's
# transport stays what its last sample judged on /metrics, never dropped between samples.
scans=$(reads "/comm" "$tmp/strace.gpu")
ip link set eth8 mtu 8000
wait_for '[ "$(reads "/comm" "$tmp/strace.gpu")" -gt '"$scans"' ]' 5
sleep 0.3
resampled=$(($(unix_reads) - samples))
# /metrics says it too: the pod's transport state none, 0 rails.
maddr=$(sed -n 's/.*serving metrics.*address=\([0-9.]*:[0-9]*\).*/\1/p' "$tmp/agent.log" | head -n 1)
/usr/bin/python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=5).read().decode())' \
	"$maddr" >"$tmp/scrape" 2>"$tmp/scrape.err"
ip link set eth8 mtu 8244
stop_daemon
if [ "$(reads "/comm" "$tmp/strace.gpu")" -gt "$scans" ] && [ "$resampled" = 0 ]; then
	ok "daemon: an observation without a transport sample (a link event: $scans -> more process scans, no net read)"
else
	nok "daemon: an observation without a sample" "scans $scans -> $(reads "/comm" "$tmp/strace.gpu"), $resampled net/unix reads more"
fi
if grep -q '^tcpxo_pod_transport{namespace="[^"]*",pod="[^"]*",state="none"} 1$' "$tmp/scrape" &&
   [ "$(grep -c '^tcpxo_pod_transport{.*} 1$' "$tmp/scrape")" = 1 ] &&
   grep -q '^tcpxo_pod_transport_rails{namespace="[^"]*",pod="[^"]*"} 0$' "$tmp/scrape"; then
	ok "daemon: /metrics has the pod's transport none (one state 1) and 0 rails, kept after an observation without a sample"
else
	nok "daemon: /metrics transport" "address '$maddr': $(grep '^tcpxo_pod_transport' "$tmp/scrape" | tr '\n' '|') $(head -c 200 "$tmp/scrape.err")"
fi
if [ "$n" = 1 ] && [ "$samples" -ge 4 ] && [ "$(reqs "$m" | grep -c '^EVENT .*TCPXOPartialRails')" = 0 ]; then
	ok "daemon: exactly one TCPXONotInUse Event on the pod over $samples samples (start, then each SIGHUP)"
else
	nok "daemon: one TCPXONotInUse Event" "$n Events over $samples samples: $(reqs "$m" | grep '^EVENT' | tr '\n' '|'); log: $(tail -n 5 "$tmp/agent.log" | tr '\n' '|')"
fi
if grep -q 'Transport none: no process of the pod holds a buffer-op client' "$state/events.json" 2>/dev/null; then
	ok "daemon: the Event's note carries the evidence"
else
	nok "daemon: the Event's note" "no note with the evidence in events.json"
fi

# ---- the daemon while no GPU pod runs: nothing under /proc/*/net, even on SIGHUP ----
cp "$TOPDIR/fixtures/kube/pods-idle.json" "$state/pods.json"
daemon "$tmp/strace.idle" || exit 1
wait_for '[ "$(reads "/comm" "$tmp/strace.idle")" -ge 1 ]' 15   # observed (the daemon processes' scan)
first=$(reads "/comm" "$tmp/strace.idle")
kill -HUP "$agent_pid" 2>/dev/null
wait_for '[ "$(reads "/comm" "$tmp/strace.idle")" -gt '"$first"' ]' 5
sleep 0.5
stop_daemon
net=$(reads '"(unix|udp)"' "$tmp/strace.idle")
scans=$(reads "/comm" "$tmp/strace.idle")
if [ "$net" = 0 ] && [ "$scans" -gt "$first" ]; then
	ok "daemon without GPU pods: nothing read under /proc/*/net over 2 observations ($scans process scans)"
else
	nok "daemon without GPU pods" "$net reads under /proc/*/net, $scans scans: $(grep -E '"(unix|udp)"' "$tmp/strace.idle" | head -n 2 | tr '\n' '|')"
fi
exit $failed
