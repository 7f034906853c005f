#!/bin/sh
# test_daemon_heartbeat.sh - the daemon's heartbeat, its JSON log, and the release table followed without a
# restart, against the fake API in a private netns (tests/lib/daemon_env.sh). One daemon runs throughout with
# --heartbeat 10s --log-format json -v --releases DIR/releases.json, DIR laid out as a ConfigMap volume
# (releases.json -> ..data/releases.json, ..data -> ..<timestamp>). Cases:
#   heartbeat    over 35 s of steady state: at least three status patches, each with a later lastHeartbeatTime
#                and no lastTransitionTime; the node's merge patch once (at start), one Event; the node's
#                lastTransitionTime as the first publish set it
#   failed       the status patch answered 500 three times: the heartbeat is retried after the write
#                backoff (2.5 to 5 s), not at once (a SIGHUP's observation meanwhile does not push it a
#                period later), and nothing but status patches is sent
#   configmap    ..data swapped atomically to a table under which the fixture's pair (v1.0.15/v1.0.21) is
#                not listed -> one merge patch ready=false with version-pair failed, the condition
#                False/VersionPair, "release table reloaded" logged; the same process
#   rename       a good table renamed over releases.json (a plain file now) -> ready again
#   malformed    releases.json rewritten in place with broken JSON -> an ERROR line says why, the previous
#                table stays: no merge patch, the condition stays True/TCPXOReady
#   touched      the good table again, then the same text renamed over it and touched: no reload, no write
#   json log     every stderr line is one JSON object with time, severity (DEBUG, INFO, WARNING, ERROR),
#                message and its fields at the top level; -v gave DEBUG lines (the heartbeats among them); SIGTERM exits 0
#   restart      a second daemon, polling (--no-watch), started 5 s or more after the node's last heartbeat:
#                nothing at start, the first status patch one period after that heartbeat (not after the
#                start: its age read in the right unit), two or three in 23 s, nothing else
#   metrics      the same daemon's /metrics after 35 s, 2 s after a heartbeat: promtool clean, ready 1, observed 1, its status patches as
#                the server counted them (issue 24's run: metrics, heartbeat, JSON log and -v together)
# Takes about 95 s. Env: TOPDIR, BUILD, TCPXO_AGENT. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec daemon-heartbeat "$0"
trap daemon_env_cleanup EXIT
trap 'exit 130' INT TERM
failed=0
daemon_env_setup || exit 1

# A release table: its one TCPXO row pairs installer v1.0.15 with daemon $1 (the fixture runs v1.0.21).
table() {
	cat <<EOF
{"schema": "fabric.aicr.run/releases/v1", "releases": [
 {"installer": "v1.0.15", "daemon": "$1", "nccl": "2.28.7",
  "files": ["libnccl.so.2", "libnccl-net_internal.so", "nccl-env-profile.sh", "libnccl-tuner.so",
            "a3plus_tuner_config.textproto", "libnccl-net.so", "a3plus_guest_config.textproto"]}]}
EOF
}
# The kubelet's AtomicWriter: a new timestamped directory, ..data_tmp -> it, renamed over ..data, the old one removed.
rel=$tmp/releases
mkdir -p "$rel/..2026_12_05_00_00_00.1"
table v1.0.21 >"$rel/..2026_12_05_00_00_00.1/releases.json"
ln -s ..2026_12_05_00_00_00.1 "$rel/..data"
ln -s ..data/releases.json "$rel/releases.json"
configmap_update() {  # DIRNAME DAEMON
	mkdir "$rel/$1"
	table "$2" >"$rel/$1/releases.json"
	old=$(readlink "$rel/..data")
	ln -s "$1" "$rel/..data_tmp"
	mv -T "$rel/..data_tmp" "$rel/..data"
	rm -rf "${rel:?}/$old"
}
# condition FIELD: the node's FabricReady FIELD as the fake API holds it now.
condition() {
	/usr/bin/python3 - "$state/node.json" "$1" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))
