#!/bin/sh
# seeds.sh - (re)build the seed corpora under fixtures/fuzz/<target>/ from the project's fixtures.
# Crash regressions (crash-*, leak-*, timeout-*) beside them are kept. netlink seeds need root
# (a private namespace per links.spec, dumped by fuzz/nldump.py); without it they are left as they are.
set -eu
cd "$(dirname "$0")/.."
TOPDIR=$PWD
export TOPDIR
F=fixtures/fuzz

fresh() {  # fresh TARGET: empty its seed-* files, keep regressions
	mkdir -p "$F/$1"
	rm -f "$F/$1"/seed-*
}

fresh kubeparse_node
for f in fixtures/kube/node-*.json; do cp "$f" "$F/kubeparse_node/seed-$(basename "$f")"; done
fresh kubeparse_pods
for f in fixtures/kube/pods-*.json; do cp "$f" "$F/kubeparse_pods/seed-$(basename "$f")"; done
fresh kubeparse_networks
for f in fixtures/kube/networks*.json; do cp "$f" "$F/kubeparse_networks/seed-$(basename "$f")"; done
fresh kubeslices
for f in fixtures/kube/resourceslices-*.json; do cp "$f" "$F/kubeslices/seed-$(basename "$f")"; done
# NodeLists cut to their first three nodes, compact: the fuzzer mutates small inputs faster.
# The scanner alone (nodelist) gets six: its fuzz target refuses the fifth item now and then.
# The fleet's status (status) the same three; case-* files beside them carry FabricReady conditions.
fresh coherence
fresh nodelist
fresh status
/usr/bin/python3 - "$F/coherence" "$F/nodelist" "$F/status" <<'PY'
import glob, json, os, sys
for out, keep in ((sys.argv[1], 3), (sys.argv[2], 6), (sys.argv[3], 3)):
    for p in sorted(glob.glob("fixtures/nodelists/*.json")):
        d = json.load(open(p))
        d["items"] = d.get("items", [])[:keep]
        with open(os.path.join(out, "seed-" + os.path.basename(p)), "w") as f:
            json.dump(d, f, separators=(",", ":"))
PY

