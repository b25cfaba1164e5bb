/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl report: one pass over a trace into fixed-size aggregates, shared
 * by the text/JSON printer (cmd_report.c) and the HTML page
 * (report_html.c). Everything is allocated once, before the first event,
 * so memory does not grow with the trace: tables that fill up keep
 * counting the keys they hold and add the rest to an "other" row.
 *
 * Exits count everywhere; preemption records only in the preemptor
 * table (report_preempt.c) and as the preemptions of their vCPU and of
 * the reason of the exit in flight; guest marks, which are no exits
 * (their CPUID exit is recorded apart), only in the list of marks; late
 * interrupts, no exits either, only in their own (report_irq.c).
 */
#ifndef HVCTL_REPORT_AGG_H
#define HVCTL_REPORT_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exit_reasons.h"
#include "hist.h"
#include "trace_read.h"
#include "util.h"

/* Distinct (isa, reason) pairs kept apart; more go to one "other" row. */
#define REP_MAX_REASONS		128
#define REP_OTHER_REASON	REP_MAX_REASONS
/*
 * Timeline bins, 2^shift ns wide: 2^20 (about 1ms) to start with, doubled
 * (pairs of bins merged) whenever the trace outgrows them, so a trace of
 * any length ends with REP_BINS / 2 to REP_BINS bins in use.
 */
#define REP_BINS		512
#define REP_BIN_SHIFT_MIN	20

/* The engine's state: report_engine.h, for the engine's files only. */
struct report;

struct rep_stat {
	uint64_t count, total_ns, min_ns, max_ns;
};

/* Where exit time went: handling, then enum hvtrace_part's parts. */
enum rep_part {
	REP_HANDLING,
	REP_VMM,
	REP_HALT,
	REP_RUNNABLE,
	REP_OTHER,

	REP_NR_PARTS
};


/*
 * The time split of a row's exits, their guest time before them, the
 * preemption records of the row's vCPU (vCPU rows) or in flight during
 * its exits (reason rows), and the task its exits noted as running
 * instead for the longest time: TOP, for rep_preemptor_at(), 0 for none;
 * filled by report_finish().
 */
struct rep_split {
	uint64_t part_ns[REP_NR_PARTS];
	uint64_t guest_ns;
	uint64_t preempts, preempt_ns;
	uint64_t top_ns;
	uint32_t top;
};

struct rep_reason {
	unsigned int isa;
	uint32_t code;
	unsigned int cls;		/* enum exit_reason_class */
	char name[EXIT_LABEL_LEN];
	struct rep_stat s;
	struct rep_split split;
	struct hist hist;
	uint64_t bins[REP_BINS];
};

/* The reason of an entry whose key saw more than one. */
#define REP_REASON_MIXED	0xffff

/* A hot spot without a known RIP (rep.spots key2). */
#define REP_NO_RIP		UINT64_MAX

/*
 * A task that ran while a vCPU thread waited runnable inside KVM: from
 * the preemption records (exact: each is one stretch off CPU, STALL_NS
 * in all, RAN_NS of it running itself) and from exits' notes (the task
 * of an exit's longest runnable stretch, NOTED_NS of running).
 */
struct rep_preemptor {
	uint32_t pid;
	char comm[TRACE_COMM_BUF];	/* trace_comm(): up to 16 bytes and NUL */
	bool vcpu;			/* a vCPU thread */
	bool used;
	uint64_t records, stall_ns, ran_ns;
	uint64_t noted, noted_ns;
};

/* The keyed tables a renderer can list. */
enum rep_table_id {
	REP_T_VMS,		/* key vm_id, aux the VMM's pid */
	REP_T_VCPUS,		/* key vm_id << 32 | vcpu_id, aux its tid */
	REP_T_RIPS,		/* key guest RIP */
	REP_T_PAGES,		/* key GPA & ~0xfff, aux gpa_hits() */
	REP_T_SPOTS,		/* key GPA page, key2 RIP or REP_NO_RIP,
				 * aux gpa_hits() */
	REP_T_PORTS,		/* key I/O port */
	REP_T_MSRS,		/* key MSR index */

	REP_NR_TABLES
};

/*
 * A row of a keyed table (or its "other" row): its key(s), counts, the
 * split of its exits (NULL when the table keeps none) and their top
 * preemptor (NULL: none noted); VM and vCPU rows also their reason with
 * the most time (top_reason > REP_MAX_REASONS: not known).
 */
struct rep_row {
	uint64_t key, key2;
	uint64_t count, total_ns, max_ns;
	uint32_t aux;
	unsigned int reason;		/* report_reason_name() */
	const struct rep_split *split;
	const struct rep_preemptor *top;
	unsigned int top_reason;
	uint64_t top_reason_ns;
	/*
	 * Pages and hot spots with device accesses: the devices the VMMs'
	 * maps (record --qmp) have on the page, "a|b" if they differ.
	 */
	char device[64];
};

