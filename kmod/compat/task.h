/* SPDX-License-Identifier: GPL-2.0 */
/* What hvtrace reads of a struct task_struct beyond pid and comm. */
#ifndef _HVT_COMPAT_TASK_H
#define _HVT_COMPAT_TASK_H

#include <linux/sched.h>

/*
 * Still runnable at a switch-out (preempted, or yielding): __state, not
 * sched_switch's prev_state, which reads the state before a pending
 * signal kept the task runnable.
 */
static inline bool hvt_task_runnable(const struct task_struct *p)
{
	return READ_ONCE(p->__state) == TASK_RUNNING;
}

#endif /* _HVT_COMPAT_TASK_H */
