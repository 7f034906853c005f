#!/bin/sh
# test_fuzz_regress.sh - replay every seed and crash regression of fixtures/fuzz/<target>/ through
# that target's fuzz_one(), built by gcc with the replay driver ($BUILD/fuzz/fuzz_<target>), so the
# inputs that once crashed keep being tried by make check (and under SAN=1, by the sanitizers).
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
: "${TOPDIR:?}" "${BUILD:?}"
cd "$TOPDIR" || exit 2
rc=0
for src in fuzz/fuzz_*.c; do
	t=$(basename "$src" .c | sed 's/^fuzz_//')
	bin="$BUILD/fuzz/fuzz_$t"
	dir="fixtures/fuzz/$t"
	if [ ! -x "$bin" ]; then
		nok "fuzz-$t" "$bin not built"
		rc=1
		continue
	fi
	if [ ! -d "$dir" ] || [ -z "$(ls "$dir")" ]; then
		nok "fuzz-$t" "no seeds in $dir"
		rc=1
		continue
	fi
	n=$(ls "$dir" | wc -l)
	out=$(timeout 120 "$bin" "$dir" 2>&1)
	st=$?
	if [ $st -eq 0 ] && [ "$out" = "replayed $n inputs" ]; then
		ok "fuzz-$t ($n inputs)"
	else
		echo "not ok fuzz-$t: exit $st: $(printf '%s' "$out" | tail -n 20)"
		rc=1
	fi
done
# The driver itself: a missing input is an error, not a silent pass.
if "$BUILD/fuzz/fuzz_json" /nonexistent/input >/dev/null 2>&1; then
	nok "fuzz-replay-missing-input" "exit 0"
	rc=1
else
	ok "fuzz-replay-missing-input"
fi
exit $rc
