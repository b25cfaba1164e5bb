// SPDX-License-Identifier: GPL-2.0
/*
 * The watch on the probes' side: each record of a watched vCPU goes into
 * its history, each exit into its stall window, and the triggers are
 * tested (watch.h draws the rings and the states). Out of line: with the watch
 * disarmed the probes test one pointer (hvt_watch_exit()).
 *
 * Nothing here allocates, sleeps or locks; what needs process context
 * (a vCPU without a watch yet, a capture to close) kicks the scan
 * (watch_scan.c).
 */
#include <linux/math64.h>
#include <linux/time64.h>

#include "record.h"
#include "watch.h"
#include "watch_scan.h"

/* Total captures this minute: minute << 32 | count. */
static atomic64_t total_minute = ATOMIC64_INIT(0);

void hvt_watch_rate_reset(void)
{
	atomic64_set(&total_minute, 0);
}

/*
 * A vCPU without a watch for it takes a ready one from the pool at its
 * first exit, so its history starts there; either way the scan is asked,
 * once (to refill the pool, to free a watch of a vCPU that was in the
 * slot before, or to make one after all).
 */
static noinline struct hvt_watch_vcpu *
watch_take(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
	   struct hvt_watch_vcpu *w)
{
	/* life + 1: never 0, the value of a new slot. */
	if (v->watch_kicked == v->life + 1)
		return NULL;
	v->watch_kicked = v->life + 1;
	hvt_watch_kick();
	if (w || !hvt_watched(wc, v))
		return NULL;
	w = hvt_watch_pool_take();
	if (!w)
		return NULL;
	w->life = v->life;
	/* Only the scan takes it away, after a grace period: no ABA. */
	if (cmpxchg(&v->watch, NULL, w)) {
		hvt_watch_pool_put(w);
		return NULL;
	}
	return w;
}

/* V's watch, if it has one for this vCPU. */
static __always_inline struct hvt_watch_vcpu *
watch_of(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v)
{
	struct hvt_watch_vcpu *w = READ_ONCE(v->watch);

	if (likely(w && w->life == v->life))
		return w;
	return watch_take(wc, v, w);
}

static __always_inline struct hvtrace_event *
append(struct hvt_watch_vcpu *w, const struct hvt_vcpu *v, u8 type, u64 d)
{
	struct hvt_watch_ring *r = w->active;
	struct hvtrace_event *ev = &r->ev[w->pos];

	/* Its seq is its place: ring_at() in watch_scan.c. */
	w->pos = w->pos + 1 == r->cap ? 0 : w->pos + 1;
	w->head++;
	hvt_event_fill(ev, v, type, d, smp_processor_id(),
		       HVT_FILL_HISTORY);
	return ev;
}

/*
 * In the post window: EV, ending at END, is the capture's too; the first
 * record past it (in time, or HISTORY records) closes it.
 */
static noinline void post_record(const struct hvt_watch_cfg *wc,
				 struct hvt_watch_vcpu *w,
				 const struct hvtrace_event *ev, u64 end)
{
	struct hvt_watch_ring *f = w->frozen;

	if (end > w->post_end || w->post_last - w->trigger_seq >= wc->history) {
		if (atomic_cmpxchg(&w->state, HVT_W_POST,
				   HVT_W_CLOSED) == HVT_W_POST)
			hvt_watch_kick();
		return;
	}
	/* The capture's copy: past the trigger's, where it has room. */
	f->ev[w->frozen_pos] = *ev;
	if (++w->frozen_pos == f->cap)
		w->frozen_pos = 0;
	w->post_last = w->head;
}

/* A record ending at END joins the history, and the post window's. */
static __always_inline void record(const struct hvt_watch_cfg *wc,
				   struct hvt_watch_vcpu *w,
				   const struct hvt_vcpu *v, u8 type, u64 d,
				   u64 end)
{
	struct hvtrace_event *ev = append(w, v, type, d);

	if (unlikely(atomic_read(&w->state) == HVT_W_POST))
		post_record(wc, w, ev, end);
}

/*
 * The time out of the guest within the window ending at END, (END -
 * window, END]: closed spans that ended before it go. Called with the
 * open span's end (the trigger's test), or with a new exit's end when
 * the FIFO is full (stall_open(), for the dropping alone). Exact for
 * spans wholly inside the window; the oldest, when the window's start
 * cuts it, counts only what surely lies inside (its NS taken from its
 * start on): never more than the truth, at most window / STEPS less when
 * it was merged, its halted time less when it was not.
 */
static noinline u64 stall_sum(const struct hvt_watch_cfg *wc,
			      struct hvt_watch_vcpu *w, u64 end)
{
	u64 edge = end > wc->stall_window_ns ? end - wc->stall_window_ns : 0;
	const struct hvt_stall_span *s = &w->open;

