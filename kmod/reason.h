/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Dense index of exit reasons of both vendors, so per-reason state is a
 * plain array: VMX basic reasons, SVM exit codes below 0x100 and from
 * 0x400 (NPF, AVIC, VMGEXIT), SVM_EXIT_ERR, and one catch-all per vendor.
 */
#ifndef _HVT_REASON_H
#define _HVT_REASON_H

#include <linux/types.h>
#include <uapi/linux/hvtrace.h>

#define HVT_VMX_BASIC_MAX	128	/* VMX basic reasons are < 80 today */
#define HVT_SVM_LOW_MAX		0x100
#define HVT_SVM_HIGH_BASE	0x400
#define HVT_SVM_HIGH_MAX	0x20

enum {
	HVT_RIDX_VMX = 0,
	HVT_RIDX_SVM_LOW = HVT_RIDX_VMX + HVT_VMX_BASIC_MAX,
	HVT_RIDX_SVM_HIGH = HVT_RIDX_SVM_LOW + HVT_SVM_LOW_MAX,
	HVT_RIDX_SVM_ERR = HVT_RIDX_SVM_HIGH + HVT_SVM_HIGH_MAX,
	HVT_RIDX_VMX_OTHER,
	HVT_RIDX_SVM_OTHER,
	HVT_RIDX_UNKNOWN,	/* no vendor module to ask */
	HVT_NR_REASONS
};

#define HVT_SVM_EXIT_ERR	0xffffffffU

/*
 * A vCPU's own dense index (its exits per reason, vcpu.h): a vCPU is only
 * VMX or only SVM, so VMX basic reasons and SVM codes share the first
 * slots, then come the three catch-alls: 292 slots, not 420.
 */
#define HVT_VCPU_RSN_CATCH	(HVT_RIDX_VMX_OTHER - HVT_RIDX_SVM_LOW)
#define HVT_VCPU_NR_RSN		(HVT_VCPU_RSN_CATCH + HVT_NR_REASONS - \
				 HVT_RIDX_VMX_OTHER)

static inline unsigned int hvt_reason_index(u8 isa, u32 reason)
{
	if (isa == HVTRACE_ISA_VMX) {
		u32 basic = reason & 0xffff;

		return basic < HVT_VMX_BASIC_MAX ? HVT_RIDX_VMX + basic :
						   HVT_RIDX_VMX_OTHER;
	}
	if (isa == HVTRACE_ISA_SVM) {
		if (reason < HVT_SVM_LOW_MAX)
			return HVT_RIDX_SVM_LOW + reason;
		if (reason - HVT_SVM_HIGH_BASE < HVT_SVM_HIGH_MAX)
			return HVT_RIDX_SVM_HIGH + reason - HVT_SVM_HIGH_BASE;
		if (reason == HVT_SVM_EXIT_ERR)
			return HVT_RIDX_SVM_ERR;
		return HVT_RIDX_SVM_OTHER;
	}
	return HVT_RIDX_UNKNOWN;
}

/* The vCPU's slot of reason index RIDX (exit path: two compares). */
static inline unsigned int hvt_vcpu_rsn_index(unsigned int ridx)
{
	if (ridx >= HVT_RIDX_VMX_OTHER)
		return ridx - HVT_RIDX_VMX_OTHER + HVT_VCPU_RSN_CATCH;
	return ridx >= HVT_RIDX_SVM_LOW ? ridx - HVT_RIDX_SVM_LOW : ridx;
}

/*
 * The reason index of slot I of a vCPU whose exits are of ISA (VMX or
 * SVM); HVT_NR_REASONS when no reason of that ISA has slot I.
 */
unsigned int hvt_vcpu_rsn_ridx(unsigned int i, u8 isa);

/*
 * The (isa, code) an index stands for; false for the catch-alls, which
 * have no single code (*isa still names their vendor, or is 0).
 */
bool hvt_reason_of_index(unsigned int idx, u8 *isa, u32 *code);

#endif /* _HVT_REASON_H */
