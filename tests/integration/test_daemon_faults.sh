#!/bin/sh
# test_daemon_faults.sh - the daemon on a host that cannot be observed, and on hostile files, against
# the fake API in a private netns. Cases: a PCI function unreadable from the start (no PATCH at all,
# one log line, the health file fresh; after 30 s the one write: the condition Unknown, not written
# again when the cause changes; published once repaired); one turning unreadable while the node is published (no write: the node keeps its
# values; before, ready=false profile none), a link going down meanwhile changes nothing; 20
# SIGHUPs in a row (one info line); the token file replaced by a fifo (the last good token is used,
# nothing hangs), and --once with a fifo token (exit 2 at once, the file named). Takes about 70 s.
# Env: TOPDIR, BUILD, TCPXO_AGENT. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec daemon-faults "$0"
trap daemon_env_cleanup EXIT
trap 'exit 130' INT TERM
failed=0
daemon_env_setup || exit 1

GPU=$(ls "$root/sys/bus/pci/drivers/nvidia" | head -n1)
GPUDIR=$root/sys/bus/pci/devices/$GPU
cp "$GPUDIR/config" "$tmp/config.good"
cp "$GPUDIR/vendor" "$tmp/vendor.good"
fresh_health() { "$AGENT" health --health-file "$tmp/health" --max-age 11 >/dev/null 2>&1; }

# --- a PCI function unreadable from the start: nothing published, one line, retried ---
head -c 3 "$tmp/config.good" >"$GPUDIR/config"
start_agent "$tmp/agent.log" --interval 10
sleep 12                # two retries (5 s) and one resync (10 s) go by
n=$(patches 0)
lines=$(grep -c 'observation failed: nothing published' "$tmp/agent.log")
st=$(reqs 0 | grep -c '^STATUS')
if [ "$n" = 0 ] && [ "$st" = 0 ] && [ "$lines" = 1 ] && grep -q "error=.*$GPU/config: PCI config space unreadable: 3 bytes" "$tmp/agent.log" &&
   fresh_health; then
	ok "daemon-faults unreadable function at start: no PATCH in 12 s, one log line naming $GPU/config, health fresh"
else
	nok "daemon-faults unreadable function at start" "$n PATCH, $st status, $lines lines: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
# 30 s without an observation: the condition says Unknown, once; annotations and labels untouched.
wait_for '[ "$(reqs 0 | grep -c "^STATUS")" -ge 1 ]' 25
sleep 6                 # a second status write would come with the next retries (5 s)
if [ "$(patches 0)" = 0 ] && [ "$(reqs 0 | grep -c '^STATUS .* cond=Unknown/ObservationFailed')" = 1 ] &&
   [ "$(reqs 0 | grep -cE '^(STATUS|EVENT)')" = 1 ] &&
   grep -q 'published node=.* condition=Unknown reason=ObservationFailed' "$tmp/agent.log" &&
   /usr/bin/python3 - "$state/node.json" "$GPU" <<'PY'
import json, sys
n = json.load(open(sys.argv[1]))
c = [c for c in n["status"]["conditions"] if c["type"] == "FabricReady"][0]
assert c["status"] == "Unknown" and c["reason"] == "ObservationFailed", c
assert c["message"].startswith("the node could not be observed: ") and sys.argv[2] in c["message"], c
assert c["lastTransitionTime"] == c["lastHeartbeatTime"], c
assert not [k for k in n["metadata"].get("annotations", {}) if k.startswith("fabric.aicr.run/")], "annotations"
assert not [k for k in n["metadata"].get("labels", {}) if k.startswith("fabric.aicr.run/")], "labels"
PY
then
	ok "daemon-faults unobservable for 30 s: one status PATCH, FabricReady Unknown (ObservationFailed), no other write"
else
	nok "daemon-faults unobservable for 30 s" "$(reqs 0 | grep -vE '^GET' | tr '\n' '|'); log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
# The cause changes while the node stays unobservable: still that one write, the first message kept.
head -c 5 "$tmp/config.good" >"$GPUDIR/config"
if wait_for 'grep -q "error=.*$GPU/config: PCI config space unreadable: 5 bytes" "$tmp/agent.log"' 8; then
	sleep 6         # the write would go with the observation that saw the new cause; and one retry more
	if [ "$(reqs 0 | grep -cE '^(PATCH|STATUS|EVENT)')" = 1 ] &&
	   /usr/bin/python3 -c 'import json, sys; n = json.load(open(sys.argv[1])); c = [c for c in n["status"]["conditions"] if c["type"] == "FabricReady"][0]; assert c["status"] == "Unknown" and "3 bytes" in c["message"], c' "$state/node.json"; then
		ok "daemon-faults cause changed while unobservable: still one status PATCH, the first message kept"
	else
		nok "daemon-faults cause changed while unobservable" "$(reqs 0 | grep -vE '^GET' | tr '\n' '|')"
	fi
