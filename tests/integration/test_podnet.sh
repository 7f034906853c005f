#!/bin/sh
# test_podnet.sh - the transport probe (probes/host/podnet.c) read as uid 65534: on real kernel sockets (a
# private network namespace with RxDM-like listeners and NCCL-like clients, 8 rails then 2), and on
# fixtures/gen_proc.py's files (both cgroup drivers, v1 and v2, each QoS, no process, an unreadable file,
# a FIFO planted as net/unix, ROOT/proc missing, a pid link out of the root, hidepid).
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-$TOPDIR/build}
SOCKS=$TOPDIR/tests/integration/data/podnet_sockets.py
NOBODY="setpriv --reuid 65534 --regid 65534 --clear-groups"
PUID=${PUID:-7e57a1b2-0000-4000-8000-00000000$(printf '%04d' $(($$ % 10000)))}

# ---- the real kernel, inside `unshare -m -n` (this script again, with --inner TMP) ----
if [ "${1:-}" = --inner ]; then
	tmp=$2
	D="$tmp/podnet-dump"
	pids=""
	cg=""
	trap 'for p in $pids; do kill "$p" 2>/dev/null; done; wait; [ -n "$cg" ] && rmdir "$cg/rxdm" "$cg/gpu" "$cg" "${cg%/*}" "${cg%/*/*}" 2>/dev/null' EXIT
	ip link set lo up
	flows=2
	if ! ip addr add 169.254.169.254/32 dev lo 2>/dev/null; then
		flows=0
		skip "podnet-real-dxs" "cannot route 169.254.169.254 in the namespace: DXS flows covered by fixtures only"
	fi
	# The processes in real cgroups named like a pod's (cgroupfs layout, v1 pids hierarchy) where this
	# machine lets us make them; else their bind-mounted /proc/<pid>/cgroup is overlaid by a fixture's.
	real_cg=0
	if [ -d /sys/fs/cgroup/pids ] && mkdir -p "/sys/fs/cgroup/pids/kubepods/burstable/pod$PUID/rxdm" \
		"/sys/fs/cgroup/pids/kubepods/burstable/pod$PUID/gpu" 2>/dev/null; then
		cg=/sys/fs/cgroup/pids/kubepods/burstable/pod$PUID
		real_cg=1
	fi
	procs() { if [ $real_cg = 1 ]; then echo "$cg/$1/cgroup.procs"; else echo -; fi; }
	names8=""
	for i in 1 2 3 4 5 6 7 8; do names8="$names8 rxdm_uds_buf_op:10.64.1.$i"; done
	python3 "$SOCKS" rxdm "$tmp/rxdm.ready" "$(procs rxdm)" $names8 "rxdm_uds_buf_op:10.64.2.1:short" &
	pids="$pids $!"
	wait_for "[ -s '$tmp/rxdm.ready' ]" 30 || { nok podnet-real "the rxdm stand-in did not start"; exit 1; }
	rxdm=$(cat "$tmp/rxdm.ready")

	# ROOT/proc/<pid>: the real /proc/<pid>, bind-mounted (this mount namespace only).
	kroot=$tmp/kroot
	plant() {  # plant PID CONTAINER
		mkdir -p "$kroot/proc/$1"
		mount --bind "/proc/$1" "$kroot/proc/$1"
		if [ $real_cg = 0 ]; then
			printf '0::/kubepods/burstable/pod%s/%s\n' "$PUID" "$2" >"$tmp/cgroup.$1"
			mount --bind "$tmp/cgroup.$1" "$kroot/proc/$1/cgroup"
		fi
	}
	plant "$rxdm" rxdm

	run_nccl() {  # run_nccl TAG FLOWS NAME...
		tag=$1 f=$2
		shift 2
		python3 "$SOCKS" nccl "$tmp/nccl.$tag.ready" "$(procs gpu)" "$f" "$@" &
		pids="$pids $!"
		wait_for "[ -s '$tmp/nccl.$tag.ready' ]" 30 || { nok "podnet-real-$tag" "the nccl stand-in did not start"; return 1; }
		nccl=$(cat "$tmp/nccl.$tag.ready")
		plant "$nccl" gpu
	}
	# The line podnet-dump prints, without the byte counters (they move).
	sample() { $NOBODY "$D" "$1" "$PUID=gpu" 2>&1 | sed 's/ devs=[^ ]*//'; }
	expect_real() {  # expect_real NAME ROOT EXPECTED
		if wait_for "[ \"\$(sample '$2')\" = '$3' ]" 5; then ok "$1"
		else nok "$1" "got '$(sample "$2")', want '$3'"; fi
	}

	run_nccl 8 $flows $names8 || exit 1
	rails8=10.64.1.1,10.64.1.2,10.64.1.3,10.64.1.4,10.64.1.5,10.64.1.6,10.64.1.7,10.64.1.8
	want="$PUID read pid=$nccl listeners=9 clients=8 rails=$rails8 dropped=0 flows=$flows cut=0 why=-"
	expect_real "podnet-real-8-rails (fixture root, bind-mounted /proc/<pid>, uid 65534)" "$kroot" "$want"
	if [ $real_cg = 1 ]; then
		expect_real "podnet-real-8-rails-host-proc (ROOT=/, real cgroups, uid 65534)" / "$want"
	else
		skip "podnet-real-8-rails-host-proc" "cannot make cgroups here: the pod's cgroup is a fixture file"
	fi
	# A devs field is there, with lo.
	if $NOBODY "$D" "$kroot" "$PUID=gpu" | grep -q ' devs=[^ ]*lo:[0-9]*:[0-9]*'; then ok podnet-real-devs
	else nok podnet-real-devs "$($NOBODY "$D" "$kroot" "$PUID=gpu")"; fi

	# The job restarts on 2 rails (one of them a name bound at its own length): the accepted ends of
	# the 8 are closed by the rxdm stand-in, the 2 new ones counted.
	kill "$nccl"
	umount "$kroot/proc/$nccl/cgroup" 2>/dev/null
	umount "$kroot/proc/$nccl"
	rmdir "$kroot/proc/$nccl"
	f2=$((flows / 2))
	run_nccl 2 $f2 rxdm_uds_buf_op:10.64.1.1 rxdm_uds_buf_op:10.64.2.1:short || exit 1
	want="$PUID read pid=$nccl listeners=9 clients=2 rails=10.64.1.1,10.64.2.1 dropped=0 flows=$f2 cut=0 why=-"
	expect_real "podnet-real-2-rails" "$kroot" "$want"
	[ $real_cg = 1 ] && expect_real "podnet-real-2-rails-host-proc" / "$want"
	exit $failed
