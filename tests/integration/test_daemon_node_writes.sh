#!/bin/sh
# test_daemon_node_writes.sh - the daemon's node writes and Events against the fake API in a private netns: one Event per GPU pod uid and
# verdict (TCPXOUnattached / TCPXOPartiallyAttached, on the pod, in its namespace), none for attached or
# not-fabric pods, none again across resyncs, one for a new uid or a new verdict, a failing POST retried with
# backoff while the node's own PATCHes go on, a restarted agent that finds the node as it sees it (no
# node write, no node Event), and a node PATCH whose answers are lost after the server applied it (the
# transition's Event still posted, once), and a new agent that finds ready published but our condition missing
# (the agent before stopped during its node PATCH: the transition told once), and the daemon pod that cannot
# be read (its own finding, the node's verdict still published; then the skew beside pods of 70,000-character
# env and 300 containers is published). Takes about 90 s (--interval 10: the pods store is refilled every 10-11 s).
# Env: TOPDIR, BUILD, TCPXO_AGENT. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec status "$0"
trap daemon_env_cleanup EXIT
trap 'exit 130' INT TERM
failed=0
daemon_env_setup || exit 1
events() { reqs "$1" | grep -c '^EVENT .* status=201'; }
PY=/usr/bin/python3
export NODE state tmp

# judge FILE: the pods of the fake API now, as `tcpxo-agent workloads --json` judges them, into FILE.
judge() {
	"$AGENT" workloads --json --root "$root" --node "$NODE" --api-server "$SERVER" --token-file "$tmp/token" \
		--ca-file "$tmp/certs/ca.crt" >"$1" 2>"$tmp/workloads.err"
}

# The GPU pods of fixtures/kube/pods-workloads.json (one per finding, AICR's worker, Google's nccl-test
# pod, a plain pytorch pod, a notebook) as `workloads` judges them: the Events must follow its verdicts.
cp "$TOPDIR/fixtures/kube/pods-workloads.json" "$state/pods.json"
judge "$tmp/workloads.json"
m0=$(mark)

# check NAME MARK [WORKLOADS]: python assertions on stdin over the Events posted after MARK (the request
# log's POSTs answered 201): posted (their bodies), and pods (the judged pods by uid, from WORKLOADS or the
# first judgement); prints ok / not ok NAME.
check() {
	if out=$($PY - "$state/requests.log" "$2" "${3:-$tmp/workloads.json}" 2>&1 <<EOF
import json, os, sys
log, start, wl = sys.argv[1], int(sys.argv[2]), sys.argv[3]
NODE = os.environ["NODE"]
reqs = [json.loads(l) for l in open(log).read().splitlines()[start:]]
posted = [dict(json.loads(r["body"]), _path=r["path"]) for r in reqs if r["method"] == "POST" and r["status"] == 201]
pods = {p["uid"]: p for p in json.load(open(wl))["pods"]}
pod_events = [e for e in posted if e["regarding"]["kind"] == "Pod"]
node_events = [e for e in posted if e["regarding"]["kind"] == "Node"]
$(cat)
EOF
	); then
		ok "$1${out:+: $out}"
	else
		nok "$1" "$(printf '%s' "$out" | tail -n 3 | tr '\n' '|')"
	fi
}

# --- start: the node's Event and one per unattached or partial pod ---
start_agent "$tmp/agent.log" --interval 10
wait_for '[ "$(events '"$m0"')" -ge 12 ]' 10
sleep 1.5
check "status pod Events at start" "$m0" <<'EOF'
want = {u: p for u, p in pods.items() if p["verdict"] in ("unattached", "partial")}
assert len(want) == 11 and sum(p["verdict"] == "unattached" for p in want.values()) == 1, \
    "fixture: %d pods to tell" % len(want)
assert [e["reason"] for e in node_events] == ["FabricReady"], node_events
assert sorted(e["regarding"]["uid"] for e in pod_events) == sorted(want), "Events for %s" % [
    e["regarding"]["name"] for e in pod_events]
for e in pod_events:
    p = want[e["regarding"]["uid"]]
    assert e["regarding"] == {"apiVersion": "v1", "kind": "Pod", "namespace": p["namespace"], "name": p["name"],
                              "uid": p["uid"]}, e["regarding"]
    assert e["_path"] == "/apis/events.k8s.io/v1/namespaces/%s/events" % p["namespace"], e["_path"]
    assert e["metadata"]["namespace"] == p["namespace"], e["metadata"]
    assert (e["type"], e["action"]) == ("Warning", "Check"), e
    assert e["reason"] == {"unattached": "TCPXOUnattached", "partial": "TCPXOPartiallyAttached"}[p["verdict"]], e
    assert (e["reportingController"], e["reportingInstance"]) == ("fabric.aicr.run/tcpxo-agent", NODE), e
    assert len(e["note"].encode()) <= 1024, len(e["note"].encode())
    for f in p["findings"]:
        if f["status"] == "fail":
            assert f["id"] in e["note"], (f["id"], e["note"])
    assert "Remedy:" in e["note"], e["note"]
