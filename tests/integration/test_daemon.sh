#!/bin/sh
# test_daemon.sh - the daemon loop against real kernel events in a private netns and the fake API server.
# Cases: first publish, an idle window (no PATCH, watches renewed only on the resync schedule, no log lines),
# eth3 down/up (one PATCH each, from the link event, not the 10 s resync), eth5 moved into a pod namespace (in-pod, still ready),
# an aperture entry removed (inotify), the token file replaced, a wedged loop failing the health
# probe, SIGTERM idle and during a hanging request (exit 0 within 1 s, nothing removed), API 500 for 20 s at start
# while polling (--no-watch: backoff, then one publish), a synthesized uevent removing a gVNIC (umockdev).
# The watches' own cases are in test_daemon_watch.sh.
# LONG=1: the idle window is 60 s, and the reaction time (14 link changes, one bounce per NIC) and idle CPU are measured.
# Env: TOPDIR, BUILD, TCPXO_AGENT. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec daemon "$0"
# Everything below, the fake API server included, runs in one private namespace
# (tests/lib/daemon_env.sh: the server, the tree, start_agent, stop_agent, mark, reqs).
LONG=${LONG:-0}
failed=0
pod_pid="" utmp=""
cleanup() {
	if [ -n "$pod_pid" ]; then kill "$pod_pid" 2>/dev/null && wait "$pod_pid" 2>/dev/null; fi
	[ -n "$utmp" ] && rm -rf "$utmp"
	daemon_env_cleanup
}
trap cleanup EXIT
[ -n "${KEEP_LOGS:-}" ] && trap 'cp "$tmp"/agent*.log "$KEEP_LOGS"/ 2>/dev/null; cleanup' EXIT
trap 'exit 130' INT TERM

daemon_env_setup || exit 1

# wait_patches MARK N SECONDS: wait until N PATCHes arrived after MARK; then print the elapsed ms.
wait_patches() {
	_t0=$(now_ms)
	while :; do
		_n=$(reqs "$1" | grep -c '^PATCH')
		[ "$_n" -ge "$2" ] && break
		[ $(($(now_ms) - _t0)) -gt $(($3 * 1000)) ] && break
		sleep 0.02
	done
	echo $(($(now_ms) - _t0))
}

# --- start: one PATCH publishing the ready node, its condition, one Event ---
start_agent "$tmp/agent.log" --interval 10
dt=$(wait_patches 0 1 10)
wait_for_line() {  # MARK REGEX SECONDS: until a request line after MARK matches
	_t=0
	while ! reqs "$1" | grep -qE "$2" && [ $_t -lt $(($3 * 50)) ]; do sleep 0.02; _t=$((_t + 1)); done
}
wait_for_line 0 '^EVENT' 5
if reqs 0 | grep -q '^PATCH .* ready=true' && [ "$(reqs 0 | grep -c '^PATCH')" = 1 ] &&
   [ "$(reqs 0 | grep -c '^STATUS .* cond=True/TCPXOReady')" = 1 ] && [ "$(reqs 0 | grep -c '^STATUS')" = 1 ] &&
   [ "$(reqs 0 | grep -c "^EVENT /apis/events.k8s.io/v1/namespaces/default/events .* event=Node/$NODE/FabricReady")" = 1 ] &&
   [ "$(reqs 0 | grep -c '^EVENT')" = 1 ]; then
	ok "daemon start: one PATCH with ready=true after $dt ms, the condition True, one Event FabricReady"
else
	nok "daemon start" "requests: $(reqs 0 | tr '\n' '|') log: $(tail -n 5 "$tmp/agent.log" | tr '\n' '|')"
fi
sleep 1

# --- idle: no PATCH, the watches refilled only on the resync schedule, no log lines ---
window=20
[ "$LONG" = 1 ] && window=60
m=$(mark); lines=$(wc -l <"$tmp/agent.log")
cpu0=$(awk '{ print $14 + $15 }' "/proc/$agent_pid/stat")
sleep $window
cpu1=$(awk '{ print $14 + $15 }' "/proc/$agent_pid/stat")
patches=$(reqs "$m" | grep -cE '^(PATCH|STATUS|EVENT)')
gets=$(reqs "$m" | grep -c "^GET /api/v1/nodes .* watch initial")
all=$(reqs "$m" | wc -l)
newlines=$(($(wc -l <"$tmp/agent.log") - lines))
max_gets=$((window / 10 + 1))
# Each resync (every 10 to 11 s) refills the three stores: one watch each, nothing else; the absent
# Networks (no networks.json here) are looked for every 10 s on their own schedule.
if [ "$patches" = 0 ] && [ "$gets" -ge 1 ] && [ "$gets" -le $max_gets ] && [ "$all" -le $((3 * (gets + 1))) ] &&
   [ "$newlines" = 0 ]; then
	ok "daemon idle ${window}s: no write (PATCH, status, Event), $gets node watches refilled ($all requests) at --interval 10, no log line"
