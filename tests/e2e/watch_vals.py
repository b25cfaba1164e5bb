#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/e2e/vals.py with the watch's stall window, for 70-watch.t.

usage: watch_vals.py EXPR...  < CAPTURES (watch_nl.py's JSON)

stall_breaks(caps, window, halt) lists the stall captures whose value
breaks the window's rule (kmod/watch.c: stall_add), [] when none does;
halts_counted(caps, window) says whether halted time made a value.
The rule, replayed here from the records (an exit record holds the
start and the length the kernel added), is checked twice: against the
replay, exactly, and against what the records say lay in the window.
"""
import json  # noqa: F401 (for the expressions)
import sys

import vals

STEPS = 128     # kmod/watch.h: HVT_STALL_STEPS
SLOTS = 512     # HVT_STALL_SLOTS


def replay(exits, window):
    """The kernel's value after each of exits, (start, end, ns) since the
    window was last reset: spans closer than window / STEPS merge, spans
    that ended before the window go, and the oldest counts only its ns
    from the window's start on."""
    spans, total, out = [], 0, []
    for start, end, ns in exits:
        # u64 in the kernel: an end before the span's start (two CPUs'
        # clocks) wraps, and does not merge.
        if spans and ((end - spans[-1][0]) % 2**64 <= window // STEPS or
                      len(spans) == SLOTS):
            spans[-1][1] = end
            spans[-1][2] += ns
        else:
            spans.append([start, end, ns])
        total += ns
        edge = max(end - window, 0)
        while spans[0][1] <= edge:
            total -= spans.pop(0)[2]
        out.append(total - min(max(edge - spans[0][0], 0), spans[0][2]))
    return out


def surely_inside(exits, window):
    """What surely lay out of the guest in the window that ends with the
    last of exits: each exit's ns less its part before the window's
    start (ns may all lie at its start)."""
    edge = exits[-1][1] - window
    return sum(max(ns - max(edge - start, 0), 0) for start, _, ns in exits)


def judged(caps):
    """The stall captures whose exits since the window's last reset are
    all known, each with them as (start, end, ns, halted): the vCPU's
    previous stall capture (or its first exit) reset it, nothing was
    suppressed since, and the history reaches back to it."""
    prev = {}
    for c in sorted(caps, key=lambda c: c["header"]["id"]):
        h = c["header"]
        if h["trigger"] != "stall":
            continue
        since = prev.get(h["vcpu_id"], 0)
        prev[h["vcpu_id"]] = h["trigger_seq"]
        if h["suppressed"] or h["first_seq"] > since + 1:
            continue
        yield h, [(r["ts_ns"], r["ts_ns"] + r["duration_ns"],
                   r["duration_ns"], r["halt_ns"])
                  for r in c["records"]
                  if r["type"] == 1 and since < r["seq"] <= h["trigger_seq"]]


def window_exits(exits, halt):
    """(start, end, ns) of exits: ns their time out of the guest, halted
    time in it when halt (the watch's halt_triggers)."""
    return [(s, e, e - s - (0 if halt else hl)) for s, e, _, hl in exits]


def stall_breaks(caps, window, halt, need=True):
    """Stall captures that break the rule, each with why; with need, also
    when there is none to judge."""
    bad, n = [], 0
    for h, exits in judged(caps):
        exits = window_exits(exits, halt)
        values = replay(exits, window)
        low = surely_inside(exits, window)
        n += 1
        why = []
        if values[-1] != h["value_ns"]:
            why.append("value %d, the rule's %d" % (h["value_ns"], values[-1]))
        if [v for v in values[:-1] if v >= h["limit_ns"]]:
            why.append("an earlier exit crossed")
        # (Bounds of exits in time order: the clocks of two CPUs may
        # not be.)
        ordered = all(a[1] <= b[0] for a, b in zip(exits, exits[1:]))
        if ordered and not low - window // STEPS <= h["value_ns"] <= low:
            why.append("value %d, surely inside %d" % (h["value_ns"], low))
        if why:
            bad.append((h["id"], h["trigger_seq"], why))
    if need and not n:
        bad.append("no stall capture to judge")
    return bad


def halts_counted(caps, window):
    """Some stall capture's value is more than the rule gives without
    the halted time."""
    return any(h["value_ns"] > replay(window_exits(exits, False), window)[-1]
               for h, exits in judged(caps))


if __name__ == "__main__":
    vals.main(sys.argv[1:], globals())
