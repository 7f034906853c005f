#!/bin/sh
# test_binary.sh - the real binary on this machine's own / (no GPU: profile none), bad roots and bad usage.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
A=$TCPXO_AGENT
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failed=0

# This VM: virtio devices, no GPU. Not ready (1), never a crash, and it says why.
"$A" --once --no-publish >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && head -n1 "$tmp/out" | grep -q '^tcpxo: not ready: gpus: no NVIDIA H100 GPU' \
	&& grep -q 'profile none' "$tmp/out"; then ok real-root-human
else nok real-root-human "exit $rc: $(head -n3 "$tmp/out") $(cat "$tmp/err")"; fi

"$A" --once --no-publish --json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && /usr/bin/python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["profile"] == "none" and r["runtime"] is None and r["ready"] is False, r
assert [c["id"] for c in r["checks"]] == ["machine-type", "gpus", "gpu-nics", "pairing", "links", "networks",
    "aperture-devices", "device-nodes", "nvidia-host-path", "plugin-files", "version-pair", "daemon-args",
    "daemon-pod"]
assert r["workloads"] is None, r["workloads"]
assert r["summary"].startswith("tcpxo: not ready: gpus: ")
' "$tmp/out.json"; then ok real-root-json
else nok real-root-json "exit $rc: $(cat "$tmp/err")"; fi

# -o json is --json; -o npd is one line of at most 80 bytes for node-problem-detector, with the same exit code.
"$A" --once --no-publish -o json >"$tmp/out-o.json" 2>/dev/null; rc=$?
if [ $rc -eq 1 ] && cmp -s "$tmp/out.json" "$tmp/out-o.json"; then ok once-o-json
else nok once-o-json "exit $rc, or the report differs from --json's"; fi
"$A" --once --no-publish -o npd >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(wc -l <"$tmp/out")" = 1 ] && [ "$(head -c -1 "$tmp/out" | wc -c)" -le 80 ] &&
   grep -q '^tcpxo: not ready: gpus: no NVIDIA H100 GPU' "$tmp/out"; then ok "once-o-npd: $(cat "$tmp/out")"
else nok once-o-npd "exit $rc: $(head -c 300 "$tmp/out")"; fi
"$A" --once --no-publish --root "$tmp/nonexistent" -o npd >"$tmp/out" 2>/dev/null; rc=$?
if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/out")" = 1 ] && [ "$(head -c -1 "$tmp/out" | wc -c)" -le 80 ] &&
   grep -q '^tcpxo: unknown: gpus: could not read the PCI bus' "$tmp/out"; then ok once-o-npd-unknown
else nok once-o-npd-unknown "exit $rc: $(head -c 300 "$tmp/out")"; fi
# -o takes json or npd, for --once only (the one command with an output for NPD), never both formats.
for args in "--once -o bogus" "--once -o npd --json" "--once -o" "interfaces -o npd"; do
	# shellcheck disable=SC2086
	"$A" $args --no-publish >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$?
	case $args in interfaces*) "$A" $args >"$tmp/out" 2>"$tmp/err" </dev/null; rc=$? ;; esac
	if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q -- '-o' "$tmp/err"; then ok "usage-o: $args: $(head -n 1 "$tmp/err")"
	else nok "usage-o: $args" "exit $rc: $(head -c 200 "$tmp/err")"; fi
done

# A root that does not exist: the node could not be observed -> 2, the path named.
"$A" --once --no-publish --root "$tmp/nonexistent" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "$tmp/nonexistent" "$tmp/out" "$tmp/err"; then ok missing-root
else nok missing-root "exit $rc: $(cat "$tmp/out" "$tmp/err" | head -5)"; fi
# ... and its summary says unknown, as the exit does, not "not ready".
if head -n 1 "$tmp/out" | grep -q '^tcpxo: unknown: gpus: could not read the PCI bus: '; then ok missing-root-unknown
else nok missing-root-unknown "first line: $(head -n 1 "$tmp/out")"; fi

# A root that is a file.
: >"$tmp/file"
"$A" --once --no-publish --root "$tmp/file" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && ok root-is-file || nok root-is-file "exit $rc"

# An empty root: no sys/ at all.
mkdir -p "$tmp/empty"
"$A" --once --no-publish --json --root "$tmp/empty" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && /usr/bin/python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); assert r["ready"] is False' "$tmp/out" \
	&& ok empty-root || nok empty-root "exit $rc: $(cat "$tmp/err")"

# Usage errors exit 2 with a message; --help and --version exit 0.
"$A" --bogus >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown option '--bogus'" "$tmp/err" && ok bad-option || nok bad-option "exit $rc"
"$A" --once --interval x >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--interval" "$tmp/err" && ok bad-interval || nok bad-interval "exit $rc"
# Issue 30: a duration whose seconds wrap in 64 bits (5124095576030432 h is 3,584 s modulo 2^64) is refused.
"$A" --once --no-publish --transport-grace 5124095576030432h >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--transport-grace: at most 24h" "$tmp/err" && ok duration-wraps ||
	nok duration-wraps "exit $rc: $(cat "$tmp/err")"
"$A" --help >"$tmp/out"; rc=$?
[ $rc -eq 0 ] && grep -q -- "--once" "$tmp/out" && grep -q "^  tcpxo-agent status \[OPTIONS\]" "$tmp/out" &&
	ok help || nok help "exit $rc"
