/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvctl stat --vcpus: the interrupts delivered to each vCPU (stat_irq.c),
 * apart from the command (cmd_stat.c). Each vector's deliveries are timed
 * from the raise (KVM accepting the interrupt into the vCPU's local APIC)
 * to the VM entry that injects it; what is not timed is counted.
 *
 * Text, one table for all vCPUs after the vCPU tables, a line per timed
 * row (a vCPU without one has none), then what was not timed, totalled
 * over the vCPUs (those not 0; no line when all are), and on how many
 * vCPUs; nothing at all when no vCPU has interrupt data:
 *
 * interrupt delivery       vector     source           count       avg       max
 * vm 1 vcpu 0              34 (0x22)  device              30     8.0us    40.0us
 * vm 1 vcpu 0              236 (0xec) timer               12     2.0us     5.0us
 * vm 1 vcpu 0              other      local+ipi            4     1.0us     2.0us
 * vm 2 vcpu 1 (gone)       251 (0xfb) ipi                  3    10.0us    20.0us
 * not timed: unmatched 7, reinjected 2, posted 5 (on 3 vCPUs)
 *
 * A row's source says who raised its interrupts: the flags this hvctl
 * knows joined with '+' in the order timer (the vCPU's LAPIC timer, timed
 * from its expiry; only from a module that probes apic_timer_fn, else
 * its interrupts are local), local (the vCPU itself), ipi (another vCPU
 * of its VM), device (no vCPU of its VM: the VMM, irqfds, the PIT and
 * IOAPIC; only from a module that probes every raiser), as
 * "timer+local+ipi+device": from the vCPU's own to the farthest, and of
 * the vCPU's own the timer first, the narrower (one of local's LVTs, told
 * apart when its expiry is probed). A row with only flags it does not
 * know (a newer module's sources) says "unknown". The column is as wide
 * as "local+ipi", and the whole table's wider when a row's sources need
 * it (22 for "timer+local+ipi+device"), as the first column is the time
 * split's width, wider when a vCPU's name needs it.
 *
 * Then, from a module that says, where each row's time went, as the vcpu
 * time split shows a vCPU's (time and share of the row's): in the guest
 * (from the raise to the exit that delivered it), then that exit's parts
 * after the raise, handling the rest; and who ran instead during the
 * row's longest runnable wait:
 *
 * interrupt wait split             guest         handling   ...  longest runnable wait
 * vm 1 vcpu 0 0xef         1.00ms   0.3%   19.00ms   6.3%   ...  200.00ms hvhog (777)
 *
 * JSON, members of each vCPU's object: "irqs", rows of "vector" (null in
 * the row of the other vectors), "sources" (those known of "timer",
 * "local", "ipi", "device", in that order: [] for a row of unknown
 * sources only), "count", "total_ns", "avg_ns", "max_ns", "guest_ns",
 * "handling_ns", "vmm_ns", "halt_ns", "runnable_ns", "other_ns" and
 * "preemptor" ({"pid", "comm", "vcpu", "ns"} or null; all null from a
 * module that does not split); then "irq_unmatched", "irq_reinjected"
 * and "irq_posted", always (0: none).
 */
#ifndef HVCTL_STAT_IRQ_H
#define HVCTL_STAT_IRQ_H

#include <stddef.h>

#include "client.h"
#include "output.h"

/*
 * How stat's text names a vCPU in its tables, "vm 1 vcpu 0", "vm 2 vcpu
 * 1 (gone)": the time split's rows and the interrupt delivery's.
 */
void stat_vcpu_label(char *buf, size_t len, const struct hvc_vcpu_row *v);

/* JSON: V's interrupt members; text: nothing. */
void stat_irq_json(struct out *o, const struct hvc_vcpu_row *v);
/* Text: the table of the vCPUs of S with interrupt data; JSON: nothing. */
void stat_irq_table(struct out *o, const struct hvc_stats *s);

#endif /* HVCTL_STAT_IRQ_H */
