#!/bin/sh
# test_cmd_workloads.sh - `tcpxo-agent workloads` and the workloads of `--once`, end to end: the a3-mega tree in its
# namespace, the fixture pods (fixtures/kube/pods-workloads.json: one per finding, AICR's worker, Google's
# nccl-test pod, a plain pytorch pod, a notebook) from the fake API server or --pods-file; daemon-pod with and
# without the NRI device injector. Env: TOPDIR, BUILD, TCPXO_AGENT. Contacts 127.0.0.1 only, in namespaces it makes.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TCPXO_AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
. "$TOPDIR/tests/lib/netns.sh"
. "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
. "$TOPDIR/tests/lib/api_scenario.sh"

api_test_begin workloads
KUBE=$TOPDIR/fixtures/kube
NODE=gke-a3mega-a3mega-pool-1a2b3c4d-x7k2
export KUBE

# offline ARGS...: the agent on the a3-mega tree in its namespace without any API (results as api_run's).
offline() {
	api_root a3-mega || return 0
	rm -f "$API_TMP/wall" "$API_STATE/requests.log"
	_t0=$(date +%s.%N)
	netns_run "$TOPDIR/fixtures/a3-mega/links.spec" "$TCPXO_AGENT" "$@" --root "$API_ROOT" \
		>"$API_TMP/out" 2>"$API_TMP/err"
	API_RC=$?
	echo "$_t0 $(date +%s.%N)" >"$API_TMP/wall"
	cat "$API_TMP/out" "$API_TMP/err" >>"$API_TMP/all"
}

# The verdict and the failed and warned findings each fixture pod must show, the node's facts known.
WANT='
WANT = {
    "default/nccl-test-host-1": ("attached", [], ["daemon-args", "ipc-lock"]),
    "ml-team/llama-train-node-0-0-x2b9f": ("attached", [], ["daemon-args"]),
    "ml-team/pytorch-ddp-7f9c4": ("unattached", ["daemon-sidecar", "interfaces", "aperture", "plugin-path"],
                                  ["nccl-env", "ipc-lock"]),
    "research/jupyter-notebook-0": ("not-fabric", [], []),
}
for f in ("all-gpus", "daemon-sidecar", "daemon-version", "daemon-args", "daemon-mounts", "device-injection",
          "interfaces", "aperture", "plugin-path", "nccl-env", "ipc-lock"):
    pod = json.load(open(os.path.join(os.environ["KUBE"], "workloads", "partial-%s.json" % f)))
    # The AICR runtime passes the retired --num_nics 8: daemon-args warns, except where the command is gone.
    warns = ([] if f == "daemon-args" else ["daemon-args"]) + (["ipc-lock"] if f == "ipc-lock" else [])
    WANT["ml-team/" + pod["metadata"]["name"]] = ("attached", [], warns) if f == "ipc-lock" else ("partial", [f], warns)


def got(pods):
    return {"%s/%s" % (p["namespace"], p["name"]): (p["verdict"], [x["id"] for x in p["findings"] if x["status"] == "fail"],
                                                   [x["id"] for x in p["findings"] if x["status"] == "warn"])
            for p in pods}
'
export WANT

# ---- with the API: the node's Networks, the installer and the injector are known ----
api_state node-fixture-a3mega pods-workloads networks
api_run a3-mega workloads --json
a api-json <<'EOF'
exec(os.environ["WANT"])
eq(rc, 1, "exit (partial and unattached pods)")
eq(j["schema"], "fabric.aicr.run/v1", "schema")
eq(j["node"], NODE, "node")
eq(j["summary"], "workloads: 1 unattached, 10 partial, 3 attached, 1 not-fabric on " + NODE, "summary")
eq(j["counts"], {"attached": 3, "partial": 10, "unattached": 1, "not-fabric": 1}, "counts")
g = got(j["pods"])
eq({k: (g.get(k), v) for k, v in WANT.items() if g.get(k) != v}, {}, "pods whose verdict or findings differ (got, want)")
eq(sorted(g), sorted(WANT), "pods judged")
eq(methods(), [("GET", "/api/v1/nodes/" + NODE), ("GET", "/api/v1/pods"), ("GET", "/apis/networking.gke.io/v1/networks")],
   "requests: reads only, nothing published")
