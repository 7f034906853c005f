#!/bin/sh
# status.sh - the writes of the node's state (annotations and labels, the FabricReady condition, Events), run
# inside the a3-mega namespace by bench/run.sh (case "status"), against the fake API server (tests/lib/daemon_env.sh):
#   steady   one daemon (--interval 300: two resyncs in the window; --heartbeat STATUS_HEARTBEAT, 60s) on a node with
#            15 GPU pods (11 of them unattached or partial, so pod Events are posted at the start): writes of each
#            kind over STATUS_STEADY_SECONDS (600) after the start-up, across its resyncs; the budget is one
#            status patch per heartbeat (a heartbeat: no lastTransitionTime) and nothing else
#   change   a GPU NIC's link goes down (eth3, then eth4, ... round robin: no link changes three times in
#            60 s, which flap damping would hold), STATUS_TRANSITIONS times (10): the node PATCHes, status
#            PATCHes and Events that follow each, and the time from the link change to the last of them
#            as the server saw it arrive; each link then comes back up (not timed)
# Usage: status.sh OUTDIR   (env AGENT, TOPDIR; writes OUTDIR/status.md and raw files). Alone:
#   BENCH_CASES=status make bench        (or STATUS_STEADY_SECONDS=60 STATUS_HEARTBEAT=10s for a quick look)
set -u
out=$1
STEADY=${STATUS_STEADY_SECONDS:-600}
TRANSITIONS=${STATUS_TRANSITIONS:-10}
HEARTBEAT=${STATUS_HEARTBEAT:-60s}
mkdir -p "$out"
DAEMON_ENV_API_SECONDS=$((STEADY + 600))
. "$TOPDIR/tests/lib/daemon_env.sh"
trap daemon_env_cleanup EXIT
daemon_env_setup >&2 || exit 1
cp "$TOPDIR/fixtures/kube/pods-workloads.json" "$state/pods.json"
writes_after() { tail -n +"$(($1 + 1))" "$state/requests.log" 2>/dev/null | grep -cE '"method": "(PATCH|POST)"'; }

start_agent "$tmp/agent.log" --interval 300 --heartbeat "$HEARTBEAT"
# Start-up: the node's three writes and the pods' Events (1 + 11 POSTs), then quiet for 3 s.
i=0
while [ "$(writes_after 0)" -lt 14 ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done
sleep 3
startup=$(writes_after 0)
m=$(mark)
t0=$(now_ms)
sleep "$STEADY"
steady_writes=$(writes_after "$m")
steady_reqs=$(($(mark) - m))
echo "$startup $steady_writes $steady_reqs $(( ($(now_ms) - t0) / 1000 )) $HEARTBEAT" >"$out/steady.txt"
tail -n +"$((m + 1))" "$state/requests.log" >"$out/steady.log"

# Transitions: link down, wait for the writes, 3 s more for any late one; then up, and settle.
: >"$out/change.txt"
n=0 nic=3
while [ $n -lt "$TRANSITIONS" ]; do
	t_iter=$(now_ms)
	m=$(mark)
	t_link=$(date +%s.%N)
	ip link set "eth$nic" down
	i=0
	while [ "$(writes_after "$m")" -lt 3 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	sleep 3
	tail -n +"$((m + 1))" "$state/requests.log" >"$tmp/iter.log"
	/usr/bin/python3 - "$tmp/iter.log" "$t_link" "eth$nic" >>"$out/change.txt" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
t_link = float(sys.argv[2])
w = [r for r in reqs if r["method"] in ("PATCH", "POST")]
node = [r for r in w if r["method"] == "PATCH" and not r["path"].endswith("/status")]
status = [r for r in w if r["method"] == "PATCH" and r["path"].endswith("/status")]
events = [r for r in w if r["method"] == "POST"]
last = max((r["t"] for r in w), default=None)
ms = round((last - t_link) * 1000) if last is not None else -1
print(sys.argv[3], len(node), len(status), len(events), ms)
PY
	ip link set "eth$nic" up
	m=$(mark)
	i=0
	while [ "$(writes_after "$m")" -lt 3 ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
	# Each link is used again only after 8 more: keep every round at least 8 s (64 s apart, damping's window is 60 s).
	while [ $(($(now_ms) - t_iter)) -lt 8000 ]; do sleep 0.2; done
	n=$((n + 1))
	nic=$((nic % 8 + 1))
done
cp "$tmp/agent.log" "$out/agent.log"
stop_agent

/usr/bin/python3 - "$out" <<'PY'
import json, statistics, sys
out = sys.argv[1]
startup, writes, reqs, secs, hb = open(out + "/steady.txt").read().split()
steady = [json.loads(l) for l in open(out + "/steady.log")]
merge = sum(1 for r in steady if r["method"] == "PATCH" and not r["path"].endswith("/status"))
beats = [r for r in steady if r["method"] == "PATCH" and r["path"].endswith("/status")]
posts = sum(1 for r in steady if r["method"] == "POST")
plain = sum(1 for r in beats if "lastTransitionTime" not in json.loads(r["body"])["status"]["conditions"][0])
hb_s = int(hb[:-1]) * {"s": 1, "m": 60, "h": 3600}[hb[-1]] if hb[-1] in "smh" else int(hb)
want = int(secs) // hb_s if hb_s else 0
rows = [l.split() for l in open(out + "/change.txt") if l.strip()]
exact = [r for r in rows if r[1:4] == ["1", "1", "1"]]
ms = sorted(int(r[4]) for r in rows if int(r[4]) >= 0)
verdict = lambda ok: "met" if ok else "MISSED"
lines = [f"- steady state, --heartbeat {hb}: **{writes} writes in {secs} s: {len(beats)} status patches "
         f"({plain} of them heartbeats: the same condition, no lastTransitionTime), {merge} merge patches, {posts} Events** "
         f"after the start-up ({startup} writes: the node's merge patch, status patch and Event, and one Event "
         f"per unattached or partial pod of 15 GPU pods), {reqs} requests in all (the resyncs at --interval 300 "
         f"and the heartbeats) — target one status patch per heartbeat ({want}, one more or less at the window's "
         f"edges) and nothing else: {verdict(merge == 0 and posts == 0 and plain == len(beats) and abs(len(beats) - want) <= 1)}"]
if ms:
    med = statistics.median(ms)
    lines.append(f"- one transition (a GPU NIC's link down): **exactly 1 merge patch, 1 status patch, 1 Event in "
                 f"{len(exact)} of {len(rows)}** ({', '.join('%s %s/%s/%s' % tuple(r[:4]) for r in rows if r not in exact) or 'no exception'}); "
                 f"link change to the last of them at the server: **median {med:.0f} ms** (min {ms[0]}, max {ms[-1]}, "
                 f"{len(ms)} transitions) — target median <= 1500 ms: {verdict(med <= 1500 and len(exact) == len(rows))}")
else:
    lines.append("- one transition: no write followed any link change (MISSED)")
open(out + "/status.md", "w").write("\n".join(lines) + "\n")
PY
