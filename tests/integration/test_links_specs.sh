#!/bin/sh
# test_links_specs.sh - links_query(), of every link and of links named, inside private network namespaces built from links.specs,
# and the agent's own observation unchanged by 512 pod veths.
# Env: TOPDIR (repo root), BUILD (build dir, relative to TOPDIR or absolute).
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOPDIR/$BUILD ;; esac
DUMP=$BUILD/tests/helpers/links-dump
DATA=$TOPDIR/tests/integration/data
NETNS_LIB=$TOPDIR/tests/lib/netns.sh
. "$NETNS_LIB"
. "$TOPDIR/tests/lib/devnodes.sh"
. "$TOPDIR/tests/lib/scenario.sh"
AGENT=${TCPXO_AGENT:-$BUILD/tcpxo-agent}

cases="links-basic in-pod pod-namespace-ends bad-spec-rejected failed-apply-ends-pod refuses-unvouched-namespace query-same-facts query-fallback-same-facts query-cost-ignores-veths agent-ignores-veths host-untouched"
if ! why=$(netns_can_run); then
	for c in $cases; do skip "$c" "$why"; done
	exit 0
fi
if [ ! -x "$DUMP" ]; then
	for c in $cases; do nok "$c" "$DUMP not built (make $BUILD/tests/helpers/links-dump)"; done
	exit 1
fi

tmp=$(mktemp -d /tmp/test_links.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
failed=0

host_before=$(ip -br link show)

# Peers get random MACs from the kernel: mask them.
if netns_run "$DATA/links-basic.spec" "$DUMP" >"$tmp/out" 2>"$tmp/err"; then
	sed 's/^\(p[0-9c][0-9]* [^ ]* [^ ]* [^ ]* \)[^ ]*/\1PEER-MAC/' "$tmp/out" >"$tmp/got"
	if diff -u "$DATA/links-basic.expected" "$tmp/got" >"$tmp/diff"; then
		ok links-basic
	else
		nok links-basic "output differs from links-basic.expected:"; sed 's/^/    /' "$tmp/diff"
	fi
else
	nok links-basic "netns_run failed: $(cat "$tmp/err")"
fi

# The in-pod link lives in the pod namespace, with its MAC, and nowhere else.
if netns_run "$DATA/links-basic.spec" sh -c \
	'nsenter -t "$NETNS_POD_PID" -n ip -br link show; echo "pid $NETNS_POD_PID"' >"$tmp/pod" 2>"$tmp/err"; then
	if grep -q '^eth4@[^ ]* .* 42:01:0a:00:13:03 ' "$tmp/pod" &&
	   [ "$(grep -c '^eth' "$tmp/pod")" = 1 ]; then
		ok in-pod
	else
		nok in-pod "pod namespace holds: $(tr '\n' ';' <"$tmp/pod")"
	fi
else
	nok in-pod "netns_run failed: $(cat "$tmp/err")"
fi

pid=$(sed -n 's/^pid //p' "$tmp/pod")
if [ -z "$pid" ]; then
	nok pod-namespace-ends "no pod PID seen"
elif kill -0 "$pid" 2>/dev/null && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sleep ]; then
	nok pod-namespace-ends "pod process $pid still runs after netns_run"
else
	ok pod-namespace-ends
fi

printf '# bad\neth1 - - - up\neth2 - - 10.0.0.1 up\n' >"$tmp/bad.spec"
netns_run "$tmp/bad.spec" true 2>"$tmp/err"
rc=$?
if [ "$rc" = 3 ] && grep -q 'bad.spec:3: .*needs a /prefix' "$tmp/err"; then
	ok bad-spec-rejected
else
	nok bad-spec-rejected "rc $rc, stderr: $(cat "$tmp/err")"
fi

# ip -batch fails after the pod namespace started: netns_apply itself ends the pod.
printf 'eth1 - - - in-pod\neth2 - 99999999 - up\n' >"$tmp/late.spec"
if unshare -n sh -c '. "$0"; NETNS_PRIVATE=$(readlink /proc/self/ns/net); netns_apply "$1" 2>/dev/null
	echo "rc $? pod [$NETNS_POD_PID] children [$(pgrep -P $$ -x sleep)]"' "$NETNS_LIB" "$tmp/late.spec" >"$tmp/late" 2>&1 &&
   [ "$(cat "$tmp/late")" = "rc 1 pod [] children []" ]; then
	ok failed-apply-ends-pod
else
	nok failed-apply-ends-pod "$(cat "$tmp/late")"
fi

# netns_apply without NETNS_PRIVATE vouching for the namespace refuses (run inside a throwaway one).
if unshare -n sh -c '. "$0"; NETNS_PRIVATE= netns_apply "$1" 2>&1; echo "rc $?"; ip -br link show | wc -l' \
	"$NETNS_LIB" "$DATA/links-basic.spec" >"$tmp/ref" 2>&1 &&
   grep -q refusing "$tmp/ref" && grep -q '^rc 1$' "$tmp/ref" && [ "$(tail -n1 "$tmp/ref")" = 1 ]; then
	ok refuses-unvouched-namespace