/* What a table holds: LIMIT keys at most, USED of them, OTHER the rest. */
struct rep_table_info {
	const char *what;		/* "RIPs" */
	unsigned int limit, used;
	bool two_keys;
	/*
	 * A summary (the table overflowed), counted again in a second pass
	 * (SEEDED) or exact in one (PROVEN): rows exact, OTHER's keys <=
	 * BOUND.
	 */
	bool seeded, proven;
	uint64_t bound_ns;
	struct rep_row other;
};

/* The whole trace's figures, filled by report_finish(). */
struct rep_summary {
	struct trace_info info;		/* span: the window, if one */
	uint64_t events;		/* exits */
	uint64_t all_ns, max_ns;	/* their durations */
	uint64_t preempts, preempt_ns;	/* preemption records */
	struct rep_split all_split;	/* of every exit */
	unsigned int nr_reasons;	/* the other row not included */
	/* Timeline: bin i covers first + [i, i + 1) << bin_shift. */
	unsigned int bin_shift, nr_bins;
	/* Loss coverage: CPUs 0..loss_cpus - 1 (report_loss_cpu()). */
	unsigned int loss_cpus;
	uint64_t lost_ns, loss_ranges;
	bool loss_unordered;
	/* The preemptor table: all records and notes, OTHER those not kept. */
	uint64_t pre_records, pre_stall_ns, pre_noted, pre_noted_ns;
	unsigned int pre_limit, pre_used;
	struct rep_preemptor pre_other;
	uint64_t blame_lost;		/* notes not charged to their rows */
	const char *pairs_what;		/* top reasons: exits left out */
	uint64_t pairs_other;
	size_t memory;			/* report_memory() */
};

/*
 * Rows of a table in an order, with a sort array of its own (allocated
 * by rep_iter_start(), freed by rep_iter_end()): any number may be open
 * at once, in any order.
 */
enum rep_order {
	REP_BY_TIME,		/* total time, then count, key, reason */
	REP_BY_PREEMPTOR,	/* rows naming a preemptor, by its time */
};

struct rep_iter {
	const struct report *rep;
	enum rep_table_id table;
	const void **order;
	unsigned int n, pos;
};

/* Preemptors by stall time, then noted time, then pid. */
struct rep_pre_iter {
	const struct rep_preemptor **order;
	unsigned int n, pos;
};

struct report *report_new(void);
void report_free(struct report *rep);
/* Count one event (late interrupts are left out). Never allocates. */
void report_add(struct report *rep, const struct trace_event *ev);
/*
 * After the first pass: true when some table overflowed and its first
 * TOP rows (those a renderer shows) are not known exactly yet: the trace
 * must be read again, from the start, with report_add() for every event,
 * before report_finish(). report_again() prepares that pass.
 */
bool report_wants_pass(const struct report *rep, unsigned int top);
/* Only the events in [LO, HI) were added: the span is that, at most. */
void report_set_window(struct report *rep, uint64_t lo, uint64_t hi);
void report_again(struct report *rep);
/*
 * After report_again(): true when the second pass may read the events in
 * any order (TRACE_ANY_ORDER): no table it recounts keeps a first-seen
 * value (the VMs' pid, the vCPUs' tid).
 */
bool report_again_any_order(const struct report *rep);
/*
 * After the last event: the reader's totals, the loss coverage, the top
 * reasons per VM and vCPU. R must stay open while REP is printed.
 */
int report_finish(struct report *rep, const struct trace_reader *r);
/* The trace's figures (valid after report_finish()). */
const struct rep_summary *report_summary(const struct report *rep);
/* Table T's capacity, use and other row. */
void report_table_info(const struct report *rep, enum rep_table_id t,
		       struct rep_table_info *info);
/* Loss coverage of CPU C (< loss_cpus): events and time lost. */
void report_loss_cpu(const struct report *rep, unsigned int c,
		     uint64_t *lost, uint64_t *lost_ns);
/* Reason IDX (report_reasons_by_time(), REP_OTHER_REASON: the rest). */
const struct rep_reason *report_reason(const struct report *rep,
				       unsigned int idx);
/* Bytes the aggregates take, all of it allocated by report_new(). */
size_t report_memory(const struct report *rep);

/* The trace span: first to last timestamp the reader saw. */
uint64_t report_span_ns(const struct report *rep);
/* Share of CPU time (streams x span) with no events lost, 0..1. */
double report_coverage(const struct report *rep);

