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
 * the reason of the exit in flight.
 */
#ifndef HVCTL_REPORT_AGG_H
#define HVCTL_REPORT_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hist.h"
#include "trace_read.h"

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

/* JSON keys of the parts (text: time_part_labels, time_parts.h). */
extern const char *const rep_part_keys[REP_NR_PARTS];

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
	char name[40];
	struct rep_stat s;
	struct rep_split split;
	struct hist hist;
	uint64_t bins[REP_BINS];
};

/* The reason of an entry whose key saw more than one. */
#define REP_REASON_MIXED	0xffff

struct rep_entry {
	uint64_t key;
	uint64_t key2;			/* second key (spots: the RIP) */
	uint64_t count, total_ns, max_ns;
	uint32_t aux;			/* table's own use (vCPU: tid) */
	uint16_t reason;		/* index into rep.reasons, or MIXED */
	uint8_t used;
};

/* A hot spot without a known RIP (rep.spots key2). */
#define REP_NO_RIP		UINT64_MAX

/*
 * Open addressing with linear probing. CAP is a power of two; the table
 * takes new keys up to 3/4 of it (short probe runs), then counts what it
 * cannot place in OTHER. SPLIT, when the table has one, runs parallel to
 * E (and other_split to OTHER).
 */
struct rep_table {
	const char *what;
	bool by_reason;			/* key is (key, reason) */
	bool two_keys;			/* (key, key2) */
	unsigned int bits, used, limit;
	struct rep_entry *e;
	struct rep_entry other;
	struct rep_split *split;
	struct rep_split other_split;
};

/* Which tables' rows name their top preemptor (rep_blame keys). */
enum rep_row_kind {
	REP_ROW_REASON,
	REP_ROW_VCPU,
	REP_ROW_RIP,
	REP_ROW_PAGE,
	REP_ROW_SPOT,
	REP_ROW_PORT,
	REP_ROW_MSR,
};

/*
 * A task that ran while a vCPU thread waited runnable inside KVM: from
 * the preemption records (exact: each is one stretch off CPU, STALL_NS
 * in all, RAN_NS of it running itself) and from exits' notes (the task
 * of an exit's longest runnable stretch, NOTED_NS of running).
 */
struct rep_preemptor {
	uint32_t pid;
	char comm[16];
	bool vcpu;			/* a vCPU thread */
	bool used;
	uint64_t records, stall_ns, ran_ns;
	uint64_t noted, noted_ns;
};

struct rep_preemptors {
	unsigned int bits, used, limit;
	struct rep_preemptor *e;
	struct rep_preemptor other;	/* those the table had no room for */
	uint64_t records, stall_ns;	/* all preemption records */
	uint64_t noted, noted_ns;	/* all exits' notes */
};

/*
 * Noted time per (row, preemptor), to name each row's top preemptor:
 * fixed capacity too; what it cannot hold is counted (lost_ns) and the
 * rows it belonged to may name a lesser preemptor.
 */
struct rep_blame_entry {
	uint64_t key;			/* kind << 56 | row << 24 | preemptor */
	uint64_t ns;
};

struct rep_blame {
	unsigned int bits, used, limit;
	struct rep_blame_entry *e;
	uint64_t lost, lost_ns;
};

struct rep_loss_cpu {
	uint64_t begin, end;		/* the range being merged */
	uint64_t lost_ns;		/* merged ranges done so far */
	uint64_t lost;			/* events, as the ranges say */
	bool open;
};

struct report {
	struct trace_info info;
	uint64_t events;
	uint64_t first_ts, last_ts;	/* of the events (entry times) */
	uint64_t all_ns;		/* sum of durations */
	uint64_t max_ns;

	struct rep_reason reasons[REP_MAX_REASONS + 1];
	unsigned int nr_reasons;	/* the other row not included */
	uint16_t reason_slot[2 * REP_MAX_REASONS]; /* hash: index + 1 */
	uint64_t last_reason_key;
	unsigned int last_reason;

	/* Timeline: bin i covers t0 + [i, i + 1) << bin_shift. */
	uint64_t t0;
	unsigned int bin_shift;
	unsigned int nr_bins;		/* bins in use */

	struct rep_table vms;		/* key vm_id, aux the VMM's pid */
	struct rep_table vcpus;		/* key vm_id << 32 | vcpu_id, aux tid */
	struct rep_table pairs;		/* key vcpu slot, by reason */
	struct rep_table rips;		/* key guest RIP, by reason */
	struct rep_table pages;		/* key GPA & ~0xfff */
	struct rep_table ports;		/* key I/O port */
	struct rep_table msrs;		/* key MSR index, by reason */
	struct rep_table spots;		/* key GPA page, key2 RIP, by reason */