c = [c for c in n.get("status", {}).get("conditions", []) if c.get("type") == "FabricReady"]
print(c[0].get(sys.argv[2], "") if c else "")
PY
}
writes() { reqs "$1" | grep -E '^(PATCH|STATUS|EVENT)'; }

start_agent "$tmp/agent.log" --heartbeat 10s --log-format json -v --releases "$rel/releases.json" \
	--metrics-address 127.0.0.1:0
pid=$agent_pid
if wait_for '[ "$(writes 0 | grep -c "^EVENT")" -ge 1 ]' 15; then
	ok "daemon-heartbeat start: published ($(writes 0 | tr '\n' '|'))"
else
	nok "daemon-heartbeat start" "requests: $(reqs 0 | tr '\n' '|') log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
	exit 1
fi
transition0=$(condition lastTransitionTime)
beat0=$(condition lastHeartbeatTime)

# --- heartbeat: 35 s of steady state ---
sleep 35
# The same daemon's /metrics (issue 24's run: metrics, heartbeat, JSON log, -v together): the node's true
# values and the status patches the fake API saw counted; promtool clean where promtool is installed.
PATH=$PATH:$TOPDIR/.tools/bin
# Scrape between two heartbeats, never while one is in flight (the agent counts a write on its answer,
# the fake API logs it after answering): 2 s after the next status patch the server saw.
beats0=$(reqs 0 | grep -c '^STATUS')
wait_for '[ "$(reqs 0 | grep -c "^STATUS")" -gt "$beats0" ]' 15
sleep 2
maddr=$(/usr/bin/python3 -c '
import json, sys
for l in open(sys.argv[1]):
    try:
        j = json.loads(l)
    except ValueError:
        continue
    if j.get("message") == "serving metrics":
        print(j["address"]); break' "$tmp/agent.log")
# The count is compared when no status patch came during the scrape (one may be in flight, or answered
# by the server but not yet read by the agent): scraped again, up to 5 times, until the server's count
# before and after the scrape are the same.
for _try in 1 2 3 4 5; do
	sb=$(reqs 0 | grep -c '^STATUS')
	/usr/bin/python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen("http://%s/metrics" % sys.argv[1], timeout=5).read().decode())' \
		"$maddr" >"$tmp/scrape" 2>"$tmp/scrape.err"
	spatches=$(sed -n 's/^tcpxo_node_writes_total{kind="status_patch"} \([0-9]*\)$/\1/p' "$tmp/scrape")
	[ "$sb" = "$(reqs 0 | grep -c '^STATUS')" ] && [ "$spatches" = "$sb" ] && break
	sleep 1
done
# The values need no promtool: checked always; only the exposition format's check skips without it.
if grep -qx 'tcpxo_node_ready 1' "$tmp/scrape" && grep -qx 'tcpxo_node_observed 1' "$tmp/scrape" &&
   grep -qx 'tcpxo_check_status{check="version-pair",status="pass"} 1' "$tmp/scrape" &&
   grep -qx 'tcpxo_build_info{version="[^"]*"} 1' "$tmp/scrape" &&
   [ "${spatches:-0}" -ge 4 ] && [ "$spatches" = "$(reqs 0 | grep -c '^STATUS')" ]; then
	ok "daemon-heartbeat metrics: ready 1, observed 1, version-pair pass 1, $spatches status patches counted as the server saw them"
else
	nok "daemon-heartbeat metrics" "address '$maddr', status patches $spatches vs $(reqs 0 | grep -c '^STATUS'): $(grep -E '^tcpxo_(node_ready|node_observed|node_writes)' "$tmp/scrape" | tr '\n' '|') $(head -c 200 "$tmp/scrape.err")"
fi
if ! command -v promtool >/dev/null 2>&1 && [ "${REQUIRE_PROMTOOL:-0}" != 1 ]; then
	skip "daemon-heartbeat metrics promtool" "promtool is not installed (sh scripts/deps.sh test)"
elif promtool check metrics <"$tmp/scrape" >"$tmp/promtool.out" 2>&1; then
	ok "daemon-heartbeat metrics: promtool clean"
else
	nok "daemon-heartbeat metrics promtool" "address '$maddr': $(head -n 3 "$tmp/promtool.out" 2>/dev/null | tr '\n' '|')"