print("%d pod Events (%s), 1 node Event" % (len(pod_events), ", ".join(sorted({e["reason"] for e in pod_events}))))
EOF

# --- a resync later: the same pods get nothing again; a new uid and a new verdict get one each ---
m=$(mark)
$PY - "$state/pods.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
by = {p["metadata"]["name"]: p for p in d["items"]}
unattached = next(p for p in d["items"] if p["metadata"]["name"] == "pytorch-ddp-7f9c4")
attached = next(p for p in d["items"] if p["metadata"]["name"] == "llama-train-node-0-0-x2b9f")
# The pytorch pod deleted and created again under its name: a new uid.
unattached["metadata"]["uid"] = "0d0e0f10-1112-4314-9516-171819202122"
# The aperture pod fixed (same uid): it becomes attached, which is no news.
fixed = next(p for p in d["items"] if p["metadata"]["name"].startswith("llama-aperture-"))
fixed["spec"] = json.loads(json.dumps(attached["spec"]))
fixed["metadata"]["annotations"] = attached["metadata"].get("annotations", {})
fixed["status"] = json.loads(json.dumps(attached["status"]))
# The daemon-version pod loses all its wiring (same uid): a new verdict, unattached.
changed = next(p for p in d["items"] if p["metadata"]["name"].startswith("llama-daemon-version-"))
changed["spec"] = json.loads(json.dumps(unattached["spec"]))
changed["metadata"]["annotations"] = unattached["metadata"].get("annotations", {})
changed["status"] = json.loads(json.dumps(unattached["status"]))
json.dump(d, open(sys.argv[1], "w"))
EOF
wait_for '[ "$(events '"$m"')" -ge 2 ]' 14
# The changes come by the pods watch; the store refilled at the next --interval must tell nothing again.
wait_for '[ "$(reqs '"$m"' | grep -c "^GET /api/v1/pods ")" -ge 1 ]' 16
sleep 1.5
check "status pod Events across a resync" "$m" <<'EOF'
assert any(r["method"] == "GET" and r["path"] == "/api/v1/pods" for r in reqs), "no resync seen"
got = sorted((e["regarding"]["name"], e["regarding"]["uid"], e["reason"]) for e in pod_events)
names = sorted(n for n, _, _ in got)
assert len(got) == 2 and names[0].startswith("llama-daemon-version-") and names[1] == "pytorch-ddp-7f9c4", got
assert all(r == "TCPXOUnattached" for _, _, r in got), got
assert ("pytorch-ddp-7f9c4", "0d0e0f10-1112-4314-9516-171819202122", "TCPXOUnattached") in got, got
assert not node_events, node_events
print("2 Events (a new uid, a new verdict), none for the 9 pods told before nor for the pod fixed")
EOF

# --- POSTs fail (500): the Events wait with backoff, the node's own writes do not ---
printf '%s\n' '{"mode": "500", "method": "POST"}' >"$state/faults"
m=$(mark)
$PY - "$state/pods.json" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
p = next(p for p in d["items"] if p["metadata"]["name"] == "pytorch-ddp-7f9c4")
p["metadata"]["uid"] = "1a1b1c1d-2a2b-4c2d-8e2f-303132333435"
json.dump(d, open(sys.argv[1], "w"))
EOF
# Two failed rounds (each: the client's 3 attempts), then the link goes down.
wait_for '[ "$(reqs '"$m"' | grep -c "^EVENT .* status=500")" -ge 4 ]' 25
t_link=$(now_ms)
ip link set eth3 down
# Not held: the status PATCH comes while every POST still fails (the faults stay until it has come;
# a held write would wait for an Event to get through, which none can). Its delay is printed, not bounded
# (a loaded machine took 3.5 s, a quiet one 2).
status_came=0
wait_for 'reqs '"$m"' | grep -q "^STATUS .* cond=False/Links"' 15 && status_came=1
dt=$(($(now_ms) - t_link))
sleep 0.5
rm -f "$state/faults"
wait_for '[ "$(events '"$m"')" -ge 2 ]' 25
check "status Events retried with backoff" "$m" <<'EOF'
posts = [r for r in reqs if r["method"] == "POST"]
fails = [r for r in posts if r["status"] == 500]
# Rounds: POSTs closer than 2 s belong to one call of the client (its own retries); the queue waits 2.5 s
# and more between rounds (at least half of 5 s, doubling).
rounds = [[fails[0]]]
for a, b in zip(fails, fails[1:]):
    if b["t"] - a["t"] < 2.0:
        rounds[-1].append(b)
    else:
        rounds.append([b])
