#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""hvtrace's late interrupt records against the kernel's own tracing
(e2e 37).

usage: irq_records.py FTRACE DUMP THRESHOLD_NS SLACK_NS START VECTOR TID

FTRACE is the text of tracefs's trace: the vCPU's interrupts of VECTOR
injected (kvm_inj_virq, soft ones filtered out) and their starts, START
being "timer" (hrtimer_expire_entry of apic_timer_fn: a LAPIC timer's
expiry) or "local" (kvm_apic_accept_irq of VECTOR: KVM's raise). DUMP is
`hvctl dump --format json` of the trace: one event a line.

From ftrace, each delivery is a start, its first injection (the next
one not reinjected) and the reinjections that follow it; hvtrace
records it at the first of those injections THRESHOLD_NS or more after
the start, once. A delivery whose crossing is within SLACK_NS of the
threshold (ftrace's clock against hvtrace's, ftrace's microseconds) may
be recorded or not; every other one must be exactly as ftrace says:
recorded, in order, its duration within SLACK_NS of ftrace's; or not.
Prints the pairs; exits 1 naming the first disagreement.
"""
import json
import re
import sys

START_RE = {
	'timer': re.compile(r'hrtimer_expire_entry:.*function=apic_timer_fn'),
	'local': None,	# set below: depends on VECTOR
}
TS_RE = re.compile(r'\s(\d+)\.(\d{6}):\s')
INJ_RE = re.compile(r'kvm_inj_virq: IRQ 0x([0-9a-f]+)( \[reinjected\])?')


def ftrace_events(path, start_re, vector):
	"""(ts_ns, kind) in time order: kind 's' a start, 'i' an
	injection, 'r' a reinjection."""
	ev = []
	for line in open(path):
		m = TS_RE.search(line)
		if not m:
			continue
		ts = int(m.group(1)) * 1000000000 + int(m.group(2)) * 1000
		i = INJ_RE.search(line)
		if i and int(i.group(1), 16) == vector:
			ev.append((ts, 'r' if i.group(2) else 'i'))
		elif start_re.search(line):
			ev.append((ts, 's'))
	return sorted(ev)


def deliveries(ev):
	"""Each start's injections: [start, [injection times]], the first
	one's and its reinjections (a start with none is left out)."""
	out, cur = [], None
	for ts, kind in ev:
		if kind == 's':
			cur = [ts, []]
			out.append(cur)
		elif cur is None:
			continue
		elif kind == 'i' and cur[1]:
			cur = None	# a second injection: not this start's
		else:
			cur[1].append(ts)
	return [d for d in out if d[1]]


def main():
	ftrace, dump, thr, slack, start, vector, tid = sys.argv[1:8]
	thr, slack, vector = int(thr), int(slack), int(vector)
	start_re = START_RE[start] or re.compile(
		r'kvm_apic_accept_irq:.* vec %d ' % vector)
	recs = [e for e in (json.loads(l) for l in open(dump) if l.strip())
		if e['type'] == 'irq']
	recs.sort(key=lambda e: e['ts_ns'])
	for e in recs:
		if e['vector'] != vector or e['tid'] != int(tid):
			sys.exit('a record not of vector %d of thread %s: %s' %
				 (vector, tid, json.dumps(e)))
	refs = []
	for s, inj in deliveries(ftrace_events(ftrace, start_re, vector)):
		late = [t - s for t in inj if t - s >= thr - slack]
		if late:
			refs.append((s, late, late[0] < thr + slack))
	k = 0
	for s, late, maybe in refs:
		# Near the threshold: its first injection past it, or a
		# reinjection's (hvtrace found the first below).
		r = recs[k] if k < len(recs) else None
		lat = [x for x in (late if maybe else late[:1])
		       if r and abs(r['duration_ns'] - x) <= slack]
		if lat:
			print('  ftrace: raised %d, %d ns late; hvtrace %d ns' %
			      (s, lat[0], r['duration_ns']))
			k += 1
		elif not maybe:
			lat = late
			sys.exit('ftrace: raised at %d, injected %d ns late: '
				 'hvtrace has no such record (next: %s)' %
				 (s, lat[0], json.dumps(r)))
	if k != len(recs):
		sys.exit('hvtrace: %d records ftrace has no delivery for, '
			 'the first: %s' % (len(recs) - k, json.dumps(recs[k])))
	print('  %d late interrupts as ftrace (%d near the threshold)' %
	      (k, sum(1 for r in refs if r[2])))


main()
