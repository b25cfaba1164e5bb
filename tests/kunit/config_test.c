// SPDX-License-Identifier: GPL-2.0
/* KUnit: thresholds and filters (kmod/config.[ch]). */
#include <kunit/test.h>

#include "config.h"

static struct hvt_config *cfg_new(struct kunit *test)
{
	struct hvt_config *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	hvt_config_reset_filters(c);
	hvt_config_reset_overrides(c);
	return c;
}

/* Publication folds overrides into the per-reason array the probe reads. */
static void config_threshold_test(struct kunit *test)
{
	unsigned int npf = hvt_reason_index(HVTRACE_ISA_SVM, 0x400);
	unsigned int io = hvt_reason_index(HVTRACE_ISA_SVM, 0x7b);
	struct hvt_config *c, *now;

	KUNIT_ASSERT_EQ(test, hvt_config_init(50000), 0);
	c = hvt_config_dup();
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->override[npf] = 0;
	hvt_config_publish(c);

	rcu_read_lock();
	now = rcu_dereference(hvt_cfg);
	KUNIT_EXPECT_EQ(test, now->thr[npf], 0ULL);
	KUNIT_EXPECT_EQ(test, now->thr[io], 50000ULL);
	rcu_read_unlock();

	c = hvt_config_dup();
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->threshold_ns = 7;
	hvt_config_reset_overrides(c);
	hvt_config_publish(c);
	rcu_read_lock();
	now = rcu_dereference(hvt_cfg);
	KUNIT_EXPECT_EQ(test, now->thr[npf], 7ULL);
	rcu_read_unlock();
	synchronize_rcu();
	hvt_config_exit();
	rcu_barrier();
}

static void config_filter_test(struct kunit *test)
{
	struct hvt_config *c = cfg_new(test);
	struct hvt_vcpu v = {
		.vm_pid = 100, .vcpu_id = 3, .cpu_exit = 1, .rip = 0x1000,
		.flags = HVTRACE_EVF_RIP_VALID,
	};
	unsigned int cpuid = hvt_reason_index(HVTRACE_ISA_SVM, 0x72);
	unsigned int hlt = hvt_reason_index(HVTRACE_ISA_SVM, 0x78);

	KUNIT_EXPECT_FALSE(test, hvt_filtered(c, &v, cpuid));

	c->filters = HVT_F_PID;
	c->pid = 100;
	KUNIT_EXPECT_FALSE(test, hvt_filtered(c, &v, cpuid));
	c->pid = 101;
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, cpuid));

	hvt_config_reset_filters(c);
	c->filters = HVT_F_VCPU;
	__set_bit(3, c->vcpus);
	KUNIT_EXPECT_FALSE(test, hvt_filtered(c, &v, cpuid));
	v.vcpu_id = 4;
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, cpuid));
	v.vcpu_id = HVT_NR_VCPU_IDS + 5;	/* beyond the bitmap */
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, cpuid));
	v.vcpu_id = 3;

	hvt_config_reset_filters(c);
	c->filters = HVT_F_REASON;
	__set_bit(cpuid, c->reasons);
	KUNIT_EXPECT_FALSE(test, hvt_filtered(c, &v, cpuid));
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, hlt));

	hvt_config_reset_filters(c);
	c->filters = HVT_F_RIP;
	c->rip_min = 0x1000;
	c->rip_max = 0x1000;
	KUNIT_EXPECT_FALSE(test, hvt_filtered(c, &v, cpuid));
	v.rip = 0x1001;
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, cpuid));
	v.rip = 0x1000;
	v.flags = 0;			/* RIP unknown: not in any range */
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, cpuid));
	v.flags = HVTRACE_EVF_RIP_VALID;

	hvt_config_reset_filters(c);
	c->filters = HVT_F_CPU;
	cpumask_set_cpu(0, &c->cpus);
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, cpuid));
	cpumask_set_cpu(1, &c->cpus);
	KUNIT_EXPECT_FALSE(test, hvt_filtered(c, &v, cpuid));

	/* All kinds at once: every one must pass. */
	c->filters = HVT_F_CPU | HVT_F_REASON | HVT_F_PID;
	__set_bit(cpuid, c->reasons);
	c->pid = 100;
	KUNIT_EXPECT_FALSE(test, hvt_filtered(c, &v, cpuid));
	KUNIT_EXPECT_TRUE(test, hvt_filtered(c, &v, hlt));
}

/*
 * A quiet exit (no parts) told below in a load and a compare must be the
 * exit the whole test (filters, then the value of what the threshold is
 * on) finds below; where the configuration is plain, both ways agree.
 */
static void config_quiet_test(struct kunit *test)
{
	static const u64 thresholds[] = { 0, 5, 100 };
	static const u64 durations[] = { 0, 4, 5, 99, 100, 200 };
	unsigned int cpuid = hvt_reason_index(HVTRACE_ISA_SVM, 0x72);
	/* A quiet exit's slot: its parts all zero. Too big for the stack. */
	struct hvt_vcpu *v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);
	const struct hvt_config *now;
	struct hvt_config *c;
	unsigned int k, on, halt, f, t, i;

	KUNIT_ASSERT_NOT_NULL(test, v);
	v->vm_pid = 100;
	v->vcpu_id = 3;
	KUNIT_ASSERT_EQ(test, hvt_config_init(0), 0);
	/* Every ON, halt flag, filter (none, passing, failing), threshold. */
	for (k = 0; k < (HVTRACE_ON_MAX + 1) * 2 * 3 * ARRAY_SIZE(thresholds);
	     k++) {
		t = k % ARRAY_SIZE(thresholds);
		f = k / ARRAY_SIZE(thresholds) % 3;
		halt = k / ARRAY_SIZE(thresholds) / 3 % 2;
		on = k / ARRAY_SIZE(thresholds) / 3 / 2;
		c = hvt_config_dup();
		KUNIT_ASSERT_NOT_NULL(test, c);
		c->on = on;
		c->halt_triggers = halt;
		c->threshold_ns = thresholds[t];
		hvt_config_reset_filters(c);
		if (f) {
			c->filters = HVT_F_PID;
			c->pid = f == 1 ? 100 : 101;	/* passes, or not */
		}
		hvt_config_publish(c);
		rcu_read_lock();
		now = rcu_dereference(hvt_cfg);
		KUNIT_EXPECT_EQ(test, now->plain,
				!f && (on == HVTRACE_ON_TOTAL ||
				       on == HVTRACE_ON_HANDLING));
		for (i = 0; i < ARRAY_SIZE(durations); i++) {
			u64 d = durations[i];
			bool whole = !hvt_filtered(now, v, cpuid) &&
				     hvt_threshold_value(now, v, d) <
				     now->thr[cpuid];

			if (hvt_quiet_below(now, cpuid, d))
				KUNIT_EXPECT_TRUE(test, whole);
			if (now->plain)
				KUNIT_EXPECT_EQ(test,
						hvt_quiet_below(now, cpuid, d),
						whole);
		}
		rcu_read_unlock();
	}
	synchronize_rcu();
	hvt_config_exit();
	rcu_barrier();
}

static struct kunit_case config_cases[] = {
	KUNIT_CASE(config_threshold_test),
	KUNIT_CASE(config_filter_test),
	KUNIT_CASE(config_quiet_test),
	{}
};

static struct kunit_suite config_suite = {
	.name = "hvtrace_config",
	.test_cases = config_cases,
};

kunit_test_suite(config_suite);
