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
#include <linux/sched/clock.h>
#include <asm/msr.h>

#include "compat/kvm_vcpu.h"
#include "config.h"
#include "guest_mark.h"
#include "record.h"
#include "watch.h"

/*
 * The hardware's TSC ratio formats: AMD's is 8.32 fixed point, Intel's
 * 16.48. KVM without TSC scaling keeps a ratio of 1: nothing to shift.
 */
static u64 tsc_frac_bits(u8 isa, u64 ratio)
{
	if (ratio == 1)
		return 0;
	return isa == HVTRACE_ISA_SVM ? 32 : 48;
}

void hvt_guest_mark(struct kvm_vcpu *vcpu, struct hvt_vcpu *v)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	struct hvt_mark *m = &v->mark;
	const struct hvt_config *cfg;

	/* A nested guest's CPUID is its hypervisor's business, not a mark. */
	if (hvt_vcpu_protected(vcpu) || hvt_vcpu_nested(vcpu))
		return;
	m->id = hvt_vcpu_reg32(vcpu, VCPU_REGS_RCX);
	m->guest_tsc = (u64)hvt_vcpu_reg32(vcpu, VCPU_REGS_RDX) << 32 |
		       hvt_vcpu_reg32(vcpu, VCPU_REGS_RBX);
	m->tsc_offset = hvt_vcpu_tsc_offset(vcpu);
	m->tsc_ratio = hvt_vcpu_tsc_ratio(vcpu);
	m->tsc_frac_bits = tsc_frac_bits(v->isa, m->tsc_ratio);
	/* Together: the host clock <-> host TSC pair of the mark. */
	m->ts = local_clock();
	m->host_tsc = rdtsc_ordered();

	if (READ_ONCE(hvt_recording)) {
		cfg = rcu_dereference_sched(hvt_cfg);
		if (cfg->filters && hvt_filtered_vcpu(cfg, v))
			c->acct.mark_filtered++;
		else
			hvt_record(c, v, HVTRACE_EV_MARK, 0, smp_processor_id());
	}
	hvt_watch_mark(v);
}
