#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
#
# usage: mkcpio.py OUT NAME=FILE...
# An initramfs: an uncompressed newc cpio (the kernel's
# Documentation/driver-api/early-userspace/buffer-format.rst) holding
# /dev/console and each FILE as /NAME, mode 0755, owned by root. The
# guest's /init needs /dev/console to have a console at all. In Python,
# so the harness needs no cpio tool; written to OUT.tmp, then renamed.
import os
import stat
import sys

ino = 0


def entry(name, mode, data=b'', rdev=(0, 0)):
    """One newc header, the name and the data, each padded to 4 bytes."""
    global ino
    ino += 1
    name = name.encode() + b'\0'
    fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
              len(name), 0)
    out = b'070701' + b''.join(b'%08X' % f for f in fields) + name
    out += b'\0' * (-len(out) % 4) + data
    return out + b'\0' * (-len(out) % 4)


def main():
    if len(sys.argv) < 3 or any('=' not in a for a in sys.argv[2:]):
        sys.exit('usage: mkcpio.py OUT NAME=FILE...')
    out = sys.argv[1]
    blob = entry('dev', stat.S_IFDIR | 0o755)
    blob += entry('dev/console', stat.S_IFCHR | 0o600, rdev=(5, 1))
    for arg in sys.argv[2:]:
        name, path = arg.split('=', 1)
        with open(path, 'rb') as f:
            blob += entry(name, stat.S_IFREG | 0o755, f.read())
    blob += entry('TRAILER!!!', 0)
    with open(out + '.tmp', 'wb') as f:
        f.write(blob)
    os.replace(out + '.tmp', out)


main()
