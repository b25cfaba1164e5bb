// SPDX-License-Identifier: GPL-2.0
/* A late interrupt's why (irq_why.h). */
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "exit_reasons.h"
#include "irq_why.h"
#include "put.h"
#include "time_parts.h"
#include "util.h"

_Static_assert(IRQ_P_VMM == 1 + HVTRACE_PART_VMM &&
	       IRQ_P_OTHER == 1 + HVTRACE_PART_OTHER &&
	       IRQ_P_GUEST == 1 + HVTRACE_NR_PARTS,
	       "irq_part follows the time split");

static const char *const part_words[IRQ_NR_PARTS] = {
	[IRQ_P_HANDLING] = "handling",
	[IRQ_P_VMM] = "in the VMM",
	[IRQ_P_HALT] = "halted",
	[IRQ_P_RUNNABLE] = "runnable",
	[IRQ_P_OTHER] = "blocked in the kernel",
	[IRQ_P_GUEST] = "in the guest",
};

void irq_wait_split(struct irq_wait *w, uint64_t ns, uint64_t guest_ns,
		    const uint64_t part[HVTRACE_NR_PARTS])
{
	uint64_t rest = ns > guest_ns ? ns - guest_ns : 0;

	w->part_ns[IRQ_P_GUEST] = guest_ns;
	for (int i = 0; i < HVTRACE_NR_PARTS; i++) {
		w->part_ns[IRQ_P_VMM + i] = part[i];
		rest = rest > part[i] ? rest - part[i] : 0;
	}
	w->part_ns[IRQ_P_HANDLING] = rest;
}

enum irq_part irq_wait_part(const struct irq_wait *w)
{
	enum irq_part best = IRQ_P_HANDLING;

	for (int p = IRQ_P_HANDLING + 1; p < IRQ_NR_PARTS; p++)
		if (w->part_ns[p] > w->part_ns[best])
			best = p;
	return best;
}

const char *irq_part_word(enum irq_part p)
{
	return p < IRQ_NR_PARTS ? part_words[p] : "?";
}

const char *irq_part_key(enum irq_part p)
{
	if (p == IRQ_P_GUEST)
		return "guest";
	return p < IRQ_P_GUEST ? time_part_labels[p] : "?";
}

/* The exit's reason by its canonical name, either vendor's: as NAMES. */
static bool exit_is(const struct irq_wait *w, const char *vmx,
		    const char *svm)
{
	const char *name = exit_reason_name(w->isa, w->exit_reason);

	return name && !strcmp(name, w->isa == HV_ISA_VMX ? vmx : svm);
}

/*
 * Why the guest held it: the kick took the vCPU out (a host interrupt);
 * an interrupt window exit ends a stretch with its interrupts off; else
 * the exit that let KVM inject it.
 */
static int guest_why(char *buf, size_t len, const struct irq_wait *w,
		     const char *d)
{
	char label[EXIT_LABEL_LEN];

	if (exit_is(w, "EXTERNAL_INTERRUPT", "INTR"))
		return snprintf(buf, len, "in the guest %s until the kick", d);
	if (exit_is(w, "INTERRUPT_WINDOW", "VINTR"))
		return snprintf(buf, len, "in the guest %s with interrupts off",
				d);
	if (w->isa != HV_ISA_VMX && w->isa != HV_ISA_SVM)
		return snprintf(buf, len, "in the guest %s", d);
	return snprintf(buf, len, "in the guest %s until its %s exit", d,
			exit_reason_label(label, sizeof(label), w->isa,
					  w->exit_reason));
}

int irq_why(char *buf, size_t len, const struct irq_wait *w)
{
	enum irq_part p = irq_wait_part(w);
	char d[DURATION_LEN], who[PREEMPTOR_LEN];

	duration_str(d, w->part_ns[p]);
	if (p == IRQ_P_GUEST)
		return guest_why(buf, len, w, d);
	if (p != IRQ_P_RUNNABLE || !w->pre_pid)
		return snprintf(buf, len, "%s %s", part_words[p], d);
	*put_preemptor(who, w->pre_comm, w->pre_pid, w->pre_vcpu) = '\0';
	return snprintf(buf, len, "runnable %s: preempted by %s", d, who);
}

/* From the vCPU's own to the farthest, its timer first (stat's order). */
static const struct {
	uint32_t bit;
	const char *word;
} sources[] = {
	{ HVTRACE_VCPU_IRQ_TIMER, "timer" },
	{ HVTRACE_VCPU_IRQ_LOCAL, "local" },
	{ HVTRACE_VCPU_IRQ_IPI, "ipi" },
	{ HVTRACE_VCPU_IRQ_DEVICE, "device" },
};

_Static_assert(ARRAY_SIZE(sources) == IRQ_NR_SOURCES, "every source");

uint32_t irq_source_bit(unsigned int i)
{
	return i < IRQ_NR_SOURCES ? sources[i].bit : 0;
}

const char *irq_source_word(uint64_t source)
{
	for (size_t i = 0; i < ARRAY_SIZE(sources); i++)
		if (source == sources[i].bit)
			return sources[i].word;
	return "unknown";
}

const char *irq_sources_text(char *buf, size_t len, uint32_t bits)
{
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(sources) && n < len; i++)
		if (bits & sources[i].bit)
			n += snprintf(buf + n, len - n, "%s%s", n ? "+" : "",
				      sources[i].word);
	return n ? buf : "unknown";
}
