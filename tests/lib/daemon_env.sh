# daemon_env.sh - sourced by the daemon tests (inside their private netns): the fake API
# server over TLS with the a3-mega node and healthy pods, a copy of the a3-mega tree, and helpers
# to start and stop the agent and to read the request log.
#   daemon_env_reexec NAME SCRIPT  outside the namespace: run `sh SCRIPT inner` in a fresh one with the
#                           a3-mega links and exit with its status (skip NAME without root or netns)
#   daemon_env_setup        sets $tmp, $state, $root, $SERVER, $NODE; starts the fake API (0, or 1 with a line);
#                           it serves DAEMON_ENV_API_SECONDS (600)
#   start_agent LOG ARGS... the agent on $root against the fake API ($agent_pid)
#   stop_agent              SIGTERM, wait: $stop_rc, $stop_ms
#   mark / reqs MARK        the request log's length now / its requests after MARK (daemon_requests.py lines)
#   patches MARK            the number of PATCHes after MARK
#   ctl JSON                a scripted change of the fake API (fakeapi.py ctl): its answer on stdout
#   now_ms                  a monotonic-enough clock in ms
#   (ok, nok, skip and wait_for come from tests/lib/tap.sh, which every script sources first)
#   daemon_env_cleanup      kills what was started, removes the files (trap it on EXIT)
# Env: TOPDIR, AGENT.

NODE=gke-a3mega-a3mega-pool-1a2b3c4d-x7k2
api_pid="" agent_pid="" root="" tmp=""

now_ms() { echo $(($(date +%s%N) / 1000000)); }

daemon_env_cleanup() {
	for p in $agent_pid $api_pid; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	[ -n "$tmp" ] && rm -rf "$tmp"
	[ -n "$root" ] && rm -rf "$root"
}

daemon_env_reexec() {
	. "$TOPDIR/tests/lib/netns.sh"
	if ! _why=$(netns_can_run 2>&1); then
		skip "$1" "$_why"
		exit 0
	fi
	if [ ! -x "$AGENT" ]; then
		nok "$1" "$AGENT is not built"
		exit 1
	fi
	netns_run "$TOPDIR/fixtures/a3-mega/links.spec" sh "$2" inner
	_rc=$?
	[ $_rc = 3 ] && nok "$1" "the a3-mega links could not be built"
	exit $_rc
}

daemon_env_setup() {
	. "$TOPDIR/tests/lib/devnodes.sh"
	. "$TOPDIR/tests/lib/scenario.sh"
	unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT NODE_NAME
	ip link set lo up || { nok "daemon-env" "cannot bring up lo in the namespace"; return 1; }
	tmp=$(mktemp -d /dev/shm/tcpxo-daemonf.XXXXXX) || return 1
	state=$tmp/state
	mkdir -p "$state"
	if ! sh "$TOPDIR/tests/lib/certs.sh" "$tmp/certs" >/dev/null 2>&1; then
		nok "daemon-env" "tests/lib/certs.sh failed"; return 1
	fi
	printf 'tok-one\n' >"$state/token"
	printf 'tok-one\n' >"$tmp/token"
	# The fixture node's GKE annotations, with eth0 at the address the a3-mega links.spec gives it.
	/usr/bin/python3 - "$TOPDIR/fixtures/kube/node-a3mega.json" "$state/node.json" <<'PY' || return 1
import sys
text = open(sys.argv[1]).read().replace("10.128.0.41", "10.128.0.2")
open(sys.argv[2], "w").write(text)
PY
	cp "$state/node.json" "$tmp/node.json"
	cp "$TOPDIR/fixtures/kube/pods-healthy.json" "$state/pods.json"
	/usr/bin/python3 "$TOPDIR/tests/lib/fakeapi.py" --state "$state" --port-file "$tmp/port" \
		--cert "$tmp/certs/server.crt" --key "$tmp/certs/server.key" --max-seconds "${DAEMON_ENV_API_SECONDS:-600}" \
		2>"$tmp/fakeapi.err" &
	api_pid=$!
	_i=0
	while [ ! -s "$tmp/port" ] && [ $_i -lt 100 ]; do sleep 0.05; _i=$((_i + 1)); done
	if [ ! -s "$tmp/port" ]; then
		echo "not ok daemon-env: the fake API server did not start: $(head -c 300 "$tmp/fakeapi.err")"; return 1
	fi
	SERVER=https://127.0.0.1:$(cat "$tmp/port")
	root=$(scenario_prepare a3-mega) || { nok "daemon-env" "cannot copy the a3-mega tree"; return 1; }
	return 0
}

ctl() { /usr/bin/python3 "$TOPDIR/tests/lib/fakeapi.py" ctl --port-file "$tmp/port" --ca "$tmp/certs/ca.crt" \
	--token-file "$state/token" "$@"; }
mark() { if [ -f "$state/requests.log" ]; then wc -l <"$state/requests.log"; else echo 0; fi; }
reqs() { /usr/bin/python3 "$TOPDIR/tests/lib/daemon_requests.py" "$state/requests.log" "$1"; }
patches() { reqs "$1" | grep -c '^PATCH'; }

start_agent() {  # LOG ARGS...
	_log=$1; shift
	"$AGENT" --root "$root" --node "$NODE" --api-server "$SERVER" --token-file "$tmp/token" \
		--ca-file "$tmp/certs/ca.crt" --start-jitter 0 --health-file "$tmp/health" "$@" 2>"$_log" &
	agent_pid=$!
}

stop_agent() {
	_t0=$(now_ms)
	kill -TERM "$agent_pid"
	wait "$agent_pid"
	stop_rc=$?
	stop_ms=$(($(now_ms) - _t0))
	agent_pid=""
}

