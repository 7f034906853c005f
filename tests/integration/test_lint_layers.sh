#!/bin/sh
# test_lint_layers.sh - scripts/lint-layers.py passes on the tree and fails, naming file and line,
# on each kind of mistake planted in a copy: an upward include, a sibling include, a library
# header (or an adapter's private header) outside its adapter, an include cycle, and (from the objects) a call that goes up a layer
# or closes a circle with no #include line at all.
# Env: TOPDIR (repo root), BUILD (build dir). Prints ok/not ok per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOPDIR/$BUILD ;; esac
PY=/usr/bin/python3
LINT=$TOPDIR/scripts/lint-layers.py
failed=0


tmp=$(mktemp -d /dev/shm/tcpxo-lint.XXXXXX 2>/dev/null || mktemp -d /tmp/tcpxo-lint.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

# The tree as it is, with its objects.
if out=$($PY "$LINT" --root "$TOPDIR" --objects "$BUILD/obj" --objects "$BUILD/obj-portable" 2>&1); then
	ok tree-passes
else
	nok tree-passes "$(echo "$out" | tail -5)"
fi

fresh() {  # a pristine copy of the sources (include lines are all the lint reads without objects)
	rm -rf "$tmp/t"
	mkdir -p "$tmp/t"
	(cd "$TOPDIR" && tar cf - agent fabric probes report tests/unit tests/helpers tests/integration/*.c fuzz) | (cd "$tmp/t" && tar xf -)
}

# expect NAME PATTERN [lint args...]: the lint fails and prints a line matching PATTERN.
expect() {
	name=$1 pat=$2
	shift 2
	if out=$($PY "$LINT" --root "$tmp/t" "$@" 2>&1); then
		nok "$name" "lint passed a planted mistake"
	elif echo "$out" | grep -q -- "$pat"; then
		ok "$name"
	else
		nok "$name" "expected /$pat/, got: $(echo "$out" | head -3)"
	fi
}

plant() {  # plant FILE LINE-TEXT: a new first line, above the header comment (where a compiler sees it too)
	sed -i "1i $2" "$tmp/t/$1"
}

fresh
plant probes/host/links.c '#include "report/checks/profile.h"'
expect upward-include 'probes/host/links.c:1: "report/checks/profile.h" goes up a layer'

fresh
plant report/checks/pairing.c '#include "agent/cli.h"'
expect report-includes-agent 'report/checks/pairing.c:1: "agent/cli.h" goes up a layer'

fresh
plant probes/kube/kube.c '#include "probes/host/links.h"'
expect sibling-include 'probes/kube/kube.c:1: "probes/host/links.h" probes/kube/ and probes/host/ are siblings'

fresh
plant report/render/render_json.c '#include <cjson/cJSON.h>'
expect library-outside-adapter 'report/render/render_json.c:1: <cjson/cJSON.h> is cJSON, which only probes/model/json.c includes'

fresh
plant probes/kube/kube.c '#include <curl/curl.h>'
expect curl-outside-adapter 'probes/kube/kube.c:1: <curl/curl.h> is libcurl, which only probes/kube/http.c, probes/kube/http_stream.c'

fresh
plant tests/integration/test_kube_client.c '#include "probes/kube/http_conf.h"'
expect adapter-header-outside 'tests/integration/test_kube_client.c:1: "probes/kube/http_conf.h" is inside the libcurl adapter'

fresh
plant probes/host/links.c '#include <netlink/netlink.h>'
expect library-outside-adapters 'probes/host/links.c:1: <netlink/netlink.h> is libnl, which only probes/host/links_parse.c, probes/host/links_watch.c includes (its adapter)'

fresh
plant tests/unit/test_links.c '#include <netlink/netlink.h>'
expect library-in-a-test 'tests/unit/test_links.c:1: <netlink/netlink.h> is libnl'

fresh
plant probes/model/strbuf.h '#include "probes/model/json.h"'
plant probes/model/json.h '#include "probes/model/strbuf.h"'
expect include-cycle 'include cycle: probes/model/json.h -> probes/model/strbuf.h -> probes/model/json.h'

fresh
plant report/checks/profile.c '#include "report/checks/evaluate.h"'
expect module-cycle 'modules depend on each other in a circle: .*-> report/checks/evaluate \[includes evaluate.h (report/checks/profile.c:1)\]'

# kubectl-fabric's folder sits above agent/: the agent never reaches the workstation's kubectl runner.
fresh
plant agent/cmd_status.c '#include "fabric/kubectl.h"'
expect agent-includes-fabric 'agent/cmd_status.c:1: "fabric/kubectl.h" goes up a layer'

fresh
plant agent/log.c '#include "agent/nowhere.h"'
expect missing-header 'agent/log.c:1: "agent/nowhere.h" does not exist'

# Calls seen only in the objects: a probe calling a check through a hand-written prototype, and
# two files of one layer calling each other (the shape of the old hostprobe <-> aperture circle).
fresh
mkdir -p "$tmp/o/probes/host" "$tmp/o/report/checks"
cat >"$tmp/t/probes/host/planted.c" <<'EOF'
int check_planted(void);
int planted_probe(void) { return check_planted(); }
EOF
cat >"$tmp/t/report/checks/planted_check.c" <<'EOF'
int check_planted(void) { return 1; }
EOF
cat >"$tmp/t/probes/host/ring_a.c" <<'EOF'
int ring_b(void);
int ring_a(void) { return ring_b(); }
EOF
cat >"$tmp/t/probes/host/ring_b.c" <<'EOF'
int ring_a(void);
int ring_b(void) { return ring_a() + 1; }
EOF
built=1
for f in probes/host/planted probes/host/ring_a probes/host/ring_b report/checks/planted_check; do
	cc -c "$tmp/t/$f.c" -o "$tmp/o/$f.o" 2>"$tmp/cc.err" || { built=0; nok objects "$(head -3 "$tmp/cc.err")"; }
done
if [ $built = 1 ]; then
	expect call-goes-up 'probes/host/planted.c: calls check_planted() of report/checks/planted_check.c, which goes up a layer' \
		--objects "$tmp/o"
	expect call-circle 'probes/host/ring_a \[calls ring_a()\]' --objects "$tmp/o"
	# Without the objects the include lines alone are clean: the circle is visible only to nm.
	if $PY "$LINT" --root "$tmp/t" >/dev/null 2>&1; then ok calls-need-objects; else
		nok calls-need-objects "the planted calls failed the include-only lint"; fi
fi

exit $failed
