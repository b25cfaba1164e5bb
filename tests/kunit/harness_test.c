// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of the KUnit harness (tests/kunit/run): a suite linked into
 * hvtrace_kunit.ko runs at load, parameterized cases work, managed
 * allocations work under KASAN, and the test kernel is the one the config
 * fragment asks for.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/string.h>

#ifndef HVT_KUNIT
#error "tests/kunit/compat.h is not forced in"
#endif

static void harness_runs(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 2 + 2, 4);
	KUNIT_EXPECT_STREQ(test, KBUILD_MODNAME, "hvtrace_kunit");
}

/* The bug catchers the code under test relies on are in the kernel. */
static void harness_kernel(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, IS_ENABLED(CONFIG_KASAN));
	KUNIT_EXPECT_TRUE(test, IS_ENABLED(CONFIG_UBSAN));
	KUNIT_EXPECT_TRUE(test, IS_ENABLED(CONFIG_PROVE_LOCKING));
	KUNIT_EXPECT_TRUE(test, IS_ENABLED(CONFIG_DEBUG_ATOMIC_SLEEP));
	KUNIT_EXPECT_TRUE(test, IS_ENABLED(CONFIG_PREEMPTION));
	KUNIT_EXPECT_GE(test, num_online_cpus(), 2U);
}

/* Memory from kunit_kzalloc() is freed by KUnit after the case. */
static void harness_alloc(struct kunit *test)
{
	u8 *buf = kunit_kzalloc(test, 64, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
	KUNIT_EXPECT_NULL(test, memchr_inv(buf, 0, 64));
	memset(buf, 0xa5, 64);
	KUNIT_EXPECT_EQ(test, buf[63], 0xa5);
}

struct harness_shift_case {
	unsigned int bits;
	u64 want;
};

static const struct harness_shift_case harness_shift_cases[] = {
	{ 0, 1 },
	{ 1, 2 },
	{ 31, 0x80000000ULL },
	{ 63, 0x8000000000000000ULL },
};

static void harness_shift_desc(const struct harness_shift_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "bits=%u", c->bits);
}

KUNIT_ARRAY_PARAM(harness_shift, harness_shift_cases, harness_shift_desc);

static void harness_param(struct kunit *test)
{
	const struct harness_shift_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, BIT_ULL(c->bits), c->want);
}

static struct kunit_case harness_cases[] = {
	KUNIT_CASE(harness_runs),
	KUNIT_CASE(harness_kernel),
	KUNIT_CASE(harness_alloc),
	KUNIT_CASE_PARAM(harness_param, harness_shift_gen_params),
	{}
};

static struct kunit_suite harness_suite = {
	.name = "hvt_harness",
	.test_cases = harness_cases,
};

kunit_test_suite(harness_suite);
