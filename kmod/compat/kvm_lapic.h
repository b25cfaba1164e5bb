/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the raise probe reads of KVM's struct kvm_lapic (arch/x86/kvm/
 * lapic.h, which headers packages do not ship): the vCPU it belongs to,
 * whether the guest enabled it, its IRR, ISR and LVTT; and of its
 * struct kvm_timer (lapic_timer), the hrtimer that apic_timer_fn gets
 * and whether an expiry is pending. kvm-btf.sh finds the byte
 * offsets in the target kernel's BTF (HVT_LAPIC_*_OFFSET); without them,
 * HVT_LAPIC_KNOWN is 0 and nothing here is used.
 */
#ifndef _HVT_COMPAT_KVM_LAPIC_H
#define _HVT_COMPAT_KVM_LAPIC_H

#include <linux/kvm_host.h>
#include <asm/apicdef.h>
#include <asm/msr-index.h>

#if defined(HVT_LAPIC_VCPU_OFFSET) && defined(HVT_LAPIC_SW_ENABLED_OFFSET) && \
	defined(HVT_LAPIC_REGS_OFFSET)
#define HVT_LAPIC_KNOWN		1

static __always_inline struct kvm_vcpu *hvt_lapic_vcpu(const void *apic)
{
	return *(struct kvm_vcpu * const *)(apic + HVT_LAPIC_VCPU_OFFSET);
}

/* KVM's apic_enabled(): the guest's SVR bit and the APIC base MSR's. */
static __always_inline bool hvt_lapic_enabled(const void *apic,
					      const struct kvm_vcpu *vcpu)
{
	return READ_ONCE(*(const bool *)(apic + HVT_LAPIC_SW_ENABLED_OFFSET)) &&
	       (READ_ONCE(vcpu->arch.apic_base) & MSR_IA32_APICBASE_ENABLE);
}

/*
 * The offsets hold for this kvm.ko: VCPU's own struct kvm_lapic (a
 * public member) is APIC. Tested before anything else is read through
 * them: a kvm.ko built otherwise than the BTF said is then ignored.
 */
static __always_inline bool hvt_lapic_is(const void *apic,
					 const struct kvm_vcpu *vcpu)
{
	return (const void *)READ_ONCE(vcpu->arch.apic) == apic;
}

/* VEC's bit in the register array at OFFSET (IRR, ISR: 8 x 32 bits). */
static __always_inline bool hvt_lapic_bit(const void *apic,
					  unsigned int offset, u8 vec)
{
	const void *regs = *(void * const *)(apic + HVT_LAPIC_REGS_OFFSET);
	const u32 *reg = regs + offset + (vec >> 5) * 0x10;

	return READ_ONCE(*reg) & BIT(vec & 31);
}

/* A register of the APIC page (APIC_LVTT, ...). */
static __always_inline u32 hvt_lapic_reg(const void *apic,
					 unsigned int offset)
{
	const void *regs = *(void * const *)(apic + HVT_LAPIC_REGS_OFFSET);

	return READ_ONCE(*(const u32 *)(regs + offset));
}
#else
#define HVT_LAPIC_KNOWN		0
#endif

/*
 * The LAPIC timer: struct kvm_lapic's lapic_timer, a struct kvm_timer
 * holding the hrtimer that apic_timer_fn gets and the count of expiries
 * not yet raised (pending).
 */
#if HVT_LAPIC_KNOWN && defined(HVT_LAPIC_TIMER_OFFSET) && \
	defined(HVT_KTIMER_HRTIMER_OFFSET) && defined(HVT_KTIMER_PENDING_OFFSET)
/* The BTF's layout: pending after the whole hrtimer, as in these headers. */
static_assert(HVT_KTIMER_HRTIMER_OFFSET + sizeof(struct hrtimer) <=
	      HVT_KTIMER_PENDING_OFFSET);
#define HVT_LAPIC_TIMER_KNOWN	1

static __always_inline const void *hvt_lapic_of_timer(const struct hrtimer *t)
{
	return (const void *)t - HVT_KTIMER_HRTIMER_OFFSET -
	       HVT_LAPIC_TIMER_OFFSET;
}

/* An expiry not yet raised: KVM's apic_timer_expired() adds none. */
static __always_inline bool hvt_lapic_timer_pending(const void *apic)
{
	return atomic_read((const atomic_t *)(apic + HVT_LAPIC_TIMER_OFFSET +
					      HVT_KTIMER_PENDING_OFFSET));
}
#else
#define HVT_LAPIC_TIMER_KNOWN	0
#endif

#endif /* _HVT_COMPAT_KVM_LAPIC_H */
