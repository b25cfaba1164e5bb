// SPDX-License-Identifier: GPL-2.0
/*
 * The exit path: probes on kvm_exit, kvm_entry and kvm_page_fault.
 *
 * kvm_exit notes the exit in the vCPU's slot; the next kvm_entry of that
 * vCPU (on whatever CPU) ends it: aggregates always, then, while
 * recording, filters, threshold and the ring; while watching, the
 * vCPU's history and the triggers (watch.c). A CPUID exit may be a
 * guest mark (guest_mark.c), noted at the exit. An exit whose vCPU KVM
 * destroys before it enters again ends there (probe_destroy.c), so every
 * exit is counted. Linking the exported __tracepoint_kvm_* symbols makes
 * modprobe load kvm first and pins it.
 *
 * Entries without an exit are normal (fastpath re-entries on AMD before
 * 6.5, where kvm_exit fires late, in svm_handle_exit) and are ignored.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kvm_host.h>

#include "bench.h"
#include "config.h"
#include "exit_info.h"
#include "guest_mark.h"
#include "kvm_tracepoints.h"
#include "probes.h"
#include "record.h"
#include "threads.h"
#include "vcpu_table.h"
#include "vcpu_time.h"
#include "watch.h"

/*
 * The slot of VCPU when this CPU's last one is not it. Out of line: the
 * identity on the stack would cost every exit a stack canary and stores.
 */
static noinline struct hvt_vcpu *claim(const struct kvm_vcpu *vcpu, u8 isa)
{
	struct hvt_vcpu_ident id;

	hvt_vcpu_ident(&id, vcpu);
	id.isa = isa;
	return hvt_vcpu_claim(vcpu, &id);
}

/* On exit: also notice a new vCPU at a freed one's address. */
static __always_inline struct hvt_vcpu *vcpu_get(const struct kvm_vcpu *vcpu,
						 u8 isa)
{
	struct hvt_vcpu *v = hvt_vcpu_cached(vcpu);

	if (likely(v && hvt_vcpu_same(v, vcpu)))
		return v;
	return claim(vcpu, isa);
}

/*
 * The probes of every exit, and what they call each time, are notrace,
 * as the kernel's own trace event handlers are: no function-tracer nop
 * (one instruction each) on that path.
 */
static notrace void hvt_on_exit(void *data, struct kvm_vcpu *vcpu, u32 isa)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	struct hvt_vcpu *v;

	if (unlikely(!c)) {
		hvt_stats_untraced();
		return;
	}
	c->exits++;
	v = vcpu_get(vcpu, isa);
	if (unlikely(!v)) {
		/* More vCPUs than max_vcpus: counted, not timed. */
		c->acct.unpaired++;
		return;
	}
	if (unlikely(READ_ONCE(v->split.task) != current))
		hvt_thread_add(v);	/* a new vCPU thread */

	v->isa = isa;
	if (hvt_want_details()) {
		hvt_exit_info_read(vcpu, v, true);
		v->cpu_exit = smp_processor_id();
		/*
		 * Also set by hvt_thread_add(), but two threads taking V at
		 * once (KVM_RUN's probe runs before the vCPU's mutex) could
		 * leave the other's: the exit's own thread, always.
		 */
		v->tid = current->pid;
		if (unlikely(hvt_exit_is_mark(vcpu, v)))
			hvt_guest_mark(vcpu, v);
	} else {
		hvt_exit_info_read(vcpu, v, false);
	}
	/*
	 * Last, so the time covers none of our own work. True: the exit
	 * before never re-entered. C is read again there (the same pointer:
	 * published before any probe runs on this CPU) rather than kept
	 * across the calls above, which would cost every exit a register.
	 */
	if (unlikely(hvt_time_exit(&v->split)))
		this_cpu_read(hvt_this_cpu)->acct.unpaired++;
}

/*
 * VMX's EPT violations: the GPA. (SVM's NPF has it in the VMCB; a #PF
 * intercept under shadow paging also fires kvm_page_fault, with the
 * guest's virtual address: not a GPA.)
 */
