# api_scenario.sh - run `tcpxo-agent` against tests/lib/fakeapi.py inside a fixture scenario's network namespace.
#
# Source after tests/lib/netns.sh, tests/lib/devnodes.sh and tests/lib/scenario.sh; needs root (netns_can_run).
#
#   api_init                  make $API_TMP (tmpfs when possible) with certs in $API_TMP/certs; call once
#   api_state NODE PODS [NETS] fresh state dir $API_STATE from fixtures/kube/NODE (.json), PODS and
#                             optionally NETS (no networks.json when absent: the server answers 404);
#                             a new token in $API_STATE/token; clears requests.log and faults
#   api_root SCENARIO         prepare (once per scenario) a private copy of fixtures/SCENARIO: sets $API_ROOT
#   api_run SCENARIO ARGS...  in a fresh namespace with SCENARIO's links (lo up), start fakeapi on 127.0.0.1
#                             there, run `$TCPXO_AGENT ARGS... --root $API_ROOT --api-server https://127.0.0.1:PORT
#                             --token-file $API_STATE/token --ca-file $API_TMP/certs/ca.crt --node $API_NODE`,
#                             stop the server. stdout -> $API_TMP/out, stderr -> $API_TMP/err,
#                             exit status -> $API_RC, seconds (wall, agent only) -> $API_WALL.
#                             API_NOSERVER=1: start no server (the port given is one nobody listens on).
#   api_requests [FILTER]     the requests the server logged since api_state / api_log_reset, one JSON a line
#   api_log_reset             forget the logged requests
#   api_describe              print the node's annotations the way `kubectl describe node` shows them
#   api_done                  remove $API_TMP and every scenario root
#
# The node name is that of the node JSON ($API_NODE). The agent and the server share the namespace, so
# nothing but 127.0.0.1 in it can be reached; the server exits with its parent shell.

API_PY=/usr/bin/python3
API_FAKE=$TOPDIR/tests/lib/fakeapi.py
API_TMP=
API_STATE=
API_ROOT=
API_NODE=
API_RC=
API_WALL=
_api_roots=

api_init() {
	# The server listens on 127.0.0.1 inside each scenario's namespace: netns_run brings lo up.
	NETNS_LOOPBACK=up
	export NETNS_LOOPBACK
	_ai_base=/dev/shm
	[ -d "$_ai_base" ] && [ -w "$_ai_base" ] || _ai_base=/tmp
	API_TMP=$(mktemp -d "$_ai_base/tcpxo-api.XXXXXX") || return 1
	sh "$TOPDIR/tests/lib/certs.sh" "$API_TMP/certs" >/dev/null 2>&1 || {
		echo "api_init: tests/lib/certs.sh failed" >&2
		return 1
	}
	API_STATE=$API_TMP/state
}

# _api_json FILE EXPR: print EXPR evaluated on the JSON document d in FILE (a python expression).
_api_json() {
	"$API_PY" -c 'import json, sys; d = json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"
}

api_state() {
	_as_kube=$TOPDIR/fixtures/kube
	rm -rf "$API_STATE"
	mkdir -p "$API_STATE" || return 1
	cp "$_as_kube/$1.json" "$API_STATE/node.json" || return 1
	cp "$_as_kube/$2.json" "$API_STATE/pods.json" || return 1
	if [ -n "${3:-}" ]; then
		cp "$_as_kube/$3.json" "$API_STATE/networks.json" || return 1
	fi
	# A token unique per state, so a test can look for it in the agent's output.
	printf 'tcpxo-e2e-token-%s-%s\n' "$$" "$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')" >"$API_STATE/token"
	chmod 0600 "$API_STATE/token"
	API_NODE=$(_api_json "$API_STATE/node.json" 'd["metadata"]["name"]') || return 1
}

api_root() {
	eval "API_ROOT=\${_api_root_$(echo "$1" | tr -c 'A-Za-z0-9\n' _):-}"
	if [ -n "$API_ROOT" ] && [ -d "$API_ROOT" ]; then
		return 0
	fi
	API_ROOT=$(SCENARIO_TMP=$API_TMP scenario_prepare "$1") || return 1
	eval "_api_root_$(echo "$1" | tr -c 'A-Za-z0-9\n' _)=\$API_ROOT"
	_api_roots="$_api_roots $API_ROOT"
}