else
	nok "daemon idle ${window}s" "$patches writes, $gets node watches (at most $max_gets), $all requests, $newlines log lines: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
if [ "$LONG" = 1 ]; then
	hz=$(getconf CLK_TCK)
	ok "daemon idle cpu: $((cpu1 - cpu0)) ticks of 1/$hz s in ${window}s ($all requests)"
fi

# --- eth3 down: exactly one PATCH with ready=false and the links failure, one status PATCH, one Event ---
# Within 6 s: the link event's, not the resync's (10 s). How fast is make bench's figure (section 4),
# not a test's: a loaded CI machine once took 3,013 ms against the 3 s this said before.
link_case() {  # NAME CMD WANT_READY WANT_FAIL WANT_COND WANT_EVENT
	m=$(mark)
	sh -c "$2"
	dt=$(wait_patches "$m" 1 6)
	sleep 1.5       # a second PATCH would have come by now (debounce 1 s)
	got=$(reqs "$m" | grep -E '^(PATCH|STATUS|EVENT)')
	n=$(printf '%s\n' "$got" | grep -c '^PATCH')
	if [ "$n" = 1 ] && [ "$dt" -le 6000 ] && printf '%s' "$got" | grep -q "ready=$3" &&
	   { [ -z "$4" ] || printf '%s' "$got" | grep -q "fail=.*$4"; } &&
	   [ "$(printf '%s\n' "$got" | grep -c "^STATUS .* cond=$5\$")" = 1 ] && [ "$(printf '%s\n' "$got" | grep -c '^STATUS')" = 1 ] &&
	   [ "$(printf '%s\n' "$got" | grep -c "^EVENT .*/$6\$")" = 1 ] && [ "$(printf '%s\n' "$got" | grep -c '^EVENT')" = 1 ]; then
		ok "daemon $1: one PATCH ready=$3, condition $5, Event $6, after $dt ms"
	else
		nok "daemon $1" "$n PATCH in ${dt} ms: $(printf '%s' "$got" | tr '\n' '|'); log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
	fi
}
link_case "eth3 down" "ip link set eth3 down" false links False/Links FabricNotReady
link_case "eth3 up" "ip link set eth3 up" true "" True/TCPXOReady FabricReady

if [ "$LONG" = 1 ]; then
	# Reaction time: 14 changes, link change to PATCH, in ms. One down and up per NIC (not eth3,
	# just bounced): a third change of one link within 60 s is a flap, held 30 s (test_daemon_flap.sh).
	: >"$tmp/times"
	for nic in eth1 eth2 eth4 eth5 eth6 eth7 eth8; do
		for c in down up; do
			m=$(mark)
			ip link set $nic $c
			wait_patches "$m" 1 5 >>"$tmp/times"
			sleep 1.2
		done
	done
	sort -n "$tmp/times" >"$tmp/times.sorted"
	med=$(awk '{ v[NR] = $1 } END { print (v[7] + v[8]) / 2 }' "$tmp/times.sorted")
	max=$(tail -n 1 "$tmp/times.sorted")
	ok "daemon reaction time: median $med ms, max $max ms over 14 link changes"
fi

# --- eth5 moved into another namespace: in-pod, the node stays ready ---
unshare -n sleep 600 </dev/null >/dev/null 2>&1 &
pod_pid=$!
i=0
while [ "$(readlink /proc/$pod_pid/ns/net 2>/dev/null)" = "$(readlink /proc/self/ns/net)" ] && [ $i -lt 200 ]; do
	sleep 0.01; i=$((i + 1))
done
m=$(mark)
ip link set eth5 netns "$pod_pid"
sleep 2.5
if reqs "$m" | grep -q 'ready=false'; then
	nok "daemon eth5 in-pod" "published ready=false: $(reqs "$m" | tr '\n' '|')"
elif ! grep -q 'nic eth5 up→in-pod' "$tmp/agent.log"; then
	nok "daemon eth5 in-pod" "no 'nic eth5 up→in-pod' in the log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