fi

tmp=$(mktemp -d)
trap 'umount "$tmp/hroot/proc" 2>/dev/null; rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
if [ ! -x "$BUILD/tests/helpers/podnet-dump" ]; then
	nok podnet "$BUILD/tests/helpers/podnet-dump is not built"
	exit 1
fi
cp "$BUILD/tests/helpers/podnet-dump" "$tmp/podnet-dump"
D=$tmp/podnet-dump
as_nobody=""
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then as_nobody=$NOBODY; fi
GEN="python3 $TOPDIR/fixtures/gen_proc.py"

# ---- fixtures ----
R=$tmp/fx
U1=11111111-2222-3333-4444-555555555501
U2=11111111-2222-3333-4444-555555555502
U3=11111111-2222-3333-4444-555555555503
U4=11111111-2222-3333-4444-555555555504
U5=11111111-2222-3333-4444-555555555505
$GEN "$R" --pid 1 --pod-uid x --container-id x --not-pod --rails 0
# U1: systemd, v2, burstable; the sidecar's process (pid 100, no rails of its own) comes first in the
# listing, the GPU container's (101) is preferred.
$GEN "$R" --pid 100 --pod-uid $U1 --container-id b01 --rails 0
$GEN "$R" --pid 101 --pod-uid $U1 --container-id a01 --flows 4 --rxdm-flow --dev eth1:100:200
# U2: cgroupfs, v1, guaranteed, file-based names, 2 rails of 3 clients, short names
$GEN "$R" --pid 200 --pod-uid $U2 --container-id a02 --driver cgroupfs --cgroup v1 --qos guaranteed \
	--rails 2 --clients-per-rail 3 --uds-prefix /run/tcpxo --flows 2 --listeners 8
