#!/bin/sh
# run.sh - run libFuzzer targets (build-fuzz/fuzz/fuzz_*) for FUZZ_SECONDS each, one at a time,
# and print executions and coverage per target. Usage: fuzz/run.sh [TARGET...] (default: all).
# Working corpora grow under $BUILD/corpus/<target> (seeded from fixtures/fuzz/<target>); a crash,
# leak or timeout is written to fixtures/fuzz/<target>/ as crash-*/leak-*/timeout-*, where
# make check replays it. Each run is appended to $BUILD/fuzz-stats.tsv (seconds it really ran). Exit 1 if any target failed.
set -u
cd "$(dirname "$0")/.." || exit 2
BUILD=${BUILD:-build-fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"

if [ $# -eq 0 ]; then
	set -- $(for f in fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)
fi
failed=""
printf '%-20s %8s %12s %8s %8s %8s %s\n' target seconds execs exec/s cov ft result
for t in "$@"; do
	bin="$BUILD/fuzz/fuzz_$t"
	seeds="fixtures/fuzz/$t"
	corpus="$BUILD/corpus/$t"
	log="$BUILD/fuzz-$t.log"
	if [ ! -x "$bin" ]; then
		echo "fuzz: $bin missing (make FUZZ=1 fuzz-build)" >&2
		failed="$failed $t"
		continue
	fi
	mkdir -p "$corpus" "$seeds"
	# Every seed and regression file is part of the starting corpus.
	cp -n "$seeds"/* "$corpus"/ 2>/dev/null
	start=$(date +%s)
	"$bin" -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
		-print_final_stats=1 -artifact_prefix="$seeds/" "$corpus" >"$log" 2>&1
	rc=$?
	took=$(($(date +%s) - start))
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n1)
	secs=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n1)
	# The last status line carries the coverage figures: "#N  DONE cov: C ft: F corp: ..."
	cov=$(grep -ao 'cov: [0-9]*' "$log" | tail -n1 | cut -d' ' -f2)
	ft=$(grep -ao 'ft: [0-9]*' "$log" | tail -n1 | cut -d' ' -f2)
	if [ "$rc" -eq 0 ]; then
		res=ok
	else
		res="FAILED (exit $rc; see $log; artifact: $(grep -ao "$seeds/[a-z]*-[0-9a-f]*" "$log" | tail -n1))"
		failed="$failed $t"
	fi
	printf '%-20s %8s %12s %8s %8s %8s %s\n' "$t" "$took" "${execs:-?}" "${secs:-?}" \
		"${cov:-?}" "${ft:-?}" "$res"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "$took" "${execs:-0}" \
		"${cov:-0}" "${ft:-0}" "$res" >>"$BUILD/fuzz-stats.tsv"
done
if [ -n "$failed" ]; then
	echo "fuzz: failed:$failed" >&2
	exit 1
fi
