/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU lock-free rings of fixed-size records. One writer per CPU (the
 * probes, with preemption off; a writer nested in an interrupt or NMI on
 * the same CPU is safe: reservation is a local cmpxchg and each record
 * carries its own commit mark), one reader at a time for all CPUs.
 */
#ifndef _HVT_RING_H
#define _HVT_RING_H

#include <linux/irq_work.h>
#include <linux/minmax.h>
#include <linux/types.h>
#include <asm/barrier.h>
#include <asm/local.h>
#include <uapi/linux/hvtrace.h>

#include "mem.h"

struct hvt_ring {
	/* Writer side. */
	local_t head;			/* records reserved so far */
	bool notified;			/* watermark notification pending */
	struct irq_work wake;		/* tells the reader, out of probe ctx */
	/* Reader side. */
	unsigned long tail ____cacheline_aligned;	/* records consumed */
	u64 overwritten;		/* overwrite mode: lost to the writer */
	u64 drained;			/* records handed to the reader */
	/* Both at the last clear (they are never zeroed: stats.h). */
	u64 overwritten_base;
	u64 drained_base;
	/* Fixed. */
	unsigned long mask;		/* nr slots - 1, a power of two */
	u8 mode;			/* enum hvtrace_mode */
	int cpu;
	struct hvtrace_event *slots;	/* in mem */
	struct hvt_vmem mem;
};

/* Slots for KB kilobytes, rounded down to a power of two (at least 2). */
unsigned long hvt_ring_slots_for_kb(u32 kb);

/* -ENOMEM when the host cannot spare the memory (never an OOM kill). */
int hvt_ring_init(struct hvt_ring *r, int cpu, unsigned long nr_slots,
		  u8 mode, void (*wake)(struct irq_work *));
void hvt_ring_free(struct hvt_ring *r);

/*
 * Writer: reserve a slot, fill it, commit it. Returns NULL when a
 * discard-mode ring is full (the caller counts the lost event). The
 * slot's seq is the commit mark: never write it directly. Inline: the
 * probes record every exit through them.
 */
static __always_inline struct hvtrace_event *
hvt_ring_reserve(struct hvt_ring *r, u64 *seq)
{
	unsigned long head, tail;
	struct hvtrace_event *ev;

	do {
		head = local_read(&r->head);
		if (r->mode == HVTRACE_MODE_DISCARD) {
			/* Pairs with the reader's release of tail: the slots
			 * it freed are really done with.
			 */
			tail = smp_load_acquire(&r->tail);
			if (head - tail > r->mask)
				return NULL;	/* full: the caller counts it */
		}
	} while (local_cmpxchg(&r->head, head, head + 1) != head);

	ev = &r->slots[head & r->mask];
	WRITE_ONCE(ev->seq, 0);
	/* The mark is cleared before the record's stores: a reader copying
	 * this slot concurrently sees it change.
	 */
	smp_wmb();
	*seq = head + 1;
	return ev;
}

static __always_inline void hvt_ring_commit(struct hvt_ring *r,
					    struct hvtrace_event *ev, u64 seq)
{
	/* Publish: the record's stores are visible before its mark. */
	smp_store_release(&ev->seq, seq);
}

/*
 * Reader: copy up to MAX committed records into DST, advancing the tail.
 * Stops at the first record not yet committed. In overwrite mode, records
 * the writer already overwrote are skipped and counted. Returns the number
 * copied.
 */
unsigned int hvt_ring_read(struct hvt_ring *r, struct hvtrace_event *dst,
			   unsigned int max);
/*
 * Reader in place (ring_device.c): CONSUMED records past the tail were
 * read where they lie, TAKEN of them whole (the rest lapped by the writer
 * in overwrite mode); release them to the writer. -EINVAL, and nothing
 * changes, when the counts cannot be right.
 */
int hvt_ring_release(struct hvt_ring *r, u64 consumed, u64 taken);
/* Reader: drop everything buffered. */
void hvt_ring_discard_all(struct hvt_ring *r);
/* Records buffered and not read (approximate while writers run). */
static inline unsigned long hvt_ring_pending(const struct hvt_ring *r)
{
	unsigned long used = local_read(&r->head) - READ_ONCE(r->tail);

	return min(used, r->mask + 1);
}

#endif /* _HVT_RING_H */
