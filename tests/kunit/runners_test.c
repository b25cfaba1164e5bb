// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: who ran on a CPU while a preempted vCPU thread waited there
 * (kmod/runners.c): the log of stretches, a waiter's window read back,
 * the gate that keeps a CPU with no waiter from logging.
 */
#include <kunit/test.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>

#include "runners.h"
#include "task.h"

static struct hvt_runners *rn_log(struct kunit *test)
{
	struct hvt_runners *r = kunit_kzalloc(test, sizeof(*r), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, r);
	seqcount_init(&r->seq);
	return r;
}

/*
 * The seed case: a kworker takes the CPU for 20 ns, a hog keeps it for
 * 300 us: the hog ran longest, the kworker is second.
 */
static void runners_longest_test(struct kunit *test)
{
	struct task_struct *kworker = hvt_test_task(test, 300, "kworker/0:1");
	struct task_struct *hog = hvt_test_task(test, 100, "hvhog");
	struct hvt_runners *r = rn_log(test);
	struct hvt_ran ran[HVT_RUNNERS];

	KUNIT_EXPECT_FALSE(test, hvt_runners_watched(r));
	hvt_runners_wait(r, 1000);
	KUNIT_EXPECT_TRUE(test, hvt_runners_watched(r));
	hvt_runners_switch(r, kworker, false, 1020);
	hvt_runners_switch(r, hog, false, 301020);
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 1000, 301020, ran), 2U);
	KUNIT_EXPECT_EQ(test, ran[0].pid, 100U);
	KUNIT_EXPECT_STREQ(test, ran[0].comm, "hvhog");
	KUNIT_EXPECT_EQ(test, ran[0].ns, 300000ULL);
	KUNIT_EXPECT_FALSE(test, ran[0].vcpu);
	KUNIT_EXPECT_EQ(test, ran[1].pid, 300U);
	KUNIT_EXPECT_EQ(test, ran[1].ns, 20ULL);
	hvt_runners_done(r);
	KUNIT_EXPECT_FALSE(test, hvt_runners_watched(r));
}

/*
 * Only the window counts: a stretch that began before it is cut at its
 * start; one after it, or idle, counts nothing.
 */
static void runners_window_test(struct kunit *test)
{
	struct task_struct *a = hvt_test_task(test, 10, "a");
	struct task_struct *b = hvt_test_task(test, 20, "CPU 1/KVM");
	struct task_struct *c = hvt_test_task(test, 30, "c");
	struct task_struct *d = hvt_test_task(test, 40, "d");
	struct task_struct *idle = hvt_test_task(test, 0, "swapper/0");
	struct hvt_runners *r = rn_log(test);
	struct hvt_ran ran[HVT_RUNNERS];

	hvt_runners_wait(r, 1000);
	hvt_runners_switch(r, a, false, 2000);	/* a: 1000..2000 */
	hvt_runners_switch(r, b, true, 2500);	/* b: 2000..2500 */
	hvt_runners_switch(r, idle, false, 2600);	/* not logged */
	hvt_runners_switch(r, c, false, 3000);	/* c: 2600..3000 */
	hvt_runners_switch(r, d, false, 4000);	/* d: 3000..4000 */
	/* The window 1500..3500: a 500, b 500, c 400, d 500. */
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 1500, 3500, ran), 4U);
	KUNIT_EXPECT_EQ(test, ran[0].ns, 500ULL);
	KUNIT_EXPECT_EQ(test, ran[1].ns, 500ULL);
	KUNIT_EXPECT_EQ(test, ran[2].ns, 500ULL);
	KUNIT_EXPECT_EQ(test, ran[3].pid, 30U);
	KUNIT_EXPECT_EQ(test, ran[3].ns, 400ULL);
	KUNIT_EXPECT_TRUE(test, ran[0].vcpu || ran[1].vcpu || ran[2].vcpu);
	/* After everything logged, or before it: nobody. */
	KUNIT_EXPECT_EQ(test, hvt_runners_in(r, 4000, 5000, ran), 0U);
	KUNIT_EXPECT_EQ(test, hvt_runners_in(r, 0, 1000, ran), 0U);
}

/*
 * A ping-pong of two tasks beside a waiter (an overcommitted vCPU): each
 * task's stretches add up in one entry, none lost however many; a third
 * task between them is an entry of its own. A stretch of a task before
 * the latest waiter came is not added to: the new waiter's window holds
 * only what ran after it came.
 */
