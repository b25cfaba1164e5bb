// SPDX-License-Identifier: GPL-2.0
/*
 * Writing one record to this CPU's ring: an exit when its vCPU re-enters
 * (or is destroyed), or a preemption when its vCPU thread is switched
 * back in; a guest mark at its exit; a late interrupt at its injection.
 * Out of line, so the aggregate-only paths stay short; one function a
 * type, so each fills only its own fields. The watch's histories hold
 * the same records (hvt_event_fill()).
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
		else if (type == HVTRACE_EV_IRQ)
			c->acct.irq_lost++;
		else
			c->acct.mark_lost++;
		return;
	}
	hvt_event_fill(ev, v, type, d, cpu, HVT_FILL_RING);
	if (type == HVTRACE_EV_EXIT)
		c->acct.recorded++;
	else if (type == HVTRACE_EV_PREEMPT)
		c->acct.pre_recorded++;
	else if (type == HVTRACE_EV_IRQ)
		c->acct.irq_recorded++;
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
	record(c, v, HVTRACE_EV_IRQ, v->irq_inflight.ns, cpu);
}

noinline void hvt_record_mark(struct hvt_cpu *c, const struct hvt_vcpu *v,
			      int cpu)
{
	record(c, v, HVTRACE_EV_MARK, 0, cpu);
}
