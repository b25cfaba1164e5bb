/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A late interrupt's why: where most of its wait, raise to injection,
 * went, in words. The wait splits as the module's record splits it
 * (HVTRACE_EV_IRQ): in the guest, from the raise to the exit whose entry
 * injected it (the kick, or the guest keeping it off); then that exit's
 * parts after the raise, handling what the others leave. The report's
 * late interrupts, its page and a capture's story say it the same way.
 */
#ifndef HVCTL_IRQ_WHY_H
#define HVCTL_IRQ_WHY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/hvtrace.h>

/* The parts of a wait: the time split's, handling first, then the guest. */
enum irq_part {
	IRQ_P_HANDLING,
	IRQ_P_VMM,
	IRQ_P_HALT,
	IRQ_P_RUNNABLE,
	IRQ_P_OTHER,
	IRQ_P_GUEST,

	IRQ_NR_PARTS
};

struct irq_wait {
	uint64_t part_ns[IRQ_NR_PARTS];
	/* The exit the injecting entry ends: its vendor and reason. */
	unsigned int isa;
	uint32_t exit_reason;
	/* Who ran most of the longest runnable stretch; pid 0: none noted. */
	uint32_t pre_pid;
	bool pre_vcpu;
	const char *pre_comm;
};

/*
 * W's parts from a record's: NS raise to injection, GUEST_NS, PART the
 * time split's (vmm, halt, runnable, other); handling is the rest, never
 * below 0. Who ran instead is the caller's to fill.
 */
void irq_wait_split(struct irq_wait *w, uint64_t ns, uint64_t guest_ns,
		    const uint64_t part[HVTRACE_NR_PARTS]);
/* The part that holds most of W's wait; ties go to the first. */
enum irq_part irq_wait_part(const struct irq_wait *w);
/* "handling", "in the VMM", "halted", "runnable", "in the guest"... */
const char *irq_part_word(enum irq_part p);
/* JSON: the time split's words ("runnable"), and "guest". */
const char *irq_part_key(enum irq_part p);
/*
 * The why of W, its largest part and its time: "runnable 1.80ms:
 * preempted by stress-ng (4242)", "halted 2.00ms", "in the VMM 1.10ms",
 * "in the guest 3.00ms until the kick" (EXTERNAL_INTERRUPT, INTR), "in
 * the guest 3.00ms with interrupts off" (INTERRUPT_WINDOW, VINTR), "in
 * the guest 3.00ms until its NPF exit". Snprintf semantics.
 */
int irq_why(char *buf, size_t len, const struct irq_wait *w);

/* The sources hvctl knows, in the order they are named: I's bit. */
#define IRQ_NR_SOURCES	4
uint32_t irq_source_bit(unsigned int i);
/* One HVTRACE_VCPU_IRQ_* source bit: "timer", ...; "unknown" for others. */
const char *irq_source_word(uint64_t source);
/*
 * SOURCES (HVTRACE_VCPU_IRQ_* bits) joined with '+' from the vCPU's own
 * to the farthest, "timer+ipi", as stat names a row's; "unknown": none
 * known.
 */
const char *irq_sources_text(char *buf, size_t len, uint32_t sources);
/* The longest irq_sources_text() and its NUL. */
#define IRQ_SOURCES_LEN	sizeof("timer+local+ipi+device")

#endif /* HVCTL_IRQ_WHY_H */