static void hvt_on_page_fault(void *data, struct kvm_vcpu *vcpu,
			      u64 fault_address, u64 error_code)
{
	struct hvt_vcpu *v = hvt_vcpu_find(vcpu);

	if (v && v->split.in_exit && v->isa == HVTRACE_ISA_VMX &&
	    (u16)v->reason == HVT_VMX_EPT_VIOLATION &&
	    !(v->flags & HVTRACE_EVF_ADDR_GPA)) {
		v->addr = fault_address;
		v->flags |= HVTRACE_EVF_ADDR_GPA | READ_ONCE(hvt_gpa_class);
	}
}

/* S's minimum is U64_MAX when it has none (at load, after a clear). */
static void stat_add(struct hvt_reason_stat *s, u64 d)
{
	s->count++;
	if (d < s->min_ns)
		s->min_ns = d;
	if (d > s->max_ns)
		s->max_ns = d;
	s->total_ns += d;
}

/*
 * While recording: filters, then the threshold, then the ring (each exit
 * counted in one of filtered, below, recorded or lost: their sum is the
 * exits seen). QUIET: nothing happened to the exit (no parts), so most
 * are told below in two loads and a compare.
 */
static noinline notrace void consider(struct hvt_cpu *c,
				      const struct hvt_vcpu *v,
				      unsigned int ridx, u64 d, bool quiet)
{
	const struct hvt_config *cfg = rcu_dereference_sched(hvt_cfg);

	if (quiet && hvt_quiet_below(cfg, ridx, d)) {
		c->acct.below++;
		return;
	}
	if (hvt_filtered(cfg, v, ridx)) {
		c->acct.filtered++;
		return;
	}
	if (hvt_threshold_value(cfg, v, d) < cfg->thr[ridx]) {
		c->acct.below++;
		return;
	}
	hvt_record_exit(c, v, d, smp_processor_id());
}

/*
 * What every exit that ends is counted in: V's exit of D ns ended at
 * the entry (or the destruction) on this CPU, whose state is C. Returns
 * its reason's index; *VS is V's aggregates.
 */
static __always_inline unsigned int exit_count(struct hvt_cpu *c,
					       struct hvt_vcpu *v, u64 d,
					       struct hvt_vcpu_stat **vs)
{
	struct hvt_vcpu_rsn *rsn;
	unsigned int ridx;

	/* A new slot has entry_ts U64_MAX: no guest time before its first exit. */
	v->guest_ns = hvt_since(v->split.exit_ts, v->entry_ts);
	v->entry_ts = v->split.exit_ts + d;

	ridx = hvt_reason_index(v->isa, v->reason);
	if (!hvt_bench_skip(HVT_BENCH_CPU_REASON))
		stat_add(&c->reason[ridx], d);
	if (!hvt_bench_skip(HVT_BENCH_HIST))
		hvt_cpu_hist(c, ridx)->bucket[hvt_hist_index(d)]++;
	*vs = hvt_vcpu_stat(v);
	if (!hvt_bench_skip(HVT_BENCH_VCPU_STAT)) {
		stat_add(&(*vs)->exits, d);
		(*vs)->guest_ns += v->guest_ns;
	}
	/* Per VM and reason: one indexed add (vcpu.h). */
	if (!hvt_bench_skip(HVT_BENCH_VCPU_RSN)) {
		rsn = &v->rsn[hvt_vcpu_rsn_index(ridx)];
		rsn->count++;
		rsn->ns += d;
	}
	return ridx;
}

/*
 * The end of an exit something happened to (preempted, halted, in the
 * VMM, or its vCPU destroyed): its parts closed, the same as for any
 * exit, its parts counted, then a clean slate. Out of line: most exits
 * are handled in the kernel without a switch. The close and the reset
 * are inline here, so this path makes no calls of its own.
 */
static noinline notrace unsigned int end_split(struct hvt_cpu *c,
					       struct hvt_vcpu *v, u64 d)
{
	struct hvt_vcpu_stat *vs;
	unsigned int ridx;
	int i;

