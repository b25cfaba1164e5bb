// SPDX-License-Identifier: GPL-2.0
/* Dense exit-reason index: the way back from index to reason. */
#include "reason.h"

bool hvt_reason_of_index(unsigned int idx, u8 *isa, u32 *code)
{
	if (idx < HVT_RIDX_SVM_LOW) {
		*isa = HVTRACE_ISA_VMX;
		*code = idx - HVT_RIDX_VMX;
	} else if (idx < HVT_RIDX_SVM_HIGH) {
		*isa = HVTRACE_ISA_SVM;
		*code = idx - HVT_RIDX_SVM_LOW;
	} else if (idx < HVT_RIDX_SVM_ERR) {
		*isa = HVTRACE_ISA_SVM;
		*code = idx - HVT_RIDX_SVM_HIGH + HVT_SVM_HIGH_BASE;
	} else if (idx == HVT_RIDX_SVM_ERR) {
		*isa = HVTRACE_ISA_SVM;
		*code = HVT_SVM_EXIT_ERR;
	} else {
		/* Catch-alls: the vendor, but no single code. */
		*isa = idx == HVT_RIDX_VMX_OTHER ? HVTRACE_ISA_VMX :
		       idx == HVT_RIDX_SVM_OTHER ? HVTRACE_ISA_SVM :
						   HVTRACE_ISA_UNKNOWN;
		return false;
	}
	return true;
}

unsigned int hvt_vcpu_rsn_ridx(unsigned int i, u8 isa)
{
	if (i >= HVT_VCPU_RSN_CATCH)
		return i < HVT_VCPU_NR_RSN ?
		       i - HVT_VCPU_RSN_CATCH + HVT_RIDX_VMX_OTHER :
		       HVT_NR_REASONS;
	if (isa == HVTRACE_ISA_SVM)
		return i + HVT_RIDX_SVM_LOW;
	return isa == HVTRACE_ISA_VMX && i < HVT_RIDX_SVM_LOW ?
	       i : HVT_NR_REASONS;
}