/* Reason indices ordered by total time, the other row last if used. */
unsigned int report_reasons_by_time(const struct report *rep,
				    unsigned int *idx);
/* Reason display name of a table entry ("mixed" when several). */
const char *report_reason_name(const struct report *rep, unsigned int idx);
/* Percentile of a reason from its histogram, exact to the bucket. */
uint64_t report_percentile(const struct rep_reason *rr, double p);

/*
 * The rows of table T in order BY: 0, or -1 out of memory (IT is then
 * empty, and rep_iter_end() still safe). rep_iter_rows(): how many.
 */
int rep_iter_start(struct rep_iter *it, const struct report *rep,
		   enum rep_table_id t, enum rep_order by);
bool rep_iter_next(struct rep_iter *it, struct rep_row *row);
static inline unsigned int rep_iter_rows(const struct rep_iter *it)
{
	return it->n;
}
/* From the first row again. */
static inline void rep_iter_rewind(struct rep_iter *it)
{
	it->pos = 0;
}
void rep_iter_end(struct rep_iter *it);

/* The preemptors, the same way. */
int rep_pre_iter_start(struct rep_pre_iter *it, const struct report *rep);
const struct rep_preemptor *rep_pre_iter_next(struct rep_pre_iter *it);
void rep_pre_iter_end(struct rep_pre_iter *it);

/* The preemptor rep_split.top names, NULL for none. */
const struct rep_preemptor *rep_preemptor_at(const struct report *rep,
					     uint32_t top);
/*
 * Guest marks (HVTRACE_EV_MARK), the first REP_MAX_MARKS in the trace's
 * order: a guest marks what it wants to find again, a few at a time.
 */
#define REP_MAX_MARKS		256

struct rep_mark {
	uint64_t ts_ns;			/* the exit, host local_clock */
	uint64_t id, guest_tsc, rip;
	uint64_t host_tsc, tsc_offset, tsc_ratio, tsc_frac_bits;
	uint32_t vm_id, vm_pid, vcpu_id;
	uint16_t flags;			/* HVTRACE_EVF_RIP_VALID */
};

/* The marks kept, into *MARKS: how many; *TOTAL: all the trace had. */
unsigned int report_marks(const struct report *rep,
			  const struct rep_mark **marks, uint64_t *total);

/*
 * Late interrupts (HVTRACE_EV_IRQ: an interrupt injected at least the
 * recording's threshold after its raise), first pass only: the
 * REP_MAX_IRQS longest whole, and per (vCPU, vector) their count, time
 * and split in a table of fixed capacity, its other row the rest.
 */
#define REP_MAX_IRQS		256

struct rep_irq {
	uint64_t ts_ns;			/* the raise, host local_clock */
	uint64_t ns;			/* raise to injection */
	/*
	 * Where the wait went: in the guest until the exit whose entry
	 * injected it, then that exit's parts, handling the rest.
	 */
	uint64_t guest_ns;
	uint64_t part_ns[REP_NR_PARTS];
	/* Who ran most of its longest runnable stretch, that long. */
	uint32_t preempt_pid;		/* 0: nobody noted */
	bool preempt_vcpu;
	char preempt_comm[TRACE_COMM_BUF];
	uint64_t preempt_ns;
	uint32_t vm_id, vm_pid, vcpu_id, tid;
	uint64_t source;		/* one HVTRACE_VCPU_IRQ_* bit */
	uint32_t exit_reason;		/* that exit's, the vendor's code */
	uint16_t cpu;			/* the injecting entry's */
	uint8_t vector, isa;
};

/* A vCPU's late interrupts of one vector. */
struct rep_irq_row {
	uint32_t vm_id, vm_pid, vcpu_id;
	uint8_t vector;
	bool used;
	uint32_t sources;		/* HVTRACE_VCPU_IRQ_* bits seen */
	uint64_t count, total_ns, max_ns;
	uint64_t guest_ns, part_ns[REP_NR_PARTS];
};

/* Valid after report_finish(). */
struct rep_irqs {
	uint64_t count, total_ns, max_ns;	/* all of the trace's */
	const struct rep_irq *longest;	/* KEPT of them, longest first */
	unsigned int kept;
	const struct rep_irq_row *const *rows;	/* by time */
	unsigned int nr_rows, limit;
	const struct rep_irq_row *other;	/* keys past LIMIT */
};

void report_irqs(const struct report *rep, struct rep_irqs *irqs);

/* VM_ID's name from vms.tsv, else "vm<id>" (trace_vm_label()). */
const char *report_vm_name(const struct report *rep, uint64_t vm_id,
			   char *buf, size_t len);


#endif /* HVCTL_REPORT_AGG_H */
