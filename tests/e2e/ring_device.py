# SPDX-License-Identifier: GPL-2.0
"""/dev/hvtrace from the outside, as any program would use it: the ioctl
and mmap of include/uapi/linux/hvtrace.h by hand (not hvctl's code), for
33-ring-device.t. Each command prints one line: a JSON document, or
"errno NAME" when the kernel refused.

  open                          open and close: ok or errno
  info CPU                      HVTRACE_IOC_RING, nothing released
  release CPU CONSUMED TAKEN    the same, giving back CONSUMED positions
  map LENGTH OFFSET PROT        mmap of LENGTH at OFFSET, PROT r (shared,
                                read-only, then mprotect()ed to rw), rw
                                (shared, the device opened read-write),
                                private (copy-on-write, rw) or x (shared,
                                read and execute): ok, "errno NAME" or
                                "mprotect errno NAME"
  read                          every CPU's committed records read in
                                place and released: per CPU taken, lapped,
                                torn, seq errors, and the reply's counters
  fuzz ROUNDS SEED              random ioctls and mmaps, mostly wrong:
                                how many ended how
  handoff CAPS COMMAND...       COMMAND on this file, run by a process
                                whose bounding set lacks CAPS (setpriv)
  fd N COMMAND...               COMMAND on file descriptor N
  hold CMD...                   CMD run while the device is held open:
                                its status and first line of output
  stale HVCTL                   map CPU 0, close: resize with HVCTL
                                (the mapping holds the file), read the
                                mapping, unmap, resize again: the two
                                resizes' status
"""
import errno
import fcntl
import json
import mmap
import os
import random
import struct
import ctypes
import subprocess
import sys

DEV = "/dev/hvtrace"
RING = struct.Struct("<IIQQQQQQQQII")
FIELDS = ("cpu", "mode", "consumed", "taken", "tail", "slots", "bytes",
          "offset", "lost", "overwritten", "cpus_traced", "pad")
IOC_RING = (3 << 30) | (RING.size << 16) | (0xb7 << 8) | 1
EVENT = 160


def err(e):
    return "errno " + errno.errorcode.get(e.errno, str(e.errno))


def ioctl(fd, cpu, consumed=0, taken=0):
    buf = bytearray(RING.pack(cpu, 0, consumed, taken, 0, 0, 0, 0, 0, 0, 0, 0))
    fcntl.ioctl(fd, IOC_RING, buf)
    return dict(zip(FIELDS, RING.unpack(buf)))


def possible_cpus():
    with open("/sys/devices/system/cpu/possible") as f:
        last = f.read().strip().split(",")[-1].split("-")[-1]
    return int(last) + 1


def read_ring(fd, cpu):
    """The reader of the uapi header's comment, on one CPU."""
    r = ioctl(fd, cpu)
    m = mmap.mmap(fd, r["bytes"], mmap.MAP_SHARED, mmap.PROT_READ,
                  offset=r["offset"])
    mask = r["slots"] - 1
    t = start = r["tail"]
    out = {"taken": 0, "lapped": 0, "torn": 0, "types": {}}
    # A ring's worth of records looked at (jumps over lapped ones are free).
    while out["taken"] + out["torn"] < r["slots"]:
        off = (t & mask) * EVENT
        seq = struct.unpack_from("<Q", m, off)[0]
        if seq == t + 1:
            rec = bytes(m[off:off + EVENT])
            if struct.unpack_from("<Q", m, off)[0] != seq:
                out["torn"] += 1
            else:
                kind = rec[89]
                out["types"][kind] = out["types"].get(kind, 0) + 1
                out["taken"] += 1
            t += 1
        elif seq > t + 1:
            nxt = max(t + 1, seq - 1 - mask)
            out["lapped"] += nxt - t
            t = nxt
        else:
            break
    m.close()
    r = ioctl(fd, cpu, t - start, out["taken"])
    out.update(tail=r["tail"], lost=r["lost"], overwritten=r["overwritten"],
               consumed=t - start)
    return out


