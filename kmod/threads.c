// SPDX-License-Identifier: GPL-2.0
/*
 * Task to vCPU slot: open addressing keyed by the task_struct pointer,
 * preallocated like the vCPU table. An entry is stale once its vCPU has
 * another thread (the VMM moved it, or the thread is gone): lookups check
 * the slot still names the task, and stale entries are taken over.
 * Pointers are compared, never followed: a stale task may be freed.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "threads.h"

#define HVT_THREAD_PROBES 32

struct hvt_thread {
	struct task_struct *key;
	struct hvt_vcpu *v;
};

unsigned long hvt_thread_filter[BITS_TO_LONGS(1 << HVT_THREAD_FILTER_BITS)];
static struct hvt_thread *threads;
static unsigned int thread_bits;

int hvt_threads_init(void)
{
	thread_bits = ilog2(hvt_vcpu_slots());
	threads = vzalloc(array_size(1UL << thread_bits, sizeof(*threads)));
	bitmap_zero(hvt_thread_filter, 1 << HVT_THREAD_FILTER_BITS);
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

struct hvt_vcpu *hvt_thread_vcpu_slow(const struct task_struct *p)
{
	unsigned int i;

	for (i = 0; i < HVT_THREAD_PROBES; i++) {
		struct hvt_thread *t = thread_at(p, i);
		struct task_struct *key = READ_ONCE(t->key);
		struct hvt_vcpu *v;

		if (!key)
			return NULL;
		if (key != p)
			continue;
		v = READ_ONCE(t->v);
		return v && READ_ONCE(v->task) == p ? v : NULL;
	}
	return NULL;
}

static bool stale(struct hvt_thread *t, struct task_struct *key)
{
	struct hvt_vcpu *v = READ_ONCE(t->v);

	return v && READ_ONCE(v->task) != key;
}

void hvt_thread_add(struct hvt_vcpu *v)
{
	struct task_struct *p = current;
	unsigned int i;

	WRITE_ONCE(v->task, p);
	for (i = 0; i < HVT_THREAD_PROBES; i++) {
		struct hvt_thread *t = thread_at(p, i);
		struct task_struct *key = READ_ONCE(t->key);

		if (key != p) {
			if (key && !stale(t, key))
				continue;
			/* Free or stale: take it, or look again if we lost. */
			if (cmpxchg(&t->key, key, p) != key) {
				i--;
				continue;
			}
		}
		WRITE_ONCE(t->v, v);
		set_bit(hash_ptr(p, HVT_THREAD_FILTER_BITS), hvt_thread_filter);
		return;
	}
	/* Table full: this thread's scheduling is not followed. */
}
