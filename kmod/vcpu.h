/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One vCPU known to hvtrace: its identity, the exit in flight, where that
 * exit's time goes, and the vCPU's aggregates. The slots live in the vCPU
 * table (vcpu_table.c), which gives a slot back when KVM destroys its vCPU.
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
#include <linux/types.h>

#include "stats.h"

struct kvm;
struct kvm_vcpu;

/* A vCPU's aggregates: its exits, and the rest of its time. */
struct hvt_vcpu_stat {
	struct hvt_reason_stat exits;
	u64 guest_ns;		/* entry to exit */
	u64 preemptions;	/* switched out runnable inside KVM */
	u64 preempted_ns;	/* and off CPU that long */
};

/* Off-CPU stretches a vCPU remembers, to tell a halt's polling. */
#define HVT_GAPS		4

struct hvt_vcpu {
	const void *key;	/* struct kvm_vcpu *, or a vcpu_table.c marker */
	const struct kvm *kvm;		/* with vm_pid and vcpu_id: identity */
	u32 vm_id;
	u32 vm_pid;
	u32 vcpu_id;
	u32 tid;
	/* The exit in flight. */
	bool in_exit;
	u8 isa;
	u16 flags;
	u16 cpu_exit;
	u32 reason;
	u32 intr_info;
	u32 error_code;
	u64 exit_ts;
	u64 info1;
	u64 info2;
	u64 addr;
	u64 rip;
	u64 entry_ts;		/* the last entry closing an exit */
	u64 guest_ns;		/* in the guest before the exit in flight */
	/*
	 * Where the exit's time goes (vcpu_time.h), written by the vCPU
	 * thread's probes and by the scheduler's probes about the thread.
	 */
	struct task_struct *task;	/* the vCPU thread */
	atomic_t busy;		/* scheduler probes about `task` running */
	u8 where;		/* enum hvt_where */
	bool in_user;		/* the VMM has the exit (KVM_RUN returned) */
	bool split;		/* the parts below hold something */
	bool preempted;		/* off CPU by preemption inside KVM */
	u16 cpu_off;		/* switched out there */
	u16 pre_flags;		/* HVTRACE_EVF_PREEMPT_VCPU */
	u32 pre_pid;		/* longest runnable stretch: who ran */
	u64 pre_ns;		/* and how long */
	char pre_comm[TASK_COMM_LEN];
	u64 part[HVTRACE_NR_PARTS];
	u64 ksleep;		/* blocked in the kernel: halt or other */
	u64 user_ts;		/* back in the VMM since */
	u64 on_ts;		/* switched in */
	u64 off_ts;		/* switched out */
	u64 run_ts;		/* runnable since */
	u64 sleep_ts;		/* first kernel sleep since the last halt */
	/* The last off-CPU stretches, switch-out to switch-in. */
	u64 gap_off[HVT_GAPS];
	u64 gap_on[HVT_GAPS];
	u8 gap_next;
	/* Who took the CPU at the switch-out, for a preemption. */
	u32 off_pid;
	bool off_vcpu;
	char off_comm[TASK_COMM_LEN];
	/* Aggregates, reset lazily after a clear (hvt_vcpu_stat()). */
	unsigned long gen;
	struct hvt_vcpu_stat stat;
	/* The table's: a destroyed vCPU's slot waits for a grace period. */
	struct llist_node retired;
};

/* V's aggregates, started afresh after a clear. */
static inline struct hvt_vcpu_stat *hvt_vcpu_stat(struct hvt_vcpu *v)
{
	if (unlikely(v->gen != READ_ONCE(hvt_gen))) {
		memset(&v->stat, 0, sizeof(v->stat));
		v->gen = READ_ONCE(hvt_gen);
	}
	return &v->stat;
}

#endif /* _HVT_VCPU_H */
