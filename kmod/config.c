// SPDX-License-Identifier: GPL-2.0
/* The configuration object: creation, copy-on-write and publication. */
#include <linux/mutex.h>
#include <linux/slab.h>

#include "config.h"

struct hvt_config __rcu *hvt_cfg;

void hvt_config_reset_filters(struct hvt_config *c)
{
	c->filters = 0;
	c->pid = 0;
	c->rip_min = 0;
	c->rip_max = U64_MAX;
	bitmap_zero(c->reasons, HVT_NR_REASONS);
	bitmap_zero(c->vcpus, HVT_NR_VCPU_IDS);
	cpumask_clear(&c->cpus);
}

void hvt_config_reset_overrides(struct hvt_config *c)
{
	unsigned int i;

	for (i = 0; i < HVT_NR_REASONS; i++)
		c->override[i] = HVT_NO_OVERRIDE;
}

int hvt_config_init(u64 threshold_ns)
{
	struct hvt_config *c = kzalloc(sizeof(*c), GFP_KERNEL);

	if (!c)
		return -ENOMEM;
	c->threshold_ns = threshold_ns;
	c->preempt_threshold_ns = threshold_ns;
	c->irq_threshold_ns = HVTRACE_IRQ_THRESHOLD_OFF;
	hvt_config_reset_filters(c);
	hvt_config_reset_overrides(c);
	hvt_config_publish(c);
	return 0;
}

void hvt_config_exit(void)
{
	/* Probes are gone (main.c synchronized): no reader is left. */
	kfree(rcu_dereference_protected(hvt_cfg, true));
	RCU_INIT_POINTER(hvt_cfg, NULL);
}

struct hvt_config *hvt_config_dup(void)
{
	struct hvt_config *c = kmalloc(sizeof(*c), GFP_KERNEL);

	if (c)
		memcpy(c, rcu_dereference_protected(hvt_cfg, true), sizeof(*c));
	return c;
}

void hvt_config_publish(struct hvt_config *c)
{
	struct hvt_config *old;
	unsigned int i;

	for (i = 0; i < HVT_NR_REASONS; i++)
		c->thr[i] = c->override[i] != HVT_NO_OVERRIDE ?
			    c->override[i] : c->threshold_ns;
	c->plain = !c->filters &&
		   (c->on == HVTRACE_ON_TOTAL || c->on == HVTRACE_ON_HANDLING);

	/* Callers serialize on hvt_ctl_mutex (or run before the family). */
	old = rcu_replace_pointer(hvt_cfg, c, true);
	if (old)
		kfree_rcu(old, rcu);
}
