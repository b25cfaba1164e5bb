// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report: who kept vCPU threads off their CPUs. Two fixed tables,
 * allocated with the report: the preemptors (by pid), counted from the
 * preemption records and from the preemptor each exit notes; and the
 * noted time per (report row, preemptor), from which every row of the
 * reason, vCPU, RIP, page, hot-spot, port and MSR tables learns the task
 * that ran most while its exits waited.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

/* The engine itself (or its test): its private state. */
#define HVCTL_REPORT_ENGINE
#include "report_engine.h"

#define PREEMPTORS_BITS	12	/* 3072 tasks */
#define BLAME_BITS	16	/* 49152 (row, task) pairs */
#define BLAME_USED	(1ULL << 63)

int rep_preempt_init(struct report *rep)
{
	rep->pre.bits = PREEMPTORS_BITS;
	rep->pre.limit = (1U << PREEMPTORS_BITS) / 4 * 3;
	rep->pre.e = calloc(1U << PREEMPTORS_BITS, sizeof(*rep->pre.e));
	rep->blame.bits = BLAME_BITS;
	rep->blame.limit = (1U << BLAME_BITS) / 4 * 3;
	rep->blame.e = calloc(1U << BLAME_BITS, sizeof(*rep->blame.e));
	rep->pre_order = calloc(1U << PREEMPTORS_BITS, sizeof(*rep->pre_order));
	return rep->pre.e && rep->blame.e && rep->pre_order ? 0 : -1;
}

void rep_preempt_free(struct report *rep)
{
	free(rep->pre.e);
	free(rep->blame.e);
	free(rep->pre_order);
}

size_t rep_preempt_memory(const struct report *rep)
{
	return ((sizeof(*rep->pre.e) + sizeof(*rep->pre_order)) <<
		rep->pre.bits) +
	       ((size_t)sizeof(*rep->blame.e) << rep->blame.bits);
}

/* The task's slot (named from X the first time), or NULL when full. */
static struct rep_preemptor *preemptor(struct rep_preemptors *t,
				       const struct trace_record *x)
{
	unsigned int mask = (1U << t->bits) - 1;
	unsigned int i = rep_hash64(x->preempt_pid) >> (64 - t->bits);
	struct rep_preemptor *p;

	for (;; i = (i + 1) & mask) {
		p = &t->e[i];
		if (!p->used)
			break;
		if (p->pid == x->preempt_pid)
			return p;
	}
	if (t->used >= t->limit)
		return NULL;
	t->used++;
	p->used = true;
	p->pid = x->preempt_pid;
	trace_comm(x, p->comm);
	p->vcpu = x->flags & HVTRACE_EVF_PREEMPT_VCPU;
	return p;
}

void rep_preempt_record(struct report *rep, const struct trace_record *x)
{
	struct rep_preemptor *p = preemptor(&rep->pre, x);

	if (!p)
		p = &rep->pre.other;
	p->records++;
	p->stall_ns += x->duration_ns;
	p->ran_ns += x->preempt_ns;
	rep->pre.records++;
	rep->pre.stall_ns += x->duration_ns;
}

static void blame(struct rep_blame *b, unsigned int kind, uint64_t key,
		  uint64_t ns)
{
	unsigned int mask = (1U << b->bits) - 1;
	unsigned int i = rep_hash64(key) >> (64 - b->bits);
	struct rep_blame_entry *e;

	key |= BLAME_USED;
	for (;; i = (i + 1) & mask) {
		e = &b->e[i];
		if (!e->key)
			break;
		if (e->key == key) {
			e->ns += ns;
			return;
		}
	}
	if (b->used >= b->limit) {
		b->lost++;
		b->lost_kind[kind]++;
		b->lost_ns += ns;
		return;
	}
	b->used++;
	b->kinds |= 1U << kind;
	e->key = key;
	e->ns = ns;
}

void rep_preempt_noted(struct report *rep, const struct trace_record *x,
		       const uint32_t *rows)
{
	struct rep_preemptor *p = preemptor(&rep->pre, x);
	uint64_t who;

	rep->pre.noted++;
	rep->pre.noted_ns += x->preempt_ns;
	if (!p) {
		rep->pre.other.noted++;
		rep->pre.other.noted_ns += x->preempt_ns;
		return;
	}
	p->noted++;
	p->noted_ns += x->preempt_ns;
	who = p - rep->pre.e;
	for (unsigned int k = 0; k < REP_NR_ROW_KINDS; k++)
		if (rows[k] != UINT32_MAX)
			blame(&rep->blame, k, (uint64_t)k << 56 |
			      (uint64_t)rows[k] << 24 | who, x->preempt_ns);
}

void rep_preempt_blame(struct report *rep, const struct trace_record *x,
		       const uint32_t *rows)
{
	/* Pass one placed every task it could: nothing new is counted. */
	struct rep_preemptor *p = preemptor(&rep->pre, x);
	uint64_t who;

	if (!p)
		return;
	who = p - rep->pre.e;
	for (unsigned int k = 0; k < REP_NR_ROW_KINDS; k++)
		if (rows[k] != UINT32_MAX)
			blame(&rep->blame, k, (uint64_t)k << 56 |
			      (uint64_t)rows[k] << 24 | who, x->preempt_ns);
}

/* Empty B, then put back the N entries of KEEP (their keys may be new). */
static void blame_refill(struct rep_blame *b,
			 const struct rep_blame_entry *keep, unsigned int n)
{
	unsigned int cap = 1U << b->bits;

	memset(b->e, 0, cap * sizeof(*b->e));
	b->used = 0;
	b->kinds = 0;
	for (unsigned int i = 0; i < n; i++) {
		unsigned int j = rep_hash64(keep[i].key & ~BLAME_USED) >>
				 (64 - b->bits);

		while (b->e[j].key)
			j = (j + 1) & (cap - 1);
		b->e[j] = keep[i];
		b->used++;
		b->kinds |= 1U << (keep[i].key >> 56 & 0x7f);
	}
}

