#!/bin/sh
# run.sh - run every test: cmocka unit binaries, then integration scripts.
# Prints one closing line "N passed, N failed, N skipped" and exits non-zero on any failure.
#   Unit binaries: cmocka's summary lines are counted; a crash (no summary) is a failure.
#   Integration scripts print "ok NAME", "not ok NAME: why", "skip NAME: why" per case;
#   a script exiting non-zero without a "not ok" line counts one failure. Each script's wall time is printed
#   (CI must stay under 30 minutes; the slow ones are the daemon scripts, which wait on real timers).
# Env: BUILD (build dir), ONLY=unit|integration, SAN=1, VALGRIND=1 (unit binaries only).
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
export BUILD TCPXO_AGENT="$PWD/$BUILD/tcpxo-agent" TOPDIR="$PWD"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
pass=0 fail=0 skip=0
failed_names=""
log=$(mktemp -d /tmp/tcpxo-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT

count_unit() {  # $1 = binary
	name=$(basename "$1")
	out="$log/$name.out"
	if [ "${VALGRIND:-0}" = 1 ]; then
		valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
			"$1" >"$out" 2>&1
	else
		"$1" >"$out" 2>&1
	fi
	rc=$?
	p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
	pass=$((pass + ${p:-0})); skip=$((skip + ${s:-0}))
	if [ "$rc" -ne 0 ] || [ -z "$p$s$f" ]; then
		n=${f:-1}; [ "$n" -gt 0 ] || n=1
		fail=$((fail + n)); failed_names="$failed_names $name"
		echo "FAIL $name (exit $rc)"; sed 's/^/    /' "$out" | tail -n 40
	else
		echo "ok   $name (${p:-0} passed${s:+, $s skipped})"
	fi
}

count_script() {  # $1 = script
	name=$(basename "$1" .sh)
	out="$log/$name.out"
	t0=$(date +%s)
	sh "$1" >"$out" 2>&1
	rc=$?
	dt=$(($(date +%s) - t0))
	p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out"); s=$(grep -c '^skip ' "$out")
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	if [ "$f" -gt 0 ]; then
		failed_names="$failed_names $name"
		echo "FAIL $name ($p passed, $f failed, exit $rc; $dt s)"; sed 's/^/    /' "$out" | tail -n 60
	else
		echo "ok   $name ($p passed${s:+, $s skipped}; $dt s)"
		grep '^skip ' "$out" | sed 's/^/    /'
	fi
}

if [ "${ONLY:-unit}" = unit ] || [ -z "${ONLY:-}" ]; then
	for t in "$BUILD"/tests/test_*; do
		[ -x "$t" ] && count_unit "$t"
	done
fi
if [ "${ONLY:-integration}" = integration ] || [ -z "${ONLY:-}" ]; then
	for t in tests/integration/test_*.sh; do
		[ -f "$t" ] && count_script "$t"
	done
fi
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
