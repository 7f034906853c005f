#!/bin/sh
# test_daemon_metrics.sh - the daemon's /metrics against the fake API in a private netns: promtool check metrics on a
# scrape, the node's true values (healthy: ready 1, every check's pass 1, the GPU pods' attachment; eth3 down: the
# links check's fail 1), counters that move with requests and writes, 404 and 405, oversized headers, forty idle connections (a
# slow client) that neither wedge the loop nor keep another address from scraping, sixteen connections from two
# addresses trickling a byte a second (closed at their request deadline; a third address scrapes meanwhile), a bad
# address refused; the process_* families read from the agent's /proc; tcpxo_node_publish_in_sync 1, and 0 while
# every status PATCH is refused (403).
# Env: TOPDIR, BUILD, TCPXO_AGENT. Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
export TOPDIR AGENT

. "$TOPDIR/tests/lib/daemon_env.sh"
[ "${1:-}" = inner ] || daemon_env_reexec metrics "$0"
failed=0
hold_pid=""
cleanup() {
	[ -n "$hold_pid" ] && kill "$hold_pid" 2>/dev/null && wait "$hold_pid" 2>/dev/null
	daemon_env_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

daemon_env_setup || exit 1
PATH=$PATH:$TOPDIR/.tools/bin

# scrape [METHOD [PATH [SOURCE]]]: the answer's status on the first line, then its body.
scrape() {
	/usr/bin/python3 - "$addr" "${1:-GET}" "${2:-/metrics}" "${3:-}" <<'PY'
import http.client, sys
host, port = sys.argv[1].rsplit(":", 1)
src = (sys.argv[4], 0) if sys.argv[4] else None
try:
    c = http.client.HTTPConnection(host, int(port), timeout=5, source_address=src)
    c.request(sys.argv[2], sys.argv[3])
    r = c.getresponse()
    print(r.status)
    sys.stdout.write(r.read().decode())
except Exception as e:
    print("error", e)
PY
}
status_of() { scrape "$@" >"$tmp/status" 2>&1; head -n 1 "$tmp/status"; }
# value NAME{LABELS}: the sample's value in $tmp/scrape ("" when absent).
value() { awk -v s="$1" '$1 == s { print $2 }' "$tmp/scrape"; }
wait_patches() {  # MARK N SECONDS
	_t=0
	while [ "$(reqs "$1" | grep -c '^PATCH')" -lt "$2" ] && [ $_t -lt $(($3 * 50)) ]; do sleep 0.02; _t=$((_t + 1)); done
}

# --- a bad address: refused at start, with the reason ---
"$AGENT" --root "$root" --node "$NODE" --no-publish --metrics-address 127.0.0.1:99999 2>"$tmp/bad.log" &
bad_pid=$!
wait_for "! kill -0 $bad_pid 2>/dev/null" 5
kill "$bad_pid" 2>/dev/null
wait "$bad_pid"; bad_rc=$?
if [ "$bad_rc" != 0 ] && grep -q "cannot serve metrics.*the port must be 0-65535" "$tmp/bad.log"; then
	ok "metrics bad address: refused at start (exit $bad_rc) with the reason"
else
	nok "metrics bad address" "exit $bad_rc: $(tr '\n' '|' <"$tmp/bad.log")"
fi

# --- the healthy node ---
start_agent "$tmp/agent.log" --interval 10 --metrics-address 127.0.0.1:0
wait_for "grep -q 'serving metrics' '$tmp/agent.log'" 5
addr=$(sed -n 's/.*serving metrics.*address=\([0-9.]*:[0-9]*\).*/\1/p' "$tmp/agent.log" | head -n 1)
wait_patches 0 1 10
wait_for "reqs 0 | grep -q '^EVENT'" 5
scrape >"$tmp/answer"
sed 1d "$tmp/answer" >"$tmp/scrape"
if [ "$(head -n 1 "$tmp/answer")" = 200 ] && [ -s "$tmp/scrape" ]; then
	ok "metrics scrape: 200 from $addr ($(wc -l <"$tmp/scrape") lines)"
else
	nok "metrics scrape" "address '$addr': $(head -c 300 "$tmp/answer"); log: $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
if ! command -v promtool >/dev/null 2>&1; then
	if [ "${REQUIRE_PROMTOOL:-0}" = 1 ]; then
		nok "metrics promtool" "REQUIRE_PROMTOOL=1 (CI) and no promtool on PATH or in .tools/bin"
	else
		skip "metrics promtool" "promtool is not installed (sh scripts/deps.sh test)"
	fi
elif promtool check metrics <"$tmp/scrape" >"$tmp/promtool.out" 2>&1; then
	ok "metrics promtool check metrics: clean"
else
	nok "metrics promtool check metrics" "$(head -n 5 "$tmp/promtool.out" | tr '\n' '|')"
fi
# Every family the shipped rules and dashboard may name (their one list) is on the page, with its type.
missing=$(grep -v '^#' "$TOPDIR/tests/integration/data/metric-families.txt" | while read -r fam type; do
	[ -n "$fam" ] && ! grep -qx "# TYPE $fam $type" "$tmp/scrape" && printf '%s ' "$fam $type"
done)
if [ -z "$missing" ]; then
	ok "metrics families: every one of tests/integration/data/metric-families.txt on the page, with its type"
else
	nok "metrics families" "not on the page: $missing"
fi
checks=$(grep -c '^tcpxo_check_status{.*status="pass"}' "$tmp/scrape")
pass1=$(grep -c '^tcpxo_check_status{.*status="pass"} 1$' "$tmp/scrape")
pods=$(grep -c '^tcpxo_pod_attachment{.*} 1$' "$tmp/scrape")
if [ "$(value 'tcpxo_build_info{version="0.1.0"}')" = 1 ] && [ "$(value tcpxo_node_ready)" = 1 ] &&
   [ "$(value 'tcpxo_node_profile{profile="tcpxo"}')" = 1 ] && [ "$(value 'tcpxo_node_profile{profile="none"}')" = 0 ] &&
   [ "$(value tcpxo_node_observed)" = 1 ] && [ "$checks" -ge 13 ] && [ "$pass1" = "$checks" ] &&
   [ "$(grep -c '^tcpxo_check_status{' "$tmp/scrape")" = $((checks * 4)) ] &&
   [ "$(value tcpxo_observation_duration_seconds_count)" -ge 1 ] &&
   [ "$(value tcpxo_last_observation_timestamp_seconds | cut -d. -f1)" -ge $(($(date +%s) - 60)) ]; then
	ok "metrics healthy node: build_info 1, ready 1, observed 1, profile tcpxo 1, all $checks checks pass 1 (4 series each), the observation timed"
else
	nok "metrics healthy node" "ready $(value tcpxo_node_ready), $pass1 of $checks checks pass: $(grep -v '^#' "$tmp/scrape" | head -n 40 | tr '\n' '|')"
fi
if [ "$pods" -ge 1 ] && [ "$(grep -c '^tcpxo_pod_attachment{' "$tmp/scrape")" = $((pods * 4)) ] &&
   [ "$(grep -c '^tcpxo_pod_gpus{.*} 8$' "$tmp/scrape")" = "$pods" ]; then
	ok "metrics pods: $pods GPU pods with one verdict 1 each (4 series each), 8 GPUs each: $(grep '^tcpxo_pod_attachment{.*} 1$' "$tmp/scrape" | head -n 2 | tr '\n' ' ')"
else
	nok "metrics pods" "$pods: $(grep '^tcpxo_pod_attachment' "$tmp/scrape" | head -n 8 | tr '\n' '|')"
fi
# The process, as Prometheus' client libraries export it, read from the agent's own /proc at scrape time.
start=$(value process_start_time_seconds)
fds=$(value process_open_fds)
# The scrape's own connection was open while it was counted: the count after it differs by a descriptor or two.
now_fds=$(ls /proc/"$agent_pid"/fd | wc -l)
if [ -n "$start" ] && [ "${start%.*}" -ge $(($(date +%s) - 600)) ] && [ "${start%.*}" -le "$(date +%s)" ] &&
   [ "${fds:-0}" -ge 3 ] && [ "$fds" -le $((now_fds + 2)) ] && [ "$fds" -ge $((now_fds - 2)) ] &&
   [ "$(value process_max_fds)" = "$(awk '/^Max open files/ { print $4 }' /proc/"$agent_pid"/limits)" ] &&
   [ "$(value process_resident_memory_bytes)" -gt 0 ] && [ "$(value process_virtual_memory_bytes)" -gt 0 ] &&
   grep -qx '# TYPE process_cpu_seconds_total counter' "$tmp/scrape" &&
   [ "$(grep -c '^# TYPE process_[a-z_]* gauge$' "$tmp/scrape")" = 5 ]; then
	ok "metrics process: the six process_* families (start $start, $fds open fds, max_fds as /proc/PID/limits says)"
else
	nok "metrics process" "$(grep '^process_' "$tmp/scrape" | tr '\n' '|') /proc fds $now_fds"
fi
if [ "$(value tcpxo_node_publish_in_sync)" = 1 ]; then
	ok "metrics publish in sync: 1 once the node carries the verdict"
else
	nok "metrics publish in sync" "tcpxo_node_publish_in_sync '$(value tcpxo_node_publish_in_sync)', want 1"
fi
watches=$(value 'tcpxo_api_requests_total{verb="WATCH",resource="nodes",code="200"}')
merge=$(value 'tcpxo_node_writes_total{kind="merge_patch"}')
status=$(value 'tcpxo_node_writes_total{kind="status_patch"}')
events=$(value 'tcpxo_node_writes_total{kind="event"}')
patch_reqs=$(value 'tcpxo_api_requests_total{verb="PATCH",resource="nodes",code="200"}')
if [ "${watches:-0}" -ge 1 ] && [ "$merge" = 1 ] && [ "$status" = 1 ] && [ "${events:-0}" -ge 1 ] &&
   [ "$patch_reqs" = "$(reqs 0 | grep -c '^PATCH')" ] &&
   [ "$(grep -c '^tcpxo_watch_relists_total{' "$tmp/scrape")" = 12 ]; then
	ok "metrics counters: $watches node watches, merge_patch $merge, status_patch $status, event $events, PATCH requests as the server saw them, 12 relist series"
else
	nok "metrics counters" "watches $watches merge $merge status $status events $events patches $patch_reqs: $(grep -E '^tcpxo_(api|node_writes|watch)' "$tmp/scrape" | tr '\n' '|')"
fi

# --- 404, 405 ---
s404=$(status_of GET /other)
s405=$(status_of POST /metrics)
sq=$(status_of GET '/metrics?x=1')
if [ "$s404" = 404 ] && [ "$s405" = 405 ] && [ "$sq" = 200 ]; then
	ok "metrics other path 404, POST 405, a query ignored (200)"
else
	nok "metrics 404/405" "other path $s404, POST $s405, query $sq"
fi

# --- a request whose headers pass the 16 KiB per connection: refused, and the next scrape answered ---
big=$(/usr/bin/python3 - "$addr" <<'PY'
import socket, sys
host, port = sys.argv[1].rsplit(":", 1)
s = socket.create_connection((host, int(port)), timeout=5)
s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 40000 + b"\r\n\r\n")
try:
    print(s.recv(64).split(b"\r\n")[0].decode() or "closed")
except OSError as e:
    print("closed", e)
PY
)
after=$(status_of)
case "$big" in
*" 431 "* | *" 413 "* | closed*) big_ok=1 ;;
*) big_ok=0 ;;
esac
if [ "$big_ok" = 1 ] && [ "$after" = 200 ]; then
	ok "metrics oversized request headers: refused ($big), the next scrape answered"
