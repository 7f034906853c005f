#!/bin/sh
# test_image_libs.sh - the Dockerfile, checked without an engine: stages, .dockerignore, and that the runtime
# stage's packages provide every shared library the binary (and every pkg-config library) links.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
A=${TCPXO_AGENT:-$TOPDIR/build/tcpxo-agent}
PY="/usr/bin/python3 $TOPDIR/tests/lib/check_image.py $TOPDIR"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
failed=0

$PY dockerfile || failed=1
$PY ignore || failed=1

for t in ldd dpkg objdump pkg-config cc; do
	command -v $t >/dev/null 2>&1 || { skip "image-libs" "$t is not installed"; exit $failed; }
done

# Every library the build links through pkg-config, linked into a probe even when unused (--no-as-needed),
# so this runs before the agent's binary links and cannot pass by the binary linking fewer libraries.
PKGS="libnl-3.0 libnl-route-3.0 libudev libcurl libcjson yaml-0.1 libmicrohttpd"
if printf 'int main(void) { return 0; }\n' | cc -x c - -o "$tmp/probe" -Wl,--no-as-needed $(pkg-config --libs $PKGS) 2>"$tmp/cc.err"; then
	$PY libs "$tmp/probe" >"$tmp/out" || failed=1
	sed 's/^\(not \)\{0,1\}ok image-libs/&-pkgconfig/' "$tmp/out"

	# The check must catch a runtime package left out: drop libcjson1 from a copy of the Dockerfile.
	sed 's/ libcjson1 / /' "$TOPDIR/Dockerfile" >"$tmp/Dockerfile"
	if grep -q libcjson1 "$tmp/Dockerfile"; then nok image-libs-detects-missing "could not remove libcjson1 from the copy"
	elif $PY libs "$tmp/probe" "$tmp/Dockerfile" >"$tmp/out"; then nok image-libs-detects-missing "passed without libcjson1"
	elif grep -q 'libcjson' "$tmp/out"; then ok "image-libs-detects-missing"
	else nok image-libs-detects-missing "failed without naming libcjson: $(cat "$tmp/out")"; fi
else
	nok image-libs-pkgconfig "cannot link a probe with $PKGS: $(head -3 "$tmp/cc.err")"
fi

if [ -x "$A" ] && objdump -p "$A" | grep -Eq 'NEEDED +lib(asan|ubsan)'; then
	skip "image-libs-binary" "$A is a sanitizer build; the image ships the plain build"
elif [ -x "$A" ]; then
	$PY libs "$A" >"$tmp/out" || failed=1
	sed 's/^\(not \)\{0,1\}ok image-libs/&-binary/' "$tmp/out"
else
	skip "image-libs-binary" "$A is not built"
fi
exit $failed
