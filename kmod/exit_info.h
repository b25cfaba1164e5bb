/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading an exit's vendor information, inline on the exit path. The
 * vendor function pointer is managed by exit_info.c.
 */
#ifndef _HVT_EXIT_INFO_H
#define _HVT_EXIT_INFO_H

#include <linux/kvm_host.h>

#include "compat/kvm_vcpu.h"
#include "compat/vcpu_svm.h"

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
#define HVT_VMX_APIC_ACCESS	44
#define HVT_VMX_EPT_VIOLATION	48
#define HVT_VMX_EPT_MISCONFIG	49
#define HVT_SVM_EXIT_MSR	0x07c
#define HVT_SVM_EXIT_NPF	0x400
#define HVT_SVM_EXIT_AVIC_UNACCELERATED 0x402

/* No vendor, or a bench build without the reason: unknown. */
static __always_inline void hvt_exit_info_none(struct hvt_vcpu *v)
{
	v->reason = 0;
	v->info1 = 0;
	v->info2 = 0;
	v->intr_info = 0;
	v->error_code = 0;
	v->flags = HVTRACE_EVF_REASON_UNKNOWN;
	v->isa = HVTRACE_ISA_UNKNOWN;
}

/*
 * HVTRACE_EVF_GPA_CLASS while the device-access probes are attached
 * (probe_vcpu_run.c), else 0: what a GPA fault's flags take.
 */
extern u16 hvt_gpa_class;

/* The address an SVM exit of reason R is about: its flags, or 0. */
static __always_inline u16 hvt_svm_exit_addr(struct kvm_vcpu *vcpu,
					     struct hvt_vcpu *v, u32 r)
{
	if (r == HVT_SVM_EXIT_NPF) {
		v->addr = v->info2;
		return HVTRACE_EVF_ADDR_GPA | READ_ONCE(hvt_gpa_class);
	}
	if (r == HVT_SVM_EXIT_MSR) {
		v->addr = hvt_vcpu_ecx(vcpu);
		return HVTRACE_EVF_ADDR_MSR;
	}
	return 0;
}

/*
 * An SVM exit, from the VMCB, as svm_get_exit_info reads it: the reason,
 * and with DETAIL the rest. The tracepoint's ISA says the vCPU is SVM's
 * (svm.c passes KVM_ISA_SVM; only one vendor module loads, and a vCPU
 * holds it), so no vendor pointer is needed. RIP is always in arch.regs
 * after an SVM exit (svm_vcpu_run() copies it from the VMCB; only
 * PDPTRs load lazily), but for a protected guest's.
 */
static __always_inline void hvt_svm_exit_info(struct kvm_vcpu *vcpu,
					      struct hvt_vcpu *v, bool detail)
{
	const struct vmcb_control_area *control = hvt_svm_control(vcpu);
	u32 r;

	r = control->exit_code;
	v->reason = r;
	if (!detail) {
		v->flags = HVT_VCPU_BRIEF;
		return;
	}
	v->info1 = control->exit_info_1;
	v->info2 = control->exit_info_2;
	v->intr_info = control->exit_int_info;
	if ((v->intr_info & SVM_EXITINTINFO_VALID) &&
	    (v->intr_info & SVM_EXITINTINFO_VALID_ERR))
		v->error_code = control->exit_int_info_err;
	else
		v->error_code = 0;
	if (unlikely(hvt_vcpu_protected(vcpu))) {
		v->flags = 0;
		return;
	}
	v->rip = vcpu->arch.regs[VCPU_REGS_RIP];
	v->addr = 0;
	v->flags = HVTRACE_EVF_RIP_VALID | hvt_svm_exit_addr(vcpu, v, r);
}

/*
 * Fill reason and vendor information of V; with DETAIL (while the
 * hvt_details key is on: aggregates need the reason alone) also RIP and
 * the qualifier address. On SVM from the VMCB where the build could
 * check its place (HVT_SVM_VMCB_DIRECT); else, and on VMX, from the
 * vendor's function (vmx_get_exit_info reads the VMCS) while the
 * vendor's module is live (FN set).
 */
static __always_inline void hvt_exit_info_read(struct kvm_vcpu *vcpu,
					       struct hvt_vcpu *v, bool detail)
{
	hvt_exit_info_fn fn;
	u16 flags = HVTRACE_EVF_RIP_VALID;
	u32 r;

	if (hvt_bench_skip(HVT_BENCH_EXIT_INFO)) {
		hvt_exit_info_none(v);
		return;
	}
	if (HVT_SVM_VMCB_DIRECT && v->isa == HVTRACE_ISA_SVM) {
		hvt_svm_exit_info(vcpu, v, detail);
		return;
	}
	fn = READ_ONCE(hvt_exit_info_fn_ptr);
	if (unlikely(!fn)) {
		hvt_exit_info_none(v);
		return;
	}
	fn(vcpu, &v->reason, &v->info1, &v->info2, &v->intr_info,
	   &v->error_code);
	if (!detail) {
		v->flags = HVT_VCPU_BRIEF;
		return;
	}
	if (unlikely(hvt_vcpu_protected(vcpu))) {
		v->flags = 0;
		return;
	}
	v->rip = hvt_vcpu_rip(vcpu);
	v->addr = 0;

	r = v->reason;
	if (v->isa == HVTRACE_ISA_SVM) {
		flags |= hvt_svm_exit_addr(vcpu, v, r);
	} else if ((u16)r == HVT_VMX_MSR_READ || (u16)r == HVT_VMX_MSR_WRITE) {
		v->addr = hvt_vcpu_ecx(vcpu);
		flags |= HVTRACE_EVF_ADDR_MSR;
	}
	/* VMX EPT violations: the GPA comes from kvm_page_fault. */
	v->flags = flags;
}

/*
 * Exits whose device access is their fault's GPA, though no
 * kvm_page_fault names it: VMX's MMIO exits after a GPA's first fault
 * (EPT misconfigurations), and local APIC accesses that trap (VMX's
 * APIC-access page, AVIC's unaccelerated accesses).
 */
static inline bool hvt_gpa_from_access(const struct hvt_vcpu *v)
{
	u16 r = v->reason;

	if (v->isa == HVTRACE_ISA_VMX)
		return r == HVT_VMX_EPT_MISCONFIG || r == HVT_VMX_APIC_ACCESS;
	return v->isa == HVTRACE_ISA_SVM &&
	       v->reason == HVT_SVM_EXIT_AVIC_UNACCELERATED;
}

/*
 * A device access in V's exit in flight (ACCESS: HVTRACE_EVF_MMIO_READ
 * or _WRITE; LEN bytes, 0 if not told), from the vCPU thread's own
 * probes. KVM may trace several in one exit (a read the VMM answers:
 * when it is asked, and again when it completes, before the entry; an
 * access split at a page; a read KVM does in chunks of 8 bytes): the
 * first one's length is kept.
 */
static inline void hvt_exit_mmio(struct hvt_vcpu *v, u16 access,
				 unsigned int len, u64 gpa)
{
	u16 f = v->flags;

	if (!(f & HVTRACE_EVF_MMIO) && len <= HVTRACE_EVF_MMIO_LEN_MAX)
		f |= len << HVTRACE_EVF_MMIO_LEN_SHIFT;
	if (!(f & (HVTRACE_EVF_ADDR_GPA | HVT_VCPU_BRIEF)) &&
	    hvt_gpa_from_access(v)) {
		v->addr = gpa;
		f |= HVTRACE_EVF_ADDR_GPA;
	}
	v->flags = f | access | READ_ONCE(hvt_gpa_class);
}

#endif /* _HVT_EXIT_INFO_H */
