/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vCPU threads, as the exit path saw them: the scheduler probes ask "is
 * this task a vCPU thread?" on every context switch of the host, so the
 * common answer, no, costs one byte load from a small counting filter.
 * The table behind it (threads.c) maps a task to its vCPU's slot. A
 * thread leaves both when its task_struct is freed: a new task at the
 * same address is nobody's vCPU thread, and the filter does not fill up
 * as VMs come and go.
 */
#ifndef _HVT_THREADS_H
#define _HVT_THREADS_H

#include <linux/hash.h>
#include <linux/sched.h>

#include "vcpu.h"

#define HVT_THREAD_FILTER_BITS	14

/* How many vCPU threads hash to each entry (saturates at U8_MAX). */
extern u8 hvt_thread_filter[1 << HVT_THREAD_FILTER_BITS];

struct hvt_vcpu *hvt_thread_vcpu_slow(const struct task_struct *p);
/* CURRENT runs V from now on: its first exit, or KVM_RUN from a new
 * thread. Lock-free; waits out a scheduler probe about the old thread.
 */
void hvt_thread_add(struct hvt_vcpu *v);
/* Task P's task_struct is being freed. */
void hvt_thread_gone(const struct task_struct *p);
int hvt_threads_init(void);
void hvt_threads_exit(void);

/* False: P is no vCPU thread. True: it may be one. */
static inline bool hvt_thread_maybe(const struct task_struct *p)
{
	return READ_ONCE(hvt_thread_filter[hash_ptr(p,
						    HVT_THREAD_FILTER_BITS)]);
}

/* The slot of the vCPU that task P runs, or NULL: P is no vCPU thread. */
static inline struct hvt_vcpu *hvt_thread_vcpu(const struct task_struct *p)
{
	if (likely(!hvt_thread_maybe(p)))
		return NULL;
	return hvt_thread_vcpu_slow(p);
}

DECLARE_PER_CPU(struct hvt_vcpu *, hvt_last_vcpu);

/* The vCPU the current thread runs, if it is a vCPU thread. */
static inline struct hvt_vcpu *hvt_current_vcpu(void)
{
	struct hvt_vcpu *v = this_cpu_read(hvt_last_vcpu);

	if (likely(v && READ_ONCE(v->split.task) == current))
		return v;
	return hvt_thread_vcpu(current);
}

#endif /* _HVT_THREADS_H */
