#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Named checks over hvtrace events or a JSON document's rows, for the
e2e tests (lib.sh: events_check, doc_check).

usage: check.py [--doc] CLAUSE [--and CLAUSE]...  < INPUT

INPUT is events, JSON lines from `hvctl -j drain` or `hvctl dump -j`,
and a CLAUSE is over one SET of them: ev (all), entered (exits that
re-entered the guest), last (exits that did not: a vCPU's last, ended by
its destruction), exits, preempts. With --doc INPUT is one JSON document
(`hvctl -j stat`, `status`, `config`) and a SET is a list of rows in it,
named by its keys joined with dots: reasons, vcpus, accounting.cpus.
A clause is optionally narrowed by `--where COND`.

  every SET PRED [--where COND]     PRED holds for each event
  none SET PRED [--where COND]      PRED holds for none
  some SET PRED [--where COND]      PRED holds for at least one
  count SET [--where COND] [--by KEY] [OP RHS]
                                    how many events (OP: == != < <= > >=)
  sum SET EXPR [--where COND] [--by KEY] [OP RHS]
                                    the sum of EXPR over them
  --by KEY: count or sum per value of KEY, each held to OP RHS

PRED, COND, EXPR and KEY are Python expressions of e, the event (or
row), and prev, the one before it in SET (None for the first); RHS is a
Python expression. Over events the sets are names in all of them (as in
events_py), and so are
  preempted_ns(x)  the time of the preemption records inside exit x: on
                   its vCPU, from its start to its end
  exits_at(p)      the exits of preemption p's vCPU under way when p
                   started (from an exit's start to its end, both in)
Over a document d is the document.

A check prints True or False, the clauses joined as Python's `and` (the
first false one ends it); a query (count or sum without OP, alone)
prints its number. When a check is false, stderr says which clause and
names the first event that broke it: for every and none the event (its
index in EVENTS, type, reason, RIP, vCPU and durations; a row: its index
in SET and its fields), and the one before it if the clause reads prev;
for --by the first group and its first event; for some how many did not
match. An expression that raises exits 1 with the event it raised on,
printing nothing on stdout.
"""
import json
import operator
import sys

OPS = {'==': operator.eq, '!=': operator.ne, '<': operator.lt,
       '<=': operator.le, '>': operator.gt, '>=': operator.ge}
SETS = ('ev', 'entered', 'last', 'exits', 'preempts')
KINDS = ('every', 'none', 'some', 'count', 'sum')
DURATIONS = ('duration_ns', 'handling_ns', 'vmm_ns', 'halt_ns',
             'runnable_ns', 'other_ns')


class Usage(Exception):
    pass


class Input:
    """The sets a clause may name, and the names its expressions see."""

    def __init__(self, text, doc):
        self.doc = doc
        if doc:
            self.names = {'d': json.loads(text)}
            self.sets = {}
            return
        ev = [json.loads(line) for line in text.split('\n') if line.strip()]
        exits = [e for e in ev if e['type'] == 'exit']
        self.sets = {'ev': ev,
                     'entered': [e for e in exits if not e.get('no_entry')],
                     'last': [e for e in exits if e.get('no_entry')],
                     'exits': exits,
                     'preempts': [e for e in ev if e['type'] == 'preempt']}
        pre = self.sets['preempts']

        def preempted_ns(x):
            return sum(p['duration_ns'] for p in pre
                       if p['vcpu'] == x['vcpu'] and x['ts_ns'] <= p['ts_ns']
                       and p['ts_ns'] + p['duration_ns'] <=
                       x['ts_ns'] + x['duration_ns'])

        def exits_at(p):
            return [x for x in exits if x['vcpu'] == p['vcpu'] and
                    x['ts_ns'] <= p['ts_ns'] <= x['ts_ns'] + x['duration_ns']]

        self.names = dict(self.sets, preempted_ns=preempted_ns,
                          exits_at=exits_at)

    def set(self, which):
        """The list SET names: a row list of the document, found by its
        keys, or a set of events."""
        if which in self.sets:
            return self.sets[which]
        if not self.doc:
            raise Usage('no set %r (one of %s)' % (which, ', '.join(SETS)))
        cur = self.names['d']
        for k in which.split('.'):
            if not isinstance(cur, dict) or k not in cur:
                raise Usage('no set %r in the document' % which)
            cur = cur[k]
        if not isinstance(cur, list):
            raise Usage('%r is no list in the document' % which)
        self.sets[which] = cur
        return cur

    def describe(self, which, i):
        """One line naming element i of SET: an event, where it is in
        EVENTS and what it was; a row, where it is in SET and its fields."""
        e = self.sets[which][i]
        if self.doc:
            return 'row %d of %s: %s' % (i, which, json.dumps(e))
        idx = next(j for j, x in enumerate(self.sets['ev']) if x is e)
        out = ['event %d: %s' % (idx, e.get('type'))]
        if 'reason' in e:
            out.append(str(e['reason']))
        if 'rip' in e:
            out.append('rip %#x' % e['rip'] if isinstance(e['rip'], int)
                       else 'rip %s' % e['rip'])
        for k in ('vcpu', 'cpu', 'vm_pid', 'info1', 'ts_ns', 'seq'):
            if k in e:
                out.append('%s %s' % (k, e[k]))
        out += ['%s %s' % (k, e[k]) for k in DURATIONS if k in e]
        if e.get('no_entry'):
            out.append('no_entry')
        return ', '.join(out)


def parse(args):
    """A clause: dict of kind, set, expr, where, by, op, rhs, text."""
    if len(args) < 2 or args[0] not in KINDS:
        raise Usage('a clause is %s SET ...: %r' % ('|'.join(KINDS), args))
    c = {'kind': args[0], 'set': args[1], 'expr': None, 'where': None,
         'by': None, 'op': None, 'rhs': None, 'text': ' '.join(args)}
    rest = args[2:]
    if c['kind'] != 'count':
        if not rest or rest[0].startswith('--'):
            raise Usage('%s %s: what?' % (c['kind'], c['set']))
        c['expr'], rest = rest[0], rest[1:]
    while rest[:1] in (['--where'], ['--by']):
        opt = rest[0][2:]
        if len(rest) < 2 or c[opt] is not None:
            raise Usage('%s: %s' % (rest[0], 'twice' if c[opt] else
                                    'no expression'))
        c[opt], rest = rest[1], rest[2:]
    query = c['kind'] in ('count', 'sum')
    if rest:
        if not query or len(rest) != 2 or rest[0] not in OPS:
            raise Usage('%s: cannot read %r' % (c['text'], rest))
        c['op'], c['rhs'] = rest
    if c['by'] is not None and (not query or c['op'] is None):
        raise Usage('%s: --by needs count or sum, and OP RHS' % c['text'])
    return c


def run(c, inp, err):
    """The clause's value: a bool for a check, a number for a query."""
    events = inp.set(c['set'])
    ns = inp.names
    at = [None]         # the index of the event being judged

    def value(expr, i):
        # Globals, as in events_py: comprehensions see them.
        at[0] = i
        ns['e'] = events[i]
        ns['prev'] = events[i - 1] if i else None
        return eval(expr, ns)

    def named(i):
        line = inp.describe(c['set'], i)
        if i and 'prev' in c['text']:
            line += '\n  after %s' % inp.describe(c['set'], i - 1)
        return line

    def false(why):
        err.write('check: false: %s\n  %s\n' % (c['text'], why))
        return False

    try:
        where = c['where']
        if c['kind'] in ('every', 'none', 'some'):
            # As all(PRED for e in SET if COND), or any(...): COND and
            # PRED event by event, up to the first that decides it (what
            # follows is counted, not judged: it may not have the fields).
            want = c['kind'] == 'every'
            first = None
            for i in range(len(events)):
                if where is not None and not value(where, i):
                    continue
                if bool(value(c['expr'], i)) != want:
                    first = i
                    break
            if c['kind'] == 'some':
                if first is not None:
                    return True
                n = sum(1 for i in range(len(events))
                        if where is None or value(where, i))
                return false('none of %d %s matched' % (
                    n, 'rows' if inp.doc else 'events'))
            if first is None:
                return True
            n = m = 0
            for i in range(len(events)):
                try:
                    if where is None or value(where, i):
                        m += 1
                        n += bool(value(c['expr'], i)) != want
                except Exception:   # noqa: BLE001 (the first one decides)
                    pass
            return false('%d of %d %s broke it; the first, %s' % (
                n, m, 'rows' if inp.doc else 'events', named(first)))
        chosen = [i for i in range(len(events))
                  if where is None or value(where, i)]
        groups = {None: chosen}
        if c['by'] is not None:
            groups = {}
            for i in chosen:
                groups.setdefault(value(c['by'], i), []).append(i)
        got = {}
        for key, idx in groups.items():
            got[key] = len(idx) if c['kind'] == 'count' else \
                sum(value(c['expr'], i) for i in idx)
        at[0] = None
        if c['op'] is None:
            return got[None]
        limit = eval(c['rhs'], ns)
        bad = [k for k in groups if not OPS[c['op']](got[k], limit)]
        if not bad:
            return True
        if c['by'] is None:
            return false('%s is %s' % (c['kind'], got[None]))
        k = bad[0]
        return false('%d of %d groups broke it; the first, %r: %s %s of '
                     '%d, the first %s' % (len(bad), len(groups), k,
                                           c['kind'], got[k], len(groups[k]),
                                           named(groups[k][0])))
    except Exception as x:
        err.write('check: %s: %s: %s%s\n' % (
            c['text'], type(x).__name__, x,
            '\n  on ' + named(at[0]) if at[0] is not None else ''))
        raise SystemExit(1)


def main(argv, stdin, out, err):
    doc = int(argv[:1] == ['--doc'])
    clauses, cur = [], []
    for a in argv[doc:] + ['--and']:
        if a == '--and':
            clauses.append(cur)
            cur = []
        else:
            cur.append(a)
    try:
        clauses = [parse(c) for c in clauses]
        for c in clauses:
            if c['kind'] in ('count', 'sum') and c['op'] is None and \
                    len(clauses) > 1:
                raise Usage('a query (%s without OP) stands alone' %
                            c['text'])
        inp = Input(stdin.read(), doc)
        for c in clauses:
            inp.set(c['set'])
    except Usage as x:
        err.write('check: %s\n%s' % (x, __doc__))
        return 2
    for c in clauses:
        r = run(c, inp, err)
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
