#!/bin/sh
# test_once_api.sh - `--once` and `--cleanup` end to end: fixture trees + the fake API server in one namespace.
# Scenarios (healthy, skew, idle, digests, bad mappings, accelerator) and publishing; the API's failure
# modes are in test_once_api_faults.sh. Env: TOPDIR, BUILD, TCPXO_AGENT. Contacts 127.0.0.1 only, in
# namespaces it makes.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TCPXO_AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
. "$TOPDIR/tests/lib/netns.sh"
. "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
. "$TOPDIR/tests/lib/api_scenario.sh"

api_test_begin once-api

# ---- healthy: installer v1.0.15, workload pod with the v1.0.21 native-sidecar daemon ----
# The sidecar runs the v1.0.21 command (--num_hops=2, nothing retired): every check passes.
api_state node-fixture-a3mega pods-healthy networks
api_run a3-mega --once --json
a healthy-report <<'EOF'
eq(rc, 0, "exit")
eq(j["ready"], True, "ready")
eq(j["summary"], "tcpxo: ready (8/8 GPUs paired, 13 checks)", "summary")
eq(j["node"], NODE, "node")
eq(j["machineType"], "a3-megagpu-8g", "machineType")
eq((j["profile"], j["runtime"]), ("tcpxo", "torch-distributed-tcpxo"), "profile, runtime")
eq([c["id"] for c in j["checks"]],
   ["machine-type", "gpus", "gpu-nics", "pairing", "links", "networks", "aperture-devices",
    "device-nodes", "nvidia-host-path", "plugin-files", "version-pair", "daemon-args", "daemon-pod"], "check ids")
# Every check observed something: with the API, nothing is skipped on a healthy node.
eq([(c["id"], c["status"]) for c in j["checks"] if c["status"] != "pass"], [], "checks not passing")
ok(check("daemon-args")["message"].startswith("3 TCPXO daemon command lines as expected: pid 4241 ")
   and "pod ml-team/llama-train-node-0-0-x2b9f container tcpxo-daemon /bin/sh -c " in check("daemon-args")["message"],
   "daemon-args: %r" % check("daemon-args")["message"])
eq(check("version-pair")["message"], "installer v1.0.15 and daemon v1.0.21 pair (1 running)", "version-pair")
eq(check("daemon-pod")["message"], "1 daemon pod wired (host /sys, /proc/sys, NVIDIA libraries, capabilities, "
   "devices, the NRI device injector running): ml-team/llama-train-node-0-0-x2b9f", "daemon-pod")
eq(j["workloads"]["counts"], {"attached": 1, "partial": 0, "unattached": 0, "not-fabric": 0}, "workloads counts")
eq([(p["namespace"], p["name"], p["gpus"], p["verdict"], [f["id"] for f in p["findings"]]) for p in j["workloads"]["pods"]],
   [("ml-team", "llama-train-node-0-0-x2b9f", 8, "attached", [])], "workloads pods")
eq(check("machine-type")["message"], "a3-megagpu-8g (nvidia-h100-mega-80gb) observes profile tcpxo",
   "machine-type")
eq(j["versions"], {"installer": "v1.0.15", "daemons": ["v1.0.21"], "expectedDaemon": "v1.0.21"}, "versions")
want = [{"interfaceName": "eth%d" % (i + 1), "network": "gpu-nic-%d" % i} for i in range(8)]
eq(j["interfaces"], want, "interfaces")
eq([(n["name"], n["network"]) for n in j["nics"]], [(w["interfaceName"], w["network"]) for w in want],
   "nics[].network")
eq(err, "tcpxo-agent: published on node %s: 5 annotations, 2 labels, condition FabricReady=True (TCPXOReady), "
   "1 Event\n" % NODE, "stderr")
EOF
cp "$API_TMP/out" "$API_TMP/healthy.json"
a healthy-requests <<'EOF'
eq(methods(), [("GET", "/api/v1/nodes/" + NODE), ("GET", "/api/v1/pods"),
               ("GET", "/apis/networking.gke.io/v1/networks"), ("PATCH", "/api/v1/nodes/" + NODE),
               ("PATCH", "/api/v1/nodes/%s/status" % NODE), ("POST", "/apis/events.k8s.io/v1/namespaces/default/events")],
   "requests")
eq(reqs[1]["query"], "fieldSelector=spec.nodeName%3D" + NODE, "pods query")
eq(len(set(r["peer"] for r in reqs)), 1, "connections used (keep-alive)")
EOF
a healthy-patch <<'EOF'
eq(len(patches), 1, "PATCH count")
p = patch_of(patches[0])
eq(sorted(p), sorted(PREFIX + k for k in KEYS), "patched keys")
eq(p[PREFIX + "profile"], "tcpxo", "profile")
eq(p[PREFIX + "runtime"], "torch-distributed-tcpxo", "runtime")
eq(p[PREFIX + "ready"], "true", "ready")
# Exactly the renderer's tcpxoInterfaces shape, compact.
eq(p[PREFIX + "interfaces"], json.dumps([{"interfaceName": "eth%d" % (i + 1), "network": "gpu-nic-%d" % i}
                                          for i in range(8)], separators=(",", ":")), "interfaces")
