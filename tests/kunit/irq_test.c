// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a vCPU's interrupt delivery counts (kmod/irq.c): a row per
 * vector for the first ones, the rest in one row, the baseline at a
 * clear, and the rows as GET_STATS sends them.
 */
#include <kunit/test.h>

#include "irq.h"

/* Vectors 32, 33, ... each delivered I + 1 times, I + 1 us each. */
static void irq_fill(struct hvt_vcpu_irqs *irqs, unsigned int nr_vectors)
{
	unsigned int i, j;

	for (i = 0; i < nr_vectors; i++)
		for (j = 0; j <= i; j++)
			hvt_irq_count(irqs, 32 + i, (i + 1) * 1000,
				      i & 1 ? HVTRACE_VCPU_IRQ_IPI :
					      HVTRACE_VCPU_IRQ_LOCAL);
}

/* The first seven vectors a row each, in the order they came. */
static void irq_rows_test(struct kunit *test)
{
	struct hvtrace_vcpu_irq out[HVT_IRQ_ROWS];
	struct hvt_vcpu_irqs irqs = {};
	unsigned int i, n;

	irq_fill(&irqs, HVTRACE_VCPU_IRQ_VECTORS);
	n = hvt_irqs_rows(&irqs, out);
	KUNIT_ASSERT_EQ(test, n, (unsigned int)HVTRACE_VCPU_IRQ_VECTORS);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ(test, out[i].vector, 32 + i);
		KUNIT_EXPECT_EQ(test, out[i].count, (u64)i + 1);
		KUNIT_EXPECT_EQ(test, out[i].total_ns, (u64)(i + 1) * (i + 1) * 1000);
		KUNIT_EXPECT_EQ(test, out[i].max_ns, (u64)(i + 1) * 1000);
		KUNIT_EXPECT_EQ(test, out[i].flags,
				i & 1 ? HVTRACE_VCPU_IRQ_IPI : HVTRACE_VCPU_IRQ_LOCAL);
		KUNIT_EXPECT_EQ(test, out[i].pad, 0);
		KUNIT_EXPECT_EQ(test, out[i].pad2, 0U);
	}
}

/* An eighth vector and later ones share the last row, vector 0. */
static void irq_other_row_test(struct kunit *test)
{
	struct hvtrace_vcpu_irq out[HVT_IRQ_ROWS];
	struct hvt_vcpu_irqs irqs = {};
	unsigned int n;

	irq_fill(&irqs, HVTRACE_VCPU_IRQ_VECTORS + 2);
	/* A known vector still goes to its own row. */
	hvt_irq_count(&irqs, 32, 50000, HVTRACE_VCPU_IRQ_IPI);
	n = hvt_irqs_rows(&irqs, out);
	KUNIT_ASSERT_EQ(test, n, (unsigned int)HVT_IRQ_ROWS);
	KUNIT_EXPECT_EQ(test, out[0].count, 2ULL);
	KUNIT_EXPECT_EQ(test, out[0].max_ns, 50000ULL);
	KUNIT_EXPECT_EQ(test, out[0].flags,
			HVTRACE_VCPU_IRQ_LOCAL | HVTRACE_VCPU_IRQ_IPI);
	KUNIT_EXPECT_EQ(test, out[7].vector, 0);
	KUNIT_EXPECT_EQ(test, out[7].flags, HVTRACE_VCPU_IRQ_OTHER |
			HVTRACE_VCPU_IRQ_LOCAL | HVTRACE_VCPU_IRQ_IPI);
	KUNIT_EXPECT_EQ(test, out[7].count, 8ULL + 9ULL);
	KUNIT_EXPECT_EQ(test, out[7].max_ns, 9000ULL);
}

/* Since a clear: counts less the baseline; maxima and sources anew. */
static void irq_since_clear_test(struct kunit *test)
{
	struct hvt_vcpu_irqs stat = {}, base, out;
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];

	irq_fill(&stat, 2);
	stat.unmatched = 5;
	stat.reinjected = 1;
	atomic64_set(&stat.posted, 3);
	base = stat;
	hvt_irqs_restart(&stat);
	hvt_irq_count(&stat, 33, 700, HVTRACE_VCPU_IRQ_LOCAL);
	stat.unmatched++;
	atomic64_inc(&stat.posted);
	hvt_irqs_since_clear(&out, &stat, &base);
	/* Vector 32 had nothing since: no row. */
	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(&out, rows), 1U);
	KUNIT_EXPECT_EQ(test, rows[0].vector, 33);
	KUNIT_EXPECT_EQ(test, rows[0].count, 1ULL);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 700ULL);
	KUNIT_EXPECT_EQ(test, rows[0].max_ns, 700ULL);
	KUNIT_EXPECT_EQ(test, rows[0].flags, HVTRACE_VCPU_IRQ_LOCAL);
	KUNIT_EXPECT_EQ(test, out.unmatched, 1ULL);
	KUNIT_EXPECT_EQ(test, out.reinjected, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&out.posted), 1LL);
}

static struct kunit_case irq_cases[] = {
	KUNIT_CASE(irq_rows_test),
	KUNIT_CASE(irq_other_row_test),
	KUNIT_CASE(irq_since_clear_test),
	{}
};

static struct kunit_suite irq_suite = {
	.name = "hvtrace_irq",
	.test_cases = irq_cases,
};

kunit_test_suite(irq_suite);
