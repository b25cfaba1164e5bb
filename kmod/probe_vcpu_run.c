// SPDX-License-Identifier: GPL-2.0
/*
 * The VMM's side of an exit, its device accesses, and halts:
 *   kvm_userspace_exit    KVM_RUN returns: the VMM has the exit
 *   kvm_vcpu_ioctl (kprobe, KVM_RUN)   KVM_RUN again: the VMM is done
 *   kvm_mmio              a device access KVM emulates or hands on
 *   kvm_fast_mmio         VMX: an ioeventfd write, not emulated
 *   kvm_vcpu_wakeup       a halt ended (how long, and if it blocked)
 * and, for probe_irq.c, interrupt delivery's three tracepoints.
 * Each of them runs in the vCPU's thread, which names the vCPU. KVM
 * does not export the first three tracepoints (nor, for us, their
 * types): they are found in kvm.ko's
 * tracepoint table through the tracepoint module notifier, which also
 * reports kvm.ko as already loaded. kvm.ko cannot unload under us (we
 * link its exported symbols), but GOING is handled all the same.
 *
 * Without the kprobe (a kernel without kprobes on it), the VMM's time
 * runs on to the entry and so takes in KVM's completion of the exit, and
 * a vCPU that changes threads is followed only at its next exit.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/fs.h>
#include <linux/kprobes.h>
#include <linux/kvm_host.h>
#include <linux/module.h>
#include <linux/tracepoint.h>
#include <trace/events/kvm.h>

#include "compat/kprobe_args.h"
#include "compat/kvm_symbols.h"
#include "compat/kvm_vcpu.h"
#include "compat/tracepoint_module.h"
#include "bench.h"
#include "exit_info.h"
#include "irq.h"
#include "probes.h"
#include "threads.h"
#include "vcpu_table.h"
#include "vcpu_time.h"

static void hvt_on_userspace_exit(void *data, __u32 reason, int errno)
{
	struct hvt_vcpu *v = hvt_current_vcpu();

	if (!v)
		return;
	if (!hvt_bench_skip(HVT_BENCH_MMIO) &&
	    reason == KVM_EXIT_MMIO && v->split.in_exit)
		v->flags |= HVTRACE_EVF_MMIO_VMM;
	hvt_time_to_user(&v->split);
}

static void hvt_on_mmio(void *data, int type, int len, u64 gpa, void *val)
{
	struct hvt_vcpu *v = hvt_current_vcpu();

	if (v && v->split.in_exit)
		hvt_exit_mmio(v, type == KVM_TRACE_MMIO_WRITE ?
			      HVTRACE_EVF_MMIO_WRITE : HVTRACE_EVF_MMIO_READ,
			      len > 0 ? len : HVTRACE_EVF_MMIO_LEN_MAX + 1,
			      gpa);
}

/* A write to an ioeventfd's address, of a length VMX does not say. */
static void hvt_on_fast_mmio(void *data, u64 gpa)
{
	struct hvt_vcpu *v = hvt_current_vcpu();

	if (v && v->split.in_exit)
		hvt_exit_mmio(v, HVTRACE_EVF_MMIO_WRITE, 0, gpa);
}

static void hvt_on_vcpu_wakeup(void *data, __u64 ns, bool waited, bool valid)
{
	struct hvt_vcpu *v = hvt_current_vcpu();

	if (v)
		hvt_time_halted(&v->split, ns, waited);
}

static_assert(sizeof(register_trace_kvm_userspace_exit(hvt_on_userspace_exit,
						       NULL)));
static_assert(sizeof(register_trace_kvm_vcpu_wakeup(hvt_on_vcpu_wakeup,
						    NULL)));
static_assert(sizeof(register_trace_kvm_mmio(hvt_on_mmio, NULL)));
#ifndef HVT_TP_UNCHECKED
static_assert(__builtin_types_compatible_p(typeof(hvt_on_fast_mmio) *,
					   hvt_tp_kvm_fast_mmio_t));
