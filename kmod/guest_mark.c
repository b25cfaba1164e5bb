// SPDX-License-Identifier: GPL-2.0
/*
 * Guest marks: a guest names a moment of its own timeline with a CPUID
 * of HVTRACE_MARK_LEAF, its TSC in EDX:EBX (the uapi header has the
 * registers). Looked for on CPUID exits only, while recording or
 * watching, so other exits pay nothing.
 *
 * The record carries the vCPU's TSC offset and ratio, and a host TSC read
 * next to the host clock: the guest TSC at that moment is computed from
 * what KVM programmed, not guessed, and the guest's own reading, taken
 * just before its CPUID, says how far apart the two are.
 */
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <asm/msr.h>

#include "clock.h"
#include "compat/kvm_vcpu.h"
#include "config.h"
#include "guest_mark.h"
#include "record.h"
#include "watch.h"

/*
 * The hardware's TSC ratio formats: AMD's is 8.32 fixed point, Intel's
 * 16.48; KVM keeps 1.0 in them even without TSC scaling, but a kernel
 * whose vendor set no fraction bits has a plain 1: nothing to shift.
 */
static u64 tsc_frac_bits(u8 isa, u64 ratio)
{
	if (ratio == 1)
		return 0;
	return isa == HVTRACE_ISA_SVM ? 32 : 48;
}

/*
 * Into the ring: through the VM, vCPU and CPU filters (no threshold), at
 * most HVTRACE_MARK_RATE a second per vCPU.
 */
static void mark_record(struct hvt_cpu *c, struct hvt_vcpu *v)
{
	const struct hvt_config *cfg = rcu_dereference_sched(hvt_cfg);
	struct hvt_mark *m = &v->mark;
	u32 second = div_u64(m->ts, NSEC_PER_SEC);

	c->acct.mark_seen++;
	if (cfg->filters && hvt_filtered_where(cfg, v, v->cpu_exit)) {
		c->acct.mark_filtered++;
		return;
	}
	if (m->second != second) {
		m->second = second;
		m->recorded = 0;
	}
	if (m->recorded >= HVTRACE_MARK_RATE) {
		c->acct.mark_limited++;
		return;
	}
	m->recorded++;
	hvt_record_mark(c, v, smp_processor_id());
}

void hvt_guest_mark(struct kvm_vcpu *vcpu, struct hvt_vcpu *v)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	struct hvt_mark *m = &v->mark;
	unsigned long flags;

	/* A nested guest's CPUID is its hypervisor's business, not a mark. */
	if (hvt_vcpu_protected(vcpu) || hvt_vcpu_nested(vcpu))
		return;
	m->id = hvt_vcpu_reg32(vcpu, VCPU_REGS_RCX);
	m->guest_tsc = (u64)hvt_vcpu_reg32(vcpu, VCPU_REGS_RDX) << 32 |
		       hvt_vcpu_reg32(vcpu, VCPU_REGS_RBX);
	m->tsc_offset = hvt_vcpu_tsc_offset(vcpu);
	m->tsc_ratio = hvt_vcpu_tsc_ratio(vcpu);
	m->tsc_frac_bits = tsc_frac_bits(v->isa, m->tsc_ratio);
	/*
	 * Together, the host clock <-> host TSC pair of the mark: on AMD
	 * before 6.5 kvm_exit fires with interrupts on.
	 */
	local_irq_save(flags);
	m->ts = hvt_clock_and_tsc(&m->host_tsc);
	local_irq_restore(flags);

	if (READ_ONCE(hvt_recording))
		mark_record(c, v);
	hvt_watch_mark(v);
}
