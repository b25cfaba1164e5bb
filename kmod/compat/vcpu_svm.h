/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An SVM exit's information, read where svm_get_exit_info reads it: the
 * control area of the vCPU's current VMCB (layout: AMD APM vol. 2,
 * appendix B; asm/svm.h). struct vcpu_svm (arch/x86/kvm/svm/svm.h) is
 * not in headers; it opens with the struct kvm_vcpu and the pointer to
 * the current VMCB, and kvm-btf.sh checks that in kvm-amd.ko's BTF
 * (HVT_SVM_VMCB_AFTER_VCPU; without it, none of this is used). Reading
 * it directly costs 3 instructions; the call, 50 (`bench/overhead
 * --parts`).
 */
#ifndef _HVT_COMPAT_VCPU_SVM_H
#define _HVT_COMPAT_VCPU_SVM_H

#include <linux/kvm_host.h>
#include <asm/svm.h>

#ifdef HVT_SVM_VMCB_AFTER_VCPU
#define HVT_SVM_VMCB_DIRECT	1

struct hvt_vcpu_svm_head {
	struct kvm_vcpu vcpu;
	struct vmcb *vmcb;
};

#ifdef HVT_SVM_VMCB_OFFSET	/* the target's own BTF: its offset too */
static_assert(offsetof(struct hvt_vcpu_svm_head, vmcb) == HVT_SVM_VMCB_OFFSET);
#endif

static __always_inline const struct vmcb_control_area *
hvt_svm_control(const struct kvm_vcpu *vcpu)
{
	return &container_of(vcpu, struct hvt_vcpu_svm_head, vcpu)->vmcb->control;
}
#else
#define HVT_SVM_VMCB_DIRECT	0

/* Not called: HVT_SVM_VMCB_DIRECT is 0. */
const struct vmcb_control_area *hvt_svm_control(const struct kvm_vcpu *vcpu);
#endif

#endif /* _HVT_COMPAT_VCPU_SVM_H */
