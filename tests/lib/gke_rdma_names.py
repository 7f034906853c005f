#!/usr/bin/python3
"""gke_rdma_names.py - GKE's gpu<N>rdma<k> naming of RDMA NICs, over a sysfs tree (the pairing of profile rdma).

Usage: gke_rdma_names.py --root DIR [--names]

After Google's gce-nic-naming (GoogleCloudPlatform/guest-configs src/usr/bin/gce-nic-naming,
l.214-260, 352-414; docs/rdma-sources.md): for each RDMA NIC (15b3:101e or 15b3:1021), walk up its
sysfs device path until a directory holds GPUs and RDMA NICs in the machine-wide ratio; take the
NIC's index among the NICs below it (BDF order), the GPU at the same index below it, and name the
NIC gpu<that GPU's index among all GPUs, BDF order>rdma<index % ratio>.
Prints "<gpu BDF> <nic BDF>" per pair, sorted by GPU; with --names, "<nic BDF> <name>" per NIC.
Independent of the C code on purpose.
"""

import argparse
import os
import re
import sys

BDF_RE = re.compile(r"^[0-9a-f]{4,6}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
GPU_IDS = {("0x10de", "0x2330"), ("0x10de", "0x2335"), ("0x10de", "0x2901")}
NIC_IDS = {("0x15b3", "0x101e"), ("0x15b3", "0x1021")}


def read_id(d):
    try:
        with open(os.path.join(d, "vendor")) as v, open(os.path.join(d, "device")) as e:
            return v.read().strip().lower(), e.read().strip().lower()
    except OSError:
        return None


def functions(root):
    gpus, nics = [], []
    for dirpath, dirnames, _ in os.walk(os.path.join(root, "sys", "devices")):
        for d in dirnames:
            if BDF_RE.match(d):
                ident = read_id(os.path.join(dirpath, d))
                (gpus if ident in GPU_IDS else nics if ident in NIC_IDS else []).append(os.path.join(dirpath, d))
    key = os.path.basename
    return sorted(gpus, key=key), sorted(nics, key=key)


def below(paths, top):
    return sorted((p for p in paths if p.startswith(top + os.sep)), key=os.path.basename)


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--names", action="store_true")
    args = ap.parse_args(argv)
    gpus, nics = functions(args.root)
    if not gpus or not nics or len(nics) > len(gpus) or len(gpus) % len(nics):
        return 0
    ratio = len(gpus) // len(nics)
    pairs, names = [], []
    for nic in nics:
        top = os.path.dirname(nic)
        while True:
            g, n = below(gpus, top), below(nics, top)
            if n and len(g) == ratio * len(n):
                break
            top = os.path.dirname(top)
        i = n.index(nic)
        gpu = g[i // ratio]
        pairs.append((os.path.basename(gpu), os.path.basename(nic)))
        names.append((os.path.basename(nic), "gpu%drdma%d" % (gpus.index(gpu), i % ratio)))
    for a, b in sorted(names if args.names else pairs):
        print(a, b)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