else
	ok "daemon eth5 in-pod: observed in-pod, still ready ($(reqs "$m" | grep -c '^PATCH') PATCH)"
fi

# --- an aperture entry removed: inotify, one PATCH ---
m=$(mark)
rm -rf "$root/dev/aperture_devices/0000:00:11.0"
dt=$(wait_patches "$m" 1 6)
sleep 1.5
n=$(reqs "$m" | grep -c '^PATCH')
if [ "$n" = 1 ] && reqs "$m" | grep -q 'fail=.*aperture-devices'; then
	ok "daemon aperture entry removed: one PATCH after $dt ms"
else
	nok "daemon aperture entry removed" "$n PATCH: $(reqs "$m" | tr '\n' '|')"
fi

# --- the token file replaced: the next request carries the new token ---
printf 'tok-two\n' >"$tmp/token.new" && mv "$tmp/token.new" "$tmp/token"
printf 'tok-two\n' >"$state/token"
m=$(mark)
i=0
while [ "$(reqs "$m" | wc -l)" = 0 ] && [ $i -lt 600 ]; do sleep 0.02; i=$((i + 1)); done
first=$(reqs "$m" | head -n 1)
case $first in
*auth=ok*) ok "daemon token rotated: the next request used the new token" ;;
*) nok "daemon token rotated" "first request after the swap: ${first:-none in 12 s}" ;;
esac

# --- health: fresh while running; a stopped (wedged) loop fails the probe ---
if "$AGENT" health --health-file "$tmp/health" --max-age 11 >/dev/null 2>&1; then
	kill -STOP "$agent_pid"
	sleep 2.2
	if "$AGENT" health --health-file "$tmp/health" --max-age 2 >/dev/null 2>"$tmp/health.err"; then
		nok "daemon health wedged" "a stopped agent passed the probe"
	else
		ok "daemon health: fresh while running, stale once the loop is stopped ($(cat "$tmp/health.err"))"
	fi
	kill -CONT "$agent_pid"
	sleep 0.3
else
	nok "daemon health" "the running agent's health file is not fresh"
fi

# --- SIGTERM: exit 0 at once (within 5 s: a sanitizer build's exit under load took 1.6 s; a wait for
# the API would take the client's 15 s), no request that removes keys ---
m=$(mark)
stop_agent
if [ "$stop_rc" = 0 ] && [ "$stop_ms" -lt 5000 ] && ! reqs "$m" | grep -q 'nulls=' && ! reqs 0 | grep -q 'nulls=.*ready'; then
	ok "daemon SIGTERM: exit 0 after $stop_ms ms, no key removed"
else
	nok "daemon SIGTERM" "exit $stop_rc after $stop_ms ms; requests: $(reqs "$m" | tr '\n' '|')"
fi
if grep -q 'tok-' "$tmp/agent.log"; then
	nok "daemon log" "the token appears in the log"
fi

