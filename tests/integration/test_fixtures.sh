#!/bin/sh
# test_fixtures.sh - the committed fixture trees: lspci draws them, pcitopo+pairing agree with the
# daemon's path rule, fixtures/gen.py reproduces them byte for byte, each scenario's shape, and the
# human goldens' width and PCIe tree rows.
# Env: TOPDIR (repo root), BUILD (build dir). Prints ok/not ok/skip per case.
set -u
. "${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/lib/tap.sh"
TOPDIR=${TOPDIR:-$(cd "$(dirname "$0")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$TOPDIR/$BUILD ;; esac
PY=/usr/bin/python3
DUMP=$BUILD/tests/helpers/pci-dump
FIX=$TOPDIR/fixtures
failed=0
count() { grep -c -- "$2" "$tmp/$1.dump"; }
expect() {  # name, condition description, actual, expected
	if [ "$3" = "$4" ]; then ok "$1"; else nok "$1" "$2: got '$3', want '$4'"; fi
}


tmp=$(mktemp -d /dev/shm/tcpxo-fixtures.XXXXXX 2>/dev/null || mktemp -d /tmp/tcpxo-fixtures.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM

scenarios=$(cd "$FIX" && $PY -c 'import scenarios; print("\n".join(sorted(scenarios.SCENARIOS)))') || {
	nok scenarios "cannot load fixtures/scenarios.py"; exit 1; }
[ -x "$DUMP" ] || { nok pci-dump "$DUMP not built (make $BUILD/tests/helpers/pci-dump)"; exit 1; }

for s in $scenarios; do
	root=$FIX/$s
	if [ ! -d "$root/sys/bus/pci/devices" ]; then
		nok "tree-$s" "$root/sys/bus/pci/devices missing (run fixtures/gen.py)"
		continue
	fi

	if ! command -v lspci >/dev/null 2>&1; then
		skip "lspci-$s" "lspci not installed"
	elif lspci -A linux-sysfs -O "sysfs.path=$root/sys/bus/pci" -tv >"$tmp/lspci.out" 2>"$tmp/lspci.err" \
	     && [ ! -s "$tmp/lspci.err" ] && grep -q '^-\[0000:00\]' "$tmp/lspci.out"; then
		ok "lspci-$s"
	else
		nok "lspci-$s" "$(head -c 300 "$tmp/lspci.err")"
	fi

	"$DUMP" --root "$root" >"$tmp/$s.dump" 2>"$tmp/$s.err"
	rc=$?
	if [ $rc -ne 0 ] || ! grep -qx 'status ok' "$tmp/$s.dump"; then
		nok "scan-$s" "pci-dump exit $rc: $(head -n1 "$tmp/$s.dump") $(head -c 200 "$tmp/$s.err")"
		continue
	fi
	ok "scan-$s"

	"$DUMP" --root "$root" --pairs >"$tmp/$s.ours" 2>&1
	if [ -d "$root/sys/class/infiniband" ]; then
		# Profile rdma: no RxDM daemon; GKE's gpu<N>rdma0 naming is the reference (gke_rdma_names.py).
		$PY "$TOPDIR/tests/lib/gke_rdma_names.py" --root "$root" --names >"$tmp/$s.gke" 2>&1
		names=$(grep ' kind=rdma-nic ' "$tmp/$s.dump" | sed 's/^func \([^ ]*\) .*netdev=\([^ ]*\).*/\1 \2/')
		expect "names-match-gke-$s" "netdevs as GKE names them" "$(echo "$names" | tr '\n' ' ')" "$(tr '\n' ' ' <"$tmp/$s.gke")"
		$PY "$TOPDIR/tests/lib/gke_rdma_names.py" --root "$root" >"$tmp/$s.gke" 2>&1
		if grep ' kind=rdma-nic ' "$tmp/$s.dump" | grep -q 'switch=-$'; then
			# A NIC outside its switch: GKE names by rank over the whole tree, the agent pairs by switch and fails.
			if cmp -s "$tmp/$s.ours" "$tmp/$s.gke"; then nok "pairs-differ-gke-$s" "same pairs"; else ok "pairs-differ-gke-$s"; fi
		elif cmp -s "$tmp/$s.ours" "$tmp/$s.gke"; then
			ok "pairs-match-gke-$s"
		else
			nok "pairs-match-gke-$s" "$(diff "$tmp/$s.gke" "$tmp/$s.ours" | head -n 8 | tr '\n' ' ')"
		fi
		continue
	fi
	$PY "$TOPDIR/tests/lib/daemon_pairing.py" --root "$root" >"$tmp/$s.daemon" 2>&1
	if [ $? -eq 0 ] && cmp -s "$tmp/$s.ours" "$tmp/$s.daemon"; then
		ok "pairs-match-daemon-$s"
	else
		nok "pairs-match-daemon-$s" "$(diff "$tmp/$s.daemon" "$tmp/$s.ours" | head -n 8 | tr '\n' ' ')"
	fi
done

# Scenario shapes, from pci-dump's lines (func ... kind=... switch=...; pair GPU NIC): count and expect above.
pairs_of() { sed -n 's/^pair //p' "$tmp/$1.dump" | tr '\n' ' '; }

if [ -f "$tmp/a3-mega.dump" ]; then
	expect a3-mega-gpus "GPUs" "$(count a3-mega ' kind=gpu ')" 8
	expect a3-mega-llcm "LLCM devices" "$(count a3-mega ' kind=llcm ')" 8
	expect a3-mega-pairs "pairs" "$(pairs_of a3-mega)" \
"0000:04:00.0 0000:06:00.0 0000:05:00.0 0000:07:00.0 0000:0b:00.0 0000:0d:00.0 0000:0c:00.0 0000:0e:00.0 \
0000:84:00.0 0000:86:00.0 0000:85:00.0 0000:87:00.0 0000:8b:00.0 0000:8d:00.0 0000:8c:00.0 0000:8e:00.0 "
	expect a3-mega-netdevs "GPU NIC names by BDF" \
		"$(grep ' kind=gvnic ' "$tmp/a3-mega.dump" | sed 's/^func \([^ ]*\) .*netdev=\([^ ]*\).*/\1=\2/' | tr '\n' ' ')" \
		"0000:00:0c.0=eth0 0000:06:00.0=eth1 0000:07:00.0=eth2 0000:0d:00.0=eth3 0000:0e:00.0=eth4 \
0000:86:00.0=eth5 0000:87:00.0=eth6 0000:8d:00.0=eth7 0000:8e:00.0=eth8 "
fi
if [ -f "$tmp/a3-high.dump" ]; then
	expect a3-high-shape "GPUs/gVNICs/LLCM" "$(count a3-high ' kind=gpu ')/$(count a3-high ' kind=gvnic ')/$(count a3-high ' kind=llcm ')" 8/5/0
	expect a3-high-pairs "GPUs per NIC (2:1)" \
		"$(sed -n 's/^pair [^ ]* //p' "$tmp/a3-high.dump" | uniq -c | awk '{print $1}' | tr '\n' ' ')" "2 2 2 2 "
fi
if [ -f "$tmp/a3-mega-displaced-gvnic.dump" ]; then
	d=a3-mega-displaced-gvnic
	expect displaced-outside "0000:00:0d.0 switch" \
		"$(sed -n 's/^func 0000:00:0d\.0 .*netdev=\([^ ]*\) switch=\(.*\)$/\1 \2/p' "$tmp/$d.dump")" "eth1 -"
	expect displaced-gvnics "gVNICs" "$(count $d ' kind=gvnic ')" 10
	expect displaced-in-switches "gVNICs inside switches" "$(grep ' kind=gvnic ' "$tmp/$d.dump" | grep -vc 'switch=-$')" 8
fi
for s in a3-ultra a4; do
	[ -f "$tmp/$s.dump" ] || continue
	expect "$s-shape" "GPUs/RDMA NICs/gVNICs/LLCM" \
		"$(count $s ' kind=gpu ')/$(count $s ' kind=rdma-nic ')/$(count $s ' kind=gvnic ')/$(count $s ' kind=llcm ')" 8/8/2/0
	expect "$s-two-per-switch" "GPUs per RDMA NIC" \
		"$(sed -n 's/^pair [^ ]* //p' "$tmp/$s.dump" | uniq -c | awk '{print $1}' | tr '\n' ' ')" "1 1 1 1 1 1 1 1 "
done
if [ -f "$tmp/cpu-node.dump" ]; then
	expect cpu-node-no-gpu "GPUs/pairs" "$(count cpu-node ' kind=gpu ')/$(count cpu-node '^pair ')" 0/0
fi
if [ -f "$tmp/a3-mega-in-pod.dump" ]; then
	expect in-pod-bound-no-netdev "0000:86/87 driver, netdev" \
		"$(grep -E '^func 0000:8[67]:00\.0 ' "$tmp/a3-mega-in-pod.dump" | sed 's/.*driver=\([^ ]*\) netdev=\([^ ]*\).*/\1,\2/' | tr '\n' ' ')" "gve,- gve,- "
fi
if [ -f "$tmp/a3-mega-unbound-nic.dump" ]; then
	expect unbound-nic "0000:8e:00.0 driver, netdev" \
		"$(sed -n 's/^func 0000:8e:00\.0 .*driver=\([^ ]*\) netdev=\([^ ]*\).*/\1,\2/p' "$tmp/a3-mega-unbound-nic.dump")" "-,-"
fi

# Reproducible: regenerate every scenario elsewhere and compare with the committed trees.
# git keeps no empty directories (the in-pod NICs' empty net/), so both sides drop them first.
if $PY "$FIX/gen.py" --out "$tmp/gen" >"$tmp/gen.err" 2>&1; then
	for s in $scenarios; do
		mkdir -p "$tmp/have/$s"
		for e in "$tmp/gen/$s"/* "$tmp/gen/$s"/.[!.]*; do
			[ -e "$e" ] || [ -L "$e" ] || continue
			b=$(basename "$e")
			if [ -e "$FIX/$s/$b" ] || [ -L "$FIX/$s/$b" ]; then
				cp -a "$FIX/$s/$b" "$tmp/have/$s/$b"
			fi
		done
		find "$tmp/gen/$s" "$tmp/have/$s" -depth -type d -empty -delete 2>/dev/null
		mkdir -p "$tmp/gen/$s" "$tmp/have/$s"
		if diff -r --no-dereference "$tmp/gen/$s" "$tmp/have/$s" >"$tmp/diff.out" 2>&1; then
			ok "reproducible-$s"
		else
			nok "reproducible-$s" "$(head -n 3 "$tmp/diff.out" | sed "s|$tmp/||g" | tr '\n' ' ')"
		fi
	done
else
	nok reproducible "fixtures/gen.py failed: $(head -c 300 "$tmp/gen.err")"
fi

# The human report's goldens fit 100 columns: a long detail or remedy wraps at words under its column.
# Only the summary (scripts read it whole), the node line and a single word longer than the room may pass.
# Columns are characters: the PCIe tree's lines (├─ │ →) count each UTF-8 character once, whatever the awk.
long=$(for f in "$TOPDIR"/fixtures/*/expected.txt; do
	LC_ALL=C awk -v f="${f#"$TOPDIR"/}" '{ c = $0; gsub(/[\200-\277]/, "", c) } FNR > 2 && length(c) > 100 {
		s = $0; sub(/^ +/, "", s); sub(/^[a-z-]+ +(pass|skip|WARN|FAIL) +/, "", s); sub(/^remedy: /, "", s)
		if (s ~ / /) print f ":" FNR ": " length(c) " columns"
	}' "$f"
done)
if [ -z "$long" ]; then ok golden-width; else nok golden-width "$(echo "$long" | head -n 3 | tr '\n' ' ')"; fi

# Issue 25's acceptance, on the goldens test_scenarios.sh holds to the binary: the healthy node's PCIe
# tree has a row for each of its 8 GPUs and 8 GPU NICs under a switch (the second level), and the
# nic-down node's tree marks its down NIC (eth3 in that fixture) on that NIC's row.
mega=$TOPDIR/fixtures/a3-mega/expected.txt
# Alternations, not bracket expressions: the box-drawing characters are several bytes in any locale.
gpus=$(grep -Ec '^  (│| )  (├|└)─ GPU  ' "$mega"); nics=$(grep -Ec '^  (│| )  (├|└)─ NIC  ' "$mega")
if [ "$gpus" = 8 ] && [ "$nics" = 8 ] && [ "$(grep -Ec '^  (├|└)─ switch ' "$mega")" = 4 ]; then
	ok "golden-tree-a3-mega (8 GPU rows, 8 NIC rows under 4 switches)"
else
	nok "golden-tree-a3-mega" "$gpus GPU rows, $nics NIC rows under the switches"
fi
if grep -Eq '^  (│| )  (├|└)─ NIC  [0-9a-f:.]+  eth3  down  .*FAIL links: admin down$' \
	"$TOPDIR/fixtures/a3-mega-nic-down/expected.txt"; then
	ok "golden-tree-nic-down (eth3's row marked down)"
else
	nok "golden-tree-nic-down" "no tree row for eth3 marked 'FAIL links: admin down'"
fi

exit $failed
