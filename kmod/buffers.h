/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-CPU rings as a set: a ring for each CPU that came online since
 * load (cpus.c), resizing while stopped, the single reader and its
 * lease, the watermark wake-up. Probes reach the set through an RCU
 * pointer, so a resize never pulls a ring from under one.
 */
#ifndef _HVT_BUFFERS_H
#define _HVT_BUFFERS_H

#include <linux/irq_work.h>
#include <linux/rcupdate.h>
#include <linux/types.h>

#include "ring.h"

struct netlink_ext_ack;

struct hvt_buffers {
	struct rcu_head rcu;
	u32 kb;
	u8 mode;
	struct hvt_ring ring[];	/* indexed by CPU; no slots: no ring */
};

/* Replaced whole by a resize, freed after a grace period. */
extern struct hvt_buffers __rcu *hvt_buffers;

int hvt_buffers_init(u32 kb, u8 mode);
void hvt_buffers_exit(void);
void hvt_buffers_quiesce(void);
/* CPU comes online: its ring (process context, hotplug lock held). */
int hvt_buffers_cpu_prepare(unsigned int cpu);
/* Control mutex held, recording stopped, no reader. */
int hvt_buffers_resize(u32 kb, u8 mode, struct netlink_ext_ack *extack);
u32 hvt_buffers_kb(void);
u8 hvt_buffers_mode(void);
/* Bytes of one CPU's ring at the current size. */
size_t hvt_buffers_cpu_bytes(void);
/* Control mutex held and the reader slot taken by the caller. */
void hvt_buffers_clear(void);
/* Ring I passed its watermark (probe context). */
void hvt_buffers_wake(struct irq_work *w);

/*
 * One reader at a time drains; the first netlink socket that drains owns
 * the rings until it closes, or the device file while it is open (the
 * lease), so two recorders never split one event stream between them.
 */
bool hvt_reader_get(void);
void hvt_reader_put(void);
bool hvt_reader_active(void);
bool hvt_lease_take(u32 portid);
bool hvt_lease_take_device(void);
void hvt_lease_put_device(void);
bool hvt_lease_held(void);
int hvt_lease_init(void);
void hvt_lease_exit(void);

/*
 * CPU's ring, or NULL when it has none (probes, or the reader). Inline:
 * every recorded exit asks.
 */
static inline struct hvt_ring *hvt_ring_of(int cpu)
{
	struct hvt_buffers *b;
	struct hvt_ring *r;

	b = rcu_dereference_check(hvt_buffers,
				  rcu_read_lock_sched_held() || hvt_reader_active());
	r = &b->ring[cpu];
	return READ_ONCE(r->slots) ? r : NULL;
}

#endif /* _HVT_BUFFERS_H */
