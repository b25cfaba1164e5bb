// SPDX-License-Identifier: GPL-2.0
/*
 * A vCPU's interrupt delivery counts (irq.h): a row per vector, the
 * baseline at a clear, the rows as the uapi has them. No KVM here: the
 * probes are in probe_irq.c.
 */
#include <linux/atomic.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>

#include "irq.h"
#include "stats.h"
#include "vcpu_time.h"

/* VEC's row in IRQS: its own, a free one, or the rest's. */
static struct hvt_irq_row *irq_row(struct hvt_vcpu_irqs *irqs, u8 vec)
{
	struct hvt_irq_row *r;

	for (r = irqs->row; r < irqs->row + HVTRACE_VCPU_IRQ_VECTORS; r++) {
		if (r->vector == vec)
			return r;
		if (!r->vector) {
			r->vector = vec;
			return r;
		}
	}
	return r;
}

unsigned int hvt_irq_count(struct hvt_vcpu_irqs *irqs, u8 vec, u64 ns,
			   u8 source)
{
	struct hvt_irq_row *r = irq_row(irqs, vec);

	r->count++;
	r->total_ns += ns;
	if (ns > r->max_ns)
		r->max_ns = ns;
	r->flags |= source;
	return r - irqs->row;
}

/*
 * Row R's time from FROM to NOW: where the vCPU's thread was (S), in W;
 * its runnable time and who ran most of it if it is the row's longest
 * runnable wait since the clear (pre_pid 0: nobody known).
 */
static void irq_split(struct hvt_irq_row *r, const struct hvt_split *s,
		      u64 from, u64 now, struct hvt_window *w)
{
	unsigned int i;

	hvt_time_window(s, from, now, w);
	r->guest_ns += w->guest_ns;
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		r->part_ns[i] += w->part[i];
	/* The row's longest runnable wait, whoever is known to have run. */
	if (w->part[HVTRACE_PART_RUNNABLE] > r->pre_ns) {
		r->pre_ns = w->part[HVTRACE_PART_RUNNABLE];
		r->pre_pid = w->pre_pid;
		r->pre_flags = w->pre_flags;
		memcpy(r->pre_comm, w->pre_comm, TASK_COMM_LEN);
	}
}

/* A delivery's split W grows by MORE, its extension's. */
static void window_extend(struct hvt_window *w, const struct hvt_window *more)
{
	unsigned int i;

	w->guest_ns += more->guest_ns;
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		w->part[i] += more->part[i];
	if (more->pre_pid && more->pre_ns > w->pre_ns) {
		w->pre_ns = more->pre_ns;
		w->pre_pid = more->pre_pid;
		w->pre_flags = more->pre_flags;
		memcpy(w->pre_comm, more->pre_comm, TASK_COMM_LEN);
	}
}

/* A delivery into bucket I of row histogram B; a full bucket halves B. */
static void irq_hist_add(u32 *b, unsigned int i)
{
	unsigned int k;

	if (unlikely(b[i] == U32_MAX))
		for (k = 0; k < HVT_IRQ_HIST_BUCKETS; k++)
			b[k] /= 2;
	b[i]++;
}

/*
 * The delivery in F took until NOW: its row's time runs on, and it moves
 * to its new time's bucket if it is in the histogram (not counted before
 * the histogram's restart at a clear). False if it did not grow.
 */
static bool irq_extend(struct hvt_vcpu_irqs *irqs, struct hvt_irq_hist *h,
		       struct hvt_irq_inflight *f, u64 now,
		       const struct hvt_split *s)
{
	struct hvt_irq_row *r = &irqs->row[f->row];
	u64 from = hvt_irq_stamp_ts(f->stamp);
	u64 ns = hvt_since(now, from);
	struct hvt_window more;

	if (ns <= f->ns)
		return false;
	r->total_ns += ns - f->ns;
	if (ns > r->max_ns)
		r->max_ns = ns;
	irq_split(r, s, from + f->ns, now, &more);
	window_extend(&f->win, &more);
	if (f->in_hist) {
		u32 *b = h->n[f->row];
		unsigned int old = hvt_irq_hist_index(f->ns);

		/* A halving since may have emptied its bucket. */
		if (b[old])
			b[old]--;
		irq_hist_add(b, hvt_irq_hist_index(ns));
	}
	f->ns = ns;
	return true;
}

