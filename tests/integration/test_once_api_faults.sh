#!/bin/sh
# test_once_api_faults.sh - `--once` against a failing API (tests/lib/fakeapi.py faults) on the a3-mega tree:
# the observation is still printed, the exit code is right, retries are bounded, nothing is written blind,
# and the token never reaches the output. Env: TOPDIR, BUILD, TCPXO_AGENT. Contacts 127.0.0.1 only.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TCPXO_AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
. "$TOPDIR/tests/lib/netns.sh"
. "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
. "$TOPDIR/tests/lib/api_scenario.sh"

api_test_begin once-api-faults

# fresh: a healthy node whose annotations are not published yet, and no fault.
fresh() {
	api_state node-fixture-a3mega pods-healthy networks
}

# Shared by the cases below, which append their own assertions.
PRINTED='ok(lines and lines[0].startswith("tcpxo: ready (8/8 GPUs paired, 13 checks"), "observation printed")
ok(any("0000:04:00.0" in l for l in lines), "GPU table printed")
'
UNPUBLISHED='eq(patches, [], "PATCH requests")
eq(ann, orig_ann, "node annotations")
ok(err.endswith("tcpxo-agent: not published: the API facts could not be read\n"), "says it did not publish")
'

# ---- 401 once: the token is re-read and the call repeated ----
fresh
api_fault '{"mode": "401", "count": 1}'
api_run a3-mega --once
a 401-once <<'EOF'
eq(rc, 0, "exit")
eq([(r["method"], r["fault"]) for r in reqs],
   [("GET", "401"), ("GET", None), ("GET", None), ("GET", None), ("PATCH", None), ("PATCH", None), ("POST", None)],
   "requests")
eq(reqs[0]["path"], reqs[1]["path"], "the node GET repeated")
eq(len(patches), 1, "PATCH count")
EOF

# ---- 401 always (a revoked token): one re-read, then a clear error ----
fresh
api_fault '{"mode": "401"}'
api_run a3-mega --once
{ printf '%s' "$PRINTED$UNPUBLISHED"; cat; } <<'EOF' | a 401-always
eq(rc, 2, "exit")
eq([r["path"] for r in reqs].count("/api/v1/nodes/" + NODE), 2, "node GETs")
ok("HTTP 401 Unauthorized" in err and "(the credentials need get and patch on nodes, patch on nodes/status, list on pods, create on events.k8s.io events)" in err,
   "stderr says 401 and what is needed")
EOF

# ---- 403 on GET node: exit 2, observation still printed, nothing patched ----
fresh
api_fault '{"mode": "403", "path": "/api/v1/nodes/"}'
api_run a3-mega --once
{ printf '%s' "$PRINTED$UNPUBLISHED"; cat; } <<'EOF' | a 403-node
eq(rc, 2, "exit")
eq(methods(), [("GET", "/api/v1/nodes/" + NODE), ("GET", "/api/v1/pods")], "requests (no retry of a 403)")
eq(err.splitlines()[0], "tcpxo-agent: reading node %s: GET /api/v1/nodes/%s: HTTP 403 Forbidden: nodes is "
   "forbidden: User \"system:serviceaccount:tcpxo:tcpxo-agent\" cannot access this resource "
   "(the credentials need get and patch on nodes, patch on nodes/status, list on pods, create on events.k8s.io "
   "events)" % (NODE, NODE), "stderr")
EOF

# ---- 404: the node does not exist (a wrong --node / NODE_NAME) ----
fresh
api_node=$API_NODE
API_NODE=gke-a3mega-a3mega-pool-1a2b3c4d-gone
api_run a3-mega --once --json
{ printf '%s' "$UNPUBLISHED"; cat; } <<'EOF' | a 404-node
eq(rc, 2, "exit")
eq(j["node"], "gke-a3mega-a3mega-pool-1a2b3c4d-gone", "node in the report")
eq(check("machine-type")["status"], "skip", "machine-type")
eq(err.splitlines()[0], "tcpxo-agent: reading node gke-a3mega-a3mega-pool-1a2b3c4d-gone: GET "
   "/api/v1/nodes/gke-a3mega-a3mega-pool-1a2b3c4d-gone: HTTP 404 Not Found: "
   "nodes \"gke-a3mega-a3mega-pool-1a2b3c4d-gone\" not found", "stderr")
