/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl stat --vcpus: the interrupts delivered to each vCPU (stat_irq.c),
 * apart from the command (cmd_stat.c). Each vector's deliveries are timed
 * from the raise (KVM accepting the interrupt into the vCPU's local APIC)
 * to the VM entry that injects it; what is not timed is counted.
 *
 * Text, a table per vCPU with interrupt data, after the vCPU tables:
 *
 *   interrupt delivery vm 1 vcpu 0 source           count       avg       max
 *   236 (0xec)                     local               12     2.0us     5.0us
 *   other                          local+ipi            4     1.0us     2.0us
 *   not timed: unmatched 7, reinjected 2, posted 5
 *
 * Every table's first column is as wide as the longest title, so that
 * the tables line up.
 *
 * JSON, members of each vCPU's object: "irqs", rows of "vector" (null in
 * the row of the other vectors), "sources" ("local", "ipi"), "count",
 * "total_ns", "avg_ns", "max_ns"; then "irq_unmatched", "irq_reinjected"
 * and "irq_posted", always (0: none).
 */
#ifndef HVCTL_STAT_IRQ_H
#define HVCTL_STAT_IRQ_H

#include "client.h"
#include "output.h"

/* JSON: V's interrupt members; text: nothing. */
void stat_irq_json(struct out *o, const struct hvc_vcpu_row *v);
/* Text: the table of each vCPU of S with interrupt data; JSON: nothing. */
void stat_irq_tables(struct out *o, const struct hvc_stats *s);

#endif /* HVCTL_STAT_IRQ_H */
