/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What hvtrace reads of a struct kvm_vcpu and its struct kvm: KVM's
 * internals (include/linux/kvm_host.h, arch/x86/include/asm/kvm_host.h),
 * not an API. A kernel that moves them breaks here.
 */
#ifndef _HVT_COMPAT_KVM_VCPU_H
#define _HVT_COMPAT_KVM_VCPU_H

#include <linux/kvm_host.h>

static inline const struct kvm *hvt_vcpu_vm(const struct kvm_vcpu *vcpu)
{
	return vcpu->kvm;
}

static inline u32 hvt_vcpu_index(const struct kvm_vcpu *vcpu)
{
	return vcpu->vcpu_id;
}

/* The VMM process that created the VM (KVM_CREATE_VM's caller). */
static inline u32 hvt_vm_pid(const struct kvm *kvm)
{
	return kvm->userspace_pid;
}

/* SEV-ES and TDX guests: registers are not ours to read. */
static inline bool hvt_vcpu_protected(const struct kvm_vcpu *vcpu)
{
	return vcpu->arch.guest_state_protected;
}

/*
 * The guest RIP: SVM always has it after an exit; VMX caches registers
 * lazily, through the exported kvm_x86_cache_reg static call.
 */
static __always_inline u64 hvt_vcpu_rip(struct kvm_vcpu *vcpu)
{
	if (unlikely(!(vcpu->arch.regs_avail & BIT(VCPU_REGS_RIP))))
		static_call(kvm_x86_cache_reg)(vcpu, VCPU_REGS_RIP);
	return vcpu->arch.regs[VCPU_REGS_RIP];
}

/* RCX, always cached: the MSR index of RDMSR/WRMSR exits. */
static __always_inline u32 hvt_vcpu_ecx(const struct kvm_vcpu *vcpu)
{
	return (u32)vcpu->arch.regs[VCPU_REGS_RCX];
}

/* RAX, RBX, RDX likewise (a guest mark's registers). */
static __always_inline u32 hvt_vcpu_reg32(const struct kvm_vcpu *vcpu,
					  int reg)
{
	return (u32)vcpu->arch.regs[reg];
}

/* Running a nested guest (L2): its CPUIDs are not our guest's marks. */
static inline bool hvt_vcpu_nested(const struct kvm_vcpu *vcpu)
{
	return vcpu->arch.hflags & HF_GUEST_MASK;
}

/* The guest's (L1's) TSC: (host TSC * ratio >> fraction bits) + offset. */
static inline u64 hvt_vcpu_tsc_offset(const struct kvm_vcpu *vcpu)
{
	return vcpu->arch.l1_tsc_offset;
}

static inline u64 hvt_vcpu_tsc_ratio(const struct kvm_vcpu *vcpu)
{
	return vcpu->arch.l1_tsc_scaling_ratio;
}

/* A vCPU's file descriptor's vCPU (what kvm_vcpu_ioctl is given). */
static inline struct kvm_vcpu *hvt_vcpu_of_file(const struct file *filp)
{
	return filp->private_data;
}

#endif /* _HVT_COMPAT_KVM_VCPU_H */