msg = {p["name"]: {x["id"]: x["message"] for x in p["findings"]} for p in j["pods"]}
eq(msg["llama-interfaces-node-0-0-2f14b"]["interfaces"],
   "networking.gke.io/interfaces does not match the node's GPU NICs: eth1 -> vpc1 (gpu-nic-0), eth2 -> vpc2 (gpu-nic-1), "
   "eth3 -> vpc3 (gpu-nic-2), eth4 -> vpc4 (gpu-nic-3), eth5 -> vpc5 (gpu-nic-4) and 3 more", "interfaces message")
eq(msg["llama-daemon-sidecar-node-0-0-7c1c3"]["daemon-sidecar"],
   "init container tcpxo-daemon runs the daemon without restartPolicy: Always: the daemon never exits, so the "
   "workload's containers never start", "daemon-sidecar message")
eq(msg["llama-daemon-version-node-0-0-46f54"]["daemon-version"],
   "container tcpxo-daemon runs daemon v1.0.20, which does not pair with the installed plugin v1.0.15 (expects v1.0.21)",
   "daemon-version message")
eq(err, "", "stderr")
EOF
cp "$API_TMP/out" "$API_TMP/api.json"

api_run a3-mega workloads
a api-human <<'EOF'
eq(rc, 1, "exit")
eq(lines[0], "workloads: 1 unattached, 10 partial, 3 attached, 1 not-fabric on " + NODE, "summary line first")
eq(lines[2].split(), ["POD", "GPUS", "VERDICT", "TRANSPORT", "FINDINGS"], "table header")
row = [l for l in lines if l.startswith("  ml-team/pytorch-ddp-7f9c4 ")][0]
# No process of the fixture's pods under the tree's /proc: their transport is unknown.
eq(row.split(None, 4)[1:], ["8", "unattached", "unknown", "daemon-sidecar, interfaces, aperture, plugin-path (warn: nccl-env, ipc-lock)"],
   "the unattached row")
i = lines.index(row)
eq(lines[i + 1].split(None, 2)[:2], ["daemon-sidecar", "FAIL"], "its first failed finding below it")
# A finding's message and remedy wrap at words under their column: join them back.
j = [k for k in range(i + 1, len(lines)) if lines[k].strip().startswith("remedy: ")][0]
remedy = lines[j].strip()
for l in lines[j + 1:]:
    if not l.startswith(" " * 38) or l[38:39] == " ":
        break
    remedy += " " + l.strip()
ok(remedy.startswith("remedy: add the tcpxo-daemon native sidecar"), "with its remedy: %r" % remedy)
ok("or, in a TrainJob, reference runtimeRef torch-distributed-tcpxo" in remedy, "the remedy names the runtime")
long = [l for l in lines if l.startswith("      ") and len(l) > 100 and " " in l.strip()]
ok(not long, "finding and remedy lines fit 100 columns: %r" % long[:2])
ok([l for l in lines if l.startswith("  research/jupyter-notebook-0 ") and l.split()[1:] == ["1", "not-fabric", "not-observed", "-"]],
   "the notebook is listed, not judged")
EOF

# ---- --once: the same table after the checks, the member in JSON; the node's verdict is its own ----
api_state node-fixture-a3mega pods-workloads networks
api_run a3-mega --once --json
a once-json <<'EOF'
eq(rc, 0, "exit: the node is ready on its own wiring")
eq(j["ready"], True, "ready")
eq(j["summary"], "tcpxo: ready (8/8 GPUs paired, 13 checks, 2 warn)", "summary")
eq([(c["id"], c["status"]) for c in j["checks"] if c["status"] != "pass"], [("daemon-args", "warn"), ("daemon-pod", "warn")],
   "checks not passing")
ok("pod ml-team/llama-daemon-mounts-node-0-0-2402d container tcpxo-daemon: container tcpxo-daemon: no volumeMount at "
   "/hostsysfs" in check("daemon-pod")["message"], "daemon-pod names the bad daemon pod")