# --- SIGTERM while a request hangs: the request is abandoned, exit 0 at once (within 5 s, as above) ---
echo '{"mode": "hang"}' >"$state/faults"
m=$(mark)
start_agent "$tmp/agenthang.log" --interval 10
i=0
while [ "$(reqs "$m" | wc -l)" = 0 ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
sleep 0.3
stop_agent
rm -f "$state/faults"
if [ "$stop_rc" = 0 ] && [ "$stop_ms" -lt 5000 ] && ! reqs "$m" | grep -q '^PATCH'; then
	ok "daemon SIGTERM during a hanging request: exit 0 after $stop_ms ms"
else
	nok "daemon SIGTERM during a hanging request" "exit $stop_rc after $stop_ms ms; requests: $(reqs "$m" | tr '\n' '|')"
fi

# --- API 500 for 20 s at start, polling: back off, then publish once (watches: test_daemon_watch.sh) ---
cp "$tmp/node.json" "$state/node.json"
rm -rf "$root"; root=$(scenario_prepare a3-mega)
printf 'tok-two\n' >"$tmp/token"
echo '{"mode": 500}' >"$state/faults"
m=$(mark)
start_agent "$tmp/agent500.log" --interval 10 --no-watch
sleep 20
during=$(reqs "$m" | wc -l)
rm -f "$state/faults"
m2=$(mark)
dt=$(wait_patches "$m2" 1 15)
sleep 1.5
n=$(reqs "$m2" | grep -c '^PATCH')
errs=$(grep -c 'API error' "$tmp/agent500.log")
# No storm: the loop reads at most 5 times in 20 s (backoff 2.5..5 s, then 5..10 s with
# --interval 10), each read being two GETs the HTTP client tries at most 4 times each; one
# more read may be under way at the 20 s mark (it then succeeds, logging no error).
if [ "$during" -ge 2 ] && [ "$errs" -ge 2 ] && [ "$errs" -le 5 ] && [ "$during" -le $(((errs + 1) * 8)) ] && [ "$n" = 1 ]; then
	ok "daemon API 500 at start (--no-watch): $during requests in 20 s, $errs backoffs logged, one PATCH $dt ms after recovery"
else
	nok "daemon API 500 at start" "$during requests in 20 s, $n PATCH after recovery, $errs errors logged: $(tail -n 3 "$tmp/agent500.log" | tr '\n' '|')"
fi
stop_agent

# --- a synthesized uevent removing a gVNIC: re-observation and PATCH (umockdev) ---
if ! command -v umockdev-wrapper >/dev/null 2>&1 || ! /usr/bin/python3 -c 'import gi; gi.require_version("UMockdev", "1.0")' 2>/dev/null; then
	skip "daemon uevent" "umockdev or its python bindings are not installed"
else
	# umockdev redirects paths under /dev (and so /dev/shm): this case keeps its files in /tmp.
	utmp=$(mktemp -d /tmp/tcpxo-uevent.XXXXXX) || exit 2
	rm -rf "$root"; root=$(SCENARIO_TMP=$utmp scenario_prepare a3-mega)
	cp "$tmp/certs/ca.crt" "$tmp/token" "$utmp/"
	mkdir "$tmp/umockdev"   # the testbed (tmpfs, removed with $tmp whatever happens)
	# The preload library comes first: a sanitizer build must not insist on being first itself.
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 TMPDIR=$tmp/umockdev umockdev-wrapper \
		/usr/bin/python3 "$TOPDIR/tests/lib/umockdev/uevent.py" \
		--device "$TOPDIR/tests/lib/umockdev/gvnic.umockdev" --commands "$utmp/ucmd" -- \
		"$AGENT" --root "$root" --node "$NODE" --api-server "$SERVER" --token-file "$utmp/token" \
		--ca-file "$utmp/ca.crt" --start-jitter 0 --interval 300 -v 2>"$tmp/agentu.log" &
	agent_pid=$!
	i=0
	while ! grep -q 'info observed changes="profile tcpxo, ready true"' "$tmp/agentu.log" && [ $i -lt 250 ]; do
		sleep 0.02; i=$((i + 1))
	done
	if [ $i -ge 250 ]; then
		nok "daemon uevent" "no ready observation within 5 s: $(tail -n 3 "$tmp/agentu.log" | tr '\n' '|')"
	else
		sleep 0.3
		# The gVNIC at 0000:06:00.0 leaves the tree where no inotify watch looks: only the uevent tells.
		rm -f "$root/sys/bus/pci/devices/0000:06:00.0"
		find "$root/sys" -name '0000:06:00.0' -prune -exec rm -rf {} + 2>/dev/null
		m2=$(mark)
		sleep 1.2
		before=$(reqs "$m2" | grep -c '^PATCH')
		echo "remove /sys/devices/pci0000:00/0000:00:04.0/0000:06:00.0" >"$utmp/ucmd.new"
		mv "$utmp/ucmd.new" "$utmp/ucmd"
		dt=$(wait_patches "$m2" 1 3)
		n=$(reqs "$m2" | grep -c '^PATCH')
		if [ "$before" = 0 ] && [ "$n" = 1 ] && grep -q 'source=uevent' "$tmp/agentu.log" &&
		   reqs "$m2" | grep -q 'ready=false.*fail=gpu-nics'; then
			ok "daemon uevent: gVNIC removed, one PATCH ready=false $dt ms after the uevent"
		else
			nok "daemon uevent" "$before PATCH before the uevent, $n after: $(reqs "$m2" | tr '\n' '|'); log: $(tail -n 3 "$tmp/agentu.log" | tr '\n' '|')"
		fi
	fi
	kill -TERM "$agent_pid"
	i=0
	while kill -0 "$agent_pid" 2>/dev/null && [ $i -lt 1500 ]; do sleep 0.02; i=$((i + 1)); done
	if kill -0 "$agent_pid" 2>/dev/null; then
		nok "daemon uevent stop" "the umockdev driver did not exit within 30 s of SIGTERM"
		kill -KILL "$agent_pid"
	fi
	wait "$agent_pid"; agent_pid=""
	rm -rf "$root" "$utmp"; root=""
fi
exit $failed
