#!/bin/sh
# test_once_api_rdma.sh - profile rdma end to end (issue 34): fixtures/a3-ultra + the fake API server.
# An a3-ultragpu-8g node publishes profile=rdma, ready, runtime torch-distributed-rdma; in multi-network
# mode the pod interfaces eth2..eth9 -> rdma-0..rdma-7 and the mode in the attachment annotation; under
# DRANET no interfaces, and the node's ResourceSlice must publish its 8 RDMA NICs (one missing: not
# ready, named; unreadable: a warning), read by --once, listed every interval by the daemon (with
# --no-watch: read with the node), never asked for on a multi-network node; Google's RDMA test pod is
# attached, a GPU pod without the RDMA networks is not.
# Env: TOPDIR, BUILD, TCPXO_AGENT. Contacts 127.0.0.1 only, in namespaces it makes.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TCPXO_AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
. "$TOPDIR/tests/lib/netns.sh"
. "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
. "$TOPDIR/tests/lib/api_scenario.sh"

api_test_begin once-api-rdma

# ---- multi-network: Networks rdma-0..rdma-7 Ready; Google's nccl-test pod and a plain 8-GPU pod ----
api_state node-fixture-a3ultra pods-rdma networks-rdma
api_run a3-ultra --once --json
a rdma-multi-network <<'EOF'
eq(rc, 0, "exit")
eq((j["profile"], j["runtime"], j["ready"]), ("rdma", "torch-distributed-rdma", True), "profile, runtime, ready")
eq(j["machineType"], "a3-ultragpu-8g", "machineType")
eq(check("machine-type")["message"], "a3-ultragpu-8g (nvidia-h200-141gb) observes profile rdma", "machine-type")
eq([(g["pci"], g["nic"]) for g in j["gpus"]][:3],
   [("0000:8f:00.0", "gpu0rdma0"), ("0000:90:00.0", "gpu1rdma0"), ("0000:96:00.0", "gpu2rdma0")], "pairs")
eq(check("networks")["status"], "pass", "networks")
eq(j["interfaces"], [{"interfaceName": "eth%d" % (i + 2), "network": "rdma-%d" % i} for i in range(8)], "interfaces")
for cid in ("aperture-devices", "version-pair", "daemon-args", "daemon-pod"):
    eq(check(cid)["status"], "skip", cid)
a = patch_of(patches[0])
eq((a[PREFIX + "profile"], a[PREFIX + "ready"], a[PREFIX + "runtime"]), ("rdma", "true", "torch-distributed-rdma"),
   "published profile, ready, runtime")
eq(json.loads(a[PREFIX + "interfaces"]), j["interfaces"], "published interfaces")
eq(json.loads(a[PREFIX + "attachment"])["mode"], "multi-network", "attachment mode")
eq((condition()["status"], condition()["reason"]), ("True", "RDMAReady"), "FabricReady")
eq([r for r in reqs if "resourceslices" in r["path"]], [], "not a DRANET node: no ResourceSlice request")
EOF
a rdma-workloads <<'EOF'
w = j["workloads"]
eq(w["counts"], {"attached": 1, "partial": 0, "unattached": 1, "not-fabric": 0}, "counts")
pods = {p["name"]: p for p in w["pods"]}
eq(pods["nccl-test-host-1"]["verdict"], "attached", "Google's nccl-test pod")
eq([f["id"] for f in pods["nccl-test-host-1"]["findings"] if f["status"] not in ("pass", "skip")], [], "its findings")
bad = pods["train-no-rdma"]
eq(bad["verdict"], "unattached", "a pod without the RDMA networks")
f = {x["id"]: x for x in bad["findings"]}
eq((f["interfaces"]["status"], f["interfaces"]["message"]),
   ("fail", "binds none of the RDMA Networks rdma-0..rdma-7: no RDMA NIC reaches the pod, NCCL runs over TCP on eth0"),
   "interfaces finding")
eq((f["plugin-path"]["status"], f["nccl-env"]["status"]), ("fail", "fail"), "gIB path and NCCL_NET")
eq(pods["nccl-test-host-1"]["transport"]["state"], "not-observed", "transport")
EOF

