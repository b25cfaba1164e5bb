#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The PromQL of the Grafana dashboard and the Prometheus rules, asked of a
Prometheus server (tests/exporter/run, tests/e2e/75-exporter.t).

usage:
  promql.py check PROM DASHBOARD RULES [RECORD...]
      every panel has a target with an expression; each expression of
      DASHBOARD (its variables made match-alls: $vm -> .*, intervals
      1m) and each rule's of RULES, queried at PROM (ADDR:PORT), answers
      status "success"; each RECORD rule's expression gives a result
  promql.py refused PROM EXPR
      PROM refuses EXPR as a parse error (status "error", "bad_data")

A check prints "ok - WHAT" or "not ok - WHAT: why"; the exit status is 1
when one failed.
"""
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request

import yaml

bad = 0
# Grafana's interval variables, then its template variables ($vm, ${vm},
# ${vm:regex}): each used as a regular expression, so .* matches all.
INTERVAL = re.compile(r'\$(__rate_interval|__interval|__range)\b|'
                      r'\$\{(__rate_interval|__interval|__range)\}')
VARIABLE = re.compile(r'\$\{[A-Za-z_][A-Za-z0-9_]*(:[a-z]+)?\}|'
                      r'\$[A-Za-z_][A-Za-z0-9_]*')


def result(ok, what, why=''):
    global bad
    bad += not ok
    print('%sok - %s%s' % ('' if ok else 'not ', what,
                           '' if ok or not why else ': ' + why))


def query(prom, expr):
    """The API's answer to EXPR, an error's JSON body included."""
    url = 'http://%s/api/v1/query?%s' % (
        prom, urllib.parse.urlencode({'query': expr}))
    try:
        return json.load(urllib.request.urlopen(url, timeout=30))
    except urllib.error.HTTPError as e:
        return json.load(e)


def dashboard_exprs(path):
    """[(panel title, expression)]; a panel without one is a failure."""
    d = json.load(open(path))
    out = []
    for p in d['panels']:
        exprs = [t.get('expr', '').strip() for t in p.get('targets', [])]
        result(exprs and all(exprs), 'panel "%s": %d target(s), each with '
               'an expression' % (p['title'], len(exprs)), repr(exprs))
        for e in exprs:
            e = INTERVAL.sub('1m', e)
            out.append((p['title'], VARIABLE.sub('.*', e)))
    return out


def rule_exprs(path):
    """{rule name: expression} of every group."""
    return {r.get('record') or r['alert']: r['expr']
            for g in yaml.safe_load(open(path))['groups']
            for r in g['rules']}


def cmd_check(prom, dash, rules, *records):
    exprs = dashboard_exprs(dash)
    rexprs = rule_exprs(rules)
    exprs += sorted(('rule ' + n, e) for n, e in rexprs.items())
    for what, e in exprs:
        d = query(prom, e)
        result(d.get('status') == 'success', '%s: %s' % (what, ' '.join(
            e.split())), '%s %s' % (d.get('errorType'), d.get('error')))
    for n in records:
        d = query(prom, rexprs[n])
        got = d.get('data', {}).get('result', [])
        result(d.get('status') == 'success' and got,
               'rule %s gives %d series' % (n, len(got)), repr(d)[:300])


def cmd_refused(prom, expr):
    d = query(prom, expr)
    result(d.get('status') == 'error' and d.get('errorType') == 'bad_data',
           'Prometheus refuses %s: %s' % (expr, d.get('error')), repr(d))


def main(argv):
    if len(argv) >= 4 and argv[0] == 'check':
        cmd_check(*argv[1:])
    elif len(argv) == 3 and argv[0] == 'refused':
        cmd_refused(*argv[1:])
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
