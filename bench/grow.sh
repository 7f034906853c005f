#!/bin/sh
# grow.sh - make a bigger node out of a prepared fixture copy: NPCI extra PCI functions (on a new
# root bus 0000:40, copies of the plain function 0000:00:01.0) and a links.spec with NLINKS extra
# veth links (each with its peer in the namespace, as netns.sh builds them).
# Usage: grow.sh ROOT SPEC_IN SPEC_OUT NPCI NLINKS    (ROOT on tmpfs: /dev/shm)
set -eu
root=$1 spec_in=$2 spec_out=$3 npci=$4 nlinks=$5
src="$root/sys/devices/pci0000:00/0000:00:01.0"
[ -d "$src" ] || { echo "grow.sh: $src missing" >&2; exit 1; }
[ "$npci" -le 256 ] || { echo "grow.sh: at most 256 functions (32 devices x 8 functions)" >&2; exit 1; }
mkdir -p "$root/sys/devices/pci0000:40"
i=0
while [ $i -lt "$npci" ]; do
	bdf=$(printf '0000:40:%02x.%x' $((i / 8)) $((i % 8)))
	cp -a "$src" "$root/sys/devices/pci0000:40/$bdf"
	ln -s "../../../devices/pci0000:40/$bdf" "$root/sys/bus/pci/devices/$bdf"
	i=$((i + 1))
done
cp "$spec_in" "$spec_out"
i=1
while [ $i -le "$nlinks" ]; do
	printf 'xb%d 02:00:00:00:%02x:%02x 1500 10.200.%d.%d/32 up\n' $i $((i / 256)) $((i % 256)) \
		$((i / 250)) $((i % 250 + 1)) >>"$spec_out"
	i=$((i + 1))
done