w = j["workloads"]
eq(w["counts"], {"attached": 3, "partial": 10, "unattached": 1, "not-fabric": 1}, "workloads counts")
eq(w["pods"], json.load(open(os.path.join(tmp, "api.json")))["pods"], "the same pods as `workloads --json`")
eq(len(patches), 1, "published")
EOF
api_run a3-mega --once
a once-human <<'EOF'
eq(rc, 0, "exit")
eq(lines[0], "tcpxo: ready (8/8 GPUs paired, 13 checks, 2 warn)", "the node's summary stays first")
i = lines.index("workloads: 1 unattached, 10 partial, 3 attached, 1 not-fabric on " + NODE)
ok(i > [n for n, l in enumerate(lines) if l.startswith("  daemon-pod ")][0], "the table comes after the checks")
ok([l for l in lines[i:] if l.startswith("  ml-team/pytorch-ddp-7f9c4 ")], "and lists the pods")
EOF

# ---- the healthy and the idle node ----
api_state node-fixture-a3mega pods-healthy networks
api_run a3-mega workloads
a healthy <<'EOF'
eq(rc, 0, "exit")
eq(lines[0], "workloads: 0 unattached, 0 partial, 1 attached on " + NODE, "summary")
eq(lines[3].split(None, 4), ["ml-team/llama-train-node-0-0-x2b9f", "8", "attached", "unknown", "-"], "row")
ok(lines[4].split()[:2] == ["transport", "SKIP"], "the transport's evidence under it: %r" % lines[4:5])
EOF
api_state node-fixture-a3mega pods-idle networks
api_run a3-mega workloads --json
a idle <<'EOF'
eq(rc, 0, "exit: no GPU pod counts as every pod attached")
eq((j["summary"], j["counts"], j["pods"]), ("workloads: 0 unattached, 0 partial, 0 attached on " + NODE,
   {"attached": 0, "partial": 0, "unattached": 0, "not-fabric": 0}, []), "nothing judged")
EOF

# ---- daemon-pod and the NRI device injector (issue 13 item 8) ----
api_state node-fixture-a3mega pods-no-injector networks
api_run a3-mega --once --json
a no-injector <<'EOF'
eq(rc, 1, "exit")
c = check("daemon-pod")
eq(c["status"], "fail", "daemon-pod")
eq(j["summary"], "tcpxo: not ready: daemon-pod: " + c["message"], "summary")
ok(c["message"].startswith("the NRI device injector does not run on this node (no pod in kube-system with label "
   "k8s-app=device-injector on this node)"), "message: %r" % c["message"])
ok("k8s-app=device-injector" in c["remedy"], "remedy")
eq([(p["name"], p["verdict"], [f["id"] for f in p["findings"] if f["status"] == "fail"]) for p in j["workloads"]["pods"]],
   [("llama-train-node-0-0-x2b9f", "partial", ["device-injection"])], "the workload cannot get its devices either")
eq(patch_of(patches[0])[PREFIX + "ready"], "false", "published ready")
EOF
api_state node-fixture-a3mega pods-injector-pending networks
api_run a3-mega --once --json
a injector-pending <<'EOF'
eq(rc, 1, "exit")
ok("(kube-system/device-injector-8d2lq: phase Pending, container device-injector waiting (ImagePullBackOff))"
   in check("daemon-pod")["message"], "names what was found: %r" % check("daemon-pod")["message"])
EOF

# ---- --pods-file: `kubectl get pods -o json` output, offline ----
offline workloads --node "$NODE" --pods-file "$KUBE/pods-workloads.json" --json
a pods-file-offline <<'EOF'
exec(os.environ["WANT"])
eq(rc, 1, "exit")
# Without the node from the API its Networks are unknown: interfaces compares the shape only (a skip).
eq(j["counts"], {"attached": 4, "partial": 9, "unattached": 1, "not-fabric": 1}, "counts")
p = [p for p in j["pods"] if p["name"] == "llama-interfaces-node-0-0-2f14b"][0]
eq(p["verdict"], "attached", "the vpc1..vpc8 pod cannot be told wrong without the node")
f = [f for f in p["findings"] if f["id"] == "interfaces"][0]
eq((f["status"], f["message"]), ("skip", "8 GPU NICs bound; no API access: the node's GPU NIC Networks are not known: "
                                  "the Networks are not compared"), "interfaces skipped, saying why")
