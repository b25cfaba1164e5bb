/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Parts of the exit path a benchmark build leaves out, to measure what
 * each costs (bench/overhead --parts). HVT_BENCH_SKIP, a mask of the
 * bits below, comes from KCFLAGS; it is 0 in every other build, where
 * the tests below are constants and compile away. A module built with
 * any bit set counts wrongly: the bench loads it in its VM, nobody else.
 */
#ifndef _HVT_BENCH_H
#define _HVT_BENCH_H

#include <linux/bits.h>

#ifndef HVT_BENCH_SKIP
#define HVT_BENCH_SKIP		0
#endif

#define HVT_BENCH_EXIT_INFO	BIT(0)	/* the reason: VMCB (SVM) or get_exit_info */
#define HVT_BENCH_CPU_REASON	BIT(1)	/* per CPU and reason: count, time, min, max */
#define HVT_BENCH_HIST		BIT(2)	/* per CPU and reason: the histogram */
#define HVT_BENCH_VCPU_STAT	BIT(3)	/* per vCPU: count, time, min, max, guest time */
#define HVT_BENCH_VCPU_RSN	BIT(4)	/* per vCPU and reason: count, time */
#define HVT_BENCH_RDTSC		BIT(5)	/* the clock: a bare rdtsc, unscaled */
/* Device accesses: the kvm_mmio, kvm_fast_mmio probes, KVM_EXIT_MMIO's flag. */
#define HVT_BENCH_MMIO		BIT(6)
/*
 * Interrupt delivery (probe_irq.c): kvm_apic_accept_irq,
 * kvm_apicv_accept_irq, kvm_inj_virq. Off the exit path; each delivered
 * interrupt pays for them (bench/overhead --storm ipi).
 */
#define HVT_BENCH_IRQ		BIT(7)

#define hvt_bench_skip(part)	((HVT_BENCH_SKIP & (part)) != 0)

#endif /* _HVT_BENCH_H */
