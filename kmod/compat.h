/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only place that knows kernels differ. Core files use the macros below
 * and never test LINUX_VERSION_CODE.
 */
#ifndef _HVT_COMPAT_H
#define _HVT_COMPAT_H

#include "compat_probes.h"
#include "compat_kvm_btf.h"

/* The floor: get_exit_info returns the reason, kvm_exit passes the ISA. */
#ifndef HVT_HAS_GET_EXIT_INFO_REASON
#error "hvtrace needs Linux 5.16 or later (kvm_exit with its ISA)"
#endif

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

/*
 * A formatted extended-ACK message. Before the extack had a buffer of its
 * own (6.3), the text goes to one of a few buffers of ours in turn
 * (compat/errmsg.c): the ACK is built right after the handler returns,
 * long before the buffer comes round again.
 */
#ifdef HVT_HAS_NL_SET_ERR_MSG_FMT
#define HVT_ERR_MSG_FMT(extack, fmt, args...) \
	NL_SET_ERR_MSG_FMT_MOD(extack, fmt, ##args)
#else
const char *hvt_errmsg_fmt(const char *fmt, ...) __printf(1, 2);
#define HVT_ERR_MSG_FMT(extack, fmt, args...) do {			\
	struct netlink_ext_ack *__extack = (extack);			\
									\
	if (__extack)							\
		__extack->_msg = hvt_errmsg_fmt(KBUILD_MODNAME ": " fmt,	\
						##args);		\
} while (0)
#endif

/* A VMA's flags: SET added, CLEAR taken away (mmap handler). */
#ifdef HVT_HAS_VM_FLAGS_MOD
#define hvt_vm_flags_mod(vma, set, clear) vm_flags_mod(vma, set, clear)
#else
#define hvt_vm_flags_mod(vma, set, clear) do {			\
	struct vm_area_struct *__vma = (vma);				\
									\
	__vma->vm_flags = (__vma->vm_flags | (set)) & ~(clear);		\
} while (0)
#endif

#endif /* _HVT_COMPAT_H */