else
	nok "metrics oversized request" "answer '$big', then $after"
fi

# --- eth3 down: the links check fails, ready 0, one more merge patch; while one address opens 40 idle connections
# (the agent holds the per-address limit, 4, and refuses the rest) ---
/usr/bin/python3 - "$addr" 40 <<'PY' >"$tmp/hold.out" 2>&1 &
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
conns = []
for i in range(int(sys.argv[2])):
    try:
        s = socket.create_connection((host, int(port)), timeout=2)
        if i % 2:
            s.send(b"GET /metr")        # a request that never ends
        conns.append(s)
    except OSError as e:
        print("refused", i, e)
time.sleep(1.5)                         # the agent accepts them all meanwhile, and closes those past its limit
held = 0
for s in conns:
    s.setblocking(False)
    try:
        held += s.recv(1, socket.MSG_PEEK) != b""       # data: none is sent to an unfinished request
    except BlockingIOError:
        held += 1                       # open, nothing to read: held by the agent
    except OSError:
        pass                            # reset: closed by the agent
print("held", held, "of", len(conns), flush=True)
time.sleep(30)
PY
hold_pid=$!
sleep 1
m=$(mark)
ip link set eth3 down
t0=$(now_ms)
wait_patches "$m" 1 6
dt=$(($(now_ms) - t0))
wait_for "grep -q '^held ' \"\$tmp/hold.out\"" 5
held=$(awk '$1 == "held" { print $2 }' "$tmp/hold.out")
if [ "$(reqs "$m" | grep -c '^PATCH')" -ge 1 ] && [ -n "$held" ] && [ "$held" -ge 1 ] && [ "$held" -le 4 ]; then
	ok "metrics slow clients: of 40 idle connections from one address $held held (the limit is 4), the link event still published in $dt ms"