#endif

/*
 * Interrupt delivery (probe_irq.c): only with prototypes checked against
 * kvm.ko's BTF (a probe of the wrong type would read garbage), and where
 * the kernel has the tracepoint.
 */
#if !defined(HVT_TP_UNCHECKED) && !defined(HVT_TP_NO_kvm_apic_accept_irq)
static_assert(__builtin_types_compatible_p(typeof(hvt_irq_on_accept) *,
					   hvt_tp_kvm_apic_accept_irq_t));
#define HVT_IRQ_ACCEPT	hvt_irq_on_accept
#else
#define HVT_IRQ_ACCEPT	NULL
#endif
#if !defined(HVT_TP_UNCHECKED) && !defined(HVT_TP_NO_kvm_apicv_accept_irq)
static_assert(__builtin_types_compatible_p(typeof(hvt_irq_on_posted) *,
					   hvt_tp_kvm_apicv_accept_irq_t));
#define HVT_IRQ_POSTED	hvt_irq_on_posted
#else
#define HVT_IRQ_POSTED	NULL
#endif
#if !defined(HVT_TP_UNCHECKED) && !defined(HVT_TP_NO_kvm_inj_virq)
static_assert(__builtin_types_compatible_p(typeof(hvt_irq_on_inject) *,
					   hvt_tp_kvm_inj_virq_t));
#define HVT_IRQ_INJECT	hvt_irq_on_inject
#else
#define HVT_IRQ_INJECT	NULL
#endif

/*
 * KVM_RUN, perhaps from another thread than the last one (legal, and
 * some VMMs do it): that thread drives the vCPU's split from now on. At
 * the ioctl's entry, so the VMM's part ends where the VMM's own clock
 * would say, and what KVM does before it runs the vCPU (for a new
 * thread: synchronize_rcu() after vcpu->pid changes) is the kernel's.
 */
static int hvt_on_run(struct kprobe *kp, struct pt_regs *regs)
{
	const struct file *filp = (void *)hvt_kprobe_arg(regs, 0);
	struct hvt_vcpu *v;

	if (hvt_kprobe_arg(regs, 1) != KVM_RUN)
		return 0;
	v = hvt_vcpu_find(hvt_vcpu_of_file(filp));
	if (!v)
		return 0;
	if (unlikely(READ_ONCE(v->split.task) != current))
		hvt_thread_add(v);
	hvt_time_run(&v->split);
	return 0;
}

static struct kprobe run_kprobe = {
	.symbol_name = HVT_SYM_VCPU_IOCTL,
	.pre_handler = hvt_on_run,
};

static bool run_kprobe_on;

u16 hvt_gpa_class;

/*
 * bench: the part of the exit path (kmod/bench.h) a probe belongs to;
 * gpa: needed to tell what a GPA fault hit (hvt_gpa_class).
 */
static struct {
	const char *name;
	void *probe;
	unsigned long bench;
	bool gpa;
	u8 irq;			/* HVTRACE_IRQ_PROBE_*: hvt_irq_probes() */
	struct tracepoint *tp;
} kvm_probes[] = {
	{ "kvm_userspace_exit", hvt_on_userspace_exit, .gpa = true },
	{ "kvm_mmio", hvt_on_mmio, HVT_BENCH_MMIO, true },
	{ "kvm_fast_mmio", hvt_on_fast_mmio, HVT_BENCH_MMIO, true },
	{ "kvm_vcpu_wakeup", hvt_on_vcpu_wakeup },
	{ "kvm_apic_accept_irq", HVT_IRQ_ACCEPT, .bench = HVT_BENCH_IRQ,
	  .irq = HVTRACE_IRQ_PROBE_RAISE },
	{ "kvm_apicv_accept_irq", HVT_IRQ_POSTED, .bench = HVT_BENCH_IRQ,
	  .irq = HVTRACE_IRQ_PROBE_POSTED },
	{ "kvm_inj_virq", HVT_IRQ_INJECT, .bench = HVT_BENCH_IRQ,
	  .irq = HVTRACE_IRQ_PROBE_INJECT },
};

