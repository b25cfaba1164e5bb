/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KVM's exported tracepoints. arch/x86/kvm/trace.h is not shipped with
 * kernel headers, so the objects are declared here and probes are
 * registered by hand; their prototypes are in compat.h.
 */
#ifndef _HVT_KVM_TRACEPOINTS_H
#define _HVT_KVM_TRACEPOINTS_H

#include <linux/tracepoint.h>

extern struct tracepoint __tracepoint_kvm_exit;
extern struct tracepoint __tracepoint_kvm_entry;
extern struct tracepoint __tracepoint_kvm_page_fault;

#endif /* _HVT_KVM_TRACEPOINTS_H */
