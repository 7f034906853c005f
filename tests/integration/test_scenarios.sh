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
		nok "$name" "JSON differs from golden"; sed 's/^/    /' "$tmp/diff" | head -40; failed=1
	elif ! diff -u "$dir/expected.txt" "$tmp/out.txt" >"$tmp/diff"; then
		nok "$name" "human report differs from golden"; sed 's/^/    /' "$tmp/diff" | head -40; failed=1
	elif [ "$rc" != "$want_rc" ] || [ "$rc_h" != "$want_rc" ]; then
		nok "$name" "exit $rc/$rc_h, expected $want_rc"; cat "$tmp/err"; failed=1
	else
		ok "$name (exit $rc)"
	fi
done

# Issue 25's acceptance, on the goldens the loop above holds to the binary: the healthy node's PCIe
# tree has a row for each of its 8 GPUs and 8 GPU NICs under a switch (the second level), and the
# nic-down node's tree marks its down NIC (eth3 in that fixture) on that NIC's row.
mega=$TOPDIR/fixtures/a3-mega/expected.txt
# Alternations, not bracket expressions: the box-drawing characters are several bytes in any locale.
gpus=$(grep -Ec '^  (│| )  (├|└)─ GPU  ' "$mega"); nics=$(grep -Ec '^  (│| )  (├|└)─ NIC  ' "$mega")
if [ "$gpus" = 8 ] && [ "$nics" = 8 ] && [ "$(grep -Ec '^  (├|└)─ switch ' "$mega")" = 4 ]; then
	ok "tree-a3-mega (8 GPU rows, 8 NIC rows under 4 switches)"
else
	nok "tree-a3-mega" "$gpus GPU rows, $nics NIC rows under the switches"; failed=1
fi
if grep -Eq '^  (│| )  (├|└)─ NIC  [0-9a-f:.]+  eth3  down  .*FAIL links: admin down$' \
	"$TOPDIR/fixtures/a3-mega-nic-down/expected.txt"; then
	ok "tree-nic-down (eth3's row marked down)"
else
	nok "tree-nic-down" "no tree row for eth3 marked 'FAIL links: admin down'"; failed=1
fi
exit $failed
