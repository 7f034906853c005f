#!/bin/sh
# run.sh - run every test, in parallel: cmocka unit binaries, then integration scripts.
# Prints one closing line "N passed, N failed, N skipped" and exits non-zero on any failure.
#   Unit binaries: cmocka's summary lines are counted; a crash (no summary) is a failure.
#   Integration scripts print "ok NAME", "not ok NAME: why", "skip NAME: why" per case (tests/lib/tap.sh);
#   a script exiting non-zero without a "not ok" line counts one failure. Each script's wall time is printed.
# Parallel by rule: every test makes its own temporary directory (mktemp), its own network and mount
# namespaces (unshare) and binds port 0 for its servers, so any two may run at once. A test that
# cannot keep that rule must not be added.
# The cmocka binaries of tests/integration/ (they fork a fake server) run with the integration scripts.
# Env: BUILD (build dir), ONLY=unit|integration|cmocka (cmocka: every cmocka binary, unit and integration),
#      SAN=1, VALGRIND=1 (cmocka binaries only),
#      JOBS (CPU-bound tests at once; default: 2 per CPU; the timed scripts all start at once),
#      TESTS (a space-separated list of test names to run, e.g. "test_kube_client test_cli").
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build}
export BUILD TCPXO_AGENT="$PWD/$BUILD/tcpxo-agent" TOPDIR="$PWD"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
log=$(mktemp -d /tmp/tcpxo-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT
ncpu=$(nproc 2>/dev/null || echo 2)

selected() {  # $1 = test name: whether TESTS (if set) names it
	[ -z "${TESTS:-}" ] && return 0
	case " $TESTS " in *" $1 "*) return 0 ;; esac
	return 1
}

# One test, run by xargs: writes $log/NAME.res ("p f s seconds exit") and $log/NAME.out.
run_one() {  # $1 = unit|script, $2 = path
	case $1 in
	unit) name=$(basename "$2") ;;
	*) name=$(basename "$2" .sh) ;;
	esac
	key=$1.$name
	out="$log/$key.out"
	t0=$(date +%s)
	if [ "$1" = unit ]; then
		if [ "${VALGRIND:-0}" = 1 ]; then
			valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite \
				"$2" >"$out" 2>&1
		else
			"$2" >"$out" 2>&1
		fi
		rc=$?
		p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
		s=$(sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
		f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -n1)
		if [ "$rc" -ne 0 ] || [ -z "$p$s$f" ]; then
			f=${f:-1}; [ "$f" -gt 0 ] || f=1
		fi
	else
		sh "$2" </dev/null >"$out" 2>&1
		rc=$?
		p=$(grep -c '^ok ' "$out"); f=$(grep -c '^not ok ' "$out"); s=$(grep -c '^skip ' "$out")
		# A misspelt helper ("test_x.sh: 12: bad: not found") would lose its case silently: a failure.
		f=$((f + $(grep -c ': [0-9]*: [^ ]*: not found$' "$out")))
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi
	fi
	echo "${p:-0} ${f:-0} ${s:-0} $(($(date +%s) - t0)) $rc" >"$log/$key.res"
	report "$key" "$name"
}

# Print one test's line (and its output's tail when it failed) as soon as it ends; one write, so
# lines of tests ending together do not interleave.
report() {  # $1 = key (unit.NAME or script.NAME), $2 = name
	read -r p f s dt rc <"$log/$1.res"
	if [ "$f" -gt 0 ]; then
		{ echo "FAIL $2 ($p passed, $f failed, exit $rc; $dt s)"; sed 's/^/    /' "$log/$1.out" | tail -n 60; } >"$log/$1.line"
	else
		sk=""; [ "$s" -gt 0 ] && sk=", $s skipped"
		{ echo "ok   $2 ($p passed$sk; $dt s)"; grep '^skip ' "$log/$1.out" | sed 's/^/    /'; } >"$log/$1.line"
	fi
	cat "$log/$1.line"
}

if [ "${1:-}" = --one ]; then  # the worker xargs starts
	log=$2; trap - EXIT
	run_one "$3" "$4"
	exit 0
fi

# Two pools run side by side. The timed scripts (daemons waiting on real timers and counting what
# happens in a window) all start at once at normal priority: they sleep most of the time and need the
# CPU when they wake. The rest are CPU-bound and run JOBS at a time under `nice`, so they never make a
# timed script miss its window.
TIMED="test_daemon test_daemon_watch test_daemon_faults test_daemon_flap test_daemon_node_writes test_daemon_health test_daemon_heartbeat test_daemon_frozen test_daemon_metrics"
list() {  # $1 = unit|timed|other: "kind path" lines, the slow ones first
	case $1 in
	unit)
		for t in "$BUILD"/tests/test_*; do
			[ -x "$t" ] && selected "$(basename "$t")" && echo "unit $t"
		done ;;
	cmocka-integration)
		for t in "$BUILD"/tests/integration/test_*; do
			[ -x "$t" ] && selected "$(basename "$t")" && echo "unit $t"
		done ;;
	timed)
		for n in $TIMED; do
			[ -f "tests/integration/$n.sh" ] && selected "$n" && echo "script tests/integration/$n.sh"
		done ;;
	other)
		for n in test_faults_host test_once_api test_once_api_faults test_schema test_lint_layers test_scenarios; do
			[ -f "tests/integration/$n.sh" ] && selected "$n" && echo "script tests/integration/$n.sh"
		done
		for t in tests/integration/test_*.sh; do
			n=$(basename "$t" .sh)
			case " $(echo $TIMED) test_faults_host test_once_api test_once_api_faults test_schema test_lint_layers test_scenarios " in
			*" $n "*) continue ;;
			esac
			selected "$n" && echo "script $t"
		done ;;
	esac
}

t_start=$(date +%s)
case ${ONLY:-} in
unit | integration | cmocka | "") ;;
*) echo "run.sh: ONLY must be unit, integration or cmocka, not '$ONLY'" >&2; exit 2 ;;
esac
if [ "${ONLY:-unit}" = unit ] || [ "${ONLY:-}" = cmocka ]; then
	list unit | xargs -r -P "${JOBS:-$((ncpu * 2))}" -L 1 sh tests/run.sh --one "$log"
fi
if [ "${ONLY:-}" = cmocka ]; then
	list cmocka-integration | xargs -r -P "${JOBS:-$((ncpu * 2))}" -L 1 sh tests/run.sh --one "$log"
fi
if [ "${ONLY:-integration}" = integration ]; then
	# The cmocka binaries of tests/integration/ wait on a forked server within time bounds: timed too.
	{ list timed; list cmocka-integration; } | xargs -r -P 16 -L 1 sh tests/run.sh --one "$log" &
	timed=$!
	list other | xargs -r -P "${JOBS:-$((ncpu * 2))}" -L 1 nice -n 10 sh tests/run.sh --one "$log"
	wait "$timed"
fi

pass=0 fail=0 skip=0 failed_names=""
for r in "$log"/*.res; do
	[ -f "$r" ] || continue
	read -r p f s dt rc <"$r"
	pass=$((pass + p)); fail=$((fail + f)); skip=$((skip + s))
	[ "$f" -gt 0 ] && failed_names="$failed_names $(basename "$r" .res | sed 's/^[a-z]*\.//')"
done
echo "wall time: $(($(date +%s) - t_start)) s"
[ -n "$failed_names" ] && echo "failed:$failed_names"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
