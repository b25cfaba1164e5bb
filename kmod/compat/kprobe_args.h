/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The arguments of a function a kprobe sits on, at its entry: the
 * architecture's calling convention, through the kernel's helper.
 */
#ifndef _HVT_COMPAT_KPROBE_ARGS_H
#define _HVT_COMPAT_KPROBE_ARGS_H

#include <linux/kprobes.h>
#include <linux/ptrace.h>

static inline unsigned long hvt_kprobe_arg(struct pt_regs *regs,
					   unsigned int n)
{
	return regs_get_kernel_argument(regs, n);
}

#endif /* _HVT_COMPAT_KPROBE_ARGS_H */
