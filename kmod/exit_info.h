/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an exit's vendor information, inline on the exit path. The
 * vendor function pointer is managed by exit_info.c.
 */
#ifndef _HVT_EXIT_INFO_H
#define _HVT_EXIT_INFO_H

#include <linux/kvm_host.h>

#include "compat/kvm_vcpu.h"

#include "bench.h"
#include "vcpu.h"

typedef void (*hvt_exit_info_fn)(struct kvm_vcpu *vcpu, u32 *reason,
				 u64 *info1, u64 *info2, u32 *intr_info,
				 u32 *error_code);

/* We call the vendor's function as KVM would through this member. */
static_assert(__builtin_types_compatible_p(typeof(kvm_x86_ops.get_exit_info),
					   hvt_exit_info_fn));

/* The vendor's get_exit_info, or NULL while no vendor module is live. */
extern hvt_exit_info_fn hvt_exit_info_fn_ptr;

int hvt_exit_info_init(void);
void hvt_exit_info_exit(void);
/* "kvm_amd", "kvm_intel" or "" */
const char *hvt_exit_info_vendor(void);

#define HVT_VMX_MSR_READ	31
#define HVT_VMX_MSR_WRITE	32
#define HVT_SVM_EXIT_MSR	0x07c
#define HVT_SVM_EXIT_NPF	0x400

/*
 * Fill reason and vendor information of V; with DETAIL (only while
 * recording: aggregates need the reason alone) also RIP and the
 * qualifier address.
 */
static __always_inline void hvt_exit_info_read(struct kvm_vcpu *vcpu,
					       struct hvt_vcpu *v, bool detail)
{
	hvt_exit_info_fn fn = READ_ONCE(hvt_exit_info_fn_ptr);
	u16 flags = HVTRACE_EVF_RIP_VALID;
	u32 r;

	if (unlikely(!fn) || hvt_bench_skip(HVT_BENCH_EXIT_INFO)) {
		v->reason = 0;
		v->info1 = 0;
		v->info2 = 0;
		v->intr_info = 0;
		v->error_code = 0;
		v->flags = HVTRACE_EVF_REASON_UNKNOWN;
		v->isa = HVTRACE_ISA_UNKNOWN;
		return;
	}
	fn(vcpu, &v->reason, &v->info1, &v->info2, &v->intr_info,
	   &v->error_code);
	if (!detail || unlikely(hvt_vcpu_protected(vcpu))) {
		v->flags = 0;
		return;
	}
	v->rip = hvt_vcpu_rip(vcpu);
	v->addr = 0;

	r = v->reason;
	if (v->isa == HVTRACE_ISA_SVM) {
		if (r == HVT_SVM_EXIT_NPF) {
			v->addr = v->info2;
			flags |= HVTRACE_EVF_ADDR_GPA;
		} else if (r == HVT_SVM_EXIT_MSR) {
			v->addr = hvt_vcpu_ecx(vcpu);
			flags |= HVTRACE_EVF_ADDR_MSR;
		}
	} else if ((u16)r == HVT_VMX_MSR_READ || (u16)r == HVT_VMX_MSR_WRITE) {
		v->addr = hvt_vcpu_ecx(vcpu);
		flags |= HVTRACE_EVF_ADDR_MSR;
	}
	/* VMX EPT violations: the GPA comes from kvm_page_fault. */
	v->flags = flags;
}

#endif /* _HVT_EXIT_INFO_H */