# U3: systemd, v1, besteffort, docker; U4: cgroupfs, v2, burstable; listeners but no client
$GEN "$R" --pid 300 --pod-uid $U3 --container-id a03 --cgroup v1 --qos besteffort --runtime docker --rails 1
$GEN "$R" --pid 400 --pod-uid $U4 --container-id a04 --driver cgroupfs --rails 0 --listeners 8
# Hostile: a pid link out of the root naming U5, garbage in a cgroup file.
mkdir -p "$tmp/outside"
$GEN "$tmp/outside" --pid 500 --pod-uid $U5 --container-id a05
ln -s "$tmp/outside/proc/500" "$R/proc/500"
$GEN "$R" --pid 600 --pod-uid x --container-id x --rails 0
printf '\001\002 not a cgroup file' >"$R/proc/600/cgroup"
chmod -R a+rX "$R"

r8=10.64.1.1,10.64.1.2,10.64.1.3,10.64.1.4,10.64.1.5,10.64.1.6,10.64.1.7,10.64.1.8
lo=lo:1234:1234
cat >"$tmp/want" <<EOF
$U1 read pid=101 listeners=8 clients=8 rails=$r8 dropped=0 flows=4 devs=eth1:100:200,$lo cut=0 why=-
$U2 read pid=200 listeners=8 clients=6 rails=10.64.1.1,10.64.1.2 dropped=0 flows=2 devs=eth0:1000:2000,$lo cut=0 why=-
$U3 read pid=300 listeners=1 clients=1 rails=10.64.1.1 dropped=0 flows=0 devs=eth0:1000:2000,$lo cut=0 why=-
$U4 read pid=400 listeners=8 clients=0 rails=- dropped=0 flows=0 devs=eth0:1000:2000,$lo cut=0 why=-
$U5 no-process pid=0 listeners=0 clients=0 rails=- dropped=0 flows=0 devs=- cut=0 why=no process of the pod found under $R/proc
EOF
$as_nobody "$D" "$R" "$U4=a04" "$U3=a03" "$U2=a02" "$U1=a01,zz" "$U5=a05" "$U1" >"$tmp/got" 2>&1
if diff -u "$tmp/want" "$tmp/got" >"$tmp/diff"; then ok "podnet-fixtures (both drivers, v1/v2, QoS, runtimes, file-based names, link out of root ignored)"
else nok podnet-fixtures "$(cat "$tmp/diff")"; fi

# Without the GPU container's id: the lowest pid of the pod (the sidecar's), whatever the listing order.
got=$("$D" "$R" "$U1=nope" | cut -d' ' -f1-5)
if [ "$got" = "$U1 read pid=100 listeners=0 clients=0" ]; then ok podnet-fixture-no-gpu-container
else nok podnet-fixture-no-gpu-container "$got"; fi

# An unreadable file (as a user other than its owner): that pod unreadable with the path and errno text.
if [ -n "$as_nobody" ]; then
	chmod 000 "$R/proc/300/net/udp"
	got=$($as_nobody "$D" "$R" "$U3=a03")
	want="$U3 unreadable pid=300 listeners=1 clients=1 rails=10.64.1.1 dropped=0 flows=0 devs=- cut=0 why=$R/proc/300/net/udp: Permission denied"
	if [ "$got" = "$want" ]; then ok podnet-fixture-unreadable
	else nok podnet-fixture-unreadable "got '$got', want '$want'"; fi
	chmod 644 "$R/proc/300/net/udp"
else
	skip podnet-fixture-unreadable "needs root to read as another user (setpriv)"
fi

