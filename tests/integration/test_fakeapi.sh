#!/bin/sh
# test_fakeapi.sh - tests/lib/fakeapi.py held against real clients: kubectl (watch, strategic merge on
# nodes/status, Events, describe, RBAC and CRD answers) and raw HTTP checks of the watch protocol
# (order, resourceVersion, 410 both ways, bookmarks, timeoutSeconds, sendInitialEvents, selectors).
# kubectl cases are skipped when kubectl is not installed. Env: TOPDIR. Contacts 127.0.0.1 only.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
PY=/usr/bin/python3
FAKE=$TOPDIR/tests/lib/fakeapi.py
failed=0


for tool in "$PY" openssl; do
	command -v "$tool" >/dev/null 2>&1 || { skip "fakeapi" "$tool not installed"; exit 0; }
done
base=/tmp
[ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
T=$(mktemp -d "$base/tcpxo-fakeapi.XXXXXX") || exit 2
srv=
cleanup() {
	[ -n "$srv" ] && kill "$srv" 2>/dev/null && wait "$srv" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

sh "$TOPDIR/tests/lib/certs.sh" "$T/certs" >/dev/null 2>&1 || { nok fakeapi/certs "certs.sh failed"; exit 1; }
S=$T/state
mkdir -p "$S" "$T/home"
TOKEN="fakeapi-it-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
printf '%s\n' "$TOKEN" >"$S/token"
cp "$TOPDIR/fixtures/kube/node-a3mega.json" "$S/node.json"
cp "$TOPDIR/fixtures/kube/pods-healthy.json" "$S/pods.json"
cp "$TOPDIR/fixtures/kube/networks.json" "$S/networks.json"
NODE=$("$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["metadata"]["name"])' "$S/node.json")

"$PY" "$FAKE" --state "$S" --port-file "$T/port" --cert "$T/certs/server.crt" --key "$T/certs/server.key" \
	--max-seconds 300 2>"$T/server.err" &
srv=$!
i=0
while [ ! -s "$T/port" ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
[ -s "$T/port" ] || { nok fakeapi/start "the server did not start: $(head -c 300 "$T/server.err")"; exit 1; }
PORT=$(cat "$T/port")

# ctl JSON: one scripted change; settings JSON: the server's settings file.
ctl() { "$PY" "$FAKE" ctl --port-file "$T/port" --ca "$T/certs/ca.crt" --token-file "$S/token" "$1"; }
settings() { printf '%s\n' "$1" >"$S/settings.tmp" && mv "$S/settings.tmp" "$S/settings"; }
# nodeq EXPR: a python expression over the stored node n.
nodeq() { "$PY" -c 'import json,sys; n=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$S/node.json" "$1"; }
conds() { nodeq '",".join("%s=%s" % (c["type"], c["status"]) for c in n["status"].get("conditions", []))'; }

# ---- kubectl --------------------------------------------------------------------------------
if ! command -v kubectl >/dev/null 2>&1; then
	skip "fakeapi/kubectl" "kubectl not installed (the raw protocol checks below still run)"
else
	k() {
		HOME=$T/home kubectl --kubeconfig=/dev/null --cache-dir "$T/home/cache" --request-timeout=20s \
			--server "https://127.0.0.1:$PORT" --certificate-authority "$T/certs/ca.crt" --token "$TOKEN" "$@"
	}
	kver=$(k version --client -o json 2>/dev/null | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["clientVersion"]["gitVersion"])' 2>/dev/null)

	if [ "$(k get nodes -o name 2>"$T/k.err")" = "node/$NODE" ]; then
		ok "fakeapi/kubectl-get-nodes ($kver)"
	else
		nok fakeapi/kubectl-get-nodes "$(head -c 300 "$T/k.err")"
	fi

	# get -w: the list, then a watch from its resourceVersion; two changes arrive in order.
	k get nodes -w --output-watch-events \
		-o 'custom-columns=EVENT:.type,NAME:.object.metadata.name,RV:.object.metadata.resourceVersion,X:.object.metadata.labels.x' \
		>"$T/watch.out" 2>"$T/watch.err" &
	kw=$!
	ctl '{"op":"wait","watchers":1,"resource":"nodes","timeout":10}' >/dev/null
	ctl '{"op":"patch","resource":"nodes","name":"'"$NODE"'","patch":{"metadata":{"labels":{"x":"one"}}}}' >/dev/null
	k label node "$NODE" x=two --overwrite >/dev/null 2>>"$T/watch.err"
	i=0
	while [ "$(grep -c MODIFIED "$T/watch.out")" -lt 2 ] && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
	kill "$kw" 2>/dev/null
	wait "$kw" 2>/dev/null
	if "$PY" - "$T/watch.out" <<'EOF'
import sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
assert [r[0] for r in rows] == ["ADDED", "MODIFIED", "MODIFIED"], rows
assert [r[3] for r in rows] == ["<none>", "one", "two"], rows
rvs = [int(r[2]) for r in rows]
assert rvs == sorted(rvs) and len(set(rvs)) == 3, rvs
EOF
	then
		ok fakeapi/kubectl-watch-nodes
	else
		nok fakeapi/kubectl-watch-nodes "$(tr '\n' '|' <"$T/watch.out") $(head -c 200 "$T/watch.err")"
	fi

	# Strategic merge on the status subresource: merge by type, other conditions kept, $patch delete.
	cond='{"type":"FabricReady","status":"True","reason":"TCPXOReady","message":"ok","lastHeartbeatTime":"2026-01-20T10:00:00Z","lastTransitionTime":"2026-01-20T10:00:00Z"}'
	rv0=$(nodeq 'n["metadata"]["resourceVersion"]')
	k patch node "$NODE" --subresource=status --type=strategic -p '{"status":{"conditions":['"$cond"']}}' >/dev/null 2>"$T/k.err"
	c1=$(conds)
	k patch node "$NODE" --subresource=status --type=strategic \
		-p '{"status":{"conditions":[{"type":"FabricReady","status":"False","reason":"VersionPair"}]}}' >/dev/null 2>>"$T/k.err"
	c2=$(conds); r2=$(nodeq 'n["status"]["conditions"][1]["reason"] + "/" + n["status"]["conditions"][1]["message"]')
	rv2=$(nodeq 'n["metadata"]["resourceVersion"]')
	k patch node "$NODE" --subresource=status --type=strategic \
		-p '{"status":{"conditions":[{"type":"FabricReady","status":"False","reason":"VersionPair"}]}}' >/dev/null 2>>"$T/k.err"
	rv3=$(nodeq 'n["metadata"]["resourceVersion"]')
	k patch node "$NODE" --subresource=status --type=strategic \
		-p '{"status":{"conditions":[{"$patch":"delete","type":"FabricReady"}]}}' >/dev/null 2>>"$T/k.err"
	c4=$(conds)
	if [ "$c1" = "Ready=True,FabricReady=True" ] && [ "$c2" = "Ready=True,FabricReady=False" ] &&
	   [ "$r2" = "VersionPair/ok" ] && [ "$rv2" -gt "$rv0" ] && [ "$rv3" = "$rv2" ] && [ "$c4" = "Ready=True" ]; then
		ok "fakeapi/kubectl-patch-status-strategic (merge key type, fields merged, no-op is no write, \$patch delete)"
	else
		nok fakeapi/kubectl-patch-status-strategic "$c1 | $c2 | $r2 | rv $rv0 $rv2 $rv3 | $c4 | $(head -c 300 "$T/k.err")"
	fi

	# A merge patch would replace the list: refused by default, replaced with the real server's setting.
	if ! k patch node "$NODE" --subresource=status --type=merge -p '{"status":{"conditions":['"$cond"']}}' \
		>/dev/null 2>"$T/k.err" && grep -q 'status.conditions: Forbidden: fakeapi: a merge patch replaces' "$T/k.err" &&
	   [ "$(conds)" = "Ready=True" ]; then
		settings '{"status_merge_conditions":"replace"}'
		k patch node "$NODE" --subresource=status --type=merge -p '{"status":{"conditions":['"$cond"']}}' >/dev/null 2>&1
		if [ "$(conds)" = "FabricReady=True" ]; then
			ok "fakeapi/kubectl-patch-status-merge (refused by default; replaces the list like the real server when set)"
		else
			nok fakeapi/kubectl-patch-status-merge "replace mode left $(conds)"
		fi
		settings '{}'
		ctl '{"op":"patch","resource":"nodes","name":"'"$NODE"'","patch":{"status":{"conditions":[{"type":"Ready","status":"True"}]}}}' >/dev/null
	else
		nok fakeapi/kubectl-patch-status-merge "$(head -c 300 "$T/k.err") conditions $(conds)"
	fi

	k patch node "$NODE" --subresource=status --type=strategic -p '{"status":{"conditions":[{"$patch":"bogus","type":"X"}]}}' \
		>/dev/null 2>"$T/k1.err"
	k patch node "$NODE" --subresource=status --type=strategic -p '{"status":{"conditions":[{"status":"True"}]}}' \
		>/dev/null 2>"$T/k2.err"
	if grep -q '^Error from server: Unknown patch type: bogus in map:' "$T/k1.err" &&
	   grep -q '^Error from server: map: map\[status:True\] does not contain declared merge key: type' "$T/k2.err"; then
		ok "fakeapi/kubectl-patch-bad-directives (500 with strategicpatch's messages, as the real server)"
	else
		nok fakeapi/kubectl-patch-bad-directives "$(cat "$T/k1.err" "$T/k2.err" | head -c 300)"
	fi

	# The strategies: the main resource ignores status; the status subresource ignores spec.
	k patch node "$NODE" --type=strategic -p '{"metadata":{"labels":{"sm":"1","x":null}},"status":{"conditions":[]}}' \
		>/dev/null 2>"$T/k.err"
	k patch node "$NODE" --subresource=status --type=strategic -p '{"spec":{"unschedulable":true}}' >/dev/null 2>>"$T/k.err"
	if [ "$(nodeq 'n["metadata"]["labels"].get("sm"), "x" in n["metadata"]["labels"]')" = "('1', False)" ] &&
	   [ "$(conds)" = "Ready=True" ] && [ "$(nodeq 'n["spec"].get("unschedulable")')" = None ]; then
		ok "fakeapi/kubectl-patch-strategies (labels merged and removed with null; status, spec kept)"
	else
		nok fakeapi/kubectl-patch-strategies "labels $(nodeq 'n["metadata"]["labels"]') conds $(conds) $(head -c 200 "$T/k.err")"
	fi

	# Events: created (kubectl create, as the agent posts them), listed in both groups, shown by describe.
	cat >"$T/event.json" <<EOF
{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"$NODE.fabric1","namespace":"default"},
 "eventTime":"2026-01-20T10:00:00.000000Z","regarding":{"kind":"Node","name":"$NODE","uid":"$NODE","apiVersion":"v1"},
 "reason":"FabricNotReady","action":"Evaluate","note":"tcpxo: not ready: version-pair: skew","type":"Warning",
 "reportingController":"fabric.aicr.run/tcpxo-agent","reportingInstance":"$NODE"}
EOF
	k patch node "$NODE" --subresource=status --type=strategic -p '{"status":{"conditions":['"$cond"']}}' >/dev/null 2>&1
	if k create --validate=false -f "$T/event.json" >/dev/null 2>"$T/k.err" &&
	   k get events -o name 2>>"$T/k.err" | grep -qx "event/$NODE.fabric1" &&
	   k get events.events.k8s.io -o jsonpath='{.items[0].note}' 2>>"$T/k.err" | grep -q 'version-pair: skew' &&
	   k describe node "$NODE" >"$T/describe.out" 2>>"$T/k.err" &&
	   grep -Eq '^  FabricReady +True .* TCPXOReady +ok' "$T/describe.out" &&
	   grep -Eq '^  Warning +FabricNotReady .* fabric.aicr.run/tcpxo-agent +tcpxo: not ready: version-pair: skew' "$T/describe.out"; then
		ok "fakeapi/kubectl-events-and-describe (events.k8s.io/v1 in, core/v1 out; Conditions and Events in describe)"
	else
		nok fakeapi/kubectl-events-and-describe "$(head -c 300 "$T/k.err") $(grep -A4 -E 'Conditions|Events' "$T/describe.out" 2>/dev/null | tr '\n' '|' | head -c 400)"
	fi
	if ! k create --validate=false -f "$T/event.json" >/dev/null 2>"$T/k1.err" && grep -q 'AlreadyExists' "$T/k1.err" &&
	   "$PY" - "$T/event.json" "$T/bad.json" <<'EOF' && ! k create --validate=false -f "$T/bad.json" >/dev/null 2>"$T/k2.err" &&
import json, sys
e = json.load(open(sys.argv[1]))
e["metadata"]["name"] += ".bad"
for f in ("eventTime", "action"):
    del e[f]
e["type"], e["note"] = "Info", "n" * 1025
json.dump(e, open(sys.argv[2], "w"))
EOF
	   grep -q 'eventTime: Required value' "$T/k2.err" && grep -q 'action: Required value' "$T/k2.err" &&
	   grep -q 'type: Invalid value: "Info"' "$T/k2.err" && grep -q 'note: Invalid value: "": can have at most 1024' "$T/k2.err"; then
		ok "fakeapi/kubectl-event-validation (409 AlreadyExists; 422 names eventTime, action, type, note)"
	else
		nok fakeapi/kubectl-event-validation "$(cat "$T/k1.err" "$T/k2.err" 2>/dev/null | head -c 400)"
	fi

	# RBAC and a missing CRD, as the real server answers them.
	settings '{"forbidden":["networks"]}'
	k get networks.networking.gke.io >/dev/null 2>"$T/k1.err"
	settings '{}'
	mv "$S/networks.json" "$T/networks.json"
	k get networks.networking.gke.io >/dev/null 2>"$T/k2.err"
	mv "$T/networks.json" "$S/networks.json"
	if grep -q 'Error from server (Forbidden): networks.networking.gke.io is forbidden: User "system:serviceaccount:tcpxo:tcpxo-agent" cannot list resource "networks"' "$T/k1.err" &&
	   grep -q "the server doesn't have a resource type" "$T/k2.err"; then
		ok "fakeapi/kubectl-forbidden-and-absent"
	else
		nok fakeapi/kubectl-forbidden-and-absent "$(cat "$T/k1.err" "$T/k2.err" | head -c 400)"
	fi

	# Pods: a watch sees a deletion; describe's pod query (status.phase!=) works.
	k get pods -A -w --output-watch-events --watch-only -o 'custom-columns=EVENT:.type,NAME:.object.metadata.name' \
		>"$T/pw.out" 2>"$T/pw.err" &
	kw=$!
	ctl '{"op":"wait","watchers":1,"resource":"pods","timeout":10}' >/dev/null
	pod=$("$PY" -c 'import json,sys; p=json.load(open(sys.argv[1]))["items"][0]["metadata"]; print(p["namespace"], p["name"])' "$S/pods.json")
	ctl '{"op":"delete","resource":"pods","namespace":"'"${pod% *}"'","name":"'"${pod#* }"'"}' >/dev/null
	i=0
	while ! grep -q DELETED "$T/pw.out" && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
	kill "$kw" 2>/dev/null
	wait "$kw" 2>/dev/null
	if grep -Eqx "DELETED +${pod#* }" "$T/pw.out" && [ "$(grep -vc '^EVENT' "$T/pw.out")" = 1 ]; then
		ok fakeapi/kubectl-watch-pods-delete
	else
		nok fakeapi/kubectl-watch-pods-delete "$(tr '\n' '|' <"$T/pw.out") $(head -c 200 "$T/pw.err")"
	fi
fi

# ---- the watch protocol, raw ----------------------------------------------------------------
"$PY" - "$PORT" "$T/certs/ca.crt" "$S" "$NODE" "$FAKE" <<'EOF' || failed=1
import http.client, json, os, ssl, subprocess, sys, time
port, ca, state, node, fake = sys.argv[1:6]
token = open(os.path.join(state, "token")).read().strip()
ctx = ssl.create_default_context(cafile=ca)
bad = 0


def conn():
    return http.client.HTTPSConnection("127.0.0.1", int(port), context=ctx, timeout=20)


def req(method, path, body=None, ctype=None):
    c = conn()
    h = {"Authorization": "Bearer " + token}
    if ctype:
        h["Content-Type"] = ctype
    c.request(method, path, body=body, headers=h)
    r = c.getresponse()
    data = r.read()
    c.close()
    return r.status, json.loads(data) if data else None


def ctl(ops):
    st, out = req("POST", "/fakeapi/v1/changes", json.dumps(ops), "application/json")
    assert st == 200, out
    return out


def settings(value):
    with open(os.path.join(state, "settings.tmp"), "w") as f:
        json.dump(value, f)
    os.rename(os.path.join(state, "settings.tmp"), os.path.join(state, "settings"))


class Watch:
    def __init__(self, path):
        self.c = conn()
        self.c.request("GET", path, headers={"Authorization": "Bearer " + token})
        self.r = self.c.getresponse()

    def events(self, n, timeout=10):
        out, end = [], time.time() + timeout
        while len(out) < n and time.time() < end:
            line = self.r.readline()
            if not line:
                break
            out.append(json.loads(line))
        return out

    def rest(self):
        """Every line until the server ends the stream (the chunked terminator)."""
        return [json.loads(l) for l in self.r.read().splitlines() if l.strip()]

    def close(self):
        self.c.close()


def case(name, fn):
    global bad
    settings({})
    try:
        fn()
        print("ok fakeapi/" + name)
    except Exception as e:  # noqa: BLE001 - report any failure as the case's
        bad = 1
        print("not ok fakeapi/%s: %s: %s" % (name, type(e).__name__, e))


def rv_of(o):
    return int(o["metadata"]["resourceVersion"])


def pod(name, node_name, **labels):
    return {"op": "apply", "resource": "pods", "object": {"metadata": {"name": name, "namespace": "t",
            "labels": labels}, "spec": {"nodeName": node_name}}}


def order_from_rv():
    st, lst = req("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D" + node)
    assert st == 200
    rv = lst["metadata"]["resourceVersion"]
    w = Watch("/api/v1/pods?fieldSelector=spec.nodeName%%3D%s&watch=1&resourceVersion=%s" % (node, rv))
    assert w.r.status == 200 and w.r.getheader("Transfer-Encoding") == "chunked", w.r.getheaders()
    ctl([pod("o1", node), pod("o2", "elsewhere"), pod("o1", node, v="2"),
         {"op": "delete", "resource": "pods", "namespace": "t", "name": "o1"}])
    ev = w.events(3)
    w.close()
    assert [(e["type"], e["object"]["metadata"]["name"]) for e in ev] == \
        [("ADDED", "o1"), ("MODIFIED", "o1"), ("DELETED", "o1")], ev
    rvs = [rv_of(e["object"]) for e in ev]
    assert int(rv) < rvs[0] < rvs[1] < rvs[2] and rvs[1] == rvs[0] + 2, rvs   # o2 took one: one counter


def initial_added():
    w = Watch("/api/v1/pods?fieldSelector=spec.nodeName%3D" + node + "&watch=1")
    st, lst = req("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D" + node)
    ev = w.events(len(lst["items"]))
    w.close()
    assert [e["type"] for e in ev] == ["ADDED"] * len(lst["items"]) and len(ev) > 0, ev
    assert sorted(e["object"]["metadata"]["name"] for e in ev) == \
        sorted(i["metadata"]["name"] for i in lst["items"])


def selector_transitions():
    ctl([pod("mv", "other")])
    w = Watch("/api/v1/pods?fieldSelector=spec.nodeName%3D" + node + "&watch=1&resourceVersion=" +
              req("GET", "/api/v1/pods")[1]["metadata"]["resourceVersion"])
    ctl([pod("mv", node), pod("mv", "other")])
    ev = w.events(2)
    w.close()
    assert [(e["type"], e["object"]["spec"]["nodeName"]) for e in ev] == [("ADDED", node), ("DELETED", "other")], ev


def gone_both_ways():
    settings({"history": 2})
    st, lst = req("GET", "/api/v1/nodes")
    old = lst["metadata"]["resourceVersion"]
    ctl([pod("h%d" % i, node) for i in range(4)])
    w = Watch("/api/v1/nodes?watch=1&resourceVersion=" + old)
    ev = w.rest()
    assert w.r.status == 200 and len(ev) == 1 and ev[0]["type"] == "ERROR", ev
    s = ev[0]["object"]
    assert s["kind"] == "Status" and s["code"] == 410 and s["reason"] == "Expired", s
    assert s["message"].startswith("too old resource version: %s (" % old), s
    settings({"history": 2, "gone": "status"})
    st, body = req("GET", "/api/v1/nodes?watch=1&resourceVersion=" + old)
    assert st == 410 and body["reason"] == "Expired", (st, body)
    # Within the history it replays.
    st, lst = req("GET", "/api/v1/nodes")
    ctl([pod("h9", node)])
    w = Watch("/api/v1/pods?watch=1&resourceVersion=" + lst["metadata"]["resourceVersion"])
    ev = w.events(1)
    w.close()
    assert ev[0]["type"] == "ADDED" and ev[0]["object"]["metadata"]["name"] == "h9", ev
    # Compaction on request: the version just listed is gone now.
    ctl({"op": "compact"})
    st, body = req("GET", "/api/v1/pods?watch=1&resourceVersion=" + lst["metadata"]["resourceVersion"])
    assert st == 410, (st, body)
    # resume_gone: a watch from any resourceVersion, however new, is gone (in the "gone" form); lists
    # and watches without one are served.
    settings({"resume_gone": True})
    st, lst = req("GET", "/api/v1/pods")
    assert st == 200, st
    w = Watch("/api/v1/pods?watch=1&resourceVersion=" + lst["metadata"]["resourceVersion"])
    ev = w.rest()
    assert w.r.status == 200 and len(ev) == 1 and ev[0]["object"]["code"] == 410, ev
    settings({"resume_gone": True, "gone": "status"})
    st, body = req("GET", "/api/v1/pods?watch=1&resourceVersion=" + lst["metadata"]["resourceVersion"])
    assert st == 410 and body["reason"] == "Expired", (st, body)
    w = Watch("/api/v1/pods?watch=1&timeoutSeconds=1")
    ev = w.rest()
    assert w.r.status == 200 and ev and all(e["type"] == "ADDED" for e in ev), ev
    settings({})


def bookmarks_and_timeout():
    settings({"bookmark_ms": 200})
    t0 = time.time()
    w = Watch("/api/v1/nodes?fieldSelector=metadata.name%3D" + node +
              "&watch=1&allowWatchBookmarks=true&timeoutSeconds=1")
    ev = w.rest()           # returns only once the server ends the chunked body
    dt = time.time() - t0
    assert 0.9 <= dt < 5, dt
    assert ev[0]["type"] == "ADDED" and ev[0]["object"]["metadata"]["name"] == node, ev[0]
    bm = [e for e in ev if e["type"] == "BOOKMARK"]
    assert len(bm) >= 3, ev
    assert all(set(e["object"]["metadata"]) <= {"resourceVersion", "creationTimestamp"} for e in bm), bm
    assert all(e["object"]["kind"] == "Node" for e in bm)
    w2 = Watch("/api/v1/nodes?watch=1&timeoutSeconds=1")       # no allowWatchBookmarks: none
    assert not [e for e in w2.rest() if e["type"] == "BOOKMARK"]


def send_initial_events():
    w = Watch("/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
              "&allowWatchBookmarks=true&fieldSelector=spec.nodeName%3D" + node)
    n = len(req("GET", "/api/v1/pods?fieldSelector=spec.nodeName%3D" + node)[1]["items"])
    ev = w.events(n + 1)
    w.close()
    assert [e["type"] for e in ev] == ["ADDED"] * n + ["BOOKMARK"], ev
    assert ev[-1]["object"]["metadata"]["annotations"] == {"k8s.io/initial-events-end": "true"}, ev[-1]
    st, body = req("GET", "/api/v1/pods?watch=1&sendInitialEvents=true")
    assert st == 422 and "resourceVersionMatch" in body["message"], body
    settings({"watchlist": False})
    st, body = req("GET", "/api/v1/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
                   "&allowWatchBookmarks=true")
    assert st == 422 and "WatchList feature gate" in body["message"], body


def lists_and_errors():
    st, body = req("GET", "/api/v1/pods?fieldSelector=spec.bogus%3Dx")
    assert st == 400 and body["message"] == "field label not supported: spec.bogus", body
    st, body = req("GET", "/api/v1/nodes?fieldSelector=metadata.name%3D" + node)
    assert st == 200 and [i["metadata"]["name"] for i in body["items"]] == [node], body
    assert rv_of(body) >= max(rv_of(i) for i in body["items"])
    settings({"forbidden": ["pods:watch"]})
    st, body = req("GET", "/api/v1/pods?watch=1")
    assert st == 403 and 'cannot watch resource "pods"' in body["message"], body
    assert req("GET", "/api/v1/pods")[0] == 200       # list still allowed
    os.rename(os.path.join(state, "networks.json"), os.path.join(state, "networks.off"))
    try:
        st, body = req("GET", "/apis/networking.gke.io/v1/networks?watch=1")
        assert st == 404, (st, body)
    finally:
        os.rename(os.path.join(state, "networks.off"), os.path.join(state, "networks.json"))
    # A file a test rewrites reaches an open watch without any request (the poller).
    st, lst = req("GET", "/apis/networking.gke.io/v1/networks")
    w = Watch("/apis/networking.gke.io/v1/networks?watch=1&resourceVersion=" + lst["metadata"]["resourceVersion"])
    time.sleep(0.2)
    nets = json.load(open(os.path.join(state, "networks.json")))
    nets["items"] = nets["items"][1:]
    with open(os.path.join(state, "networks.tmp"), "w") as f:
        json.dump(nets, f)
    os.rename(os.path.join(state, "networks.tmp"), os.path.join(state, "networks.json"))
    ev = w.events(1)
    w.close()
    assert ev and ev[0]["type"] == "DELETED" and ev[0]["object"]["metadata"]["name"] == \
        lst["items"][0]["metadata"]["name"], ev


def event_api():
    e = {"metadata": {"generateName": node + "."}, "eventTime": "2026-01-20T10:00:00.000000Z",
         "regarding": {"kind": "Node", "name": node}, "reason": "FabricReady", "action": "Evaluate",
         "type": "Normal", "reportingController": "fabric.aicr.run/tcpxo-agent", "reportingInstance": node}
    st, out = req("POST", "/apis/events.k8s.io/v1/namespaces/default/events", json.dumps(e), "application/json")
    assert st == 201 and out["metadata"]["name"].startswith(node + ".") and out["metadata"]["uid"], out
    st, out = req("POST", "/apis/events.k8s.io/v1/namespaces/ml/events", json.dumps(e), "application/json")
    assert st == 422 and out["details"]["causes"][0]["field"] == "regarding.namespace", out
    st, lst = req("GET", "/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3D" + node +
                  ",reason%3DFabricReady")
    assert st == 200 and lst["kind"] == "EventList" and lst["apiVersion"] == "v1", lst
    assert [i["involvedObject"]["name"] for i in lst["items"]] == [node], lst
    assert lst["items"][0]["reportingComponent"] == "fabric.aicr.run/tcpxo-agent", lst["items"][0]


def request_log():
    lines = [json.loads(l) for l in open(os.path.join(state, "requests.log"))]
    assert lines, "empty log"
    want = {"method", "path", "query", "contentType", "body", "auth", "fault", "peer", "status", "reqBytes",
            "respBytes", "t", "ms", "watch", "userAgent"}
    for l in lines:
        assert set(l) == want, sorted(l)
        assert l["auth"] == "ok" and token not in json.dumps(l)
    assert not any(l["path"].startswith("/fakeapi/") for l in lines), "control requests are not logged"
    w = [l for l in lines if l["watch"]]
    assert w and all(l["status"] in (200, 403, 404, 410, 422) and l["respBytes"] is None for l in w if l["status"] == 200)
    out = subprocess.run([sys.executable, os.path.join(os.path.dirname(fake), "daemon_requests.py"),
                          os.path.join(state, "requests.log"), "0"], capture_output=True, text=True).stdout
    assert "status=200" in out and " watch" in out, out[:300]
    ends = [json.loads(l) for l in open(os.path.join(state, "watches.log"))]
    assert {"timeout", "gone", "client"} <= {e["end"] for e in ends}, ends


for name, fn in [("watch-order-from-rv", order_from_rv), ("watch-initial-added", initial_added),
                 ("watch-selector-transitions", selector_transitions), ("watch-410-event-and-status", gone_both_ways),
                 ("watch-bookmarks-timeout", bookmarks_and_timeout), ("watch-send-initial-events", send_initial_events),
                 ("lists-selectors-rbac-crd-files", lists_and_errors), ("events-api", event_api),
                 ("requests-log", request_log)]:
    case(name, fn)
sys.exit(bad)
EOF
exit $failed