else
	nok "daemon-faults cause changed while unobservable" "the new cause was not logged: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
m=$(mark)
cp "$tmp/config.good" "$GPUDIR/config"
if wait_for '[ "$(patches '"$m"')" -ge 1 ]' 8 && reqs "$m" | grep -q '^PATCH .*ready=true' &&
   wait_for 'reqs '"$m"' | grep -q "^EVENT"' 3 && reqs "$m" | grep -q '^STATUS .* cond=True/TCPXOReady' &&
   grep -q 'observation made again' "$tmp/agent.log"; then
	ok "daemon-faults repaired: published ready=true at the next retry, the condition True again"
else
	nok "daemon-faults repaired" "$(reqs "$m" | tr '\n' '|'); log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
sleep 1.5

# --- unreadable while published: the node keeps its values (before: ready=false, profile none) ---
m=$(mark)
printf '0x1234567890abcdef\n' >"$GPUDIR/vendor"
kill -HUP "$agent_pid"
sleep 2
ip link set eth3 down           # a real change, observed with the function still unreadable
sleep 6.5
n=$(reqs "$m" | grep -cE '^(PATCH|STATUS|EVENT)')
if [ "$n" = 0 ] && grep -q "error=.*$GPU/vendor: invalid vendor ID 0x1234567890abcdef" "$tmp/agent.log" && fresh_health; then
	ok "daemon-faults unreadable while published: no write in 8.5 s (eth3 down meanwhile), the vendor file named"
else
	nok "daemon-faults unreadable while published" "$n PATCH: $(reqs "$m" | grep '^PATCH' | tr '\n' '|'); log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
# Repaired with eth3 down: the real verdict (not ready: links) is published.
cp "$tmp/vendor.good" "$GPUDIR/vendor"
if wait_for 'reqs '"$m"' | grep -q "^PATCH .*ready=false.*fail=links"' 8; then
	ok "daemon-faults repaired with eth3 down: ready=false for links, not for the unreadable function"
else
	nok "daemon-faults repaired with eth3 down" "$(reqs "$m" | tr '\n' '|')"
fi
ip link set eth3 up
m=$(mark)
wait_for '[ "$(patches '"$m"')" -ge 1 ]' 5

# --- SIGHUP in a loop: one info line, not one per signal ---
before=$(grep -c 'SIGHUP' "$tmp/agent.log")
i=0
while [ $i -lt 20 ]; do kill -HUP "$agent_pid"; sleep 0.05; i=$((i + 1)); done
sleep 1
hups=$(($(grep -c 'SIGHUP' "$tmp/agent.log") - before))
if [ "$hups" -le 1 ] && kill -0 "$agent_pid" 2>/dev/null; then
	ok "daemon-faults 20 SIGHUPs: $hups info line (one a minute at most)"
else
	nok "daemon-faults 20 SIGHUPs" "$hups lines: $(grep SIGHUP "$tmp/agent.log" | tail -n 3 | tr '\n' '|')"
fi

# --- the token file becomes a fifo: the last good token serves, nothing blocks ---
rm -f "$tmp/token"
mkfifo "$tmp/token"
m=$(mark)
# The next resync (--interval 10) reads the token file again.
if wait_for '[ "$(reqs '"$m"' | grep -c "auth=ok")" -ge 2 ]' 15 && ! reqs "$m" | grep -q 'auth=bad\|auth=none' && fresh_health; then
	ok "daemon-faults token file a fifo: requests still carry the last good token, the loop runs"
else
	nok "daemon-faults token file a fifo" "$(reqs "$m" | tr '\n' '|'); log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
stop_agent
[ "$stop_rc" = 0 ] || nok "daemon-faults stop" "exit $stop_rc after $stop_ms ms"

t0=$(now_ms)
timeout -s KILL 20 "$AGENT" --once --root "$root" --node "$NODE" --api-server "$SERVER" --token-file "$tmp/token" \
	--ca-file "$tmp/certs/ca.crt" >"$tmp/once.out" 2>"$tmp/once.err"
rc=$?
dt=$(($(now_ms) - t0))
if [ "$rc" = 2 ] && grep -q "token file $tmp/token: not a regular file" "$tmp/once.err" && [ "$dt" -lt 10000 ]; then
	ok "daemon-faults --once with a fifo token: exit 2 after $dt ms, 'not a regular file'"
else
	nok "daemon-faults --once with a fifo token" "exit $rc after $dt ms: $(head -n 3 "$tmp/once.err" | tr '\n' '|')"
fi
exit $failed
