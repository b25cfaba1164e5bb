/* SPDX-License-Identifier: GPL-2.0 */
/* Guest marks: a guest's CPUID that names a moment (guest_mark.c). */
#ifndef _HVT_GUEST_MARK_H
#define _HVT_GUEST_MARK_H

#include <linux/kvm_host.h>

#include "stats.h"
#include "vcpu.h"

#define HVT_SVM_EXIT_CPUID	0x072
#define HVT_VMX_EXIT_CPUID	10

/* Is V's exit in flight a CPUID? Its reason is read (with details). */
static __always_inline bool hvt_exit_is_cpuid(const struct hvt_vcpu *v)
{
	if (v->isa == HVTRACE_ISA_SVM)
		return v->reason == HVT_SVM_EXIT_CPUID;
	return v->isa == HVTRACE_ISA_VMX && (u16)v->reason == HVT_VMX_EXIT_CPUID;
}

/*
 * V's CPUID exit, on this CPU (state C), while recording or watching: a
 * mark if the guest asked for HVTRACE_MARK_LEAF.
 */
void hvt_guest_mark(struct hvt_cpu *c, struct kvm_vcpu *vcpu,
		    struct hvt_vcpu *v);

#endif /* _HVT_GUEST_MARK_H */