EOF
API_NODE=$api_node

# ---- 429 with Retry-After 2, then success: the wait is honoured ----
fresh
api_fault '{"mode": "429", "count": 1, "retry_after": 2}'
api_run a3-mega --once
a 429-retry-after <<'EOF'
eq(rc, 0, "exit")
eq([(r["method"], r["fault"]) for r in reqs][:2], [("GET", "429"), ("GET", None)], "first requests")
ok(wall >= 2.0, "Retry-After honoured: run took %.2f s" % wall)
eq(len(patches), 1, "PATCH count")
EOF

# ---- 500 twice, then success ----
fresh
api_fault '{"mode": "500", "count": 2}'
api_run a3-mega --once
a 500-twice <<'EOF'
eq(rc, 0, "exit")
eq([r["fault"] for r in reqs], ["500", "500", None, None, None, None, None, None], "faults seen")
eq(len(patches), 1, "PATCH count")
eq(err, "tcpxo-agent: published on node %s: 5 annotations, 2 labels, condition FabricReady=True (TCPXOReady), "
   "1 Event\n" % NODE, "stderr")
EOF

# ---- 500 forever: bounded retries, exit 2 well within a minute ----
fresh
api_fault '{"mode": "500"}'
api_run a3-mega --once
{ printf '%s' "$PRINTED$UNPUBLISHED"; cat; } <<'EOF' | a 500-forever
eq(rc, 2, "exit")
ok(wall < 60, "gave up after %.2f s" % wall)
eq([r["path"] for r in reqs].count("/api/v1/nodes/" + NODE), 3, "node GET attempts")
ok("HTTP 500 Internal Server Error: Internal error occurred: fake fault (after 3 attempts)" in err, "stderr")
EOF

# ---- 503 on the Networks list only: optional facts, the run still publishes ----
fresh
api_fault '{"mode": "503", "path": "/apis/networking.gke.io/"}'
api_run a3-mega --once --json
a networks-503 <<'EOF'
eq(rc, 0, "exit")
ok("Network objects not readable" in check("networks")["message"], "networks says so")
eq(check("networks")["status"], "pass", "networks status")
eq(len(patches), 1, "PATCH count")
EOF

# ---- slow answers (0.5 s each): still published ----
fresh
api_fault '{"mode": "slow", "delay": 0.5}'
api_run a3-mega --once
a slow <<'EOF'
eq(rc, 0, "exit")
eq([r["fault"] for r in reqs], ["slow"] * 6, "faults seen")
ok(2.0 <= wall < 15, "took %.2f s" % wall)
eq(len(patches), 1, "PATCH count")
EOF

# ---- a hanging node GET: the request times out, the run ends ----
fresh
api_fault '{"mode": "hang", "count": 1, "path": "/api/v1/nodes/"}'
api_run a3-mega --once
{ printf '%s' "$PRINTED$UNPUBLISHED"; cat; } <<'EOF' | a hang
eq(rc, 2, "exit")
ok(10 <= wall < 60, "ended after %.2f s" % wall)
ok("Operation timed out" in err.splitlines()[0], "stderr says timed out")
EOF

# ---- a truncated node body (well-formed HTTP, half a JSON text) ----
fresh
api_fault '{"mode": "truncated", "count": 1, "path": "/api/v1/nodes/"}'
api_run a3-mega --once
{ printf '%s' "$PRINTED$UNPUBLISHED"; cat; } <<'EOF' | a truncated-json
eq(rc, 2, "exit")
eq(methods(), [("GET", "/api/v1/nodes/" + NODE), ("GET", "/api/v1/pods")], "requests")
ok(re.match(r"tcpxo-agent: reading node %s: unusable answer \(\d+ bytes\): node: not valid JSON$" % NODE,
            err.splitlines()[0]), "stderr")
EOF

