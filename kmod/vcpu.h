/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One vCPU known to hvtrace: its identity, the exit in flight, where that
 * exit's time goes (struct hvt_split, vcpu_time.h), and the vCPU's
 * aggregates. The slots live in the vCPU table (vcpu_table.c), which
 * gives a slot back when KVM destroys its vCPU.
 *
 * Writers: the vCPU's own exit path (a vCPU runs on one thread at a time:
 * KVM holds vcpu->mutex across KVM_RUN), and the scheduler's probes about
 * the vCPU thread, which the run-queue locks order after the thread's
 * own code. When another thread takes the vCPU over (KVM_RUN from a
 * second thread) or KVM destroys it, hvt_split_own() waits out a
 * scheduler probe about the old thread (the `busy` handshake).
 */
#ifndef _HVT_VCPU_H
#define _HVT_VCPU_H

#include <linux/atomic.h>
#include <linux/llist.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/types.h>

#include "irq.h"
#include "stats.h"
#include "vcpu_time.h"

struct kvm;
struct kvm_vcpu;
struct hvt_watch_vcpu;

/* The guest mark of the exit in flight (guest_mark.c). */
struct hvt_mark {
	u64 ts;			/* local_clock(), read with host_tsc */
	u64 id;
	u64 guest_tsc;		/* what the guest read before its CPUID */
	u64 host_tsc;
	u64 tsc_offset;
	u64 tsc_ratio;
	u64 tsc_frac_bits;
	u32 second;		/* marks recorded in this second of the clock */
	u32 recorded;
};

/*
 * A vCPU's aggregates: its exits, and the rest of its time. Counters
 * since the vCPU's first exit, never zeroed; users see them less their
 * baseline, taken at the vCPU's first count after a clear.
 */
struct hvt_vcpu_stat {
	struct hvt_reason_stat exits;
	u64 guest_ns;		/* entry to exit */
	u64 preemptions;	/* switched out runnable inside KVM */
	u64 preempted_ns;	/* and off CPU that long */
	struct hvt_vcpu_irqs irqs;	/* interrupts delivered (irq.h) */
};

/* A vCPU's exits of one reason since its first exit: never cleared. */
struct hvt_vcpu_rsn {
	u64 count;
	u64 ns;
};

/*
 * In hvt_vcpu.flags beside the HVTRACE_EVF_* bits, never in a record:
 * the exit in flight was read while nothing wanted its details, so on
 * SVM only its reason was (exit_info.h). An exit that ends after
 * recording or a watch began is recorded without the rest.
 */
#define HVT_VCPU_BRIEF	BIT(15)
static_assert(!(HVT_VCPU_BRIEF & __HVTRACE_EVF_ALL));

struct hvt_vcpu {
	const void *key;	/* struct kvm_vcpu *, or a vcpu_table.c marker */
	const struct kvm *kvm;		/* with vm_pid and vcpu_id: identity */
	u32 vm_id;
	u32 vm_pid;
	u32 vcpu_id;
	u32 tid;
	/* The exit in flight: its reason and vendor information. */
	u8 isa;
	u16 flags;
	u16 cpu_exit;
	u32 reason;
	u32 intr_info;
	u32 error_code;
	u64 info1;
	u64 info2;
	u64 addr;
	u64 rip;
	u64 entry_ts;		/* the last entry closing an exit */
	u64 guest_ns;		/* in the guest before the exit in flight */
	/* Its time and where it goes (vcpu_time.h). */
	struct hvt_split split;
	/* Which vCPU the slot holds: bumped each time one claims it. */
	u32 life;
	/* The watch (watch.h): the scan sets and clears it; the vCPU's first
	 * exit may take one from the pool where there is none.
	 */
	struct hvt_watch_vcpu *watch;
	u32 watch_kicked;	/* life + 1: the scan was asked for one */
	u32 watch_minute;	/* captures in this minute of the clock */
	u32 watch_count;
	u64 watch_suppressed;	/* triggers without capture since the last */
	/* Aggregates, with their baseline taken lazily (hvt_vcpu_stat()). */
	unsigned long gen;
	struct hvt_vcpu_stat stat;
	struct hvt_vcpu_stat base;	/* stat at the last clear */
	u8 rsn_isa;		/* of its exits, for rsn's reasons */
	/* The table's: a destroyed vCPU's slot waits for a grace period. */
	struct llist_node retired;
	/* Guest marks: rare, out of the exits' way. */
	struct hvt_mark mark;
	/*
	 * Interrupts raised for the vCPU and not yet injected: when, per
	 * vector (irq.h). Written by raisers on any CPU, taken by the
	 * vCPU's entries.
	 */
	u64 raised[256];
	struct hvt_irq_inflight irq_inflight;	/* the vCPU's thread's */
	/* Its deliveries by time since the clear, restarted with max_ns. */
	struct hvt_irq_hist irq_hist;
	/*
	 * Its LAPIC timer's last expiry (a TIMER stamp, 0: none) and the
	 * vector LVTT had then: the timer's raise takes it (probe_irq.c).
	 */
	u64 timer_expiry;
	u8 timer_vec;
	/*
	 * Exits per reason (hvt_vcpu_rsn_index()): 292 x 16 bytes, last.
	 * Slots are preallocated (vcpu_table.c), so this is never allocated
	 * on the exit path; a new vCPU's starts zeroed (slot_reset()).
	 */
	struct hvt_vcpu_rsn rsn[HVT_VCPU_NR_RSN];
};

/*
 * V's aggregates, to count in. The first count since a clear takes the
 * baseline: what V counted until then (no other writer: vCPU's own
 * exit path and the scheduler's probes about its thread, in order), and
 * starts its minimum and maximum again.
 */
static inline struct hvt_vcpu_stat *hvt_vcpu_stat(struct hvt_vcpu *v)
{
	if (unlikely(v->gen != READ_ONCE(hvt_gen))) {
		v->base = v->stat;
		v->stat.exits.min_ns = U64_MAX;
		v->stat.exits.max_ns = 0;
		hvt_irqs_restart(&v->stat.irqs);
		memset(&v->irq_hist, 0, sizeof(v->irq_hist));
		v->irq_inflight.in_hist = false;
		v->gen = READ_ONCE(hvt_gen);
	}
	return &v->stat;
}

#endif /* _HVT_VCPU_H */