else
	nok "metrics slow clients" "held '$held' of 40 idle connections (want 1-4); PATCHes within 6 s of eth3 down: $(reqs "$m" | grep -c '^PATCH'); $(tr '\n' '|' <"$tmp/hold.out") $(tail -n 3 "$tmp/agent.log" | tr '\n' '|')"
fi
sleep 1.5
scrape GET /metrics 127.0.0.2 >"$tmp/answer"
sed 1d "$tmp/answer" >"$tmp/scrape"
if [ "$(head -n 1 "$tmp/answer")" = 200 ] && [ "$(value tcpxo_node_ready)" = 0 ] &&
   [ "$(value 'tcpxo_check_status{check="links",status="fail"}')" = 1 ] &&
   [ "$(value 'tcpxo_check_status{check="links",status="pass"}')" = 0 ] &&
   [ "$(value 'tcpxo_node_writes_total{kind="merge_patch"}')" = 2 ]; then
	ok "metrics broken node (scraped from another address while one holds its connections): ready 0, links fail 1, pass 0, merge_patch 2"
else
	nok "metrics broken node" "$(head -n 1 "$tmp/answer"): ready $(value tcpxo_node_ready), links fail $(value 'tcpxo_check_status{check="links",status="fail"}'), merge $(value 'tcpxo_node_writes_total{kind="merge_patch"}')"
