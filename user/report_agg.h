/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl report: one pass over a trace into fixed-size aggregates, shared
 * by the text/JSON printer (cmd_report.c) and the HTML page
 * (report_html.c). Everything is allocated once, before the first event,
 * so memory does not grow with the trace: tables that fill up keep
 * counting the keys they hold and add the rest to an "other" row.
 */
#ifndef HVCTL_REPORT_AGG_H
#define HVCTL_REPORT_AGG_H

#include <stdbool.h>
#include <stdint.h>

#include "hist.h"
#include "trace_read.h"

/* Distinct (isa, reason) pairs kept apart; more go to one "other" row. */
#define REP_MAX_REASONS		128
#define REP_OTHER_REASON	REP_MAX_REASONS
/* Timeline bins; their width doubles whenever the trace outgrows them. */
#define REP_BINS		512
#define REP_BIN_NS_MIN		1000000ULL	/* 1ms to start with */

struct rep_stat {
	uint64_t count, total_ns, min_ns, max_ns;
};

struct rep_reason {
	unsigned int isa;
	uint32_t code;
	char name[40];
	struct rep_stat s;
	struct hist hist;
	uint64_t bins[REP_BINS];
};

/* The reason of an entry whose key saw more than one. */
#define REP_REASON_MIXED	0xffff

struct rep_entry {
	uint64_t key;
	uint64_t count, total_ns, max_ns;
	uint32_t aux;			/* table's own use (vCPU: tid) */
	uint16_t reason;		/* index into rep.reasons, or MIXED */
	uint8_t used;
};

/*
 * Open addressing with linear probing. CAP is a power of two; the table
 * takes new keys up to 3/4 of it (short probe runs), then counts what it
 * cannot place in OTHER.
 */
struct rep_table {
	const char *what;
	bool by_reason;			/* key is (key, reason) */
	unsigned int bits, used, limit;
	struct rep_entry *e;
	struct rep_entry other;
};

struct rep_loss_cpu {
	uint64_t begin, end;		/* the range being merged */
	uint64_t lost_ns;		/* merged ranges done so far */
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

	/* Timeline: bin i covers [t0 + i * bin_ns, t0 + (i + 1) * bin_ns). */
	uint64_t t0, bin_ns;
	unsigned int nr_bins;		/* bins in use */

	struct rep_table vms;		/* key vm_id << 32 | vm_pid */
	struct rep_table vcpus;		/* key vm_id << 32 | vcpu_id */
	struct rep_table pairs;		/* key vcpu slot, by reason */
	struct rep_table rips;		/* key guest RIP, by reason */
	struct rep_table pages;		/* key GPA & ~0xfff */
	struct rep_table ports;		/* key I/O port */
	struct rep_table msrs;		/* key MSR index, by reason */

	/* Reasons whose info1 holds an I/O port in bits 31:16. */
	uint32_t io_code[3];		/* by isa; UINT32_MAX: none */

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
/* After the last event: the reader's totals and the loss coverage. */
int report_finish(struct report *rep, const struct trace_reader *r);
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
 * how many. OUT must hold T's capacity.
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

/*
 * The reason with the most time for each vCPU (by slot in rep->vcpus)
 * and each VM (by slot in rep->vms), REP_REASON_MIXED when unknown.
 * TOP_VCPU/TOP_VM hold the tables' capacities; TIME_* their totals.
 */
void report_top_reasons(const struct report *rep, uint16_t *top_vcpu,
			uint64_t *time_vcpu, uint16_t *top_vm,
			uint64_t *time_vm);

#endif /* HVCTL_REPORT_AGG_H */