else
	nok refuses-unvouched-namespace "$(tr '\n' ';' <"$tmp/ref")"
fi

# The NICs asked for by name: the same lines as the full dump gives them; the in-pod, absent and
# unknown names are simply not there. Then the same through the full-dump fallback.
nics="eth0 eth1 eth2 eth3 eth4 eth5 eth6 nosuch9"
grep '^eth' "$DATA/links-basic.expected" >"$tmp/nics.expected"
for mode in strict fallback; do
	flag=; c=query-same-facts
	[ $mode = fallback ] && flag=--no-strict c=query-fallback-same-facts
	# shellcheck disable=SC2086
	if netns_run "$DATA/links-basic.spec" "$DUMP" --stats $flag $nics >"$tmp/q.$mode" 2>"$tmp/err"; then
		grep -v '^#' "$tmp/q.$mode" >"$tmp/q.$mode.links"
		want_strict=yes; [ $mode = fallback ] && want_strict=no
		if ! diff -u "$tmp/nics.expected" "$tmp/q.$mode.links" >"$tmp/diff"; then
			nok $c "differs from the full dump's lines:"; sed 's/^/    /' "$tmp/diff"
		elif ! grep -q "^# requests .* strict $want_strict " "$tmp/q.$mode"; then
			nok $c "stats: $(grep '^#' "$tmp/q.$mode")"
		else
			ok $c
		fi
	else
		nok $c "netns_run failed: $(cat "$tmp/err")"
	fi
done

# 512 more veth pairs, each with an address (a grown node's pods): the query asks and receives the same.
cp "$TOPDIR/fixtures/a3-mega/links.spec" "$tmp/grown.spec"
i=1
while [ $i -le 512 ]; do
	printf 'xb%d 02:00:00:00:%02x:%02x 1500 10.200.%d.%d/32 up\n' $i $((i / 256)) $((i % 256)) $((i / 250)) $((i % 250 + 1))
	i=$((i + 1))
done >>"$tmp/grown.spec"
gvnics="eth0 eth1 eth2 eth3 eth4 eth5 eth6 eth7 eth8"
# shellcheck disable=SC2086
if netns_run "$TOPDIR/fixtures/a3-mega/links.spec" "$DUMP" --stats $gvnics >"$tmp/small" 2>"$tmp/err" &&
   netns_run "$tmp/grown.spec" sh -c '"$0" "$@" && "$0" --no-strict "$@" | tail -n 1' "$DUMP" --stats $gvnics \
	>"$tmp/grown" 2>>"$tmp/err"; then
	small_stats=$(grep '^#' "$tmp/small")
	grown_stats=$(sed -n 10p "$tmp/grown")
	fb_messages=$(tail -n 1 "$tmp/grown" | awk '{ print $7 }')
	if [ "$(grep -v '^#' "$tmp/small")" != "$(sed -n 1,9p "$tmp/grown")" ]; then
		nok query-cost-ignores-veths "the NICs read differently beside 512 veths"
	elif [ "$small_stats" != "$grown_stats" ]; then
		nok query-cost-ignores-veths "without veths: $small_stats; with 512: $grown_stats"
	elif [ "${fb_messages:-0}" -lt 1024 ]; then
		nok query-cost-ignores-veths "the fallback received only ${fb_messages:-?} messages: was it taken?"
	else
		ok query-cost-ignores-veths
	fi
else
	nok query-cost-ignores-veths "netns_run failed: $(cat "$tmp/err")"
fi

# The agent's whole report on the a3-mega fixture is byte-identical with 512 pod veths beside its NICs.
root=$(SCENARIO_TMP=$tmp scenario_prepare a3-mega 2>/dev/null)
if [ ! -x "$AGENT" ] || [ -z "$root" ]; then
	nok agent-ignores-veths "$AGENT not built or fixture not prepared"
else
	for spec in "$TOPDIR/fixtures/a3-mega/links.spec" "$tmp/grown.spec"; do
		netns_run "$spec" "$AGENT" --once --no-publish --json --root "$root" --node fixture-a3-mega \
			>"$tmp/agent.$(basename "$spec")" 2>>"$tmp/agent.err"
		echo $? >>"$tmp/agent.rc"
	done
	if [ "$(tr '\n' ' ' <"$tmp/agent.rc")" != "0 0 " ]; then
		nok agent-ignores-veths "exit codes $(tr '\n' ' ' <"$tmp/agent.rc"): $(head -c 300 "$tmp/agent.err")"
	elif ! cmp -s "$tmp/agent.links.spec" "$tmp/agent.grown.spec"; then
		nok agent-ignores-veths "the report changed:"; diff "$tmp/agent.links.spec" "$tmp/agent.grown.spec" | head -20 | sed 's/^/    /'
	else
		ok agent-ignores-veths
	fi
fi

if [ "$(ip -br link show)" = "$host_before" ]; then
	ok host-untouched
else
	nok host-untouched "the host's links changed during the test"
fi
exit "$failed"
