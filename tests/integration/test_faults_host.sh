#!/bin/sh
# test_faults_host.sh - corrupt host trees end to end: the agent (--once --no-publish) on broken
# copies of fixtures/a3-mega under /dev/shm, in the fixture's namespace. The contract for every
# case: no crash (exit 0, 1 or 2, never a signal or a sanitizer report), done within the time
# bound (a fifo never blocks), the first stdout line is the summary, and the fault is named where
# it matters, with its real cause. Absolute links inside the root resolve inside it.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
: "${TOPDIR:?}" "${TCPXO_AGENT:?}"
cd "$TOPDIR" || exit 2
. tests/lib/netns.sh
. tests/lib/devnodes.sh
. tests/lib/scenario.sh

LIMIT=${FAULTS_LIMIT:-20}       # seconds per agent run (the healthy fixture takes well under 1)
G=fixtures/a3-mega
AS65532="setpriv --reuid=65532 --regid=65532 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs"
if ! why=$(netns_can_run); then
	skip "faults-host" "$why"
	exit 0
fi
T=$(mktemp -d /dev/shm/tcpxo-faults.XXXXXX) && chmod 755 "$T" || exit 2  # 65532 must reach the trees
bg=""
trap 'for p in $bg; do kill "$p" 2>/dev/null; done; rm -rf "$T"' EXIT INT TERM


fresh() {  # fresh -> a private copy of the healthy tree in $R
	rm -rf "$T/root"
	R=$(SCENARIO_TMP=$T scenario_prepare a3-mega) || { echo "scenario_prepare failed" >&2; exit 2; }
}

# agent NAME [SPEC [WRAPPER...]]: run the agent on $R; sets $rc, $out, $err; checks the contract.
agent() {
	_name=$1 _spec=${2:-$G/links.spec}
	shift; [ $# -gt 0 ] && shift
	# shellcheck disable=SC2086 # EXTRA: more agent options, split on spaces
	netns_run "$_spec" timeout -s KILL "$LIMIT" "$@" "$TCPXO_AGENT" --once --no-publish \
		--root "$R" --node fixture-faults ${EXTRA:-} >"$T/out" 2>"$T/err"
	rc=$?
	out=$(cat "$T/out"); err=$(cat "$T/err")
	case $rc in
	0|1|2) ;;
	137) nok "$_name" "no answer within ${LIMIT}s"; return 1 ;;
	3) nok "$_name" "netns could not apply the spec: $err"; return 1 ;;
	*) nok "$_name" "exit $rc (crash?): $(echo "$err" | tail -n 5)"; return 1 ;;
	esac
	if grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' "$T/err"; then
		nok "$_name" "sanitizer: $(grep -m1 'ERROR\|runtime error' "$T/err")"
		return 1
	fi
	case $(head -n1 "$T/out") in
	"tcpxo: "*) ;;
	*) nok "$_name" "first line is not the summary: $(head -n1 "$T/out")"; return 1 ;;
	esac
	return 0
}

# reject NAME PATTERN: after expect(), PATTERN (grep -E) must not be in stdout+stderr (a wrong cause).
reject() {
	if cat "$T/out" "$T/err" | grep -Eq "$2"; then
		nok "$1" "says /$2/: $(cat "$T/out" "$T/err" | grep -Em1 "$2")"
	fi
}

# expect NAME RCS PATTERN: after agent(): exit code among RCS, PATTERN (grep -E) in stdout+stderr.
expect() {
	case " $2 " in *" $rc "*) ;; *) nok "$1" "exit $rc, expected one of: $2; $(head -n1 "$T/out")"; return ;; esac
	if [ -n "$3" ] && ! cat "$T/out" "$T/err" | grep -Eq "$3"; then
		nok "$1" "no message matching /$3/: $(head -n1 "$T/out") / $(head -n1 "$T/err")"
		return
	fi
	ok "$1"
}

GPU=$(ls "$G/sys/bus/pci/drivers/nvidia" | head -n1)
UPSTREAM=$(basename "$(dirname "$(dirname "$(readlink -f "$G/sys/bus/pci/devices/$GPU")")")")
AP=$(ls "$G/dev/aperture_devices" | head -n1)

fresh
agent healthy && expect healthy "0" '^tcpxo: ready'