# The workload fixtures, one Pod each (compact); case-* files beside them are hand-made hostile pods.
fresh attach
for f in fixtures/kube/workloads/*.json; do
	/usr/bin/python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' \
		"$f" >"$F/attach/seed-$(basename "$f")"
done
# Runtimes: AICR's as helm template writes it and as the API returns it, the TCPX one, and each mutation
# (compact JSON); case-* files beside them are hand-made hostile manifests.
fresh trainruntime
for f in aicr-tcpxo.yaml tcpx.yaml; do cp "fixtures/runtime/$f" "$F/trainruntime/seed-$f"; done
for f in fixtures/runtime/aicr-tcpxo.json fixtures/runtime/mutations/*.json; do
	/usr/bin/python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":")))' \
		"$f" >"$F/trainruntime/seed-$(basename "$f")"
done
# YAML seeds (fixtures/fuzz/yaml/) are written by hand: the device annotation, helm template output, aliases.

fresh json
for f in fixtures/kube/node-a3mega.json fixtures/kube/pods-healthy.json fixtures/kube/networks.json \
	 fixtures/a3-mega/expected.json; do
	cp "$f" "$F/json/seed-$(basename "$(dirname "$f")")-$(basename "$f")"
done

# The interfaces annotation as the agent publishes it (compact list), and hand-made odd shapes.
fresh ifacemap
/usr/bin/python3 - "$F/ifacemap" <<'PY'
import glob, json, os, sys
out = sys.argv[1]
seen = set()
for p in sorted(glob.glob("fixtures/nodelists/*.json")):
    for item in json.load(open(p)).get("items", []):
        v = item.get("metadata", {}).get("annotations", {}).get("fabric.aicr.run/interfaces")
        if v and v not in seen:
            seen.add(v)
            open(f"{out}/seed-{os.path.basename(p)[:-5]}-{len(seen)}", "w").write(v)
open(f"{out}/seed-empty-list", "w").write("[]")
open(f"{out}/seed-eth10", "w").write('[{"interfaceName":"eth10","network":"gpu-nic-9"},{"interfaceName":"eth2","network":"gpu-nic-1"}]')
PY

fresh imageref
n=0
for ref in \
	us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21 \
	us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/nccl-plugin-gpudirecttcpx-dev:v1.0.15@sha256:4c9f0de3f39455a2ea35e844e0fc92564ca5629f6b03250fde40e8160719dae4 \
	localhost:5000/tcpgpudmarxd-dev@sha256:8d9e10fd589a34ab8a0aa64f7e70ad075c8f1c69bea176350f8d211367697e3d \
	docker.io/library/busybox busybox:latest; do
	n=$((n + 1)); printf '%s' "$ref" >"$F/imageref/seed-ref-$n"
done
for pair in 'v1.0.09
v1.0.9' 'v1.0.9-1
v1.0.13_1' 'v1.0.6-sctp
v1.0.21' '1.0.21
v1.0.100'; do
	n=$((n + 1)); printf '%s' "$pair" >"$F/imageref/seed-tags-$n"
done

fresh releases
sed -n '/^```json$/,/^```$/p' docs/releases-format.md | sed '1d;$d' >"$F/releases/seed-doc"
printf '{"schema":"fabric.aicr.run/releases/v1","releases":[]}' >"$F/releases/seed-empty"

fresh bar4
for d in fixtures/a3-mega/dev/aperture_devices/0000:00:10.0 fixtures/a3-mega-stale-aperture/dev/aperture_devices/*; do
	[ -f "$d/resource4" ] || continue
	b=$(basename "$d")
	cp "$d/resource4" "$F/bar4/seed-resource4-$b"
done
cp fixtures/a3-mega/dev/aperture_devices/0000:00:10.0/vendor "$F/bar4/seed-vendor"
cp fixtures/a3-mega/dev/aperture_devices/0000:00:10.0/device "$F/bar4/seed-device"
printf '10.0.16.3' >"$F/bar4/seed-ipv4-text"

fresh cmdline
for f in fixtures/*/proc/*/cmdline; do
	s=$(echo "$f" | cut -d/ -f2,4 | tr / -)
	cp "$f" "$F/cmdline/seed-$s"
done
printf '/fts/fastrak_gpumem_manager --num_hops 2 --num_nics=8' >"$F/cmdline/seed-setproctitle"
# The TCPX daemon's command line, and Google's old TCPXO sample with a fatal flag added (NUL-separated).
printf '/tcpgpudmarxd/build/app/tcpgpudmarxd\000--gpu_nic_preset\000a3vm\000--gpu_shmem_type\000fd\000--uds_path\000/run/tcpx\000--setup_param\000"--verbose 128 2 0"\000' \
	>"$F/cmdline/seed-tcpx"
printf '/bin/sh\000-c\000/fts/entrypoint_rxdm_container.sh --num_hops=2 --num_nics=8 --uid= --alsologtostderr --enforce_kernel_ipv6_support=false\000' \
	>"$F/cmdline/seed-retired-fatal"

fresh sysfs
printf '0000:06:00.0' >"$F/sysfs/seed-bdf"
printf '000000:8e:1f.7' >"$F/sysfs/seed-bdf-6digit"
printf '1\n' >"$F/sysfs/seed-numa"
printf -- '-1\n' >"$F/sysfs/seed-numa-none"
printf '0x1ae0\n' >"$F/sysfs/seed-vendor"
printf '0x1234567890abcdef\n' >"$F/sysfs/seed-vendor-long"
printf '0x030200\n' >"$F/sysfs/seed-class"
printf 'libnccl.so.2.28.7\nlibnccl.so.2.100.0' >"$F/sysfs/seed-nccl-pair"
printf 'resource4_wc' >"$F/sysfs/seed-resource"
printf 'libnvidia-ml.so.1' >"$F/sysfs/seed-lib64"

if [ "$(id -u)" = 0 ] && unshare -n true 2>/dev/null; then
	. tests/lib/netns.sh
	fresh netlink
	for s in a3-mega a3-mega-in-pod a3-mega-displaced-gvnic; do
		netns_run "fixtures/$s/links.spec" /usr/bin/python3 fuzz/nldump.py "$F/netlink/seed-$s.bin"
	done
	netns_run tests/integration/data/links-basic.spec /usr/bin/python3 fuzz/nldump.py "$F/netlink/seed-links-basic.bin"
	# The answers links_query() reads (strict, filtered by interface): eth0 carries the default route.
	netns_run fixtures/a3-mega/links.spec /usr/bin/python3 fuzz/nldump.py --answers "$F/netlink/seed-answer-eth0" eth0
fi

# Watch streams: one event per line, as kube-apiserver (and tests/lib/fakeapi.py) writes them.
fresh watchevent
W=$F/watchevent
pod='{"kind":"Pod","apiVersion":"v1","metadata":{"name":"llama-0","namespace":"ml-team","resourceVersion":"48213402"},"spec":{"nodeName":"n1","containers":[{"name":"tcpxo-daemon","image":"us-docker.pkg.dev/gce-ai-infra/gpudirect-tcpxo/tcpgpudmarxd-dev:v1.0.21"}]}}'
for t in ADDED MODIFIED DELETED; do printf '{"type":"%s","object":%s}\n' "$t" "$pod" >"$W/seed-$t"; done
printf '{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"48213500","creationTimestamp":null},"spec":{"containers":null},"status":{}}}\n' >"$W/seed-bookmark"
printf '{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"30","annotations":{"k8s.io/initial-events-end":"true"}}}}\n' >"$W/seed-initial-end"
printf '{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"too old resource version: 1 (48213377)","reason":"Expired","code":410}}\n' >"$W/seed-error-410"
{
	printf '{"type":"ADDED","object":%s}\r\n' "$pod"
	printf '{"type":"MODIFIED","object":{"kind":"Pod","metadata":{"name":"llama-0","namespace":"ml-team","resourceVersion":"48213403"}}}\n'
	printf '{"type":"BOOKMARK","object":{"kind":"Pod","metadata":{"resourceVersion":"48213404"}}}\n'
	printf '{"type":"DELETED","object":{"kind":"Pod","metadata":{"name":"llama-0","namespace":"ml-team","resourceVersion":"48213405"}}}\n'
	printf '{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired","message":"gone"}}\n'
	printf '{"type":"ADDED","object":{"kind":"Pod","metadata":{"name":"p2","resourceVersion":"9"}}}\n'
} >"$W/seed-stream"
printf '{"type":"ADDED","object":{"kind":"Node","metadata":{"name":"n","resourceVersion":"1"}}}\nnot json\n{"type":"ADDED","object":[1,2\n' >"$W/seed-malformed"

# A pod process's net files and cgroup as fixtures/gen_proc.py writes them (the kernel's formats).
# procnet's first byte picks the parser: 0 net/unix, 1 net/udp, 2 net/dev, 3 a path alone; +0x80 a cut read.
fresh procnet
fresh podcgroup
T=$(mktemp -d)
/usr/bin/python3 fixtures/gen_proc.py "$T" --pid 10 --pod-uid 1b2c3d4e-0000-1111-2222-333344445555 \
	--container-id 0123abcd --rails 8 --flows 4 --rxdm-flow --dev eth1:5000:6000
/usr/bin/python3 fixtures/gen_proc.py "$T" --pid 11 --pod-uid 1b2c3d4e-0000-1111-2222-333344445555 \
	--container-id 0123abcd --driver cgroupfs --cgroup v1 --qos guaranteed --rails 2 --clients-per-rail 3 \
	--uds-prefix /run/tcpxo --short-names
/usr/bin/python3 fixtures/gen_proc.py "$T" --pid 12 --pod-uid 1b2c3d4e-0000-1111-2222-333344445555 \
	--container-id 0123abcd --runtime crio --qos besteffort --not-pod
for p in 10 11; do
	{ printf '\000'; cat "$T/proc/$p/net/unix"; } >"$F/procnet/seed-unix-$p"
	{ printf '\001'; cat "$T/proc/$p/net/udp"; } >"$F/procnet/seed-udp-$p"
	{ printf '\002'; cat "$T/proc/$p/net/dev"; } >"$F/procnet/seed-dev-$p"
done
{ printf '\200'; head -c 1000 "$T/proc/10/net/unix"; } >"$F/procnet/seed-unix-cut"
printf '\003@rxdm_uds_buf_op:10.64.1.7@@@@' >"$F/procnet/seed-path"
for p in 10 11 12; do cp "$T/proc/$p/cgroup" "$F/podcgroup/seed-$p"; done
printf '0::/../pod1b2c3d4e-0000-1111-2222-333344445555/0123abcd\n' >"$F/podcgroup/seed-cgroupns"
printf '0::/kubepods.slice/kubepods-pod1b2c3d4e_0000_1111_2222_333344445555.slice/crio-conmon-0123abcd.scope\n' \
	>"$F/podcgroup/seed-conmon"
rm -rf "$T"
# The InfiniBand port texts of fixtures/a3-ultra, as the kernel prints them; the first byte picks
# the parser: even the port state ("4: ACTIVE"), odd the GID (%pI6).
fresh rdma
P=fixtures/a3-ultra/sys/class/infiniband/mlx5_0/ports/1
{ printf '\000'; cat "$P/state"; } >"$F/rdma/seed-state"
{ printf '\000'; cat "$P/phys_state"; } >"$F/rdma/seed-phys-state"
{ printf '\000'; cat fixtures/a3-ultra-port-down/sys/class/infiniband/mlx5_3/ports/1/phys_state; } >"$F/rdma/seed-disabled"
for i in 0 3; do { printf '\001'; cat "$P/gids/$i"; } >"$F/rdma/seed-gid-$i"; done
printf '\001::ffff:10.0.4.7\n' >"$F/rdma/seed-gid-compressed"
printf '\0004:ACTIVE\n' >"$F/rdma/seed-state-no-space"
# A node condition's lastHeartbeatTime as Kubernetes writes it (and what it must refuse).
fresh timeparse
T=$F/timeparse
printf '2026-12-05T00:40:10Z' >"$T/seed-seconds"
printf '2026-12-05T00:40:10.123456Z' >"$T/seed-micro"
printf '2028-02-29T23:59:59Z' >"$T/seed-leap-day"
printf '2026-12-05T00:40:10+01:00' >"$T/seed-offset"
printf '2026-02-29T00:00:00Z' >"$T/seed-no-leap-day"
# API request paths as the client sends them (a method line, then the path), and hostile ones.
fresh apicount
A=$F/apicount
printf 'GET\n/api/v1/nodes/gke-a3mega-pool-1\n' >"$A/seed-get-node"
printf 'PATCH\n/api/v1/nodes/gke-a3mega-pool-1/status\n' >"$A/seed-patch-status"
printf 'GET\n/api/v1/pods?fieldSelector=spec.nodeName%%3Dn1&watch=1&resourceVersion=5&allowWatchBookmarks=true\n' >"$A/seed-watch-pods"
printf 'POST\n/apis/events.k8s.io/v1/namespaces/default/events\n' >"$A/seed-post-event"
printf 'GET\n/apis/networking.gke.io/v1/networks?resourceVersion=0\n' >"$A/seed-list-networks"
printf 'get\n/api/v1/namespaces/a"b\\c/pods/\001\377x\n' >"$A/seed-hostile"

# process_* figures: the first byte picks the parser (0 /proc/<pid>/stat, 1 /proc/stat, 2 /proc/<pid>/limits).
fresh procstat
P=$F/procstat
printf '\000%s\n' '4242 (tcpxo-agent) S 1 4242 4242 0 -1 4194560 1500 0 3 0 250 125 0 0 20 0 4 0 98765 11657216 1542 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3 0 0 0 0 0' >"$P/seed-stat"
printf '\000%s\n' '4242 (tcpxo) (agent) S 1 4242 4242 0 -1 4194560 1500 0 3 0 250 125 0 0 20 0 4 0 98765 11657216 1542 18446744073709551615' >"$P/seed-stat-comm"
printf '\001cpu  1 2 3 4\ncpu0 1 2 3 4\nintr 1 2 3\nctxt 99\nbtime 1796571902\nprocesses 5\n' >"$P/seed-btime"
printf '\002Limit                     Soft Limit           Hard Limit           Units     \nMax cpu time              unlimited            unlimited            seconds   \nMax open files            20000                1048576              files     \n' >"$P/seed-limits"
