// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupt delivery (irq.h draws it):
 *   apic_timer_fn          (kprobe) a vCPU's LAPIC timer expired
 *   __apic_accept_irq      (kprobe) KVM accepts an interrupt into a
 *                          vCPU's local APIC: the raise, from anyone
 *   kvm_apic_accept_irq    the same, where the kprobe cannot be had
 *   kvm_apicv_accept_irq   ... and posted to it by the CPU (APICv, AVIC)
 *   kvm_inj_virq           the entry that injects it
 * None of them is on the exit path. The raise runs in the raiser's
 * context: the vCPU's own thread (its LAPIC timer and LVTs, self-IPIs:
 * LOCAL), another vCPU of its VM (IPI), or anything else (DEVICE: the
 * VMM's ioctls, irqfds, the PIT and IOAPIC, hard interrupts).
 *
 * The kprobe has the struct kvm_lapic, hence the target vCPU itself, and
 * reads what KVM is about to test (compat/kvm_lapic.h): a raise KVM
 * drops (APIC disabled) is none, one whose IRR bit is already set merges
 * into the pending one, and one that finds it clear starts a new pending
 * interval. Without it (no struct offsets in the build, or no symbol),
 * the tracepoint names the target by vCPU id alone: only a vCPU raising
 * for its own VM is timed, and the others' injections are unmatched.
 *
 * A LAPIC timer is raised by KVM when the vCPU's thread runs after the
 * timer expired (the expiry only kicks or wakes it). The kprobe on
 * apic_timer_fn stamps the expiry (TIMER), and the raise keeps it, so
 * what delayed the thread (a halt, a preemption) is in the delivery's
 * time; without it (no struct kvm_timer offsets, or no symbol) it is
 * not.
 */
#include <linux/kprobes.h>
#include <linux/kvm_host.h>
#include <linux/percpu.h>
#include <asm/apicdef.h>

#include "bench.h"
#include "clock.h"
#include "config.h"
#include "compat/kprobe_args.h"
#include "compat/kvm_lapic.h"
#include "compat/kvm_symbols.h"
#include "compat/kvm_vcpu.h"
#include "irq.h"
#include "record.h"
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
		hvt_irq_raise(t->raised, vec, hvt_irq_stamp(hvt_clock(), ipi ?
				HVTRACE_VCPU_IRQ_IPI : HVTRACE_VCPU_IRQ_LOCAL));
}

#if HVT_LAPIC_KNOWN
/*
 * The raise the kprobe saw last on this CPU, for a posting right after,
 * in the same call: the same task and context. STAMP is what it wrote
 * (0: it merged into a pending raise).
 */
struct hvt_irq_seen {
	struct hvt_vcpu *t;
	const struct task_struct *task;
	u64 stamp;
	u8 vec;
	bool in_task;
};

static DEFINE_PER_CPU(struct hvt_irq_seen, hvt_irq_seen);

/* Who raises for T from here (T's thread runs T's vCPU). */
static u8 raise_source(const struct hvt_vcpu *t,
		       const struct kvm_vcpu *target)
{
	struct kvm_vcpu *raiser;

	/* A hard interrupt on a CPU with a vCPU loaded is not that vCPU. */
	if (!in_task())
		return HVTRACE_VCPU_IRQ_DEVICE;
	raiser = kvm_get_running_vcpu();
	if (raiser == target)
		return HVTRACE_VCPU_IRQ_LOCAL;
	if (raiser && hvt_vcpu_vm(raiser) == t->kvm)
		return HVTRACE_VCPU_IRQ_IPI;
	return HVTRACE_VCPU_IRQ_DEVICE;
}

#if HVT_LAPIC_TIMER_KNOWN
/*
 * The expiry of T's LAPIC timer that this raise of VEC delivers, taken
 * (0: none). KVM raises an expiry it marked pending from the vCPU's own
 * thread before its next entry (or at once, in hard interrupt context,
 * where it posts timer interrupts): a raise of LVTT's vector with one
 * pending, from there. An expiry older than the vCPU's last entry was
 * dropped by KVM (the timer rewritten or cancelled, LVTT masked or
 * changed, the APIC disabled or reset): never a later raise's time.
 */
static u64 timer_expiry_take(struct hvt_vcpu *t, const void *apic,
			     const struct kvm_vcpu *target, u8 vec)
{
	if (!READ_ONCE(t->timer_expiry) ||
	    (in_task() && kvm_get_running_vcpu() != target) ||
	    !hvt_lapic_timer_pending(apic))
		return 0;
	return hvt_irq_expiry_take(&t->timer_expiry, &t->timer_vec, vec,
				   READ_ONCE(t->entry_ts));
}
#else
static u64 timer_expiry_take(struct hvt_vcpu *t, const void *apic,
			     const struct kvm_vcpu *target, u8 vec)
{
	return 0;
}
#endif

/*
 * __apic_accept_irq(apic, delivery_mode, vector, level, trig_mode,
 * dest_map), at its entry: the raises KVM goes on to accept, as it tests
 * them (lapic.c). Preemption is off in a kprobe handler.
 */
