// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU record rings.
 *
 * Positions count records from 0 and only grow; slot = position & mask.
 * A slot's seq is its commit mark: position + 1 once committed, 0 while
 * being written. The writer clears the mark, fills the record and then
 * publishes the mark with release semantics; the reader reads the mark
 * (acquire), copies, and reads the mark again: a changed mark means the
 * writer overwrote the slot under it (overwrite mode), so the copy is
 * thrown away. That is a seqcount per slot, which needs no lock and lets
 * nested writers (interrupt, NMI) commit out of order.
 *
 * For example, 8 slots (mask 7): the reader has taken everything before
 * position 17 (tail = 17), the writers have reserved up to 22 (head =
 * 23, the next position to reserve):
 *
 *   slot          0      1      2      3      4      5      6      7
 *             +------+------+------+------+------+------+------+------+
 *   position  |  16  |  17  |  18  |  19  |  20  |  21  |  22  |  15  |
 *   seq       |  17  |  18  |  19  |  20  |   0  |  22  |  23  |  16  |
 *             +------+------+------+------+------+------+------+------+
 *               read     ^                 writing          ^    read
 *                      tail                             head - 1
 *
 * 17 to 19 are committed (seq = position + 1): the reader copies them.
 * 20 is reserved but not committed (seq 0): its writer was interrupted
 * by the one that took 21 and 22 and committed first; the reader stops
 * at 20 (tail = 20) and comes back for it. 15 and 16 were read, so
 * their slots take 23 and 24; discard mode reserves no further
 * (head - tail > mask). Overwrite mode reserves on, and the reader skips
 * what it finds lapped: head - tail beyond the ring, or a mark from a
 * later lap (seq > tail + 1).
 */
#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/topology.h>

#include "ring.h"

/*
 * The record is ABI: READ_EVENTS copies it out as it is, and readers
 * split the payload by this size (hvctl asserts the same).
 */
static_assert(sizeof(struct hvtrace_event) == 160);
static_assert(offsetof(struct hvtrace_event, part_ns) == 96);
static_assert(offsetof(struct hvtrace_event, preempt_comm) == 144);

unsigned long hvt_ring_slots_for_kb(u32 kb)
{
	unsigned long n = ((unsigned long)kb * 1024) / sizeof(struct hvtrace_event);

	return n < 2 ? 2 : rounddown_pow_of_two(n);
}

int hvt_ring_init(struct hvt_ring *r, int cpu, unsigned long nr_slots,
		  u8 mode, void (*wake)(struct irq_work *))
{
	memset(r, 0, sizeof(*r));
	if (hvt_vmem_alloc(&r->mem, array_size(nr_slots, sizeof(*r->slots)),
			   cpu_to_node(cpu)))
		return -ENOMEM;
	r->mask = nr_slots - 1;
	r->mode = mode;
	r->cpu = cpu;
	local_set(&r->head, 0);
	init_irq_work(&r->wake, wake);
	/* Last: a reader that sees the slots sees a whole ring. */
	smp_store_release(&r->slots, (struct hvtrace_event *)r->mem.addr);
	return 0;
}

void hvt_ring_free(struct hvt_ring *r)
{
	irq_work_sync(&r->wake);
	hvt_vmem_free(&r->mem);
	r->slots = NULL;
}

unsigned int hvt_ring_read(struct hvt_ring *r, struct hvtrace_event *dst,
			   unsigned int max)
{
	unsigned long tail = r->tail, head, size = r->mask + 1;
	unsigned int n = 0;

	while (n < max) {
		const struct hvtrace_event *ev;
		u64 seq;

		head = local_read(&r->head);
		if (tail == head)
			break;
		if (head - tail > size) {
			/* Overwrite mode: the writer lapped the reader. */
			r->overwritten += head - tail - size;
			tail = head - size;
		}
		ev = &r->slots[tail & r->mask];
		/* Pairs with the commit's release: the record is complete. */
		seq = smp_load_acquire(&ev->seq);
		if (seq == tail + 1) {
			dst[n] = *ev;
			/* The copy happens before the second look at the mark. */
			smp_rmb();
			if (READ_ONCE(ev->seq) == seq)
				n++;
			else
				r->overwritten++;	/* torn by a lapping writer */
			tail++;
			continue;
		}
		if (seq > tail + 1) {
			/* Already reused by a later lap: lost. */
			r->overwritten++;
			tail++;
			continue;
		}
		/* Reserved but not committed yet: come back later. */
		break;
	}
	r->drained += n;
	/* Our copies are done before the writer may reuse the slots. */
	smp_store_release(&r->tail, tail);
	return n;
}

int hvt_ring_release(struct hvt_ring *r, u64 consumed, u64 taken)
{
	unsigned long tail = r->tail;

	/* Only what the writers reserved, and read whole at most once. */
	if (consumed > local_read(&r->head) - tail || taken > consumed)
		return -EINVAL;
	/* Nothing is lapped in discard mode: a gap would be a reader's bug. */
	if (r->mode == HVTRACE_MODE_DISCARD && taken != consumed)
		return -EINVAL;
	r->drained += taken;
	r->overwritten += consumed - taken;
	/* The reader's loads of the slots come before their reuse. */
	smp_store_release(&r->tail, tail + consumed);
	return 0;
}

void hvt_ring_discard_all(struct hvt_ring *r)
{
	/* Like a read of everything: release the slots to the writer. */
	smp_store_release(&r->tail, local_read(&r->head));
}