att = p[PREFIX + "attachment"]
ok(len(att.encode()) < 4096, "attachment is %d bytes" % len(att.encode()))
att = json.loads(att)
eq(att["schema"], "fabric.aicr.run/v1", "attachment schema")
eq(att["versions"]["installer"], "v1.0.15", "attachment installer")
eq(len(att["pairs"]), 8, "attachment pairs")
eq(att["checks"], [], "attachment failed/warned checks")
# The scheduling labels, in the same merge patch.
eq(labels_of(patches[0]), {PREFIX + "profile": "tcpxo", PREFIX + "ready": "true"}, "labels")
EOF
a healthy-condition <<'EOF'
eq(len(status_patches), 1, "status PATCH count")
c = status_of(status_patches[0])
eq((c["status"], c["reason"], c["message"]), ("True", "TCPXOReady", "tcpxo: ready (8/8 GPUs paired, 13 checks)"),
   "condition")
ok(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$", c["lastTransitionTime"]), "lastTransitionTime %r" % c)
eq(c["lastHeartbeatTime"], c["lastTransitionTime"], "lastHeartbeatTime set with it")
eq(condition(), c, "the node's condition")
# Merged by type: the kubelet's conditions are untouched, ours comes after them.
eq(node["status"]["conditions"], orig["status"]["conditions"] + [c], "the node's conditions")
EOF
a healthy-event <<'EOF'
eq(len(posts), 1, "POST count")
eq(posts[0]["contentType"], "application/json", "POST Content-Type")
e = json.loads(posts[0]["body"])
eq((e["apiVersion"], e["kind"], e["metadata"]["namespace"]), ("events.k8s.io/v1", "Event", "default"), "Event kind")
ok(e["metadata"]["name"].startswith(NODE + "."), "Event name %r" % e["metadata"]["name"])
eq(e["regarding"], {"apiVersion": "v1", "kind": "Node", "name": NODE, "uid": orig["metadata"]["uid"]}, "regarding")
eq((e["type"], e["reason"], e["action"]), ("Normal", "FabricReady", "Check"), "type, reason, action")
eq((e["reportingController"], e["reportingInstance"]), ("fabric.aicr.run/tcpxo-agent", NODE), "reporting")
eq(e["note"], "tcpxo: ready (8/8 GPUs paired, 13 checks). Changed: ready (none)→true, profile (none)→tcpxo, "
   "runtime (none)→torch-distributed-tcpxo.", "note")
ok(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$", e["eventTime"]), "eventTime %r" % e["eventTime"])
eq([x["metadata"]["name"] for x in events], [e["metadata"]["name"]], "events.json")
EOF
a healthy-node-after <<'EOF'
eq({k: ann[k] for k in ann if k.startswith(PREFIX)}, patch_of(patches[0]), "our annotations on the node")
eq(others(ann), orig_ann, "the node's other annotations")
eq(labels, dict(orig["metadata"]["labels"], **{PREFIX + "profile": "tcpxo", PREFIX + "ready": "true"}), "labels")
eq(node["spec"], orig["spec"], "spec")
eq(dict(node["status"], conditions=orig["status"]["conditions"]), orig["status"], "status but the conditions")
eq(int(node["metadata"]["resourceVersion"]), int(orig["metadata"]["resourceVersion"]) + 2, "resourceVersion")
EOF
api_describe >"$API_TMP/describe"
if grep -q '^                    fabric.aicr.run/ready: true$' "$API_TMP/describe" &&
   grep -q '^Annotations:        container.googleapis.com/instance_id: ' "$API_TMP/describe"; then
	ok "healthy-describe"
else
	echo "not ok healthy-describe: $(head -c 400 "$API_TMP/describe" | tr '\n' '|')"
	failed=1
fi
# For the README: what `kubectl describe node` shows after a publish (run.sh keeps it in its log).
sed 's/^/# describe: /' "$API_TMP/describe"

# A second run publishes nothing: the node already carries these values (no heartbeat, no Event).
api_run a3-mega --once
a healthy-idempotent <<'EOF'
eq(rc, 0, "exit")
eq(lines[0], "tcpxo: ready (8/8 GPUs paired, 13 checks)", "first line")
eq(methods(), [("GET", "/api/v1/nodes/" + NODE), ("GET", "/api/v1/pods"),
               ("GET", "/apis/networking.gke.io/v1/networks")], "requests (no PATCH, no POST)")
eq(err, "tcpxo-agent: node %s already carries this state: nothing to publish\n" % NODE, "stderr")
eq(len(events), 1, "Events in all")
EOF

# --prefix: the same values under other keys; ours from before are not touched.
api_run a3-mega --once --prefix example.com/
a prefix <<'EOF'
eq(rc, 0, "exit")
eq(len(patches), 1, "PATCH count")
eq(sorted(patch_of(patches[0])), sorted("example.com/" + k for k in KEYS), "patched keys")
eq(labels_of(patches[0]), {"example.com/profile": "tcpxo", "example.com/ready": "true"}, "patched labels")
eq(ann["example.com/ready"], "true", "example.com/ready")
eq(ann[PREFIX + "ready"], "true", "fabric.aicr.run/ready kept")
eq(labels[PREFIX + "ready"], "true", "fabric.aicr.run/ready label kept")
eq(others(others(ann), "example.com/"), orig_ann, "the node's other annotations")
# The condition's type does not follow the prefix: FabricReady already says this.
eq(status_patches, [], "status PATCHes")
EOF

# --no-labels: the node's labels of ours are removed; the annotations and the condition stay.
api_run a3-mega --once --no-labels
a no-labels <<'EOF'
eq(rc, 0, "exit")
eq((len(patches), len(status_patches), len(posts)), (1, 0, 0), "PATCH, status PATCH, POST")
eq(json.loads(patches[0]["body"]), {"metadata": {"labels": {PREFIX + "profile": None, PREFIX + "ready": None}}},
   "the patch")
eq(labels, dict(orig["metadata"]["labels"], **{"example.com/profile": "tcpxo", "example.com/ready": "true"}), "labels")
eq(err, "tcpxo-agent: published on node %s: 2 labels\n" % NODE, "stderr")
EOF
api_run a3-mega --once --no-labels
a no-labels-idempotent <<'EOF'
eq(rc, 0, "exit")
eq([m for m, _ in methods()], ["GET", "GET", "GET"], "requests")
EOF

# --no-publish with the API configured: the facts are read, nothing is written.
api_state node-fixture-a3mega pods-healthy networks
api_run a3-mega --once --no-publish
a no-publish <<'EOF'
eq(rc, 0, "exit")
eq(lines[0], "tcpxo: ready (8/8 GPUs paired, 13 checks)", "first line")
eq([m for m, _ in methods()], ["GET", "GET", "GET"], "requests")
eq(err, "", "stderr")
eq(ann, orig_ann, "annotations")
EOF

# ---- skew: daemon v1.0.20 with installer v1.0.15 ----
api_state node-fixture-a3mega pods-skew networks
api_run a3-mega --once --json
a skew <<'EOF'
eq(rc, 1, "exit")
msg = "daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21)"
eq(j["summary"], "tcpxo: not ready: version-pair: " + msg, "summary")
eq((check("version-pair")["status"], check("version-pair")["message"]), ("fail", msg), "version-pair")
ok(check("version-pair")["remedy"], "version-pair has a remedy")
eq(j["versions"], {"installer": "v1.0.15", "daemons": ["v1.0.20"], "expectedDaemon": "v1.0.21"}, "versions")
eq(len(patches), 1, "PATCH count")
p = patch_of(patches[0])
eq(p[PREFIX + "ready"], "false", "published ready")
eq(ann[PREFIX + "ready"], "false", "node's ready")
eq(labels_of(patches[0]), {PREFIX + "profile": "tcpxo", PREFIX + "ready": "false"}, "labels")
att = json.loads(p[PREFIX + "attachment"])
ok(len(p[PREFIX + "attachment"].encode()) < 4096, "attachment under 4 KiB")
eq([(c["id"], c["status"]) for c in att["checks"]], [("version-pair", "fail")], "attachment checks")
c = status_of(status_patches[0])
eq((c["status"], c["reason"], c["message"]), ("False", "VersionPair", j["summary"]), "condition")
eq(len(posts), 1, "POST count")
e = json.loads(posts[0]["body"])
eq((e["type"], e["reason"]), ("Warning", "FabricNotReady"), "Event type, reason")
eq(e["note"], j["summary"] + ". Changed: ready (none)→false, profile (none)→tcpxo, runtime (none)→torch-distributed-tcpxo. "
   "Failed checks: version-pair.", "Event note")
eq(err, "tcpxo-agent: published on node %s: 5 annotations, 2 labels, condition FabricReady=False (VersionPair), "
   "1 Event\n" % NODE, "stderr")
EOF
# The daemon pair is fixed: ready again, reason and message follow; one Event says so.
cp "$TOPDIR/fixtures/kube/pods-healthy.json" "$API_STATE/pods.json"
api_run a3-mega --once
a skew-fixed <<'EOF'
eq(rc, 0, "exit")
eq(sorted(patch_of(patches[0])), sorted(PREFIX + k for k in ("ready", "attachment")), "patched keys")
eq(labels_of(patches[0]), {PREFIX + "ready": "true"}, "patched labels")
c = status_of(status_patches[0])
eq((c["status"], c["reason"]), ("True", "TCPXOReady"), "condition")
ok("lastTransitionTime" in c, "a new status sets lastTransitionTime")
e = json.loads(posts[0]["body"])
eq((e["type"], e["reason"], e["note"]), ("Normal", "FabricReady",
   "tcpxo: ready (8/8 GPUs paired, 13 checks). Changed: ready false→true."), "Event")
eq([x["reason"] for x in events], ["FabricNotReady", "FabricReady"], "events.json")
EOF

# ---- issue 22: pods the API server accepts never blind the version check ----
# Beside the skewed daemon: a CPU pod with one env value of 70,000 characters and one with 300
# containers (both read), and one the API server would never hold (env not a list: set aside, named).
# The skew still fails the node; before, the whole PodList was refused and the node published ready.
api_state node-fixture-a3mega pods-skew networks
"$API_PY" - "$API_STATE/pods.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
node = d["items"][0]["spec"]["nodeName"]
def pod(name, containers):
    return {"metadata": {"namespace": "batch", "name": name, "uid": "uid-" + name},
            "spec": {"nodeName": node, "containers": containers}, "status": {"phase": "Running"}}
d["items"] += [pod("etl", [{"name": "c", "image": "busybox", "env": [{"name": "BLOB", "value": "x" * 70000}]}]),
               pod("wide", [{"name": "c%d" % i, "image": "busybox"} for i in range(300)]),
               pod("odd", [{"name": "c", "image": "busybox", "env": {}}])]
json.dump(d, open(sys.argv[1], "w"))
PY
api_run a3-mega --once --json
a skew-beside-large-pods <<'EOF'
eq(rc, 1, "exit")
c = check("version-pair")
eq(c["status"], "fail", "version-pair status")
ok(c["message"].startswith("daemon v1.0.20 does not pair with installer v1.0.15 (expects v1.0.21); pod batch/odd "
   "could not be read (items[7].spec.containers[0].env: expected an array, got object): set aside"),
   "version-pair names the pod set aside: %r" % c["message"])
eq(check("daemon-pod")["status"], "pass", "daemon-pod judged")
eq(ann[PREFIX + "ready"], "false", "node's ready")
eq(status_of(status_patches[0])["status"], "False", "condition")
EOF

# The pod that cannot be read is the daemon's: its version is unknown. Issue 30: that is its own
# finding (version-pair "unknown", naming the pod), never the node's publication: the host's verdict
# is printed, published and exits as always (before, nothing was published and the exit was 2).
api_state node-fixture-a3mega pods-skew networks
"$API_PY" - "$API_STATE/pods.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for p in d["items"]:
    for c in p["spec"].get("initContainers", []):
        if c["name"] == "tcpxo-daemon":
            c["env"] = {}
json.dump(d, open(sys.argv[1], "w"))
PY
api_run a3-mega --once --json
a daemon-pod-unreadable <<'EOF'
c = check("version-pair")
eq(c["status"], "skip", "version-pair unknown")
ok(c["message"].startswith("unknown: pod ml-team/llama-train-node-0-0-x2b9f could not be read (items[1].spec."
   "initContainers[0].env: expected an array, got object), and it may run the installer or the daemon: its version "
   "is unknown"), "version-pair names the pod: %r" % c["message"])
eq(rc, 0 if j["ready"] else 1, "exit: the host's verdict")
ok(j["ready"], "ready: every other check passes: %r" % j["summary"])
ok("not published" not in err and "could not judge" not in err, "no refusal: %r" % err)
eq(len(patches), 1, "published: one PATCH")
eq(ann[PREFIX + "ready"], "true", "ready annotation")
eq(status_of(status_patches[0])["status"], "True", "condition")
EOF
api_run a3-mega --once --no-publish
a daemon-pod-unreadable-no-publish <<'EOF'
eq(rc, 0, "exit")
ok("could not judge" not in err, "stderr: %r" % err)
EOF

# A tenant's Failed pod with the daemon's image and a GPU request of 1k (how the API server writes
# 1000) is read (1,000 GPUs), and ended: it runs nothing, the node is judged on the rest.
api_state node-fixture-a3mega pods-healthy networks
"$API_PY" - "$API_STATE/pods.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
node = d["items"][0]["spec"]["nodeName"]
d["items"].append({"metadata": {"namespace": "tenant-a", "name": "evil", "uid": "uid-evil"},
                   "spec": {"nodeName": node, "containers": [{"name": "d",
                            "image": "us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.20",
                            "resources": {"limits": {"nvidia.com/gpu": "1k"}, "requests": {"nvidia.com/gpu": "1k"}}}]},
                   "status": {"phase": "Failed"}})
json.dump(d, open(sys.argv[1], "w"))
PY
api_run a3-mega --once --json
a tenant-failed-pod-1k <<'EOF'
eq(rc, 0, "exit")
eq(check("version-pair")["status"], "pass", "version-pair: %r" % check("version-pair")["message"])
eq(ann[PREFIX + "ready"], "true", "ready annotation")
EOF

# ---- retired daemon flags: Google's pre-v1.0.18 sample command on a v1.0.21 daemon warns ----
api_state node-fixture-a3mega pods-retired-flags networks
api_run a3-mega --once --json
a retired-flags <<'EOF'
eq(rc, 0, "exit")
c = check("daemon-args")
eq(c["status"], "warn", "daemon-args status")
label = "pod ml-team/llama-train-node-0-0-x2b9f container tcpxo-daemon: "
eq(c["message"], label + "--num_nics=8: --num_nics was retired in daemon v1.0.20 (accepted, no effect); remove it; "
   "--uid=: --uid was retired in daemon v1.0.18 (accepted, no effect); remove it; --alsologtostderr: "
   "--alsologtostderr was retired in daemon v1.0.18 (accepted, no effect); remove it", "daemon-args message")
eq(j["summary"], "tcpxo: ready (8/8 GPUs paired, 13 checks, 1 warn)", "summary")
EOF

# ---- --enforce_kernel_ipv6_support on a v1.0.21 daemon: its flag parser exits, the node is not ready ----
api_state node-fixture-a3mega pods-enforce-ipv6 networks
api_run a3-mega --once --json
a enforce-ipv6-fatal <<'EOF'
eq(rc, 1, "exit")
c = check("daemon-args")
msg = ("pod ml-team/llama-train-node-0-0-x2b9f container tcpxo-daemon: --enforce_kernel_ipv6_support=false: "
       "daemons v1.0.18 and later do not define this flag and exit at start on an unknown flag; remove it")
eq((c["status"], c["message"]), ("fail", msg), "daemon-args")
eq(j["summary"], "tcpxo: not ready: daemon-args: " + msg, "summary")
ok("exits at start" in c["remedy"], "remedy: %r" % c["remedy"])
eq(patch_of(patches[0])[PREFIX + "ready"], "false", "published ready")
eq(status_of(status_patches[0])["reason"], "DaemonArgs", "condition reason")
EOF

# ---- an NCCL test pod (Google's nccl-test-latest.yaml shape) runs the plugin image at another tag ----
# It is a workload, not the installer: version-pair pairs the installer DaemonSet's v1.0.15 as before.
api_state node-fixture-a3mega pods-nccl-test networks
api_run a3-mega --once --json
a nccl-test-pod <<'EOF'
pods = json.load(open(os.path.join(state, "pods.json")))["items"]
ok(any(c["name"] == "nccl-test" and ":v1.0.14" in c["image"] for p in pods for c in p["spec"]["containers"]),
   "the fixture's nccl-test container runs nccl-plugin-gpudirecttcpx-dev:v1.0.14")
eq(rc, 0, "exit")
eq((check("version-pair")["status"], check("version-pair")["message"]),
   ("pass", "installer v1.0.15 and daemon v1.0.21 pair (1 running)"), "version-pair")
eq(j["versions"], {"installer": "v1.0.15", "daemons": ["v1.0.21"], "expectedDaemon": "v1.0.21"}, "versions")
ok(check("plugin-files")["message"].startswith("TCPXO plugin installed (nccl-tcpxo-installer v1.0.15 completed"),
   "plugin-files: %r" % check("plugin-files")["message"])
EOF

# ---- the daemon crash-loops: a failure naming pod, reason, exit code and restarts, not an idle node ----
# (a3-mega:idle has no daemon process in /proc: a crash-looping daemon has none most of the time)
api_root a3-mega:idle && rm -rf "$API_ROOT/proc/4241" "$API_ROOT/proc/4242"
api_state node-fixture-a3mega pods-daemon-crashloop networks
api_run a3-mega:idle --once --json
a daemon-crashloop <<'EOF'
eq(rc, 1, "exit")
c = check("version-pair")
msg = ("daemon ml-team/llama-train-node-0-0-x2b9f container tcpxo-daemon does not run: waiting: CrashLoopBackOff, "
       "last exit code 1 (Error), 7 restarts")
eq((c["status"], c["message"]), ("fail", msg), "version-pair")
eq(j["summary"], "tcpxo: not ready: version-pair: " + msg, "summary")
ok("kubectl -n ml-team logs llama-train-node-0-0-x2b9f -c tcpxo-daemon --previous" in c["remedy"], "remedy")
eq(j["versions"]["daemons"], [], "no running daemon version")
EOF
api_state node-fixture-a3mega pods-daemon-image-pull networks
api_run a3-mega:idle --once --json
a daemon-image-pull <<'EOF'
eq(rc, 1, "exit")
eq(check("version-pair")["message"], "daemon ml-team/llama-train-node-0-0-x2b9f container tcpxo-daemon does not "
   "run: waiting: ImagePullBackOff, 0 restarts", "version-pair")
EOF

# ---- the installer's init container did not complete: plugin-files fails though every file is there ----
api_state node-fixture-a3mega pods-installer-failed networks
api_run a3-mega --once --json
a installer-crashloop <<'EOF'
eq(rc, 1, "exit")
c = check("plugin-files")
eq((c["status"], c["message"]), ("fail", "TCPXO plugin install not finished: init container nccl-tcpxo-installer "
   "of kube-system/nccl-tcpxo-installer-7xq2m has not completed (waiting: CrashLoopBackOff, last exit code 2 "
   "(Error), 4 restarts)"), "plugin-files")
ok("--previous" in c["remedy"], "remedy: %r" % c["remedy"])
EOF
api_state node-fixture-a3mega pods-installer-running networks
api_run a3-mega --once --json
a installer-running <<'EOF'
eq(rc, 1, "exit")
ok(check("plugin-files")["message"].endswith("has not completed (running, 0 restarts): it is still copying the "
   "plugin"), "plugin-files: %r" % check("plugin-files")["message"])
EOF
# An upgrade caught mid-copy: the installer completed before, but lib64 lacks its release's NCCL.
api_state node-fixture-a3mega pods-healthy networks
api_run a3-mega-plugin-half-copied --once --json
a half-copied-with-api <<'EOF'
eq(rc, 1, "exit")
eq((check("plugin-files")["status"], check("plugin-files")["message"]),
   ("fail", "TCPXO plugin install incomplete: lib64/libnccl.so.2.28.7 is missing; lib64/libnccl.so.2 is a dangling "
    "or looping link"), "plugin-files")
EOF

# ---- A3 High (TCPX): Google's TCPX pair and daemon command pass; a skewed daemon fails ----
api_state node-fixture-a3high pods-tcpx-healthy
api_run a3-high --once --json
a tcpx-healthy <<'EOF'
eq(rc, 0, "exit")
eq((j["profile"], j["runtime"]), ("tcpx", "torch-distributed-tcpx"), "profile, runtime")
eq(check("machine-type")["message"], "a3-highgpu-8g (nvidia-h100-80gb) observes profile tcpx", "machine-type")
eq((check("version-pair")["status"], check("version-pair")["message"]),
   ("pass", "installer v3.1.9 and daemon v2.0.12 pair (1 running)"), "version-pair")
c = check("daemon-args")
eq(c["status"], "pass", "daemon-args status")
ok(c["message"].startswith("1 TCPX daemon command line as expected: pod default/nccl-test-host-1 container "
   "tcpx-daemon /tcpgpudmarxd/build/app/tcpgpudmarxd --gpu_nic_preset a3vm"), "daemon-args: %r" % c["message"])
ok("TCPXO" not in c["message"], "no TCPXO in daemon-args")
ok(check("plugin-files")["message"].startswith("TCPX plugin files present (nccl-tcpx-installer v3.1.9 completed"),
   "plugin-files: %r" % check("plugin-files")["message"])
eq(j["versions"], {"installer": "v3.1.9", "daemons": ["v2.0.12"], "expectedDaemon": "v2.0.12"}, "versions")
eq([c["id"] for c in j["checks"] if c["status"] not in ("pass", "skip")], [], "no warning or failure")
EOF
api_state node-fixture-a3high pods-tcpx-skew
api_run a3-high --once --json
a tcpx-skew <<'EOF'
eq(rc, 1, "exit")
eq(j["summary"], "tcpxo: not ready: version-pair: daemon v2.0.11 does not pair with installer v3.1.9 (expects v2.0.12)",
   "summary")
ok("tcpgpudmarxd-dev:v2.0.12 as the tcpx-daemon container" in check("version-pair")["remedy"], "remedy")
EOF

# ---- idle: no workload pod, and no daemon process in /proc ----
api_root a3-mega:idle && rm -rf "$API_ROOT/proc/4241" "$API_ROOT/proc/4242"
api_state node-fixture-a3mega pods-idle networks
api_run a3-mega:idle --once --json
a idle <<'EOF'
eq(rc, 0, "exit")
c = check("version-pair")
eq((c["status"], c["message"]),
   ("skip", "no daemon running: workloads must run daemon v1.0.21 with installer v1.0.15"), "version-pair")
eq(check("daemon-args")["status"], "skip", "daemon-args")
eq((check("daemon-pod")["status"], check("daemon-pod")["message"]), ("skip", "no workload runs the daemon now"), "daemon-pod")
eq(j["workloads"], {"counts": {"attached": 0, "partial": 0, "unattached": 0, "not-fabric": 0}, "pods": []}, "workloads")
eq(j["versions"], {"installer": "v1.0.15", "daemons": [], "expectedDaemon": "v1.0.21"}, "versions")
eq(patch_of(patches[0])[PREFIX + "ready"], "true", "published ready")
EOF
# The stock tree still runs the daemon's processes: no pod accounts for them.
api_run a3-mega --once --json
a idle-unaccounted-process <<'EOF'
eq(rc, 0, "exit")
c = check("version-pair")
eq(c["status"], "warn", "version-pair status")
ok("1 daemon process in /proc" in c["message"] and "version unknown" in c["message"], "version-pair message")
EOF

# ---- digest-only images: versions come from the known digests ----
api_state node-fixture-a3mega pods-digest-only networks
api_run a3-mega --once --json
a digest-only <<'EOF'
pods = json.load(open(os.path.join(state, "pods.json")))["items"]
images = [c["image"] for p in pods[:2] for c in p["spec"].get("initContainers", [])]
ok(images and all("@sha256:" in i and ":v1" not in i for i in images), "fixture images are digest-only")
eq(rc, 0, "exit")
eq(j["versions"], {"installer": "v1.0.15", "daemons": ["v1.0.21"], "expectedDaemon": "v1.0.21"}, "versions")
eq(check("version-pair")["status"], "pass", "version-pair")
EOF

# ---- Google's network names (vpc1..vpc8): ready, the mapping published, AICR's naming rule a warning ----
api_state node-fixture-a3mega-vpc-networks pods-healthy networks-vpc
api_run a3-mega --once --json
a vpc-networks <<'EOF'
eq(rc, 0, "exit")
eq(j["ready"], True, "ready")
c = check("networks")
eq(c["status"], "warn", "networks")
eq(c["message"], "eth1=vpc1,eth2=vpc2,eth3=vpc3,eth4=vpc4,eth5=vpc5,eth6=vpc6,eth7=vpc7,eth8=vpc8; renderer naming "
   "rule: AICR's renderer requires 'gpu-nic' in each Network name: 'vpc1', 'vpc2', 'vpc3', 'vpc4', 'vpc5', 'vpc6', "
   "'vpc7', 'vpc8' do not contain it (the fabric does not depend on the names)", "networks message")
ok("--any-network-names" in c["remedy"], "remedy names the option: %r" % c["remedy"])
eq(j["summary"], "tcpxo: ready (8/8 GPUs paired, 13 checks, 1 warn)", "summary")
want = [{"interfaceName": "eth%d" % (i + 1), "network": "vpc%d" % (i + 1)} for i in range(8)]
eq(j["interfaces"], want, "interfaces in the report")
p = patch_of(patches[0])
eq(p[PREFIX + "interfaces"], json.dumps(want, separators=(",", ":")), "interfaces published")
eq(p[PREFIX + "ready"], "true", "published ready")
EOF

# ---- a GPU NIC on a Network that is not one of the cluster's Device Networks: fails, no mapping ----
api_state node-fixture-a3mega-non-gpu-nic-network pods-healthy networks
api_run a3-mega --once --json
a non-gpu-nic <<'EOF'
eq(rc, 1, "exit")
c = check("networks")
eq(c["status"], "fail", "networks")
ok("Network vpc-extra-subnet does not exist" in c["message"], "networks message: %r" % c["message"])
eq(j["interfaces"], None, "interfaces in the report")
p = patch_of(patches[0])
ok(PREFIX + "interfaces" not in p, "interfaces not in the patch")
ok(PREFIX + "interfaces" not in ann, "interfaces not on the node")
eq(p[PREFIX + "ready"], "false", "published ready")
EOF
# The node carried a mapping from before; the mapping turns bad: the key is removed (set to null).
api_state node-fixture-a3mega pods-healthy networks
api_run a3-mega --once
/usr/bin/python3 - "$API_STATE/node.json" "$TOPDIR/fixtures/kube/node-fixture-a3mega-non-gpu-nic-network.json" <<'EOF'
import json, sys
node, bad = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
key = "networking.gke.io/north-interfaces"
node["metadata"]["annotations"][key] = bad["metadata"]["annotations"][key]
json.dump(node, open(sys.argv[1], "w"), indent=2)
EOF
api_run a3-mega --once
a non-gpu-nic-clears-interfaces <<'EOF'
eq(rc, 1, "exit")
eq(len(patches), 1, "PATCH count")
p = patch_of(patches[0])
ok(PREFIX + "interfaces" in p and p[PREFIX + "interfaces"] is None, "interfaces set to null: %r" % p)
eq(p[PREFIX + "ready"], "false", "published ready")
ok(PREFIX + "interfaces" not in ann, "interfaces gone from the node")
eq(ann[PREFIX + "profile"], "tcpxo", "profile kept")
eq(status_of(status_patches[0])["reason"], "Networks", "condition reason")
EOF

# ---- nic-info disagreeing with the kernel (eth1/eth2 PCI addresses swapped) ----
api_state node-fixture-a3mega-nicinfo-mismatch pods-healthy networks
api_run a3-mega --once --json
a nicinfo-mismatch <<'EOF'
eq(rc, 1, "exit")
c = check("networks")
eq(c["status"], "fail", "networks")
ok("nic-info puts eth1 at 0000:07:00.0, the kernel has it at 0000:06:00.0" in c["message"], "eth1 named")
ok("nic-info puts eth2 at 0000:06:00.0, the kernel has it at 0000:07:00.0" in c["message"], "eth2 named")
eq(j["interfaces"], None, "interfaces in the report")
ok(PREFIX + "interfaces" not in patch_of(patches[0]), "interfaces not published")
EOF

# ---- accelerator nvidia-h100-80gb on A3 Mega hardware ----
api_state node-fixture-a3mega-accel-mismatch pods-healthy networks
api_run a3-mega --once --json
a accelerator-mismatch <<'EOF'
eq(rc, 1, "exit")
c = check("machine-type")
eq((c["status"], c["message"]), ("fail", "accelerator label nvidia-h100-80gb does not match a3-megagpu-8g "
                                 "(expects nvidia-h100-mega-80gb)"), "machine-type")
eq(j["summary"], "tcpxo: not ready: machine-type: " + c["message"], "summary")
eq(patch_of(patches[0])[PREFIX + "ready"], "false", "published ready")
EOF

# ---- GKE managed DRANET (issue 22 point 9): the node label, no networking.gke.io NIC annotations ----
# The NICs reach pods through ResourceClaims: networks skips and names DRANET, nothing else changes.
api_state node-fixture-a3mega-dranet pods-healthy networks
api_run a3-mega --once --json
a dranet <<'EOF'
eq(rc, 0, "exit")
c = check("networks")
eq((c["status"], c["message"]), ("skip", "GPU NICs allocated by DRANET (node label "
   "cloud.google.com/gke-networking-dra-driver=true): they reach pods through ResourceClaims, not Networks and "
   "the networking.gke.io/interfaces annotation; no eth1..eth8 mapping is checked or published"), "networks")
eq([(x["id"], x["status"]) for x in j["checks"] if x["status"] != "pass"], [("networks", "skip")], "checks not passing")
eq(j["interfaces"], None, "interfaces in the report")
eq(patch_of(patches[0]).get(PREFIX + "interfaces"), None, "interfaces not published")
eq(patch_of(patches[0])[PREFIX + "ready"], "true", "published ready")
eq([(p["name"], p["verdict"]) for p in j["workloads"]["pods"]], [("llama-train-node-0-0-x2b9f", "attached")],
   "workloads")
EOF

# ---- no Network API (GKE multi-networking off): said, not failed on ----
api_state node-fixture-a3mega pods-healthy
api_run a3-mega --once --json
a networks-api-absent <<'EOF'
eq(rc, 0, "exit")
eq(check("networks")["status"], "pass", "networks")
eq(reqs[2]["path"], "/apis/networking.gke.io/v1/networks", "third request")
eq((len(patches), len(status_patches), len(posts)), (1, 1, 1), "PATCH, status PATCH, POST")
EOF

# ---- --cleanup: two writes: one merge patch removing our keys and labels, one removing the condition ----
api_state node-fixture-a3mega pods-healthy networks
api_run a3-mega --once
api_run a3-mega --cleanup
a cleanup <<'EOF'
eq(rc, 0, "exit")
eq(methods(), [("PATCH", "/api/v1/nodes/" + NODE), ("PATCH", "/api/v1/nodes/%s/status" % NODE)], "requests")
eq(patch_of(patches[0]), {PREFIX + k: None for k in KEYS}, "cleanup patch")
eq(labels_of(patches[0]), {PREFIX + "profile": None, PREFIX + "ready": None}, "cleanup patch labels")
eq(status_patches[0]["contentType"], "application/strategic-merge-patch+json", "status cleanup Content-Type")
eq(json.loads(status_patches[0]["body"]), {"status": {"conditions": [{"$patch": "delete", "type": "FabricReady"}]}},
   "status cleanup patch")
eq(ann, orig_ann, "annotations after cleanup")
eq(node["metadata"]["labels"], orig["metadata"]["labels"], "labels")
eq(node["status"], orig["status"], "status (the kubelet's conditions kept)")
eq(out, "", "stdout")
eq(err, "tcpxo-agent: removed the fabric.aicr.run/ annotations and labels and the FabricReady condition from node "
   "%s\n" % NODE, "stderr")
EOF
# Again on a clean node: the same two writes, which change nothing (no new resourceVersion).
cp "$API_STATE/node.json" "$API_TMP/node.before.json"
api_run a3-mega --cleanup
a cleanup-again <<'EOF'
eq(rc, 0, "exit")
eq(len(reqs), 2, "requests")
eq(node, json.load(open(os.path.join(tmp, "node.before.json"))), "the node")
EOF
API_NOSERVER=1 api_run a3-mega --cleanup
a cleanup-api-down <<'EOF'
eq(rc, 2, "exit")
ok(err.startswith("tcpxo-agent: --cleanup failed: PATCH node %s: " % NODE), "stderr")
ok("Couldn't connect to server" in err, "says why")
EOF
# The uninstall DaemonSet runs --cleanup --log-format=json: its outcome is one JSON log line.
API_NOSERVER=1 api_run a3-mega --cleanup --log-format=json
a cleanup-log-json <<'EOF'
eq(rc, 2, "exit")
line = json.loads(err.strip().splitlines()[-1])
eq((line["severity"], line["logging.googleapis.com/labels"]["node"]), ("ERROR", NODE), "severity and node")
ok("node" not in line and "fields" not in line, "the node a label, no fields object: %r" % line)
ok(line["message"].startswith("--cleanup failed: PATCH node %s: " % NODE), "message: %r" % line["message"])
EOF

# ---- nothing but 127.0.0.1 is contacted (every connect() and sendto() address, under strace) ----
if command -v strace >/dev/null 2>&1; then
	api_state node-fixture-a3mega pods-healthy networks
	# LeakSanitizer cannot run under ptrace: off for this run (SAN=1 builds).
	API_WRAP="env ASAN_OPTIONS=${ASAN_OPTIONS:-}:detect_leaks=0 strace -f -qq -e trace=connect,sendto,sendmsg -o $API_TMP/strace" \
		api_run a3-mega --once
	a loopback-only <<'EOF'
import re
eq(rc, 0, "exit")
trace = open(os.path.join(tmp, "strace")).read()
inet = re.findall(r'sa_family=AF_INET6?, [^}]*', trace)
ok(inet, "no AF_INET connect seen (strace output: %r)" % trace[:200])
bad = [a for a in inet if 'inet_addr("127.0.0.1")' not in a]
eq(bad, [], "addresses other than 127.0.0.1")
EOF
else
	skip "loopback-only" "strace not installed"
fi

if [ -n "$(api_token_leaks)" ]; then
	nok "token-never-printed" "$(api_token_leaks | head -n 2 | cut -c1-200 | tr '\n' '|')"
else
	ok "token-never-printed"
fi
exit $failed