bool hvt_irq_inject(struct hvt_vcpu_irqs *irqs, struct hvt_irq_hist *h,
		    struct hvt_irq_inflight *f, u64 *raised, unsigned int vec,
		    bool reinjected, u64 now, const struct hvt_split *s)
{
	u64 stamp, ns;

	if (reinjected) {
		irqs->reinjected++;
		return f->stamp && f->vector == vec &&
		       irq_extend(irqs, h, f, now, s);
	}
	f->stamp = 0;
	f->late = false;
	f->recorded = false;
	/* Vectors 0-15 are never raised so (ExtINT from a PIC may be). */
	stamp = vec < 16 ? 0 : xchg(&raised[vec], 0);
	ns = stamp ? hvt_since(now, hvt_irq_stamp_ts(stamp)) : 0;
	if (!stamp || ns >= HVT_IRQ_STALE_NS) {
		irqs->unmatched++;
		return false;
	}
	f->row = hvt_irq_count(irqs, vec, ns, hvt_irq_stamp_source(stamp));
	irq_split(&irqs->row[f->row], s, hvt_irq_stamp_ts(stamp), now,
		  &f->win);
	irq_hist_add(h->n[f->row], hvt_irq_hist_index(ns));
	f->in_hist = true;
	f->stamp = stamp;
	f->ns = ns;
	f->vector = vec;
	return true;
}

void hvt_irqs_since_clear(struct hvt_vcpu_irqs *out,
			  const struct hvt_vcpu_irqs *stat,
			  const struct hvt_vcpu_irqs *base)
{
	unsigned int i, p;

	for (i = 0; i < HVT_IRQ_ROWS; i++) {
		const struct hvt_irq_row *s = &stat->row[i], *b = &base->row[i];
		struct hvt_irq_row *o = &out->row[i];

		o->vector = s->vector;
		o->count = hvt_sub_floor0(s->count, b->count);
		o->total_ns = hvt_sub_floor0(s->total_ns, b->total_ns);
		o->guest_ns = hvt_sub_floor0(s->guest_ns, b->guest_ns);
		for (p = 0; p < HVTRACE_NR_PARTS; p++)
			o->part_ns[p] = hvt_sub_floor0(s->part_ns[p],
						       b->part_ns[p]);
		/* Started again at the clear, as the sources. */
		o->max_ns = s->max_ns;
		o->flags = s->flags;
		o->pre_ns = s->pre_ns;
		o->pre_pid = s->pre_pid;
		o->pre_flags = s->pre_flags;
		memmove(o->pre_comm, s->pre_comm, TASK_COMM_LEN);	/* OUT may be STAT */
	}
	out->unmatched = hvt_sub_floor0(stat->unmatched, base->unmatched);
	out->reinjected = hvt_sub_floor0(stat->reinjected, base->reinjected);
	atomic64_set(&out->posted,
		     hvt_sub_floor0(atomic64_read(&stat->posted),
				    atomic64_read(&base->posted)));
}

void hvt_irqs_restart(struct hvt_vcpu_irqs *irqs)
{
	unsigned int i;

	for (i = 0; i < HVT_IRQ_ROWS; i++) {
		irqs->row[i].max_ns = 0;
		irqs->row[i].flags = 0;
		irqs->row[i].pre_ns = 0;
		irqs->row[i].pre_pid = 0;
	}
}

unsigned int hvt_irqs_rows(const struct hvt_vcpu_irqs *irqs,
			   struct hvtrace_vcpu_irq *out)
{
	unsigned int i, n = 0;