static void runners_pingpong_test(struct kunit *test)
{
	struct task_struct *a = hvt_test_task(test, 10, "a");
	struct task_struct *b = hvt_test_task(test, 20, "b");
	struct task_struct *k = hvt_test_task(test, 30, "kworker/0:1");
	struct task_struct *v = hvt_test_task(test, 40, "CPU 0/KVM");
	struct hvt_runners *r = rn_log(test);
	struct hvt_ran ran[HVT_RUNNERS];
	u64 now = 0, sum[2] = { 0, 0 };
	unsigned int i;

	hvt_runners_wait(r, 0);
	for (i = 0; i < 10 * HVT_RUNNERS; i++) {
		now += 10 + i;
		sum[i & 1] += 10 + i;
		hvt_runners_switch(r, i & 1 ? b : a, false, now);
	}
	KUNIT_EXPECT_EQ(test, r->used, 2U);
	now += 7;
	hvt_runners_switch(r, k, false, now);
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 0, now, ran), 3U);
	KUNIT_EXPECT_EQ(test, ran[0].pid, 20U);
	KUNIT_EXPECT_EQ(test, ran[0].ns, sum[1]);
	KUNIT_EXPECT_EQ(test, ran[1].pid, 10U);
	KUNIT_EXPECT_EQ(test, ran[1].ns, sum[0]);
	KUNIT_EXPECT_EQ(test, ran[2].ns, 7ULL);

	/* A second waiter: a's old entry stays the first waiter's. */
	now += 100;
	hvt_runners_switch(r, v, true, now);
	hvt_runners_wait(r, now);
	hvt_runners_switch(r, a, false, now + 50);
	hvt_runners_switch(r, b, false, now + 80);
	hvt_runners_switch(r, a, false, now + 100);
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, now, now + 100, ran), 2U);
	KUNIT_EXPECT_EQ(test, ran[0].pid, 10U);
	KUNIT_EXPECT_EQ(test, ran[0].ns, 70ULL);
	KUNIT_EXPECT_EQ(test, ran[1].ns, 30ULL);
	/* The first waiter's window holds all of it. */
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 0, now + 100, ran), 4U);
	KUNIT_EXPECT_EQ(test, ran[0].ns + ran[1].ns + ran[2].ns + ran[3].ns,
			sum[0] + sum[1] + 7 + 100 + 100);
}

/*
 * More stretches than the log holds: each replaces the shortest if it is
 * longer. Task i runs (i + 1) * 100 ns, so the first two fall out.
 */
static void runners_overflow_test(struct kunit *test)
{
	struct task_struct *t[HVT_RUNNERS + 2];
	struct hvt_runners *r = rn_log(test);
	struct hvt_ran ran[HVT_RUNNERS];
	unsigned int i;
	u64 sum = 0;

	hvt_runners_wait(r, 0);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		t[i] = hvt_test_task(test, 1000 + i, "t");
		hvt_runners_switch(r, t[i], false, (i + 1) * (i + 2) * 50);
	}
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 0, U64_MAX, ran),
			(unsigned int)HVT_RUNNERS);
	KUNIT_EXPECT_EQ(test, ran[0].pid, 1000U + HVT_RUNNERS + 1);
	KUNIT_EXPECT_EQ(test, ran[0].ns, (HVT_RUNNERS + 2) * 100ULL);
	for (i = 0; i < HVT_RUNNERS; i++) {
		KUNIT_EXPECT_GE(test, ran[i].pid, 1002U);
		sum += ran[i].ns;
	}
	KUNIT_EXPECT_EQ(test, sum, (3ULL + HVT_RUNNERS + 2) * HVT_RUNNERS / 2 * 100);
}

/*
 * The seed incident's shape: the hog's long stretch comes first, then more
 * short stretches of other tasks than the log holds: the hog stays, the
 * shortest are dropped. A new first waiter starts from an empty log.
 */