	for (; w->span_tail != w->span_head; w->span_tail++) {
		s = &w->span[w->span_tail % HVT_STALL_SLOTS];
		if (s->end > edge)
			break;
		w->span_sum -= s->ns;
		s = &w->open;
	}
	if (s->start < edge)
		return w->span_sum - min(edge - s->start, s->ns);
	return w->span_sum;
}

/*
 * The exit [START, END), NS of it out of the guest, is too far from the
 * open span to merge: the open span closes into the FIFO (when full, the
 * spans before the window ending at END go first), this exit opens the
 * next.
 */
static noinline void stall_open(const struct hvt_watch_cfg *wc,
				struct hvt_watch_vcpu *w, u64 start, u64 end,
				u64 ns)
{
	struct hvt_stall_span *o = &w->open, *s;

	if (o->ns) {
		if (w->span_head - w->span_tail == HVT_STALL_SLOTS)
			stall_sum(wc, w, end);
		if (w->span_head - w->span_tail < HVT_STALL_SLOTS) {
			w->span[w->span_head++ % HVT_STALL_SLOTS] = *o;
		} else {
			/* A window holds at most 2 * STEPS + 3 spans
			 * (watch.h): never still full, but merge rather
			 * than overrun.
			 */
			s = &w->span[(w->span_head - 1) % HVT_STALL_SLOTS];
			s->end = o->end;
			s->ns += o->ns;
		}
	}
	o->start = start;
	o->end = end;
	o->ns = ns;
}

/*
 * The exit [START, END), NS of it out of the guest (halted time is not,
 * but with HALT_TRIGGERS), enters the stall window. Returns the sum of
 * the spans kept, never less than the time out of the guest within the
 * window: stall_sum() drops the old spans only when that sum reaches the
 * limit (or the FIFO is full), so an exit that merges into the open span
 * costs a few adds.
 */
static __always_inline u64 stall_add(const struct hvt_watch_cfg *wc,
				     struct hvt_watch_vcpu *w, u64 start,
				     u64 end, u64 ns)
{
	struct hvt_stall_span *o = &w->open;

	if (likely(end - o->start <= wc->stall_merge_ns)) {
		o->end = end;
		o->ns += ns;
	} else {
		stall_open(wc, w, start, end, ns);
	}
	w->span_sum += ns;
	return w->span_sum;
}

static void stall_reset(struct hvt_watch_vcpu *w)
{
	w->span_tail = w->span_head;
	memset(&w->open, 0, sizeof(w->open));
	w->span_sum = 0;
}

/* One more capture this minute in all, unless RATE_TOTAL were made. */
static bool total_take(const struct hvt_watch_cfg *wc, u64 minute)
{
	s64 old = atomic64_read(&total_minute), new;

	do {
		if ((u64)old >> 32 != minute)
			new = minute << 32 | 1;
		else if ((u32)old < wc->rate_total)
			new = old + 1;
		else
			return false;
	} while (!atomic64_try_cmpxchg(&total_minute, &old, new));
	return true;
}

static void suppress(struct hvt_vcpu *v, int why)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);

	v->watch_suppressed++;
	if (c)
		c->watch_suppressed[why]++;
}

/*
 * A trigger of KIND at TS, VALUE against LIMIT: the last record is the
 * trigger's. A capture starts unless one is recording, or the rate
 * limits say no; either is counted.
 */
static void trigger(const struct hvt_watch_cfg *wc, struct hvt_watch_vcpu *w,
		    struct hvt_vcpu *v, u8 kind, u64 ts, u64 value, u64 limit,
		    u8 vector)
{
	u64 minute;

	/* ARMED: the scan has given the spare back (acquire: it is there). */
	if (atomic_read_acquire(&w->state) != HVT_W_ARMED || !w->spare) {
		suppress(v, HVT_SUPPRESSED_BUSY);
		return;
	}
	minute = div64_u64(ts, 60 * NSEC_PER_SEC);
	if (v->watch_minute != minute) {
		v->watch_minute = minute;
		v->watch_count = 0;
	}
	if (v->watch_count >= wc->rate) {
		suppress(v, HVT_SUPPRESSED_RATE);
		return;
	}
	if (!total_take(wc, minute)) {
		suppress(v, HVT_SUPPRESSED_TOTAL);
		return;
	}
	v->watch_count++;
	/* The history so far stays in its ring; it goes on in the spare. */
	w->frozen = w->active;
	w->frozen_pos = w->pos;
	w->active = w->spare;
	w->spare = NULL;
	w->active->base = w->head + 1;
	w->pos = 0;
	w->trigger = kind;
	w->on = wc->exit_on;
	w->vector = vector;
	w->trigger_seq = w->head;
	w->trigger_ts = ts;
	w->value_ns = value;
	w->limit_ns = limit;
	w->window_ns = kind == HVTRACE_TRIGGER_STALL ? wc->stall_window_ns : 0;
	w->post_end = ts + wc->post_ns;
	w->post_last = w->head;
	w->suppressed = v->watch_suppressed;
	v->watch_suppressed = 0;
	w->vm_id = v->vm_id;
	w->vm_pid = v->vm_pid;
	w->vcpu_id = v->vcpu_id;
	w->tid = v->tid;
	/* The scan reads the trigger once it sees POST. */
	atomic_set_release(&w->state, HVT_W_POST);
	hvt_watch_kick();
}

