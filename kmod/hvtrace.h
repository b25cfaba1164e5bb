/* SPDX-License-Identifier: GPL-2.0 */
/* What the hvtrace.ko source files share. */
#ifndef _HVT_HVTRACE_H
#define _HVT_HVTRACE_H

#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "hist.h"
#include "reason.h"
#include "ring.h"

struct kvm_vcpu;
struct netlink_ext_ack;

/*
 * Per-CPU accounting, exact: seen = filtered + below + recorded + lost,
 * for exits and for preemption records apart. Only u64 fields: readers
 * sum them as an array.
 */
struct hvt_acct {
	u64 seen;		/* exits completed while recording */
	u64 filtered;		/* rejected by a filter */
	u64 below;		/* shorter than their threshold */
	u64 recorded;		/* written to the ring */
	u64 lost;		/* ring full (discard mode) */
	u64 unpaired;		/* exits that could not be timed */
	u64 pre_seen;		/* the same for preemption records */
	u64 pre_filtered;
	u64 pre_below;
	u64 pre_recorded;
	u64 pre_lost;
};

struct hvt_reason_stat {
	u64 count;
	u64 total_ns;
	u64 min_ns;
	u64 max_ns;
	u64 part_ns[HVTRACE_NR_PARTS];	/* of total_ns, enum hvtrace_part */
};

/* A vCPU's aggregates: its exits, and the rest of its time. */
struct hvt_vcpu_stat {
	struct hvt_reason_stat exits;
	u64 guest_ns;		/* entry to exit */
	u64 preemptions;	/* switched out runnable inside KVM */
	u64 preempted_ns;	/* and off CPU that long */
};

/* Off-CPU stretches a vCPU remembers, to tell a halt's polling. */
#define HVT_GAPS		4

/* A task that ran while a vCPU thread waited runnable, per CPU. */
#define HVT_NR_PREEMPTORS	16

struct hvt_preemptor {
	u32 pid;		/* 0: free */
	bool vcpu;		/* a vCPU thread itself */
	char comm[TASK_COMM_LEN];
	u64 count;
	u64 ns;
};

/*
 * Everything one CPU writes on the exit path. Probes reset it lazily when
 * they find a stale clear generation; readers skip stale CPUs.
 */
struct hvt_cpu {
	unsigned long gen;
	struct hvt_acct acct;
	u64 exits;		/* since load, never cleared */
	u64 entries;
	struct hvt_reason_stat reason[HVT_NR_REASONS];
	struct hvt_preemptor preemptor[HVT_NR_PREEMPTORS];
	struct hvt_hist hist[];	/* hvt_nr_hist; [0] collects the rest */
};

/*
 * One vCPU known to hvtrace: identity, the exit in flight and the vCPU's
 * aggregates. A vCPU runs on one thread at a time (KVM holds vcpu->mutex
 * across KVM_RUN), so only the slot's claim needs an atomic.
 */
struct hvt_vcpu {
	struct kvm_vcpu *key;
	struct kvm *kvm;		/* with vm_pid and vcpu_id: identity */
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
	 * thread's probes and by the scheduler's probes about the thread,
	 * which the run queue locks order after them.
	 */
	struct task_struct *task;	/* the vCPU thread */
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
	/* Aggregates, reset lazily like struct hvt_cpu. */
	unsigned long gen;
	struct hvt_vcpu_stat stat;
};

/* main.c: module parameters, fixed at load. */
extern unsigned int hvt_nr_hist;
extern unsigned int hvt_max_vcpus;

/* stats.c */
extern unsigned long hvt_gen;
extern u64 hvt_stats_since;	/* ktime_get_ns() at load or clear */
extern bool hvt_recording;
int hvt_stats_init(void);
void hvt_stats_exit(void);
struct hvt_cpu *hvt_cpu(int cpu);
DECLARE_PER_CPU(struct hvt_cpu *, hvt_this_cpu);
extern u8 hvt_hist_slot[HVT_NR_REASONS];
unsigned int hvt_hist_slot_assign(unsigned int ridx);