fi
if /usr/bin/python3 - "$state/requests.log" "$transition0" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])]
node = [r for r in reqs if r["method"] == "PATCH" and not r["path"].endswith("/status")]
status = [r for r in reqs if r["method"] == "PATCH" and r["path"].endswith("/status")]
events = [r for r in reqs if r["method"] == "POST" and r["path"].endswith("/events")]
assert len(node) == 1, "%d merge patches of the node" % len(node)
assert len(events) == 1, "%d Events" % len(events)
conds = [json.loads(r["body"])["status"]["conditions"] for r in status]
assert all(len(c) == 1 and c[0]["type"] == "FabricReady" and c[0]["status"] == "True" for c in conds), conds
beats = [c[0]["lastHeartbeatTime"] for c in conds]
assert conds[0][0].get("lastTransitionTime") == sys.argv[2], (conds[0], sys.argv[2])
assert all("lastTransitionTime" not in c[0] for c in conds[1:]), "a heartbeat carried lastTransitionTime"
assert len(conds) >= 4, "%d status patches in all (the first publish and at least three heartbeats): %s" % (len(conds), beats)
assert all(a < b for a, b in zip(beats, beats[1:])), "lastHeartbeatTime not advancing: %s" % beats
assert all(r["status"] in (200, 201) for r in node + status + events), [r["status"] for r in node + status + events]
print(len(conds) - 1, beats[0], beats[-1])
PY
then
	beat1=$(condition lastHeartbeatTime)
	if [ "$(condition lastTransitionTime)" = "$transition0" ] && [ "$beat1" \> "$beat0" ]; then
		ok "daemon-heartbeat 35s at 10s: $(($(writes 0 | grep -c '^STATUS') - 1)) heartbeats (status patches only), one merge patch, one Event; node lastHeartbeatTime $beat0 -> $beat1, lastTransitionTime kept ($transition0)"
	else
		nok "daemon-heartbeat node" "lastTransitionTime $transition0 -> $(condition lastTransitionTime), heartbeat $beat0 -> $beat1"
	fi
else
	nok "daemon-heartbeat 35s" "$(writes 0 | tr '\n' '|')"
fi

# --- a heartbeat that fails: retried after the write backoff (not at once, not every period), then on time ---
m=$(mark)
printf '{"mode": "500", "count": 3, "method": "PATCH", "path": "/api/v1/nodes/%s/status"}\n' "$NODE" >"$state/faults"
# An observation during the backoff (SIGHUP) may not write: the heartbeat it finds owed stays owed, for
# the retry to carry (not pushed a period later).
wait_for '[ "$(reqs "$m" | grep -c "^STATUS .*status=500")" -ge 3 ]' 40
kill -HUP "$agent_pid"
wait_for '[ "$(reqs "$m" | grep -c "^STATUS .*status=200")" -ge 1 ]' 40
if /usr/bin/python3 - "$state/requests.log" "$m" <<'PY'
import json, sys
reqs = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
w = [r for r in reqs if r["method"] in ("PATCH", "POST")]
assert all(r["path"].endswith("/status") for r in w), "a write other than a status patch: %s" % [r["path"] for r in w]
st = [r["status"] for r in w]
first_ok = st.index(200)
assert st[:first_ok] == [500, 500, 500], st
# The write backoff's first step is 2.5 to 5 s (retry.h), counted from the iteration that sent the
# failed heartbeat (its first attempt; the client's own two retries come within it): not at once,
# and not a period later.
gap = w[first_ok]["t"] - w[0]["t"]
assert 2.0 <= gap <= 8.0, "retried %.1f s after the failed heartbeat began" % gap
print("%.1f" % gap)
PY
then
	ok "daemon-heartbeat failed: 3 answers 500, then the heartbeat retried after the write backoff, nothing but status patches"
else
	nok "daemon-heartbeat failed" "$(reqs "$m" | grep -E '^(PATCH|STATUS|EVENT)' | tr '\n' '|') log: $(grep -c '"op":"heartbeat"' "$tmp/agent.log") heartbeat errors"
