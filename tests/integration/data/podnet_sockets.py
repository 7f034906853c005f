#!/usr/bin/env python3
"""podnet_sockets.py - real sockets for tests/integration/test_podnet.sh, as RxDM and the NCCL plugin make them.

    podnet_sockets.py rxdm READY CGROUP_PROCS NAME[:short]...   listen on each abstract NAME (bound with the
        full sockaddr_un, NUL-padded, as RxDM does; ":short" binds it at its own length), accept and
        hold every connection until its peer closes; with a DXS address routed, also RxDM's own UDP
        socket (local port 338) connected to 169.254.169.254:55555.
    podnet_sockets.py nccl READY CGROUP_PROCS FLOWS NAME[:short]...  connect once to each NAME, and
        FLOWS UDP sockets connected to 169.254.169.254:55555 (the plugin's DXS clients).

CGROUP_PROCS: a cgroup.procs file the process moves itself into first ("-": none). READY: written
(atomically) once every socket is made; the process then waits until killed.
"""

import os
import selectors
import socket
import sys
import time

SUN_PATH = 108
DXS = ("169.254.169.254", 55555)


def addr(spec):
    short = spec.endswith(":short")
    raw = b"\0" + (spec[:-len(":short")] if short else spec).encode()
    if not short:
        raw += b"\0" * (SUN_PATH - len(raw))
    return raw


def ready(path):
    with open(path + ".tmp", "w") as f:
        f.write("%d\n" % os.getpid())
    os.rename(path + ".tmp", path)


def udp(local_port=0):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    if local_port:
        s.bind(("0.0.0.0", local_port))
    s.connect(DXS)
    return s


def main():
    mode, ready_path, procs = sys.argv[1:4]
    if procs != "-":
        with open(procs, "w") as f:
            f.write("%d\n" % os.getpid())
    keep = []
    if mode == "rxdm":
        sel = selectors.DefaultSelector()
        for spec in sys.argv[4:]:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(addr(spec))
            s.listen(64)
            sel.register(s, selectors.EVENT_READ, "listener")
        try:
            keep.append(udp(338))
        except OSError:
            pass
        ready(ready_path)
        while True:
            for key, _ in sel.select():
                if key.data == "listener":
                    conn, _ = key.fileobj.accept()
                    sel.register(conn, selectors.EVENT_READ, "conn")
                elif not key.fileobj.recv(4096):
                    sel.unregister(key.fileobj)
                    key.fileobj.close()
    flows = int(sys.argv[4])
    for spec in sys.argv[5:]:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(addr(spec))
        keep.append(s)
    for _ in range(flows):
        keep.append(udp())
    ready(ready_path)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
