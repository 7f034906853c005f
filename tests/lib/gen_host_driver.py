#!/usr/bin/python3
"""gen_host_driver.py OUTDIR - build every host scenario of fixtures/gen_host.py on a faked topology.

Stands in for fixtures/gen.py (which owns the PCI trees): writes OUTDIR/<scenario>/ with the host
files, devnodes.spec, modes.spec, a minimal sysfs dir per LLCM function (to test the mirroring),
and topo.txt ("gpu BDF", "nic BDF NAME IPV4", "rdma BDF NAME IPV4", "llcm BDF") for the C test that
probes the trees.
OUTDIR/expected.txt: "scenario aperture-devices device-nodes nvidia-host-path plugin-files daemon-args"
with the status each check must get.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "fixtures"))
import gen_host  # noqa: E402

CHECKS = ["aperture-devices", "device-nodes", "nvidia-host-path", "plugin-files", "daemon-args"]
GPU_BUSES = [0x04, 0x05, 0x0b, 0x0c, 0x84, 0x85, 0x8b, 0x8c]
NIC_BUSES = [0x06, 0x07, 0x0d, 0x0e, 0x86, 0x87, 0x8d, 0x8e]


def topo(kind):
    gpus = ["0000:%02x:00.0" % b for b in GPU_BUSES]
    if kind == "tcpxo":
        nics = [{"bdf": "0000:%02x:00.0" % b, "name": "eth%d" % (i + 1), "ipv4": "10.0.%d.3/32" % (16 + i)}
                for i, b in enumerate(NIC_BUSES)]
        llcm = ["0000:00:%02x.0" % (0x10 + i) for i in range(4)] + \
               ["0000:80:%02x.0" % (0x10 + i) for i in range(4)]
    elif kind == "rdma":
        nics = [{"bdf": "0000:%02x:00.0" % b, "name": "gpu%drdma0" % i, "ipv4": "10.0.%d.7/32" % (1 + i)}
                for i, b in enumerate(NIC_BUSES)]
        llcm = []
    else:
        nics = [{"bdf": "0000:%02x:00.0" % b, "name": "eth%d" % (i + 1), "ipv4": "10.0.%d.3/32" % (16 + i)}
                for i, b in enumerate(NIC_BUSES[::2])]
        llcm = []
    return {"gpus": gpus, "gpu_nics": nics, "llcm": llcm, "rdma_nics": [n["bdf"] for n in nics] if kind == "rdma" else [],
            "llcm_dirs": {b: "sys/devices/pci0000:00/%s" % b for b in llcm}}


def fake_sys(root, t):
    for bdf, d in t["llcm_dirs"].items():
        os.makedirs(os.path.join(root, d), exist_ok=True)
        for n, v in (("vendor", "0x1ae0\n"), ("device", "0x0084\n"), ("class", "0x020000\n")):
            with open(os.path.join(root, d, n), "w") as f:
                f.write(v)


def main(out):
    scenarios = {"a3-mega": ("tcpxo", {}), "a3-high": ("tcpx", {}), "a3-ultra": ("rdma", {})}
    kinds = {"a3-mega": "tcpxo", "a3-high": "tcpx", "a3-ultra": "rdma"}
    for name, sc in gen_host.EXTRA_SCENARIOS.items():
        scenarios[name] = (kinds[sc["base"]], sc)
    with open(os.path.join(out, "expected.txt"), "w") as exp:
        for name, (kind, sc) in sorted(scenarios.items()):
            root = os.path.join(out, name)
            t = topo(kind)
            fake_sys(root, t)
            gen_host.build(name, sc, root, t)
            with open(os.path.join(root, "topo.txt"), "w") as f:
                for g in t["gpus"]:
                    f.write("gpu %s\n" % g)
                for n in t["gpu_nics"]:
                    f.write("%s %s %s %s\n" % ("rdma" if kind == "rdma" else "nic", n["bdf"], n["name"], n["ipv4"]))
                for b in t["llcm"]:
                    f.write("llcm %s\n" % b)
            want = dict.fromkeys(CHECKS, "pass")
            if kind in ("tcpx", "rdma"):
                want.update({"aperture-devices": "skip", "daemon-args": "skip"})
            if name in gen_host.EXPECTED:
                check, status = gen_host.EXPECTED[name]
                want[check] = status
            exp.write("%s %s\n" % (name, " ".join(want[c] for c in CHECKS)))


if __name__ == "__main__":
    main(sys.argv[1])
