/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vCPU threads, as the exit path saw them: the scheduler probes ask "is
 * this task a vCPU thread?" on every context switch of the host, so the
 * common answer, no, costs one bit test in a small filter. The table
 * behind it (threads.c) maps a task to its vCPU's slot.
 */
#ifndef _HVT_THREADS_H
#define _HVT_THREADS_H

#include <linux/bitops.h>
#include <linux/hash.h>
#include <linux/sched.h>

#include "hvtrace.h"

#define HVT_THREAD_FILTER_BITS	14

/* Bit hash(task) is set once a vCPU thread hashed there; never cleared. */
extern unsigned long hvt_thread_filter[BITS_TO_LONGS(1 << HVT_THREAD_FILTER_BITS)];

struct hvt_vcpu *hvt_thread_vcpu_slow(const struct task_struct *p);
/* The exit path found CURRENT running V for the first time. */
void hvt_thread_add(struct hvt_vcpu *v);
int hvt_threads_init(void);
void hvt_threads_exit(void);

/* The slot of the vCPU that task P runs, or NULL: P is no vCPU thread. */
static inline struct hvt_vcpu *hvt_thread_vcpu(const struct task_struct *p)
{
	if (likely(!test_bit(hash_ptr(p, HVT_THREAD_FILTER_BITS),
			     hvt_thread_filter)))
		return NULL;
	return hvt_thread_vcpu_slow(p);
}

#endif /* _HVT_THREADS_H */
