#!/bin/sh
# transport.sh - the cost of one transport sample (probes/host/podnet.c), through podnet-dump --repeat:
#   fixture  a fixture /proc of PROCS processes (tmpfs when /dev/shm is one), PODS GPU pods among them
#            (each: its RxDM sidecar's process and its GPU container's, 8 rails x 8 clients, 8 DXS flows),
#            the other processes the host's and other pods' (cgroup v2, systemd driver):
#              found  the pods asked for with their GPU containers' ids (the listing stops once all are found)
#              worst  the same pods asked for with ids that match none of their processes: every pid's cgroup
#                     is read, then the pods' files (the most a sample can cost on this /proc)
#              again  the one-shot commands' second reading of the found pods: each one's cgroup and net/dev
#   real     this machine's /proc grown to PROCS processes (sleeping forks), the last PODS of them moved into
#            real cgroups named like pods' (kubepods/burstable/pod<uid>/<id>, the v1 pids hierarchy; root):
#              cold   no hints: the listing reads every pid's cgroup until the last pod's process
#              steady each pod's pid_hint from a first sample (the daemon's case): no listing
#              absent PODS pods that are not there: every pid's cgroup read (the most a sample costs)
#   syscall  what one empty system call (getppid) and one open+close of /proc/1/cgroup cost here: the
#            listing's cost is a few of those per pid, so compare machines by them
# Prints one line per case (ms per sample, ms per GPU pod, pids listed, cgroups read, net bytes read);
# make bench (bench/run.sh, case 7) puts them in bench/results.md. Env: BUILD (build), PROCS (2000), PODS (8),
# REPEAT (200).
set -eu
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
PROCS=${PROCS:-2000}
PODS=${PODS:-8}
REPEAT=${REPEAT:-200}
D=$PWD/$BUILD/tests/helpers/podnet-dump
[ -x "$D" ] || { echo "transport.sh: build $D first (make $BUILD/tests/helpers/podnet-dump)" >&2; exit 1; }
base=/tmp
[ "$(stat -fc %T /dev/shm 2>/dev/null)" = tmpfs ] && base=/dev/shm
tmp=$(mktemp -d "$base/bench-transport.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
R=$tmp/root

# The other processes: a third the host's, the rest in 40 other pods' containers.
python3 - "$R" "$PROCS" "$PODS" <<'PY'
import os, sys
root, procs, pods = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
others = procs - 2 * pods
for i in range(others):
    pid = 2 + i * 7
    d = os.path.join(root, "proc", str(pid))
    os.makedirs(d)
    if i % 3 == 0:
        cg = "0::/system.slice/svc%d.service\n" % (i % 50)
    else:
        uid = "%08x_0000_4000_8000_%012x" % (i % 40, i % 40)
        cg = ("0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod%s.slice/"
              "cri-containerd-%064x.scope\n" % (uid, i % 97))
    with open(os.path.join(d, "cgroup"), "w") as f:
        f.write(cg)
    with open(os.path.join(d, "comm"), "w") as f:
        f.write("proc%d\n" % i)
PY
want_found="" want_worst="" want_real=""
k=0
while [ $k -lt "$PODS" ]; do
	uid=$(printf '9a9a9a9a-0000-4000-8000-%012d' $k)
	base_pid=$((100000 + k * 10))
	python3 fixtures/gen_proc.py "$R" --pid $base_pid --pod-uid "$uid" --container-id "$(printf 'd%063d' $k)" --rails 0 --listeners 8
	python3 fixtures/gen_proc.py "$R" --pid $((base_pid + 1)) --pod-uid "$uid" --container-id "$(printf 'g%063d' $k)" \
		--rails 8 --clients-per-rail 8 --listeners 8 --flows 8 --rxdm-flow \
		--dev eth0:1000:2000 --dev eth1:10:20 --dev eth2:10:20 --dev eth3:10:20 --dev eth4:10:20 \
		--dev eth5:10:20 --dev eth6:10:20 --dev eth7:10:20 --dev eth8:10:20
	want_found="$want_found $uid=$(printf 'g%063d' $k)"
	want_worst="$want_worst $uid=nomatch"
	want_real="$want_real $uid"
	k=$((k + 1))
done
# Each case once for its lines (the pods found and read), then timed.
"$D" "$R" $want_found | awk '$2 != "read" || $4 != "listeners=8" || $5 != "clients=64" { bad = 1 } END { exit bad }' ||
	{ echo "transport.sh: the fixture did not read as expected" >&2; "$D" "$R" $want_found >&2; exit 1; }
row() {  # row CASE LINE
	echo "$2" | awk -v c="$1" -v p="$PODS" '{
		for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		printf "%-16s %-5s %10.3f %11.3f %6s %6s %8s %8s\n", c, p, v["ms"], v["ms"] / p, v["hints"], v["pids"], v["cgroups"], v["bytes"]
	}'
}
printf '%-16s %-5s %10s %11s %6s %6s %8s %8s\n' case pods ms/sample ms/GPU-pod hints pids cgroups bytes
row fixture-found "$("$D" --repeat "$REPEAT" "$R" $want_found)"
row fixture-worst "$("$D" --repeat "$REPEAT" "$R" $want_worst)"
row fixture-again "$("$D" --repeat "$REPEAT" --again "$R" $want_found)"

