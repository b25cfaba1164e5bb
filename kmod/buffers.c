// SPDX-License-Identifier: GPL-2.0
/*
 * The set of per-CPU rings: a ring for each CPU that came online since
 * load, resizing while stopped, the single-reader rule, the watermark
 * wake-up. Probes reach the set through an RCU pointer, so a resize never
 * pulls a ring from under one.
 *
 * Memory: a request is refused, with what is available, when the rings
 * would take more than half of the memory the host has available; the
 * rings are then allocated page by page without ever invoking the OOM
 * killer (mem.c), so a request that still cannot be met fails cleanly.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/irq_work.h>
#include <linux/cpu.h>
#include <linux/mm.h>
#include <linux/netlink.h>
#include <net/net_namespace.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "buffers.h"
#include "genl.h"
#include "mem.h"
#include "stats.h"

struct hvt_buffers __rcu *hvt_buffers;
static atomic_t reader = ATOMIC_INIT(0);

static void notify_fn(struct work_struct *work)
{
	hvt_genl_notify_watermark();
}

static DECLARE_WORK(notify_work, notify_fn);

void hvt_buffers_wake(struct irq_work *w)
{
	/* Hard-irq context: netlink needs process context. */
	schedule_work(&notify_work);
}

/* The set in force, for its writers (control mutex or hotplug lock). */
static struct hvt_buffers *current_set(void)
{
	return rcu_dereference_protected(hvt_buffers, true);
}

static void buffers_free(struct hvt_buffers *b)
{
	int cpu;

	if (!b)
		return;
	for_each_possible_cpu(cpu)
		if (b->ring[cpu].slots)
			hvt_ring_free(&b->ring[cpu]);
	kvfree(b);
}

static size_t ring_bytes(u32 kb)
{
	return PAGE_ALIGN(hvt_ring_slots_for_kb(kb) *
			  sizeof(struct hvtrace_event));
}

size_t hvt_buffers_cpu_bytes(void)
{
	return ring_bytes(hvt_buffers_kb());
}

/* Half of what is available: the guests need the rest. */
static bool affordable(u64 bytes)
{
	return bytes <= hvt_mem_available() / 2;
}

static int ring_alloc(struct hvt_buffers *b, unsigned int cpu)
{
	return hvt_ring_init(&b->ring[cpu], cpu, hvt_ring_slots_for_kb(b->kb),
			     b->mode, hvt_buffers_wake);
}

/* A set of KB-sized rings for every traced CPU; hotplug lock held. */
static struct hvt_buffers *buffers_alloc(u32 kb, u8 mode)
{
	struct hvt_buffers *b;
	int cpu;

	b = kvzalloc(struct_size(b, ring, nr_cpu_ids), GFP_KERNEL);
	if (!b)
		return NULL;
	b->kb = kb;
	b->mode = mode;
	for_each_cpu(cpu, &hvt_cpus_traced) {
		if (ring_alloc(b, cpu)) {
			buffers_free(b);
			return NULL;
		}
	}
	return b;
}

int hvt_buffers_init(u32 kb, u8 mode)
{
	u64 bytes = (u64)ring_bytes(kb) * num_online_cpus();
	struct hvt_buffers *b;

	if (!affordable(bytes)) {
		pr_err("buffer_kb=%u: %llu MiB of rings (%u CPUs) exceed half of the %llu MiB available\n",
		       kb, bytes >> 20, num_online_cpus(),
		       hvt_mem_available() >> 20);
		return -ENOMEM;
	}
	/* No CPU is traced yet: the rings come with the CPUs (cpus.c). */
	b = buffers_alloc(kb, mode);
	if (!b)
		return -ENOMEM;
	rcu_assign_pointer(hvt_buffers, b);
	return 0;
}

/*
 * After the probes are gone: no wake-up is pending or runs once this
 * returns, so the family can go (notify_fn multicasts on it).
 */
void hvt_buffers_quiesce(void)
{
	struct hvt_buffers *b = current_set();
	int cpu;

	for_each_possible_cpu(cpu)
		if (b && b->ring[cpu].slots)
			irq_work_sync(&b->ring[cpu].wake);
	cancel_work_sync(&notify_work);
}

void hvt_buffers_exit(void)
{
	hvt_buffers_quiesce();
	buffers_free(current_set());
	RCU_INIT_POINTER(hvt_buffers, NULL);
}

int hvt_buffers_cpu_prepare(unsigned int cpu)
{
	struct hvt_buffers *b = current_set();
	size_t bytes = ring_bytes(b->kb);

	if (b->ring[cpu].slots)
		return 0;
	if (!affordable(bytes)) {
		pr_warn("CPU %u: no ring: %zu KiB exceed half of the %llu KiB available\n",
			cpu, bytes >> 10, hvt_mem_available() >> 10);
		return -ENOMEM;
	}
	return ring_alloc(b, cpu);
}