fi
# The idle connections pass their request deadline (5 s from accept): the address that held them scrapes again.
wait_for "[ \"\$(status_of)\" = 200 ]" 10
if [ "$(status_of)" = 200 ]; then
	ok "metrics idle connections closed at their request deadline: scraping from their address again"
else
	nok "metrics idle connections" "still refused after 10 s: $(cat "$tmp/hold.out")"
fi
kill "$hold_pid" 2>/dev/null; wait "$hold_pid" 2>/dev/null; hold_pid=""

# --- the pods list failing after the pods were shown (RBAC taken away, the watch ended by the resync):
# the last pods stay on the page, as the last verdict does; an API failure removes nothing ---
echo '{"forbidden": ["pods"]}' >"$state/settings"
m=$(mark)
wait_for 'reqs '"$m"' | grep -q "^GET /api/v1/pods.* status=403"' 15
sleep 1
scrape GET /metrics 127.0.0.5 >"$tmp/answer"
sed 1d "$tmp/answer" >"$tmp/scrape"
if reqs "$m" | grep -q '^GET /api/v1/pods.* status=403' && [ "$(head -n 1 "$tmp/answer")" = 200 ] &&
   [ "$(grep -c '^tcpxo_pod_attachment{.*} 1$' "$tmp/scrape")" = "$pods" ] && [ "$pods" -ge 1 ]; then
	ok "metrics pods list failing (403) after the pods were shown: the $pods GPU pods stay on the page"
