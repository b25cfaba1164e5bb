// SPDX-License-Identifier: GPL-2.0
/*
 * Task to vCPU slot: open addressing keyed by the task_struct pointer,
 * preallocated like the vCPU table, and lock-free: entries change on the
 * exit path (a vCPU's first exit, or KVM_RUN from another thread) and
 * when a task_struct is freed, each with one cmpxchg of the key.
 *
 * An entry's key is a task, a task with bit 0 set (its task_struct was
 * freed: the filter count is already dropped), a task with bit 1 set
 * (being taken: its vCPU is not written yet), or NULL (never used: ends
 * the probe chain). An entry is free for a new thread when it was never
 * used, its task is gone, or its vCPU has moved to another thread; taking
 * it from a live task drops that task's filter count, exactly once,
 * because only one cmpxchg of the key can win.
 */
#include <linux/log2.h>
#include <linux/vmalloc.h>

#include "mem.h"
#include "threads.h"
#include "vcpu_table.h"
#include "vcpu_time.h"

#define HVT_THREAD_PROBES 32
#define GONE 1UL
#define TAKING 2UL

struct hvt_thread {
	unsigned long key;	/* struct task_struct *, | GONE once freed */
	struct hvt_vcpu *v;
};

u8 hvt_thread_filter[1 << HVT_THREAD_FILTER_BITS];
static struct hvt_vmem threads_mem;
static struct hvt_thread *threads;
static unsigned int thread_bits;

int hvt_threads_init(void)
{
	thread_bits = ilog2(hvt_vcpu_slots());
	if (hvt_vmem_alloc(&threads_mem,
			   array_size(1UL << thread_bits, sizeof(*threads)),
			   NUMA_NO_NODE))
		return -ENOMEM;
	threads = threads_mem.addr;
	memset(hvt_thread_filter, 0, sizeof(hvt_thread_filter));
	return 0;
}

void hvt_threads_exit(void)
{
	hvt_vmem_free(&threads_mem);
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
		unsigned long key = READ_ONCE(t->key);

		if (!key)
			return NULL;
		if (key == (unsigned long)p)
			return t;
	}
	return NULL;
}

struct hvt_vcpu *hvt_thread_vcpu_slow(const struct task_struct *p)
{
	struct hvt_thread *t = thread_find(p);
	struct hvt_vcpu *v = t ? READ_ONCE(t->v) : NULL;

	return v && READ_ONCE(v->split.task) == p ? v : NULL;
}

/* Saturated counts stay: a stuck count only costs lookups. */
static void filter_add(unsigned long key, int delta)
{
	u8 *n = &hvt_thread_filter[hash_ptr((void *)key,
					    HVT_THREAD_FILTER_BITS)];
	u8 old = READ_ONCE(*n);

	while (old != U8_MAX) {
		u8 seen = cmpxchg(n, old, old + delta);

		if (seen == old)
			return;
		old = seen;
	}
}

/* Free for a new thread: never used, gone, or its vCPU moved on. */
static bool reusable(unsigned long key, const struct hvt_thread *t)
{
	const struct hvt_vcpu *v = READ_ONCE(t->v);

	if (key & TAKING)
		return false;
	return !key || (key & GONE) || !v ||
	       READ_ONCE(v->split.task) != (struct task_struct *)key;
}

/*
 * Point P's entry at V: its own, or one taken from a thread that left.
 * *WAS is the vCPU P's own entry pointed at before. Either way the key
 * is ours (TAKING) while the vCPU is written, so no other thread's
 * taking of the entry can interleave with ours.
 */
static bool thread_set(struct task_struct *p, struct hvt_vcpu *v,
		       struct hvt_vcpu **was)
{
	unsigned long want = (unsigned long)p, key;
	struct hvt_thread *t;
	unsigned int i;

	*was = NULL;
	t = thread_find(p);
	if (t && cmpxchg(&t->key, want, want | TAKING) == want) {
		/* Readers check split.task: the old vCPU no longer matches. */
		*was = READ_ONCE(t->v);
		WRITE_ONCE(t->v, v);
		/* The new vCPU is in place before the entry matches again. */
		smp_store_release(&t->key, want);
		return true;
	}
	for (i = 0; i < HVT_THREAD_PROBES; i++) {
		t = thread_at(p, i);
		key = READ_ONCE(t->key);
		if (!reusable(key, t) ||
		    cmpxchg(&t->key, key, want | TAKING) != key)
			continue;
		/* A live task that left its vCPU: its count goes. */
		if (key && !(key & GONE))
			filter_add(key, -1);
		filter_add(want, 1);
		WRITE_ONCE(t->v, v);
		/* The vCPU is in place before the entry matches P. */
		smp_store_release(&t->key, want);
		return true;
	}
	return false;
}

void hvt_thread_add(struct hvt_vcpu *v)
{
	struct task_struct *p = current;
	struct hvt_vcpu *was;

	WRITE_ONCE(v->tid, p->pid);
	if (!thread_set(p, v, &was)) {
		/*
		 * The table is full: this thread's scheduling goes unseen,
		 * and V must not name a task that hvt_thread_gone() will
		 * never be told about.
		 */
		hvt_split_own(&v->split, NULL);
		return;
	}
	/* One thread running two vCPUs in turn drives only the one it runs. */
	if (was && was != v)
		hvt_split_let_go(&was->split, p);
	hvt_split_own(&v->split, p);
}

void hvt_thread_gone(const struct task_struct *p)
{
	unsigned long key = (unsigned long)p;
	struct hvt_thread *t = thread_find(p);
	struct hvt_vcpu *v;

	if (!t || cmpxchg(&t->key, key, key | GONE) != key)
		return;
	filter_add(key, -1);
	v = READ_ONCE(t->v);
	/* Its vCPU has no thread until the next exit or KVM_RUN. */
	if (v)
		cmpxchg(&v->split.task, (struct task_struct *)p, NULL);
}