/*
 * Probes (preemption off) and the reader (which holds the reader slot, so
 * no resize can run) may look at the rings.
 */
u32 hvt_buffers_kb(void)
{
	return current_set()->kb;
}

u8 hvt_buffers_mode(void)
{
	return current_set()->mode;
}

static u64 buffers_pending(const struct hvt_buffers *b)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		if (b->ring[cpu].slots)
			n += hvt_ring_pending(&b->ring[cpu]);
	return n;
}

/* The new rings go on counting where the old ones stopped. */
static void buffers_carry_counts(struct hvt_buffers *b,
				 const struct hvt_buffers *old)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		b->ring[cpu].drained = old->ring[cpu].drained;
		b->ring[cpu].overwritten = old->ring[cpu].overwritten;
		b->ring[cpu].drained_base = old->ring[cpu].drained_base;
		b->ring[cpu].overwritten_base =
			old->ring[cpu].overwritten_base;
	}
}

int hvt_buffers_resize(u32 kb, u8 mode, struct netlink_ext_ack *extack)
{
	struct hvt_buffers *old = current_set();
	struct hvt_buffers *b;
	unsigned int n;
	u64 bytes, pending;

	if (kb == old->kb && mode == old->mode)
		return 0;
	/* No CPU comes up with a ring of the old size meanwhile. */
	cpus_read_lock();
	/* Nothing records now (the caller checked): the count is exact. */
	pending = buffers_pending(old);
	if (pending) {
		cpus_read_unlock();
		HVT_ERR_MSG_FMT(extack,
				"%llu records are still in the buffers: drain or clear them first",
				pending);
		return -EBUSY;
	}
	n = cpumask_weight(&hvt_cpus_traced);
	bytes = (u64)ring_bytes(kb) * n;
	if (!affordable(bytes)) {
		cpus_read_unlock();
		HVT_ERR_MSG_FMT(extack,
				"%llu MiB of rings (%u CPUs) exceed half of the %llu MiB available",
				bytes >> 20, n, hvt_mem_available() >> 20);
		return -ENOMEM;
	}
	b = buffers_alloc(kb, mode);
	if (!b) {
		cpus_read_unlock();
		HVT_ERR_MSG_FMT(extack, "no memory for %llu MiB of rings (%llu MiB available)",
				bytes >> 20, hvt_mem_available() >> 20);
		return -ENOMEM;
	}
	buffers_carry_counts(b, old);
	rcu_assign_pointer(hvt_buffers, b);
	cpus_read_unlock();
	synchronize_rcu();
	buffers_free(old);
	return 0;
}

bool hvt_reader_get(void)
{
	return atomic_cmpxchg(&reader, 0, 1) == 0;
}

void hvt_reader_put(void)
{
	atomic_set(&reader, 0);
}

bool hvt_reader_active(void)
{
	return atomic_read(&reader);
}

/*
 * The lease: who owns the rings. A netlink port (its portid), the open
 * device file (ring_device.c), or 0 = nobody; one value, so the two kinds
 * of owner cannot both take it.
 */
#define LEASE_DEVICE	BIT_ULL(32)	/* above every portid */
static atomic64_t lease = ATOMIC64_INIT(0);

bool hvt_lease_take(u32 portid)
{
	s64 old = atomic64_cmpxchg(&lease, 0, portid);

	return !old || old == portid;
}

bool hvt_lease_take_device(void)
{
	return atomic64_cmpxchg(&lease, 0, LEASE_DEVICE) == 0;
}

void hvt_lease_put_device(void)
{
	atomic64_cmpxchg(&lease, LEASE_DEVICE, 0);
}

bool hvt_lease_held(void)
{
	return atomic64_read(&lease);
}

static int lease_release(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net))
		atomic64_cmpxchg(&lease, n->portid, 0);
	return NOTIFY_DONE;
}

static struct notifier_block lease_nb = {
	.notifier_call = lease_release,
};

int hvt_lease_init(void)
{
	return netlink_register_notifier(&lease_nb);
}

void hvt_lease_exit(void)
{
	netlink_unregister_notifier(&lease_nb);
}

void hvt_buffers_clear(void)
{
	struct hvt_buffers *b = current_set();
	int cpu;

	for_each_possible_cpu(cpu) {
		struct hvt_ring *r = &b->ring[cpu];

		if (!r->slots)
			continue;
		hvt_ring_discard_all(r);
		r->overwritten_base = r->overwritten;
		r->drained_base = r->drained;
		WRITE_ONCE(r->notified, false);
	}
}
