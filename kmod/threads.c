// SPDX-License-Identifier: GPL-2.0
/*
 * Task to vCPU slot: open addressing keyed by the task_struct pointer,
 * preallocated like the vCPU table. Lookups are lockless; adding (an
 * exit of a new vCPU thread) and removing (its task_struct freed) are
 * rare and take a lock. A removed entry keeps its key with no vCPU: the
 * probe chains behind it stay intact, and any new thread may take it.
 * An entry is also free for others once its vCPU has another thread.
 */
#include <linux/log2.h>
#include <linux/spinlock.h>
#include <linux/vmalloc.h>

#include "threads.h"

#define HVT_THREAD_PROBES 32

struct hvt_thread {
	struct task_struct *key;
	struct hvt_vcpu *v;
};

u8 hvt_thread_filter[1 << HVT_THREAD_FILTER_BITS];
static struct hvt_thread *threads;
static unsigned int thread_bits;
static DEFINE_RAW_SPINLOCK(threads_lock);

int hvt_threads_init(void)
{
	thread_bits = ilog2(hvt_vcpu_slots());
	threads = vzalloc(array_size(1UL << thread_bits, sizeof(*threads)));
	memset(hvt_thread_filter, 0, sizeof(hvt_thread_filter));
	return threads ? 0 : -ENOMEM;
}

void hvt_threads_exit(void)
{
	vfree(threads);
	threads = NULL;
}

static struct hvt_thread *thread_at(const struct task_struct *p,
				    unsigned int i)
{
	return &threads[(hash_ptr(p, thread_bits) + i) &
			((1U << thread_bits) - 1)];
}

static struct hvt_thread *thread_find(const struct task_struct *p)
{
	unsigned int i;

	for (i = 0; i < HVT_THREAD_PROBES; i++) {
		struct hvt_thread *t = thread_at(p, i);
		struct task_struct *key = READ_ONCE(t->key);

		if (!key)
			return NULL;
		if (key == p)
			return t;
	}
	return NULL;
}

struct hvt_vcpu *hvt_thread_vcpu_slow(const struct task_struct *p)
{
	struct hvt_thread *t = thread_find(p);
	struct hvt_vcpu *v = t ? READ_ONCE(t->v) : NULL;

	return v && READ_ONCE(v->task) == p ? v : NULL;
}

/* Free for a new thread: never used, removed, or its vCPU moved on. */
static bool reusable(const struct hvt_thread *t)
{
	const struct hvt_vcpu *v = t->v;

	return !t->key || !v || READ_ONCE(v->task) != t->key;
}

static void filter_add(const struct task_struct *p, int delta)
{
	u8 *n = &hvt_thread_filter[hash_ptr(p, HVT_THREAD_FILTER_BITS)];

	/* Saturated counts stay: a stuck entry only costs lookups. */
	if (*n != U8_MAX)
		WRITE_ONCE(*n, *n + delta);
}

void hvt_thread_add(struct hvt_vcpu *v)
{
	struct task_struct *p = current;
	struct hvt_thread *t, *slot = NULL;
	unsigned long flags;
	unsigned int i;

	raw_spin_lock_irqsave(&threads_lock, flags);
	t = thread_find(p);
	if (t && t->v) {
		/* P moved from another vCPU to this one. */
		slot = t;
	} else {
		for (i = 0; i < HVT_THREAD_PROBES && !slot; i++) {
			t = thread_at(p, i);
			if (t->key == p || reusable(t))
				slot = t;
		}
		if (slot) {
			/* Taking over a thread that left its vCPU. */
			if (slot->key && slot->key != p && slot->v)
				filter_add(slot->key, -1);
			filter_add(p, 1);
		}
	}
	WRITE_ONCE(v->tid, p->pid);
	WRITE_ONCE(v->task, p);
	if (slot) {
		/* Readers check v->task: a half-written entry is a miss. */
		WRITE_ONCE(slot->key, p);
		WRITE_ONCE(slot->v, v);
	}
	/* Else the table is full: this thread's scheduling goes unseen. */
	raw_spin_unlock_irqrestore(&threads_lock, flags);
}

void hvt_thread_gone(const struct task_struct *p)
{
	struct hvt_thread *t;
	unsigned long flags;

	raw_spin_lock_irqsave(&threads_lock, flags);
	t = thread_find(p);
	if (t && t->v) {
		if (READ_ONCE(t->v->task) == p)
			WRITE_ONCE(t->v->task, NULL);
		WRITE_ONCE(t->v, NULL);
		filter_add(p, -1);
	}
	raw_spin_unlock_irqrestore(&threads_lock, flags);
}
