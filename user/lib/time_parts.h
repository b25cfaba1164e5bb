/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an exit's time went (enum hvtrace_part), and which part the
 * thresholds compare with (enum hvtrace_threshold_on): the names
 * operators type and read, and the handling remainder.
 */
#ifndef HVCTL_TIME_PARTS_H
#define HVCTL_TIME_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/hvtrace.h>

/* For error messages: every name threshold_on_parse() takes. */
#define THRESHOLD_ON_NAMES "total, handling, vmm, halt, runnable, other"

/* "runnable" for HVTRACE_ON_RUNNABLE; "?" for a value hvctl lacks. */
const char *threshold_on_name(unsigned int on);
/* An enum hvtrace_threshold_on, "preempted" too; -1 if unknown. */
int threshold_on_parse(const char *s);

/*
 * Handling time: TOTAL less the other parts. The parts are summed apart
 * from the total, so a snapshot can catch them ahead: never below 0.
 */
uint64_t time_handling(uint64_t total, const __u64 part[HVTRACE_NR_PARTS]);

/*
 * JSON only: "handling_ns", then "vmm_ns", "halt_ns", "runnable_ns" and
 * "other_ns" (the keys follow the ABI, as the text headings do).
 */
struct out;
void out_time_parts(struct out *o, uint64_t total,
		    const __u64 part[HVTRACE_NR_PARTS]);

/*
 * The time split's fields, handling first, as every output of an event or
 * a row names them (drain, dump's text, JSON and CSV, export, stat,
 * report): text headings "handling", "vmm", "halt", "runnable", "other";
 * JSON keys and CSV columns "handling_ns", "vmm_ns", "halt_ns",
 * "runnable_ns", "other_ns".
 */
extern const char *const time_part_labels[HVTRACE_NR_PARTS + 1];
extern const char *const time_part_keys[HVTRACE_NR_PARTS + 1];

/* PART of WHOLE in percent; 0 for an empty WHOLE. */
double time_share(uint64_t part, uint64_t whole);

/*
 * Text, the time split tables of stat and report (JSON: nothing): a
 * column a part after the caller's, each cell a share of the row's
 * WHOLE, " 12.3%" 9 wide, or with TIMED its time before it,
 * "   312.4us  12.3%" 16 wide. NS: the parts, handling first.
 */
void time_split_heading(struct out *o, bool timed);
void time_split_cells(struct out *o, const uint64_t ns[HVTRACE_NR_PARTS + 1],
		      uint64_t whole, bool timed);
/* One column of the kind beside the parts: its heading, a cell. */
void time_split_head(struct out *o, const char *label, bool timed);
void time_split_cell(struct out *o, uint64_t ns, uint64_t whole, bool timed);

#endif /* HVCTL_TIME_PARTS_H */