else
	nok "metrics pods list failing" "$(reqs "$m" | grep '^GET /api/v1/pods' | tail -n 2 | tr '\n' '|'); pods on the page: $(grep -c '^tcpxo_pod_attachment{.*} 1$' "$tmp/scrape") (was $pods)"
fi
rm -f "$state/settings"

# --- room kept for a new address: four addresses holding 3 connections each (12 of 16), one of them asking a
# 4th is refused (the last 4 slots are for addresses that hold none), a fifth address gets in ---
/usr/bin/python3 - "$addr" >"$tmp/reserve.out" 2>&1 <<'PY'
import socket, sys, time
host, port = sys.argv[1].rsplit(":", 1)
def conn(src):
    return socket.create_connection((host, int(port)), timeout=2, source_address=(src, 0))
def held(s):
    s.setblocking(False)
    try:
        return s.recv(1, socket.MSG_PEEK) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False
keep = [conn(src) for src in ("127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5") for _ in range(3)]
time.sleep(0.5)
extra, new = conn("127.0.0.2"), conn("127.0.0.6")
time.sleep(0.5)
print("held", sum(held(s) for s in keep), "same-address", int(held(extra)), "new-address", int(held(new)))
PY
if grep -qx 'held 12 same-address 0 new-address 1' "$tmp/reserve.out"; then
	ok "metrics room for a new address: 12 held from four addresses, a 4th from one of them refused, a new address admitted"
else
	nok "metrics room for a new address" "$(tr '\n' '|' <"$tmp/reserve.out")"
fi
sleep 5.5               # their request deadline: the slots are free again

# --- 16 connections from two addresses (8 each) trickling one byte a second, which libmicrohttpd's idle
# timeout never ends (issue 30: they held all 16 slots for ever): each address gets 4, each connection is
# closed at its request deadline (5 s) however it trickles, and a third address scrapes at once meanwhile ---
/usr/bin/python3 - "$addr" <<'PY' >"$tmp/trickle.out" 2>&1 &
import socket, sys, threading, time
host, port = sys.argv[1].rsplit(":", 1)
req = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Slow: " + b"a" * 200
lock = threading.Lock()
def one(src, i):
    t0 = time.monotonic()
    try:
        s = socket.create_connection((host, int(port)), timeout=2, source_address=(src, 0))
    except OSError as e:
        with lock: print("refused", src, i, e, flush=True)
        return
    end = "open"
    for b in req:
        try:
            s.send(bytes([b]))
        except OSError:
            end = "closed"
            break
        s.settimeout(1.0)
        try:
            if s.recv(1) == b"":
                end = "closed"
                break
        except socket.timeout:
            pass
        except OSError:
            end = "closed"
            break
        if time.monotonic() - t0 > 20:
            break
    with lock: print(end, src, i, "%.1f" % (time.monotonic() - t0), flush=True)