fi
rm -f "$state/faults"

# --- the release table: a ConfigMap update makes the pair unknown -> not ready, without a restart ---
m=$(mark)
configmap_update ..2026_12_05_00_01_00.2 v1.0.99
if wait_for '[ "$(writes "$m" | grep -c "^STATUS .*cond=False/VersionPair")" -ge 1 ]' 10 &&
   [ "$(writes "$m" | grep -c '^PATCH .*ready=false.*fail=.*version-pair')" = 1 ] && [ "$(writes "$m" | grep -c '^PATCH')" = 1 ] &&
   kill -0 "$pid" 2>/dev/null && grep -q '"message":"release table reloaded"' "$tmp/agent.log"; then
	ok "daemon-heartbeat configmap: ..data swapped -> reloaded, one merge patch ready=false (version-pair), condition False/VersionPair, same process"
else
	nok "daemon-heartbeat configmap" "$(writes "$m" | tr '\n' '|') log: $(tail -n 4 "$tmp/agent.log" | tr '\n' '|')"
fi

# --- a good table renamed over the file (the symlink replaced by a plain file) -> ready again ---
sleep 1.5
m=$(mark)
table v1.0.21 >"$rel/new.json.tmp"
mv "$rel/new.json.tmp" "$rel/releases.json"
if wait_for '[ "$(writes "$m" | grep -c "^STATUS .*cond=True/TCPXOReady")" -ge 1 ]' 10 &&
   [ "$(writes "$m" | grep -c '^PATCH .*ready=true')" = 1 ] && [ "$(writes "$m" | grep -c '^PATCH')" = 1 ]; then
	ok "daemon-heartbeat rename: a table renamed over the file -> ready again (one merge patch, condition True)"
else
	nok "daemon-heartbeat rename" "$(writes "$m" | tr '\n' '|') log: $(tail -n 4 "$tmp/agent.log" | tr '\n' '|')"
fi

