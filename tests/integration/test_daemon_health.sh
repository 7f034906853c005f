#!/bin/sh
# test_daemon_health.sh - `tcpxo-agent health` on fresh, stale, missing and odd files; the daemon's log lines.
# Env: TOPDIR, BUILD, TCPXO_AGENT. Prints ok/not ok per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
AGENT=${TCPXO_AGENT:-$TOPDIR/${BUILD:-build}/tcpxo-agent}
failed=0
if [ ! -x "$AGENT" ]; then
	nok "daemon-health" "$AGENT is not built"
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
		ok "daemon-health $name (exit $rc)"
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

# --- the daemon's own log lines: one JSON object per line; SIGHUP re-observes; SIGTERM exits 0 ---
# No API and --no-publish: nothing is contacted; the links are this namespace's (only the log is checked).
log_case() {  # FORMAT
	"$AGENT" --root "$TOPDIR/fixtures/a3-mega" --node fixture --no-publish --log-format "$1" \
		--health-file "$tmp/h-$1" 2>"$tmp/log-$1" &
	pid=$!
	i=0
	while ! grep -q 'observed' "$tmp/log-$1" && [ $i -lt 250 ]; do sleep 0.02; i=$((i + 1)); done
	kill -HUP "$pid"
	i=0
	while [ "$(grep -c 'SIGHUP' "$tmp/log-$1")" = 0 ] && [ $i -lt 100 ]; do sleep 0.02; i=$((i + 1)); done
	kill -TERM "$pid"
	wait "$pid"
	echo $?
}
rc=$(log_case json)
if [ "$rc" = 0 ] && /usr/bin/python3 - "$tmp/log-json" fixture <<'PY'
import json, sys
NODE = sys.argv[2]
lines = open(sys.argv[1]).read().splitlines()
msgs = []
for line in lines:
    v = json.loads(line)
    # Cloud Logging's structured form: its special keys, the node as a label, the fields beside them.
    labels, loc = v["logging.googleapis.com/labels"], v["logging.googleapis.com/sourceLocation"]
    assert labels == {"node": NODE}, v
    assert set(loc) == {"file", "line", "function"} and loc["file"].startswith("agent/") and loc["line"].isdigit(), v
    assert "fields" not in v and "node" not in v, v
    assert all(isinstance(x, str) for k, x in v.items() if not k.startswith("logging.googleapis.com/")), v
    assert v["time"].endswith("Z") and v["severity"] in ("ERROR", "WARNING", "INFO", "DEBUG"), v
    msgs.append(v["message"])
assert msgs[0] == "started" and "observed" in msgs and "SIGHUP: re-observing now" in msgs, msgs
assert msgs[-1] == "stopping: annotations left in place", msgs
assert json.loads(lines[0])["version"], lines[0]
PY
then
	ok "daemon-log json: one object per line (time, severity, message, the node as logging.googleapis.com/labels, sourceLocation, fields beside them: Cloud Logging's), SIGHUP, exit 0"
else
	echo "not ok daemon-log json: exit $rc: $(head -c 600 "$tmp/log-json" | tr '\n' '|')"; failed=1
fi
rc=$(log_case text)
if [ "$rc" = 0 ] && grep -q '^[0-9T:.-]*Z info started version=' "$tmp/log-text" &&
   grep -q 'info observed changes="profile ' "$tmp/log-text" && grep -q 'info SIGHUP: re-observing now' "$tmp/log-text"; then
	ok "daemon-log text: started, observed, SIGHUP, exit 0"
else
	echo "not ok daemon-log text: exit $rc: $(head -c 600 "$tmp/log-text" | tr '\n' '|')"; failed=1
fi
exit $failed
