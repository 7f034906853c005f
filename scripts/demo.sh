#!/bin/sh
# demo.sh - run tcpxo-agent --once on a bundled fixture scenario (SCENARIO, default a3-mega) the way
# scripts/fixture.sh prepares it: a private copy of the tree with its file modes and device nodes,
# inside a private network namespace that holds the fixture's GPU NICs (veth pairs). Prints the
# commands it runs, then the human report. Exits 1 without root, 2 on an unknown scenario.
set -u
BIN=${1:-build/tcpxo-agent}
SCENARIO=${SCENARIO:-a3-mega}
cd "$(dirname "$0")/.."
. tests/lib/netns.sh

if ! [ -f "fixtures/$SCENARIO/links.spec" ] || case $SCENARIO in */*|.*) true ;; *) false ;; esac; then
	echo "demo: no scenario '$SCENARIO'" >&2
	echo "demo: make demo SCENARIO=<name>, one of: $(sh scripts/fixture.sh list | tr '\n' ' ')" >&2
	exit 2
fi
if ! why=$(netns_can_run 2>&1); then
	echo "demo: $why" >&2
	echo "demo: the demo builds the fixture's links in a private network namespace, which needs root;" >&2
	echo "demo: run 'sudo make demo', or see the sample output in README.md." >&2
	exit 1
fi
echo "\$ root=\$(scripts/fixture.sh prepare $SCENARIO)   # a private copy with file modes and device nodes"
echo "\$ scripts/fixture.sh netns $SCENARIO $BIN --once --no-publish --root \"\$root\" --node fixture-$SCENARIO"
echo
root=$(scripts/fixture.sh prepare "$SCENARIO") || exit 1
scripts/fixture.sh netns "$SCENARIO" "$BIN" --once --no-publish --root "$root" --node "fixture-$SCENARIO"
rc=$?
rm -rf "$root"
echo
echo "exit code: $rc  (0 ready, 1 not ready, 2 unknown)"
echo "other scenarios: make demo SCENARIO=<name>, one of:"
sh scripts/fixture.sh list | tr '\n' ' ' | fold -s -w 96 | sed 's/ *$//; s/^/  /'
exit 0
