#!/usr/bin/python3
"""uevent.py - run a command under an umockdev testbed and synthesize uevents for it on request.

Usage: uevent.py --device FILE.umockdev --commands FILE -- CMD [ARG...]

Loads the umockdev-record device description into a fresh testbed, runs CMD with the testbed's
preload library (its libudev monitors then receive the testbed's uevents instead of the
kernel's), and polls FILE for lines "ACTION SYSPATH" (e.g. "remove /sys/devices/.../0000:06:00.0";
write it elsewhere and rename it into place): each one is sent as a uevent, a remove also takes
the device out of the testbed, and FILE is deleted once read. Forwards SIGTERM/SIGINT to CMD; exits with CMD's status and removes the testbed.
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import threading
import time

import gi
gi.require_version("UMockdev", "1.0")
from gi.repository import UMockdev  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", required=True)
    ap.add_argument("--commands", required=True)
    ap.add_argument("cmd", nargs="+")
    a = ap.parse_args()

    tb = UMockdev.Testbed.new()
    with open(a.device) as f:
        tb.add_from_string(f.read())
    env = dict(os.environ)
    env["UMOCKDEV_DIR"] = tb.get_root_dir()
    pre = "libumockdev-preload.so.0"
    env["LD_PRELOAD"] = pre + (":" + env["LD_PRELOAD"] if env.get("LD_PRELOAD") else "")
    child = subprocess.Popen(a.cmd, env=env)

    def forward(sig, _frame):
        child.send_signal(sig)
    signal.signal(signal.SIGTERM, forward)
    signal.signal(signal.SIGINT, forward)

    def commands():
        # A polled file, not a FIFO: a blocking open() inside the preload library would hold
        # its lock and stall every other thread's libc calls (waitpid included).
        while child.poll() is None:
            try:
                with open(a.commands) as f:
                    lines = f.read().splitlines()
                os.unlink(a.commands)
            except FileNotFoundError:
                time.sleep(0.02)
                continue
            for line in lines:
                parts = line.split()
                if len(parts) != 2:
                    print("uevent.py: ignoring %r" % line, file=sys.stderr)
                    continue
                action, syspath = parts
                tb.uevent(syspath, action)
                if action == "remove":
                    tb.remove_device(syspath)
                print("uevent.py: sent %s %s" % (action, syspath), file=sys.stderr, flush=True)
    threading.Thread(target=commands, daemon=True).start()
    try:
        while True:
            try:
                return child.wait()
            except InterruptedError:
                continue
    finally:
        # The testbed is not finalised at interpreter exit: remove it here, then leave at
        # once (its worker threads must not see their directory vanish and wait forever).
        shutil.rmtree(tb.get_root_dir(), ignore_errors=True)


if __name__ == "__main__":
    rc = main()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc if rc >= 0 else 128 - rc)
