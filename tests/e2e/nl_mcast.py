#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""hvtrace's "events" multicast group, from a plain netlink socket.

  nl_mcast.py id                 resolve the group id (prints it)
  nl_mcast.py join               resolve and join: "joined" or "refused ERRNO"
  nl_mcast.py listen ID SECONDS [READY]
                                 join group ID without resolving it (as a
                                 process in another network namespace could)
                                 and print how many messages came in SECONDS,
                                 or until SIGTERM; creates the file READY
                                 once it has joined (or was refused)

Exit status 0 when it could say something, 1 when the family is not there.
"""
import errno
import os
import select
import signal
import socket
import struct
import sys
import time

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_MCAST_GRP_NAME = 1
CTRL_ATTR_MCAST_GRP_ID = 2
NLMSG_ERROR = 2


def attrs(data):
    """(type, payload) of each attribute in DATA."""
    out = []
    while len(data) >= 4:
        length, kind = struct.unpack_from("HH", data)
        if length < 4:
            break
        out.append((kind & 0x3FFF, data[4:length]))
        data = data[(length + 3) & ~3:]
    return out


def group_id(sock):
    name = b"hvtrace\0"
    attr = struct.pack("HH", 4 + len(name), CTRL_ATTR_FAMILY_NAME) + name
    attr += b"\0" * (-len(attr) % 4)
    body = struct.pack("BBH", CTRL_CMD_GETFAMILY, 1, 0) + attr
    sock.send(struct.pack("IHHII", 16 + len(body), GENL_ID_CTRL, 1, 1, 0) + body)
    reply = sock.recv(65536)
    length, kind = struct.unpack_from("IH", reply)
    if kind == NLMSG_ERROR:
        return None
    for k, v in attrs(reply[20:length]):
        if k != CTRL_ATTR_MCAST_GROUPS:
            continue
        for _, grp in attrs(v):
            g = dict(attrs(grp))
            if g.get(CTRL_ATTR_MCAST_GRP_NAME, b"").rstrip(b"\0") == b"events":
                return struct.unpack("I", g[CTRL_ATTR_MCAST_GRP_ID][:4])[0]
    return None


def join(sock, gid):
    try:
        sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, gid)
    except OSError as e:
        return e.errno
    return 0


def main():
    sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_GENERIC)
    sock.bind((0, 0))
    if sys.argv[1] == "listen":
        gid, seconds = int(sys.argv[2]), float(sys.argv[3])
        def stop(*_):
            raise KeyboardInterrupt

        signal.signal(signal.SIGTERM, stop)
        err = join(sock, gid)
        if len(sys.argv) > 4:
            open(sys.argv[4], "w").close()
        if err:
            print("refused", errno.errorcode.get(err, err))
            return 0
        n, end = 0, time.monotonic() + seconds
        try:
            while time.monotonic() < end:
                ready, _, _ = select.select([sock], [], [],
                                            end - time.monotonic())
                if ready:
                    sock.recv(65536)
                    n += 1
        except KeyboardInterrupt:
            pass
        print(n)
        return 0
    gid = group_id(sock)
    if gid is None:
        print("no family")
        return 1
    if sys.argv[1] == "id":
        print(gid)
        return 0
    err = join(sock, gid)
    print("joined" if not err else "refused %s" % errno.errorcode.get(err, err))
    return 0


if __name__ == "__main__":
    sys.exit(main())