	struct rep_preemptors pre;
	const struct rep_preemptor **pre_order;	/* for sorting them */
	struct rep_blame blame;
	uint64_t preempts;		/* preemption records */
	uint64_t preempt_ns;
	struct rep_split all_split;	/* of every exit */

	/* Reasons whose info1 holds an I/O port in bits 31:16. */
	uint32_t io_code[3];		/* by isa; UINT32_MAX: none */

	/*
	 * Filled by report_finish(): the reason with the most time per vCPU
	 * and per VM (by table slot), and that time; the VM sums come from
	 * vm_reason_ns, VM slot x reason.
	 */
	uint16_t *vcpu_top, *vm_top;
	uint64_t *vcpu_top_ns, *vm_top_ns;
	uint64_t *vm_reason_ns;

	/* For sorting tables when printing: the largest table's capacity. */
	const struct rep_entry **order;
	const struct rep_entry **vm_order;	/* the VM table's */
	const struct trace_reader *reader;	/* for VM names */

	/* Lost-event coverage, filled by report_finish(). */
	struct rep_loss_cpu *loss;
	unsigned int loss_cpus;
	uint64_t lost_ns;		/* union per CPU, summed over CPUs */
	uint64_t loss_ranges;
	bool loss_unordered;
};

struct report *report_new(void);
void report_free(struct report *rep);
/* Count one event. Never allocates. */
void report_add(struct report *rep, const struct trace_event *ev);
/*
 * After the last event: the reader's totals, the loss coverage, the top
 * reasons per VM and vCPU. R must stay open while REP is printed.
 */
int report_finish(struct report *rep, const struct trace_reader *r);
/* A VM's name from vms.tsv, else "vm<id>" (trace_vm_label()). */
const char *report_vm_name(const struct report *rep,
			   const struct rep_entry *vm, char *buf, size_t len);
/* Bytes the aggregates take, all of it allocated by report_new(). */
size_t report_memory(const struct report *rep);

/* The trace span: first to last timestamp the reader saw. */
uint64_t report_span_ns(const struct report *rep);
/* Share of CPU time (streams x span) with no events lost, 0..1. */
double report_coverage(const struct report *rep);

/* Reason indices ordered by total time, the other row last if used. */
unsigned int report_reasons_by_time(const struct report *rep,
				    unsigned int *idx);
/*
 * The used entries of T ordered by total time (ties: count, key); returns
 * how many. OUT must hold T's capacity (rep->order holds any table's).
 */
unsigned int report_table_sorted(const struct rep_table *t,
				 const struct rep_entry **out);
static inline unsigned int rep_table_cap(const struct rep_table *t)
{
	return 1U << t->bits;
}

/* Reason display name of a table entry ("mixed" when several). */
const char *report_reason_name(const struct report *rep, unsigned int idx);

/* Percentile of a reason from its histogram, exact to the bucket. */
uint64_t report_percentile(const struct rep_reason *rr, double p);

/* Multiplicative (Fibonacci) hashing for the tables: use the high bits. */
static inline uint64_t rep_hash64(uint64_t k)
{
	return k * 0x9e3779b97f4a7c15ULL;
}

/* PART of WHOLE in parts per million, rounded; 0 of nothing. */
static inline uint64_t rep_ppm(uint64_t part, uint64_t whole)
{
	return whole ? (uint64_t)((double)part * 1e6 / (double)whole + 0.5) : 0;
}

/* The split of table T's entry E (T must have one). */
static inline const struct rep_split *rep_split_of(const struct rep_table *t,
						   const struct rep_entry *e)
{
	return e == &t->other ? &t->other_split : &t->split[e - t->e];
}

/* ---- preemptors (report_preempt.c) ---- */

int rep_preempt_init(struct report *rep);
void rep_preempt_free(struct report *rep);
size_t rep_preempt_memory(const struct report *rep);
/* A preemption record; an exit that names a preemptor, and its rows. */
void rep_preempt_record(struct report *rep, const struct trace_record *x);
void rep_preempt_noted(struct report *rep, const struct trace_record *x,
		       const uint32_t *rows);
/* Each row's top preemptor into its split. */
void rep_preempt_finish(struct report *rep);
/* The preemptor rep_split.top names, NULL for none. */
const struct rep_preemptor *rep_preemptor_at(const struct report *rep,
					     uint32_t top);
/*
 * The used preemptors into rep->pre_order by stall time, then noted
 * time, then pid; returns how many.
 */
unsigned int rep_preemptors_sorted(const struct report *rep);
/* Rows per exit in rep_preempt_noted()'s ROWS, UINT32_MAX for none. */
#define REP_NR_ROW_KINDS	(REP_ROW_MSR + 1)

#endif /* HVCTL_REPORT_AGG_H */
