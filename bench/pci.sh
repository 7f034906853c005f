#!/bin/sh
# pci.sh OUTDIR ROOT - what reading the PCI tree costs (issue 31: libpci used or not), on ROOT, a copy of the
# a3-mega tree (51 functions) on tmpfs, run inside its links' namespace (bench/run.sh's netns_run):
#   probe  pcitopo_scan() alone in process (pci-dump --repeat REPEAT): ms per scan, and the helper's peak RSS,
#          on ROOT and on a copy grown by EXTRA_PCI functions (bench/grow.sh)
#   once   `--once --no-publish --json` on ROOT: wall (hyperfine, RUNS runs) and peak RSS (/usr/bin/time)
#   libs   the shared objects the agent maps at start (ldd)
# With OTHER_AGENT and OTHER_PCI_DUMP (a build of another commit, e.g. the last one with libpci: OTHER_LABEL
# names it), the same figures for it, side by side in the same run. Writes OUTDIR/pci.md.
# Env: AGENT, BUILD (build), RUNS (30), REPEAT (500), EXTRA_PCI (256), OTHER_AGENT, OTHER_PCI_DUMP, OTHER_LABEL.
set -eu
cd "$(dirname "$0")/.."
OUTD=$1 ROOT=$2
BUILD=${BUILD:-build}
AGENT=${AGENT:-$PWD/$BUILD/tcpxo-agent}
D=$PWD/$BUILD/tests/helpers/pci-dump
RUNS=${RUNS:-30} REPEAT=${REPEAT:-500} EXTRA_PCI=${EXTRA_PCI:-256}
OTHER_AGENT=${OTHER_AGENT:-} OTHER_PCI_DUMP=${OTHER_PCI_DUMP:-} OTHER_LABEL=${OTHER_LABEL:-other build}
[ -x "$D" ] || { echo "pci.sh: build $D first" >&2; exit 1; }
mkdir -p "$OUTD"
T=$(mktemp -d /dev/shm/bench-pci.XXXXXX)
trap 'rm -rf "$T"' EXIT
BIG=$T/big
cp -a "$ROOT/." "$BIG/"
sh bench/grow.sh "$BIG" fixtures/a3-mega/links.spec "$T/big.spec" "$EXTRA_PCI" 0

# row LABEL AGENT PCI-DUMP: one line "LABEL|probe ms|probe RSS|big ms|big funcs|once wall ms...|once RSS...|libs".
row() {
	_label=$1 _agent=$2 _dump=$3
	_p=$("$_dump" --root "$ROOT" --repeat "$REPEAT")
	_b=$("$_dump" --root "$BIG" --repeat "$REPEAT")
	hyperfine -N -i --style none --warmup 3 --runs "$RUNS" --export-json "$T/hf.json" \
		"$_agent --once --no-publish --json --root $ROOT --node fixture-a3-mega" >/dev/null 2>&1
	_walls=$(python3 -c 'import json,sys; print(" ".join("%.3f" % (t * 1000) for t in json.load(open(sys.argv[1]))["results"][0]["times"]))' "$T/hf.json")
	: >"$T/time"
	_i=0
	while [ $_i -lt "$RUNS" ]; do
		/usr/bin/time -f '%M' -a -o "$T/time" "$_agent" --once --no-publish --json --root "$ROOT" \
			--node fixture-a3-mega >/dev/null 2>&1 || true
		_i=$((_i + 1))
	done
	echo "$_label|$_p|$_b|$_walls|$(tr '\n' ' ' <"$T/time")|$(ldd "$_agent" | grep -c '=>')" >>"$T/rows"
}
: >"$T/rows"
row "this build" "$AGENT" "$D"
if [ -n "$OTHER_AGENT" ] && [ -n "$OTHER_PCI_DUMP" ]; then
	row "$OTHER_LABEL" "$OTHER_AGENT" "$OTHER_PCI_DUMP"
fi

python3 - "$T/rows" "$RUNS" "$REPEAT" "$EXTRA_PCI" >"$OUTD/pci.md" <<'PY'
import statistics, sys
rows = [l.rstrip("\n").split("|") for l in open(sys.argv[1]) if l.strip()]
runs, repeat, extra = sys.argv[2], sys.argv[3], sys.argv[4]
kv = lambda s: dict(x.split("=", 1) for x in s.split())
def med(vals, scale=1.0):
    v = [float(x) / scale for x in vals.split()]
    return "%.2f (%.2f..%.2f)" % (statistics.median(v), min(v), max(v))
out = ["The PCI probe alone (`pci-dump --repeat %s`: one process, ms per `pcitopo_scan()`, its peak RSS) on the "
       "a3-mega tree and on it grown by %s functions; `--once --no-publish --json` on the a3-mega tree, %s runs: "
       "wall (hyperfine) and peak RSS (`/usr/bin/time`) median (min..max); the shared objects the agent maps "
       "(`ldd`)." % (repeat, extra, runs), "",
       "| build | probe ms (%s funcs) | probe peak RSS KiB | probe ms (%s funcs) | `--once` wall ms | "
       "`--once` peak RSS MiB | libraries |" % (kv(rows[0][1])["funcs"], kv(rows[0][2])["funcs"]),
       "|---|---|---|---|---|---|---|"]
for label, p, b, walls, rss, libs in rows:
    p, b = kv(p), kv(b)
    out.append("| %s | %.3f | %s | %.3f | %s | %s | %s |" % (label, float(p["ms"]), p["maxrss_kib"], float(b["ms"]),
                                                             med(walls), med(rss, 1024.0), libs))
print("\n".join(out))
PY
cat "$OUTD/pci.md"
