#!/bin/sh
# test_interfaces_api.sh - `tcpxo-agent interfaces` over the API: paging, selector, errors, against tests/lib/fakeapi.py.
# The fake API (tests/lib/fakeapi.py) is part of the tree: without it this script fails, never skips.
# Env: TOPDIR (repo root), BUILD, TCPXO_AGENT (the binary). Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
FIX=$TOPDIR/fixtures/nodelists
FAKEAPI=$TOPDIR/tests/lib/fakeapi.py
failed=0

if [ ! -f "$FAKEAPI" ]; then
	nok "interfaces-api" "$FAKEAPI is missing (it is part of the tree)"
	exit 1
fi
if [ ! -x "$AGENT" ]; then
	nok "interfaces-api" "$AGENT is not built"
	exit 1
fi
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
tmp=$(mktemp -d "$base/tcpxo-ifaces-api.XXXXXX") || exit 2
api_pid=""
cleanup() {
	[ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null && wait "$api_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT

state=$tmp/state
mkdir -p "$state"
if ! sh "$TOPDIR/tests/lib/certs.sh" "$tmp/certs" >/dev/null 2>&1; then
	nok "interfaces-api" "tests/lib/certs.sh failed"
	exit 1
fi
printf 'tok-%s\n' "$$" >"$state/token"
cp "$FIX/coherent-16.json" "$state/nodes.json"
/usr/bin/python3 "$FAKEAPI" --state "$state" --port-file "$tmp/port" --cert "$tmp/certs/server.crt" \
	--key "$tmp/certs/server.key" --max-seconds 300 2>"$tmp/fakeapi.err" &
api_pid=$!
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i + 1)); done
if [ ! -s "$tmp/port" ]; then
	echo "not ok interfaces-api: the fake API server did not start: $(head -c 300 "$tmp/fakeapi.err")"
	exit 1
fi
SERVER=https://127.0.0.1:$(cat "$tmp/port")

api() {  # the agent's interfaces command against the fake API, with ARGS
	"$AGENT" interfaces --api-server "$SERVER" --token-file "$state/token" --ca-file "$tmp/certs/ca.crt" "$@"
}

check() {  # NAME RC GOT_RC: compare out/err with want.out/want.err
	name=$1 want_rc=$2 got_rc=$3
	why=""
	[ "$got_rc" = "$want_rc" ] || why="exit $got_rc, want $want_rc"
	cmp -s "$tmp/out" "$tmp/want.out" || why="${why:+$why; }stdout differs: $(diff "$tmp/want.out" "$tmp/out" | head -n 6 | tr '\n' '|')"
	cmp -s "$tmp/err" "$tmp/want.err" || why="${why:+$why; }stderr differs: $(diff "$tmp/want.err" "$tmp/err" | head -n 6 | tr '\n' '|')"
	if [ -z "$why" ]; then ok "$name"; else nok "$name" "$why"; fi
}

# requests NAME: the GET /api/v1/nodes queries the server received since the last call, one a line.
requests() {
	[ -f "$state/requests.log" ] || { : >"$tmp/queries"; return; }
	/usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["method"] == "GET" and r["path"] == "/api/v1/nodes":
        print(r["query"])' "$state/requests.log" >"$tmp/queries"
	rm -f "$state/requests.log"
}

X=gke-train-a3mega-5c1e7a90
MAPPING='eth1=gpu-nic-0,eth2=gpu-nic-1,eth3=gpu-nic-2,eth4=gpu-nic-3,eth5=gpu-nic-4,eth6=gpu-nic-5,eth7=gpu-nic-6,eth8=gpu-nic-7'

# --- 16 coherent nodes: one page ---
rm -f "$state/requests.log"
printf '%s\n' "$MAPPING" >"$tmp/want.out"
printf 'coherent: 16 TCPXO nodes carry the same mapping\n' >"$tmp/want.err"
api >"$tmp/out" 2>"$tmp/err"
check api-coherent 0 $?
requests
if [ "$(cat "$tmp/queries")" = "limit=500" ]; then ok "api-one-page"; else
	echo "not ok api-one-page: queries: $(tr '\n' '|' <"$tmp/queries")"; failed=1; fi

# --- 1,200 nodes: three pages of 500 through continue tokens ---
if /usr/bin/python3 "$FIX/gen.py" --big 1200 --disagree 2 --out "$state/nodes.json"; then
	: >"$tmp/want.out"
	printf 'eth2: 1198 nodes → gpu-nic-1, 2 nodes → gpu-nic-9 (%s-4d1z, %s-59uz)\nincoherent: 1200 TCPXO nodes: mappings differ on 1 interface; no mapping printed\n' "$X" "$X" >"$tmp/want.err"
	api >"$tmp/out" 2>"$tmp/err"
	check api-paged-1200 1 $?
	requests
	if [ "$(wc -l <"$tmp/queries")" -eq 3 ] && [ "$(sed -n 1p "$tmp/queries")" = "limit=500" ] &&
	   sed -n '2,3p' "$tmp/queries" | grep -q '^limit=500&continue=..*' &&
	   [ "$(sed -n 2p "$tmp/queries")" != "$(sed -n 3p "$tmp/queries")" ]; then
		ok "api-paged-continue"
	else
		echo "not ok api-paged-continue: queries: $(tr '\n' '|' <"$tmp/queries" | head -c 400)"
		failed=1
	fi
