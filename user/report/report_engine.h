/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The report engine's own state: report_agg.c, report_preempt.c,
 * report_irq.c and the engine's unit test include this; renderers include report_agg.h only
 * and see rows through its iterators (docs/design.md, "Report engine").
 */
#ifndef HVCTL_REPORT_ENGINE_H
#define HVCTL_REPORT_ENGINE_H

#ifndef HVCTL_REPORT_ENGINE
#error "report_engine.h is the report engine's own: include report_agg.h"
#endif

#include "report_agg.h"

struct rep_entry {
	uint64_t key;
	uint64_t key2;			/* second key (spots: the RIP) */
	uint64_t count, total_ns, max_ns;
	/* The table's bound_ns when the key came in: its weight's start. */
	uint64_t since_ns;
	uint32_t aux;			/* table's own use (vCPU: tid) */
	uint16_t reason;		/* index into rep.reasons, or MIXED */
	uint8_t used;			/* REP_USED, or REP_SEEDED */
	/* Came in after a compaction: counted since then only. */
	bool late;
};

/* rep_entry.used: a key of the second pass, not seen in it yet. */
#define REP_USED		1
#define REP_SEEDED		2

#define REP_TAG_USED		0x8000

/*
 * Exit codes looked up without a hash: every VMX basic reason and SVM's
 * up to VMGEXIT (0x403); others (SVM_EXIT_ERR, ...) take the hash.
 */
#define REP_DIRECT_CODES	0x404
_Static_assert(REP_MAX_REASONS < 255, "reason_direct holds index + 1");

/*
 * Open addressing with linear probing. CAP is a power of two; the table
 * takes new keys up to 3/4 of it (short probe runs), then counts what it
 * cannot place in OTHER. SPLIT, when the table has one, runs parallel to
 * E (and other_split to OTHER).
 *
 * Top-N exact for any trace (tables with SKETCH): a table that fills up
 * in the first pass becomes a frequent-items summary weighted by exit
 * time instead (SKETCHING; report_agg.c draws it). Its keys that came in
 * before the first compaction are counted exactly all along; when the
 * rows to show are all such keys, above anything the others can have
 * had, the first pass is enough (PROVEN). Else a second pass over the
 * trace counts its surviving keys from zero (SEEDED). Either way every
 * row is exact, and no key left in OTHER had more than BOUND_NS of exit
 * time.
 */
/*
 * What a table's rows are keyed by. Each call that counts into a table
 * names it as a constant, so the probe loop tests no more than it needs.
 */
enum rep_keys {
	REP_KEY,			/* the key alone */
	REP_KEY_REASON,			/* (key, reason) */
	REP_KEY2_REASON,		/* (key, key2, reason) */
};

struct rep_table {
	const char *what;
	struct report *rep;		/* whose preemptor charges name rows */
	enum rep_keys keys;
	bool sketch;			/* may turn into a summary */
	bool sketching, seeded;
	bool proven;			/* a summary, exact in one pass */
	unsigned int bits, used, limit;
	/*
	 * TAG[i] is 0 for a free slot, else REP_TAG_USED and 15 bits of the
	 * key's hash (bits 32 to 46; the slot is its top BITS): a probe
	 * reads 32 slots to a cache line, and E[i] only when the tag
	 * matches.
	 */
	uint16_t *tag;
	struct rep_entry *e;
	struct rep_entry other;
	struct rep_split *split;
	struct rep_split other_split;
	uint64_t bound_ns;		/* summed decrements (see above) */
	uint64_t compactions;
	void *scratch;			/* the report's, for compaction */
	size_t scratch_len;
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
	unsigned int kinds;		/* bit per row kind charged */
	struct rep_blame_entry *e;
	uint64_t lost, lost_ns;
	uint64_t lost_kind[REP_ROW_MSR + 1];	/* LOST by row kind */
};

/*
 * Late interrupts (report_irq.c): the REP_MAX_IRQS longest so far in a
 * min-heap, the shortest of them at its root (sorted, longest first, by
 * report_finish()); and per (vCPU, vector) a row in a fixed table,
 * OTHER the late interrupts of keys it had no room for.
 */