ts = [threading.Thread(target=one, args=(src, i)) for src in ("127.0.0.2", "127.0.0.3") for i in range(8)]
for t in ts: t.start()
for t in ts: t.join()
print("done", flush=True)
PY
hold_pid=$!
sleep 1.5
# The scrape timed inside the client (its interpreter's start left out).
set -- $(/usr/bin/python3 - "$addr" <<'PY'
import http.client, sys, time
host, port = sys.argv[1].rsplit(":", 1)
t0 = time.monotonic()
try:
    c = http.client.HTTPConnection(host, int(port), timeout=10, source_address=("127.0.0.4", 0))
    c.request("GET", "/metrics")
    st = c.getresponse().status
except Exception:
    st = "error"
print(st, "%.0f" % ((time.monotonic() - t0) * 1000))
PY
)
st=$1 trickle_scrape_ms=$2
wait_for "grep -q '^done' \"\$tmp/trickle.out\"" 25
# Refused by the accept policy: closed at once; held: closed at the deadline, 5 s after accept.
refused=$(awk '$1 == "refused" || ($1 == "closed" && $4 < 2) { n++ } END { print n + 0 }' "$tmp/trickle.out")
closed=$(awk '$1 == "closed" && $4 >= 4 && $4 <= 8 { n++ } END { print n + 0 }' "$tmp/trickle.out")
per2=$(awk '$1 == "closed" && $2 == "127.0.0.2" && $4 >= 4 && $4 <= 8 { n++ } END { print n + 0 }' "$tmp/trickle.out")
if [ "$st" = 200 ] && [ "$refused" = 8 ] && [ "$closed" = 8 ] && [ "$per2" = 4 ]; then
	ok "metrics trickling clients: 16 from 127.0.0.2 and .3 (a byte a second), 4 per address held and closed at the 5 s request deadline, 8 refused; a scrape from 127.0.0.4 answered in $trickle_scrape_ms ms"
else
	nok "metrics trickling clients" "scrape from a third address: '$st' in $trickle_scrape_ms ms; $refused refused, $closed closed at the deadline ($per2 of 127.0.0.2): $(tr '\n' '|' <"$tmp/trickle.out")"
fi
echo "# measured: a scrape from a third address while 16 clients trickle: $trickle_scrape_ms ms"
kill "$hold_pid" 2>/dev/null; wait "$hold_pid" 2>/dev/null; hold_pid=""

stop_agent
if [ "$stop_rc" = 0 ]; then
	ok "metrics daemon stopped cleanly (exit 0 in $stop_ms ms)"
else
	nok "metrics daemon stop" "exit $stop_rc"
fi

# --- publishing denied: every status PATCH answered 403 (RBAC, an admission policy, a webhook) while the agent
# sees the node change: tcpxo_node_publish_in_sync 0 and the 403s counted, whatever the node's condition says ---
printf '{"forbidden": ["nodes/status:patch"]}\n' >"$state/settings"
ip link set eth3 up
start_agent "$tmp/denied.log" --interval 10 --metrics-address 127.0.0.1:0
wait_for "grep -q 'serving metrics' '$tmp/denied.log'" 5
addr=$(sed -n 's/.*serving metrics.*address=\([0-9.]*:[0-9]*\).*/\1/p' "$tmp/denied.log" | head -n 1)
wait_for "grep -q 'patch node status' '$tmp/denied.log'" 10
scrape >"$tmp/answer"
sed 1d "$tmp/answer" >"$tmp/scrape"
denied=$(value 'tcpxo_api_requests_total{verb="PATCH",resource="nodes/status",code="403"}')
if [ "$(value tcpxo_node_publish_in_sync)" = 0 ] && [ "${denied:-0}" -ge 1 ] && [ "$(value tcpxo_node_ready)" = 1 ] &&
   [ "$(value tcpxo_node_observed)" = 1 ] && [ "$(value 'tcpxo_node_writes_total{kind="status_patch"}')" = 0 ]; then
	ok "metrics publish denied: in sync 0, $denied status PATCHes answered 403, none written, the agent's own verdict (ready 1) still served"
else
	nok "metrics publish denied" "in sync '$(value tcpxo_node_publish_in_sync)', 403s '$denied', ready '$(value tcpxo_node_ready)': $(tail -n 3 "$tmp/denied.log" | tr '\n' '|')"
fi
stop_agent
rm -f "$state/settings"
exit $failed