static int hvt_on_apic_accept(struct kprobe *kp, struct pt_regs *regs)
{
	const void *apic = (const void *)hvt_kprobe_arg(regs, 0);
	int dm = hvt_kprobe_arg(regs, 1), vec = hvt_kprobe_arg(regs, 2);
	int level = hvt_kprobe_arg(regs, 3), tm = hvt_kprobe_arg(regs, 4);
	struct hvt_irq_seen *seen = this_cpu_ptr(&hvt_irq_seen);
	struct kvm_vcpu *target;
	struct hvt_vcpu *t;
	u64 stamp, expiry;

	seen->t = NULL;
	/* Fixed or lowest priority, not a level's deassertion. */
	if ((dm != APIC_DM_FIXED && dm != APIC_DM_LOWEST) || (tm && !level) ||
	    vec < 16 || vec > 255)
		return 0;
	/*
	 * A known vCPU's slot, found by the pointer alone, before anything
	 * is read through it; then the offsets proven for this kvm.ko.
	 */
	target = hvt_lapic_vcpu(apic);
	t = hvt_vcpu_slot_of(target);
	if (!t || !hvt_vcpu_same(t, target) || !hvt_lapic_is(apic, target) ||
	    !hvt_lapic_enabled(apic, target))
		return 0;
	/* The raise of T's timer expiry, before it merges or not. */
	expiry = timer_expiry_take(t, apic, target, vec);
	stamp = 0;
	/* Pending: it merges. */
	if (hvt_lapic_bit(apic, APIC_IRR, vec))
		goto seen;
	stamp = expiry ?: hvt_irq_stamp(hvt_clock(), raise_source(t, target));
	/*
	 * In service: maybe acknowledged (IRR to ISR) and not yet injected,
	 * its stamp not taken yet: that one stays. Else a new delivery.
	 */
	if (hvt_lapic_bit(apic, APIC_ISR, vec)) {
		if (!hvt_irq_raise(t->raised, vec, stamp))
			stamp = 0;
	} else {
		hvt_irq_raise_new(t->raised, vec, stamp);
	}
seen:
	seen->t = t;
	seen->task = current;
	seen->in_task = in_task();
	seen->stamp = stamp;
	seen->vec = vec;
	return 0;
}

static struct kprobe accept_kprobe = {
	.symbol_name = HVT_SYM_APIC_ACCEPT_IRQ,
	.pre_handler = hvt_on_apic_accept,
};

static bool accept_kprobe_on;

#if HVT_LAPIC_TIMER_KNOWN
/*
 * apic_timer_fn(hrtimer), at its entry: a vCPU's LAPIC timer expired.
 * KVM only marks it pending and kicks or wakes the vCPU; the raise comes
 * when the vCPU's thread next runs, and takes this expiry as its time
 * (timer_expiry_take()), so a halt or a preemption in between is in the
 * delivery's time. As KVM: nothing while an expiry is still pending, or
 * with the timer's LVT entry masked or the APIC disabled. Hard interrupt
 * context.
 */
static int hvt_on_apic_timer(struct kprobe *kp, struct pt_regs *regs)
{
	const void *apic = hvt_lapic_of_timer((void *)hvt_kprobe_arg(regs, 0));
	struct kvm_vcpu *target = hvt_lapic_vcpu(apic);
	struct hvt_vcpu *t = hvt_vcpu_slot_of(target);
	u32 lvtt;
	u8 vec;

	if (!t || !hvt_vcpu_same(t, target) || !hvt_lapic_is(apic, target) ||
	    !hvt_lapic_enabled(apic, target) || hvt_lapic_timer_pending(apic))
		return 0;
	lvtt = hvt_lapic_reg(apic, APIC_LVTT);
	vec = lvtt & APIC_VECTOR_MASK;
	if ((lvtt & APIC_LVT_MASKED) || vec < 16)
		return 0;
	WRITE_ONCE(t->timer_vec, vec);
	smp_wmb();	/* pairs with timer_expiry_take() */
	WRITE_ONCE(t->timer_expiry,
		   hvt_irq_stamp(hvt_clock(), HVTRACE_VCPU_IRQ_TIMER));
	return 0;
}

static struct kprobe timer_kprobe = {
	.symbol_name = HVT_SYM_APIC_TIMER_FN,
	.pre_handler = hvt_on_apic_timer,
};

static bool timer_kprobe_on;

/* Only beside the raise's kprobe: that one keeps the expiry's stamp. */
static void timer_kprobe_register(void)
{
	int err = register_kprobe(&timer_kprobe);

	if (err)
		pr_info("no kprobe on %s (%d): LAPIC timers timed from KVM's raise\n",
			timer_kprobe.symbol_name, err);
	timer_kprobe_on = !err;
}

static void timer_kprobe_unregister(void)
{
	if (timer_kprobe_on)
		unregister_kprobe(&timer_kprobe);
	timer_kprobe_on = false;
}
#else
static void timer_kprobe_register(void)
{
	pr_info("no struct kvm_timer offsets in this build: LAPIC timers timed from KVM's raise\n");
}

