// SPDX-License-Identifier: GPL-2.0
/* KUnit: log-linear histograms (kmod/hist.c). */
#include <kunit/test.h>

#include "hist.h"

/* Every bucket: its bounds map back to it, buckets tile the line. */
static void hist_bounds_test(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < HVTRACE_HIST_BUCKETS; i++) {
		KUNIT_EXPECT_EQ(test, hvt_hist_index(hvt_hist_lower(i)), i);
		if (i + 1 < HVTRACE_HIST_BUCKETS) {
			KUNIT_EXPECT_EQ(test, hvt_hist_index(hvt_hist_upper(i)), i);
			KUNIT_EXPECT_EQ(test, hvt_hist_upper(i) + 1,
					hvt_hist_lower(i + 1));
		}
	}
	KUNIT_EXPECT_EQ(test, hvt_hist_index(0), 0U);
	KUNIT_EXPECT_EQ(test, hvt_hist_index(U64_MAX), HVTRACE_HIST_BUCKETS - 1);
	KUNIT_EXPECT_EQ(test, hvt_hist_index(1ULL << HVTRACE_HIST_MAX_SHIFT),
			HVTRACE_HIST_BUCKETS - 1);
}

/* From 100 ns to 10 s a bucket is at most 1/32 of its lower bound wide:
 * the midpoint is within 1.6% of any value in it.
 */
static void hist_error_test(struct kunit *test)
{
	unsigned int i;

	for (i = hvt_hist_index(100); i <= hvt_hist_index(10000000000ULL); i++) {
		u64 lo = hvt_hist_lower(i), hi = hvt_hist_upper(i);

		KUNIT_EXPECT_LE(test, (hi - lo + 1) * 32, lo);
	}
}

struct pct_case {
	unsigned int per_mille;
	u64 expect_value;	/* a value in the expected bucket */
};

static const struct pct_case pct_cases[] = {
	{ 500, 500 }, { 990, 990 }, { 999, 999 }, { 1000, 1000 }, { 1, 1 },
};

static void pct_desc(const struct pct_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "p%u", c->per_mille);
}

KUNIT_ARRAY_PARAM(pct, pct_cases, pct_desc);

/* 1..1000 once each: percentile P per mille lands in the bucket of P. */
static void hist_percentile_test(struct kunit *test)
{
	const struct pct_case *c = test->param_value;
	struct hvt_hist *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);
	u64 v;

	KUNIT_ASSERT_NOT_NULL(test, h);
	for (v = 1; v <= 1000; v++)
		h->bucket[hvt_hist_index(v)]++;
	KUNIT_EXPECT_EQ(test, hvt_hist_percentile(h, c->per_mille),
			(int)hvt_hist_index(c->expect_value));
}

static void hist_merge_test(struct kunit *test)
{
	struct hvt_hist *a = kunit_kzalloc(test, sizeof(*a), GFP_KERNEL);
	struct hvt_hist *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, hvt_hist_percentile(a, 500), -1);
	a->bucket[hvt_hist_index(1000)] = 3;
	b->bucket[hvt_hist_index(1000)] = 4;
	b->bucket[hvt_hist_index(5000000)] = 1;
	hvt_hist_merge(a, b);
	KUNIT_EXPECT_EQ(test, a->bucket[hvt_hist_index(1000)], 7ULL);
	KUNIT_EXPECT_EQ(test, hvt_hist_percentile(a, 875),
			(int)hvt_hist_index(1000));
	KUNIT_EXPECT_EQ(test, hvt_hist_percentile(a, 1000),
			(int)hvt_hist_index(5000000));
}

static struct kunit_case hist_cases[] = {
	KUNIT_CASE(hist_bounds_test),
	KUNIT_CASE(hist_error_test),
	KUNIT_CASE_PARAM(hist_percentile_test, pct_gen_params),
	KUNIT_CASE(hist_merge_test),
	{}
};

static struct kunit_suite hist_suite = {
	.name = "hvtrace_hist",
	.test_cases = hist_cases,
};

kunit_test_suite(hist_suite);
