/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl report: where exit time went and who preempted the vCPUs, as
 * text or JSON (-j), beside cmd_report.c's tables.
 */
#ifndef HVCTL_REPORT_SPLIT_H
#define HVCTL_REPORT_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "report_agg.h"

struct out;

/*
 * JSON members of a row: "handling_ns" to "other_ns", each again as
 * "..._ppm" of TOTAL, and "top_preemptor" when its exits noted one.
 */
void rep_out_split(struct out *o, const struct report *rep, const struct rep_split *s,
		   uint64_t total);
/* Text: "noisy-batch (31337) 38.2%" (share of TOTAL), "-" for none. */
const char *rep_top_text(const struct report *rep, const struct rep_split *s,
			 uint64_t total, char *buf, size_t len);

/*
 * Text tables of the split per reason (its labels WIDTH wide, as in the
 * reason table), and per vCPU (the TOP first). Those that list a table
 * return 0, or -1 out of memory.
 */
void rep_print_reason_split(struct out *o, const struct report *rep,
			    int width);
int rep_print_vcpu_split(struct out *o, const struct report *rep, unsigned int top);
/* "NPF at page 0x... from rip 0x...: N exits, T, P% runnable; Z ran ..." */
const char *rep_spot_text(const struct report *rep, const struct rep_row *e,
			  char *buf, size_t len);
/* Both forms: the TOP preemptors, and the hot spots they stalled most. */
int rep_print_preemptors(struct out *o, const struct report *rep, unsigned int top);
int rep_print_preempted_spots(struct out *o, const struct report *rep, unsigned int top);

#endif /* HVCTL_REPORT_SPLIT_H */
