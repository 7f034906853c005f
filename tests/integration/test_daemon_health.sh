#!/bin/sh
# test_daemon_health.sh - `tcpxo-agent health`: fresh, stale, missing and odd health files (exit 0 / 1).
# Env: TOPDIR, BUILD, TCPXO_AGENT. Prints ok/not ok per case.
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
failed=0
if [ ! -x "$AGENT" ]; then
	echo "not ok daemon-health: $AGENT is not built"
	exit 1
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tcpxo-health.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

case_() {  # NAME WANT_RC WANT_STDERR_SUBSTRING ARGS...
	name=$1 want=$2 msg=$3
	shift 3
	"$AGENT" health "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ "$rc" != "$want" ]; then
		echo "not ok daemon-health $name: exit $rc, want $want: $(cat "$tmp/out" "$tmp/err" | tr '\n' '|')"; failed=1
	elif [ -n "$msg" ] && ! grep -q -- "$msg" "$tmp/out" "$tmp/err"; then
		echo "not ok daemon-health $name: no '$msg' in: $(cat "$tmp/out" "$tmp/err" | tr '\n' '|')"; failed=1
	else
		echo "ok daemon-health $name (exit $rc)"
	fi
}

touch "$tmp/fresh"
case_ fresh 0 "fresh: touched" --health-file "$tmp/fresh" --max-age 30
touch -d '-90 seconds' "$tmp/stale"
case_ stale 1 "stale: last touched 9" --health-file "$tmp/stale" --max-age 60
case_ "default max-age 60" 1 "more than 60s" --health-file "$tmp/stale"
case_ "larger max-age" 0 "fresh" --health-file "$tmp/stale" --max-age 120
case_ missing 1 "missing" --health-file "$tmp/nonexistent"
touch -d '+1 hour' "$tmp/future"
case_ "far future" 1 "in the future" --health-file "$tmp/future" --max-age 60
mkdir "$tmp/dir"
case_ directory 1 "not a regular file" --health-file "$tmp/dir" --max-age 60
ln -s "$tmp/fresh" "$tmp/link"
case_ symlink 1 "not a regular file" --health-file "$tmp/link" --max-age 60
case_ "no --health-file" 2 "needs --health-file"
case_ "bad --max-age" 2 "max-age" --health-file "$tmp/fresh" --max-age -1
exit $failed
