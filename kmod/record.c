// SPDX-License-Identifier: GPL-2.0
/*
 * Writing one record to this CPU's ring: an exit when its vCPU re-enters
 * (or is destroyed), or a preemption when its vCPU thread is switched
 * back in. Out of line,
 * so the aggregate-only paths stay short. The watch's histories hold the
 * same records (hvt_event_fill()).
 */
#include <linux/irq_work.h>
#include <linux/string.h>

#include "buffers.h"
#include "record.h"

void hvt_event_fill(struct hvtrace_event *ev, const struct hvt_vcpu *v,
		    u8 type, u64 d, int cpu)
{
	const struct hvt_split *s = &v->split;

	ev->info1 = v->info1;
	ev->info2 = v->info2;
	ev->addr = v->addr;
	ev->rip = v->rip;
	ev->reason = v->reason;
	ev->intr_info = v->intr_info;
	ev->error_code = v->error_code;
	ev->vcpu_id = v->vcpu_id;
	ev->vm_id = v->vm_id;
	ev->vm_pid = v->vm_pid;
	ev->tid = v->tid;
	ev->isa = v->isa;
	ev->duration_ns = d;
	ev->cpu_entry = cpu;
	ev->type = type;
	if (type == HVTRACE_EV_EXIT) {
		ev->ts_ns = s->exit_ts;
		ev->cpu_exit = v->cpu_exit;
		ev->flags = v->flags | s->pre_flags;
		ev->preempt_pid = s->pre_pid;
		ev->preempt_ns = s->pre_ns;
		memcpy(ev->preempt_comm, s->pre_comm, sizeof(ev->preempt_comm));
		memcpy(ev->part_ns, s->part, sizeof(ev->part_ns));
		ev->guest_ns = v->guest_ns;
	} else {
		ev->ts_ns = s->off_ts;
		ev->cpu_exit = s->cpu_off;
		ev->flags = v->flags |
			    (s->off_vcpu ? HVTRACE_EVF_PREEMPT_VCPU : 0);
		ev->preempt_pid = s->off_pid;
		ev->preempt_ns = d;
		memcpy(ev->preempt_comm, s->off_comm, sizeof(ev->preempt_comm));
		memset(ev->part_ns, 0, sizeof(ev->part_ns));
		ev->part_ns[HVTRACE_PART_RUNNABLE] = d;
		ev->guest_ns = 0;
	}
}

noinline void hvt_record(struct hvt_cpu *c, const struct hvt_vcpu *v,
			 u8 type, u64 d, int cpu)
{
	struct hvt_ring *r = hvt_ring_of(cpu);
	struct hvtrace_event *ev;
	u64 seq;

	ev = r ? hvt_ring_reserve(r, &seq) : NULL;
	if (!ev) {	/* full, or this CPU got no ring */
		if (type == HVTRACE_EV_EXIT)
			c->acct.lost++;
		else
			c->acct.pre_lost++;
		return;
	}
	hvt_event_fill(ev, v, type, d, cpu);
	if (type == HVTRACE_EV_EXIT)
		c->acct.recorded++;
	else
		c->acct.pre_recorded++;
	hvt_ring_commit(r, ev, seq);

	/* Half full: wake the reader, once until it drains. */
	if (unlikely(hvt_ring_pending(r) > (r->mask >> 1)) &&
	    !READ_ONCE(r->notified)) {
		WRITE_ONCE(r->notified, true);
		irq_work_queue(&r->wake);
	}
}
