#!/bin/sh
# fixture.sh - prepare a bundled fixture scenario the way the demo and the tests run it, so that the
# agent can be run on it by hand.
# Usage: scripts/fixture.sh list
#        scripts/fixture.sh prepare NAME        prints ROOT: a private copy of fixtures/NAME in
#                                               /dev/shm (SCENARIO_TMP) with its file modes
#                                               (modes.spec) and device nodes (devnodes.spec, root)
#        scripts/fixture.sh netns NAME CMD...   runs CMD in a private network namespace holding
#                                               NAME's links (links.spec; root); exits with CMD's status
# By hand (as root), as `make demo` does:
#   root=$(scripts/fixture.sh prepare a3-mega)
#   scripts/fixture.sh netns a3-mega build/tcpxo-agent --once --no-publish --root "$root" --node fixture-a3-mega
#   rm -rf "$root"
set -u
TOPDIR=$(cd "$(dirname "$0")/.." && pwd)
export TOPDIR
. "$TOPDIR/tests/lib/netns.sh"
. "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"

fixture_list() {  # the scenarios: fixture trees with a links.spec
	for _d in "$TOPDIR"/fixtures/*; do
		[ -f "$_d/links.spec" ] && basename "$_d"
	done
}

fixture_known() {  # NAME -> 0 when NAME is a scenario, else says so, lists them and returns 2
	if [ -n "$1" ] && [ -f "$TOPDIR/fixtures/$1/links.spec" ]; then
		case $1 in */*|.*) ;; *) return 0 ;; esac
	fi
	echo "fixture: no scenario '$1'; the scenarios are: $(fixture_list | tr '\n' ' ')" >&2
	return 2
}

usage() {
	echo "usage: scripts/fixture.sh list | prepare NAME | netns NAME CMD..." >&2
	exit 2
}

[ $# -ge 1 ] || usage
cmd=$1; shift
case $cmd in
list)
	fixture_list ;;
prepare)
	[ $# = 1 ] || usage
	fixture_known "$1" || exit 2
	if [ -f "$TOPDIR/fixtures/$1/devnodes.spec" ] && [ "$(id -u)" != 0 ]; then
		echo "fixture: $1's device nodes need root (mknod): run as root" >&2
		exit 1
	fi
	scenario_prepare "$1" || { echo "fixture: could not prepare $1" >&2; exit 1; } ;;
netns)
	[ $# -ge 2 ] || usage
	fixture_known "$1" || exit 2
	if ! why=$(netns_can_run 2>&1); then
		echo "fixture: cannot build $1's links in a private network namespace: $why" >&2
		exit 1
	fi
	spec=$TOPDIR/fixtures/$1/links.spec; shift
	netns_run "$spec" "$@" ;;
*)
	usage ;;
esac