	for (i = 0; i < HVT_IRQ_ROWS; i++) {
		const struct hvt_irq_row *r = &irqs->row[i];

		if (!r->count)
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		out[n].vector = i < HVTRACE_VCPU_IRQ_VECTORS ? r->vector : 0;
		out[n].flags = r->flags |
			       (i < HVTRACE_VCPU_IRQ_VECTORS ?
				0 : HVTRACE_VCPU_IRQ_OTHER);
		out[n].count = r->count;
		out[n].total_ns = r->total_ns;
		out[n].max_ns = r->max_ns;
		n++;
	}
	return n;
}

void hvt_irqs_split(const struct hvt_vcpu_irqs *irqs,
		    struct hvtrace_vcpu_irq_split *out)
{
	const struct hvt_irq_row *r;

	for (r = irqs->row; r < irqs->row + HVT_IRQ_ROWS; r++) {
		if (!r->count)
			continue;
		memset(out, 0, sizeof(*out));
		out->guest_ns = r->guest_ns;
		memcpy(out->part_ns, r->part_ns, sizeof(out->part_ns));
		out->pre_ns = r->pre_ns;
		out->pre_pid = r->pre_pid;
		out->pre_flags = r->pre_flags;
		memcpy(out->pre_comm, r->pre_comm, sizeof(out->pre_comm));
		out++;
	}
}

/* Bucket I's first unit (hvt_irq_hist_index()). */
static u64 irq_hist_lower(unsigned int i)
{
	unsigned int octave = i >> HVT_IRQ_HIST_SUB_BITS;

	if (!octave)
		return i;
	return (u64)(HVT_IRQ_HIST_SUB + (i & (HVT_IRQ_HIST_SUB - 1)))
	       << (octave - 1);
}

/*
 * The PERMILLE-th of the N deliveries in row histogram B: the middle of
 * the bucket where the rank ceil(N * PERMILLE / 1000) falls, at most MAX
 * (the last bucket's middle is MAX's).
 */
static u64 irq_hist_pct(const u32 *b, u64 n, unsigned int permille, u64 max)
{
	u64 rank = max_t(u64, DIV_ROUND_UP_ULL(n * permille, 1000), 1);
	u64 seen = 0, lo, hi;
	unsigned int i;

	for (i = 0; i < HVT_IRQ_HIST_BUCKETS - 1; i++) {
		seen += b[i];
		if (seen >= rank)
			break;
	}
	lo = irq_hist_lower(i) << HVT_IRQ_HIST_UNIT_SHIFT;
	if (lo >= max)
		return max;
	hi = i < HVT_IRQ_HIST_BUCKETS - 1 ?
	     (irq_hist_lower(i + 1) << HVT_IRQ_HIST_UNIT_SHIFT) - 1 : max;
	return min(lo + (hi - lo) / 2, max);
}

void hvt_irqs_pct(const struct hvt_vcpu_irqs *irqs,
		  const struct hvt_irq_hist *h, struct hvtrace_vcpu_irq_pct *out)
{
	unsigned int i, k;

	for (i = 0; i < HVT_IRQ_ROWS; i++) {
		const struct hvt_irq_row *r = &irqs->row[i];
		const u32 *b = h->n[i];
		u64 n = 0;

		if (!r->count)
			continue;
		/* A racy copy: the histogram's own count, not the row's. */
		for (k = 0; k < HVT_IRQ_HIST_BUCKETS; k++)
			n += READ_ONCE(b[k]);
		/*
		 * None counted though the row has some: a copy that raced a
		 * clear. The max bounds them all; 0 would pass for a value.
		 */
		*out = (struct hvtrace_vcpu_irq_pct){
			.p50_ns = r->max_ns, .p99_ns = r->max_ns,
			.p999_ns = r->max_ns,
		};
		if (n) {
			out->p50_ns = irq_hist_pct(b, n, 500, r->max_ns);
			out->p99_ns = irq_hist_pct(b, n, 990, r->max_ns);
			out->p999_ns = irq_hist_pct(b, n, 999, r->max_ns);
		}
		out++;
	}
}
