// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report: the late interrupts of a trace (HVTRACE_EV_IRQ), no
 * exits, apart from every exit's table. The longest are kept whole, an
 * exact top list in fixed memory (a min-heap of REP_MAX_IRQS: a record
 * shorter than all of them is only counted); per (vCPU, vector) their
 * count, time and split sum up in a table of fixed capacity, whose other
 * row takes the keys it has no room for.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

/* The engine itself (or its test): its private state. */
#define HVCTL_REPORT_ENGINE
#include "report_engine.h"

#define IRQ_ROWS_BITS	12	/* 3072 (vCPU, vector) rows */

int rep_irq_init(struct report *rep)
{
	struct rep_irq_state *s = &rep->irq;

	s->bits = IRQ_ROWS_BITS;
	s->limit = (1U << IRQ_ROWS_BITS) / 4 * 3;
	s->heap = calloc(REP_MAX_IRQS, sizeof(*s->heap));
	s->rows = calloc(1U << IRQ_ROWS_BITS, sizeof(*s->rows));
	s->order = calloc(1U << IRQ_ROWS_BITS, sizeof(*s->order));
	return s->heap && s->rows && s->order ? 0 : -1;
}

void rep_irq_free(struct report *rep)
{
	free(rep->irq.heap);
	free(rep->irq.rows);
	free(rep->irq.order);
}

size_t rep_irq_memory(const struct report *rep)
{
	return REP_MAX_IRQS * sizeof(*rep->irq.heap) +
	       ((sizeof(*rep->irq.rows) + sizeof(*rep->irq.order))
		<< rep->irq.bits);
}

/*
 * A before B in the list: longer, then raised earlier, then by VM, vCPU
 * and vector, so the kept set and its order hang on nothing else.
 */
static bool irq_before(const struct rep_irq *a, const struct rep_irq *b)
{
	if (a->ns != b->ns)
		return a->ns > b->ns;
	if (a->ts_ns != b->ts_ns)
		return a->ts_ns < b->ts_ns;
	if (a->vm_id != b->vm_id)
		return a->vm_id < b->vm_id;
	if (a->vcpu_id != b->vcpu_id)
		return a->vcpu_id < b->vcpu_id;
	return a->vector < b->vector;
}

/* The record's late interrupt; the trace's time is its injection. */
static void irq_of(struct rep_irq *q, const struct trace_event *ev)
{
	const struct trace_record *x = &ev->e;
	uint64_t rest = x->duration_ns;

	*q = (struct rep_irq){
		.ts_ns = trace_exit_ns(ev), .ns = x->duration_ns,
		.guest_ns = x->guest_ns, .preempt_pid = x->preempt_pid,
		.preempt_vcpu = x->flags & HVTRACE_EVF_PREEMPT_VCPU,
		.preempt_ns = x->preempt_ns, .vm_id = x->vm_id,
		.vm_pid = x->vm_pid, .vcpu_id = x->vcpu_id, .tid = x->tid,
		.source = x->info1, .exit_reason = x->info2,
		.cpu = x->cpu_entry, .vector = x->reason, .isa = x->isa,
	};
	/* Handling is what the guest and the parts leave, never below 0. */
	rest = rest > x->guest_ns ? rest - x->guest_ns : 0;
	for (int i = 0; i < HVTRACE_NR_PARTS; i++) {
		q->part_ns[REP_VMM + i] = x->part_ns[i];
		rest = rest > x->part_ns[i] ? rest - x->part_ns[i] : 0;
	}
	q->part_ns[REP_HANDLING] = rest;
	if (x->preempt_pid)
		trace_comm(x, q->preempt_comm);
}

/* Heap order: the root is the one every other is before. */
static void sift_down(struct rep_irq *h, unsigned int n, unsigned int i)
{
	for (;;) {
		unsigned int l = 2 * i + 1, r = l + 1, last = i;
		struct rep_irq t;

		if (l < n && irq_before(&h[last], &h[l]))
			last = l;
		if (r < n && irq_before(&h[last], &h[r]))
			last = r;
		if (last == i)
			return;
		t = h[i];
		h[i] = h[last];
		h[last] = t;
		i = last;
	}
}

