#!/bin/sh
# test_http_get.sh - the HTTP client (via tests/helpers/http-get) and tests/lib/fakeapi.py end to end.
# Env: TOPDIR (repo root), BUILD (build dir). Contacts 127.0.0.1 only.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOPDIR/$BUILD ;; esac
GET=$BUILD/tests/helpers/http-get
PY=/usr/bin/python3
FAKEAPI=$TOPDIR/tests/lib/fakeapi.py
TOKEN=tcpxo-integration-SECRET-0b7e41d9c3
failed=0


for tool in "$PY" openssl; do
	if ! command -v "$tool" >/dev/null 2>&1; then
		skip "http" "$tool not installed"
		exit 0
	fi
done
if [ ! -x "$GET" ]; then
	nok build "missing $GET (make $BUILD/tests/helpers/http-get)"
	exit 1
fi

base=/dev/shm
[ -d "$base" ] && [ -w "$base" ] || base=/tmp
T=$(mktemp -d "$base/tcpxo-http-it.XXXXXX") || exit 1
pids=""
cleanup() {
	for p in $pids; do kill "$p" 2>/dev/null; done
	for p in $pids; do wait "$p" 2>/dev/null; done
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

sh "$TOPDIR/tests/lib/certs.sh" "$T/certs" || { nok certs "certs.sh failed"; exit 1; }
printf '%s\n' "$TOKEN" >"$T/token"
cat >"$T/node.json" <<'EOF'
{"apiVersion": "v1", "kind": "Node",
 "metadata": {"name": "gke-a3mega-pool-1a2b", "resourceVersion": "41",
  "labels": {"node.kubernetes.io/instance-type": "a3-megagpu-8g", "pool": "a3"},
  "annotations": {"fabric.aicr.run/profile": "none", "other": "kept"}}}
EOF
cat >"$T/nodes.json" <<'EOF'
{"kind": "NodeList", "apiVersion": "v1", "items": [
 {"metadata": {"name": "n1", "labels": {"pool": "a3", "zone": "z1"}}},
 {"metadata": {"name": "n2", "labels": {"pool": "a3"}}},
 {"metadata": {"name": "n3", "labels": {"pool": "cpu", "zone": "z1"}}},
 {"metadata": {"name": "n4", "labels": {"pool": "a3", "zone": "z2"}}}]}
EOF

# start_server STEM PORTFILE: background fakeapi; sets $port.
start_server() {
	"$PY" "$FAKEAPI" --state "$T" --port-file "$T/$2" --cert "$T/certs/$1.crt" \
		--key "$T/certs/$1.key" --max-seconds 120 2>>"$T/server.err" &
	pids="$pids $!"
	i=0
	while [ ! -s "$T/$2" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
	port=$(cat "$T/$2" 2>/dev/null)
	[ -n "$port" ]
}

start_server server port || { nok start "fakeapi did not start: $(cat "$T/server.err")"; exit 1; }
P=$port
start_server wrongname port2 || { nok start "second fakeapi did not start"; exit 1; }
P2=$port

# hg ARGS...: run http-get against the main server; stdout -> $T/out, stderr -> $T/err.
# Every output is also kept in $T/all for the token check at the end.
hg() {
	"$GET" --server "https://127.0.0.1:$P" --token-file "$T/token" --ca-file "$T/certs/ca.crt" "$@" \
		>"$T/out" 2>"$T/err"
	rc=$?
	cat "$T/out" "$T/err" >>"$T/all"
	return $rc
}
has() { grep -q -- "$1" "$T/$2"; }
logn() { if [ -f "$T/requests.log" ]; then wc -l <"$T/requests.log" | tr -d ' '; else echo 0; fi; }
lastlog() {  # lastlog KEY: that field of the last request.log line
	tail -n 1 "$T/requests.log" | "$PY" -c 'import json,sys; v=json.loads(sys.stdin.read())[sys.argv[1]]; print("" if v is None else v)' "$1"
}
faults() { printf '%s\n' "$1" >"$T/faults.tmp" && mv "$T/faults.tmp" "$T/faults"; }

# --- cases -----------------------------------------------------------------------------
if hg --get-node gke-a3mega-pool-1a2b && has '"name": "gke-a3mega-pool-1a2b"' out &&
   has 'status=200 attempts=1' err && [ "$(lastlog auth)" = ok ]; then
	ok get_node
else
	nok get_node "$(cat "$T/err")"
fi

n=$(logn)
if hg --repeat 3 --get-node gke-a3mega-pool-1a2b &&
   [ "$(tail -n 3 "$T/requests.log" | "$PY" -c 'import json,sys; print(len({json.loads(l)["peer"] for l in sys.stdin}))')" = 1 ] &&
   [ "$(logn)" -eq $((n + 3)) ]; then
	ok keepalive_one_connection
else
	nok keepalive_one_connection "three requests did not share one connection"
fi

n=$(logn)
if ! "$GET" --server "http://127.0.0.1:$P" --token-file "$T/token" /api/v1/nodes >"$T/out" 2>"$T/err" &&
   has 'must start with https://' err && [ "$(logn)" -eq "$n" ]; then
	ok plain_http_refused
else
	nok plain_http_refused "$(cat "$T/err")"
fi
cat "$T/out" "$T/err" >>"$T/all"

n=$(logn)
if ! hg --ca-file "$T/certs/other-ca.crt" --get-node gke-a3mega-pool-1a2b && has 'rc=-71 (EPROTO)' err &&
   has 'attempts=1' err && [ "$(logn)" -eq "$n" ]; then
	ok wrong_ca_refused
else
	nok wrong_ca_refused "$(cat "$T/err")"
fi

if ! "$GET" --server "https://127.0.0.1:$P2" --token-file "$T/token" --ca-file "$T/certs/ca.crt" \
	--get-node gke-a3mega-pool-1a2b >"$T/out" 2>"$T/err" && has 'EPROTO' err &&
   [ "$(logn)" -eq "$n" ]; then
	ok wrong_name_refused
else
	nok wrong_name_refused "$(cat "$T/err")"
fi
cat "$T/out" "$T/err" >>"$T/all"

patch='{"metadata":{"annotations":{"fabric.aicr.run/profile":"tcpxo","fabric.aicr.run/ready":"true","other":null}}}'
if hg --patch-node gke-a3mega-pool-1a2b --body "$patch" &&
   [ "$(lastlog method)" = PATCH ] && [ "$(lastlog contentType)" = application/merge-patch+json ] &&
   [ "$(lastlog body)" = "$patch" ] &&
   "$PY" - "$T/node.json" <<'EOF'
import json, sys
n = json.load(open(sys.argv[1]))
a = n["metadata"]["annotations"]
assert a == {"fabric.aicr.run/profile": "tcpxo", "fabric.aicr.run/ready": "true"}, a
assert n["metadata"]["resourceVersion"] == "42", n["metadata"]
assert n["metadata"]["labels"]["pool"] == "a3"
EOF
then
	ok patch_merge_applied
else
	nok patch_merge_applied "$(cat "$T/err")"
fi

if ! hg --method PATCH --content-type application/json --body '{}' /api/v1/nodes/gke-a3mega-pool-1a2b &&
   has 'status=415 attempts=1' err; then
	ok patch_wrong_content_type_415
else
	nok patch_wrong_content_type_415 "$(cat "$T/err")"
fi

if ! hg --patch-node gke-a3mega-pool-1a2b --body '{"metadata":{"annotations":{"x":1}}}' &&
   has 'status=422' err; then
	ok patch_non_string_annotation_422
else
	nok patch_non_string_annotation_422 "$(cat "$T/err")"
fi

names() { "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(",".join(i["metadata"]["name"] for i in d["items"]), d["metadata"].get("continue", ""))' <"$T/out"; }
if hg --list-nodes --selector 'pool=a3,zone' && [ "$(names)" = "n1,n4 " ] &&
   hg --list-nodes --selector 'pool!=cpu,!zone' && [ "$(names)" = "n2 " ] &&
   hg --list-nodes --selector 'zone==z1' && [ "$(names)" = "n1,n3 " ]; then
	ok list_nodes_label_selector
else
	nok list_nodes_label_selector "got '$(names 2>&1)' $(cat "$T/err")"
fi

pages="" cont="" ok_paging=1
for i in 1 2 3 4; do
	if [ -n "$cont" ]; then hg --list-nodes --limit 1 --continue "$cont" || ok_paging=0
	else hg --list-nodes --limit 1 || ok_paging=0; fi
	set -- $(names)
	pages="$pages$1;"
	cont=${2:-}
	[ -n "$cont" ] || break
done
if [ $ok_paging = 1 ] && [ "$pages" = "n1;n2;n3;n4;" ] && [ -z "$cont" ] &&
   ! hg --list-nodes --limit 1 --continue 'bm90LWEtdG9rZW4' && has 'status=410' err; then
	ok list_nodes_paging_and_410
else
	nok list_nodes_paging_and_410 "pages '$pages' $(cat "$T/err")"
fi

if hg --list-pods gke-a3mega-pool-1a2b && [ "$(lastlog query)" = 'fieldSelector=spec.nodeName%3Dgke-a3mega-pool-1a2b' ]; then
	ok list_pods_field_selector
else
	nok list_pods_field_selector "$(cat "$T/err")"
fi

n=$(logn)
if ! hg --get-node 'a/../../x' && has 'invalid node name' err && [ "$(logn)" -eq "$n" ]; then
	ok bad_node_name_not_sent
else
	nok bad_node_name_not_sent "$(cat "$T/err")"
fi

faults '{"mode":"429","retry_after":1,"count":1}'
if hg --get-node gke-a3mega-pool-1a2b && has 'attempts=2 retry_after=1' err; then
	ok retry_after_honoured
else
	nok retry_after_honoured "$(cat "$T/err")"
fi

faults '{"rate_limit":2}'
if hg --repeat 5 --get-node gke-a3mega-pool-1a2b && has 'retry_after=1' err &&
   [ "$(grep -c 'rc=0 ' "$T/err")" = 5 ]; then
	ok rate_limit_429_then_success
else
	nok rate_limit_429_then_success "$(cat "$T/err")"
fi

faults '{"mode":"500"}'
start=$(date +%s)
if ! hg --max-total-ms 2000 --max-attempts 50 --get-node gke-a3mega-pool-1a2b && has 'status=500' err &&
   has 'gave up' err && [ $(($(date +%s) - start)) -le 4 ]; then
	ok server_error_bounded
else
	nok server_error_bounded "$(cat "$T/err")"
fi

faults '{"mode":"403","method":"PATCH"}'
if hg --get-node gke-a3mega-pool-1a2b && ! hg --patch-node gke-a3mega-pool-1a2b --body '{}' &&
   has 'status=403 attempts=1' err; then
	ok fault_narrowed_by_method
else
	nok fault_narrowed_by_method "$(cat "$T/err")"
fi
rm -f "$T/faults"

# A rotated token (written the kubelet's way: new file, rename) is used by the next request.
printf '%s-rotated\n' "$TOKEN" >"$T/token.new" && mv "$T/token.new" "$T/token"
if hg --get-node gke-a3mega-pool-1a2b && has 'attempts=1' err && [ "$(lastlog auth)" = ok ]; then
	ok token_rotation
else
	nok token_rotation "$(cat "$T/err")"
fi

# The token never appears in anything the client printed, nor in the request log.
if grep -qF "$TOKEN" "$T/all" "$T/requests.log" "$T/server.err"; then
	nok token_never_printed "found the token in output"
else
	ok token_never_printed
fi

# The server's lifetime: SIGTERM, and the death of its parent.
"$PY" "$FAKEAPI" --state "$T" --port-file "$T/port3" --cert "$T/certs/server.crt" \
	--key "$T/certs/server.key" --max-seconds 60 &
p3=$!
i=0; while [ ! -s "$T/port3" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done
kill -TERM $p3
i=0; while kill -0 $p3 2>/dev/null && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
if kill -0 $p3 2>/dev/null; then nok fakeapi_sigterm "still running"; kill -9 $p3; else ok fakeapi_sigterm; fi
wait $p3 2>/dev/null

sh -c '"$1" "$2" --state "$3" --port-file "$3/port4" --cert "$3/certs/server.crt" --key "$3/certs/server.key" --max-seconds 60 &
echo $! >"$3/pid4"; i=0; while [ ! -s "$3/port4" ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done' \
	sh "$PY" "$FAKEAPI" "$T"
p4=$(cat "$T/pid4")
i=0; while kill -0 "$p4" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.02; i=$((i + 1)); done
if kill -0 "$p4" 2>/dev/null; then nok fakeapi_parent_death "still running"; kill -9 "$p4"; else ok fakeapi_parent_death; fi

exit $failed
