#!/bin/sh
# test_daemon_flap.sh - flap damping in the daemon: a GPU NIC going down and up for FLAP_SECONDS
# at three periods (0.2 s, 1 s, 5 s; eth2, eth3, eth4 one after the other), against the fake API in
# a private netns. Each stretch: every PATCH says ready=false with a links failure naming the flap
# count, at most one PATCH per 10 s; after the last change the node is published ready=true once,
# 30 s later (the hold-down), and stays so. Takes about 2 min 10 s (3 min 40 s at FLAP_SECONDS=60).
# Env: TOPDIR, BUILD, TCPXO_AGENT, SAN. FLAP_SECONDS (default 30, 20 with SAN=1) sets the flapping
# time; 30 s still spans the 10 s write spacing three times and the 5 s period six flaps, and keeps
# CI (which runs the suite twice) well inside its 30 minutes. FLAP_SECONDS=60 is the full minute of
# the damping window.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec daemon-flap "$0"
trap daemon_env_cleanup EXIT
trap 'exit 130' INT TERM
failed=0
daemon_env_setup || exit 1
# Under the sanitizers (CI's second pass) 20 s each: that run looks for memory errors, and the
# plain pass already measures the spacing over 30 s.
if [ "${SAN:-0}" = 1 ]; then SECONDS_EACH=${FLAP_SECONDS:-20}; else SECONDS_EACH=${FLAP_SECONDS:-30}; fi
SPACING_MS=10000
HOLD_MS=30000

# The links message of each PATCH after MARK that carries one ("-" for a PATCH without it).
links_messages() {
	/usr/bin/python3 - "$state/requests.log" "$1" <<'PY'
import json, sys
for line in open(sys.argv[1]).read().splitlines()[int(sys.argv[2]):]:
    r = json.loads(line)
    if r.get("method") != "PATCH" or not r.get("body"):
        continue
    ann = json.loads(r["body"]).get("metadata", {}).get("annotations", {})
    att = ann.get("fabric.aicr.run/attachment")
    msg = "-"
    if isinstance(att, str):
        for c in json.loads(att).get("checks", []):
            if c.get("id") == "links":
                msg = c.get("message", "")
    print(msg)
PY
}

# PATCH times (ms, the log's order) are not in requests.log: sample the count as we go instead.
start_agent "$tmp/agent.log" --interval 60
if ! wait_for '[ "$(patches 0)" -ge 1 ]' 10 || ! reqs 0 | grep -q '^PATCH .*ready=true'; then
	nok "daemon-flap start" "no PATCH ready=true: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
	exit 1
fi
sleep 1.5

# flap NIC PERIOD: down and up every PERIOD seconds for SECONDS_EACH s; it ends up. Sets
# $seg_patches, $seg_min_gap_ms (the smallest gap between two PATCHes seen, sampled every 50 ms).
flap() {
	_nic=$1 _half=$(awk "BEGIN { print $2 / 2 }")
	_m=$(mark)
	_t0=$(now_ms)
	_end=$((_t0 + SECONDS_EACH * 1000))
	_n=0 _last_at=0 seg_min_gap_ms=999999
	while [ "$(now_ms)" -lt "$_end" ]; do
		ip link set "$_nic" down
		sleep "$_half"
		ip link set "$_nic" up
		last_change_ms=$(now_ms)
		sleep "$_half"
		_k=$(patches "$_m")
		if [ "$_k" -gt "$_n" ]; then
			_at=$(now_ms)
			[ "$_last_at" -gt 0 ] && [ $((_at - _last_at)) -lt "$seg_min_gap_ms" ] && seg_min_gap_ms=$((_at - _last_at))
			_n=$_k _last_at=$_at
		fi
	done
	seg_patches=$(patches "$_m")
	seg_mark=$_m
}

total=0
for spec in "eth2 0.2" "eth3 1" "eth4 5"; do
	set -- $spec
	flap "$1" "$2"
	total=$((total + seg_patches))
	notready=$(reqs "$seg_mark" | grep '^PATCH' | grep -c 'fail=.*links')
	bad_ready=$(reqs "$seg_mark" | grep '^PATCH' | grep -c 'ready=true')
	named=$(links_messages "$seg_mark" | grep -c "$1 is flapping: [0-9]* up/down changes; held not ready until stable for 30 s")
	max=$((SECONDS_EACH * 1000 / SPACING_MS + 1))
	if [ "$bad_ready" = 0 ] && [ "$seg_patches" -le "$max" ] && [ "$named" -ge 1 ] &&
	   grep -q "link flapping: held not ready until stable link=$1 " "$tmp/agent.log"; then
		ok "daemon-flap $1 every ${2}s for ${SECONDS_EACH}s: $seg_patches PATCH (at most $max), none ready=true ($notready with the links failure, $named naming the flap count)"
	else
		nok "daemon-flap $1 every ${2}s" "$seg_patches PATCH (max $max), $bad_ready ready=true, $named naming the count: $(reqs "$seg_mark" | grep '^PATCH' | tr '\n' '|'); log: $(grep -c . "$tmp/agent.log") lines"
	fi
done
ok "daemon-flap writes: $total PATCH in $((3 * SECONDS_EACH)) s of flapping"

# The hold-down: ready=true once, 30 s after the last change, then quiet. Writes the spacing held
# back (the last flap count) or an earlier NIC's release may come first, still not ready.
m=$(mark)
if wait_for 'reqs '"$m"' | grep -q "^PATCH .*ready=true"' 40; then
	dt=$(($(now_ms) - last_change_ms))
	sleep 3
	n=$(patches "$m")
	before=$(reqs "$m" | grep '^PATCH' | sed -n '/ready=true/q;p' | grep -c 'fail=.*links')
	if [ "$n" -le 3 ] && [ "$before" = $((n - 1)) ] && [ "$dt" -ge $((HOLD_MS - 1000)) ] &&
	   [ "$dt" -le $((HOLD_MS + 4000)) ] && [ "$(reqs "$m" | grep '^PATCH' | tail -n 1 | grep -c 'ready=true')" = 1 ]; then
		ok "daemon-flap hold-down: ready=true published once, $dt ms after the last change ($n PATCH after it)"
	else
		nok "daemon-flap hold-down" "$n PATCH, ready=true $dt ms after the last change: $(reqs "$m" | tr '\n' '|')"
	fi
else
	nok "daemon-flap hold-down" "no PATCH ready=true within 40 s of the last change: $(reqs "$m" | tr '\n' '|') $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
released=$(grep -c 'link stable again: released' "$tmp/agent.log")
held=$(grep -c 'link flapping: held' "$tmp/agent.log")
info=$(grep -c ' info ' "$tmp/agent.log")
if [ "$held" -ge 3 ] && [ "$released" -ge 3 ] && [ "$info" -le 60 ]; then
	ok "daemon-flap log: $held held, $released released, $info info lines in all"
else
	nok "daemon-flap log" "$held held, $released released, $info info lines: $(grep ' info ' "$tmp/agent.log" | tail -n 5 | tr '\n' '|')"
fi
stop_agent
[ "$stop_rc" = 0 ] || nok "daemon-flap stop" "exit $stop_rc"
exit $failed