def map_raw(fd, length, offset, prot):
    """mmap by hand (Python's mmap cannot mprotect): ok or errno."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                          ctypes.c_int, ctypes.c_int, ctypes.c_long)
    libc.mprotect.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int)
    libc.munmap.argtypes = (ctypes.c_void_p, ctypes.c_size_t)
    rw = mmap.PROT_READ | mmap.PROT_WRITE
    want = {"r": mmap.PROT_READ, "x": mmap.PROT_READ | mmap.PROT_EXEC}
    addr = libc.mmap(None, length, want.get(prot, rw),
                     mmap.MAP_PRIVATE if prot == "private" else
                     mmap.MAP_SHARED, fd, offset)
    if addr in (None, ctypes.c_void_p(-1).value):
        return "errno " + errno.errorcode[ctypes.get_errno()]
    res = "ok"
    if prot == "r" and libc.mprotect(addr, length, rw):
        res = "mprotect errno " + errno.errorcode[ctypes.get_errno()]
    libc.munmap(addr, length)
    return res


def fuzz(fd, rounds, seed):
    """Random requests, mostly wrong: how each ended, by errno name."""
    rnd = random.Random(seed)
    ends = {}
    cpus = possible_cpus()
    edges = [0, 1, 2, 15, 16, 17, 2**31, 2**32 - 1, 2**63, 2**64 - 1]

    def pick():
        return rnd.choice(edges) if rnd.random() < 0.5 else \
            rnd.randrange(2**rnd.choice((4, 16, 32, 64)))

    for _ in range(rounds):
        if rnd.random() < 0.8:
            buf = bytearray(rnd.randbytes(RING.size))
            if rnd.random() < 0.7:	# a CPU that is there, often
                struct.pack_into("<I", buf, 0, rnd.randrange(cpus))
            if rnd.random() < 0.5:
                struct.pack_into("<QQ", buf, 8, pick(), pick())
            try:
                fcntl.ioctl(fd, IOC_RING, buf)
                end = "ok"
            except OSError as e:
                end = errno.errorcode.get(e.errno, str(e.errno))
        else:
            end = map_raw(fd, pick() & ~0xfff if rnd.random() < 0.5 else
                          pick() % 2**40, pick() & ~0xfff, "r")
        ends[end] = ends.get(end, 0) + 1
    return ends


def main(argv):
    if argv[0] == "fd":		# a file someone else opened
        fd, argv = int(argv[1]), argv[2:]
    else:
        try:
            # Read and write only to ask for a shared writable mapping.
            fd = os.open(DEV, os.O_RDWR if argv[-1] == "rw" else os.O_RDONLY)
        except OSError as e:
            print(err(e))
            return 0
    cmd = argv[0]
    try:
        if cmd == "open":
            print("ok")
        elif cmd == "info":
            print(json.dumps(ioctl(fd, int(argv[1]))))
        elif cmd == "release":
            print(json.dumps(ioctl(fd, *(int(a) for a in argv[1:4]))))
        elif cmd == "map":
            print(map_raw(fd, int(argv[1]), int(argv[2]), argv[3]))
        elif cmd == "read":
            res = {}
            for cpu in range(possible_cpus()):
                try:
                    res[cpu] = read_ring(fd, cpu)
                except OSError as e:
                    if e.errno != errno.ENODEV:
                        raise
            print(json.dumps(res))
        elif cmd == "handoff":
            os.set_inheritable(fd, True)
            p = subprocess.run(["setpriv", "--bounding-set=" + argv[1], "--",
                                sys.executable, __file__, "fd", str(fd)] +
                               argv[2:], capture_output=True, text=True,
                               close_fds=False)
            print((p.stdout + p.stderr).strip())
        elif cmd == "hold":
            p = subprocess.run(argv[1:], capture_output=True, text=True)
            line = (p.stdout + p.stderr).strip().split("\n")[0]
            print(json.dumps({"rc": p.returncode, "out": line}))
        elif cmd == "fuzz":
            print(json.dumps(fuzz(fd, int(argv[1]), int(argv[2]))))
        elif cmd == "stale":
            r = ioctl(fd, 0)
            m = mmap.mmap(fd, r["bytes"], mmap.MAP_SHARED, mmap.PROT_READ,
                          offset=r["offset"])
            os.close(fd)
            fd = -1
            resize = [argv[1], "buffer", "--size", "8"]
            mapped = subprocess.run(resize, capture_output=True, text=True)
            total = sum(m[i] for i in range(0, len(m), 4096))
            m.close()
            unmapped = subprocess.run(resize, capture_output=True, text=True)
            print(json.dumps({"mapped": mapped.returncode,
                              "read": total >= 0,
                              "unmapped": unmapped.returncode}))
        else:
            print("unknown command " + cmd)
            return 2
    except OSError as e:
        print(err(e))
    finally:
        if fd >= 0:
            os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
