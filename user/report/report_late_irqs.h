/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl report: the late interrupts of a trace (report_irqs()), as text
 * or JSON (-j): the longest, one line each with its why (irq_why.h),
 * then per vCPU and vector their count, time and the part of their wait
 * that holds most of it.
 *
 * Late interrupts, the 2 longest of 10 (raise to injection; time: the raise, from the trace's start)
 *       time vm                   vcpu vector source   latency exit                 why
 *  0.004000s vm1                     0 0xfb   ipi       3.00ms INTR                 in the guest 2.80ms until the kick
 *  0.000500s vm1                     1 0xec   timer     2.00ms HLT                  runnable 1.50ms: preempted by stress-ng (4242)
 * (8 more late interrupts, none longer than 2.00ms)
 *
 * Late interrupts per vCPU and vector, by time (mostly: the part of the wait that holds most of their time)
 * vm                   vcpu vector sources       count      total       max  mostly
 * vm1                     1 0xec   timer             2     3.00ms    2.00ms  runnable 50.0%
 * vm1                     0 0xfb   ipi               1     3.00ms    3.00ms  in the guest 93.3%
 * (5 more (vCPU, vector) rows)
 */
#ifndef HVCTL_REPORT_LATE_IRQS_H
#define HVCTL_REPORT_LATE_IRQS_H

#include "irq_why.h"
#include "report_agg.h"

struct out;

/*
 * The TOP longest and the TOP rows by time, each list saying how many
 * it leaves out; nothing in text when the trace has none, a
 * "late_interrupts" object always in JSON.
 */
void rep_print_late_irqs(struct out *o, const struct report *rep,
			 unsigned int top);
/* Q's wait as irq_why() reads it. */
void rep_irq_wait(struct irq_wait *w, const struct rep_irq *q);
/* A row's: its sums, no exit and nobody noted. */
void rep_irq_row_wait(struct irq_wait *w, const struct rep_irq_row *r);
/* "0.001500s", "-0.000010s": TS from the trace's start (its span's). */
const char *rep_irq_time(char *buf, size_t len, const struct report *rep,
			 uint64_t ts);

#endif /* HVCTL_REPORT_LATE_IRQS_H */