void __hvt_watch_exit(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
		      u64 d)
{
	struct hvt_watch_vcpu *w = watch_of(wc, v);
	u64 start, end, sum = 0;

	if (!w)
		return;
	start = v->split.exit_ts;
	end = start + d;
	record(wc, w, v, HVTRACE_EV_EXIT, d, end);
	if (wc->stall_ns)
		sum = stall_add(wc, w, start, end, wc->halt_triggers ? d :
				d - v->split.part[HVTRACE_PART_HALT]);
	/* The exit a late interrupt was injected at: its end is the trigger. */
	if (unlikely(w->irq_late_ns)) {
		u64 ns = w->irq_late_ns;

		w->irq_late_ns = 0;
		if (w->irq_late_exit == start) {
			trigger(wc, w, v, HVTRACE_TRIGGER_IRQ, end, ns,
				wc->irq_ns, w->irq_late_vector);
			return;
		}
	}
	if (likely(!v->split.split)) {
		/* Nothing happened to it: no part but handling (watch.h). */
		if (unlikely(d >= wc->exit_quiet_ns)) {
			trigger(wc, w, v, HVTRACE_TRIGGER_EXIT, end, d,
				wc->exit_ns, 0);
			return;
		}
	} else if (wc->exit_ns) {
		u64 part = hvt_part_value(wc->exit_on, wc->halt_triggers, v, d);

		if (unlikely(part >= wc->exit_ns)) {
			trigger(wc, w, v, HVTRACE_TRIGGER_EXIT, end, part,
				wc->exit_ns, 0);
			return;
		}
	}
	/*
	 * stall_limit_ns: U64_MAX without a stall trigger, never reached.
	 * SUM is an upper bound until stall_sum() makes it exact.
	 */
	if (unlikely(sum >= wc->stall_limit_ns)) {
		sum = stall_sum(wc, w, end);
		if (sum < wc->stall_limit_ns)
			return;
		/* A stall counts once, captured or not: the next one needs
		 * time of its own.
		 */
		stall_reset(w);
		trigger(wc, w, v, HVTRACE_TRIGGER_STALL, end, sum, wc->stall_ns,
			0);
	}
}

void __hvt_watch_preempt(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
			 u64 off)
{
	struct hvt_watch_vcpu *w = watch_of(wc, v);
	u64 end;

	if (!w)
		return;
	end = v->split.off_ts + off;
	record(wc, w, v, HVTRACE_EV_PREEMPT, off, end);
	if (wc->preempt_ns && off >= wc->preempt_ns)
		trigger(wc, w, v, HVTRACE_TRIGGER_PREEMPT, end, off,
			wc->preempt_ns, 0);
}

bool __hvt_watch_irq(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
		     u8 vector, u64 ns)
{
	struct hvt_watch_vcpu *w;

	/* Its trigger record is the exit in flight: none, no trigger. */
	if (!wc->irq_ns || ns < wc->irq_ns || !READ_ONCE(v->split.in_exit))
		return false;
	w = watch_of(wc, v);
	if (!w)
		return false;
	/* Two late ones in one exit: the later injection, the longer. */
	if (ns >= w->irq_late_ns || w->irq_late_exit != v->split.exit_ts) {
		w->irq_late_ns = ns;
		w->irq_late_exit = v->split.exit_ts;
		w->irq_late_vector = vector;
	}
	/* The capture's late interrupt record, as a recording's. */
	record(wc, w, v, HVTRACE_EV_IRQ, ns,
	       hvt_irq_stamp_ts(v->irq_inflight.stamp) + ns);
	return true;
}

/* A guest mark is a trigger only from the VMs the operator trusts. */
void __hvt_watch_mark(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v)
{
	struct hvt_watch_vcpu *w = watch_of(wc, v);
	u64 ts = v->mark.ts;

	if (!w)
		return;
	record(wc, w, v, HVTRACE_EV_MARK, 0, ts);
	if (wc->mark_triggers && (!wc->mark_pid || wc->mark_pid == v->vm_pid))
		trigger(wc, w, v, HVTRACE_TRIGGER_MARK, ts, 0, 0, 0);
}