# A FIFO planted as net/unix: never opened for reading, never blocks.
rm "$R/proc/400/net/unix"
mkfifo -m 644 "$R/proc/400/net/unix"
got=$(timeout 10 $as_nobody "$D" "$R" "$U4=a04")
st=$?
want="$U4 unreadable pid=400 listeners=0 clients=0 rails=- dropped=0 flows=0 devs=- cut=0 why=$R/proc/400/net/unix: not a regular file"
if [ $st = 0 ] && [ "$got" = "$want" ]; then ok podnet-fixture-fifo
else nok podnet-fixture-fifo "exit $st, got '$got', want '$want'"; fi

# A file missing (not a process that exited: its directory is there): unreadable, the path named.
mv "$R/proc/200/net/dev" "$tmp/dev.200"
got=$("$D" "$R" "$U2=a02" | sed 's/.* why=//')
if [ "$got" = "$R/proc/200/net/dev: No such file or directory" ]; then ok podnet-fixture-missing-file
else nok podnet-fixture-missing-file "$got"; fi
mv "$tmp/dev.200" "$R/proc/200/net/dev"

# A net/unix that is not one: unreadable, the line named.
printf 'Num       RefCount Protocol Flags    Type St Inode Path\nnot a socket\n' >"$R/proc/101/net/unix"
got=$("$D" "$R" "$U1=a01" | sed 's/.* why=//')
if [ "$got" = "$R/proc/101/net/unix: line 2: not a socket line" ]; then ok podnet-fixture-malformed
else nok podnet-fixture-malformed "$got"; fi

# ROOT/proc missing: the sample failed, not "no process".
mkdir -p "$tmp/empty"
got=$("$D" "$tmp/empty" "$U1")
st=$?
if [ $st = 1 ] && [ "$got" = "FAILED $tmp/empty/proc: No such file or directory" ]; then ok podnet-no-proc
else nok podnet-no-proc "exit $st: $got"; fi

# ROOT/proc there but listing no pid (issue 30: qsort(NULL, 0) was undefined; the sanitizer build, which CI runs
# these under, stopped the daemon here): no process, the why naming the directory listed.
mkdir -p "$tmp/noproc/proc"
got=$("$D" "$tmp/noproc" "$U1=a01")
st=$?
want="$U1 no-process pid=0 listeners=0 clients=0 rails=- dropped=0 flows=0 devs=- cut=0 why=no process of the pod found under $tmp/noproc/proc"
if [ $st = 0 ] && [ "$got" = "$want" ]; then ok podnet-empty-proc
else nok podnet-empty-proc "exit $st: got '$got', want '$want'"; fi

# hidepid: a procfs mounted with hidepid=2, read as 65534, lists none of root's processes: the why says so.
if [ -n "$as_nobody" ] && unshare -m true 2>/dev/null; then
	mkdir -p "$tmp/hroot/proc"
	got=$(unshare -m --propagation private sh -c \
		'mount -t proc -o hidepid=2 proc "$1/hroot/proc" && exec '"$as_nobody"' "$1/podnet-dump" "$1/hroot" "$2"' \
		sh "$tmp" "$U1" 2>&1)
	want="$U1 no-process pid=0 listeners=0 clients=0 rails=- dropped=0 flows=0 devs=- cut=0 why=no process of the pod found under $tmp/hroot/proc (it lists no pid 1: mounted with hidepid, it shows only this user's processes)"
	if [ "$got" = "$want" ]; then ok podnet-hidepid
	else nok podnet-hidepid "got '$got'"; fi
else
	skip podnet-hidepid "needs root and unshare -m"
fi

# ---- the real kernel ----
if [ "$(id -u)" != 0 ] || [ -z "$as_nobody" ] || ! unshare -m -n true 2>/dev/null || ! command -v python3 >/dev/null; then
	skip podnet-real "needs root, setpriv, unshare -m -n and python3"
else
	PUID=$PUID unshare -m -n --propagation private sh "$0" --inner "$tmp" || failed=1
fi
exit $failed
