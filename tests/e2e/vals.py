#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Values of a JSON document, for the e2e tests (lib.sh: json_vals).

usage: vals.py EXPR...  < DOCUMENT

Prints each EXPR, a Python expression of d (the document on stdin),
evaluated, one a line: several values for one Python start, which under
emulation costs a second. tests/e2e/ynl_vals.py adds 20-ynl's helpers.
"""
import json
import sys


def main(exprs, names=None):
    """Print each of exprs with d and names (a module's globals) in scope,
    as globals: comprehensions in an expression see them."""
    g = dict(names or {}, json=json)
    g['d'] = json.load(sys.stdin)
    for e in exprs:
        print(eval(e, g))


if __name__ == '__main__':
    main(sys.argv[1:])
