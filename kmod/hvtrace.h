/* SPDX-License-Identifier: GPL-2.0 */
/* What the hvtrace.ko source files share. */
#ifndef _HVT_HVTRACE_H
#define _HVT_HVTRACE_H

#include <linux/types.h>

/* probe_kvm.c */
int hvt_probe_kvm_register(void);
void hvt_probe_kvm_unregister(void);
u64 hvt_exits_seen(void);
u64 hvt_entries_seen(void);

/* genl.c */
int hvt_genl_register(void);
void hvt_genl_unregister(void);

#endif /* _HVT_HVTRACE_H */