g = got(j["pods"])
WANT["ml-team/llama-interfaces-node-0-0-2f14b"] = ("attached", [], ["daemon-args"])
eq({k: (g.get(k), v) for k, v in WANT.items() if g.get(k) != v}, {}, "the other verdicts and findings hold")
eq(err, "", "stderr")
EOF
# Google's samples (container-engine-accelerators 992db812 gpudirect-tcpxo/): nccl-test.yaml runs the daemon
# privileged on the host network without /hostsysfs and /hostprocsysfs (its start script falls back to the host's
# /sys and /proc/sys); nccl-test-latest-autopilot.yaml sets no NCCL_FASTRAK_LLCM_DEVICE_DIRECTORY (the plugin
# falls back to sysfs, used only with LLCM on): neither is partial.
offline workloads --node "$NODE" --pods-file "$KUBE/pods-google-samples.json" --json
a google-samples <<'EOF'
eq(rc, 0, "exit")
eq(j["counts"], {"attached": 2, "partial": 0, "unattached": 0, "not-fabric": 0}, "counts")
f = {p["name"]: {x["id"]: (x["status"], x["message"]) for x in p["findings"]} for p in j["pods"]}
# The JSON lists what did not pass: daemon-mounts passed.
eq(sorted(f["nccl-test-host-1"]), ["nccl-env"], "host network, privileged: the mounts are not needed")
eq(f["nccl-test-host-2"]["aperture"][0], "warn", "autopilot: the directory unset is a warning")
ok("falls back to /sys/bus/pci/devices" in f["nccl-test-host-2"]["aperture"][1],
   "names the fallback: %r" % (f["nccl-test-host-2"]["aperture"],))
eq(err, "", "stderr")
EOF
offline workloads --node "$NODE" --pods-file - <"$KUBE/pods-workloads.json"
a pods-file-stdin <<'EOF'
eq(rc, 1, "exit")
eq(lines[0], "workloads: 1 unattached, 9 partial, 4 attached, 1 not-fabric on " + NODE, "summary")
EOF
offline workloads --node other-node --pods-file "$KUBE/pods-workloads.json"
a pods-file-other-node <<'EOF'
eq(rc, 0, "exit: the file's pods are bound to another node")
eq(lines[0], "workloads: 0 unattached, 0 partial, 0 attached on other-node", "summary")
EOF
# A pod the agent cannot read (env not a list) is set aside and named; the others are judged as before.
"$API_PY" - "$KUBE/pods-workloads.json" "$API_TMP/pods-odd.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["items"].append({"metadata": {"namespace": "batch", "name": "odd"}, "spec": {"nodeName": d["items"][0]["spec"]["nodeName"],
                   "containers": [{"name": "c", "image": "busybox", "env": {}}]}, "status": {"phase": "Running"}})
json.dump(d, open(sys.argv[2], "w"))
PY
offline workloads --node "$NODE" --pods-file "$API_TMP/pods-odd.json"
a pods-file-unreadable-pod <<'EOF'
eq(rc, 1, "exit")
eq(lines[0], "workloads: 1 unattached, 9 partial, 4 attached, 1 not-fabric on " + NODE, "summary")
eq(err, "tcpxo-agent: workloads: pod batch/odd could not be read (items[%d].spec.containers[0].env: expected an array, "
   "got object): not judged\n" % (len(json.load(open(os.environ["KUBE"] + "/pods-workloads.json"))["items"])), "stderr")
EOF
# Issue 30: a GPU pod the agent cannot read (a GPU request that is no whole number) is a workload not
# judged: unknown (exit 2), said on stderr, the others judged as before. A pod that has ended is not.
"$API_PY" - "$KUBE/pods-workloads.json" "$API_TMP/pods-odd-gpu.json" "$API_TMP/pods-odd-gpu-failed.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pod = {"metadata": {"namespace": "batch", "name": "half", "uid": "uid-half"},
       "spec": {"nodeName": d["items"][0]["spec"]["nodeName"],
                "containers": [{"name": "c", "image": "busybox", "resources": {"limits": {"nvidia.com/gpu": "1500m"}}}]},
       "status": {"phase": "Pending"}}
