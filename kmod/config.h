/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Thresholds and filters. The configuration is an immutable object
 * published through RCU: the probes see either the old or the new one,
 * never a mix, so changes are atomic while tracing.
 */
#ifndef _HVT_CONFIG_H
#define _HVT_CONFIG_H

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/rcupdate.h>
#include <linux/threads.h>

#include "vcpu.h"

#define HVT_F_PID	BIT(0)
#define HVT_F_VCPU	BIT(1)
#define HVT_F_REASON	BIT(2)
#define HVT_F_RIP	BIT(3)
#define HVT_F_CPU	BIT(4)

#define HVT_NR_VCPU_IDS	(HVTRACE_MAX_VCPU_ID + 1)
#define HVT_NO_OVERRIDE	U64_MAX

struct hvt_config {
	struct rcu_head rcu;
	u32 filters;			/* HVT_F_* in force */
	u32 pid;
	u64 rip_min;
	u64 rip_max;
	u64 threshold_ns;
	u64 preempt_threshold_ns;	/* preemption records */
	u64 irq_threshold_ns;		/* late interrupt records */
	u8 on;				/* enum hvtrace_threshold_on */
	bool halt_triggers;		/* with ON_TOTAL: halt time counts */
	/*
	 * Derived: no filter, and ON is the total or the handling, so an
	 * exit nothing happened to (its parts all zero) compares its
	 * duration with thr[] (hvt_quiet_below()).
	 */
	bool plain;
	/* Per reason: what the probe compares with (override or global). */
	u64 thr[HVT_NR_REASONS];
	/* Per reason: the override, or HVT_NO_OVERRIDE. */
	u64 override[HVT_NR_REASONS];
	DECLARE_BITMAP(reasons, HVT_NR_REASONS);
	DECLARE_BITMAP(vcpus, HVT_NR_VCPU_IDS);
	struct cpumask cpus;
};

extern struct hvt_config __rcu *hvt_cfg;

int hvt_config_init(u64 threshold_ns);
void hvt_config_exit(void);
/* A private copy of the configuration in force, to edit. */
struct hvt_config *hvt_config_dup(void);
/* Recompute derived fields and publish C (takes ownership). */
void hvt_config_publish(struct hvt_config *c);
void hvt_config_reset_filters(struct hvt_config *c);
void hvt_config_reset_overrides(struct hvt_config *c);

/* Is V, on CPU, outside the VM, vCPU and CPU filters? */
static inline bool hvt_filtered_where(const struct hvt_config *c,
				      const struct hvt_vcpu *v, int cpu)
{
	u32 f = c->filters;

	if ((f & HVT_F_PID) && v->vm_pid != c->pid)
		return true;
	if ((f & HVT_F_VCPU) && (v->vcpu_id >= HVT_NR_VCPU_IDS ||
				 !test_bit(v->vcpu_id, c->vcpus)))
		return true;
	return (f & HVT_F_CPU) && !cpumask_test_cpu(cpu, &c->cpus);
}

/* The probes' question: is this exit excluded by a filter? */
static inline bool hvt_filtered(const struct hvt_config *c,
				const struct hvt_vcpu *v, unsigned int ridx)
{
	u32 f = c->filters;

	if (likely(!f))
		return false;
	if (hvt_filtered_where(c, v, v->cpu_exit))
		return true;
	if ((f & HVT_F_REASON) && !test_bit(ridx, c->reasons))
		return true;
	if ((f & HVT_F_RIP) && (!(v->flags & HVTRACE_EVF_RIP_VALID) ||
				v->rip < c->rip_min || v->rip > c->rip_max))
		return true;
	return false;
}

/* An exit's value to compare with: the duration D or one part of it. */
static inline u64 hvt_part_value(u8 on, bool halt_triggers,
				 const struct hvt_vcpu *v, u64 d)
{
	u64 sum = 0;
	int i;

	switch (on) {
	case HVTRACE_ON_TOTAL:
		return halt_triggers ? d : d - v->split.part[HVTRACE_PART_HALT];
	case HVTRACE_ON_HANDLING:
		for (i = 0; i < HVTRACE_NR_PARTS; i++)
			sum += v->split.part[i];
		return d - sum;
	default:
		return v->split.part[on - HVTRACE_ON_VMM];
	}
}

/* What the thresholds compare with. */
static inline u64 hvt_threshold_value(const struct hvt_config *c,
				      const struct hvt_vcpu *v, u64 d)
{
	return hvt_part_value(c->on, c->halt_triggers, v, d);
}

/*
 * The common case of the probes' question, in two loads and a compare: is a
 * quiet exit (no parts) of reason RIDX and D ns below C's threshold, with
 * no filter to ask? False: ask hvt_filtered() and hvt_threshold_value().
 */
static __always_inline bool hvt_quiet_below(const struct hvt_config *c,
					    unsigned int ridx, u64 d)
{
	return c->plain && d < c->thr[ridx];
}

#endif /* _HVT_CONFIG_H */
