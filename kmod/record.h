/* SPDX-License-Identifier: GPL-2.0 */
/* Writing one record about a vCPU to this CPU's ring (record.c). */
#ifndef _HVT_RECORD_H
#define _HVT_RECORD_H

#include <linux/string.h>

#include "stats.h"
#include "vcpu.h"

/*
 * One record of TYPE (enum hvtrace_event_type) about V, D ns long, to
 * CPU's ring; counted in C's accounting as recorded or lost.
 */
void hvt_record(struct hvt_cpu *c, const struct hvt_vcpu *v, u8 type, u64 d,
		int cpu);

/*
 * EV: a record of TYPE about V, D ns long, ending on CPU (all but seq).
 * Inline: TYPE is a constant where the watch calls it.
 */
static __always_inline void hvt_event_fill(struct hvtrace_event *ev,
					   const struct hvt_vcpu *v, u8 type,
					   u64 d, int cpu)
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
	if (unlikely(v->flags & HVT_VCPU_BRIEF)) {
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
		ev->flags = (v->flags & __HVTRACE_EVF_ALL) | s->pre_flags;
		ev->preempt_pid = s->pre_pid;
		ev->preempt_ns = s->pre_ns;
		memcpy(ev->preempt_comm, s->pre_comm, sizeof(ev->preempt_comm));
		memcpy(ev->part_ns, s->part, sizeof(ev->part_ns));
		ev->guest_ns = v->guest_ns;
	} else {
		ev->ts_ns = s->off_ts;
		ev->cpu_exit = s->cpu_off;
		ev->flags = (v->flags & __HVTRACE_EVF_ALL) |
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