"$A" --version >"$tmp/out"; rc=$?
[ $rc -eq 0 ] && grep -Eq '^tcpxo-agent [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" && ok version || nok version "exit $rc"

# Help like kubectl: -h everywhere, a command's own options, help COMMAND the same, version -o json.
for h in -h --help help; do
	env -u NODE_NAME "$A" $h >"$tmp/out" 2>"$tmp/err"; rc=$?
	[ $rc -eq 0 ] && head -n 20 "$tmp/out" | grep -q '^Usage:$' && [ ! -s "$tmp/err" ] && ok "help$h" ||
		nok "help$h" "exit $rc: $(head -c 200 "$tmp/err")"
done
"$A" status --help >"$tmp/status-help" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && grep -q -- '--nodes-file F' "$tmp/status-help" && ! grep -q -- '--root' "$tmp/status-help" &&
	! grep -q -- '--metrics-address' "$tmp/status-help" && grep -q '^Exit codes:$' "$tmp/status-help" &&
	grep -q '^Examples:$' "$tmp/status-help" && head -n 2 "$tmp/status-help" | grep -q '^  tcpxo-agent status '; then
	ok status-help-own-options
else nok status-help-own-options "exit $rc: $(head -c 300 "$tmp/status-help")"; fi
"$A" help status >"$tmp/out" 2>&1 && cmp -s "$tmp/out" "$tmp/status-help" && ok help-command-same ||
	nok help-command-same "help status differs from status --help"
"$A" status -h >"$tmp/out" 2>&1 && cmp -s "$tmp/out" "$tmp/status-help" && ok help-short || nok help-short "-h"
"$A" help daemon >"$tmp/out" 2>&1 && grep -q -- '--metrics-address' "$tmp/out" && ! grep -q -- '--nodes-file' "$tmp/out" &&
	ok help-daemon || nok help-daemon "$(head -c 200 "$tmp/out")"
"$A" help frobnicate >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "no command 'frobnicate'" "$tmp/err" && ok help-unknown || nok help-unknown "exit $rc"
"$A" version -o json >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && /usr/bin/python3 -c '
import json, re, sys
v = json.load(open(sys.argv[1]))
assert v["name"] == "tcpxo-agent" and re.match(r"^[0-9]+\.[0-9]+\.[0-9]+$", v["version"]), v
assert v["platform"].startswith("linux/"), v
' "$tmp/out"; then ok version-json; else nok version-json "exit $rc: $(cat "$tmp/out" "$tmp/err" | head -c 300)"; fi
"$A" version -o wide >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "-o wide: version takes json, yaml" "$tmp/err" && ok version-o-wide || nok version-o-wide "exit $rc"

# No accidental daemon: no --node and no NODE_NAME -> exit 2 at once, naming --node and --once.
env -u NODE_NAME timeout -s KILL 10 "$A" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q -- '--node' "$tmp/err" && grep -q -- '--once' "$tmp/err" && [ ! -s "$tmp/out" ]; then
	ok bare-daemon-refused
else nok bare-daemon-refused "exit $rc: $(head -c 300 "$tmp/err")"; fi
NODE_NAME= timeout -s KILL 10 "$A" --no-watch >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- '--node' "$tmp/err" && ok empty-node-name-refused || nok empty-node-name-refused "exit $rc"

# One duration syntax: health --max-age 2m; the option named in an error, an example shown; no wrap.
: >"$tmp/healthy"
"$A" health --health-file "$tmp/healthy" --max-age 2m >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q 'at most 120s' "$tmp/out" && ok health-max-age-2m || nok health-max-age-2m "exit $rc: $(cat "$tmp/err")"
"$A" health --health-file "$tmp/healthy" --max-age 2x >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--max-age: expected a duration such as 90s, 5m or 1h30m" "$tmp/err" && ok duration-error ||
	nok duration-error "exit $rc: $(cat "$tmp/err")"
"$A" health --health-file "$tmp/healthy" --max-age 5124095576030432h >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--max-age: at most 24h" "$tmp/err" && ok duration-overflow || nok duration-overflow "exit $rc"
"$A" --once --no-publish --transport-grace 1h30m -o json >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && ok once-grace-1h30m || nok once-grace-1h30m "exit $rc: $(head -c 200 "$tmp/err")"

# -o: json is --json; a format the command does not print is refused.
"$A" --once --no-publish -o json >"$tmp/o.json" 2>/dev/null
"$A" --once --no-publish --json >"$tmp/j.json" 2>/dev/null
/usr/bin/python3 -c '
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:])
for d in (a, b):
    d.pop("observedAt", None)
assert a.keys() == b.keys() and a["summary"] == b["summary"] and a["checks"] == b["checks"]
' "$tmp/o.json" "$tmp/j.json" && ok once-o-json || nok once-o-json "-o json and --json differ"
"$A" --once --no-publish -o wide >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "-o wide: once takes json" "$tmp/err" && ok once-o-wide-refused || nok once-o-wide-refused "exit $rc: $(cat "$tmp/err")"

# stdout closed: the report cannot be written -> 2, not a crash.
"$A" --once --no-publish >&- 2>/dev/null; rc=$?
[ $rc -eq 2 ] && ok stdout-closed || nok stdout-closed "exit $rc"
exit $failed
