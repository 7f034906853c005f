#!/bin/sh
# test_cli.sh - the real binary on this machine's own / (no GPU: profile none), bad roots and bad usage.
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
[ $rc -eq 2 ] && grep -q -- "--transport-grace: expected a duration" "$tmp/err" && ok duration-wraps ||
	nok duration-wraps "exit $rc: $(cat "$tmp/err")"
"$A" --help >"$tmp/out"; rc=$?
[ $rc -eq 0 ] && grep -q -- "--once" "$tmp/out" && grep -q -- "--root DIR" "$tmp/out" && ok help || nok help "exit $rc"
"$A" --version >"$tmp/out"; rc=$?
[ $rc -eq 0 ] && grep -Eq '^tcpxo-agent [0-9]+\.[0-9]+\.[0-9]+$' "$tmp/out" && ok version || nok version "exit $rc"

# stdout closed: the report cannot be written -> 2, not a crash.
"$A" --once --no-publish >&- 2>/dev/null; rc=$?
[ $rc -eq 2 ] && ok stdout-closed || nok stdout-closed "exit $rc"
exit $failed
