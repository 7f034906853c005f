# api_scenario.sh - run `tcpxo-agent` against tests/lib/fakeapi.py inside a fixture scenario's network namespace.
#
# Source after tests/lib/netns.sh, tests/lib/devnodes.sh and tests/lib/scenario.sh; needs root (netns_can_run).
#
#   api_init                  make $API_TMP (tmpfs when possible) with certs in $API_TMP/certs; call once
#   api_state NODE PODS [NETS] fresh state dir $API_STATE from fixtures/kube/NODE (.json), PODS and
#                             optionally NETS (no networks.json when absent: the server answers 404);
#                             a new token in $API_STATE/token; clears requests.log and faults
#   api_root SCENARIO[:VARIANT]  prepare (once per name) a private copy of fixtures/SCENARIO: sets $API_ROOT;
#                             a VARIANT is another copy the caller may change (e.g. a3-mega:idle)
#   api_run SCENARIO[:VARIANT] ARGS...
#                             in a fresh namespace with SCENARIO's links (lo up), start fakeapi on 127.0.0.1
#                             there, run `$TCPXO_AGENT ARGS... --root $API_ROOT --api-server https://127.0.0.1:PORT
#                             --token-file $API_STATE/token --ca-file $API_TMP/certs/ca.crt --node $API_NODE`,
#                             stop the server. stdout -> $API_TMP/out, stderr -> $API_TMP/err,
#                             exit status -> $API_RC, seconds (wall, agent only) -> $API_WALL.
#                             API_NOSERVER=1: start no server (the port given is one nobody listens on).
#                             API_WRAP="CMD ARGS": run the agent under CMD (e.g. strace), word-split.
#   api_assert NAME <<'EOF'   python assertions about the last run (see below): prints ok / not ok NAME
#   api_fault JSON            set (or with "" remove) the server's faults file
#   api_token NEW             rotate the token; api_token_leaks prints output lines holding any token used
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
	if [ -n "${4:-}" ]; then
		cp "$_as_kube/$4.json" "$API_STATE/resourceslices.json" || return 1
	fi
	cp "$_as_kube/$1.json" "$API_TMP/node.orig.json" || return 1
	# A token unique per state, so a test can look for it in the agent's output.
	api_token "tcpxo-e2e-token-$$-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
	API_NODE=$(_api_json "$API_STATE/node.json" 'd["metadata"]["name"]') || return 1
}

api_root() {
	_ao_var=_api_root_$(printf '%s' "$1" | tr -c 'A-Za-z0-9' _)
	eval "API_ROOT=\${$_ao_var:-}"
	if [ -n "$API_ROOT" ] && [ -d "$API_ROOT" ]; then
		return 0
	fi
	API_ROOT=$(SCENARIO_TMP=$API_TMP scenario_prepare "${1%%:*}") || return 1
	eval "$_ao_var=\$API_ROOT"
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
${API_WRAP:-} "$@" --api-server "https://127.0.0.1:$port" --token-file "$state/token" --ca-file "$certs/ca.crt" \
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
	rm -f "$API_TMP/out" "$API_TMP/err" "$API_TMP/wall" "$API_STATE/requests.log"
	: >"$API_TMP/out"
	: >"$API_TMP/err"
	API_WALL=
	API_RC=125
	api_root "$_ar_name" || return 0
	# The tree and the node name only where the command uses them: any other option is refused.
	case " $* " in
	*" --cleanup "*) set -- "$@" --node "$API_NODE" ;;
	*) set -- "$@" --root "$API_ROOT" --node "$API_NODE" ;;
	esac
	netns_run "$TOPDIR/fixtures/${_ar_name%%:*}/links.spec" sh -c "$_API_INNER" api-inner \
		"$API_STATE" "$API_TMP/certs" "$API_TMP" "$API_FAKE" \
		"$TCPXO_AGENT" "$@" 2>>"$API_TMP/harness.err"
	API_RC=$?
	API_WALL=$(awk '{ printf "%.2f", $2 - $1 }' "$API_TMP/wall" 2>/dev/null)
	# Everything the agent printed, for the token check at the end.
	cat "$API_TMP/out" "$API_TMP/err" >>"$API_TMP/all"
	return 0
}

# api_token NEW: rotate the token (the agent's token file is the server's); every token is
# remembered for api_token_leaks.
api_token() {
	printf '%s\n' "$1" >"$API_STATE/token"
	chmod 0600 "$API_STATE/token"
	printf '%s\n' "$1" >>"$API_TMP/tokens"
}

# api_token_leaks: print the lines of the agent's output (all runs) that contain any token used.
api_token_leaks() {
	[ -s "$API_TMP/tokens" ] && [ -f "$API_TMP/all" ] || return 0
	grep -F -f "$API_TMP/tokens" "$API_TMP/all"
}

# api_fault JSON: the fake server's faults file (see fakeapi.py); api_fault "" removes it.
api_fault() {
	if [ -n "$1" ]; then
		printf '%s\n' "$1" >"$API_STATE/faults"
	else
		rm -f "$API_STATE/faults"
	fi
}

# The python side of api_assert: names the last run's facts, then runs the assertions.
_API_ASSERT_PY='
import json, os, re, sys
tmp, state, rc, wall, name, orig_path = sys.argv[1:7]

def read(p, default=""):
    try:
        with open(p) as f:
            return f.read()
    except FileNotFoundError:
        return default

harness = not os.path.exists(os.path.join(tmp, "wall"))
rc = int(rc)
wall = float(wall or 0)
out = read(os.path.join(tmp, "out"))
err = read(os.path.join(tmp, "err"))
lines = out.splitlines()
try:
    j = json.loads(out)
except ValueError:
    j = None