# ---- a Network not ParamsReady: the node is not ready and publishes no interfaces ----
api_state node-fixture-a3ultra pods-rdma networks-rdma-not-ready
api_run a3-ultra --once --json
a rdma-network-not-ready <<'EOF'
eq(rc, 1, "exit")
eq(j["ready"], False, "ready")
eq((check("networks")["status"], check("networks")["message"]), ("fail", "Network rdma-5 is not ParamsReady"), "networks")
eq(j["interfaces"], None, "interfaces")
EOF

# ---- DRANET: no Networks, no interfaces, the mode published; the node's ResourceSlice publishes its 8 RDMA NICs ----
api_state node-fixture-a3ultra-dranet pods-rdma-dranet "" resourceslices-a3ultra
api_run a3-ultra --once --json
a rdma-dranet <<'EOF'
eq(rc, 0, "exit")
eq(j["ready"], True, "ready")
eq(check("networks")["status"], "pass", "networks")
ok(check("networks")["message"].startswith("DRANET mode"), "networks: %r" % check("networks")["message"])
ok("publish its 8 RDMA NICs" in check("networks")["message"], "networks: %r" % check("networks")["message"])
eq(j["interfaces"], None, "interfaces")
a = patch_of(patches[0])
ok(PREFIX + "interfaces" not in a or a[PREFIX + "interfaces"] is None, "no interfaces published")
eq(json.loads(a[PREFIX + "attachment"])["mode"], "dranet", "attachment mode")
eq([(p["name"], p["verdict"]) for p in j["workloads"]["pods"]], [("nccl-test-host-1", "attached")],
   "Google's managed-RDMA test pod, claiming the NICs")
sl = [r for r in reqs if r["path"] == "/apis/resource.k8s.io/v1/resourceslices"]
eq([(r["method"], r["query"]) for r in sl], [("GET", "fieldSelector=spec.driver%3Ddra.net%2Cspec.nodeName%3D" + node["metadata"]["name"])],
   "one list of the node's slices")
EOF

# ---- DRANET, the slice lacks gpu3rdma0: not ready, the NIC named ----
api_state node-fixture-a3ultra-dranet pods-rdma-dranet "" resourceslices-a3ultra-no-gpu3
api_run a3-ultra --once --json
a rdma-dranet-nic-missing <<'EOF'
eq(rc, 1, "exit")
eq(j["ready"], False, "ready")
c = check("networks")
eq(c["status"], "fail", "networks")
eq(c["message"], "DRANET mode: the node's ResourceSlices (driver dra.net) do not publish 1 of its 8 RDMA NICs "
   "as RDMA devices: gpu3rdma0", "networks message")
ok("networking-dra-driver" in c["remedy"], "remedy: %r" % c["remedy"])
a = patch_of(patches[0])
eq(a[PREFIX + "ready"], "false", "published ready")
EOF

# ---- DRANET, ResourceSlices absent (no resource.k8s.io/v1), then forbidden: a warning, never a pass ----
api_state node-fixture-a3ultra-dranet pods-rdma-dranet
api_run a3-ultra --once --json
a rdma-dranet-no-slices <<'EOF'
c = check("networks")
eq(c["status"], "warn", "networks")
ok("does not serve resource.k8s.io/v1" in c["message"], "networks: %r" % c["message"])
EOF
api_state node-fixture-a3ultra-dranet pods-rdma-dranet "" resourceslices-a3ultra
echo '{"forbidden": ["resourceslices"]}' >"$API_STATE/settings"
api_run a3-ultra --once --json
a rdma-dranet-slices-forbidden <<'EOF'
c = check("networks")
eq(c["status"], "warn", "networks")
ok("forbidden (RBAC)" in c["message"], "networks: %r" % c["message"])
ok("resource.k8s.io" in c["remedy"], "remedy: %r" % c["remedy"])
EOF

