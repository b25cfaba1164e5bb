/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Interrupt delivery: from KVM accepting an interrupt into a vCPU's local
 * APIC (the raise) to the entry that injects it (probe_irq.c).
 *
 *   raiser's thread                      target vCPU's thread
 *   apic_timer_fn (a LAPIC timer expired: as a raise, source TIMER;
 *     the raise from the vCPU's thread that follows keeps its stamp)
 *   __apic_accept_irq(apic, vec)
 *     IRR bit set: merges, nothing
 *     ISR bit set: raised[vec] =
 *       now (if 0) -------------------.
 *     else raised[vec] = now ---------|
 *   kvm_apicv_accept_irq: posted,     |  (kicked, woken, or runs later)
 *     raised[vec] = 0 again           |
 *                                     `-> kvm_inj_virq(vec)
 *                                          ns = now - xchg(raised[vec], 0)
 *                                          its row: count, total, max
 *                                        kvm_inj_virq(vec, reinjected)
 *                                          the entry was cancelled (a
 *                                          preemption, a signal) or an
 *                                          exit cut the delivery: the
 *                                          same delivery, ns runs on
 *
 * The raise is the kprobe's where it can be had (every raiser: the
 * vCPU's own thread, another vCPU of its VM, anything else), else the
 * kvm_apic_accept_irq tracepoint's, which names the target by vCPU id
 * alone: only raises by a vCPU of the target's VM are then timed, and
 * always as "raised[vec] = now (if 0)". A raise that finds its vector in
 * service (maybe acknowledged, not yet injected) keeps a stamp there:
 * the earliest raise of a pending vector stays, as KVM merges later ones
 * into it (one IRR bit) and one injection serves them all. A stamp is
 * the raise's time and who raised it (HVT_IRQ_STAMP_SHIFT).
 * The counts are written by the target's own thread alone, beside its
 * other aggregates (struct hvt_vcpu_stat); posted raises are counted by
 * the raiser, atomically.
 */
#ifndef _HVT_IRQ_H
#define _HVT_IRQ_H

#include <linux/atomic.h>
#include <linux/bits.h>
#include <linux/sched.h>
#include <linux/time64.h>
#include <linux/types.h>
#include <uapi/linux/hvtrace.h>

#include "vcpu_time.h"

/* A stamp older than this at injection was never injected (a dropped
 * raise, or one delivered at a nested VM exit): not timed.
 */
#define HVT_IRQ_STALE_NS	(10ULL * NSEC_PER_SEC)

/*
 * raised[]: the raise time << HVT_IRQ_STAMP_SHIFT | who raised it
 * (HVTRACE_VCPU_IRQ_LOCAL, _IPI, _DEVICE, or _TIMER: its LAPIC timer's
 * expiry; never 0), 0 when none is pending.
 */
#define HVT_IRQ_STAMP_SHIFT	5
#define HVT_IRQ_STAMP_SOURCE	(BIT(HVT_IRQ_STAMP_SHIFT) - 1)
static_assert(!(__HVTRACE_VCPU_IRQ_ALL & ~HVT_IRQ_STAMP_SOURCE));

struct hvt_irq_row {
	u64 count;
	u64 total_ns;
	u64 max_ns;
	u8 vector;		/* 0: no vector yet (or the row of the rest) */
	u8 flags;		/* HVTRACE_VCPU_IRQ_* sources since the clear */
	/* Where total_ns went (struct hvtrace_vcpu_irq_split). */
	u64 guest_ns;
	u64 part_ns[HVTRACE_NR_PARTS];
	/* The longest runnable wait since the clear, and who ran. */
	u64 pre_ns;
	u32 pre_pid;
	u16 pre_flags;
	char pre_comm[TASK_COMM_LEN];
};

/* The first HVTRACE_VCPU_IRQ_VECTORS vectors a row each, then the rest. */
#define HVT_IRQ_ROWS	(HVTRACE_VCPU_IRQ_VECTORS + 1)

struct hvt_vcpu_irqs {
	struct hvt_irq_row row[HVT_IRQ_ROWS];
	u64 unmatched;
	u64 reinjected;
	atomic64_t posted;
};

/*
 * Each row's deliveries since the clear by time, log-linear (the
 * percentiles of HVTRACE_VCPU_IRQ_PCT): in units of 256 ns, a bucket a
 * unit below 4, then 4 an octave; the last bucket holds 15 s and more
 * (a first injection is at most HVT_IRQ_STALE_NS, a reinjection may
 * extend it). Kept out of struct hvt_vcpu_stat: restarted at a clear,
 * no baseline. A row's buckets are halved when one is full (2^32 - 1):
 * the percentiles keep their shape on a host that is never cleared.
 *
 *   ns     0  256  512  768  1024 1280 1536 1792  2048  2560 ...
 *   bucket  0    1    2    3     4    5    6    7     8     9 ...
 */
#define HVT_IRQ_HIST_UNIT_SHIFT	8
#define HVT_IRQ_HIST_SUB_BITS	2
#define HVT_IRQ_HIST_SUB	BIT(HVT_IRQ_HIST_SUB_BITS)
#define HVT_IRQ_HIST_BUCKETS	100
/* Units from 2^26 on (2^34 ns): past the last octave's 4 buckets. */
#define HVT_IRQ_HIST_TOP_SHIFT	\
	((HVT_IRQ_HIST_BUCKETS >> HVT_IRQ_HIST_SUB_BITS) + 1)

struct hvt_irq_hist {
	u32 n[HVT_IRQ_ROWS][HVT_IRQ_HIST_BUCKETS];
};

static inline unsigned int hvt_irq_hist_index(u64 ns)
{
	u64 u = ns >> HVT_IRQ_HIST_UNIT_SHIFT;
	unsigned int e;

	if (u < HVT_IRQ_HIST_SUB)
		return u;
	if (u >> HVT_IRQ_HIST_TOP_SHIFT)
		return HVT_IRQ_HIST_BUCKETS - 1;
	e = fls64(u) - 1;
	return ((e - HVT_IRQ_HIST_SUB_BITS + 1) << HVT_IRQ_HIST_SUB_BITS) +
	       (unsigned int)(u >> (e - HVT_IRQ_HIST_SUB_BITS)) -
	       HVT_IRQ_HIST_SUB;
}

/* The last delivery injected, which a reinjection of its vector extends. */
struct hvt_irq_inflight {
	u64 stamp;		/* its raise, as raised[] had it; 0: none */
	u64 ns;			/* raise to injection, as counted */
	struct hvt_window win;	/* where those NS went (a late record's) */
	u64 exits;		/* the vCPU's exits counted at its injection */
	u8 vector;
	u8 row;			/* its row's index */
	bool late;		/* the watch has it: it triggers once */
	bool in_hist;		/* in the histogram since its restart */
	bool recorded;		/* a late interrupt record has it */
};

/*
 * A reinjection re-delivers what the vCPU's last entry carried: F's
 * delivery only if that entry was its injection's, EXITS (the vCPU's
 * exits, counted one at each entry) at most one past F's (none: KVM
 * cancelled the entry; one: an exit cut the delivery). Else F's was
 * delivered long ago (with posted interrupts KVM injects no LAPIC
 * interrupt, yet reinjects one an exit cut): forgotten, not extended.
 */
static inline void hvt_irq_reinjection_check(struct hvt_irq_inflight *f,
					     u64 exits)
{
	if (exits - f->exits > 1)
		f->stamp = 0;
}

/* A raise at NOW by SOURCE (HVTRACE_VCPU_IRQ_*) as raised[] holds it. */
static inline u64 hvt_irq_stamp(u64 now, u8 source)
{
	return now << HVT_IRQ_STAMP_SHIFT | source;
}

static inline u64 hvt_irq_stamp_ts(u64 stamp)
{
	return stamp >> HVT_IRQ_STAMP_SHIFT;
}

static inline u8 hvt_irq_stamp_source(u64 stamp)
{
	return stamp & HVT_IRQ_STAMP_SOURCE;
}

/*
 * A LAPIC timer's expiry (a TIMER stamp in *EXPIRY, LVTT's vector then in
 * *EXPIRY_VEC, written in that order: vector, barrier, stamp), taken for
 * a raise of VEC from where KVM raises expiries (the caller checks that
 * one is pending in KVM): 0 for another vector, which leaves it, or for
 * none; an expiry older than the vCPU's LAST_ENTRY was dropped by KVM
 * (it raises pending ones before it enters), is taken and is not used.
 */
static inline u64 hvt_irq_expiry_take(u64 *expiry, const u8 *expiry_vec,
				      u8 vec, u64 last_entry)
{
	u64 e;

	if (!READ_ONCE(*expiry))
		return 0;
	smp_rmb();	/* the vector written before that stamp */
	if (READ_ONCE(*expiry_vec) != vec)
		return 0;
	e = xchg(expiry, 0);
	/* The vector was written before the stamp. */
	smp_rmb();
	if (!e || READ_ONCE(*expiry_vec) != vec ||
	    hvt_irq_stamp_ts(e) < last_entry)
		return 0;
	return e;
}

/*
 * A raise of VEC: stamped unless one is pending (KVM merges it into that
 * one: one IRR bit, one injection). True if stamped. For a raise whose
 * IRR bit is not known (the kvm_apic_accept_irq tracepoint).
 */
static inline bool hvt_irq_raise(u64 *raised, u8 vec, u64 stamp)
{
	return cmpxchg(&raised[vec], 0, stamp) == 0;
}

/*
 * A raise of VEC that KVM accepts with its IRR bit clear: a new pending
 * interval, whatever stamp is left over (one KVM dropped, or posted
 * unseen) is not its start. (A LAPIC timer's expiry stamp is kept: the
 * raise that follows it is its own; probe_irq.c.)
 */
static inline void hvt_irq_raise_new(u64 *raised, u8 vec, u64 stamp)
{
	WRITE_ONCE(raised[vec], stamp);
}

/*
 * An injection of VEC at NOW (REINJECTED: again, after KVM cancelled the
 * entry or an exit cut the delivery): counted in IRQS and H from the
 * raise in RAISED, or unmatched, and its wait split by where the vCPU's
 * thread was (S, its exit in flight: hvt_time_window()); F follows the
 * delivery until the next one, its whole split in F->win. True when F's
 * delivery was timed or extended by this injection.
 */
bool hvt_irq_inject(struct hvt_vcpu_irqs *irqs, struct hvt_irq_hist *h,
		    struct hvt_irq_inflight *f, u64 *raised, unsigned int vec,
		    bool reinjected, u64 now, const struct hvt_split *s);

/*
 * A delivery of VEC after NS from a raise by SOURCE (HVTRACE_VCPU_IRQ_LOCAL,
 * _IPI or _DEVICE), into VEC's row: its own, the first free, or the
 * rest's. Returns the row's index.
 */
unsigned int hvt_irq_count(struct hvt_vcpu_irqs *irqs, u8 vec, u64 ns,
			   u8 source);
/*
 * OUT = STAT less BASE, rows by position (a row's vector never changes);
 * OUT may be STAT.
 */
void hvt_irqs_since_clear(struct hvt_vcpu_irqs *out,
			  const struct hvt_vcpu_irqs *stat,
			  const struct hvt_vcpu_irqs *base);
/* At a vCPU's first count after a clear: maxima and sources start again. */
void hvt_irqs_restart(struct hvt_vcpu_irqs *irqs);
/* The rows with deliveries, as the uapi has them; returns how many. */
unsigned int hvt_irqs_rows(const struct hvt_vcpu_irqs *irqs,
			   struct hvtrace_vcpu_irq *out);
/* Their splits, in the same order (as many as hvt_irqs_rows() said). */
void hvt_irqs_split(const struct hvt_vcpu_irqs *irqs,
		    struct hvtrace_vcpu_irq_split *out);
/* Their percentiles from H, in the same order, each at most its max. */
void hvt_irqs_pct(const struct hvt_vcpu_irqs *irqs,
		  const struct hvt_irq_hist *h, struct hvtrace_vcpu_irq_pct *out);

/* KVM's tracepoints (kvm.ko's table: probe_vcpu_run.c attaches them). */
u8 hvt_irq_probes(void);	/* HVTRACE_IRQ_PROBE_*: those attached */
/*
 * The kprobe on __apic_accept_irq (every raiser's raise), registered
 * before the tracepoints are attached: the kvm_apic_accept_irq
 * tracepoint is then not.
 */
void hvt_irq_kprobe_register(void);
void hvt_irq_kprobe_unregister(void);
bool hvt_irq_every(void);
/* And the one on apic_timer_fn: LAPIC timers timed from their expiry. */
bool hvt_irq_timer_expiry(void);
void hvt_irq_on_accept(void *data, __u32 apicid, __u16 dm, __u16 tm,
		       __u8 vec);
void hvt_irq_on_posted(void *data, __u32 apicid, __u16 dm, __u16 tm,
		       __u8 vec);
void hvt_irq_on_inject(void *data, unsigned int vector, bool soft,
		       bool reinjected);

#endif /* _HVT_IRQ_H */