# ---- invalid JSON for the pod list ----
fresh
api_fault '{"mode": "invalid", "path": "/api/v1/pods"}'
api_run a3-mega --once --json
{ printf '%s' "$UNPUBLISHED"; cat; } <<'EOF' | a invalid-json
eq(rc, 2, "exit")
eq(check("version-pair")["status"], "skip", "version-pair")
ok(re.match(r"tcpxo-agent: listing the pods on %s: unusable answer \(\d+ bytes\): pods: not valid JSON$" % NODE,
            err.splitlines()[0]), "stderr")
EOF

# ---- a body shorter than its Content-Length: a transport error, retried ----
fresh
api_fault '{"mode": "short", "count": 1, "path": "/api/v1/nodes/"}'
api_run a3-mega --once
a short-body <<'EOF'
eq(rc, 0, "exit")
eq([r["fault"] for r in reqs][:2], ["short", None], "faults seen")
eq(len(patches), 1, "PATCH count")
EOF

# ---- the PATCH answered 500 (forever): exit 2, the report stands ----
fresh
api_fault '{"mode": "500", "method": "PATCH"}'
api_run a3-mega --once
{ printf '%s' "$PRINTED"; cat; } <<'EOF' | a patch-500
eq(rc, 2, "exit")
eq(len(patches), 3, "PATCH attempts")
eq(ann, orig_ann, "node annotations")
eq(err, "tcpxo-agent: publish failed: PATCH node %s: PATCH /api/v1/nodes/%s: HTTP 500 Internal Server Error: "
   "Internal error occurred: fake fault (after 3 attempts)\n" % (NODE, NODE), "stderr")
EOF

# ---- the status PATCH answered 500 (forever): the annotations are published, exit 2; the node's Event
# follows the condition, so it is not posted: the condition missing tells the next agent it never was ----
fresh
api_fault '{"mode": "500", "method": "PATCH", "path": "/api/v1/nodes/'"$API_NODE"'/status"}'
api_run a3-mega --once
{ printf '%s' "$PRINTED"; cat; } <<'EOF' | a status-patch-500
eq(rc, 2, "exit")
eq((len(patches), len(status_patches), len(posts)), (1, 3, 0), "PATCH, status PATCH attempts, POST")
eq(ann[PREFIX + "ready"], "true", "annotations published")
eq(condition(), None, "no condition")
eq(events, [], "no Event yet")
eq(err, "tcpxo-agent: published on node %s: 5 annotations, 2 labels\n"
   "tcpxo-agent: publish failed: PATCH node %s/status: PATCH /api/v1/nodes/%s/status: HTTP 500 Internal "
   "Server Error: Internal error occurred: fake fault (after 3 attempts)\n" % (NODE, NODE, NODE), "stderr")
EOF
# The next run writes only the condition (the annotations are there), and tells the transition once.
api_fault ""
api_run a3-mega --once
a status-patch-500-retried <<'EOF'
eq(rc, 0, "exit")
eq((len(patches), len(status_patches), len(posts)), (0, 1, 1), "PATCH, status PATCH, POST")
eq(condition()["status"], "True", "condition")
eq([(e["reason"], e["note"].split(". ")[-1]) for e in events], [("FabricReady", "Changed: ready (none)→true.")],
   "the transition's Event, once")
eq(err, "tcpxo-agent: published on node %s: condition FabricReady=True (TCPXOReady), 1 Event\n" % NODE, "stderr")
EOF
# A third run finds the condition agreeing: nothing to tell.
api_run a3-mega --once
a status-patch-500-told <<'EOF'
eq(rc, 0, "exit")
eq((len(patches), len(status_patches), len(posts)), (0, 0, 0), "PATCH, status PATCH, POST")
eq(len(events), 1, "Events in all")
EOF

# ---- RBAC without nodes/status (an older ClusterRole): one 403, said clearly, exit 2 ----
fresh
printf '%s\n' '{"forbidden": ["nodes/status:patch"]}' >"$API_STATE/settings"
api_run a3-mega --once
a status-forbidden <<'EOF'
eq(rc, 2, "exit")
eq(len(status_patches), 1, "status PATCH attempts (a 403 is not retried)")
eq(ann[PREFIX + "ready"], "true", "annotations published")
ok(err.splitlines()[1].startswith("tcpxo-agent: publish failed: PATCH node %s/status: PATCH /api/v1/nodes/%s/status: "
   "HTTP 403 Forbidden: nodes is forbidden: User \"system:serviceaccount:tcpxo:tcpxo-agent\" cannot patch resource "
   "\"nodes/status\"" % (NODE, NODE)), "stderr: %r" % err)