# The command netns_run runs in the scenario's namespace: bring the server up, run the agent, stop it.
# $1 state, $2 certs dir, $3 work dir, $4 fakeapi.py, then the agent command line.
_API_INNER='
state=$1 certs=$2 work=$3 fake=$4
shift 4
rm -f "$work/port"
srv=
if [ "${API_NOSERVER:-0}" = 1 ]; then
	# A port nobody listens on: bind and close one (loopback only, this namespace only).
	port=$(/usr/bin/python3 -c "import socket; s = socket.socket(); s.bind((\"127.0.0.1\", 0)); print(s.getsockname()[1])")
else
	/usr/bin/python3 "$fake" --state "$state" --port-file "$work/port" --cert "$certs/server.crt" \
		--key "$certs/server.key" --max-seconds 300 2>>"$work/fakeapi.err" &
	srv=$!
	i=0
	while [ ! -s "$work/port" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
	if [ ! -s "$work/port" ]; then
		echo "api_run: the fake API server did not start: $(head -c 300 "$work/fakeapi.err")" >&2
		kill "$srv" 2>/dev/null
		exit 125
	fi
	port=$(cat "$work/port")
fi
t0=$(date +%s.%N)
"$@" --api-server "https://127.0.0.1:$port" --token-file "$state/token" --ca-file "$certs/ca.crt" \
	>"$work/out" 2>"$work/err"
rc=$?
t1=$(date +%s.%N)
echo "$t0 $t1" >"$work/wall"
if [ -n "$srv" ]; then
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null
fi
exit $rc
'

api_run() {
	_ar_name=$1
	shift
	api_root "$_ar_name" || { API_RC=125; return 125; }
	rm -f "$API_TMP/out" "$API_TMP/err" "$API_TMP/wall"
	netns_run "$TOPDIR/fixtures/$_ar_name/links.spec" sh -c "$_API_INNER" api-inner "$API_STATE" "$API_TMP/certs" "$API_TMP" "$API_FAKE" \
		"$TCPXO_AGENT" "$@" --root "$API_ROOT" --node "$API_NODE"
	API_RC=$?
	API_WALL=$(awk '{ printf "%.2f", $2 - $1 }' "$API_TMP/wall" 2>/dev/null)
	return 0
}

api_log_reset() {
	rm -f "$API_STATE/requests.log"
}

# api_requests [METHOD]: the logged requests (all, or those of METHOD), one compact JSON a line.
api_requests() {
	[ -f "$API_STATE/requests.log" ] || return 0
	if [ -n "${1:-}" ]; then
		grep "\"method\": \"$1\"" "$API_STATE/requests.log"
	else
		cat "$API_STATE/requests.log"
	fi
}

# Print the annotations of the node in $API_STATE/node.json as `kubectl describe node` does
# (kubectl's printAnnotationsMultiline): keys sorted; "key: value" when it fits in 140 characters
# and has no newline, else "key:" and the value's lines below, each cut at 138 characters + "...";
# the label column is 20 wide, as the tabwriter pads it for the node's header ("CreationTimestamp:").
api_describe() {
	"$API_PY" - "$API_STATE/node.json" <<'EOF'
import json, sys
MAX = 140
ann = json.load(open(sys.argv[1]))["metadata"].get("annotations") or {}
keys = sorted(k for k in ann if k != "kubectl.kubernetes.io/last-applied-configuration")
col = "%-20s"
if not keys:
    print(col % "Annotations:" + "<none>")
for i, k in enumerate(keys):
    lead = col % ("Annotations:" if i == 0 else "")
    v = ann[k][:-1] if ann[k].endswith("\n") else ann[k]
    if len(v) + len(k) + 2 > MAX or "\n" in v:
        print(lead + k + ":")
        for line in v.split("\n"):
            print(col % "" + "  " + (line[:MAX - 2] + "..." if len(line) > MAX - 2 else line))
    else:
        print(lead + k + ": " + v)
EOF
}

api_done() {
	for _ad_r in $_api_roots; do
		rm -rf "$_ad_r"
	done
	[ -n "$API_TMP" ] && rm -rf "$API_TMP"
	API_TMP=
}