gaps = [round(rounds[i + 1][0]["t"] - rounds[i][-1]["t"], 1) for i in range(len(rounds) - 1)]
assert len(rounds) >= 2 and all(g >= 2.4 for g in gaps), "rounds %s, gaps %s" % ([len(r) for r in rounds], gaps)
assert all(len(r) <= 3 for r in rounds), [len(r) for r in rounds]
# The node's writes went on while the Events waited: PATCH and status PATCH before any Event got through.
first_ok = min(r["t"] for r in posts if r["status"] == 201)
patch = [r for r in reqs if r["method"] == "PATCH" and r["status"] == 200]
assert len(patch) == 2 and all(r["t"] < first_ok for r in patch), [(r["path"], r["t"]) for r in patch]
# Then both, in the order they came: the pod's, then the node's.
assert [(e["regarding"]["kind"], e["reason"]) for e in posted] == [("Pod", "TCPXOUnattached"), ("Node", "FabricNotReady")], \
    [(e["regarding"]["kind"], e["reason"]) for e in posted]
print("%d failed rounds %s s apart, node PATCH and status PATCH meanwhile, then the 2 Events in order" % (len(rounds), gaps))
EOF
if [ "$status_came" = 1 ] && grep -q 'Event not posted.*HTTP 500' "$tmp/agent.log"; then
	ok "status node writes not held by failing Events: status PATCH $dt ms after eth3 down, the failure logged"
else
	nok "status node writes not held by failing Events" "no status PATCH within $dt ms while the Events failed; log: $(grep 'Event not posted' "$tmp/agent.log" | tail -n 1)"
fi

# --- restart: the node carries what the agent sees: no node write, no node Event ---
stop_agent
judge "$tmp/workloads2.json"
m=$(mark)
start_agent "$tmp/agent2.log" --interval 10
wait_for 'reqs '"$m"' | grep -q "^GET /api/v1/pods"' 5
sleep 2.5
check "status restart" "$m" "$tmp/workloads2.json" <<'EOF'
writes = [(r["method"], r["path"]) for r in reqs if r["method"] == "PATCH"]
assert writes == [], writes
assert not node_events, node_events
# Per agent lifetime: a new agent tells the pods that are still unattached or partial once more.
want = sorted(u for u, p in pods.items() if p["verdict"] in ("unattached", "partial"))
assert sorted(e["regarding"]["uid"] for e in pod_events) == want and len(want) == 10, (len(pod_events), len(want))
print("no PATCH, no status PATCH, no node Event; the %d pod Events once more (one per agent lifetime)" % len(pod_events))
EOF

# --- the node PATCH applied but its answers lost (cut short, all three attempts): when the agent then finds
# its values already on the node, the transition still gets its Event, once, and the condition follows ---
m=$(mark)
printf '%s\n' '{"mode": "short", "count": 3, "method": "PATCH", "path": "/api/v1/nodes/'"$NODE"'"}' >"$state/faults"
ip link set eth3 up
wait_for 'reqs '"$m"' | grep -q "^EVENT .*FabricReady.* status=201"' 30
sleep 1
check "status lost answer" "$m" <<'EOF'
node_patch = [r for r in reqs if r["method"] == "PATCH" and r["path"] == "/api/v1/nodes/" + NODE]
cut = [r for r in node_patch if r["fault"] == "short"]
assert len(cut) == 3, [(r["fault"], r["status"]) for r in node_patch]
status = [r for r in reqs if r["method"] == "PATCH" and r["path"].endswith("/status") and r["status"] == 200]
assert len(status) == 1 and '"True"' in status[0]["body"], [r["body"][:80] for r in status]
assert [(e["reason"], e["type"]) for e in node_events] == [("FabricReady", "Normal")], \
    [(e["reason"], e["type"]) for e in node_events]
assert "ready false→true" in node_events[0]["note"], node_events[0]["note"]
print("3 node PATCHes applied with their answers cut, %d more; then the condition True and one Event FabricReady"
      % (len(node_patch) - 3))
