#!/usr/bin/python3
"""nldump.py - write the raw rtnetlink dump replies (links, addresses, IPv4 routes) of the current
network namespace to a file: seeds for fuzz_netlink, the bytes links_dump() parses."""
import os
import socket
import struct
import sys

NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE = 18, 22, 26
NLMSG_DONE = 3


def dump(sk, msgtype, family, body):
    hdr = struct.pack("=LHHLL", 16 + len(body), msgtype, NLM_F_REQUEST | NLM_F_DUMP, 1, 0)
    sk.send(hdr + body)
    out = b""
    while True:
        data = sk.recv(1 << 20)
        off = 0
        while off + 16 <= len(data):
            ln, typ = struct.unpack_from("=LH", data, off)
            if typ == NLMSG_DONE:
                return out
            out += data[off:off + ((ln + 3) & ~3)]
            off += (ln + 3) & ~3


def main():
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sk.bind((0, 0))
    ifinfo = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, 0, 0, 0)
    ifaddr = struct.pack("=BBBBi", socket.AF_UNSPEC, 0, 0, 0, 0)
    rtmsg = struct.pack("=BBBBBBBBI", socket.AF_INET, 0, 0, 0, 0, 0, 0, 0, 0)
    blob = dump(sk, RTM_GETLINK, 0, ifinfo) + dump(sk, RTM_GETADDR, 0, ifaddr) + \
        dump(sk, RTM_GETROUTE, 0, rtmsg)
    with open(sys.argv[1], "wb") as f:
        f.write(blob)
    os.chmod(sys.argv[1], 0o644)


if __name__ == "__main__":
    main()
