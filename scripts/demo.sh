#!/bin/sh
# demo.sh - run tcpxo-agent --once on the bundled A3 Mega fixture, inside a private network namespace
# that holds the fixture's eight GPU NICs (veth pairs), and show the human report.
set -u
BIN=${1:-build/tcpxo-agent}
SCENARIO=${SCENARIO:-a3-mega}
cd "$(dirname "$0")/.."
TOPDIR=$PWD; TCPXO_AGENT=$PWD/$BIN; export TOPDIR TCPXO_AGENT
. tests/lib/netns.sh
[ -f tests/lib/devnodes.sh ] && . tests/lib/devnodes.sh
. tests/lib/scenario.sh

if ! why=$(netns_can_run 2>&1); then
	echo "demo: $why" >&2
	echo "demo: the demo builds the fixture's links in a private network namespace, which needs root;" >&2
	echo "demo: run 'sudo make demo', or see the sample output in README.md." >&2
	exit 1
fi
echo "\$ tcpxo-agent --once --root fixtures/$SCENARIO --no-publish   # in a netns with the fixture's links"
echo
scenario_run "$SCENARIO"
rc=$?
echo
echo "exit code: $rc  (0 ready, 1 not ready, 2 unknown)"
echo "other scenarios: make demo SCENARIO=<name>, one of: $(cd fixtures && for d in */; do [ -f "$d/links.spec" ] && printf '%s ' "${d%/}"; done)"
exit 0
