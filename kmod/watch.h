/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch: while armed, each watched vCPU keeps a history of its
 * records (exits, preemptions and guest marks: struct hvtrace_event,
 * written with less, below) in a ring, and a window of its time out of
 * the guest. A trigger freezes the ring: the history goes on in the
 * spare, and the post window's records go to both (at most HISTORY of
 * them: the frozen ring has room for them past the HISTORY records before
 * the trigger's). Then the scan copies the capture out (watch_scan.c) and
 * the frozen ring is the next spare. READ_CAPTURES hands captures to
 * userspace.
 *
 *   ring A: ... r40 r41 r42 [trigger r43] r44 r45    frozen, the capture
 *   ring B:                               r44 r45 r46 r47 ...  the history
 *
 * A vCPU's watch (struct hvt_watch_vcpu) is written by its probes, like
 * the rest of its slot (vcpu.h); the state says who does what:
 *
 *            trigger (probe)        window over (probe, or the scan)
 *    ARMED ------------------> POST ------------------------> CLOSED
 *      ^                                                        |
 *      +--- the scan copied the capture; the frozen ring spare -+
 *
 * The scan (a work item, process context) also gives live vCPUs their
 * watch and frees those of vCPUs that are gone: the probes never allocate,
 * sleep or lock.
 */
#ifndef _HVT_WATCH_H
#define _HVT_WATCH_H

#include <linux/bitmap.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/rcupdate.h>
#include <uapi/linux/hvtrace.h>

#include "config.h"
#include "mem.h"
#include "vcpu.h"

/* The watch's settings: immutable, published through RCU like hvt_config. */
struct hvt_watch_cfg {
	struct rcu_head rcu;
	u64 exit_ns;		/* 0: no exit trigger */
	u8 exit_on;		/* enum hvtrace_threshold_on */
	bool halt_triggers;
	/*
	 * What a quiet exit's duration is compared with: its total and
	 * handling are its duration, its other parts 0. exit_ns, or
	 * U64_MAX (no duration reaches it) without an exit trigger or with
	 * one on another part.
	 */
	u64 exit_quiet_ns;
	u64 stall_ns;		/* 0: no stall trigger */
	u64 stall_window_ns;
	u64 stall_merge_ns;	/* spans closer than this are merged */
	u64 stall_limit_ns;	/* stall_ns, or U64_MAX without */
	u64 preempt_ns;		/* 0: no preemption trigger */
	u64 irq_ns;		/* 0: no interrupt delivery trigger */
	u32 history;		/* records kept before a trigger */
	u32 cap;		/* ring slots: history, trigger, post */
	u64 post_ns;
	u32 rate;		/* captures a minute per vCPU */
	u32 rate_total;		/* and in all */
	u32 pid;		/* 0: any VMM */
	bool mark_triggers;	/* guest marks trigger */
	u32 mark_pid;		/* those of this VMM's VMs only; 0: any */
	bool vcpu_filter;
	DECLARE_BITMAP(vcpus, HVT_NR_VCPU_IDS);
};

extern struct hvt_watch_cfg __rcu *hvt_watch_cfg;

/*
 * The stall window: a vCPU's spans out of the guest in time order.
 * Spans closer than the window / HVT_STALL_STEPS merge, so the FIFO never
 * holds more than 2 * HVT_STALL_STEPS + 3 spans of one window.
 */
#define HVT_STALL_STEPS		128
#define HVT_STALL_SLOTS		512

struct hvt_stall_span {
	u64 start;
	u64 end;
	u64 ns;			/* out of the guest in it: end - start unmerged */
};

enum hvt_watch_state {
	HVT_W_ARMED,
	HVT_W_POST,		/* triggered: recording the post window */
	HVT_W_CLOSED,		/* the capture waits for the scan's copy */
};

/*
 * A ring of records: seq s is at ev[(s - base) % cap]. Written with less
 * (hvt_event_fill()'s HVT_FILL_HISTORY): read through history_expand()
 * (watch_scan.c).
 */
struct hvt_watch_ring {
	struct hvt_vmem mem;	/* this allocation */
	u64 base;		/* seq of its first record */
	u32 cap;
	struct hvtrace_event ev[];
};

struct hvt_watch_vcpu {
	struct hvt_vmem mem;	/* this allocation: first, as in each object */
	atomic_t state;		/* enum hvt_watch_state */
	u32 life;		/* the vCPU's (hvt_vcpu.life) it was made for */
	struct list_head node;	/* the scan's lists */
	struct llist_node returned;	/* back to the pool, unused */
	struct hvt_watch_ring *active;	/* the history goes here */
	struct hvt_watch_ring *spare;	/* for the next trigger; NULL: none */
	struct hvt_watch_ring *frozen;	/* at the trigger, until copied */
	u64 head;		/* seq of the last record (0: none yet) */
	u32 pos;		/* next slot of active */
	u32 frozen_pos;		/* next slot of frozen: the post window */
	/* The trigger: what the capture's header says. */
	u8 trigger;		/* enum hvtrace_trigger */
	u8 on;
	u8 vector;		/* HVTRACE_TRIGGER_IRQ's */
	u64 trigger_seq;
	u64 trigger_ts;
	u64 value_ns;
	u64 limit_ns;
	u64 window_ns;
	u64 post_end;		/* the post window's records end by then */
	u64 post_last;		/* seq of its last record */
	u64 suppressed;
	u32 vm_id;
	u32 vm_pid;
	u32 vcpu_id;
	u32 tid;
	/*
	 * A late interrupt injected during the exit in flight (irq_late_exit:
	 * its start, so no other exit's end takes it): 0, none.
	 */
	u64 irq_late_ns;
	u64 irq_late_exit;
	u8 irq_late_vector;
	/*
	 * The stall window: the open span, the newest (an exit within the
	 * merge distance of its start joins it; one of 0 ns, as after a
	 * reset, is none and is not closed into the FIFO), and before it
	 * the closed ones, oldest first.
	 */
	struct hvt_stall_span open;
	u32 span_head;		/* closed spans span_tail..span_head-1 */
	u32 span_tail;
	u64 span_sum;		/* the ns of all */
	struct hvt_stall_span span[HVT_STALL_SLOTS];
};