json.dump(dict(d, items=d["items"] + [pod]), open(sys.argv[2], "w"))
pod["status"]["phase"] = "Failed"
json.dump(dict(d, items=d["items"] + [pod]), open(sys.argv[3], "w"))
PY
offline workloads --node "$NODE" --pods-file "$API_TMP/pods-odd-gpu.json"
a pods-file-unreadable-gpu-pod <<'EOF'
eq(rc, 2, "exit: a GPU pod not judged")
eq(lines[0], "workloads: 1 unattached, 9 partial, 4 attached, 1 not-fabric on " + NODE, "summary")
ok("pod batch/half could not be read (items[" in err and "'1500m' is not a whole number of GPUs" in err, err)
ok("tcpxo-agent: workloads: unknown: 1 pod that may request GPUs could not be read\n" in err, err)
EOF
offline workloads --node "$NODE" --pods-file "$API_TMP/pods-odd-gpu-failed.json"
a pods-file-unreadable-gpu-pod-ended <<'EOF'
eq(rc, 1, "exit: the pod has ended")
ok("may request GPUs" not in err, err)
EOF
# The API down and a --pods-file: judged with what the file tells.
api_state node-fixture-a3mega pods-idle networks
API_NOSERVER=1 api_run a3-mega workloads --pods-file "$KUBE/pods-workloads.json"
a pods-file-api-down <<'EOF'
eq(rc, 1, "exit")
eq(lines[0], "workloads: 1 unattached, 9 partial, 4 attached, 1 not-fabric on " + NODE, "summary")
EOF

# ---- unknown: no pods to judge, or a file that is not a pod list (exit 2, saying why) ----
offline workloads --node "$NODE"
a no-api-no-file <<'EOF'
eq(rc, 2, "exit")
eq(out, "", "stdout")
ok(err.startswith("tcpxo-agent: workloads: no Kubernetes API configured (") and "--pods-file" in err, "says why: %r" % err)
EOF
API_NOSERVER=1 api_run a3-mega workloads
a api-down <<'EOF'
eq(rc, 2, "exit")
ok(err.startswith("tcpxo-agent: workloads: listing the pods on %s: " % NODE), "says why: %r" % err)
EOF
# No facts about the node: a tree without its GPUs (a laptop's /, here the cpu-node fixture) and no API.
"$TCPXO_AGENT" workloads --root "$TOPDIR/fixtures/cpu-node" --node "$NODE" --pods-file "$KUBE/pods-workloads.json" \
	>"$API_TMP/out" 2>"$API_TMP/err"
API_RC=$?
a no-node-facts <<'EOF'
eq(rc, 2, "exit: the pods are not judged against a tree that is not the node's")
ok(out.startswith("workloads: not judged: no facts about node %s: 15 GPU pods on it, but --root " % NODE), "stdout: %r" % out)
ok("not-fabric" not in out, "no pod called not-fabric: %r" % out)
ok(err.startswith("tcpxo-agent: workloads: no facts about node %s: " % NODE) and "give --root with the node's tree, or the API" in err,
   "says why: %r" % err)
EOF
offline workloads --node "$NODE" --pods-file "$KUBE/node-a3mega.json"
a pods-file-not-a-list <<'EOF'
eq(rc, 2, "exit")
ok(err.startswith("tcpxo-agent: workloads: --pods-file %s/node-a3mega.json: kind: expected \"PodList\" or \"List\", got Node"
                  % os.environ["KUBE"]), "names the file and the field: %r" % err)
EOF
offline workloads --node "$NODE" --pods-file "$KUBE/no-such-file.json"
a pods-file-missing <<'EOF'
eq(rc, 2, "exit")
ok("--pods-file %s/no-such-file.json" % os.environ["KUBE"] in err, "names the file: %r" % err)
EOF
offline --once --pods-file "$KUBE/pods-workloads.json"
a pods-file-once <<'EOF'
eq(rc, 2, "exit: --pods-file is the workloads command's")
ok("--pods-file does not apply to --once; it applies to workloads" in err, "says so: %r" % err)
EOF

if [ -n "$(api_token_leaks)" ]; then
	nok "token-never-printed" "$(api_token_leaks | head -n 2 | cut -c1-200 | tr '\n' '|')"
else
	ok "token-never-printed"
fi
exit $failed