static void timer_kprobe_unregister(void)
{
}

#define timer_kprobe_on	false
#endif /* HVT_LAPIC_TIMER_KNOWN */

void hvt_irq_kprobe_register(void)
{
	int err;

	if (hvt_bench_skip(HVT_BENCH_IRQ))
		return;
	err = register_kprobe(&accept_kprobe);
	if (err)
		pr_info("no kprobe on %s (%d): interrupts timed from vCPUs' raises only\n",
			accept_kprobe.symbol_name, err);
	accept_kprobe_on = !err;
	if (accept_kprobe_on)
		timer_kprobe_register();
}

void hvt_irq_kprobe_unregister(void)
{
	timer_kprobe_unregister();
	if (accept_kprobe_on)
		unregister_kprobe(&accept_kprobe);
	accept_kprobe_on = false;
}

bool hvt_irq_every(void)
{
	return accept_kprobe_on;
}

bool hvt_irq_timer_expiry(void)
{
	return timer_kprobe_on;
}

/*
 * The kprobe's raise on this CPU, if it is VEC for vCPU APICID in this
 * task and context (then forgotten), and the stamp it wrote in *STAMP.
 */
static struct hvt_vcpu *seen_raise(u32 apicid, u8 vec, u64 *stamp)
{
	struct hvt_irq_seen *seen = this_cpu_ptr(&hvt_irq_seen);
	struct hvt_vcpu *t = seen->t;

	if (!t || seen->vec != vec || t->vcpu_id != apicid ||
	    seen->task != current || seen->in_task != in_task())
		return NULL;
	seen->t = NULL;
	*stamp = seen->stamp;
	return t;
}
#else
void hvt_irq_kprobe_register(void)
{
	pr_info("no struct kvm_lapic offsets in this build: interrupts timed from vCPUs' raises only\n");
}

void hvt_irq_kprobe_unregister(void)
{
}

bool hvt_irq_every(void)
{
	return false;
}

bool hvt_irq_timer_expiry(void)
{
	return false;
}

static struct hvt_vcpu *seen_raise(u32 apicid, u8 vec, u64 *stamp)
{
	return NULL;
}
#endif /* HVT_LAPIC_KNOWN */

/*
 * Right after the raise, in the same call: the CPU posted it, so no
 * entry injects it. The kprobe's raise on this CPU takes back exactly
 * the stamp it wrote; else the raise is found again from the raiser (it
 * may have been preempted and moved between the two; a device's raise
 * then keeps its stamp, which the next raise of the vector with its IRR
 * bit clear replaces).
 */
void hvt_irq_on_posted(void *data, __u32 apicid, __u16 dm, __u16 tm,
		       __u8 vec)
{
	struct hvt_vcpu *t;
	u64 stamp;
	bool ipi;

	t = seen_raise(apicid, vec, &stamp);
	if (t) {
		if (stamp)
			cmpxchg(&t->raised[vec], stamp, 0);
	} else {
		t = raise_slot(apicid, dm, tm, vec, &ipi);
		if (!t)
			return;
		xchg(&t->raised[vec], 0);
	}
	atomic64_inc(&t->stat.irqs.posted);
}

/*
 * While recording: V's delivery in flight, not recorded yet, passes the
 * VM, vCPU and CPU filters and its threshold. A reinjection decides
 * again: it may have crossed the threshold since.
 */
static void consider_irq(struct hvt_vcpu *v)
{
	const struct hvt_config *cfg = rcu_dereference_sched(hvt_cfg);
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	struct hvt_irq_inflight *f = &v->irq_inflight;
	int cpu = smp_processor_id();

	if (unlikely(!c))
		return;
	c->acct.irq_seen++;
	/* The CPU filter: the injecting CPU's, as the record has it. */
	if (cfg->filters && hvt_filtered_where(cfg, v, cpu)) {
		c->acct.irq_filtered++;
		return;
	}
	if (f->ns < cfg->irq_threshold_ns) {
		c->acct.irq_below++;
		return;
	}
	f->recorded = true;
	hvt_record_irq(c, v, cpu);
}

/* Preemption is off in a tracepoint's probe. */
void hvt_irq_on_inject(void *data, unsigned int vector, bool soft,
		       bool reinjected)
{
	struct hvt_irq_inflight *f;
	struct hvt_vcpu *v;
	u64 exits;

	/* INTn emulation, not an interrupt. */
	if (soft || vector > 255)
		return;
	v = hvt_current_vcpu();
	if (!v)
		return;
	f = &v->irq_inflight;
	exits = v->stat.exits.count;
	if (reinjected)
		hvt_irq_reinjection_check(f, exits);
	if (!hvt_irq_inject(&hvt_vcpu_stat(v)->irqs, &v->irq_hist, f,
			    v->raised, vector, reinjected, hvt_clock(),
			    &v->split))
		return;
	f->exits = exits;
	if (READ_ONCE(hvt_recording) && !f->recorded)
		consider_irq(v);
	/* A reinjection may make it late only now. */
	if (!f->late)
		f->late = hvt_watch_irq(v, f->vector, f->ns);
}
