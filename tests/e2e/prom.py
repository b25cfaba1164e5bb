#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hvctl exporter's figures against hvctl stat's (75-exporter.t).

usage:
  prom.py scrape ADDR FILE        GET http://ADDR/metrics into FILE (200)
  prom.py exits METRICS STAT      the exporter's text (METRICS) against
                                  `hvctl -j stat --vcpus` (STAT): exits per
                                  reason and per vCPU, each vCPU's time by
                                  state, every histogram's +Inf bucket
  prom.py wait PROM EXPR VALUE S  until the PromQL EXPR, asked of the
                                  Prometheus server at PROM, gives VALUE
                                  (its one result), for S seconds at most
  prom.py query PROM STAT PID     Prometheus, having scraped the exporter,
                                  against STAT: hvtrace_exits_total per
                                  reason (the VMs' added up), histogram_quantile() of 0.5 and
                                  0.99 in the bucket of stat's p50 and p99,
                                  the time of VMM PID's vCPUs by state
  prom.py rates PROM A B PID TA TB rate() over a window that brackets
                                  a workload of VMM PID, against stat
                                  A (taken at time TA, before it) and B
                                  (at TB, after it): exits, per reason,
                                  per state, each state's share of the
                                  vCPU's time
  prom.py value PROM EXPR         the one result's value

A check prints "ok - WHAT" or "not ok - WHAT: why"; the exit status is 1
when one failed. Exact comparisons: seconds become nanoseconds again with
round(), exact below 2^53 ns.
"""
import json
import re
import sys
import time
import urllib.parse
import urllib.request

bad = 0
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
# The histogram's edges: 2^k - 1 ns, k = 8..32 (user/lib/metrics.h).
EDGES_NS = [(1 << k) - 1 for k in range(8, 33)]


def result(ok, what, why=''):
    global bad
    bad += not ok
    print('%sok - %s%s' % ('' if ok else 'not ', what,
                           '' if ok or not why else ': ' + why))


def samples(text):
    """[(name, {label: value}, value string)] of an exposition."""
    out = []
    for line in text.splitlines():
        if not line or line.startswith('#'):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError('not a sample: %r' % line)
        labels = {k: re.sub(r'\\(.)', lambda x: {'n': '\n'}.get(
            x.group(1), x.group(1)), v)
            for k, v in LABEL.findall(m.group(3) or '')}
        out.append((m.group(1), labels, m.group(4)))
    return out


def ns(seconds):
    return round(float(seconds) * 1e9)


def stat_vcpus(stat):
    """STAT's vCPU rows added up by (VM, vCPU), as the exporter does."""
    keys = ('count', 'guest_ns', 'handling_ns', 'vmm_ns', 'halt_ns',
            'runnable_ns', 'other_ns')
    out = {}
    for v in stat['vcpus']:
        w = out.setdefault((str(v['vm_id']), str(v['vcpu'])),
                           dict.fromkeys(keys, 0))
        w['pid'] = str(v['vm_pid'])
        for k in keys:
            w[k] += v[k]
    return out


def stat_counts(stat):
    counts = {}
    for r in stat['reasons']:
        counts[r['reason']] = counts.get(r['reason'], 0) + r['count']
    return counts


def show(d):
    return ', '.join('%s %s' % kv for kv in sorted(d.items()))


def cmd_scrape(addr, path):
    r = urllib.request.urlopen('http://%s/metrics' % addr, timeout=60)
    body = r.read()
    open(path, 'wb').write(body)
    result(r.status == 200 and body, 'GET /metrics: %d, %d bytes' %
           (r.status, len(body)))


def cmd_exits(metrics, stat_file):
    s = samples(open(metrics).read())
    stat = json.load(open(stat_file))
    want = stat_counts(stat)
    got = {}
    for n, l, v in s:     # per VM and reason: added up by reason
        if n == 'hvtrace_exits_total':
            got[l['reason']] = got.get(l['reason'], 0) + int(v)
    result(got == want and got, 'exits per reason, all VMs\' added up: the '
           'exporter\'s = hvctl stat\'s (%s)' % show(want),
           'exporter: %s' % show(got))
    inf = {l['reason']: int(v) for n, l, v in s
           if n == 'hvtrace_exit_duration_seconds_bucket' and l['le'] == '+Inf'}
    with_hist = {r['reason']: want[r['reason']] for r in stat['reasons']
                 if 'p50_ns' in r}
    result(inf == with_hist, 'each histogram\'s +Inf bucket = its reason\'s '
           'exits (%d reasons with a histogram)' % len(inf), show(inf))
    vc = stat_vcpus(stat)
    got = {(l['vm'], l['vcpu']): int(v) for n, l, v in s
           if n == 'hvtrace_vcpu_exits_total'}
    result(got == {k: w['count'] for k, w in vc.items()} and got,
           'exits per vCPU: the exporter\'s = hvctl stat\'s (%d vCPUs)' %
           len(got), repr(got))
    got = {(l['vm'], l['vcpu'], l['state']): ns(v) for n, l, v in s
           if n == 'hvtrace_vcpu_seconds_total'}
    want = {(k[0], k[1], st): w[st + '_ns'] for k, w in vc.items()
            for st in ('guest', 'handling', 'vmm', 'halt', 'runnable',
                       'other')}
    result(got == want, 'each vCPU\'s time by state, to the nanosecond: '
           'the exporter\'s = hvctl stat\'s',
           repr(sorted(set(got.items()) ^ set(want.items()))[:6]))
    irq_waits(s, stat)


IRQ_STATES = ('guest', 'handling', 'vmm', 'halt', 'runnable', 'other')


def irq_waits(s, stat):
    """Each delivery series' time by state, and its states' sum."""
    want, total = {}, {}
    for v in stat['vcpus']:
        for r in v.get('irqs', []):
            if r['guest_ns'] is None:
                continue
            key = (str(v['vm_id']), str(v['vcpu']),
                   'other' if r['vector'] is None else str(r['vector']))
            total[key] = total.get(key, 0) + r['total_ns']
            for st in IRQ_STATES:
                k = key + (st,)
                want[k] = want.get(k, 0) + r[st + '_ns']
    got = {(l['vm'], l['vcpu'], l['vector'], l['state']): ns(v)
           for n, l, v in s if n == 'hvtrace_irq_wait_seconds_total'}
    result(got == want and want, 'each vector\'s delivery time by state, '
           'to the nanosecond: the exporter\'s = hvctl stat\'s (%d series)'
           % len(total), repr(sorted(set(got.items()) ^ set(want.items()))[:6]))
    delivery = {(l['vm'], l['vcpu'], l['vector']): ns(v) for n, l, v in s
                if n == 'hvtrace_irq_delivery_seconds_total'}
    sums = {}
    for k, v in got.items():
        sums[k[:3]] = sums.get(k[:3], 0) + v
    result(sums == total and all(delivery.get(k) == t
                                 for k, t in total.items()),
           'the states add up to each series\' delivery time (%d series)' %
           len(total), repr((sums, total)))


def query(prom, expr, at=None):
    args = {'query': expr}
    if at is not None:
        args['time'] = at
    url = 'http://%s/api/v1/query?%s' % (prom, urllib.parse.urlencode(args))
    d = json.load(urllib.request.urlopen(url, timeout=30))
    if d.get('status') != 'success':
        raise RuntimeError('%s: %r' % (expr, d))
    return d['data']['result']


def one_value(prom, expr, at=None):
    r = query(prom, expr, at)
    return r[0]['value'][1] if len(r) == 1 else None


def cmd_wait(prom, expr, value, secs):
    end = time.monotonic() + float(secs)
    got = None
    while time.monotonic() < end:
        try:
            got = one_value(prom, expr)
        except OSError:
            got = None      # not up yet
        if got == value:
            break
        time.sleep(0.5)
    result(got == value, 'Prometheus: %s = %s' % (expr, value),
           'still %r after %ss' % (got, secs))


def bucket(x, edges):
    """Index of the first edge X is at or below: a histogram's bucket."""
    for i, e in enumerate(edges):
        if x <= e:
            return i
    return len(edges)


def cmd_query(prom, stat_file, pid):
    stat = json.load(open(stat_file))
    want = stat_counts(stat)
    got = {r['metric']['reason']: int(float(r['value'][1]))
           for r in query(prom, 'sum by (reason) (hvtrace_exits_total)')}
    result(got == want, 'PromQL sum by (reason) (hvtrace_exits_total): = '
           'hvctl stat\'s counts (%s)' % show(want), show(got))
    # histogram_quantile() interpolates inside one of the exporter's
    # buckets: the one that holds stat's percentile (its kernel bucket's
    # midpoint), since each edge ends a kernel bucket.
    edges_s = [e / 1e9 for e in EDGES_NS]
    for r in stat['reasons']:
        if 'p50_ns' not in r:
            continue
        for q, key in ((0.5, 'p50_ns'), (0.99, 'p99_ns')):
            expr = ('histogram_quantile(%s, hvtrace_exit_duration_seconds_'
                    'bucket{reason="%s"})' % (q, r['reason']))
            v = float(one_value(prom, expr))
            mine, theirs = bucket(r[key], EDGES_NS), bucket(v, edges_s)
            result(mine == theirs and mine < len(EDGES_NS),
                   '%s %s: histogram_quantile %.9fs, in the bucket of '
                   'hvctl stat\'s %dns (le %s)' % (
                       r['reason'], key[:-3], v, r[key],
                       EDGES_NS[mine] if mine < len(EDGES_NS) else '+Inf'),
                   'bucket %d, not %d' % (theirs, mine))
    vc = {k: w for k, w in stat_vcpus(stat).items() if w['pid'] == pid}
    got = {(r['metric']['vcpu'], r['metric']['state']): ns(r['value'][1])
           for r in query(prom, 'hvtrace_vcpu_seconds_total{pid="%s"}' % pid)}
    want = {(k[1], st): w[st + '_ns'] for k, w in vc.items()
            for st in ('guest', 'handling', 'vmm', 'halt', 'runnable',
                       'other')}
    result(got == want and got, 'PromQL hvtrace_vcpu_seconds_total of VMM '
           '%s: each vCPU\'s time by state, to the nanosecond' % pid,
           repr(sorted(set(got.items()) ^ set(want.items()))[:6]))


def rfc3339(ms):
    """A time in milliseconds since the epoch, exactly, for the HTTP API."""
    return time.strftime('%Y-%m-%dT%H:%M:%S', time.gmtime(ms // 1000)) + \
        '.%03dZ' % (ms % 1000)


# The exporter's EXPORTER_BODY_MS, and 10 ms for Prometheus's scrape
# times (aligned to the interval within 2 ms) and the clock's reading.
BODY_S = 1.01
STATES = ('guest', 'handling', 'vmm', 'halt', 'runnable', 'other')


def cmd_rates(prom, file_a, file_b, pid, t_a, t_b):
    """rate(X[W]) at time E is (X(E) - X(E - W)) / W exactly when samples
    lie on both ends of the window: nothing is extrapolated (Prometheus
    2's windows hold both ends; 3's leave the start out). The window
    runs from the first scrape whose body was made after stat A (read
    before T_A) to the first after stat B (T_B): the exporter answers
    with a body up to EXPORTER_BODY_MS (1 s) old, so scrapes more than
    BODY_S after. The checks that the samples at its ends are A's and
    B's show no exit came between. A series born inside the window
    (a reason's first exit) has no sample at its start: rate() cannot
    count its first value, so such reasons are only named."""
    a, b = json.load(open(file_a)), json.load(open(file_b))
    ts = []
    for _ in range(60):
        ts = [float(t) for t, _ in
              query(prom, 'hvtrace_up[5m]')[0]['values']]
        if ts and ts[-1] > float(t_b) + BODY_S:
            break
        time.sleep(0.5)
    after = [t for t in ts if t > float(t_a) + BODY_S]
    last = [t for t in after if t > float(t_b) + BODY_S]
    if not after or not last:
        result(False, 'scrapes after stat A and after stat B', repr(ts[-5:]))
        return
    # Whole milliseconds, as Prometheus keeps them, and times in RFC 3339:
    # it reads "302.225" as 302.224999999 s, a millisecond short.
    t0, t1 = round(after[0] * 1000), round(last[0] * 1000)
    start, end = rfc3339(t0), rfc3339(t1)
    ms = t1 - t0
    win = ms / 1000
    va = {k: w for k, w in stat_vcpus(a).items() if w['pid'] == pid}
    vb = {k: w for k, w in stat_vcpus(b).items() if w['pid'] == pid}
    for at, v, name in ((start, va, 'A'), (end, vb, 'B')):
        got = {r['metric']['vcpu']: int(float(r['value'][1])) for r in query(
            prom, 'hvtrace_vcpu_exits_total{pid="%s"}' % pid, at)}
        want = {k[1]: w['count'] for k, w in v.items()}
        result(got == want and got, 'Prometheus at %s = hvctl stat %s: '
               'exits per vCPU of VMM %s (%s)' % (at, name, pid, want),
               repr(got))
    exits = sum(w['count'] for w in vb.values()) - \
        sum(w['count'] for w in va.values())
    got = round(float(one_value(prom, 'sum(rate(hvtrace_vcpu_exits_total'
                                '{pid="%s"}[%dms]))' % (pid, ms), end)) * win)
    result(got == exits and exits > 0, 'rate(hvtrace_vcpu_exits_total[%dms]) '
           'of VMM %s, times the window: hvctl stat\'s exits between A and '
           'B (%d)' % (ms, pid, exits), str(got))
    # Only VMM PID ran between A and B: hvctl stat's reasons are its.
    delta = {r: n - stat_counts(a).get(r, 0)
             for r, n in stat_counts(b).items()}
    there = {r['metric']['reason'] for r in query(
        prom, 'hvtrace_exits_total{pid="%s"}' % pid, start)}
    got = {r['metric']['reason']: round(float(r['value'][1]) * win)
           for r in query(prom, 'sum by (reason) (rate(hvtrace_exits_to'
                          'tal{pid="%s"}[%dms]))' % (pid, ms), end)}
    want = {r: n for r, n in delta.items() if r in there}
    got = {r: n for r, n in got.items() if r in there}
    new = sorted(r for r, n in delta.items() if n and r not in there)
    result(got == want and want.get('CPUID') == 400 and want.get('HLT'),
           'rate(hvtrace_exits_total[%dms]) of VMM %s, times the window, per '
           'reason: hvctl stat\'s exits between A and B (%s; born inside: '
           '%s)' % (ms, pid, show(want), ', '.join(new) or 'none'), show(got))
    d = {st: sum(vb[k][st + '_ns'] - va[k][st + '_ns'] for k in vb)
         for st in STATES}
    got = {r['metric']['state']: round(float(r['value'][1]) * win * 1e9)
           for r in query(prom, 'sum by (state) (rate(hvtrace_vcpu_seconds'
                          '_total{pid="%s"}[%dms]))' % (pid, ms), end)}
    result(got == d, 'rate(hvtrace_vcpu_seconds_total[%dms]) by state, '
           'times the window: hvctl stat\'s time between A and B, to the '
           'nanosecond (%s)' % (ms, show(d)), show(got))
    total = sum(d.values())
    expr = ('sum by (state) (rate(hvtrace_vcpu_seconds_total{pid="%s"}[%dms]))'
            ' / ignoring (state) group_left sum (rate(hvtrace_vcpu_seconds_'
            'total{pid="%s"}[%dms]))' % (pid, ms, pid, ms))
    got = {r['metric']['state']: float(r['value'][1])
           for r in query(prom, expr, end)}
    off = {st: (got.get(st), d[st] / total) for st in STATES
           if got.get(st) is None or abs(got[st] - d[st] / total) > 1e-9}
    result(not off and total > 0, 'each state\'s share of the vCPU time, '
           'PromQL over rate(): hvctl stat\'s to 1e-9 (%s)' % ', '.join(
               '%s %.6f' % (st, d[st] / total) for st in STATES), repr(off))


def main(argv):
    cmds = {'scrape': (cmd_scrape, 2), 'exits': (cmd_exits, 2),
            'wait': (cmd_wait, 4), 'query': (cmd_query, 3),
            'rates': (cmd_rates, 6)}
    if argv[:1] == ['value'] and len(argv) == 3:
        print(one_value(argv[1], argv[2]))
        return 0
    if not argv or argv[0] not in cmds or len(argv) != cmds[argv[0]][1] + 1:
        print(__doc__, file=sys.stderr)
        return 2
    cmds[argv[0]][0](*argv[1:])
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
