#!/bin/sh
# update-golden.sh - rewrite every scenario's golden outputs from the current binary.
set -eu
cd "$(dirname "$0")/../.."
TOPDIR=$PWD; TCPXO_AGENT=$PWD/${BUILD:-build}/tcpxo-agent; export TOPDIR TCPXO_AGENT
. tests/lib/netns.sh
[ -f tests/lib/devnodes.sh ] && . tests/lib/devnodes.sh
. tests/lib/scenario.sh
netns_can_run || { echo "update-golden: needs root and unshare -n" >&2; exit 1; }
for dir in fixtures/*/; do
	name=$(basename "$dir")
	[ -f "$dir/links.spec" ] || continue
	set +e
	scenario_run "$name" --json >"$dir/expected.json" 2>/dev/null; rc=$?
	scenario_run "$name" >"$dir/expected.txt" 2>/dev/null
	set -e
	echo "$rc" >"$dir/expected.exit"
	printf '%-32s exit %s  %s\n' "$name" "$rc" "$(head -n1 "$dir/expected.txt")"
done
