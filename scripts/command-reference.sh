#!/bin/sh
# command-reference.sh - the user guide's command reference, from each command's own --help.
# Usage: scripts/command-reference.sh [BUILD]            print the section's body (markdown)
#        scripts/command-reference.sh --update [BUILD]   rewrite it in docs/user-guide.md (make update-docs)
# The section sits between the two marker lines below; tests/integration/test_docs.sh fails when it is not
# what the binaries print (the reference cannot drift from --help, which is made from the one option table).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
update=0
if [ "${1:-}" = --update ]; then
	update=1
	shift
fi
build=${1:-build}
agent=$top/$build/tcpxo-agent
fabric=$top/$build/kubectl-fabric
begin='<!-- command-reference: made by scripts/command-reference.sh from each command'"'"'s --help (make update-docs); do not edit -->'
end='<!-- end of command-reference -->'

body() {
	for c in daemon once cleanup interfaces health workloads runtime status help version; do
		case $c in
		daemon) title='`tcpxo-agent` (the daemon)' ;;
		once|cleanup) title="\`tcpxo-agent --$c\`" ;;
		*) title="\`tcpxo-agent $c\`" ;;
		esac
		printf '### %s\n\n```\n' "$title"
		"$agent" help "$c"
		printf '```\n\n'
	done
	for c in status interfaces runtime workloads help version; do
		printf '### `kubectl fabric %s`\n\n```\n' "$c"
		"$fabric" help "$c"
		printf '```\n\n'
	done
}

if [ $update = 0 ]; then
	body
	exit 0
fi
guide=$top/docs/user-guide.md
grep -qxF "$begin" "$guide" && grep -qxF "$end" "$guide" || {
	echo "command-reference.sh: $guide lacks the marker lines" >&2
	exit 1
}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.body"' EXIT
body >"$tmp.body"
awk -v b="$begin" -v e="$end" -v f="$tmp.body" '
	$0 == b { print; print ""; while ((getline l < f) > 0) print l; skip = 1; next }
	$0 == e { skip = 0 }
	!skip' "$guide" >"$tmp"
cat "$tmp" >"$guide"
