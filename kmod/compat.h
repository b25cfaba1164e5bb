/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only place that knows kernels differ. Core files use the macros below
 * and never test LINUX_VERSION_CODE.
 */
#ifndef _HVT_COMPAT_H
#define _HVT_COMPAT_H

#include "compat_probes.h"

/*
 * Tracepoint probe prototypes: probes must match the tracepoint's TP_PROTO
 * exactly (IBT/CFI kernels check indirect calls).
 */
#ifdef HVT_HAS_KVM_ENTRY_TWO_ARGS
#define HVT_KVM_ENTRY_PROTO	void *data, struct kvm_vcpu *vcpu, \
				bool force_immediate_exit
#else
#define HVT_KVM_ENTRY_PROTO	void *data, struct kvm_vcpu *vcpu
#endif

#endif /* _HVT_COMPAT_H */
