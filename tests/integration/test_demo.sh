#!/bin/sh
# test_demo.sh - the demo prints the commands it runs, and they, run by hand, give the demo's verdict;
# scripts/fixture.sh prepares a scenario as the tests do (device nodes, file modes); an unknown
# scenario (`make demo SCENARIO=typo`) fails with the list of scenarios. Needs root (mknod, unshare
# -n): skips without it.
# Env: TOPDIR (repo root), TCPXO_AGENT (the binary). Prints ok/not ok/skip per case.
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
TCPXO_AGENT=${TCPXO_AGENT:-$TOPDIR/build/tcpxo-agent}
. "$TOPDIR/tests/lib/tap.sh"
. "$TOPDIR/tests/lib/netns.sh"
cd "$TOPDIR" || exit 2

tmp=$(mktemp -d /tmp/tcpxo-demo.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# An unknown scenario: no root needed to be refused.
SCENARIO=a3-mega-nicdown sh scripts/demo.sh "$TCPXO_AGENT" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && grep -q "no scenario 'a3-mega-nicdown'" "$tmp/err" && grep -q ' a3-mega-nic-down ' "$tmp/err" \
	&& ! grep -q '^cp:' "$tmp/err"; then
	ok demo-unknown-scenario-fails
else
	nok demo-unknown-scenario-fails "exit $rc, stderr: $(cat "$tmp/err")"
fi
sh scripts/fixture.sh prepare nope >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" = 2 ] && [ ! -s "$tmp/out" ] && grep -q ' a3-mega ' "$tmp/err"; then
	ok fixture-unknown-scenario-fails
else
	nok fixture-unknown-scenario-fails "exit $rc, stderr: $(cat "$tmp/err")"
fi

# Without root the demo says so and exits 1, as the README says.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups sh scripts/demo.sh "$TCPXO_AGENT" >"$tmp/out" 2>"$tmp/err"
	rc=$?
else
	sh scripts/demo.sh "$TCPXO_AGENT" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ "$(id -u)" = 0 ] && rc=norun
fi
if [ "$rc" = norun ]; then
	skip demo-without-root "root without setpriv: cannot run the demo as another user"
elif [ "$rc" = 1 ] && grep -q '^demo: not root' "$tmp/err" && [ ! -s "$tmp/out" ] \
	&& tr '\n' ' ' <README.md | grep -q 'The demo needs root (`unshare -n`, `mknod`): without it, it says so and exits 1'; then
	ok demo-without-root
else
	nok demo-without-root "exit $rc ($(head -n 1 "$tmp/err")), or README.md does not say it exits 1"
fi

if ! why=$(netns_can_run 2>&1); then
	for c in demo-prints-what-runs fixture-prepare; do skip "$c" "needs root and unshare -n: $why"; done
	exit $failed
fi

# The "$ " lines the demo prints, run by hand in the repository root, give the demo's report.
for scen in a3-mega a3-mega-stale-aperture; do
	SCENARIO=$scen sh scripts/demo.sh "$TCPXO_AGENT" >"$tmp/demo" 2>&1
	demo_rc=$(sed -n 's/^exit code: \([0-9]*\) .*/\1/p' "$tmp/demo")
	sed -n 's/^\$ //p' "$tmp/demo" >"$tmp/cmds"
	# then remove the copy it prepared
	{ cat "$tmp/cmds"; echo 'rc=$?; rm -rf "$root"; exit $rc'; } | sh >"$tmp/hand" 2>&1
	hand_rc=$?
	if [ -n "$demo_rc" ] && [ "$hand_rc" = "$demo_rc" ] \
		&& [ "$(grep -m1 '^tcpxo:' "$tmp/hand")" = "$(grep -m1 '^tcpxo:' "$tmp/demo")" ] \
		&& [ "$(grep -c . "$tmp/hand")" -gt 10 ]; then
		ok "demo-prints-what-runs $scen"
	else
		nok "demo-prints-what-runs $scen" "demo exit $demo_rc, by hand exit $hand_rc: $(head -3 "$tmp/hand")"
	fi
	# The README's sample for this scenario shows the same commands.
	grep "^\$ " "$tmp/demo" | sed "s|$TCPXO_AGENT|build/tcpxo-agent|" >"$tmp/want"
	if grep -q "^\$ scripts/fixture.sh netns $scen " README.md; then
		grep -B1 -h "^\$ scripts/fixture.sh netns $scen " README.md >"$tmp/readme"
		if cmp -s "$tmp/readme" "$tmp/want"; then
			ok "readme-shows-what-runs $scen"
		else
			nok "readme-shows-what-runs $scen" "README: $(cat "$tmp/readme"); demo: $(cat "$tmp/want")"
		fi
	else
		nok "readme-shows-what-runs $scen" "README.md has no sample with 'fixture.sh netns $scen'"
	fi
done

# prepare: a private copy with the device nodes and the modes the specs name.
if root=$(sh scripts/fixture.sh prepare a3-mega) && [ -d "$root" ]; then
	dev=$(awk '$1 !~ /^#/ && NF == 3 { print $1; exit }' fixtures/a3-mega/devnodes.spec)
	mp=$(awk '$1 !~ /^#/ && NF == 2 { print $1, $2; exit }' fixtures/a3-mega/modes.spec)
	mode=$(stat -c %a "$root/${mp% *}" 2>/dev/null)
	if [ -c "$root/$dev" ] && [ "$mode" = "$(echo "${mp#* }" | sed 's/^0*//')" ]; then
		ok fixture-prepare
	else
		nok fixture-prepare "$root/$dev not a character device, or ${mp% *} mode $mode, not ${mp#* }"
	fi
	rm -rf "$root"
else
	nok fixture-prepare "scripts/fixture.sh prepare a3-mega failed"
fi
exit $failed
