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
#include <linux/percpu.h>
#include <asm/apicdef.h>

#include "clock.h"
#include "compat/kvm_symbols.h"
#include "compat/kvm_vcpu.h"
#include "irq.h"
#include "threads.h"
#include "vcpu.h"
#include "vcpu_table.h"

/*
 * The raise this CPU stamped last, for kvm_apicv_accept_irq, which KVM
 * calls right after it in the same thread: a posted interrupt is never
 * injected, so its stamp is taken back. The task guards against a
 * preemption between the two (the raiser may move to another CPU).
 */
struct hvt_last_raise {
	const struct task_struct *task;
	struct hvt_vcpu *target;
	u64 stamp;
	u8 vector;
};

static DEFINE_PER_CPU(struct hvt_last_raise, last_raise);

/* The vCPU with id APICID in RAISER's VM, and its slot. */
static struct hvt_vcpu *raise_target(struct kvm_vcpu *raiser, u32 apicid,
				     u64 *src)
{
	struct kvm_vcpu *target;

	if (hvt_vcpu_index(raiser) == apicid) {
		*src = 0;
		return hvt_vcpu_find(raiser);
	}
	target = kvm_get_vcpu_by_id(raiser->kvm, apicid);
	*src = HVT_IRQ_STAMP_IPI;
	/* Not through this CPU's cache: that is the raiser's. */
	return target ? hvt_vcpu_peek(target) : NULL;
}

void hvt_irq_on_accept(void *data, __u32 apicid, __u16 dm, __u16 tm,
		       __u8 vec)
{
	struct hvt_last_raise *last;
	struct kvm_vcpu *raiser;
	struct hvt_vcpu *t;
	u64 src, stamp;

	/* Edge, fixed or lowest priority: the interrupts KVM injects. */
	if (tm || (dm != APIC_DM_FIXED && dm != APIC_DM_LOWEST))
		return;
	/* A hard interrupt on a CPU with a vCPU loaded is not that vCPU. */
	if (!in_task())
		return;
	raiser = kvm_get_running_vcpu();
	if (!raiser)
		return;
	t = raise_target(raiser, apicid, &src);
	if (!t)
		return;
	stamp = hvt_clock() << 1 | src;
	/* The earliest raise of a pending vector stays. */
	if (cmpxchg(&t->raised[vec], 0, stamp) != 0)
		return;
	last = this_cpu_ptr(&last_raise);
	last->task = current;
	last->target = t;
	last->stamp = stamp;
	last->vector = vec;
}

void hvt_irq_on_posted(void *data, __u32 apicid, __u16 dm, __u16 tm,
		       __u8 vec)
{
	struct hvt_last_raise *last = this_cpu_ptr(&last_raise);
	struct hvt_vcpu *t = last->target;

	if (!t || last->task != current || last->vector != vec)
		return;
	last->target = NULL;
	/* Unless the target's entry took it already. */
	cmpxchg(&t->raised[vec], last->stamp, 0);
	atomic64_inc(&t->stat.irqs.posted);
}

void hvt_irq_on_inject(void *data, unsigned int vector, bool soft,
		       bool reinjected)
{
	struct hvt_vcpu_irqs *irqs;
	struct hvt_vcpu *v;
	u64 stamp, ns;

	/* INTn emulation, not an interrupt; vectors 0-15 are no interrupts. */
	if (soft || vector < 16 || vector > 255)
		return;
	v = hvt_current_vcpu();
	if (!v)
		return;
	irqs = &hvt_vcpu_stat(v)->irqs;
	if (reinjected) {
		irqs->reinjected++;
		return;
	}
	stamp = xchg(&v->raised[vector], 0);
	ns = stamp ? hvt_since(hvt_clock(), stamp >> 1) : 0;
	if (!stamp || ns >= HVT_IRQ_STALE_NS) {
		irqs->unmatched++;
		return;
	}
	hvt_irq_count(irqs, vector, ns, stamp & HVT_IRQ_STAMP_IPI ?
		      HVTRACE_VCPU_IRQ_IPI : HVTRACE_VCPU_IRQ_LOCAL);
}