static void runners_long_stays_test(struct kunit *test)
{
	struct task_struct *hog = hvt_test_task(test, 100, "hvhog");
	struct task_struct *t[2 * HVT_RUNNERS];
	struct hvt_runners *r = rn_log(test);
	struct hvt_ran ran[HVT_RUNNERS];
	u64 now = 1000000, sum = 0;
	unsigned int i;

	hvt_runners_wait(r, 0);
	hvt_runners_switch(r, hog, false, now);
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		t[i] = hvt_test_task(test, 1000 + i, "t");
		now += 10 + i;
		hvt_runners_switch(r, t[i], false, now);
	}
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 0, now, ran),
			(unsigned int)HVT_RUNNERS);
	KUNIT_EXPECT_EQ(test, ran[0].pid, 100U);
	KUNIT_EXPECT_EQ(test, ran[0].ns, 1000000ULL);
	/* The latest (longest) fifteen of the 32 short stretches. */
	for (i = 1; i < HVT_RUNNERS; i++)
		sum += ran[i].ns;
	KUNIT_EXPECT_EQ(test, sum,
			(u64)(10 + 17 + 10 + 31) * (HVT_RUNNERS - 1) / 2);
	hvt_runners_done(r);

	hvt_runners_wait(r, now);
	KUNIT_EXPECT_EQ(test, hvt_runners_in(r, 0, U64_MAX, ran), 0U);
	hvt_runners_switch(r, t[0], false, now + 5);
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 0, U64_MAX, ran), 1U);
	KUNIT_EXPECT_EQ(test, ran[0].ns, 5ULL);
}

/*
 * The gate: two waiters, each counted once; done never goes below
 * nothing; a waiter never seen back is forgotten after
 * HVT_RUNNERS_FORGET_NS without a new one, the stretch that ends then
 * still logged (it may end a real wait that long).
 */
static void runners_gate_test(struct kunit *test)
{
	struct task_struct *a = hvt_test_task(test, 10, "a");
	struct hvt_runners *r = rn_log(test);
	struct hvt_ran ran[HVT_RUNNERS];

	hvt_runners_wait(r, 100);
	hvt_runners_wait(r, 200);
	hvt_runners_done(r);
	KUNIT_EXPECT_TRUE(test, hvt_runners_watched(r));
	hvt_runners_done(r);
	hvt_runners_done(r);
	KUNIT_EXPECT_EQ(test, atomic_read(&r->waiting), 0);

	hvt_runners_wait(r, 1000);
	hvt_runners_switch(r, a, false, 1000 + HVT_RUNNERS_FORGET_NS);
	KUNIT_EXPECT_TRUE(test, hvt_runners_watched(r));
	hvt_runners_switch(r, a, false, 1001 + HVT_RUNNERS_FORGET_NS);
	KUNIT_EXPECT_FALSE(test, hvt_runners_watched(r));
	KUNIT_ASSERT_EQ(test, hvt_runners_in(r, 0, U64_MAX, ran), 1U);
	KUNIT_EXPECT_EQ(test, ran[0].ns, HVT_RUNNERS_FORGET_NS + 1);
}

/*
 * Two vCPU threads taking turns on one CPU: it always has a waiter, so
 * the log never starts afresh; stretches of waits already over make
 * room, and each wait still finds who ran in it, however long the
 * turns went on.
 */
static void runners_turns_test(struct kunit *test)
{
	struct task_struct *v[2] = { hvt_test_task(test, 10, "CPU 0/KVM"),
				     hvt_test_task(test, 20, "CPU 1/KVM") };
	struct hvt_runners *r = rn_log(test);
	struct hvt_ran ran[HVT_RUNNERS];
	u64 now = 1000, from[2] = { 0, 0 };
	unsigned int i, me;

	/* Thread 0 runs first; thread 1 waits from 0. */
	hvt_runners_wait(r, 0);
	for (i = 0; i < 100; i++) {
		me = i & 1;	/* runs until now, then waits */
		/* Long turns, then short ones: the old long ones must go. */
		now += i < 20 ? 5000 : 100 + i;
		hvt_runners_switch(r, v[me], true, now);
		hvt_runners_wait(r, now);
		from[me] = now;
		/* The other thread comes back: its wait held my turn. */
		KUNIT_ASSERT_EQ(test, hvt_runners_in(r, from[!me], now, ran), 1U);
		KUNIT_EXPECT_EQ(test, ran[0].pid, v[me]->pid);
		KUNIT_EXPECT_EQ(test, ran[0].ns, now - from[!me]);
		hvt_runners_done(r);
		KUNIT_EXPECT_TRUE(test, hvt_runners_watched(r));
	}
}

static struct kunit_case runners_cases[] = {
	KUNIT_CASE(runners_longest_test),
	KUNIT_CASE(runners_window_test),
	KUNIT_CASE(runners_pingpong_test),
	KUNIT_CASE(runners_overflow_test),
	KUNIT_CASE(runners_long_stays_test),
	KUNIT_CASE(runners_gate_test),
	KUNIT_CASE(runners_turns_test),
	{}
};

static struct kunit_suite runners_suite = {
	.name = "hvtrace_runners",
	.test_cases = runners_cases,
};

kunit_test_suite(runners_suite);
