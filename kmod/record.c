// SPDX-License-Identifier: GPL-2.0
/*
 * Writing one record to this CPU's ring: an exit when its vCPU re-enters
 * (or is destroyed), or a preemption when its vCPU thread is switched
 * back in; a guest mark at its exit; a late interrupt at its injection.
 * Out of line, so the aggregate-only paths stay short; one function a
 * type, so each fills only its own fields. The watch's histories hold
 * the same records (hvt_event_fill()), but for late interrupts.
 */
#include <linux/irq_work.h>
#include <linux/string.h>

#include "buffers.h"
#include "record.h"

/* Half full: wake the reader, once until it drains. */
static void ring_wake(struct hvt_ring *r)
{
	if (unlikely(hvt_ring_pending(r) > (r->mask >> 1)) &&
	    !READ_ONCE(r->notified)) {
		WRITE_ONCE(r->notified, true);
		irq_work_queue(&r->wake);
	}
}

/* TYPE is a constant in each caller: the fill keeps only its branch. */
static __always_inline void record(struct hvt_cpu *c, const struct hvt_vcpu *v,
				   u8 type, u64 d, int cpu)
{
	struct hvt_ring *r = hvt_ring_of(cpu);
	struct hvtrace_event *ev;
	u64 seq;

	ev = r ? hvt_ring_reserve(r, &seq) : NULL;
	if (!ev) {	/* full, or this CPU got no ring */
		if (type == HVTRACE_EV_EXIT)
			c->acct.lost++;
		else if (type == HVTRACE_EV_PREEMPT)
			c->acct.pre_lost++;
		else
			c->acct.mark_lost++;
		return;
	}
	hvt_event_fill(ev, v, type, d, cpu, HVT_FILL_RING);
	if (type == HVTRACE_EV_EXIT)
		c->acct.recorded++;
	else if (type == HVTRACE_EV_PREEMPT)
		c->acct.pre_recorded++;
	else
		c->acct.mark_recorded++;
	hvt_ring_commit(r, ev, seq);
	ring_wake(r);
}

noinline void hvt_record_exit(struct hvt_cpu *c, const struct hvt_vcpu *v,
			      u64 d, int cpu)
{
	record(c, v, HVTRACE_EV_EXIT, d, cpu);
}

noinline void hvt_record_preempt(struct hvt_cpu *c, const struct hvt_vcpu *v,
				 u64 d, int cpu)
{
	record(c, v, HVTRACE_EV_PREEMPT, d, cpu);
}

noinline void hvt_record_irq(struct hvt_cpu *c, const struct hvt_vcpu *v,
			     int cpu)
{
	const struct hvt_irq_inflight *f = &v->irq_inflight;
	const struct hvt_window *w = &f->win;
	struct hvt_ring *r = hvt_ring_of(cpu);
	struct hvtrace_event *ev;
	u64 seq;

	ev = r ? hvt_ring_reserve(r, &seq) : NULL;
	if (!ev) {
		c->acct.irq_lost++;
		return;
	}
	ev->ts_ns = hvt_irq_stamp_ts(f->stamp);
	ev->duration_ns = f->ns;
	ev->info1 = hvt_irq_stamp_source(f->stamp);
	ev->info2 = v->reason;
	ev->addr = 0;
	ev->rip = 0;
	ev->reason = f->vector;
	ev->intr_info = 0;
	ev->error_code = 0;
	ev->vcpu_id = v->vcpu_id;
	ev->vm_id = v->vm_id;
	ev->vm_pid = v->vm_pid;
	ev->tid = v->tid;
	ev->cpu_exit = cpu;
	ev->cpu_entry = cpu;
	ev->isa = v->isa;
	ev->type = HVTRACE_EV_IRQ;
	ev->flags = w->pre_flags;
	ev->preempt_pid = w->pre_pid;
	memcpy(ev->part_ns, w->part, sizeof(ev->part_ns));
	ev->preempt_ns = w->pre_ns;
	ev->guest_ns = w->guest_ns;
	memcpy(ev->preempt_comm, w->pre_comm, sizeof(ev->preempt_comm));
	c->acct.irq_recorded++;
	hvt_ring_commit(r, ev, seq);
	ring_wake(r);
}

noinline void hvt_record_mark(struct hvt_cpu *c, const struct hvt_vcpu *v,
			      int cpu)
{
	record(c, v, HVTRACE_EV_MARK, 0, cpu);
}