else
	nok "api-paged-1200" "gen.py failed"
fi

# --- --selector: the server filters, the agent percent-encodes ---
cp "$FIX/mixed.json" "$state/nodes.json"
printf '%s\n' "$MAPPING" >"$tmp/want.out"
printf 'coherent: 16 TCPXO nodes carry the same mapping (not counted: 1 none)\n' >"$tmp/want.err"
api --selector cloud.google.com/gke-nodepool=a3mega >"$tmp/out" 2>"$tmp/err"
check api-selector 0 $?
requests
if [ "$(cat "$tmp/queries")" = "limit=500&labelSelector=cloud.google.com%2Fgke-nodepool%3Da3mega" ]; then
	ok "api-selector-query"
else
	echo "not ok api-selector-query: queries: $(tr '\n' '|' <"$tmp/queries")"
	failed=1
fi
printf 'coherent: 16 TCPXO nodes carry the same mapping (not counted: 4 tcpx, 1 none, 3 other)\n' >"$tmp/want.err"
api >"$tmp/out" 2>"$tmp/err"
check api-no-selector 0 $?

# --- incoherent through the API: same diagnostics as from a file ---
cp "$FIX/not-ready-1.json" "$state/nodes.json"
: >"$tmp/want.out"
printf 'not ready: 1 node (%s-0q2e)\n  version-pair: 1 node (%s-0q2e): daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)\nincoherent: 16 TCPXO nodes: 1 not ready; no mapping printed\n' "$X" "$X" >"$tmp/want.err"
api --format yaml >"$tmp/out" 2>"$tmp/err"
check api-not-ready 1 $?

# --- unknown (exit 2): the API refuses, answers garbage, or is not there ---
expect_error() {  # NAME PATTERN: exit 2, nothing on stdout, stderr matches PATTERN (grep -E)
	rc=$1 name=$2 pattern=$3
	if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -Eq "$pattern" "$tmp/err"; then
		ok "$name"
	else
		echo "not ok $name: exit $rc, stdout $(wc -c <"$tmp/out") bytes, stderr: $(head -c 300 "$tmp/err" | tr '\n' '|')"
		failed=1
	fi
}
cp "$FIX/coherent-16.json" "$state/nodes.json"
printf '{"mode": "403", "path": "/api/v1/nodes"}' >"$state/faults"
api >"$tmp/out" 2>"$tmp/err"
expect_error $? api-forbidden '^tcpxo-agent: interfaces: .*403.*\(the credentials need get and list on nodes\)$'
printf '{"mode": "invalid", "path": "/api/v1/nodes"}' >"$state/faults"
api >"$tmp/out" 2>"$tmp/err"
expect_error $? api-invalid-json '^tcpxo-agent: interfaces: GET /api/v1/nodes: page 1: '
rm -f "$state/faults"
printf 'wrong-token\n' >"$tmp/wrong-token"
"$AGENT" interfaces --api-server "$SERVER" --token-file "$tmp/wrong-token" --ca-file "$tmp/certs/ca.crt" \
	>"$tmp/out" 2>"$tmp/err"
expect_error $? api-unauthorized '^tcpxo-agent: interfaces: .*401.*\(the credentials need get and list on nodes\)$'
if grep -q 'wrong-token\|tok-' "$tmp/err"; then nok "api-token-not-logged" "the token reached stderr"
else ok "api-token-not-logged"; fi
"$AGENT" interfaces --api-server "$SERVER" --token-file "$state/token" --ca-file "$tmp/certs/other-ca.crt" \
	>"$tmp/out" 2>"$tmp/err"
expect_error $? api-wrong-ca '^tcpxo-agent: interfaces: .*/api/v1/nodes'
"$AGENT" interfaces --api-server "http://127.0.0.1:$(cat "$tmp/port")" --token-file "$state/token" \
	>"$tmp/out" 2>"$tmp/err"
expect_error $? api-plain-http '^tcpxo-agent: interfaces: API client: '

# Unreachable: stop the server, then ask its port (retries back off within the client's bounds).
kill "$api_pid" 2>/dev/null
wait "$api_pid" 2>/dev/null
api_pid=""
api >"$tmp/out" 2>"$tmp/err"
expect_error $? api-unreachable '^tcpxo-agent: interfaces: .*/api/v1/nodes'

exit $failed