static void sift_up(struct rep_irq *h, unsigned int i)
{
	while (i) {
		unsigned int up = (i - 1) / 2;
		struct rep_irq t;

		if (!irq_before(&h[up], &h[i]))
			return;
		t = h[i];
		h[i] = h[up];
		h[up] = t;
		i = up;
	}
}

static void keep(struct rep_irq_state *s, const struct rep_irq *q)
{
	if (s->kept < REP_MAX_IRQS) {
		s->heap[s->kept] = *q;
		sift_up(s->heap, s->kept++);
	} else if (irq_before(q, &s->heap[0])) {
		s->heap[0] = *q;
		sift_down(s->heap, s->kept, 0);
	}
}

/* The row of Q's (vCPU, vector), or NULL when the table is full. */
static struct rep_irq_row *row_of(struct rep_irq_state *s,
				  const struct rep_irq *q)
{
	unsigned int mask = (1U << s->bits) - 1;
	uint64_t key = (uint64_t)q->vm_id << 32 | q->vcpu_id;
	unsigned int i = rep_hash64(rep_hash64(key) ^ q->vector) >>
			 (64 - s->bits);
	struct rep_irq_row *r;

	for (;; i = (i + 1) & mask) {
		r = &s->rows[i];
		if (!r->used)
			break;
		if (r->vm_id == q->vm_id && r->vcpu_id == q->vcpu_id &&
		    r->vector == q->vector)
			return r;
	}
	if (s->used >= s->limit)
		return NULL;
	s->used++;
	*r = (struct rep_irq_row){
		.vm_id = q->vm_id, .vm_pid = q->vm_pid, .vcpu_id = q->vcpu_id,
		.vector = q->vector, .used = true,
	};
	return r;
}

static void row_add(struct rep_irq_row *r, const struct rep_irq *q)
{
	r->sources |= q->source;
	r->count++;
	r->total_ns += q->ns;
	if (q->ns > r->max_ns)
		r->max_ns = q->ns;
	r->guest_ns += q->guest_ns;
	for (int i = 0; i < REP_NR_PARTS; i++)
		r->part_ns[i] += q->part_ns[i];
}

void rep_irq_add(struct report *rep, const struct trace_event *ev)
{
	struct rep_irq_state *s = &rep->irq;
	struct rep_irq_row *r;
	struct rep_irq q;

	/* The second pass recounts exits' tables only. */
	if (rep->passes > 1)
		return;
	irq_of(&q, ev);
	s->count++;
	s->total_ns += q.ns;
	if (q.ns > s->max_ns)
		s->max_ns = q.ns;
	keep(s, &q);
	r = row_of(s, &q);
	row_add(r ? r : &s->other, &q);
}

static int by_rank(const void *a, const void *b)
{
	const struct rep_irq *x = a, *y = b;

	return irq_before(x, y) ? -1 : irq_before(y, x);
}

/* Total time, then count, then VM, vCPU and vector. */
static int by_row_time(const void *a, const void *b)
{
	const struct rep_irq_row *x = *(const struct rep_irq_row *const *)a;
	const struct rep_irq_row *y = *(const struct rep_irq_row *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->vm_id != y->vm_id)
		return x->vm_id < y->vm_id ? -1 : 1;
	if (x->vcpu_id != y->vcpu_id)
		return x->vcpu_id < y->vcpu_id ? -1 : 1;
	return x->vector < y->vector ? -1 : x->vector > y->vector;
}

void rep_irq_finish(struct report *rep)
{
	struct rep_irq_state *s = &rep->irq;
	unsigned int n = 0;

	/* No record comes after this: the heap becomes the list. */
	qsort(s->heap, s->kept, sizeof(*s->heap), by_rank);
	for (unsigned int i = 0; i < (1U << s->bits); i++)
		if (s->rows[i].used)
			s->order[n++] = &s->rows[i];
	qsort(s->order, n, sizeof(*s->order), by_row_time);
}

void report_irqs(const struct report *rep, struct rep_irqs *irqs)
{
	const struct rep_irq_state *s = &rep->irq;

	*irqs = (struct rep_irqs){
		.count = s->count, .total_ns = s->total_ns,
		.max_ns = s->max_ns, .longest = s->heap, .kept = s->kept,
		.rows = s->order, .nr_rows = s->used, .limit = s->limit,
		.other = &s->other,
	};
}