EOF
rm -f "$state/faults"
# --- issue 22: an agent stopped between its node PATCH and its status PATCH: the server kept our values
# (ready=true) but neither the condition nor the Event. The next agent finds the condition missing and
# tells that transition once: the condition True and one FabricReady Event. Before, it found its values
# there and posted nothing. ---
stop_agent
$PY - "$state/node.json" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))
assert n["metadata"]["annotations"]["fabric.aicr.run/ready"] == "true", n["metadata"]["annotations"]
n["status"]["conditions"] = [c for c in n["status"]["conditions"] if c["type"] != "FabricReady"]
json.dump(n, open(sys.argv[1] + ".tmp", "w"))
PY
mv "$state/node.json.tmp" "$state/node.json"
m=$(mark)
start_agent "$tmp/agent3.log" --interval 10
wait_for 'reqs '"$m"' | grep -q "^EVENT .*FabricReady.* status=201"' 15
sleep 2
check "status untold transition at start" "$m" <<'EOF'
node_patch = [r for r in reqs if r["method"] == "PATCH" and r["path"] == "/api/v1/nodes/" + NODE]
assert node_patch == [], [r["body"][:80] for r in node_patch]
status = [r for r in reqs if r["method"] == "PATCH" and r["path"].endswith("/status")]
assert len(status) == 1 and '"True"' in status[0]["body"], [r["body"][:80] for r in status]
assert [(e["reason"], e["type"]) for e in node_events] == [("FabricReady", "Normal")], \
    [(e["reason"], e["type"]) for e in node_events]
assert "ready (none)→true" in node_events[0]["note"], node_events[0]["note"]
print("no node PATCH; the condition True and one Event FabricReady (%s)" % node_events[0]["note"][-40:])
EOF

# --- and an agent that finds the condition agreeing with ready tells nothing ---
stop_agent
m=$(mark)
start_agent "$tmp/agent4.log" --interval 10
wait_for 'reqs '"$m"' | grep -q "^GET /api/v1/pods"' 5
sleep 2.5
check "status condition agrees at start" "$m" <<'EOF'
writes = [(r["method"], r["path"]) for r in reqs if r["method"] == "PATCH"]
assert writes == [], writes
assert not node_events, [e["reason"] for e in node_events]
print("no PATCH, no node Event")
EOF

# --- issue 30 (was issue 22's "blind" rule), the daemon: the daemon's pod cannot be read (its sidecar's
# env not a list) while the daemon it runs does not pair: that pod is its own finding (version-pair
# unknown, naming it), the node's verdict is still published (before, nothing was, and the node kept
# its last values); when the pod can be read again, the skew is published at its next change ---
m=$(mark)
$PY - "$TOPDIR/fixtures/kube/pods-skew.json" "$state/pods.json.tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["items"]:
    for c in p["spec"].get("initContainers", []):
        if c["name"] == "tcpxo-daemon":
            c["env"] = {}
json.dump(d, open(sys.argv[2], "w"))
PY
mv "$state/pods.json.tmp" "$state/pods.json"
wait_for 'reqs '"$m"' | grep -q "^PATCH"' 15
sleep 1
if ! grep -q 'API facts not read' "$tmp/agent4.log" && reqs "$m" | grep -q '^PATCH ' &&
   $PY - "$state/node.json" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))
att = json.loads(n["metadata"]["annotations"]["fabric.aicr.run/attachment"])
assert n["metadata"]["annotations"]["fabric.aicr.run/ready"] == "true", n["metadata"]["annotations"]
PY
then
	ok "status daemon pod unreadable: its own finding (version-pair unknown), the node's verdict still published"
else
	nok "status daemon pod unreadable" "$(reqs "$m" | grep -E '^(PATCH|STATUS)' | tr '\n' '|') log: $(grep 'API facts' "$tmp/agent4.log" | tr '\n' '|')"
fi
# Beside it, a CPU pod with an env value of 70,000 characters and one with 300 containers: before, the
# whole list was refused, version-pair skipped and the skewed node stayed published ready.
m=$(mark)
$PY - "$TOPDIR/fixtures/kube/pods-skew.json" "$state/pods.json.tmp" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
node = d["items"][0]["spec"]["nodeName"]
def pod(name, containers):
    return {"metadata": {"namespace": "batch", "name": name, "uid": "uid-" + name},
            "spec": {"nodeName": node, "containers": containers}, "status": {"phase": "Running"}}
d["items"] += [pod("etl", [{"name": "c", "image": "busybox", "env": [{"name": "BLOB", "value": "x" * 70000}]}]),
               pod("wide", [{"name": "c%d" % i, "image": "busybox"} for i in range(300)])]
json.dump(d, open(sys.argv[2], "w"))
PY
mv "$state/pods.json.tmp" "$state/pods.json"
wait_for 'reqs '"$m"' | grep -q "^PATCH .*ready=false"' 15
if reqs "$m" | grep -q '^PATCH .*ready=false.*fail=version-pair'; then
	ok "status daemon pod readable again, beside large pods: the skew published (ready=false, version-pair)"
else
	nok "status daemon pod readable again" "$(reqs "$m" | grep -E '^(PATCH|STATUS)' | tr '\n' '|')"
fi
stop_agent
exit $failed