void rep_preempt_forget(struct report *rep, const bool *kinds)
{
	struct rep_blame *b = &rep->blame;
	struct rep_blame_entry *keep = (struct rep_blame_entry *)rep->order;
	unsigned int n = 0, cap = 1U << b->bits;

	_Static_assert(sizeof(*keep) <= 2 * sizeof(*rep->order),
		       "the sorting space holds the blame table");
	for (unsigned int i = 0; i < cap; i++) {
		uint64_t key = b->e[i].key;

		if (key && !kinds[key >> 56 & 0x7f])
			keep[n++] = b->e[i];
	}
	blame_refill(b, keep, n);
	for (unsigned int k = 0; k < REP_NR_ROW_KINDS; k++) {
		if (!kinds[k])
			continue;
		b->lost -= b->lost_kind[k];
		b->lost_kind[k] = 0;
	}
}

void rep_preempt_moved(struct report *rep, unsigned int kind,
		       const uint32_t *moved)
{
	struct rep_blame *b = &rep->blame;
	struct rep_blame_entry *keep = (struct rep_blame_entry *)rep->order;
	unsigned int n = 0, cap = 1U << b->bits;

	if (!(b->kinds & 1U << kind))
		return;
	for (unsigned int i = 0; i < cap; i++) {
		struct rep_blame_entry e = b->e[i];
		uint32_t row;

		if (!e.key)
			continue;
		if ((e.key >> 56 & 0x7f) == kind) {
			row = moved[(uint32_t)(e.key >> 24)];
			if (row == UINT32_MAX)
				continue;
			e.key = (e.key & ~(0xffffffffULL << 24)) |
				(uint64_t)row << 24;
		}
		keep[n++] = e;
	}
	blame_refill(b, keep, n);
}

/* The split of row ROW of KIND, NULL when the row has none. */
static struct rep_split *row_split(struct report *rep, unsigned int kind,
				   uint32_t row)
{
	struct rep_table *t;

	if (kind == REP_ROW_REASON)
		return row <= REP_MAX_REASONS ? &rep->reasons[row].split : NULL;
	if (kind >= REP_NR_ROW_KINDS || !rep->row_table[kind])
		return NULL;
	t = rep->row_table[kind];
	return row < rep_table_cap(t) ? &t->split[row] : NULL;
}

static bool pid_before(const struct report *rep, uint32_t a, uint32_t b)
{
	return rep->pre.e[a].pid < rep->pre.e[b].pid;
}

void rep_preempt_finish(struct report *rep)
{
	struct rep_split *all = &rep->all_split;

	/* The whole trace's: the task noted for the most time. */
	for (unsigned int i = 0; i < (1U << rep->pre.bits); i++) {
		const struct rep_preemptor *p = &rep->pre.e[i];

		if (p->used && p->noted &&
		    (!all->top || p->noted_ns > all->top_ns ||
		     (p->noted_ns == all->top_ns &&
		      p->pid < rep->pre.e[all->top - 1].pid))) {
			all->top = i + 1;
			all->top_ns = p->noted_ns;
		}
	}
	for (unsigned int i = 0; i < (1U << rep->blame.bits); i++) {
		const struct rep_blame_entry *e = &rep->blame.e[i];
		uint32_t who = e->key & 0xffffff;
		struct rep_split *s;

		if (!e->key)
			continue;
		s = row_split(rep, e->key >> 56 & 0x7f,
			      (uint32_t)(e->key >> 24));
		if (!s)
			continue;
		/* Equal time: the lower pid, so the report is stable. */
		if (!s->top || e->ns > s->top_ns ||
		    (e->ns == s->top_ns && pid_before(rep, who, s->top - 1))) {
			s->top = who + 1;
			s->top_ns = e->ns;
		}
	}
}

const struct rep_preemptor *rep_preemptor_at(const struct report *rep,
					     uint32_t top)
{
	return top && top <= (1U << rep->pre.bits) && rep->pre.e[top - 1].used ?
	       &rep->pre.e[top - 1] : NULL;
}

static int by_stall(const void *a, const void *b)
{
	const struct rep_preemptor *x = *(const struct rep_preemptor *const *)a;
	const struct rep_preemptor *y = *(const struct rep_preemptor *const *)b;

	if (x->stall_ns != y->stall_ns)
		return x->stall_ns < y->stall_ns ? 1 : -1;
	if (x->noted_ns != y->noted_ns)
		return x->noted_ns < y->noted_ns ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

unsigned int rep_preemptors_sort(const struct report *rep,
				 const struct rep_preemptor **out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < (1U << rep->pre.bits); i++)
		if (rep->pre.e[i].used)
			out[n++] = &rep->pre.e[i];
	qsort(out, n, sizeof(*out), by_stall);
	return n;
}

unsigned int rep_preemptors_sorted(const struct report *rep)
{
	return rep_preemptors_sort(rep, rep->pre_order);
}

int rep_pre_iter_start(struct rep_pre_iter *it, const struct report *rep)
{
	it->pos = it->n = 0;
	it->order = calloc(rep->pre.used ? rep->pre.used : 1,
			   sizeof(*it->order));
	if (!it->order)
		return -1;
	it->n = rep_preemptors_sort(rep, it->order);
	return 0;
}

const struct rep_preemptor *rep_pre_iter_next(struct rep_pre_iter *it)
{
	return it->pos < it->n ? it->order[it->pos++] : NULL;
}

void rep_pre_iter_end(struct rep_pre_iter *it)
{
	free(it->order);
	it->order = NULL;
	it->n = it->pos = 0;
}