reqs = [json.loads(l) for l in read(os.path.join(state, "requests.log")).splitlines()]
patches = [r for r in reqs if r["method"] == "PATCH" and not r["path"].endswith("/status")]
status_patches = [r for r in reqs if r["method"] == "PATCH" and r["path"].endswith("/status")]
posts = [r for r in reqs if r["method"] == "POST"]
node = json.loads(read(os.path.join(state, "node.json"), "{}"))
ann = node.get("metadata", {}).get("annotations") or {}
labels = node.get("metadata", {}).get("labels") or {}
events = (json.loads(read(os.path.join(state, "events.json"), "{}") or "{}").get("items") or [])
orig = json.loads(read(orig_path, "{}"))
orig_ann = orig.get("metadata", {}).get("annotations") or {}
NODE = orig.get("metadata", {}).get("name")
PREFIX = "fabric.aicr.run/"
KEYS = ["profile", "runtime", "ready", "interfaces", "attachment"]


class Fail(Exception):
    pass


def eq(got, want, what):
    if got != want:
        raise Fail("%s: got %r, want %r" % (what, got, want))


def ok(cond, what):
    if not cond:
        raise Fail(what)


def check(cid):
    ok(j is not None, "stdout is not JSON")
    for c in j["checks"]:
        if c["id"] == cid:
            return c
    raise Fail("no check %s" % cid)


def patch_of(r):
    """The annotations a PATCH sets, after checking it is a merge patch of annotations and labels only."""
    eq(r["contentType"], "application/merge-patch+json", "PATCH Content-Type")
    body = json.loads(r["body"])
    eq(list(body), ["metadata"], "PATCH top-level keys")
    ok(set(body["metadata"]) <= {"annotations", "labels"}, "PATCH metadata keys: %r" % list(body["metadata"]))
    return body["metadata"].get("annotations", {})


def labels_of(r):
    """The labels a node PATCH sets (after the checks of patch_of)."""
    patch_of(r)
    return json.loads(r["body"])["metadata"].get("labels", {})


def status_of(r):
    """The FabricReady entry a status PATCH sets, after checking it is a strategic merge of that one condition."""
    eq(r["contentType"], "application/strategic-merge-patch+json", "status PATCH Content-Type")
    body = json.loads(r["body"])
    eq(list(body), ["status"], "status PATCH top-level keys")
    eq(list(body["status"]), ["conditions"], "status PATCH status keys")
    eq(len(body["status"]["conditions"]), 1, "status PATCH conditions")
    c = body["status"]["conditions"][0]
    eq(c.get("type"), "FabricReady", "condition type")
    return c


def condition():
    """The FabricReady condition on the node now (None when absent)."""
    found = [c for c in (node.get("status", {}).get("conditions") or []) if c.get("type") == "FabricReady"]
    return found[0] if found else None


def methods():
    return [(r["method"], r["path"]) for r in reqs]


def others(a, prefix=PREFIX):
    return {k: v for k, v in a.items() if not k.startswith(prefix)}


try:
    if harness:
        raise Fail("the harness failed (exit %d): %s" % (rc, read(os.path.join(tmp, "harness.err"))[-300:]))
    for r in reqs:
        eq(r["auth"], "ok", "auth of %s %s" % (r["method"], r["path"]))
    exec(compile(sys.stdin.read(), name, "exec"))
except (Fail, AssertionError, KeyError, IndexError, TypeError, ValueError) as e:
    why = str(e) if isinstance(e, Fail) else "%s: %s" % (type(e).__name__, e)
    print("not ok %s: %s [exit %d, %.2f s, stderr: %s]" % (name, why, rc, wall,
          err.strip().replace("\n", " | ")[:400]))
    sys.exit(1)
print("ok " + name)
'

# api_assert NAME: run the python assertions on stdin against the last api_run; print "ok NAME" or
# "not ok NAME: why" and return 1. The assertions see: rc, wall, out, err, lines (stdout's), j (stdout
# as JSON or None), reqs (this run's requests), patches (PATCHes of the node), status_patches
# (of nodes/N/status), posts (POSTs: Events), node (node.json now), ann and labels (its annotations
# and labels), events (events.json: every Event posted to this state), orig and orig_ann (the node
# fixture), NODE, PREFIX, KEYS; eq(got, want, what), ok(cond, what), check(id), patch_of(request)
# (the annotations it sets), labels_of(request), status_of(request) (the condition it sets),
# condition() (the node's FabricReady now), methods(), others(ann).
# Every request of the run must have carried the current token.
api_assert() {
	"$API_PY" -c "$_API_ASSERT_PY" "$API_TMP" "$API_STATE" "${API_RC:-125}" "${API_WALL:-0}" "$1" \
		"$API_TMP/node.orig.json"
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

# api_test_begin NAME - the common start of an API test script: skip (exit 0) without root/netns,
# python3 or openssl; fail without the binary; set up the API work dir (removed at exit) and clear
# the in-cluster environment. `a CASE` runs api_assert and sets failed=1 when it fails.
api_test_begin() {
	if ! _why=$(netns_can_run 2>&1); then
		skip "$1" "$_why"
		exit 0
	fi
	for _tool in /usr/bin/python3 openssl; do
		command -v "$_tool" >/dev/null 2>&1 || { skip "$1" "$_tool not installed"; exit 0; }
	done
	if [ ! -x "$TCPXO_AGENT" ]; then
		nok "$1" "$TCPXO_AGENT is not built"
		exit 1
	fi
	failed=0
	api_init || { nok "$1" "api_init failed"; exit 1; }
	trap 'api_done' EXIT
	trap 'exit 1' INT TERM
	unset KUBERNETES_SERVICE_HOST KUBERNETES_SERVICE_PORT NODE_NAME
}

a() { api_assert "$1" || failed=1; }
