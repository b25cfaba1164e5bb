// SPDX-License-Identifier: GPL-2.0
/* KUnit: per-CPU rings (kmod/ring.c): wrap, nesting, both modes. */
#include <kunit/test.h>

#include "ring.h"

#define SLOTS 8

static void no_wake(struct irq_work *w)
{
}

static struct hvt_ring *ring_new(struct kunit *test, u8 mode)
{
	struct hvt_ring *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	KUNIT_ASSERT_EQ(test, hvt_ring_init(r, 0, SLOTS, mode, no_wake), 0);
	return r;
}

static bool write_one(struct hvt_ring *r, u64 tag)
{
	struct hvtrace_event *ev;
	u64 seq;

	ev = hvt_ring_reserve(r, &seq);
	if (!ev)
		return false;
	ev->info1 = tag;
	hvt_ring_commit(r, ev, seq);
	return true;
}

static void ring_sizes_test(struct kunit *test)
{
	/* 160-byte records, a power of two of them within the size. */
	KUNIT_EXPECT_EQ(test, hvt_ring_slots_for_kb(4), 16UL);
	KUNIT_EXPECT_EQ(test, hvt_ring_slots_for_kb(HVTRACE_BUFFER_KB_DEFAULT),
			16384UL);
	KUNIT_EXPECT_EQ(test, hvt_ring_slots_for_kb(2048), 8192UL);
	KUNIT_EXPECT_EQ(test, hvt_ring_slots_for_kb(5), 32UL);	/* rounded down */
}

/* Discard: the ninth write fails; reading frees room; positions wrap. */
static void ring_discard_test(struct kunit *test)
{
	struct hvt_ring *r = ring_new(test, HVTRACE_MODE_DISCARD);
	struct hvtrace_event out[SLOTS];
	unsigned int i, n, round;

	for (round = 0; round < 5; round++) {
		for (i = 0; i < SLOTS; i++)
			KUNIT_EXPECT_TRUE(test, write_one(r, round * 100 + i));
		KUNIT_EXPECT_FALSE(test, write_one(r, 999));
		KUNIT_EXPECT_EQ(test, hvt_ring_pending(r), (unsigned long)SLOTS);
		n = hvt_ring_read(r, out, SLOTS);
		KUNIT_ASSERT_EQ(test, n, SLOTS);
		for (i = 0; i < SLOTS; i++) {
			KUNIT_EXPECT_EQ(test, out[i].info1, (u64)round * 100 + i);
			KUNIT_EXPECT_EQ(test, out[i].seq, (u64)round * SLOTS + i + 1);
		}
	}
	KUNIT_EXPECT_EQ(test, r->overwritten, 0ULL);
	KUNIT_EXPECT_EQ(test, r->drained, 5ULL * SLOTS);
	hvt_ring_free(r);
}

/*
 * A writer interrupted after reserving (an interrupt or NMI writes in
 * between): the reader waits at the uncommitted record, then gets both in
 * position order.
 */
static void ring_nesting_test(struct kunit *test)
{
	struct hvt_ring *r = ring_new(test, HVTRACE_MODE_DISCARD);
	struct hvtrace_event out[SLOTS], *outer;
	u64 seq;

	outer = hvt_ring_reserve(r, &seq);
	KUNIT_ASSERT_NOT_NULL(test, outer);
	outer->info1 = 1;
	KUNIT_EXPECT_TRUE(test, write_one(r, 2));	/* the nested writer */
	KUNIT_EXPECT_EQ(test, hvt_ring_read(r, out, SLOTS), 0U);
	hvt_ring_commit(r, outer, seq);
	KUNIT_ASSERT_EQ(test, hvt_ring_read(r, out, SLOTS), 2U);
	KUNIT_EXPECT_EQ(test, out[0].info1, 1ULL);
	KUNIT_EXPECT_EQ(test, out[1].info1, 2ULL);
	hvt_ring_free(r);
}

/* Overwrite: the newest SLOTS survive, the rest are counted. */
static void ring_overwrite_test(struct kunit *test)
{
	struct hvt_ring *r = ring_new(test, HVTRACE_MODE_OVERWRITE);
	struct hvtrace_event out[SLOTS];
	unsigned int i;

	for (i = 0; i < 3 * SLOTS + 3; i++)
		KUNIT_EXPECT_TRUE(test, write_one(r, i));
	KUNIT_ASSERT_EQ(test, hvt_ring_read(r, out, SLOTS), SLOTS);
	KUNIT_EXPECT_EQ(test, r->overwritten, 2ULL * SLOTS + 3);
	for (i = 0; i < SLOTS; i++)
		KUNIT_EXPECT_EQ(test, out[i].info1, (u64)(2 * SLOTS + 3 + i));
	KUNIT_EXPECT_EQ(test, hvt_ring_read(r, out, SLOTS), 0U);
	hvt_ring_free(r);
}

/* Overwrite: a record being rewritten under the reader is lost, counted. */
static void ring_torn_test(struct kunit *test)
{
	struct hvt_ring *r = ring_new(test, HVTRACE_MODE_OVERWRITE);
	struct hvtrace_event out[SLOTS], *ev;
	unsigned int i;
	u64 seq;

	for (i = 0; i < SLOTS; i++)
		KUNIT_EXPECT_TRUE(test, write_one(r, i));
	/* The writer laps slot 0 and is still writing it. */
	ev = hvt_ring_reserve(r, &seq);
	KUNIT_ASSERT_NOT_NULL(test, ev);
	KUNIT_EXPECT_EQ(test, hvt_ring_read(r, out, SLOTS), SLOTS - 1);
	KUNIT_EXPECT_EQ(test, r->overwritten, 1ULL);
	KUNIT_EXPECT_EQ(test, out[0].info1, 1ULL);
	hvt_ring_commit(r, ev, seq);
	KUNIT_EXPECT_EQ(test, hvt_ring_read(r, out, SLOTS), 1U);
	KUNIT_EXPECT_EQ(test, out[0].seq, (u64)SLOTS + 1);
	hvt_ring_free(r);
}

static void ring_discard_all_test(struct kunit *test)
{
	struct hvt_ring *r = ring_new(test, HVTRACE_MODE_DISCARD);
	struct hvtrace_event out[SLOTS];

	write_one(r, 1);
	write_one(r, 2);
	hvt_ring_discard_all(r);
	KUNIT_EXPECT_EQ(test, hvt_ring_pending(r), 0UL);
	KUNIT_EXPECT_EQ(test, hvt_ring_read(r, out, SLOTS), 0U);
	hvt_ring_free(r);
}

static struct kunit_case ring_cases[] = {
	KUNIT_CASE(ring_sizes_test),
	KUNIT_CASE(ring_discard_test),
	KUNIT_CASE(ring_nesting_test),
	KUNIT_CASE(ring_overwrite_test),
	KUNIT_CASE(ring_torn_test),
	KUNIT_CASE(ring_discard_all_test),
	{}
};

static struct kunit_suite ring_suite = {
	.name = "hvtrace_ring",
	.test_cases = ring_cases,
};

kunit_test_suite(ring_suite);
