#!/bin/sh
# test_privilege.sh - least privilege, measured: what the agent reads works as uid/gid 65532 with no capabilities
# (as in the DaemonSet: runAsUser 65532, capabilities drop ALL, allowPrivilegeEscalation false).
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
A=${TCPXO_AGENT:-$TOPDIR/build/tcpxo-agent}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
chmod 0755 "$tmp"
failed=0

if [ "$(id -u)" != 0 ]; then
	skip "privilege" "needs root to switch to uid 65532 (setpriv)"; exit 0
fi
if ! command -v setpriv >/dev/null 2>&1; then
	skip "privilege" "setpriv (util-linux) is not installed"; exit 0
fi
# The DaemonSet's identity: uid/gid 65532, no groups, no capabilities in any set, no new privileges.
U="setpriv --reuid=65532 --regid=65532 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs"

if $U sh -c 'grep -q "^CapEff:[[:space:]]*0*$" /proc/self/status && [ "$(id -u)" = 65532 ]'; then ok unprivileged-identity
else nok unprivileged-identity "setpriv did not give uid 65532 without capabilities"; fi

# PCI config space: the bus ranges the agent needs live in the first 64 bytes, all an unprivileged reader gets.
n=0 err=""
for f in /sys/bus/pci/devices/*/config; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	rootlen=$(cat "$f" | wc -c)
	userlen=$($U sh -c 'cat "$1" | wc -c' sh "$f" 2>/dev/null)
	if [ "$userlen" != 64 ]; then err="$err $f: $userlen bytes as 65532;"; continue; fi
	head -c 64 "$f" >"$tmp/root64"
	$U sh -c 'cat "$1"' sh "$f" >"$tmp/user64"
	cmp -s "$tmp/root64" "$tmp/user64" || err="$err $f: first 64 bytes differ;"
done
if [ $n -eq 0 ]; then skip "pci-config-64" "no PCI devices in /sys/bus/pci/devices"
elif [ -z "$err" ]; then ok "pci-config-64 ($n functions: root reads $rootlen bytes, 65532 reads the same first 64)"
else nok pci-config-64 "$err"; fi

# The world-readable sysfs attributes the probes read.
err=""
for f in /sys/bus/pci/devices/*/vendor /sys/bus/pci/devices/*/device /sys/bus/pci/devices/*/class \
	/sys/bus/pci/devices/*/numa_node /sys/class/net/*/address /sys/class/net/*/mtu /sys/class/net/*/operstate; do
	[ -e "$f" ] || continue
	$U sh -c 'cat "$1" >/dev/null' sh "$f" 2>/dev/null || err="$err $f"
done
[ -z "$err" ] && ok sysfs-attributes || nok sysfs-attributes "unreadable as 65532:$err"

# netlink: link and address dumps need no capability (the agent's links probe is a dump, never a set).
if ip -j addr >"$tmp/root.json" 2>/dev/null && $U ip -j addr >"$tmp/user.json" 2>"$tmp/err"; then
	if /usr/bin/python3 -c '
import json, sys
def key(p):
    return sorted((i["ifname"], i.get("address"), i.get("mtu"), tuple(sorted((a["family"], a["local"], a["prefixlen"])
        for a in i.get("addr_info", [])))) for i in json.load(open(p)))
r, u = key(sys.argv[1]), key(sys.argv[2])
assert r == u, (r, u)
assert any(a for i in r for a in i[3]), "no addresses at all"
' "$tmp/root.json" "$tmp/user.json" 2>"$tmp/err"; then
		ok "netlink-dump ($(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))))' "$tmp/user.json") links with addresses, same as root)"
	else nok netlink-dump "$(tail -n1 "$tmp/err")"; fi
else nok netlink-dump "ip -j addr as 65532: $(cat "$tmp/err")"; fi

# uevents: joining the kernel's uevent multicast group needs no capability (the udev monitor does this).
if $U /usr/bin/python3 -c '
import socket
s = socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, 15)  # NETLINK_KOBJECT_UEVENT
s.bind((0, 1))
' 2>"$tmp/err"; then ok uevent-socket
else nok uevent-socket "$(tail -n1 "$tmp/err")"; fi