# --- malformed: refused with a line that says why; the previous table stays ---
sleep 1.5
m=$(mark)
printf '{"schema": "fabric.aicr.run/releases/v1", "releases": [ {"installer": ' >"$rel/releases.json"
wait_for 'grep -q "release table refused" "$tmp/agent.log"' 10
sleep 2
if grep '"message":"release table refused: the previous one stays in use"' "$tmp/agent.log" | grep -q '"severity":"ERROR".*"error":"[^"]' &&
   [ "$(writes "$m" | grep -c '^PATCH')" = 0 ] && [ "$(writes "$m" | grep -c '^STATUS .*cond=False')" = 0 ] &&
   [ "$(condition status)" = True ] && kill -0 "$pid" 2>/dev/null; then
	ok "daemon-heartbeat malformed: refused ($(grep 'release table refused' "$tmp/agent.log" | head -n 1 | sed 's/.*"error":"\([^"]*\)".*/\1/')), verdict unchanged, no merge patch"
else
	nok "daemon-heartbeat malformed" "$(writes "$m" | tr '\n' '|') log: $(tail -n 4 "$tmp/agent.log" | tr '\n' '|')"
fi

# --- touched, not changed: the text of the table in use written again (the malformed file repaired, renamed
# over, touched: a ConfigMap's other keys changing) is no reload: no "reloaded" line, no write ---
m=$(mark)
reloads=$(grep -c 'release table reloaded' "$tmp/agent.log")
table v1.0.21 >"$rel/releases.json.tmp"
mv "$rel/releases.json.tmp" "$rel/releases.json"
touch "$rel/releases.json"
sleep 3
if [ "$(grep -c 'release table reloaded' "$tmp/agent.log")" = "$reloads" ] && [ "$(writes "$m" | grep -c '^PATCH')" = 0 ] &&
   [ "$(condition status)" = True ]; then
	ok "daemon-heartbeat releases touched without a change: no reload logged, no merge patch"
else
	nok "daemon-heartbeat releases touched" "reloads $reloads -> $(grep -c 'release table reloaded' "$tmp/agent.log"); $(writes "$m" | tr '\n' '|')"
fi

# --- the JSON log: every line an object with Cloud Logging's fields; -v's DEBUG lines among them ---
stop_agent
if [ "$stop_rc" = 0 ] && /usr/bin/python3 - "$tmp/agent.log" <<'PY'
import json, sys
lines = open(sys.argv[1], "rb").read().decode().splitlines()
sev = {}
for i, line in enumerate(lines):
    v = json.loads(line)
    assert isinstance(v, dict) and {"time", "severity", "message"} <= set(v) and "fields" not in v, (i, line)
    assert v["severity"] in ("DEBUG", "INFO", "WARNING", "ERROR"), (i, line)
    assert v["time"].endswith("Z") and isinstance(v["message"], str) and v["message"], (i, line)
    assert all(isinstance(x, str) for k, x in v.items() if not k.startswith("logging.googleapis.com/")), (i, line)
    # The heartbeat's own time is a field, never the entry's: a reserved key gets a trailing '_'.
    if v["message"] == "heartbeat":
        assert v["time_"] != v["time"] and "node" not in v, (i, line)
    sev.setdefault(v["severity"], []).append(v["message"])
assert "heartbeat" in sev.get("DEBUG", []), sev.get("DEBUG")
assert "release table reloaded" in sev.get("INFO", []), sev.get("INFO")
started = [json.loads(l) for l in lines if json.loads(l)["message"] == "started"]
assert started and started[0]["heartbeat"] == "10s", lines[:2]
print(len(lines), {k: len(v) for k, v in sorted(sev.items())})
PY
then
	ok "daemon-heartbeat json log: every stderr line JSON (time, severity, message, fields beside them; the heartbeat's time as time_), DEBUG heartbeats with -v, exit 0"
else
	nok "daemon-heartbeat json log" "exit $stop_rc: $(head -c 400 "$tmp/agent.log" | tr '\n' '|')"
fi

# --- restarted, polling (--no-watch): nothing rewritten at start (the node's heartbeat is recent), then one
# status patch per period, timed from the node's lastHeartbeatTime ---
m=$(mark)
beat=$(condition lastHeartbeatTime)
# Restarted at least 5 s after the node's last heartbeat: its age then tells a unit misread (seconds
# taken for milliseconds would send the first heartbeat a whole period after start, not after it).
wait_for '[ "$(date -u +%s)" -ge $(($(date -u -d "$beat" +%s) + 5)) ]' 10
start_agent "$tmp/agent2.log" --no-watch --heartbeat 10s
sleep 23
if /usr/bin/python3 - "$state/requests.log" "$m" "$beat" <<'PY'
import calendar, json, sys, time
reqs = [json.loads(l) for l in open(sys.argv[1])][int(sys.argv[2]):]
w = [r for r in reqs if r["method"] in ("PATCH", "POST")]
assert all(r["method"] == "PATCH" and r["path"].endswith("/status") for r in w), [r["path"] for r in w]
conds = [json.loads(r["body"])["status"]["conditions"][0] for r in w]
assert all("lastTransitionTime" not in c and c["status"] == "True" for c in conds), conds
assert 2 <= len(w) <= 3, "%d status patches in 23 s at 10 s" % len(w)
assert reqs[0]["method"] == "GET" and all(r["status"] == 200 for r in w), [(r["method"], r["status"]) for r in reqs[:3]]
# The first one period after the node's last heartbeat (whole seconds), not at start.
last = calendar.timegm(time.strptime(sys.argv[3], "%Y-%m-%dT%H:%M:%SZ"))
assert last + 9 <= w[0]["t"] <= last + 10 + 2.5, "first heartbeat %.1f s after the node's last one" % (w[0]["t"] - last)
PY
then
	ok "daemon-heartbeat restart --no-watch: no write at start, then heartbeats only ($(reqs "$m" | grep -c '^STATUS') status patches in 23 s)"
else
	nok "daemon-heartbeat restart --no-watch" "$(reqs "$m" | grep -E '^(PATCH|STATUS|EVENT)' | tr '\n' '|') log: $(tail -n 3 "$tmp/agent2.log" | tr '\n' '|')"
fi
stop_agent
exit $failed
