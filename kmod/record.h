/* SPDX-License-Identifier: GPL-2.0 */
/* Writing one record about a vCPU to this CPU's ring (record.c). */
#ifndef _HVT_RECORD_H
#define _HVT_RECORD_H

#include <linux/string.h>

#include "irq.h"
#include "stats.h"
#include "vcpu.h"

/*
 * One record about V to CPU's ring, counted in C's accounting as
 * recorded or lost: V's exit of D ns, V's thread back after D ns
 * preempted, V's guest mark.
 */
void hvt_record_exit(struct hvt_cpu *c, const struct hvt_vcpu *v, u64 d,
		     int cpu);
void hvt_record_preempt(struct hvt_cpu *c, const struct hvt_vcpu *v, u64 d,
			int cpu);
void hvt_record_mark(struct hvt_cpu *c, const struct hvt_vcpu *v, int cpu);
/* V's delivery in flight (its irq_inflight), injected late: D its ns. */
void hvt_record_irq(struct hvt_cpu *c, const struct hvt_vcpu *v, int cpu);

/* Where a record goes: hvt_event_fill()'s TO. */
enum hvt_fill_to {
	HVT_FILL_RING,		/* whole: readers see it as it is */
	HVT_FILL_HISTORY,	/* a watched vCPU's (watch.c): less, below */
};

/*
 * In a history's record: an exit nothing happened to, whose parts and
 * preemptor were left out (all zero). Internal, like HVT_VCPU_BRIEF,
 * which a history's record keeps too: the copy-out (watch_scan.c) acts
 * on both and clears them.
 */
#define HVT_EVF_QUIET	BIT(14)
static_assert(!(HVT_EVF_QUIET & (__HVTRACE_EVF_ALL | HVT_VCPU_BRIEF)));

/*
 * A late interrupt's own fields: F's delivery, injected on CPU at the
 * entry that ends an exit of REASON (the uapi's HVTRACE_EV_IRQ).
 */
static __always_inline void irq_fill(struct hvtrace_event *ev,
				     const struct hvt_irq_inflight *f,
				     u32 reason, int cpu)
{
	const struct hvt_window *w = &f->win;

	ev->ts_ns = hvt_irq_stamp_ts(f->stamp);
	ev->cpu_exit = cpu;
	ev->info1 = hvt_irq_stamp_source(f->stamp);
	ev->info2 = reason;
	ev->addr = 0;
	ev->rip = 0;
	ev->reason = f->vector;
	ev->intr_info = 0;
	ev->error_code = 0;
	ev->flags = w->pre_flags;
	ev->preempt_pid = w->pre_pid;
	ev->preempt_ns = w->pre_ns;
	memcpy(ev->preempt_comm, w->pre_comm, sizeof(ev->preempt_comm));
	memcpy(ev->part_ns, w->part, sizeof(ev->part_ns));
	ev->guest_ns = w->guest_ns;
}

/*
 * EV: a record of TYPE about V, D ns long, ending on CPU (all but seq).
 * Inline: TYPE and TO are constants where it is called. A history's
 * records leave to the copy-out what it knows (seq from the place, the
 * vCPU's identity from the watch) or can do as well (zero what
 * HVT_VCPU_BRIEF says was not read), and a quiet exit its parts and
 * preemptor.
 */
static __always_inline void hvt_event_fill(struct hvtrace_event *ev,
					   const struct hvt_vcpu *v, u8 type,
					   u64 d, int cpu,
					   enum hvt_fill_to to)
{
	const u16 keep = to == HVT_FILL_RING ? __HVTRACE_EVF_ALL :
			 __HVTRACE_EVF_ALL | HVT_VCPU_BRIEF;
	const struct hvt_split *s = &v->split;

	ev->info1 = v->info1;
	ev->info2 = v->info2;
	ev->addr = v->addr;
	ev->rip = v->rip;
	ev->reason = v->reason;
	ev->intr_info = v->intr_info;
	ev->error_code = v->error_code;
	if (to == HVT_FILL_RING) {
		ev->vcpu_id = v->vcpu_id;
		ev->vm_id = v->vm_id;
		ev->vm_pid = v->vm_pid;
	}
	/* Not the watch's: unknown while the vendor module is not ready. */
	ev->isa = v->isa;
	ev->tid = v->tid;
	ev->duration_ns = d;
	ev->cpu_entry = cpu;
	ev->type = type;
	if (to == HVT_FILL_RING && unlikely(v->flags & HVT_VCPU_BRIEF)) {
		/* Its exit came before details were wanted: not read. */
		ev->info1 = 0;
		ev->info2 = 0;
		ev->intr_info = 0;
		ev->error_code = 0;
	}
	if (type == HVTRACE_EV_MARK) {
		const struct hvt_mark *m = &v->mark;

		ev->ts_ns = m->ts;
		ev->cpu_exit = cpu;
		ev->info1 = m->id;
		ev->info2 = m->guest_tsc;
		ev->addr = 0;
		ev->flags = HVTRACE_EVF_RIP_VALID;
		ev->preempt_pid = 0;
		ev->preempt_ns = 0;
		memset(ev->preempt_comm, 0, sizeof(ev->preempt_comm));
		ev->mark.host_tsc = m->host_tsc;
		ev->mark.tsc_offset = m->tsc_offset;
		ev->mark.tsc_ratio = m->tsc_ratio;
		ev->mark.tsc_frac_bits = m->tsc_frac_bits;
		ev->guest_ns = 0;
	} else if (type == HVTRACE_EV_EXIT) {
		ev->ts_ns = s->exit_ts;
		ev->cpu_exit = v->cpu_exit;
		ev->guest_ns = v->guest_ns;
		if (to == HVT_FILL_HISTORY && likely(!s->split)) {
			ev->flags = (v->flags & keep) | HVT_EVF_QUIET;
			return;
		}
		ev->flags = (v->flags & keep) | s->pre_flags;
		ev->preempt_pid = s->pre_pid;
		ev->preempt_ns = s->pre_ns;
		memcpy(ev->preempt_comm, s->pre_comm, sizeof(ev->preempt_comm));
		memcpy(ev->part_ns, s->part, sizeof(ev->part_ns));
	} else if (type == HVTRACE_EV_IRQ) {
		irq_fill(ev, &v->irq_inflight, v->reason, cpu);
	} else {
		ev->ts_ns = s->off_ts;
		ev->cpu_exit = s->cpu_off;
		ev->flags = (v->flags & keep) |
			    (s->off_vcpu ? HVTRACE_EVF_PREEMPT_VCPU : 0);
		ev->preempt_pid = s->off_pid;
		ev->preempt_ns = d;
		memcpy(ev->preempt_comm, s->off_comm, sizeof(ev->preempt_comm));
		memset(ev->part_ns, 0, sizeof(ev->part_ns));
		ev->part_ns[HVTRACE_PART_RUNNABLE] = d;
		ev->guest_ns = 0;
	}
}

#endif /* _HVT_RECORD_H */