# ---- the daemon on a DRANET node: the slices listed every --interval (never watched); a slice that
# loses gpu3rdma0 meanwhile makes the node not ready, naming it ----
cat >"$API_TMP/swap.sh" <<'WRAP'
#!/bin/sh
# The daemon for 16 s; after 4 s the node's slice loses gpu3rdma0 (seen at the next list, the resync).
"$@" &
p=$!
sleep 4
cp "$SWAP_FROM" "$SWAP_TO"
sleep 12
kill -TERM "$p"
wait "$p"
WRAP
api_state node-fixture-a3ultra-dranet pods-rdma-dranet "" resourceslices-a3ultra
SWAP_FROM=$TOPDIR/fixtures/kube/resourceslices-a3ultra-no-gpu3.json SWAP_TO=$API_STATE/resourceslices.json \
	API_WRAP="sh $API_TMP/swap.sh" api_run a3-ultra --interval 10s --start-jitter 0
a rdma-dranet-daemon <<'EOF'
def networks_of(r):
    """The networks entry of the attachment annotation a PATCH sets (it lists failures and warnings only)."""
    found = [c for c in json.loads(patch_of(r)[PREFIX + "attachment"])["checks"] if c["id"] == "networks"]
    return found[0] if found else {"status": "pass"}
eq(rc, 0, "exit on SIGTERM")
ok(not any(w in err for w in ("Sanitizer", "runtime error")), "no sanitizer report")
ok(len(patches) >= 2, "two PATCHes at least: %d" % len(patches))
first, last = patch_of(patches[0]), patch_of(patches[-1])
eq((first[PREFIX + "ready"], networks_of(patches[0])["status"]), ("true", "pass"), "first: ready, networks")
eq((last[PREFIX + "ready"], networks_of(patches[-1])["status"]), ("false", "fail"), "last: not ready, networks")
ok(networks_of(patches[-1])["message"].endswith("RDMA devices: gpu3rdma0"), "names gpu3rdma0: %r" %
   networks_of(patches[-1])["message"])
sl = [r for r in reqs if r["path"] == "/apis/resource.k8s.io/v1/resourceslices"]
ok(len(sl) >= 2, "listed at the start and at the resync: %d" % len(sl))
eq({(r["method"], r["query"].split("&")[0], bool(r["watch"])) for r in sl},
   {("GET", "fieldSelector=spec.driver%3Ddra.net%2Cspec.nodeName%3D" + node["metadata"]["name"], False)}, "lists of the node's slices only")
ok(len(sl) <= 4, "about one list an interval: %d in 16 s" % len(sl))
EOF

# ---- the daemon with --no-watch on a DRANET node: the slices read with the node, judged the same ----
api_state node-fixture-a3ultra-dranet pods-rdma-dranet "" resourceslices-a3ultra-no-gpu3
API_WRAP="timeout --preserve-status -s TERM 4" api_run a3-ultra --no-watch --interval 10s --start-jitter 0
a rdma-dranet-daemon-no-watch <<'EOF'
eq(rc, 0, "exit on SIGTERM")
ok(len(patches) >= 1, "published")
eq(patch_of(patches[0])[PREFIX + "ready"], "false", "not ready")
att = json.loads(patch_of(patches[0])[PREFIX + "attachment"])
ok([c for c in att["checks"] if c["id"] == "networks" and c["message"].endswith("gpu3rdma0")], "names gpu3rdma0")
sl = [r for r in reqs if r["path"] == "/apis/resource.k8s.io/v1/resourceslices"]
eq([(r["method"], r["query"]) for r in sl][:1], [("GET", "fieldSelector=spec.driver%3Ddra.net%2Cspec.nodeName%3D" + node["metadata"]["name"])],
   "a GET of the node's slices")
EOF

# ---- the daemon on a multi-network node never asks for ResourceSlices ----
api_state node-fixture-a3ultra pods-rdma networks-rdma resourceslices-a3ultra
API_WRAP="timeout --preserve-status -s TERM 4" api_run a3-ultra --interval 10s --start-jitter 0
a rdma-multi-network-daemon-no-slices <<'EOF'
eq(rc, 0, "exit on SIGTERM")
ok(not any(w in err for w in ("Sanitizer", "runtime error")), "no sanitizer report")
ok(len(patches) >= 1, "published")
eq([r for r in reqs if "resourceslices" in r["path"]], [], "no ResourceSlice request")
EOF

if [ -n "$(api_token_leaks)" ]; then
	nok "token-never-printed" "$(api_token_leaks | head -n 2 | cut -c1-200 | tr '\n' '|')"
else
	ok "token-never-printed"
fi
exit $failed
