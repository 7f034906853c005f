#!/usr/bin/python3
"""nldump.py - write the raw rtnetlink dump replies (links, addresses, IPv4 routes) of the current
network namespace to a file: seeds for fuzz_netlink, the bytes a full links_query() parses.
With --answers PREFIX NAME: the answers links_query() reads for the link NAME, as the kernel sends
them under NETLINK_GET_STRICT_CHK (the reply by name, the address and route dumps filtered by its
ifindex, DONE included) and the error for a name that does not exist, one file each."""
import os
import socket
import struct
import sys

NLM_F_REQUEST, NLM_F_DUMP = 1, 0x300
RTM_GETLINK, RTM_GETADDR, RTM_GETROUTE = 18, 22, 26
NLMSG_DONE = 3
NLMSG_ERROR = 2
SOL_NETLINK, NETLINK_GET_STRICT_CHK = 270, 12
IFLA_IFNAME, IFLA_EXT_MASK, RTA_OIF = 3, 29, 4
RTEXT_FILTER_SKIP_STATS = 8
RT_TABLE_MAIN, RTN_UNICAST = 254, 1


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


def attr(typ, data):
    ln = 4 + len(data)
    return struct.pack("=HH", ln, typ) + data + b"\0" * ((4 - ln % 4) % 4)


def answer(sk, msgtype, flags, body):
    """Every datagram of the answer to one request, as received (control messages kept)."""
    sk.send(struct.pack("=LHHLL", 16 + len(body), msgtype, NLM_F_REQUEST | flags, 1, 0) + body)
    out = b""
    while True:
        data = sk.recv(1 << 20)
        out += data
        off = 0
        while off + 16 <= len(data):
            ln, typ, fl = struct.unpack_from("=LHH", data, off)
            if typ in (NLMSG_DONE, NLMSG_ERROR) or not fl & 2:      # NLM_F_MULTI
                return out
            off += (ln + 3) & ~3


def answers(prefix, name):
    sk = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, socket.NETLINK_ROUTE)
    sk.setsockopt(SOL_NETLINK, NETLINK_GET_STRICT_CHK, 1)
    mask = attr(IFLA_EXT_MASK, struct.pack("=I", RTEXT_FILTER_SKIP_STATS))
    ifinfo = struct.pack("=BxHiII", socket.AF_UNSPEC, 0, 0, 0, 0)
    index = socket.if_nametoindex(name)
    out = {
        "link": answer(sk, RTM_GETLINK, 0, ifinfo + attr(IFLA_IFNAME, name.encode() + b"\0") + mask),
        "nosuch": answer(sk, RTM_GETLINK, 0, ifinfo + attr(IFLA_IFNAME, b"nosuch0\0") + mask),
        "addr": answer(sk, RTM_GETADDR, NLM_F_DUMP, struct.pack("=BBBBi", socket.AF_INET, 0, 0, 0, index)),
        "route": answer(sk, RTM_GETROUTE, NLM_F_DUMP,
                        struct.pack("=BBBBBBBBI", socket.AF_INET, 0, 0, 0, RT_TABLE_MAIN, 0, 0, RTN_UNICAST, 0) +
                        attr(RTA_OIF, struct.pack("=I", index))),
    }
    for kind, blob in out.items():
        path = "%s-%s.bin" % (prefix, kind)
        with open(path, "wb") as f:
            f.write(blob)
        os.chmod(path, 0o644)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--answers":
        answers(sys.argv[2], sys.argv[3])
        return
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
