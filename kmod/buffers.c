// SPDX-License-Identifier: GPL-2.0
/*
 * The set of per-CPU rings: allocation, resizing while stopped, the
 * single-reader rule, and the watermark wake-up. Probes reach the set
 * through an RCU pointer, so a resize never pulls a ring from under one.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mm.h>
#include <linux/netlink.h>
#include <net/net_namespace.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "hvtrace.h"

struct hvt_buffers {
	struct rcu_head rcu;
	u32 kb;
	u8 mode;
	struct hvt_ring ring[];	/* indexed by CPU */
};

static struct hvt_buffers __rcu *buffers;
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

static void buffers_free(struct hvt_buffers *b)
{
	int cpu;

	if (!b)
		return;
	for_each_possible_cpu(cpu)
		if (b->ring[cpu].slots)
			hvt_ring_free(&b->ring[cpu]);
	kfree(b);
}

static struct hvt_buffers *buffers_alloc(u32 kb, u8 mode)
{
	unsigned long nr = hvt_ring_slots_for_kb(kb);
	struct hvt_buffers *b;
	int cpu;

	b = kzalloc(struct_size(b, ring, nr_cpu_ids), GFP_KERNEL);
	if (!b)
		return NULL;
	b->kb = kb;
	b->mode = mode;
	for_each_possible_cpu(cpu) {
		if (hvt_ring_init(&b->ring[cpu], cpu, nr, mode,
				  hvt_buffers_wake)) {
			buffers_free(b);
			return NULL;
		}
	}
	return b;
}

/* No request may take more than a quarter of the machine's memory. */
static bool too_big(u32 kb)
{
	u64 bytes = (u64)kb * 1024 * num_possible_cpus();

	return bytes > ((u64)totalram_pages() << PAGE_SHIFT) / 4;
}

int hvt_buffers_init(u32 kb, u8 mode)
{
	struct hvt_buffers *b;

	if (too_big(kb)) {
		pr_err("buffer_kb=%u on %u CPUs exceeds a quarter of memory\n",
		       kb, num_possible_cpus());
		return -EINVAL;
	}
	b = buffers_alloc(kb, mode);
	if (!b)
		return -ENOMEM;
	rcu_assign_pointer(buffers, b);
	return 0;
}

void hvt_buffers_exit(void)
{
	cancel_work_sync(&notify_work);
	buffers_free(rcu_dereference_protected(buffers, true));
	RCU_INIT_POINTER(buffers, NULL);
	/* A wake-up queued by the last irq_work. */
	cancel_work_sync(&notify_work);
}

/*
 * Probes (preemption off) and the reader (which holds the reader slot, so
 * no resize can run) may look at the rings.
 */
struct hvt_ring *hvt_ring_of(int cpu)
{
	struct hvt_buffers *b;

	b = rcu_dereference_check(buffers,
				  rcu_read_lock_sched_held() || hvt_reader_active());

	return &b->ring[cpu];
}

u32 hvt_buffers_kb(void)
{
	return rcu_dereference_protected(buffers, true)->kb;
}

u8 hvt_buffers_mode(void)
{
	return rcu_dereference_protected(buffers, true)->mode;
}

/* Genl mutex held, recording stopped, no reader. */
int hvt_buffers_resize(u32 kb, u8 mode, struct netlink_ext_ack *extack)
{
	struct hvt_buffers *old = rcu_dereference_protected(buffers, true);
	struct hvt_buffers *b;

	if (kb == old->kb && mode == old->mode)
		return 0;
	if (too_big(kb)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "buffer size times CPUs exceeds a quarter of memory");
		return -EINVAL;
	}
	b = buffers_alloc(kb, mode);
	if (!b) {
		NL_SET_ERR_MSG_MOD(extack, "no memory for the new buffers");
		return -ENOMEM;
	}
	rcu_assign_pointer(buffers, b);
	synchronize_rcu();
	buffers_free(old);
	return 0;
}

bool hvt_reader_get(void)
{
	return atomic_cmpxchg(&reader, 0, 1) == 0;
}

/*
 * The reader lease: the first netlink socket that drains owns the rings
 * until it closes, so two recorders never split one event stream between
 * them. 0 = nobody.
 */
static atomic_t lease_portid = ATOMIC_INIT(0);

bool hvt_lease_take(u32 portid)
{
	u32 old = atomic_cmpxchg(&lease_portid, 0, portid);

	return !old || old == portid;
}

bool hvt_lease_held(void)
{
	return atomic_read(&lease_portid);
}

static int lease_release(struct notifier_block *nb, unsigned long event,
			 void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event == NETLINK_URELEASE && n->protocol == NETLINK_GENERIC &&
	    net_eq(n->net, &init_net))
		atomic_cmpxchg(&lease_portid, n->portid, 0);
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

void hvt_reader_put(void)
{
	atomic_set(&reader, 0);
}

bool hvt_reader_active(void)
{
	return atomic_read(&reader);
}

/* Genl mutex held and the reader slot taken by the caller. */
void hvt_buffers_clear(void)
{
	struct hvt_buffers *b = rcu_dereference_protected(buffers, true);
	int cpu;

	for_each_possible_cpu(cpu) {
		struct hvt_ring *r = &b->ring[cpu];

		hvt_ring_discard_all(r);
		r->overwritten = 0;
		r->drained = 0;
		WRITE_ONCE(r->notified, false);
	}
}
