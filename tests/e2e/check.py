#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Named checks over hvtrace events, for the e2e tests (lib.sh: check).

usage: check.py CLAUSE [--and CLAUSE]...  < EVENTS

EVENTS are JSON lines from `hvctl -j drain` or `hvctl dump -j`. A CLAUSE
is over one SET of them: ev (all), entered (exits that re-entered the
guest), last (exits that did not: a vCPU's last, ended by its
destruction), exits, preempts; optionally narrowed by `--where COND`.
PRED, COND and EXPR are Python expressions of the event e; RHS is a
Python expression; the sets are there in all of them, as in events_py.

  every SET PRED [--where COND]     PRED holds for each event
  none SET PRED [--where COND]      PRED holds for none
  count SET [--where COND] [OP RHS] how many events (OP: == != < <= > >=)
  sum SET EXPR [--where COND] [OP RHS]  the sum of EXPR over them

A check prints True or False, the clauses joined as Python's `and` (the
first false one ends it); a query (count or sum without OP, alone)
prints its number. When a check is false, stderr says which clause and,
for every and none, the first event that broke it: its index in EVENTS,
type, reason, RIP, vCPU and durations. An expression that raises exits 1
with the event it raised on, printing nothing on stdout.
"""
import json
import operator
import sys

OPS = {'==': operator.eq, '!=': operator.ne, '<': operator.lt,
       '<=': operator.le, '>': operator.gt, '>=': operator.ge}
SETS = ('ev', 'entered', 'last', 'exits', 'preempts')
DURATIONS = ('duration_ns', 'handling_ns', 'vmm_ns', 'halt_ns',
             'runnable_ns', 'other_ns')


class Usage(Exception):
    pass


def load(lines):
    ev = [json.loads(line) for line in lines if line.strip()]
    exits = [e for e in ev if e['type'] == 'exit']
    return {'ev': ev,
            'entered': [e for e in exits if not e.get('no_entry')],
            'last': [e for e in exits if e.get('no_entry')],
            'exits': exits,
            'preempts': [e for e in ev if e['type'] == 'preempt']}


def describe(e, sets):
    """One line naming event e: where it is in EVENTS and what it was."""
    idx = next(i for i, x in enumerate(sets['ev']) if x is e)
    e = dict(e)
    out = ['event %d: %s' % (idx, e.get('type'))]
    if 'reason' in e:
        out.append(str(e['reason']))
    if 'rip' in e:
        out.append('rip %#x' % e['rip'] if isinstance(e['rip'], int)
                   else 'rip %s' % e['rip'])
    for k in ('vcpu', 'cpu', 'vm_pid', 'info1'):
        if k in e:
            out.append('%s %s' % (k, e[k]))
    out += ['%s %s' % (k, e[k]) for k in DURATIONS if k in e]
    if e.get('no_entry'):
        out.append('no_entry')
    return ', '.join(out)


def parse(args):
    """A clause: (kind, set, expr, where, op, rhs, text)."""
    if len(args) < 2 or args[0] not in ('every', 'none', 'count', 'sum'):
        raise Usage('a clause is every|none|count|sum SET ...: %r' % args)
    kind, which, rest = args[0], args[1], args[2:]
    if which not in SETS:
        raise Usage('%s: no set %r (one of %s)' % (kind, which,
                                                   ', '.join(SETS)))
    expr = None
    if kind != 'count':
        if not rest:
            raise Usage('%s %s: what?' % (kind, which))
        expr, rest = rest[0], rest[1:]
    where = op = rhs = None
    if rest[:1] == ['--where']:
        if len(rest) < 2:
            raise Usage('--where: no condition')
        where, rest = rest[1], rest[2:]
    if rest:
        if kind in ('every', 'none') or len(rest) != 2 or rest[0] not in OPS:
            raise Usage('%s %s: cannot read %r' % (kind, which, rest))
        op, rhs = rest
    return kind, which, expr, where, op, rhs, ' '.join(args)


def value(expr, e, sets):
    sets['e'] = e       # globals, as in events_py: comprehensions see them
    return eval(expr, sets)


def selected(which, where, sets):
    return [e for e in sets[which] if where is None or value(where, e, sets)]


def run(clause, sets, err):
    """The clause's value: a bool for a check, a number for a query."""
    kind, which, expr, where, op, rhs, text = clause
    cur = None
    try:
        if kind in ('every', 'none'):
            # As all(PRED for e in SET if COND): COND and PRED event by
            # event, up to the first that breaks it (what follows it is
            # counted, not judged: it may not even have the fields).
            want = kind == 'every'
            events = sets[which]
            first = None
            for i, cur in enumerate(events):
                if where is not None and not value(where, cur, sets):
                    continue
                if bool(value(expr, cur, sets)) != want:
                    first = i
                    break
            if first is None:
                return True
            n = m = 0
            for cur in events:
                try:
                    if where is None or value(where, cur, sets):
                        m += 1
                        n += bool(value(expr, cur, sets)) != want
                except Exception:   # noqa: BLE001 (the first one decides)
                    pass
            err.write('check: false: %s\n  %d of %d events broke it; the '
                      'first, %s\n' % (text, n, m,
                                       describe(events[first], sets)))
            return False
        events = selected(which, where, sets) if where else sets[which]
        if kind == 'count':
            got = len(events)
        else:
            got = sum(value(expr, cur, sets) for cur in events)
        cur = None
        if op is None:
            return got
        limit = eval(rhs, sets)
        if OPS[op](got, limit):
            return True
        err.write('check: false: %s\n  %s is %s\n' % (text, kind, got))
        return False
    except Exception as x:
        err.write('check: %s: %s: %s%s\n' % (
            text, type(x).__name__, x,
            '\n  on ' + describe(cur, sets) if cur is not None else ''))
        raise SystemExit(1)


def main(argv, stdin, out, err):
    clauses, cur = [], []
    for a in argv + ['--and']:
        if a == '--and':
            clauses.append(cur)
            cur = []
        else:
            cur.append(a)
    try:
        clauses = [parse(c) for c in clauses]
        for c in clauses:
            if c[0] in ('count', 'sum') and c[4] is None and len(clauses) > 1:
                raise Usage('a query (%s without OP) stands alone' % c[6])
    except Usage as x:
        err.write('check: %s\n%s' % (x, __doc__))
        return 2
    sets = load(stdin)
    for c in clauses:
        r = run(c, sets, err)
        if r is False:
            out.write('False\n')
            return 0
        if r is not True:
            out.write('%s\n' % r)
            return 0
    out.write('True\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:], sys.stdin, sys.stdout, sys.stderr))
