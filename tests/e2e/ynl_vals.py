#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""tests/e2e/vals.py with 20-ynl's helpers for YNL's JSON (20-ynl.t: vals).

usage: ynl_vals.py EXPR...  < DOCUMENT

cat(msgs) concatenates the config nests of a get-config dump, the way
the spec says a reader must; reasons(msgs) merges the reasons of a
get-stats dump with their histograms' continuations: [head, {bucket:
count}, continuations of another reason]; pcts(head, buckets) are p50,
p99 and p99.9 as hvctl computes them (uapi hvtrace.h: bucket bounds).
The checks 20-ynl holds to [] are named functions below, each listing
what breaks it.
"""
import json  # noqa: F401 (for the expressions)
import math
import struct
import sys

import vals


def cat(msgs):
    c = {}
    for m in msgs:
        for k, v in m["config"].items():
            if k == "reason-threshold":
                c.setdefault(k, []).extend(v)
            elif k == "filter-reasons":
                c.setdefault(k, {"reason": []})["reason"].extend(v.get("reason", []))
            else:
                c[k] = v
    return c


def add_hist(buckets, r):
    b = bytes.fromhex(r.get("hist", ""))
    for o in range(0, len(b), 16):
        i, _, n = struct.unpack_from("<IIQ", b, o)
        buckets[i] = buckets.get(i, 0) + n


def reasons(msgs):
    out = []
    for r in (m["reason"] for m in msgs if "reason" in m):
        if "count" in r:
            out.append([r, {}, 0])
        else:
            out[-1][2] += (r["isa"], r.get("code")) != (out[-1][0]["isa"], out[-1][0].get("code"))
        add_hist(out[-1][1], r)
    return out


def lower(i):
    return i if i < 32 else (32 + (i & 31)) << ((i >> 5) - 1)


def pcts(r, buckets):
    n, out = sum(buckets.values()), []
    for p in (50, 99, 99.9):
        rank, seen = max(1, math.ceil(p / 100.0 * n)), 0
        for i in sorted(buckets):
            seen += buckets[i]
            if seen >= rank:
                break
        hi = lower(i + 1) - 1 if i + 1 < 1024 else r["max-ns"]
        v = lower(i) + (hi - lower(i)) // 2
        out.append(min(max(v, r["min-ns"]), r["max-ns"]))
    return out


# The checks 20-ynl holds to [] (what breaks them), by dump.


def acct_unbalanced(msgs):
    """get-status dump: the CPUs whose acct nest breaks the identities."""
    return [c['cpu'] for c in (m['acct'] for m in msgs)
            if c['seen'] != c['filtered'] + c['below'] + c['recorded'] + c['lost']
            or c['preempt-seen'] != c['preempt-filtered'] + c['preempt-below'] +
            c['preempt-recorded'] + c['preempt-lost']
            or c['irq-seen'] != c['irq-filtered'] + c['irq-below'] +
            c['irq-recorded'] + c['irq-lost']]


def miscounted(stats):
    """get-stats dump: reasons whose merged histogram does not count their
    exits."""
    return [(r['isa'], r.get('code'), r['count'], sum(b.values()))
            for r, b, _ in reasons(stats)
            if 'hist' in r and sum(b.values()) != r['count']]


def continued_by_another(stats):
    """get-stats dump: reasons continued by another reason's histogram."""
    return [(r['isa'], r.get('code')) for r, _, bad in reasons(stats) if bad]


def odd_continuations(stats):
    """get-stats dump: continuations with more than isa, code, hist."""
    return [m['reason'] for m in stats
            if 'reason' in m and 'count' not in m['reason'] and
            set(m['reason']) - {'isa', 'code', 'hist'}]


def pcts_unlike(stats, hs):
    """The reasons of hvctl -j stat HS whose percentiles are not those of
    the get-stats dump's merged histogram: (reason, ours, hvctl's)."""
    return [(h['reason'], pcts(r, b), [h['p50_ns'], h['p99_ns'], h['p999_ns']])
            for r, b, _ in reasons(stats) if 'hist' in r
            for h in hs['reasons']
            if (h['isa'], h.get('code')) ==
            ({'unknown': 0, 'vmx': 1, 'svm': 2}[r['isa']], r.get('code')) and
            pcts(r, b) != [h['p50_ns'], h['p99_ns'], h['p999_ns']]]


# read-events dump: records of struct hvtrace_event (uapi hvtrace.h), 160
# bytes, its type at byte 89.
EVENT_SIZE = 160
EVENT_TYPE = 89


def malformed_events(msgs):
    """Messages without events-cpu or events-lost, or with events not a
    whole number of records."""
    return [m for m in msgs if 'events-cpu' not in m or 'events-lost' not in m
            or len(bytes.fromhex(m.get('events', ''))) % EVENT_SIZE]


def n_events(msgs):
    return sum(len(bytes.fromhex(m.get('events', ''))) // EVENT_SIZE
               for m in msgs)


def event_types(msgs):
    return sorted({bytes.fromhex(m['events'])[i + EVENT_TYPE]
                   for m in msgs if m.get('events')
                   for i in range(0, len(bytes.fromhex(m['events'])),
                                  EVENT_SIZE)})


if __name__ == '__main__':
    vals.main(sys.argv[1:], globals())