/* The histogram of reason RIDX on this CPU (exit path). */
static inline struct hvt_hist *hvt_cpu_hist(struct hvt_cpu *c,
					    unsigned int ridx)
{
	unsigned int slot = READ_ONCE(hvt_hist_slot[ridx]);

	if (unlikely(!slot))
		slot = hvt_hist_slot_assign(ridx);
	return &c->hist[slot == U8_MAX ? 0 : slot];
}

void hvt_cpu_reset(struct hvt_cpu *c);
/* The clear command: aggregates and accounting start again. */
void hvt_stats_clear(void);
/* Sum over CPUs of the current generation. */
void hvt_acct_sum(struct hvt_acct *sum, int cpu);
u64 hvt_exits_seen(void);
/* A task ran NS while a vCPU thread waited runnable (probe context). */
void hvt_preemptor_add(struct hvt_cpu *c, u32 pid, const char *comm,
		       bool vcpu, u64 ns);
/* Merge every CPU's preemptors into OUT (N entries); returns how many. */
unsigned int hvt_preemptors_merge(struct hvt_preemptor *out, unsigned int n);
u64 hvt_entries_seen(void);
/* Merge reason RIDX over CPUs into *STAT and, when HIST, its histogram.
 * Returns false when its histogram is shared with other reasons.
 */
bool hvt_reason_merge(unsigned int ridx, struct hvt_reason_stat *stat,
		      struct hvt_hist *hist);

/* V's aggregates, started afresh after a clear. */
static inline struct hvt_vcpu_stat *hvt_vcpu_stat(struct hvt_vcpu *v)
{
	if (unlikely(v->gen != READ_ONCE(hvt_gen))) {
		memset(&v->stat, 0, sizeof(v->stat));
		v->gen = READ_ONCE(hvt_gen);
	}
	return &v->stat;
}

/* record.c: one record of TYPE about V, D ns long, to CPU's ring. */
void hvt_record(struct hvt_cpu *c, const struct hvt_vcpu *v, u8 type, u64 d,
		int cpu);

/* vcpu_table.c */
int hvt_vcpus_init(void);
void hvt_vcpus_exit(void);
/* The exit path's lookups are inline, in vcpu_table.h. */
/* Slot I of the table (for dumps), NULL when unused. */
struct hvt_vcpu *hvt_vcpu_at(unsigned int i);
unsigned int hvt_vcpu_slots(void);

/* exit_info.c; the exit path's part is in exit_info.h */
int hvt_exit_info_init(void);
void hvt_exit_info_exit(void);
/* "kvm_amd", "kvm_intel" or "" */
const char *hvt_exit_info_vendor(void);

/* buffers.c: the per-CPU rings and the single reader. */
int hvt_buffers_init(u32 kb, u8 mode);
void hvt_buffers_exit(void);
struct hvt_ring *hvt_ring_of(int cpu);
int hvt_buffers_resize(u32 kb, u8 mode, struct netlink_ext_ack *extack);
u32 hvt_buffers_kb(void);
u8 hvt_buffers_mode(void);
bool hvt_reader_get(void);
void hvt_reader_put(void);
bool hvt_reader_active(void);
bool hvt_lease_take(u32 portid);
bool hvt_lease_held(void);
int hvt_lease_init(void);
void hvt_lease_exit(void);
void hvt_buffers_clear(void);
/* Ring I passed its watermark (probe context). */
void hvt_buffers_wake(struct irq_work *w);

/* probe_kvm.c */
int hvt_probe_kvm_register(void);
void hvt_probe_kvm_unregister(void);

/* probe_sched.c: context switches and wake-ups of vCPU threads. */
int hvt_probe_sched_register(void);
void hvt_probe_sched_unregister(void);

/* probe_vcpu_run.c: the VMM's side of an exit, and halts. */
int hvt_probe_vcpu_run_register(void);
void hvt_probe_vcpu_run_unregister(void);

/* genl.c */
int hvt_genl_register(void);
void hvt_genl_unregister(void);
void hvt_genl_notify_watermark(void);

#endif /* _HVT_HVTRACE_H */
