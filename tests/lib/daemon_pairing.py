#!/usr/bin/python3
"""daemon_pairing.py - the TCPXO daemon's own path-based GPU<->NIC pairing, over a sysfs tree.

Usage: daemon_pairing.py --root DIR [NIC_BDF...]

REFERENCE.md section 1: for each GPU NIC take the realpath of its sysfs device directory and go
up 2 levels (NIC -> switch downstream port -> switch upstream port): that is "the switch". List
the GPUs (10de:2330) and the NICs of the NIC's vendor:device below it, sort both by BDF,
gpus_per_nic = #gpus // #nics, GPU i gets NIC i // gpus_per_nic.

The GPU NICs default to every 1ae0:0042 function whose grandparent directory is a PCI function,
i.e. that sits inside a switch (a root-bus NIC's grandparent is sys/devices itself).
Prints "<gpu BDF> <nic BDF>" per pair, sorted by GPU. Independent of the C code on purpose.
"""

import argparse
import os
import re
import sys

BDF_RE = re.compile(r"^[0-9a-f]{4,6}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
GPU_ID = ("0x10de", "0x2330")
GVNIC_ID = ("0x1ae0", "0x0042")


def read_id(devdir):
    try:
        with open(os.path.join(devdir, "vendor")) as v, open(os.path.join(devdir, "device")) as d:
            return v.read().strip().lower(), d.read().strip().lower()
    except OSError:
        return None


def bdf_key(bdf):
    dom, bus, rest = bdf.split(":")
    dev, fn = rest.split(".")
    return int(dom, 16), int(bus, 16), int(dev, 16), int(fn, 16)


def functions_below(top, ident):
    """BDFs of the functions with vendor:device ident in the directory tree under top."""
    found = []
    for dirpath, dirnames, _ in os.walk(top, followlinks=False):
        dirnames[:] = [d for d in dirnames if not os.path.islink(os.path.join(dirpath, d))]
        for d in dirnames:
            if BDF_RE.match(d) and read_id(os.path.join(dirpath, d)) == ident:
                found.append(d)
    return sorted(set(found), key=bdf_key)


def pairs(root, nic_bdfs=None):
    devices = os.path.join(root, "sys", "bus", "pci", "devices")
    if nic_bdfs is None:
        nic_bdfs = []
        for name in sorted(os.listdir(devices)):
            path = os.path.realpath(os.path.join(devices, name))
            grandparent = os.path.basename(os.path.dirname(os.path.dirname(path)))
            if read_id(path) == GVNIC_ID and BDF_RE.match(grandparent):
                nic_bdfs.append(name)
    out = {}
    for nic in nic_bdfs:
        path = os.path.realpath(os.path.join(devices, nic))
        ident = read_id(path)
        switch = os.path.dirname(os.path.dirname(path))
        gpus = functions_below(switch, GPU_ID)
        nics = functions_below(switch, ident)
        if not nics:
            continue
        per = len(gpus) // len(nics)
        if per == 0:
            continue  # fewer GPUs than NICs: the daemon's division leaves nothing to pair
        for i, gpu in enumerate(gpus):
            if i // per < len(nics):
                out[gpu] = nics[i // per]
    return [(g, out[g]) for g in sorted(out, key=bdf_key)]


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True, help="tree that holds sys/")
    ap.add_argument("nics", nargs="*", help="GPU NIC BDFs (default: every gVNIC inside a switch)")
    args = ap.parse_args(argv)
    for gpu, nic in pairs(args.root, args.nics or None):
        print(gpu, nic)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
