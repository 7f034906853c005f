#!/bin/sh
# test_links.sh - links_dump() inside a private network namespace built from a links.spec.
# Env: TOPDIR (repo root), BUILD (build dir, relative to TOPDIR or absolute).
set -u
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOPDIR/$BUILD ;; esac
DUMP=$BUILD/tests/helpers/links-dump
DATA=$TOPDIR/tests/integration/data
NETNS_LIB=$TOPDIR/tests/lib/netns.sh
. "$NETNS_LIB"

cases="links-basic in-pod pod-namespace-ends bad-spec-rejected failed-apply-ends-pod refuses-unvouched-namespace host-untouched"
if ! why=$(netns_can_run); then
	for c in $cases; do echo "skip $c: $why"; done
	exit 0
fi
if [ ! -x "$DUMP" ]; then
	for c in $cases; do echo "not ok $c: $DUMP not built (make $BUILD/tests/helpers/links-dump)"; done
	exit 1
fi

tmp=$(mktemp -d /tmp/test_links.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0
ok() { echo "ok $1"; }
notok() { echo "not ok $1: $2"; failed=1; }

host_before=$(ip -br link show)

# Peers get random MACs from the kernel: mask them.
if netns_run "$DATA/links-basic.spec" "$DUMP" >"$tmp/out" 2>"$tmp/err"; then
	sed 's/^\(p[0-9c][0-9]* [^ ]* [^ ]* [^ ]* \)[^ ]*/\1PEER-MAC/' "$tmp/out" >"$tmp/got"
	if diff -u "$DATA/links-basic.expected" "$tmp/got" >"$tmp/diff"; then
		ok links-basic
	else
		notok links-basic "output differs from links-basic.expected:"; sed 's/^/    /' "$tmp/diff"
	fi
else
	notok links-basic "netns_run failed: $(cat "$tmp/err")"
fi

# The in-pod link lives in the pod namespace, with its MAC, and nowhere else.
if netns_run "$DATA/links-basic.spec" sh -c \
	'nsenter -t "$NETNS_POD_PID" -n ip -br link show; echo "pid $NETNS_POD_PID"' >"$tmp/pod" 2>"$tmp/err"; then
	if grep -q '^eth4@[^ ]* .* 42:01:0a:00:13:03 ' "$tmp/pod" &&
	   [ "$(grep -c '^eth' "$tmp/pod")" = 1 ]; then
		ok in-pod
	else
		notok in-pod "pod namespace holds: $(tr '\n' ';' <"$tmp/pod")"
	fi
else
	notok in-pod "netns_run failed: $(cat "$tmp/err")"
fi

pid=$(sed -n 's/^pid //p' "$tmp/pod")
if [ -z "$pid" ]; then
	notok pod-namespace-ends "no pod PID seen"
elif kill -0 "$pid" 2>/dev/null && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ]; then
	notok pod-namespace-ends "pod process $pid still runs after netns_run"
else
	ok pod-namespace-ends
fi

printf '# bad\neth1 - - - up\neth2 - - 10.0.0.1 up\n' >"$tmp/bad.spec"
netns_run "$tmp/bad.spec" true 2>"$tmp/err"
rc=$?
if [ "$rc" = 3 ] && grep -q 'bad.spec:3: .*needs a /prefix' "$tmp/err"; then
	ok bad-spec-rejected
else
	notok bad-spec-rejected "rc $rc, stderr: $(cat "$tmp/err")"
fi

# ip -batch fails after the pod namespace started: netns_apply itself ends the pod.
printf 'eth1 - - - in-pod\neth2 - 99999999 - up\n' >"$tmp/late.spec"
if unshare -n sh -c '. "$0"; NETNS_PRIVATE=$(readlink /proc/self/ns/net); netns_apply "$1" 2>/dev/null
	echo "rc $? pod [$NETNS_POD_PID] children [$(pgrep -P $$ -x sleep)]"' "$NETNS_LIB" "$tmp/late.spec" >"$tmp/late" 2>&1 &&
   [ "$(cat "$tmp/late")" = "rc 1 pod [] children []" ]; then
	ok failed-apply-ends-pod
else
	notok failed-apply-ends-pod "$(cat "$tmp/late")"
fi

# netns_apply without NETNS_PRIVATE vouching for the namespace refuses (run inside a throwaway one).
if unshare -n sh -c '. "$0"; NETNS_PRIVATE= netns_apply "$1" 2>&1; echo "rc $?"; ip -br link show | wc -l' \
	"$NETNS_LIB" "$DATA/links-basic.spec" >"$tmp/ref" 2>&1 &&
   grep -q refusing "$tmp/ref" && grep -q '^rc 1$' "$tmp/ref" && [ "$(tail -n1 "$tmp/ref")" = 1 ]; then
	ok refuses-unvouched-namespace
else
	notok refuses-unvouched-namespace "$(tr '\n' ';' <"$tmp/ref")"
fi

if [ "$(ip -br link show)" = "$host_before" ]; then
	ok host-untouched
else
	notok host-untouched "the host's links changed during the test"
fi
exit "$failed"