if [ "$(id -u)" != 0 ] || [ ! -d /sys/fs/cgroup/pids ]; then
	echo "real: skipped (needs root and the cgroup v1 pids hierarchy to make pods' cgroups)"
	exit 0
fi
cg=/sys/fs/cgroup/pids/kubepods/burstable
python3 - "$PROCS" "$PODS" "$cg" "$tmp/real.ready" <<'PY' &
import os, signal, sys
target, pods, cg, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
kids, made = [], []
def stop(*_):
    for k in kids:
        os.kill(k, signal.SIGKILL)
    for k in kids:
        os.waitpid(k, 0)
    for d in reversed(made):
        try:
            os.rmdir(d)
        except OSError:
            pass
    os._exit(0)
signal.signal(signal.SIGTERM, stop)
have = sum(1 for e in os.listdir("/proc") if e.isdigit())
for _ in range(max(target - have, pods)):
    pid = os.fork()
    if pid == 0:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        while True:
            signal.pause()
    kids.append(pid)
lines = []
for k in range(pods):
    uid = "9b9b9b9b-0000-4000-8000-%012d" % k
    pod = os.path.join(cg, "pod" + uid)
    ctr = os.path.join(pod, "g%063d" % k)
    os.makedirs(ctr, exist_ok=True)
    made += [pod, ctr]
    with open(os.path.join(ctr, "cgroup.procs"), "w") as f:
        f.write("%d\n" % kids[-1 - k])
    lines.append("%s=g%063d" % (uid, k))
with open(ready + ".tmp", "w") as f:
    f.write(" ".join(lines) + "\n")
os.rename(ready + ".tmp", ready)
while True:
    signal.pause()
PY
forker=$!
trap 'kill $forker 2>/dev/null; wait $forker 2>/dev/null; rmdir "$cg" "${cg%/*}" 2>/dev/null; rm -rf "$tmp"' EXIT
i=0
while [ ! -s "$tmp/real.ready" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
[ -s "$tmp/real.ready" ] || { echo "transport.sh: the processes did not start" >&2; exit 1; }
want_cold=$(cat "$tmp/real.ready")
"$D" / $want_cold | awk '$2 != "read" { bad = 1 } END { exit bad }' ||
	{ echo "transport.sh: the real pods did not read" >&2; "$D" / $want_cold >&2; exit 1; }
row real-cold "$("$D" --repeat "$REPEAT" / $want_cold)"
row real-steady "$("$D" --repeat "$REPEAT" --hints / $want_cold)"
row real-absent "$("$D" --repeat "$REPEAT" / $want_real)"
python3 - <<'PY'
import os, time
n = 100000
t = time.perf_counter()
for _ in range(n):
    os.getppid()
a = (time.perf_counter() - t) / n * 1e6
t = time.perf_counter()
for _ in range(20000):
    os.close(os.open("/proc/1/cgroup", os.O_RDONLY))
b = (time.perf_counter() - t) / 20000 * 1e6
print("syscall: getppid %.2f us, open+close /proc/1/cgroup %.2f us (python, loop included)" % (a, b))
PY
