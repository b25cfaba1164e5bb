/* SPDX-License-Identifier: GPL-2.0 */
/* What the hvtrace.ko source files share. */
#ifndef _HVT_HVTRACE_H
#define _HVT_HVTRACE_H

#include <linux/percpu.h>
#include <linux/types.h>

struct kvm_vcpu;

#include "hist.h"
#include "reason.h"
#include "ring.h"

struct kvm_vcpu;
struct netlink_ext_ack;

/* Per-CPU accounting, exact: seen = filtered + below + recorded + lost. */
struct hvt_acct {
	u64 seen;		/* exits completed while recording */
	u64 filtered;		/* rejected by a filter */
	u64 below;		/* shorter than their threshold */
	u64 recorded;		/* written to the ring */
	u64 lost;		/* ring full (discard mode) */
	u64 unpaired;		/* exits that could not be timed */
};

struct hvt_reason_stat {
	u64 count;
	u64 total_ns;
	u64 min_ns;
	u64 max_ns;
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
	/* Aggregates, reset lazily like struct hvt_cpu. */
	unsigned long gen;
	struct hvt_reason_stat stat;
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
u64 hvt_entries_seen(void);
/* Merge reason RIDX over CPUs into *STAT and, when HIST, its histogram.
 * Returns false when its histogram is shared with other reasons.
 */
bool hvt_reason_merge(unsigned int ridx, struct hvt_reason_stat *stat,
		      struct hvt_hist *hist);

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

/* genl.c */
int hvt_genl_register(void);
void hvt_genl_unregister(void);
void hvt_genl_notify_watermark(void);

#endif /* _HVT_HVTRACE_H */
