/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Always-on aggregates and the trust accounting, per CPU: the exit path
 * writes only its own CPU's state, readers merge. State exists for the
 * CPUs that came online since load (cpus.c allocates it when a CPU comes
 * up), never for every possible CPU, and stays when a CPU goes offline:
 * what it counted still counts.
 *
 * Counters count since load and are never zeroed: a clear records a
 * baseline, which users' views (GET_STATUS, GET_STATS) subtract, so an
 * exporter asking for the counters since load never sees one go back.
 * Minima and maxima are not counters: a clear resets them.
 */
#ifndef _HVT_STATS_H
#define _HVT_STATS_H

#include <linux/cpumask.h>
#include <linux/jump_label.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "hist.h"
#include "params.h"
#include "reason.h"
#include "runners.h"

/*
 * Per-CPU accounting, exact: seen = filtered + below + recorded + lost,
 * for exits and for preemption records apart. Only u64 fields: readers
 * sum them as an array.
 */
struct hvt_acct {
	/*
	 * Exits completed while recording: the sum of the next four, made
	 * by hvt_acct_sum(), so the exit path keeps one counter an exit.
	 */
	u64 seen;
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
	u64 no_entry;		/* exits ended by their vCPU's destruction */
	u64 mark_filtered;	/* guest marks: no threshold */
	u64 mark_recorded;
	u64 mark_lost;
	u64 mark_seen;
	u64 mark_limited;	/* over HVTRACE_MARK_RATE */
	u64 irq_seen;		/* late interrupt records: decisions */
	u64 irq_filtered;
	u64 irq_below;
	u64 irq_recorded;
	u64 irq_lost;
};

struct hvt_reason_stat {
	u64 count;
	u64 total_ns;
	u64 min_ns;		/* since the last clear; U64_MAX: none */
	u64 max_ns;
	u64 part_ns[HVTRACE_NR_PARTS];	/* of total_ns, enum hvtrace_part */
	u64 no_entry;		/* of count: ended by vCPU destruction */
};

/* A task that ran while a vCPU thread waited runnable, per CPU. */
#define HVT_NR_PREEMPTORS	16

struct hvt_preemptor {
	u32 pid;		/* 0: free */
	bool vcpu;		/* a vCPU thread itself */
	char comm[TASK_COMM_LEN];
	u64 count;
	u64 ns;
};

/* Why a watch's trigger made no capture (HVTRACE_WATCH_SUPPRESSED_*). */
enum {
	HVT_SUPPRESSED_BUSY,
	HVT_SUPPRESSED_RATE,
	HVT_SUPPRESSED_TOTAL,

	HVT_NR_SUPPRESSED
};

/* Everything one CPU writes on the exit path. */
struct hvt_cpu {
	struct hvt_acct acct;
	u64 exits;		/* since load, never cleared */
	u64 entries;
	u64 watch_suppressed[HVT_NR_SUPPRESSED];	/* since armed */
	/* acct at the last clear: written by the clear only. */
	struct hvt_acct acct_base;
	struct hvt_preemptor preemptor[HVT_NR_PREEMPTORS];
	/* Written at every switch while a vCPU waits here, read remotely. */
	struct hvt_runners runners ____cacheline_aligned;
	/* The switch-in's reading of a log (interrupts are off there). */
	struct hvt_ran ran[HVT_RUNNERS];
	struct hvt_reason_stat reason[HVT_NR_REASONS];
	struct hvt_hist hist[];	/* hvt_nr_hist; [0] collects the rest */
};

/*
 * NOW less BASE, floored at zero: every count "since the last clear".
 * Readers take no lock against a clear, nor against a vCPU's first count
 * after one, so a reader may pair a count it read before a clear with a
 * baseline taken after it: the true difference is then at most what came
 * between its two reads, or nothing. Zero says that; an unsigned
 * subtraction would show a wrapped, huge count.
 */
static inline u64 hvt_sub_floor0(u64 now, u64 base)
{
	return now > base ? now - base : 0;
}

/*
 * A minimum as users see it: U64_MAX (none yet, as a clear leaves it, or
 * an exit counted but its time not yet in) shows as 0.
 */
static inline u64 hvt_min_shown(u64 min_ns)
{
	return min_ns == U64_MAX ? 0 : min_ns;
}

extern bool hvt_recording;
/*
 * On while recording or a watch is armed: the exit and entry probes'
 * details (RIP, the qualifier, the recording and watch paths) sit behind
 * it, so an exit that is only aggregated pays one patched jump for all
 * of them, not the loads and tests of both flags. A count: recording and
 * the watch each hold one.
 */
DECLARE_STATIC_KEY_FALSE(hvt_details);

static __always_inline bool hvt_details_on(void)
{
	return static_branch_unlikely(&hvt_details);
}

/*
 * Start or stop recording: process context, under genl's ctl mutex (or
 * at load, before the family is registered).
 */
void hvt_recording_set(bool on);
/* Bumped by clear: per-vCPU aggregates take their baseline lazily. */
extern unsigned long hvt_gen;
extern u64 hvt_stats_since;	/* ktime_get_ns() at load or clear */
extern u64 hvt_stats_loaded;	/* ktime_get_ns() at load */
/* The CPUs that have state (came online since load). */
extern struct cpumask hvt_cpus_traced;

DECLARE_PER_CPU(struct hvt_cpu *, hvt_this_cpu);

int hvt_stats_init(void);
void hvt_stats_exit(void);
/* CPU comes online: give it state (process context, may sleep). */
int hvt_stats_cpu_prepare(unsigned int cpu);
struct hvt_cpu *hvt_cpu(int cpu);
size_t hvt_stats_cpu_bytes(void);
/* Exits on CPUs that have no state (it could not be allocated). */
void hvt_stats_untraced(void);
u64 hvt_exits_untraced(void);

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

/*
 * The clear command: aggregates and accounting start again for users.
 * A work item on each CPU adds that CPU's counters to the baseline, one
 * reason at a time with preemption off, so no probe is half counted in
 * it, and resets its minima and maxima; no probe does any of it. Sleeps;
 * callers serialize.
 */
void hvt_stats_clear(void);
/*
 * Sum over CPUs, or of ONLY_CPU alone when it is not negative; since the
 * last clear, or SINCE_LOAD.
 */
void hvt_acct_sum(struct hvt_acct *sum, int only_cpu, bool since_load);
u64 hvt_exits_seen(void);
u64 hvt_entries_seen(void);
/* A task ran NS while a vCPU thread waited runnable (probe context). */
void hvt_preemptor_add(struct hvt_cpu *c, u32 pid, const char *comm,
		       bool vcpu, u64 ns);
/* Merge every CPU's preemptors into OUT (N entries); returns how many. */
unsigned int hvt_preemptors_merge(struct hvt_preemptor *out, unsigned int n);
/*
 * Merge reason RIDX over CPUs into *STAT and, when HIST, its histogram;
 * since the last clear, or SINCE_LOAD (minima and maxima: since the last
 * clear). Returns false when its histogram is shared with other reasons.
 */
bool hvt_reason_merge(unsigned int ridx, struct hvt_reason_stat *stat,
		      struct hvt_hist *hist, bool since_load);

#endif /* _HVT_STATS_H */
