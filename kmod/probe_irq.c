// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt delivery (irq.h draws it):
 *   kvm_apic_accept_irq    an interrupt accepted into a vCPU's local APIC
 *   kvm_apicv_accept_irq   ... and posted to it by the CPU (APICv, AVIC)
 *   kvm_inj_virq           the entry that injects it
 * None of them is on the exit path. The raise runs in the raiser's
 * context; only a vCPU raising for a vCPU of its own VM is timed: its
 * own LAPIC timer and LVTs, self-IPIs (LOCAL) and IPIs (IPI). The VMM's
 * ioctls, irqfds, the PIT and the IOAPIC raise from threads that name no
 * VM, and hard interrupts from whatever ran: their injections are
 * counted unmatched.
 *
 * A LAPIC timer is raised by KVM when the vCPU's thread runs after the
 * timer expired (the expiry only kicks or wakes it): what delayed that
 * thread (a halt, a preemption) is not in the local rows' time.
 */
#include <linux/kvm_host.h>
#include <asm/apicdef.h>

#include "clock.h"
#include "compat/kvm_symbols.h"
#include "compat/kvm_vcpu.h"
#include "irq.h"
#include "threads.h"
#include "vcpu.h"
#include "vcpu_table.h"
#include "watch.h"

/* The vCPU with id APICID in RAISER's VM, and its slot. */
static struct hvt_vcpu *raise_target(struct kvm_vcpu *raiser, u32 apicid,
				     bool *ipi)
{
	struct kvm_vcpu *target;

	if (hvt_vcpu_index(raiser) == apicid) {
		*ipi = false;
		return hvt_vcpu_find(raiser);
	}
	target = kvm_get_vcpu_by_id(raiser->kvm, apicid);
	*ipi = true;
	/* Not through this CPU's cache: that is the raiser's. */
	return target ? hvt_vcpu_peek(target) : NULL;
}

/* The slot of the vCPU a raise from this context is for, if it is timed. */
static struct hvt_vcpu *raise_slot(u32 apicid, u16 dm, u16 tm, u8 vec,
				   bool *ipi)
{
	struct kvm_vcpu *raiser;

	/* Edge, fixed or lowest priority: the interrupts KVM injects. */
	if (tm || (dm != APIC_DM_FIXED && dm != APIC_DM_LOWEST) || vec < 16)
		return NULL;
	/* A hard interrupt on a CPU with a vCPU loaded is not that vCPU. */
	if (!in_task())
		return NULL;
	raiser = kvm_get_running_vcpu();
	return raiser ? raise_target(raiser, apicid, ipi) : NULL;
}

void hvt_irq_on_accept(void *data, __u32 apicid, __u16 dm, __u16 tm,
		       __u8 vec)
{
	struct hvt_vcpu *t;
	bool ipi;

	t = raise_slot(apicid, dm, tm, vec, &ipi);
	if (t)
		hvt_irq_raise(t->raised, vec, hvt_irq_stamp(hvt_clock(), ipi));
}

/*
 * Right after the raise, in the same thread: the CPU posted it, so no
 * entry injects it. Found again rather than remembered: the raiser may
 * have been preempted and moved between the two.
 */
void hvt_irq_on_posted(void *data, __u32 apicid, __u16 dm, __u16 tm,
		       __u8 vec)
{
	struct hvt_vcpu *t;
	bool ipi;

	t = raise_slot(apicid, dm, tm, vec, &ipi);
	if (!t)
		return;
	xchg(&t->raised[vec], 0);
	atomic64_inc(&t->stat.irqs.posted);
}

void hvt_irq_on_inject(void *data, unsigned int vector, bool soft,
		       bool reinjected)
{
	struct hvt_irq_inflight *f;
	struct hvt_vcpu *v;

	/* INTn emulation, not an interrupt. */
	if (soft || vector > 255)
		return;
	v = hvt_current_vcpu();
	if (!v)
		return;
	f = &v->irq_inflight;
	hvt_irq_inject(&hvt_vcpu_stat(v)->irqs, f, v->raised, vector,
		       reinjected, hvt_clock());
	/* Timed; a reinjection may make it late only now. */
	if (f->stamp && !f->late)
		f->late = hvt_watch_irq(v, f->vector, f->ns);
}
