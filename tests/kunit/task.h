/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit: a stand-in task for code that reads only a task's pid and comm
 * (the scheduler probes' work, kmod/vcpu_time.h and kmod/runners.c),
 * freed with the test.
 */
#ifndef _HVT_KUNIT_TASK_H
#define _HVT_KUNIT_TASK_H

#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/string.h>

static inline struct task_struct *hvt_test_task(struct kunit *test,
						pid_t pid, const char *comm)
{
	struct task_struct *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->pid = pid;
	strscpy(p->comm, comm, sizeof(p->comm));
	return p;
}

#endif /* _HVT_KUNIT_TASK_H */