# Garbage and empty sysfs values on a GPU: the PCI part is not observed (exit 2), and says where.
fresh
printf 'garbage\377\n' >"$R/sys/bus/pci/devices/$GPU/vendor"
printf 'zz' >"$R/sys/bus/pci/devices/$GPU/class"
printf 'x\n' >"$R/sys/bus/pci/devices/$GPU/numa_node"
agent sysfs-garbage && expect sysfs-garbage "2" "$GPU"
fresh
: >"$R/sys/bus/pci/devices/$GPU/vendor"
: >"$R/sys/bus/pci/devices/$GPU/device"
: >"$R/sys/bus/pci/devices/$GPU/class"
agent sysfs-empty && expect sysfs-empty "2" "$GPU"
fresh
: >"$R/sys/bus/pci/devices/$GPU/numa_node"
printf '99999999999999999999999\n' >"$R/sys/bus/pci/devices/$UPSTREAM/numa_node"
agent sysfs-numa-garbage && expect sysfs-numa-garbage "0 1" '^tcpxo: '

# A 3-byte config on the switch above a GPU: config space unreadable (exit 2), the file named.
fresh
head -c 3 "$G/sys/bus/pci/devices/$UPSTREAM/config" >"$R/sys/bus/pci/devices/$UPSTREAM/config"
agent config-3-bytes && expect config-3-bytes "2" "$UPSTREAM/config: PCI config space unreadable: 3 bytes"
fresh
: >"$R/sys/bus/pci/devices/$GPU/config"
agent config-empty && expect config-empty "2" "$GPU/config: PCI config space unreadable: 0 bytes"
# Every config of the tree 3 bytes: unknown, not "outside every GPU PCIe switch" x 16 and exit 1.
fresh
for f in "$R"/sys/bus/pci/devices/*/config; do
	head -c 3 "$f" >"$T/c3" && cat "$T/c3" >"$f"
done
N=$(ls "$R/sys/bus/pci/devices" | wc -l)
agent config-all-3-bytes && expect config-all-3-bytes "2" \
	"could not read the PCI bus: $N of $N PCI functions unreadable, first: /sys/bus/pci/devices/0000:00:00\\.0/config: PCI config space unreadable: 3 bytes"
reject config-all-3-bytes 'outside every GPU PCIe switch'
# A vendor ID longer than 16 bits: named, not read as its low bits (0xcdef: "found 7 GPUs").
fresh
printf '0x1234567890abcdef\n' >"$R/sys/bus/pci/devices/$GPU/vendor"
agent vendor-64-bits && expect vendor-64-bits "2" "$GPU/vendor: invalid vendor ID 0x1234567890abcdef"
reject vendor-64-bits 'found 7 NVIDIA'
# A looping net/ link in a GPU NIC's sysfs dir: named, not "moved into a pod".
fresh
NICDIR=$(readlink -f "$R/sys/bus/pci/devices/0000:06:00.0")
rm -rf "$NICDIR/net"
ln -s net "$NICDIR/net"
agent net-looping && expect net-looping "2" '0000:06:00\.0/net: Too many levels of symbolic links'
reject net-looping 'in-pod|in use by a pod'

# FIFOs where files should be: never a hang (the open would block), the file named.
for f in numa_node vendor config; do
	fresh
	rm -f "$R/sys/bus/pci/devices/$GPU/$f"
	mkfifo "$R/sys/bus/pci/devices/$GPU/$f"
	agent "fifo-gpu-$f" && expect "fifo-gpu-$f" "2" "$GPU/$f is a fifo or socket, not a regular file"
done
fresh
rm -f "$R/dev/aperture_devices/$AP/resource4" "$R/dev/aperture_devices/$AP/vendor"
mkfifo "$R/dev/aperture_devices/$AP/resource4" "$R/dev/aperture_devices/$AP/vendor"
agent fifo-aperture && expect fifo-aperture "1" "$AP: vendor/device unreadable"
fresh
rm -f "$R/home/kubernetes/bin/nvidia/bin/nvidia-smi" "$R/home/kubernetes/bin/nvidia/lib64/libnccl-net.so" \
	"$R/proc/4242/comm"
mkfifo "$R/home/kubernetes/bin/nvidia/bin/nvidia-smi" "$R/home/kubernetes/bin/nvidia/lib64/libnccl-net.so" \
	"$R/proc/4242/comm"
agent fifo-nvidia-comm && expect fifo-nvidia-comm "1" 'bin/nvidia-smi is a fifo or socket'
# The report wraps long details at words: join the lines before looking for a phrase.
tr -s ' \n' '  ' <"$T/out" | grep -q 'lib64/libnccl-net\.so is a fifo or socket' ||
	nok fifo-nvidia-comm "plugin-files does not name the fifo"
# --releases is refused before anything is observed: exit 2 at once, no report.
mkfifo "$T/releases.fifo"
fresh
timeout -s KILL "$LIMIT" "$TCPXO_AGENT" --once --no-publish --root "$R" --releases "$T/releases.fifo" >"$T/out" 2>"$T/err"
rc=$?
if [ $rc = 2 ] && grep -q -- "--releases $T/releases.fifo: not a regular file" "$T/err"; then ok fifo-releases
else nok fifo-releases "exit $rc: $(head -n 2 "$T/err")"; fi

# Absolute links inside the root resolve inside it, as on the host; out of the root, never.
fresh
mkdir -p "$R/opt"
mv "$R/home/kubernetes/bin/nvidia" "$R/opt/nvidia"
ln -s /opt/nvidia "$R/home/kubernetes/bin/nvidia"
agent abslink-nvidia && expect abslink-nvidia "0" '^tcpxo: ready'
fresh
rm -rf "$R/home/kubernetes/bin/nvidia"
ln -s /etc "$R/home/kubernetes/bin/nvidia"     # the agent's own /etc exists; the root's does not
agent abslink-out-of-root && expect abslink-out-of-root "1" 'nvidia-host-path: /home/kubernetes/bin/nvidia is a dangling or looping link'
fresh
rm -rf "$R/home/kubernetes/bin/nvidia/lib64"
ln -s ../../../../../../../../../../usr/lib/x86_64-linux-gnu "$R/home/kubernetes/bin/nvidia/lib64"
agent climbing-link-out-of-root && expect climbing-link-out-of-root "1" 'lib64 is a dangling or looping link'
fresh
mkdir -p "$R/opt/aperture"
for e in "$R"/dev/aperture_devices/*; do
	mv "$e" "$R/opt/aperture/" && ln -s "/opt/aperture/$(basename "$e")" "$e"
done
agent abslink-aperture && expect abslink-aperture "0" '^tcpxo: ready'
fresh
rm -f "$R/sys/bus/pci/devices/$GPU"
ln -s "/sys/devices/$(readlink "$G/sys/bus/pci/devices/$GPU" | sed 's|.*devices/||')" "$R/sys/bus/pci/devices/$GPU"
agent abslink-pci-device && expect abslink-pci-device "0" '^tcpxo: ready'

# Dangling and looping links in devices/ and class/net, and a dangling driver link.
fresh
ln -s ../../../devices/pci0000:00/nowhere "$R/sys/bus/pci/devices/0000:00:1f.0"
agent link-dangling-device && expect link-dangling-device "2" '0000:00:1f\.0.*(No such file|not found|unreadable)'
fresh
ln -s 0000:00:1e.0 "$R/sys/bus/pci/devices/0000:00:1e.0"
agent link-looping-device && expect link-looping-device "2" '0000:00:1e\.0.*(symbolic links|loop)'
fresh
rm -f "$R/sys/class/net/eth1"
ln -s eth1 "$R/sys/class/net/eth1"
rm -rf "$R/sys/bus/pci/devices/0000:06:00.0/net"
agent link-looping-classnet && expect link-looping-classnet "0 1" '^tcpxo: '
fresh
rm -f "$R/sys/bus/pci/devices/$GPU/driver"
ln -s ../../../bus/pci/drivers/gone "$R/sys/bus/pci/devices/$GPU/driver"
agent link-dangling-driver && expect link-dangling-driver "0 1" '^tcpxo: '
fresh
rm -rf "$R/dev/aperture_devices/$AP"
ln -s "$R/dev/aperture_devices/$AP" "$R/dev/aperture_devices/$AP"
agent link-looping-aperture && expect link-looping-aperture "1" "$AP"

# Interface names of the kernel's full 15 characters, in place of eth1 and as extra links.
fresh
sed 's/^eth1 /eth123456789012 /' "$G/links.spec" >"$T/spec15"
printf 'abcdefghijklmn5 02:00:00:00:00:01 1500 10.99.0.1/32 up\n' >>"$T/spec15"
agent ifname-15-chars "$T/spec15" && expect ifname-15-chars "0 1" '^tcpxo: '

# 2,000 interfaces: 1,000 more veth pairs. Bounded time, same verdict as the healthy node.
fresh
cp "$G/links.spec" "$T/spec2000"
i=1
while [ $i -le 1000 ]; do
	printf 'xb%d - 1500 10.%d.%d.1/32 up\n' $i $((100 + i / 250)) $((i % 250)) >>"$T/spec2000"
	i=$((i + 1))
done
agent interfaces-2000 "$T/spec2000" && expect interfaces-2000 "0" '^tcpxo: ready'

# /proc: a cmdline that is a FIFO (a read would block), one unreadable as 65532, a vanished pid.
fresh
rm -f "$R/proc/4242/cmdline"
mkfifo "$R/proc/4242/cmdline"
agent proc-cmdline-fifo && expect proc-cmdline-fifo "0 1" '^tcpxo: '
fresh
chmod 000 "$R/proc/4242/cmdline" "$R/proc/4241/cmdline"
agent proc-cmdline-unreadable-65532 "" $AS65532 && expect proc-cmdline-unreadable-65532 "0 1" '^tcpxo: '
fresh
chmod 000 "$R/proc/4242"
agent proc-pid-unreadable-65532 "" $AS65532 && expect proc-pid-unreadable-65532 "0 1" '^tcpxo: '

# Unreadable directories as uid 65532: each named in the report, never a crash.
fresh
chmod 700 "$R/sys/bus/pci/devices"
agent unreadable-pci-devices-65532 "" $AS65532 && expect unreadable-pci-devices-65532 "2" 'Permission denied'
fresh
chmod 700 "$R/dev/aperture_devices"
agent unreadable-aperture-65532 "" $AS65532 && expect unreadable-aperture-65532 "1" 'cannot read /dev/aperture_devices: Permission denied'
reject unreadable-aperture-65532 'aperture_devices: /dev/aperture_devices'
fresh
chmod 700 "$R/home/kubernetes/bin/nvidia/lib64"
agent unreadable-lib64-65532 "" $AS65532 && expect unreadable-lib64-65532 "1" 'lib64.*Permission denied'
fresh
chmod 700 "$R/home/kubernetes/bin/nvidia"      # lib64 cannot even be looked at: unknown, not absent
agent unreadable-nvidia-65532 "" $AS65532 && expect unreadable-nvidia-65532 "1" \
	'plugin-files .*cannot read /home/kubernetes/bin/nvidia/lib64: Permission denied'
reject unreadable-nvidia-65532 'plugin not installed'
fresh
chmod 700 "$R/sys/class/net"
agent unreadable-class-net-65532 "" $AS65532 && expect unreadable-class-net-65532 "0 1 2" '^tcpxo: '

# resource4 vanishing mid-read: a loop deletes and recreates (and truncates) it while the agent
# runs again and again. Every run must end cleanly; exit 0 or 1 depending on what it saw.
fresh
F="$R/dev/aperture_devices/$AP/resource4"
cp -p "$F" "$T/resource4.good"
(
	while :; do
		rm -f "$F"; cp -p "$T/resource4.good" "$F"; : >"$F"; cp -p "$T/resource4.good" "$F"
	done
) 2>/dev/null &
bg="$bg $!"
n=0 fails=0 seen=""
while [ $n -lt 30 ]; do
	if agent resource4-vanishing; then
		case " $seen " in *" $rc "*) ;; *) seen="$seen $rc" ;; esac
		case $rc in 0|1) ;; *) fails=$((fails + 1)) ;; esac
	else
		fails=$((fails + 1)); break
	fi
	n=$((n + 1))
done
kill $bg 2>/dev/null; wait 2>/dev/null; bg=""
if [ $fails -eq 0 ]; then ok "resource4-vanishing ($n runs, exits:$seen)"
else nok resource4-vanishing "$fails of $n runs failed; last exit $rc: $(head -n1 "$T/out")"; fi

# A host without libcurl: --no-publish never loads it; an API run says what is missing, exit 2.
# The binary declares the dlopen'd library in an FDO .note.dlopen note, for image checks.
if command -v objcopy >/dev/null 2>&1; then
	if objcopy -O binary --only-section=.note.dlopen "$TCPXO_AGENT" "$T/note" 2>/dev/null &&
	   grep -q '"soname":\["libcurl.so.4"\]' "$T/note"; then ok dlopen-note-libcurl
	else nok dlopen-note-libcurl "no .note.dlopen naming libcurl.so.4 in $TCPXO_AGENT"; fi
fi
if unshare -m true 2>/dev/null; then
	lib=$(ldconfig -p | sed -n 's/.*libcurl\.so\.4 (libc6,x86-64) => //p' | head -n1)
	fresh
	if [ -n "$lib" ]; then
		agent no-libcurl-no-publish "" unshare -m sh -c "mount --bind /dev/null $lib && exec \"\$@\"" sh \
			&& expect no-libcurl-no-publish "0" '^tcpxo: ready'
		netns_run "$G/links.spec" unshare -m sh -c "mount --bind /dev/null $lib && exec \"\$@\"" sh \
			timeout -s KILL "$LIMIT" "$TCPXO_AGENT" --once --root "$R" --node fixture-faults \
			--api-server https://127.0.0.1:1 --token-file /dev/null --ca-file /dev/null >"$T/out" 2>"$T/err"
		rc=$?
		if [ $rc = 2 ] && grep -q 'libcurl.so.4' "$T/err"; then ok no-libcurl-api
		else nok no-libcurl-api "exit $rc: $(head -n2 "$T/err")"; fi
	else
		skip "no-libcurl" "libcurl.so.4 not in ldconfig's cache"
	fi
else
	skip "no-libcurl" "no mount namespaces (unshare -m)"
fi
exit $failed