	hvt_time_close(&v->split, d);
	ridx = exit_count(c, v, d, &vs);
	for (i = 0; i < HVTRACE_NR_PARTS; i++) {
		c->reason[ridx].part_ns[i] += v->split.part[i];
		vs->exits.part_ns[i] += v->split.part[i];
	}
	if (READ_ONCE(hvt_recording))
		consider(c, v, ridx, d, false);
	hvt_watch_exit(v, d);
	hvt_time_reset(&v->split);
	return ridx;
}

static notrace void hvt_on_entry(HVT_KVM_ENTRY_PROTO)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	struct hvt_vcpu_stat *vs;
	struct hvt_vcpu *v;
	unsigned int ridx;
	u64 d;

	if (unlikely(!c))
		return;	/* its exit was counted as untraced */
	c->entries++;
	v = hvt_vcpu_find(vcpu);
	if (!v)
		return;
	switch (hvt_time_entry(&v->split, &d)) {
	case HVT_END_NONE:
		return;
	case HVT_END_SPLIT:
		end_split(c, v, d);
		return;
	case HVT_END_QUIET:
		break;
	}
	ridx = exit_count(c, v, d, &vs);
	if (hvt_details_on()) {
		if (READ_ONCE(hvt_recording))
			consider(c, v, ridx, d, true);
		hvt_watch_exit(v, d);
	}
}

/*
 * Preemption is off (a kprobe on KVM's destruction). The exit counts
 * under its reason, flagged, with its time up to now.
 */
void hvt_exit_end_destroyed(struct hvt_vcpu *v)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	unsigned int ridx;
	u64 d;

	/* The thread lets go, the split ends; the slot retires next. */
	if (!hvt_time_destroyed(&v->split, &d))
		return;
	if (unlikely(!c)) {
		/* Destroyed on a CPU hvtrace could not trace: said so. */
		hvt_stats_untraced();
		return;
	}
	v->flags |= HVTRACE_EVF_NO_ENTRY;
	ridx = end_split(c, v, d);
	c->reason[ridx].no_entry++;
	c->acct.no_entry++;
}

/*
 * The probes against the tracepoints' types, from the target kernel's BTF
 * (compat/kvm-btf.sh): arch/x86/kvm/trace.h is not in headers.
 */
#ifndef HVT_TP_UNCHECKED
static_assert(__builtin_types_compatible_p(typeof(hvt_on_exit) *,
					   hvt_tp_kvm_exit_t));
static_assert(__builtin_types_compatible_p(typeof(hvt_on_entry) *,
					   hvt_tp_kvm_entry_t));
static_assert(__builtin_types_compatible_p(typeof(hvt_on_page_fault) *,
					   hvt_tp_kvm_page_fault_t));
#endif
#ifdef HVT_CANARY_WRONG_PROTOTYPE
/* make check proves the check bites: this probe's isa is u64. */
static void hvt_on_exit_wrong(void *data, struct kvm_vcpu *vcpu, u64 isa)
{
}

static_assert(__builtin_types_compatible_p(typeof(hvt_on_exit_wrong) *,
					   hvt_tp_kvm_exit_t));
#endif

int hvt_probe_kvm_register(void)
{
	int err;

	err = tracepoint_probe_register(&__tracepoint_kvm_exit,
					hvt_on_exit, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(&__tracepoint_kvm_page_fault,
					hvt_on_page_fault, NULL);
	if (err)
		goto err_exit;
	err = tracepoint_probe_register(&__tracepoint_kvm_entry,
					hvt_on_entry, NULL);
	if (err)
		goto err_page_fault;
	return 0;

err_page_fault:
	tracepoint_probe_unregister(&__tracepoint_kvm_page_fault,
				    hvt_on_page_fault, NULL);
err_exit:
	tracepoint_probe_unregister(&__tracepoint_kvm_exit, hvt_on_exit, NULL);
	return err;
}

void hvt_probe_kvm_unregister(void)
{
	tracepoint_probe_unregister(&__tracepoint_kvm_entry, hvt_on_entry, NULL);
	tracepoint_probe_unregister(&__tracepoint_kvm_page_fault,
				    hvt_on_page_fault, NULL);
	tracepoint_probe_unregister(&__tracepoint_kvm_exit, hvt_on_exit, NULL);
}
