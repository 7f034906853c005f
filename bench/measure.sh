#!/bin/sh
# measure.sh - inside one prepared namespace, time a set of commands side by side:
# hyperfine (wall time, median/min/max of RUNS) and /usr/bin/time (CPU and peak RSS of each run).
# Usage: measure.sh OUTDIR RUNS NAME CMD [NAME CMD]...   (CMD: one string, split like a shell does)
# Writes OUTDIR/hyperfine.json and OUTDIR/time-NAME.txt ("%e %U %S %M" per line).
set -eu
out=$1 runs=$2
shift 2
mkdir -p "$out"
set_args=""
names=""
while [ $# -ge 2 ]; do
	names="$names $1"
	printf '%s\n' "$2" >"$out/cmd-$1.txt"
	shift 2
done
hf="hyperfine -N -i --style none --warmup 3 --runs $runs --export-json $out/hyperfine.json"
for n in $names; do
	hf="$hf -n $n '$(sed "s/'/'\\\\''/g" "$out/cmd-$n.txt")'"
done
eval "$hf" >"$out/hyperfine.out" 2>&1 || { cat "$out/hyperfine.out" >&2; exit 1; }
for n in $names; do
	: >"$out/time-$n.txt"
	i=0
	while [ $i -lt "$runs" ]; do
		eval "/usr/bin/time -f '%e %U %S %M' -a -o '$out/time-$n.txt' $(cat "$out/cmd-$n.txt")" \
			>/dev/null 2>&1 || true
		i=$((i + 1))
	done
done