# Processes: another user's (root's) cmdline and comm are readable without hidepid: no hostPID, no
# CAP_SYS_PTRACE. Count every process root can read and compare.
cat >"$tmp/procscan.py" <<'PY'
import os, sys
root = sys.argv[1]
n = 0
for p in os.listdir(root):
    if p.isdigit():
        try:
            with open(os.path.join(root, p, "cmdline"), "rb") as f:
                cmd = f.read(4096)
            with open(os.path.join(root, p, "comm"), "rb") as f:
                comm = f.read(64)
            uid = os.stat(os.path.join(root, p)).st_uid
        except (FileNotFoundError, ProcessLookupError):
            continue  # exited meanwhile (between listdir and any of the three reads)
        except PermissionError:
            print("denied", p); sys.exit(1)
        if uid == 0 and cmd:
            n += 1
print(n)
PY
seen=$($U /usr/bin/python3 "$tmp/procscan.py" /proc 2>"$tmp/err")
if [ -n "$seen" ] && [ "$seen" -gt 0 ] 2>/dev/null; then ok "proc-cmdline-other-user (65532 read cmdline+comm of $seen root processes)"
else nok proc-cmdline-other-user "$seen $(cat "$tmp/err")"; fi

# With hidepid=2 (a hardened host), other users' processes vanish: the daemon-args half of the process
# scan can only say "skip". Shown on a private procfs mount in a private mount namespace.
if unshare -m sh -c '
	mkdir -p "$1/proc" && mount -t proc -o hidepid=2 proc "$1/proc" || exit 3
	exec setpriv --reuid=65532 --regid=65532 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs \
		/usr/bin/python3 "$1/procscan.py" "$1/proc"' sh "$tmp" >"$tmp/hp" 2>&1; then
	[ "$(cat "$tmp/hp")" = 0 ] && ok "proc-hidepid (hidepid=2: 65532 sees no root process)" \
		|| nok proc-hidepid "65532 still saw $(cat "$tmp/hp") root processes"
else
	[ $? -eq 3 ] && skip "proc-hidepid" "cannot mount procfs with hidepid=2 here" || nok proc-hidepid "$(cat "$tmp/hp")"
fi

if [ ! -x "$A" ]; then
	skip "agent-once-unprivileged" "$A is not built"
	skip "agent-once-hidepid" "$A is not built"
	exit $failed
fi

# The agent itself: the same JSON report as root on this machine's own /.
"$A" --once --no-publish --json --node privilege-test >"$tmp/root.out" 2>"$tmp/root.err"; rc_root=$?
$U "$A" --once --no-publish --json --node privilege-test >"$tmp/user.out" 2>"$tmp/user.err"; rc_user=$?
if [ $rc_root -ne $rc_user ]; then nok agent-once-unprivileged "exit $rc_user as 65532, $rc_root as root: $(head -3 "$tmp/user.err")"
elif ! cmp -s "$tmp/root.out" "$tmp/user.out"; then nok agent-once-unprivileged "JSON differs: $(diff "$tmp/root.out" "$tmp/user.out" | head -5)"
elif [ ! -s "$tmp/user.out" ]; then nok agent-once-unprivileged "no output (exit $rc_user)"
else ok "agent-once-unprivileged (exit $rc_user, byte-identical JSON)"; fi

# Under hidepid=2 the agent still reports: no crash, no usage error, daemon-args is not a failure.
mkdir -p "$tmp/root"
unshare -m sh -c '
	r=$1/root; mkdir -p "$r/sys" "$r/dev" "$r/proc"
	mount --rbind /sys "$r/sys" && mount --rbind /dev "$r/dev" && mount -t proc -o hidepid=2 proc "$r/proc" || exit 3
	exec setpriv --reuid=65532 --regid=65532 --clear-groups --inh-caps=-all --bounding-set=-all --no-new-privs \
		"$2" --once --no-publish --json --node privilege-test --root "$r"' sh "$tmp" "$A" >"$tmp/hp.out" 2>"$tmp/hp.err"
rc=$?
if [ $rc -eq 3 ]; then skip "agent-once-hidepid" "cannot build a hidepid root here"
elif [ $rc -gt 2 ]; then nok agent-once-hidepid "exit $rc: $(tail -3 "$tmp/hp.err")"
elif /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
c = [c for c in r["checks"] if c["id"] == "daemon-args"][0]
assert c["status"] in ("skip", "pass", "warn"), c
print(c["status"])' "$tmp/hp.out" >"$tmp/st" 2>"$tmp/err"; then ok "agent-once-hidepid (exit $rc, daemon-args $(cat "$tmp/st"))"
else nok agent-once-hidepid "$(tail -n1 "$tmp/err")"; fi
exit $failed
