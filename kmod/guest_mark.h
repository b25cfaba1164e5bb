/* SPDX-License-Identifier: GPL-2.0 */
/* Guest marks: a guest's CPUID that names a moment (guest_mark.c). */
#ifndef _HVT_GUEST_MARK_H
#define _HVT_GUEST_MARK_H

#include <linux/kvm_host.h>

#include "compat/kvm_vcpu.h"
#include "vcpu.h"

#define HVT_SVM_EXIT_CPUID	0x072
#define HVT_VMX_EXIT_CPUID	10

/*
 * Is V's exit in flight a CPUID of HVTRACE_MARK_LEAF? Its reason is read
 * (with details). Inline: the CPUIDs that are no mark pay a compare.
 */
static __always_inline bool hvt_exit_is_mark(const struct kvm_vcpu *vcpu,
					     const struct hvt_vcpu *v)
{
	if (v->isa == HVTRACE_ISA_SVM) {
		if (v->reason != HVT_SVM_EXIT_CPUID)
			return false;
	} else if (v->isa != HVTRACE_ISA_VMX ||
		   (u16)v->reason != HVT_VMX_EXIT_CPUID) {
		return false;
	}
	return hvt_vcpu_reg32(vcpu, VCPU_REGS_RAX) == HVTRACE_MARK_LEAF;
}

/* V's exit is a mark, if its guest's registers are its own. */
void hvt_guest_mark(struct kvm_vcpu *vcpu, struct hvt_vcpu *v);

#endif /* _HVT_GUEST_MARK_H */