/* A closed capture, copied out: what READ_CAPTURES sends. */
struct hvt_capture {
	struct hvt_vmem mem;	/* this allocation */
	struct list_head node;	/* pending */
	u64 id;			/* from 1 since load */
	u32 vm_id;
	u32 vm_pid;
	u32 vcpu_id;
	u32 tid;
	u8 trigger;
	u8 on;
	u8 vector;
	u64 trigger_ts;
	u64 value_ns;
	u64 limit_ns;
	u64 window_ns;
	u64 suppressed;
	u64 first_seq;
	u64 trigger_seq;
	u64 end_seq;
	u64 clock_ns;		/* local_clock() at the copy, and with it */
	u64 realtime_ns;	/* the realtime clock */
	u32 nr;			/* records */
	struct hvtrace_event ev[];
};

void __hvt_watch_exit(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
		      u64 d);
void __hvt_watch_preempt(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
			 u64 off);
void __hvt_watch_mark(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v);
bool __hvt_watch_irq(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
		     u8 vector, u64 ns);

/* The end of V's exit of D ns: before its split resets. */
static __always_inline void hvt_watch_exit(struct hvt_vcpu *v, u64 d)
{
	const struct hvt_watch_cfg *wc = rcu_dereference_sched(hvt_watch_cfg);

	if (unlikely(wc))
		__hvt_watch_exit(wc, v, d);
}

/* V's thread is back after being preempted inside KVM for OFF ns. */
static __always_inline void hvt_watch_preempt(struct hvt_vcpu *v, u64 off)
{
	const struct hvt_watch_cfg *wc = rcu_dereference_sched(hvt_watch_cfg);

	if (unlikely(wc))
		__hvt_watch_preempt(wc, v, off);
}

/*
 * V's thread injects VECTOR, NS after its raise: true when that is late
 * enough to trigger at the end of the exit in flight.
 */
static __always_inline bool hvt_watch_irq(struct hvt_vcpu *v, u8 vector,
					  u64 ns)
{
	const struct hvt_watch_cfg *wc = rcu_dereference_sched(hvt_watch_cfg);

	return unlikely(wc) && __hvt_watch_irq(wc, v, vector, ns);
}

/* V's guest mark (v->mark), at its exit. */
static __always_inline void hvt_watch_mark(struct hvt_vcpu *v)
{
	const struct hvt_watch_cfg *wc = rcu_dereference_sched(hvt_watch_cfg);

	if (wc)
		__hvt_watch_mark(wc, v);
}

/*
 * Do the probes want an exit's details (recording or watching)? The key
 * alone: it is on while either is, and off only after both stopped. In
 * the moments it is on for neither (a clear, a start or stop under way)
 * details are read and not used, which costs nothing but the reading.
 */
static __always_inline bool hvt_want_details(void)
{
	return hvt_details_on();
}

/* KVM destroys V's vCPU: its watch can go (any context). */
void hvt_watch_vcpu_gone(struct hvt_vcpu *v);

/* Control (process context; genl_watch.c). */
int hvt_watch_init(void);
void hvt_watch_exit_module(void);
/*
 * Arm with WC (taken) for netlink port PORTID; -EBUSY if another port's
 * watch is armed. A port that re-arms replaces its watch.
 */
int hvt_watch_arm(struct hvt_watch_cfg *wc, u32 portid);
void hvt_watch_disarm(void);
/* Is the watch armed, by netlink port PORTID? */
bool hvt_watch_owned_by(u32 portid);
/* Slots of each of a vCPU's two rings with HISTORY records kept. */
u32 hvt_watch_cap(u32 history);
/* Bytes a vCPU's watch takes with HISTORY records: its worst capture too. */
size_t hvt_watch_vcpu_bytes(u32 history);

struct hvt_watch_counts {
	bool armed;
	u32 vcpus;
	u32 pending;
	u64 mem_bytes;
	u64 vcpu_bytes;
	u64 captures;
	u64 dropped;
	u64 suppressed[3];	/* busy, rate, total */
	u64 no_history;
};

/* The settings in force (a copy) and the counters; false: disarmed. */
bool hvt_watch_status(struct hvt_watch_cfg *cfg, struct hvt_watch_counts *n);

/* The oldest closed capture, taken off the pending list; NULL: none. */
struct hvt_capture *hvt_capture_take(void);
/* Done with capture C; READ false: its reader went, it counts as dropped. */
void hvt_capture_free(struct hvt_capture *c, bool read);

#endif /* _HVT_WATCH_H */
