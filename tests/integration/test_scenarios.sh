#!/bin/sh
# test_scenarios.sh - the real binary on every fixture scenario in a private netns, diffed with golden files.
# Golden: fixtures/<name>/expected.json (--json), expected.txt (human), expected.exit (exit code).
# `make update-golden` rewrites them; review the diff before committing.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
. "$TOPDIR/tests/lib/netns.sh"
[ -f "$TOPDIR/tests/lib/devnodes.sh" ] && . "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"

if ! why=$(netns_can_run 2>&1); then
	skip "scenarios" "$why"
	exit 0
fi
failed=0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for dir in "$TOPDIR"/fixtures/*/; do
	name=$(basename "$dir")
	[ -f "$dir/links.spec" ] || continue
	if [ ! -f "$dir/expected.json" ]; then
		nok "$name" "no golden file (run make update-golden)"; continue
	fi
	scenario_run "$name" --json >"$tmp/out.json" 2>"$tmp/err"; rc=$?
	scenario_run "$name" >"$tmp/out.txt" 2>/dev/null; rc_h=$?
	want_rc=$(cat "$dir/expected.exit")
	if ! diff -u "$dir/expected.json" "$tmp/out.json" >"$tmp/diff"; then
		nok "$name" "JSON differs from golden"; sed 's/^/    /' "$tmp/diff" | head -40
	elif ! diff -u "$dir/expected.txt" "$tmp/out.txt" >"$tmp/diff"; then
		nok "$name" "human report differs from golden"; sed 's/^/    /' "$tmp/diff" | head -40
	elif [ "$rc" != "$want_rc" ] || [ "$rc_h" != "$want_rc" ]; then
		nok "$name" "exit $rc/$rc_h, expected $want_rc"; cat "$tmp/err"
	else
		ok "$name (exit $rc)"
	fi
done

exit $failed
