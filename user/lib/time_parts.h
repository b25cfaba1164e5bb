/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an exit's time went (enum hvtrace_part), and which part the
 * thresholds compare with (enum hvtrace_threshold_on): the names
 * operators type and read, and the handling remainder.
 */
#ifndef HVCTL_TIME_PARTS_H
#define HVCTL_TIME_PARTS_H

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

#endif /* HVCTL_TIME_PARTS_H */