struct rep_irq_state {
	struct rep_irq *heap;
	unsigned int kept;
	unsigned int bits, used, limit;
	struct rep_irq_row *rows;
	const struct rep_irq_row **order;	/* the rows by time */
	struct rep_irq_row other;
	uint64_t count, total_ns, max_ns;
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
	/* Index + 1 of a VMX or SVM reason below REP_DIRECT_CODES, once seen. */
	uint8_t reason_direct[2][REP_DIRECT_CODES];

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

	/* Late interrupts, first pass only, as the marks. */
	struct rep_irq_state irq;

	/* Guest marks, first pass only: a second would add them again. */
	struct rep_mark marks[REP_MAX_MARKS];
	unsigned int nr_marks;
	uint64_t all_marks;		/* kept or not */

	/* The tables of each row kind (rep_blame keys), NULL: none. */
	struct rep_table *row_table[REP_ROW_MSR + 1];
	unsigned int passes;		/* over the trace so far */
	bool window;			/* --since/--until: WIN_LO..WIN_HI */
	uint64_t win_lo, win_hi;
	uint64_t again_events;		/* exits in the second */

	/*
	 * Filled by report_finish(): the reason with the most time per vCPU
	 * and per VM (by table slot), and that time; the VM sums come from
	 * vm_reason_ns, VM slot x reason.
	 */
	uint16_t *vcpu_top, *vm_top;
	uint64_t *vcpu_top_ns, *vm_top_ns;
	uint64_t *vm_reason_ns;

	/*
	 * Scratch while reading: a compaction's weights, rep_preempt_forget()'s
	 * survivors (the largest table's capacity of pointers).
	 */
	const struct rep_entry **order;
	/* A compaction's moves: old slot -> new, UINT32_MAX dropped. */
	uint32_t *moved;
	unsigned int moved_cap;		/* the largest summary's slots */
	const struct trace_reader *reader;	/* for VM names */

	/* Lost-event coverage, filled by report_finish(). */
	struct rep_loss_cpu *loss;
	unsigned int loss_cpus;
	uint64_t lost_ns;		/* union per CPU, summed over CPUs */
	uint64_t loss_ranges;
	bool loss_unordered;

	struct rep_summary sum;		/* report_finish() */
};

/* The used entries of T ordered by total time (ties: count, key). */
unsigned int report_table_sorted(const struct rep_table *t,
				 const struct rep_entry **out);
static inline unsigned int rep_table_cap(const struct rep_table *t)
{
	return 1U << t->bits;
}

/* Multiplicative (Fibonacci) hashing for the tables: use the high bits. */
static inline uint64_t rep_hash64(uint64_t k)
{
	return k * 0x9e3779b97f4a7c15ULL;
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
/*
 * Before a second pass: forget what the tables of the row kinds in KINDS
 * were blamed for; rep_preempt_blame() charges their rows again.
 */
void rep_preempt_forget(struct report *rep, const bool *kinds);
/*
 * A compaction moved the rows of KIND: row i is now MOVED[i], or gone
 * (UINT32_MAX) and its charges with it.
 */
void rep_preempt_moved(struct report *rep, unsigned int kind,
		       const uint32_t *moved);
void rep_preempt_blame(struct report *rep, const struct trace_record *x,
		       const uint32_t *rows);
/* Each row's top preemptor into its split. */
void rep_preempt_finish(struct report *rep);
/*
 * The used preemptors into OUT (room for the table's capacity) by stall
 * time, then noted time, then pid; returns how many. _sorted(): into
 * rep->pre_order (the unit test's).
 */
unsigned int rep_preemptors_sort(const struct report *rep,
				 const struct rep_preemptor **out);
unsigned int rep_preemptors_sorted(const struct report *rep);
/* ---- late interrupts (report_irq.c) ---- */

int rep_irq_init(struct report *rep);
void rep_irq_free(struct report *rep);
size_t rep_irq_memory(const struct report *rep);
/* A late interrupt record: kept if among the longest, and in its row. */
void rep_irq_add(struct report *rep, const struct trace_event *ev);
/* The kept ones longest first, the rows by time. */
void rep_irq_finish(struct report *rep);

/* Rows per exit in rep_preempt_noted()'s ROWS, UINT32_MAX for none. */
#define REP_NR_ROW_KINDS	(REP_ROW_MSR + 1)

#endif /* HVCTL_REPORT_ENGINE_H */
