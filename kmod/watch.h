/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The watch: while armed, each watched vCPU keeps a history of its last
 * records (exits and preemptions, struct hvtrace_event) and a window of
 * its time out of the guest; a trigger freezes the history, recording
 * goes on for the post-trigger window, then the history becomes a
 * capture that READ_CAPTURES hands to userspace (watch.c).
 *
 * A vCPU's watch (struct hvt_watch_vcpu) lives in one allocation with its
 * history ring. Its probes write it, like the rest of the vCPU's slot
 * (vcpu.h); the state says who may:
 *
 *             trigger (probe)            window over (scan)
 *    ARMED ------------------> POST ---------------------> CLOSING
 *      ^                                                      |
 *      +------- the scan gives the vCPU a new watch; ---------+
 *               this one, after a grace period, is the capture
 *
 * The scan (a work item, process context) allocates watches for live
 * vCPUs, closes captures and frees the watches of vCPUs that are gone:
 * the probes never allocate, sleep or lock.
 */
#ifndef _HVT_WATCH_H
#define _HVT_WATCH_H

#include <linux/bitmap.h>
#include <linux/list.h>
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
	u64 stall_ns;		/* 0: no stall trigger */
	u64 stall_window_ns;
	u64 stall_merge_ns;	/* spans closer than this are merged */
	u64 preempt_ns;		/* 0: no preemption trigger */
	u32 history;		/* records kept before a trigger */
	u32 cap;		/* ring slots: history, trigger, post */
	u64 post_ns;
	u32 rate;		/* captures a minute per vCPU */
	u32 rate_total;		/* and in all */
	u32 pid;		/* 0: any VMM */
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
	HVT_W_CLOSING,		/* the scan took it: nothing writes */
};

struct hvt_watch_vcpu {
	atomic_t state;		/* enum hvt_watch_state */
	u32 life;		/* the vCPU's (hvt_vcpu.life) it was made for */
	struct hvt_vmem mem;	/* this allocation */
	struct list_head node;	/* a capture: on the pending list */
	/* The history: records seq first..head, seq s at (s - 1) % cap. */
	u64 head;
	u64 first;
	u32 pos;		/* head % cap */
	u32 cap;
	bool post_full;
	/* The trigger: what the capture's header says. */
	u8 trigger;		/* enum hvtrace_trigger */
	u8 on;
	u64 trigger_seq;
	u64 trigger_ts;
	u64 value_ns;
	u64 limit_ns;
	u64 window_ns;
	u64 post_end;
	u64 suppressed;
	/* Identity, copied at the trigger. */
	u32 vm_id;
	u32 vm_pid;
	u32 vcpu_id;
	u32 tid;
	u64 id;			/* a capture's number, from 1 */
	/* The stall window. */
	u32 span_head;		/* spans span_tail..span_head-1 */
	u32 span_tail;
	u64 span_sum;		/* their ns */
	struct hvt_stall_span span[HVT_STALL_SLOTS];
	struct hvtrace_event ring[];
};

void __hvt_watch_exit(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
		      u64 d);
void __hvt_watch_preempt(const struct hvt_watch_cfg *wc, struct hvt_vcpu *v,
			 u64 off, int cpu);

/* The end of V's exit of D ns: before its split resets. */
static __always_inline void hvt_watch_exit(struct hvt_vcpu *v, u64 d)
{
	const struct hvt_watch_cfg *wc = rcu_dereference_sched(hvt_watch_cfg);

	if (unlikely(wc))
		__hvt_watch_exit(wc, v, d);
}

/* V's thread is back after being preempted inside KVM for OFF ns. */
static __always_inline void hvt_watch_preempt(struct hvt_vcpu *v, u64 off,
					      int cpu)
{
	const struct hvt_watch_cfg *wc = rcu_dereference_sched(hvt_watch_cfg);

	if (unlikely(wc))
		__hvt_watch_preempt(wc, v, off, cpu);
}

/* Do the probes want an exit's details (recording or watching)? */
static __always_inline bool hvt_want_details(void)
{
	return READ_ONCE(hvt_recording) || rcu_access_pointer(hvt_watch_cfg);
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
/* Bytes one vCPU's watch takes with HISTORY records. */
size_t hvt_watch_vcpu_size(u32 history);
u32 hvt_watch_cap(u32 history);

struct hvt_watch_counts {
	bool armed;
	u32 vcpus;
	u32 pending;
	u64 mem_bytes;
	u64 captures;
	u64 dropped;
	u64 suppressed[3];	/* busy, rate, total */
	u64 no_history;
};

/* The settings in force (a copy) and the counters; false: disarmed. */
bool hvt_watch_status(struct hvt_watch_cfg *cfg, struct hvt_watch_counts *n);

/* The oldest closed capture, taken off the pending list; NULL: none. */
struct hvt_watch_vcpu *hvt_capture_take(void);
/* Done with capture W; READ false: its reader went, it counts as dropped. */
void hvt_capture_free(struct hvt_watch_vcpu *w, bool read);
/* Capture W's record SEQ. */
static inline const struct hvtrace_event *hvt_capture_record(
		const struct hvt_watch_vcpu *w, u64 seq)
{
	return &w->ring[(seq - 1) % w->cap];
}

#endif /* _HVT_WATCH_H */
