#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The module's watch, from a plain netlink socket: ground truth for the
tests, written apart from hvctl's client.

  watch_nl.py run OUT SECONDS [READY] [NAME=VALUE...]
      arm the watch with the HVTRACE_WATCH_* settings given by name
      (exit_ns=10000000 stall_ns=... history=8 ...; filter_vcpus=0,2),
      read every capture the module hands over until SECONDS passed or
      SIGTERM came, disarm, and write them to OUT as JSON: a list of
      {"header": {name: value}, "records": [{field: value}]}. Creates the
      file READY once armed (or "refused: MESSAGE" in it). Exits 0, or 3
      when the family went away (the module was unloaded).
  watch_nl.py status
      print GET_STATUS' watch nest as JSON
  watch_nl.py arm-only [NAME=VALUE...]
      arm and print "armed" or "refused ERRNO: MESSAGE", then exit (the
      watch goes with the socket)
"""
import errno
import json
import os
import select
import signal
import socket
import struct
import sys
import time

# The attribute walker of the events group's client (run from pyfork too,
# whose sys.path[0] is not this directory).
sys.path.insert(0, os.path.dirname(os.path.abspath(sys.argv[0])))
from nl_mcast import attrs  # noqa: E402

NETLINK_GENERIC = 16
SOL_NETLINK = 270
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_EXT_ACK = 11
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
CTRL_ATTR_MCAST_GROUPS = 7
NLMSG_ERROR, NLMSG_DONE = 2, 3
NLM_F_REQUEST, NLM_F_ACK, NLM_F_DUMP = 1, 4, 0x300
NLMSGERR_ATTR_MSG = 1

# enum hvtrace_cmd
CMD_GET_STATUS, CMD_READ_CAPTURES = 1, 12
CMD_WATCH_START, CMD_WATCH_STOP, CMD_CAPTURE = 10, 11, 13
# enum hvtrace_attr
A_EVENTS, A_WATCH, A_CAPTURE, A_CAPTURE_ID = 15, 32, 33, 34

WATCH = ["unspec", "pad", "exit_ns", "exit_on", "halt_triggers", "stall_ns",
         "stall_window_ns", "preempt_ns", "history", "post_ns", "rate",
         "rate_total", "filter_pid", "filter_vcpus", "armed", "vcpus",
         "mem_bytes", "captures", "pending", "dropped", "suppressed_busy",
         "suppressed_rate", "suppressed_total", "no_history", "vcpu_bytes",
         "mark_triggers", "mark_pid"]
W_U8 = {"exit_on", "halt_triggers", "armed", "mark_triggers"}
W_U32 = {"history", "rate", "rate_total", "filter_pid", "vcpus", "pending",
         "mark_pid"}
CAPTURE = ["unspec", "pad", "id", "vm_id", "vm_pid", "vcpu_id", "tid",
           "trigger", "trigger_ts", "value_ns", "limit_ns", "window_ns",
           "on", "first_seq", "trigger_seq", "end_seq", "suppressed",
           "clock_ns", "realtime_ns"]
TRIGGERS = ["exit", "stall", "preempted", "mark"]

# struct hvtrace_event, 160 bytes
EVENT = struct.Struct("<7Q7I2H2BHI4QQQ16s")
EVENT_FIELDS = ["seq", "ts_ns", "duration_ns", "info1", "info2", "addr",
                "rip", "reason", "intr_info", "error_code", "vcpu_id",
                "vm_id", "vm_pid", "tid", "cpu_exit", "cpu_entry", "isa",
                "type", "flags", "preempt_pid", "vmm_ns", "halt_ns",
                "runnable_ns", "other_ns", "preempt_ns", "guest_ns",
                "preempt_comm"]
assert EVENT.size == 160
# A guest mark's (type 3) record holds its TSC fields where the parts are.
MARK_FIELDS = ["host_tsc", "tsc_offset", "tsc_ratio", "tsc_frac_bits"]


def attr(kind, payload):
    a = struct.pack("HH", 4 + len(payload), kind) + payload
    return a + b"\0" * (-len(a) % 4)


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0
        self.family, self.group = self.resolve()

    def send(self, family, cmd, body=b"", flags=NLM_F_REQUEST | NLM_F_ACK):
        self.seq += 1
        payload = struct.pack("BBH", cmd, 1, 0) + body
        self.sock.send(struct.pack("IHHII", 16 + len(payload), family, flags,
                                   self.seq, 0) + payload)

    def replies(self):
        """Messages of the request in flight: (cmd, attrs) until done;
        raises OSError(errno, extack message) on an error."""
        while True:
            data = self.sock.recv(1 << 20)
            while data:
                length, kind, flags, seq = struct.unpack_from("IHHI", data)
                msg, data = data[:length], data[(length + 3) & ~3:]
                if seq != self.seq:
                    continue
                if kind == NLMSG_DONE:
                    return
                if kind == NLMSG_ERROR:
                    err = -struct.unpack_from("i", msg, 16)[0]
                    if not err:
                        return
                    text = ""
                    inner = struct.unpack_from("I", msg, 20)[0]
                    tlvs = msg[20 + (inner if flags & 0x100 == 0 else 16):]
                    for k, v in attrs(tlvs):
                        if k == NLMSGERR_ATTR_MSG:
                            text = v.rstrip(b"\0").decode()
                    raise OSError(err, text)
                yield msg[16], attrs(msg[20:])

    def resolve(self):
        name = b"hvtrace\0"
        self.send(GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
                  attr(CTRL_ATTR_FAMILY_NAME, name), NLM_F_REQUEST)
        family = group = None
        for _, a in self.replies():
            for k, v in a:
                if k == CTRL_ATTR_FAMILY_ID:
                    family = struct.unpack("H", v[:2])[0]
                if k == CTRL_ATTR_MCAST_GROUPS:
                    for _, grp in attrs(v):
                        g = dict(attrs(grp))
                        if g.get(1, b"").rstrip(b"\0") == b"events":
                            group = struct.unpack("I", g[2][:4])[0]
            break
        return family, group

    def do(self, cmd, body=b""):
        self.send(self.family, cmd, body)
        return list(self.replies())

    def dump(self, cmd):
        self.send(self.family, cmd, b"", NLM_F_REQUEST | NLM_F_DUMP)
        return list(self.replies())


def watch_body(settings):
    nest = b""
    for item in settings:
        name, value = item.split("=", 1)
        kind = WATCH.index(name)
        if name == "filter_vcpus":
            bits = 0
            for v in value.split(","):
                bits |= 1 << int(v)
            words = max(1, (bits.bit_length() + 63) // 64)
            payload = bits.to_bytes(words * 8, "little")
        elif name in W_U8:
            payload = struct.pack("B", int(value))
        elif name in W_U32:
            payload = struct.pack("I", int(value))
        else:
            payload = struct.pack("Q", int(value))
        nest += attr(kind, payload)
    return attr(A_WATCH | 0x8000, nest)


def number(v):
    return int.from_bytes(v[:8 if len(v) >= 8 else len(v)], "little")


def read_captures(g):
    out = []
    for _, a in g.dump(CMD_READ_CAPTURES):
        for k, v in a:
            if k == A_CAPTURE:
                h = {CAPTURE[t]: number(p) for t, p in attrs(v)}
                h["trigger"] = TRIGGERS[h["trigger"]]
                out.append({"header": h, "records": []})
            elif k == A_EVENTS:
                for i in range(0, len(v), EVENT.size):
                    e = dict(zip(EVENT_FIELDS, EVENT.unpack_from(v, i)))
                    e["preempt_comm"] = e["preempt_comm"].rstrip(b"\0") \
                        .decode(errors="replace")
                    if e["type"] == 3:
                        for m, p in zip(MARK_FIELDS, EVENT_FIELDS[20:24]):
                            e[m] = e.pop(p)
                    out[-1]["records"].append(e)
    for c in out:
        h = c["header"]
        assert len(c["records"]) == h["end_seq"] - h["first_seq"], h
    return out


def status(g):
    for _, a in g.do(CMD_GET_STATUS):
        for k, v in a:
            if k == A_WATCH:
                w = {}
                for t, p in attrs(v):
                    if WATCH[t] == "filter_vcpus":
                        bits = int.from_bytes(p, "little")
                        w[WATCH[t]] = [i for i in range(bits.bit_length())
                                       if bits >> i & 1]
                    else:
                        w[WATCH[t]] = number(p)
                return w
    return None


def main():
    g = Genl()
    if g.family is None:
        print("no family")
        return 1
    if sys.argv[1] == "status":
        print(json.dumps(status(g), sort_keys=True))
        return 0
    if sys.argv[1] == "arm-only":
        try:
            g.do(CMD_WATCH_START, watch_body(sys.argv[2:]))
            print("armed")
        except OSError as e:
            print("refused %s: %s" % (errno.errorcode.get(e.errno, e.errno),
                                      e.strerror))
        return 0
    out, seconds = sys.argv[2], float(sys.argv[3])
    ready = sys.argv[4] if len(sys.argv) > 4 and "=" not in sys.argv[4] \
        else None
    settings = [s for s in sys.argv[4:] if "=" in s]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    try:
        g.do(CMD_WATCH_START, watch_body(settings))
    except OSError as e:
        if ready:
            with open(ready, "w") as f:
                f.write("refused %s: %s\n" % (
                    errno.errorcode.get(e.errno, e.errno), e.strerror))
        return 0
    listen = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                           NETLINK_GENERIC)
    listen.bind((0, 0))
    listen.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, g.group)
    if ready:
        open(ready, "w").close()
    captures, end = [], time.monotonic() + seconds
    try:
        while not stop and time.monotonic() < end:
            try:
                r, _, _ = select.select(
                    [listen], [], [], min(0.5, max(0, end - time.monotonic())))
            except InterruptedError:
                r = []
            if r:
                listen.recv(65536)
            captures += read_captures(g)
        # What closed after the last look: the scan is a post window away.
        time.sleep(0.2)
        captures += read_captures(g)
    except OSError as e:
        print("the family went away: %s" % errno.errorcode.get(e.errno))
        return 3
    with open(out + ".tmp", "w") as f:
        json.dump({"captures": captures, "status": status(g)}, f)
    os.rename(out + ".tmp", out)
    g.do(CMD_WATCH_STOP)
    return 0


if __name__ == "__main__":
    sys.exit(main())
