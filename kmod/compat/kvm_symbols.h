/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM functions hvtrace finds by name (kprobes, kallsyms). They are not
 * exported; a kernel that renames one, or inlines it, breaks here: each
 * register path says so in the kernel log and hvtrace carries on without
 * what it gives.
 *
 *   kvm_vcpu_ioctl(struct file *, unsigned int ioctl, unsigned long)
 *	a vCPU's ioctls, KVM_RUN among them: the VMM is done with an exit
 *   kvm_arch_vcpu_destroy(struct kvm_vcpu *)
 *	once per vCPU, on every path that frees one
 *   kvm_arch_destroy_vm(struct kvm *)
 *	once per VM, before its vCPUs go
 *   svm_get_exit_info, vmx_get_exit_info (kvm_amd, kvm_intel)
 *	the vendor's get_exit_info, as kvm_x86_ops holds it
 *   __apic_accept_irq(struct kvm_lapic *, int delivery_mode, int vector,
 *		       int level, int trig_mode, struct dest_map *)
 *	static, out of line in Debian's builds: every interrupt KVM
 *	accepts into a local APIC, whoever raised it (a build that inlines
 *	it into some callers would hide their raises: not checked)
 *   apic_timer_fn(struct hrtimer *)
 *	static: a vCPU's LAPIC timer expired (the hrtimer's function)
 */
#ifndef _HVT_COMPAT_KVM_SYMBOLS_H
#define _HVT_COMPAT_KVM_SYMBOLS_H

#define HVT_SYM_VCPU_IOCTL		"kvm_vcpu_ioctl"
#define HVT_SYM_VCPU_DESTROY		"kvm_arch_vcpu_destroy"
#define HVT_SYM_VM_DESTROY		"kvm_arch_destroy_vm"
#define HVT_SYM_SVM_EXIT_INFO		"svm_get_exit_info"
#define HVT_SYM_VMX_EXIT_INFO		"vmx_get_exit_info"
#define HVT_SYM_APIC_ACCEPT_IRQ		"__apic_accept_irq"
#define HVT_SYM_APIC_TIMER_FN		"apic_timer_fn"

#endif /* _HVT_COMPAT_KVM_SYMBOLS_H */