u8 hvt_irq_probes(void)
{
	unsigned int j;
	u8 on = 0;

	for (j = 0; j < ARRAY_SIZE(kvm_probes); j++)
		if (READ_ONCE(kvm_probes[j].tp))
			on |= kvm_probes[j].irq;
	if (hvt_irq_every())
		on |= HVTRACE_IRQ_PROBE_RAISE | HVTRACE_IRQ_PROBE_EVERY;
	if (hvt_irq_timer_expiry())
		on |= HVTRACE_IRQ_PROBE_TIMER;
	return on;
}

/* GPA faults say what they hit only while every probe needed is on. */
static void gpa_class_update(void)
{
	u16 on = HVTRACE_EVF_GPA_CLASS;

	for (unsigned int j = 0; j < ARRAY_SIZE(kvm_probes); j++)
		if (kvm_probes[j].gpa && !kvm_probes[j].tp)
			on = 0;
	WRITE_ONCE(hvt_gpa_class, on);
}

static void kvm_probes_attach(struct tp_module *tm)
{
	struct module *mod = tm->mod;
	unsigned int i, j;
	int err;

	for (i = 0; i < hvt_module_tracepoints(mod); i++) {
		struct tracepoint *tp = hvt_module_tracepoint(mod, i);

		for (j = 0; j < ARRAY_SIZE(kvm_probes); j++) {
			if (!kvm_probes[j].probe || kvm_probes[j].tp ||
			    strcmp(tp->name, kvm_probes[j].name) ||
			    hvt_bench_skip(kvm_probes[j].bench))
				continue;
			/* The kprobe has every raise already. */
			if (kvm_probes[j].irq == HVTRACE_IRQ_PROBE_RAISE &&
			    hvt_irq_every())
				continue;
			err = tracepoint_probe_register(tp, kvm_probes[j].probe,
							NULL);
			if (err)
				pr_warn("cannot attach to %s: %d\n",
					tp->name, err);
			else
				kvm_probes[j].tp = tp;
		}
	}
	gpa_class_update();
}

static void kvm_probes_detach(struct tp_module *tm)
{
	unsigned int j;

	for (j = 0; j < ARRAY_SIZE(kvm_probes); j++) {
		struct tracepoint *tp = kvm_probes[j].tp;

		if (!tp || !within_module((unsigned long)tp, tm->mod))
			continue;
		tracepoint_probe_unregister(tp, kvm_probes[j].probe, NULL);
		kvm_probes[j].tp = NULL;
	}
	gpa_class_update();
}

static int hvt_tp_module_event(struct notifier_block *nb, unsigned long val,
			       void *data)
{
	struct tp_module *tm = data;

	if (strcmp(tm->mod->name, "kvm"))
		return NOTIFY_DONE;
	if (val == MODULE_STATE_COMING)
		kvm_probes_attach(tm);
	else if (val == MODULE_STATE_GOING)
		kvm_probes_detach(tm);
	return NOTIFY_OK;
}

static struct notifier_block tp_module_nb = {
	.notifier_call = hvt_tp_module_event,
};

int hvt_probe_vcpu_run_register(void)
{
	int err;

	hvt_irq_kprobe_register();
	err = register_tracepoint_module_notifier(&tp_module_nb);
	if (err) {
		hvt_irq_kprobe_unregister();
		return err;
	}
	err = register_kprobe(&run_kprobe);
	if (err)
		pr_info("no kprobe on %s (%d): VMM time runs on to the entry\n",
			run_kprobe.symbol_name, err);
	run_kprobe_on = !err;
	return 0;
}

void hvt_probe_vcpu_run_unregister(void)
{
	if (run_kprobe_on)
		unregister_kprobe(&run_kprobe);
	run_kprobe_on = false;
	unregister_tracepoint_module_notifier(&tp_module_nb);
	hvt_irq_kprobe_unregister();
}