EOF

# ---- RBAC without events create: the Event is refused once (not retried), exit 2 ----
fresh
printf '%s\n' '{"forbidden": ["events:create"]}' >"$API_STATE/settings"
api_run a3-mega --once
a events-forbidden <<'EOF'
eq(rc, 2, "exit")
eq((len(patches), len(status_patches), len(posts)), (1, 1, 1), "PATCH, status PATCH, POST")
eq(condition()["status"], "True", "condition published")
eq(events, [], "Events")
# The client keeps the first 255 bytes of an answer's message.
ok(err.splitlines()[1].startswith("tcpxo-agent: publish failed: Event Node %s FabricReady: POST "
   "/apis/events.k8s.io/v1/namespaces/default/events: HTTP 403 Forbidden: events.events.k8s.io is forbidden: "
   "User \"system:serviceaccount:tcpxo:tcpxo-agent\" cannot create resource" % NODE), "stderr: %r" % err)
EOF

# ---- no server at all ----
fresh
API_NOSERVER=1 api_run a3-mega --once
{ printf '%s' "$PRINTED"; cat; } <<'EOF' | a api-down
eq(rc, 2, "exit")
ok(wall < 60, "gave up after %.2f s" % wall)
ok("Couldn't connect to server" in err.splitlines()[0], "stderr says why")
EOF

# ---- a server that echoes the Authorization header in its error: the token is not printed ----
fresh
api_fault '{"mode": "leak"}'
api_run a3-mega --once
a leak-redacted <<'EOF'
eq(rc, 2, "exit")
tok = open(os.path.join(state, "token")).read().strip()
ok(tok not in out + err, "token printed")
ok("Bearer [token]" in err, "redaction marker in stderr")
EOF

# ---- the token rotated between runs: the new one is used ----
fresh
api_run a3-mega --once
api_token "tcpxo-e2e-rotated-$$-$(od -An -N6 -tx1 /dev/urandom | tr -d ' \n')"
api_run a3-mega --once
a token-rotated <<'EOF'
eq(rc, 0, "exit")
eq([(r["method"], r["auth"]) for r in reqs], [("GET", "ok")] * 3, "requests with the rotated token")
EOF

# ---- measured: a healthy --once against the API (first run: publishes) ----
fresh
api_run a3-mega --once
a measure <<'EOF'
eq(rc, 0, "exit")
print("# measured: healthy --once with the API: %.2f s wall, %d requests (%s)" %
      (wall, len(reqs), ", ".join(r["method"] for r in reqs)))
EOF

# ---- VALGRIND=1: the client leaks nothing, on a retried publish and on a failed read (8 s each) ----
if [ "${VALGRIND:-0}" = 1 ] && [ "${SAN:-0}" != 1 ] && command -v valgrind >/dev/null 2>&1; then
	vg="valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite"
	fresh
	api_fault '{"mode": "500", "count": 1}'
	API_WRAP=$vg api_run a3-mega --once
	a valgrind-retried-publish <<'EOF'
eq(rc, 0, "exit (99: valgrind found an error)")
eq(len(patches), 1, "PATCH count")
EOF
	api_fault '{"mode": "truncated", "count": 1, "path": "/api/v1/nodes/"}'
	API_WRAP=$vg api_run a3-mega --once
	a valgrind-failed-read <<'EOF'
eq(rc, 2, "exit (99: valgrind found an error)")
EOF
else
	skip "valgrind-once" "set VALGRIND=1 (not with SAN=1) to run --once under valgrind"
fi

if [ -n "$(api_token_leaks)" ]; then
	nok "token-never-printed" "$(api_token_leaks | head -n 2 | cut -c1-200 | tr '\n' '|')"
else
	ok "token-never-printed"
fi
exit $failed
