/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A module's own tracepoints, for the ones its module does not export
 * (kvm.ko's kvm_userspace_exit and kvm_vcpu_wakeup): struct module's
 * table of them, as the tracepoint module notifier hands it over.
 */
#ifndef _HVT_COMPAT_TRACEPOINT_MODULE_H
#define _HVT_COMPAT_TRACEPOINT_MODULE_H

#include <linux/module.h>
#include <linux/tracepoint.h>

static inline unsigned int hvt_module_tracepoints(const struct module *mod)
{
	return mod->num_tracepoints;
}

static inline struct tracepoint *hvt_module_tracepoint(const struct module *mod,
						       unsigned int i)
{
	return tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
}

#endif /* _HVT_COMPAT_TRACEPOINT_MODULE_H */
