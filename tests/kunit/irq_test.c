// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: a vCPU's interrupt delivery counts (kmod/irq.c): a row per
 * vector for the first ones, the rest in one row, the baseline at a
 * clear, and the rows as GET_STATS sends them.
 */
#include <kunit/test.h>

#include "irq.h"
#include "task.h"
#include "vcpu_time.h"

/* A vCPU with no exit in flight: a wait is all handling. */
static const struct hvt_split no_exit;

/* A vCPU's rows, zeroed (856 bytes: not on the stack). */
static struct hvt_vcpu_irqs *irq_new(struct kunit *test)
{
	struct hvt_vcpu_irqs *irqs = kunit_kzalloc(test, sizeof(*irqs),
						   GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, irqs);
	return irqs;
}

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
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	unsigned int i, n;

	irq_fill(irqs, HVTRACE_VCPU_IRQ_VECTORS);
	n = hvt_irqs_rows(irqs, out);
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
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	unsigned int n;

	irq_fill(irqs, HVTRACE_VCPU_IRQ_VECTORS + 2);
	/* A known vector still goes to its own row. */
	hvt_irq_count(irqs, 32, 50000, HVTRACE_VCPU_IRQ_IPI);
	n = hvt_irqs_rows(irqs, out);
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
	struct hvt_vcpu_irqs *stat = irq_new(test), *base = irq_new(test);
	struct hvt_vcpu_irqs *out = irq_new(test);
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];

	irq_fill(stat, 2);
	stat->unmatched = 5;
	stat->reinjected = 1;
	atomic64_set(&stat->posted, 3);
	*base = *stat;
	hvt_irqs_restart(stat);
	hvt_irq_count(stat, 33, 700, HVTRACE_VCPU_IRQ_LOCAL);
	stat->unmatched++;
	atomic64_inc(&stat->posted);
	hvt_irqs_since_clear(out, stat, base);
	/* Vector 32 had nothing since: no row. */
	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(out, rows), 1U);
	KUNIT_EXPECT_EQ(test, rows[0].vector, 33);
	KUNIT_EXPECT_EQ(test, rows[0].count, 1ULL);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 700ULL);
	KUNIT_EXPECT_EQ(test, rows[0].max_ns, 700ULL);
	KUNIT_EXPECT_EQ(test, rows[0].flags, HVTRACE_VCPU_IRQ_LOCAL);
	KUNIT_EXPECT_EQ(test, out->unmatched, 1ULL);
	KUNIT_EXPECT_EQ(test, out->reinjected, 0ULL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&out->posted), 1LL);
}

/* A vCPU's histogram, zeroed (3.2 KB: not on the stack). */
static struct hvt_irq_hist *irq_hist(struct kunit *test)
{
	struct hvt_irq_hist *h = kunit_kzalloc(test, sizeof(*h), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, h);
	return h;
}

/* A vCPU's raise stamps, zeroed (2 KiB: not on the stack). */
static u64 *irq_raised(struct kunit *test)
{
	u64 *raised = kunit_kcalloc(test, 256, sizeof(*raised), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, raised);
	return raised;
}

/* Raised at 1000 (by another vCPU), injected at 5000: 4000 ns, IPI. */
static void irq_inject_test(struct kunit *test)
{
	struct hvt_irq_inflight f = {};
	struct hvt_irq_hist *h = irq_hist(test);
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];
	u64 *raised = irq_raised(test);

	KUNIT_EXPECT_TRUE(test, hvt_irq_raise(raised, 0xec,
					      hvt_irq_stamp(1000, HVTRACE_VCPU_IRQ_IPI)));
	/* Raised again while pending: merged, the first raise stays. */
	KUNIT_EXPECT_FALSE(test, hvt_irq_raise(raised, 0xec,
					       hvt_irq_stamp(3000, HVTRACE_VCPU_IRQ_LOCAL)));
	hvt_irq_inject(irqs, h, &f, raised, 0xec, false, 5000, &no_exit);
	KUNIT_EXPECT_EQ(test, raised[0xec], 0ULL);
	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(irqs, rows), 1U);
	KUNIT_EXPECT_EQ(test, rows[0].vector, 0xec);
	KUNIT_EXPECT_EQ(test, rows[0].count, 1ULL);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 4000ULL);
	KUNIT_EXPECT_EQ(test, rows[0].flags, HVTRACE_VCPU_IRQ_IPI);
	KUNIT_EXPECT_EQ(test, irqs->unmatched, 0ULL);
}

/*
 * Where the waits went, into their row: a timer's expiry at 5000 while
 * the vCPU was halted (exit at 1000, blocked at 1100), a hog on its CPU
 * until 9000, injected at 9200: 4000 runnable, 200 handling, the hog
 * named. Then an IPI raised at 20000 while the vCPU ran in the guest,
 * the exit at 20300, injected at 20400: guest 300, handling 100. The
 * split goes out in the rows' order; a clear starts the longest wait's
 * preemptor again.
 */
static void irq_split_test(struct kunit *test)
{
	struct hvt_split *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct task_struct *thread = hvt_test_task(test, 50, "CPU 0/KVM");
	struct task_struct *hog = hvt_test_task(test, 100, "hvhog");
	struct task_struct *idle = hvt_test_task(test, 0, "swapper/1");
	struct task_struct *kworker = hvt_test_task(test, 300, "kworker/1:0");
	struct hvtrace_vcpu_irq_split split[HVT_IRQ_ROWS];
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];
	struct hvt_vcpu_irqs *irqs = irq_new(test), *base = irq_new(test);
	struct hvt_vcpu_irqs *out = irq_new(test);
	struct hvt_irq_inflight f = {};
	struct hvt_irq_hist *h = irq_hist(test);
	struct hvt_switched_in w = {};
	u64 *raised = irq_raised(test);

	KUNIT_ASSERT_NOT_NULL(test, s);
	thread->__state = TASK_INTERRUPTIBLE;
	hvt_time_init(s);
	hvt_split_own(s, thread);
	hvt_time_test_now = 1000;
	hvt_time_exit(s);
	hvt_time_switch_out(s, thread, false, idle, false, 1100, 1);
	hvt_time_test_now = 5000;
	hvt_time_wakeup(s, thread);
	hvt_irq_raise_new(raised, 0xef,
			  hvt_irq_stamp(5000, HVTRACE_VCPU_IRQ_TIMER));
	KUNIT_ASSERT_TRUE(test, hvt_time_switch_in(s, thread, hog, false,
						   9000, &w));
	hvt_split_leave(s);
	hvt_time_test_now = 9100;
	hvt_time_halted(s, 8100, true);
	KUNIT_EXPECT_TRUE(test, hvt_irq_inject(irqs, h, &f, raised, 0xef,
					       false, 9200, s));
	/* The delivery's own split, for a late interrupt record. */
	KUNIT_EXPECT_EQ(test, f.ns, 4200ULL);
	KUNIT_EXPECT_EQ(test, f.win.part[HVTRACE_PART_RUNNABLE], 4000ULL);
	KUNIT_EXPECT_EQ(test, f.win.pre_ns, 4000ULL);
	KUNIT_EXPECT_EQ(test, f.win.pre_pid, 100U);
	/*
	 * The entry is cancelled: a kworker preempts the thread from 9300
	 * to 9800, and KVM injects it again at 9900. The same delivery: its
	 * time and its split run on; its longest wait is still the hog's.
	 */
	hvt_time_switch_out(s, thread, true, kworker, false, 9300, 1);
	KUNIT_ASSERT_TRUE(test, hvt_time_switch_in(s, thread, kworker, false,
						   9800, &w));
	hvt_split_leave(s);
	KUNIT_EXPECT_TRUE(test, hvt_irq_inject(irqs, h, &f, raised, 0xef,
					       true, 9900, s));
	/* Its split grew by the extension's; the hog's wait is the longest. */
	KUNIT_EXPECT_EQ(test, f.ns, 4900ULL);
	KUNIT_EXPECT_EQ(test, f.win.guest_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, f.win.part[HVTRACE_PART_RUNNABLE], 4500ULL);
	KUNIT_EXPECT_EQ(test, f.win.pre_ns, 4000ULL);
	KUNIT_EXPECT_EQ(test, f.win.pre_pid, 100U);
	KUNIT_EXPECT_STREQ(test, f.win.pre_comm, "hvhog");
	/* Injected again at once: it did not grow, nothing to decide. */
	KUNIT_EXPECT_FALSE(test, hvt_irq_inject(irqs, h, &f, raised, 0xef,
						true, 9900, s));
	hvt_time_close(s, 9950 - 1000);
	hvt_time_reset(s);

	hvt_time_test_now = 20300;
	hvt_time_exit(s);
	hvt_irq_raise_new(raised, 0xfb,
			  hvt_irq_stamp(20000, HVTRACE_VCPU_IRQ_IPI));
	f.recorded = true;
	f.late = true;
	hvt_irq_inject(irqs, h, &f, raised, 0xfb, false, 20400, s);
	/* A new delivery's split starts afresh, not recorded, not late. */
	KUNIT_EXPECT_FALSE(test, f.late);
	KUNIT_EXPECT_EQ(test, f.win.guest_ns, 300ULL);
	KUNIT_EXPECT_EQ(test, f.win.part[HVTRACE_PART_RUNNABLE], 0ULL);
	KUNIT_EXPECT_EQ(test, f.win.pre_pid, 0U);
	KUNIT_EXPECT_FALSE(test, f.recorded);

	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(irqs, rows), 2U);
	hvt_irqs_split(irqs, split);
	KUNIT_EXPECT_EQ(test, rows[0].vector, 0xef);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 4900ULL);
	KUNIT_EXPECT_EQ(test, irqs->reinjected, 2ULL);	/* 9900 twice */
	KUNIT_EXPECT_EQ(test, split[0].guest_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, split[0].part_ns[HVTRACE_PART_RUNNABLE], 4500ULL);
	KUNIT_EXPECT_EQ(test, split[0].part_ns[HVTRACE_PART_HALT], 0ULL);
	KUNIT_EXPECT_EQ(test, split[0].pre_ns, 4000ULL);
	KUNIT_EXPECT_EQ(test, split[0].pre_pid, 100U);
	KUNIT_EXPECT_STREQ(test, split[0].pre_comm, "hvhog");
	KUNIT_EXPECT_EQ(test, rows[1].vector, 0xfb);
	KUNIT_EXPECT_EQ(test, rows[1].total_ns, 400ULL);
	KUNIT_EXPECT_EQ(test, split[1].guest_ns, 300ULL);
	KUNIT_EXPECT_EQ(test, split[1].part_ns[HVTRACE_PART_RUNNABLE], 0ULL);
	KUNIT_EXPECT_EQ(test, split[1].pre_pid, 0U);

	/*
	 * A clear, then a timer raised at 30050 in an exit from 30000, the
	 * thread preempted by the kworker from 30100 to 36100, injected at
	 * 36200: the sums since the clear, the kworker the longest wait's.
	 */
	*base = *irqs;
	hvt_irqs_restart(irqs);
	KUNIT_EXPECT_EQ(test, irqs->row[0].pre_pid, 0U);
	KUNIT_EXPECT_EQ(test, irqs->row[0].pre_ns, 0ULL);
	hvt_time_test_now = 30000;
	hvt_time_exit(s);
	hvt_irq_raise_new(raised, 0xef,
			  hvt_irq_stamp(30050, HVTRACE_VCPU_IRQ_TIMER));
	hvt_time_switch_out(s, thread, true, kworker, false, 30100, 1);
	KUNIT_ASSERT_TRUE(test, hvt_time_switch_in(s, thread, kworker, false,
						   36100, &w));
	hvt_split_leave(s);
	hvt_irq_inject(irqs, h, &f, raised, 0xef, false, 36200, s);
	hvt_irqs_since_clear(out, irqs, base);
	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(out, rows), 1U);
	hvt_irqs_split(out, split);
	KUNIT_EXPECT_EQ(test, rows[0].vector, 0xef);
	KUNIT_EXPECT_EQ(test, rows[0].count, 1ULL);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 6150ULL);
	KUNIT_EXPECT_EQ(test, split[0].guest_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, split[0].part_ns[HVTRACE_PART_RUNNABLE], 6000ULL);
	KUNIT_EXPECT_EQ(test, split[0].pre_ns, 6000ULL);
	KUNIT_EXPECT_EQ(test, split[0].pre_pid, 300U);
	KUNIT_EXPECT_STREQ(test, split[0].pre_comm, "kworker/1:0");
}

/*
 * A LAPIC timer's expiry (hvt_irq_expiry_take()): taken once by its
 * vector's raise after the vCPU's last entry; left by another vector's
 * raise (a self-IPI while it is pending); taken and not used when older
 * than the last entry (KVM dropped it: the timer rewritten, LVTT masked,
 * the APIC reset), so it never times a later raise.
 */
static void irq_expiry_test(struct kunit *test)
{
	u64 expiry = hvt_irq_stamp(5000, HVTRACE_VCPU_IRQ_TIMER);
	u8 vec = 0xef;

	KUNIT_EXPECT_EQ(test, hvt_irq_expiry_take(&expiry, &vec, 0xec, 4000),
			0ULL);
	KUNIT_EXPECT_NE(test, expiry, 0ULL);
	KUNIT_EXPECT_EQ(test, hvt_irq_expiry_take(&expiry, &vec, 0xef, 4000),
			hvt_irq_stamp(5000, HVTRACE_VCPU_IRQ_TIMER));
	KUNIT_EXPECT_EQ(test, expiry, 0ULL);
	KUNIT_EXPECT_EQ(test, hvt_irq_expiry_take(&expiry, &vec, 0xef, 4000),
			0ULL);

	/* Dropped by KVM: the vCPU entered at 6000 without raising it. */
	expiry = hvt_irq_stamp(5000, HVTRACE_VCPU_IRQ_TIMER);
	KUNIT_EXPECT_EQ(test, hvt_irq_expiry_take(&expiry, &vec, 0xef, 6000),
			0ULL);
	KUNIT_EXPECT_EQ(test, expiry, 0ULL);

	/* LVTT's vector changed since the expiry: another vector's raise. */
	expiry = hvt_irq_stamp(7000, HVTRACE_VCPU_IRQ_TIMER);
	vec = 0xee;
	KUNIT_EXPECT_EQ(test, hvt_irq_expiry_take(&expiry, &vec, 0xef, 6000),
			0ULL);
}

/*
 * Every raiser seen (the kprobe on __apic_accept_irq): a raise with its
 * IRR bit clear starts a new pending interval, even over a stamp left by
 * a raise KVM dropped (APIC disabled); a device's raise is DEVICE.
 */
static void irq_raise_new_test(struct kunit *test)
{
	u64 stamp;
	struct hvt_irq_inflight f = {};
	struct hvt_irq_hist *h = irq_hist(test);
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];
	u64 *raised = irq_raised(test);

	/* Left over: KVM dropped it, no injection ever took it. */
	raised[0x51] = hvt_irq_stamp(1000, HVTRACE_VCPU_IRQ_LOCAL);
	hvt_irq_raise_new(raised, 0x51,
			  hvt_irq_stamp(7000, HVTRACE_VCPU_IRQ_DEVICE));
	KUNIT_EXPECT_EQ(test, hvt_irq_stamp_ts(raised[0x51]), 7000ULL);
	hvt_irq_inject(irqs, h, &f, raised, 0x51, false, 7500, &no_exit);
	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(irqs, rows), 1U);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 500ULL);
	KUNIT_EXPECT_EQ(test, rows[0].flags, HVTRACE_VCPU_IRQ_DEVICE);
	/* A LAPIC timer's expiry keeps its source, TIMER, to the injection. */
	raised[0xef] = hvt_irq_stamp(8000, HVTRACE_VCPU_IRQ_TIMER);
	hvt_irq_inject(irqs, h, &f, raised, 0xef, false, 9000, &no_exit);
	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(irqs, rows), 2U);
	KUNIT_EXPECT_EQ(test, rows[1].vector, 0xef);
	KUNIT_EXPECT_EQ(test, rows[1].total_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, rows[1].flags, HVTRACE_VCPU_IRQ_TIMER);
	/* A stamp is never 0, even at time 0. */
	KUNIT_EXPECT_NE(test, hvt_irq_stamp(0, HVTRACE_VCPU_IRQ_LOCAL), 0ULL);
	stamp = hvt_irq_stamp(U64_MAX >> HVT_IRQ_STAMP_SHIFT,
			      HVTRACE_VCPU_IRQ_DEVICE);
	KUNIT_EXPECT_EQ(test, hvt_irq_stamp_source(stamp),
			HVTRACE_VCPU_IRQ_DEVICE);
}

/*
 * The entry was cancelled (or an exit cut the delivery) and KVM injects
 * it again: one delivery, its time to the last injection; a reinjection
 * of another vector, or after the next delivery, changes nothing.
 */
static void irq_reinject_test(struct kunit *test)
{
	struct hvt_irq_inflight f = {};
	struct hvt_irq_hist *h = irq_hist(test);
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];
	u64 *raised = irq_raised(test);

	hvt_irq_raise(raised, 0x30, hvt_irq_stamp(1000, HVTRACE_VCPU_IRQ_LOCAL));
	hvt_irq_inject(irqs, h, &f, raised, 0x30, false, 2000, &no_exit);
	hvt_irq_inject(irqs, h, &f, raised, 0x30, true, 9000, &no_exit);
	hvt_irq_inject(irqs, h, &f, raised, 0x31, true, 12000, &no_exit);
	KUNIT_ASSERT_EQ(test, hvt_irqs_rows(irqs, rows), 1U);
	KUNIT_EXPECT_EQ(test, rows[0].count, 1ULL);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 8000ULL);
	KUNIT_EXPECT_EQ(test, rows[0].max_ns, 8000ULL);
	KUNIT_EXPECT_EQ(test, irqs->reinjected, 2ULL);
	/* An injection of no raise: unmatched, and it ends the delivery. */
	hvt_irq_inject(irqs, h, &f, raised, 0x30, false, 20000, &no_exit);
	hvt_irq_inject(irqs, h, &f, raised, 0x30, true, 30000, &no_exit);
	KUNIT_EXPECT_EQ(test, irqs->unmatched, 1ULL);
	hvt_irqs_rows(irqs, rows);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 8000ULL);

	/*
	 * A delivery injected at the vCPU's 5th exit: reinjected in the
	 * same exit (the entry cancelled), then the next (an exit cut it),
	 * it runs on; two entries after its last injection it was long
	 * delivered (a posted one is what KVM reinjects then): forgotten,
	 * not extended.
	 */
	hvt_irq_raise(raised, 0x30, hvt_irq_stamp(40000, HVTRACE_VCPU_IRQ_LOCAL));
	KUNIT_EXPECT_TRUE(test, hvt_irq_inject(irqs, h, &f, raised, 0x30,
					       false, 41000, &no_exit));
	f.exits = 5;
	hvt_irq_reinjection_check(&f, 5);
	KUNIT_EXPECT_TRUE(test, hvt_irq_inject(irqs, h, &f, raised, 0x30,
					       true, 42000, &no_exit));
	hvt_irq_reinjection_check(&f, 6);
	KUNIT_EXPECT_TRUE(test, hvt_irq_inject(irqs, h, &f, raised, 0x30,
					       true, 43000, &no_exit));
	KUNIT_EXPECT_EQ(test, f.ns, 3000ULL);
	f.exits = 6;	/* as the probe notes each timed injection's */
	hvt_irq_reinjection_check(&f, 8);
	KUNIT_EXPECT_EQ(test, f.stamp, 0ULL);
	KUNIT_EXPECT_FALSE(test, hvt_irq_inject(irqs, h, &f, raised, 0x30,
						true, 9000000, &no_exit));
	hvt_irqs_rows(irqs, rows);
	KUNIT_EXPECT_EQ(test, rows[0].count, 2ULL);
	KUNIT_EXPECT_EQ(test, rows[0].max_ns, 8000ULL);
	KUNIT_EXPECT_EQ(test, rows[0].total_ns, 11000ULL);
}

/* A raise older than HVT_IRQ_STALE_NS, or none, or a vector < 16. */
static void irq_unmatched_test(struct kunit *test)
{
	struct hvt_irq_inflight f = {};
	struct hvt_irq_hist *h = irq_hist(test);
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	struct hvtrace_vcpu_irq rows[HVT_IRQ_ROWS];
	u64 *raised = irq_raised(test);

	hvt_irq_raise(raised, 0x40, hvt_irq_stamp(1000, HVTRACE_VCPU_IRQ_LOCAL));
	hvt_irq_inject(irqs, h, &f, raised, 0x40, false,
		       1000 + HVT_IRQ_STALE_NS, &no_exit);
	KUNIT_EXPECT_EQ(test, raised[0x40], 0ULL);
	hvt_irq_inject(irqs, h, &f, raised, 0x41, false, 5000, &no_exit);
	raised[8] = hvt_irq_stamp(1000, HVTRACE_VCPU_IRQ_LOCAL);
	hvt_irq_inject(irqs, h, &f, raised, 8, false, 5000, &no_exit);
	KUNIT_EXPECT_EQ(test, irqs->unmatched, 3ULL);
	KUNIT_EXPECT_EQ(test, hvt_irqs_rows(irqs, rows), 0U);
}

/* The buckets' edges: 256 ns wide below 1024 ns, then 4 an octave. */
static void irq_hist_index_test(struct kunit *test)
{
	static const struct { u64 ns; unsigned int i; } edge[] = {
		{ 0, 0 }, { 255, 0 }, { 256, 1 }, { 1023, 3 },
		{ 1024, 4 }, { 1279, 4 }, { 1280, 5 }, { 2047, 7 },
		{ 2048, 8 }, { 2559, 8 }, { 2560, 9 }, { 4095, 11 },
		{ 4096, 12 }, { 100000, 30 }, { 50000000, 65 },
		{ (1ULL << 34) - 1, 99 }, { 1ULL << 34, 99 }, { U64_MAX, 99 },
	};
	unsigned int i, last = 0;
	u64 ns;

	for (i = 0; i < ARRAY_SIZE(edge); i++)
		KUNIT_EXPECT_EQ_MSG(test, hvt_irq_hist_index(edge[i].ns),
				    edge[i].i, "ns %llu", edge[i].ns);
	/* Never down, never a bucket skipped, every one reached. */
	for (ns = 0; ns < (1ULL << 35); ns += ns / 16 + 1) {
		unsigned int b = hvt_irq_hist_index(ns);

		KUNIT_ASSERT_GE(test, b, last);
		KUNIT_ASSERT_LE(test, b, last + 1);
		last = b;
	}
	KUNIT_EXPECT_EQ(test, last, HVT_IRQ_HIST_BUCKETS - 1U);
}

/* Deliveries of ROW at NS, COUNT of them, raised by the vCPU itself. */
static void irq_deliver(struct hvt_vcpu_irqs *irqs, struct hvt_irq_hist *h,
			u64 *raised, u8 vec, u64 ns, unsigned int count)
{
	struct hvt_irq_inflight f = {};

	while (count--) {
		hvt_irq_raise(raised, vec,
			      hvt_irq_stamp(1000, HVTRACE_VCPU_IRQ_LOCAL));
		hvt_irq_inject(irqs, h, &f, raised, vec, false, 1000 + ns,
			       &no_exit);
	}
}

/*
 * Percentiles: each the middle of the bucket of its rank
 * (ceil(N * p)), at most the row's max; rows in hvt_irqs_rows()'s order.
 */
static void irq_pct_test(struct kunit *test)
{
	struct hvtrace_vcpu_irq_pct pct[HVT_IRQ_ROWS];
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	struct hvt_irq_hist *h = irq_hist(test);
	u64 *raised = irq_raised(test);

	/* 1000 deliveries: 988 at 1.5 us, 10 at 100 us, 2 at 50 ms. */
	irq_deliver(irqs, h, raised, 0xef, 1500, 988);
	irq_deliver(irqs, h, raised, 0xef, 100000, 10);
	irq_deliver(irqs, h, raised, 0xef, 50000000, 2);
	/* One at 1300 ns: its bucket's middle, 1407, is past its max. */
	irq_deliver(irqs, h, raised, 0x30, 1300, 1);
	memset(pct, 0xff, sizeof(pct));
	hvt_irqs_pct(irqs, h, pct);
	/* [1280, 1535], [98304, 114687], [41943040, 50331647] */
	KUNIT_EXPECT_EQ(test, pct[0].p50_ns, 1407ULL);
	KUNIT_EXPECT_EQ(test, pct[0].p99_ns, 106495ULL);
	KUNIT_EXPECT_EQ(test, pct[0].p999_ns, 46137343ULL);
	KUNIT_EXPECT_EQ(test, pct[1].p50_ns, 1300ULL);
	KUNIT_EXPECT_EQ(test, pct[1].p99_ns, 1300ULL);
	KUNIT_EXPECT_EQ(test, pct[1].p999_ns, 1300ULL);
	/* Nothing written past the rows. */
	KUNIT_EXPECT_EQ(test, pct[2].p50_ns, U64_MAX);
	/* A full bucket halves the row's: the shape stays. */
	h->n[0][5] = U32_MAX;
	irq_deliver(irqs, h, raised, 0xef, 1500, 1);
	KUNIT_EXPECT_EQ(test, h->n[0][5], U32_MAX / 2 + 1);
	KUNIT_EXPECT_EQ(test, h->n[0][30], 5U);
	KUNIT_EXPECT_EQ(test, h->n[0][65], 1U);
	hvt_irqs_pct(irqs, h, pct);
	KUNIT_EXPECT_EQ(test, pct[0].p50_ns, 1407ULL);
	KUNIT_EXPECT_EQ(test, pct[0].p999_ns, 1407ULL);
	/* None counted though the row has some (a copy racing a clear). */
	memset(h->n[0], 0, sizeof(h->n[0]));
	hvt_irqs_pct(irqs, h, pct);
	KUNIT_EXPECT_EQ(test, pct[0].p50_ns, 50000000ULL);
	KUNIT_EXPECT_EQ(test, pct[0].p999_ns, 50000000ULL);
}

/*
 * A reinjection moves its delivery to its longer time's bucket, unless
 * the histogram restarted (a clear) since it was counted.
 */
static void irq_hist_reinject_test(struct kunit *test)
{
	struct hvtrace_vcpu_irq_pct pct[HVT_IRQ_ROWS];
	struct hvt_irq_inflight f = {};
	struct hvt_vcpu_irqs *irqs = irq_new(test);
	struct hvt_irq_hist *h = irq_hist(test);
	u64 *raised = irq_raised(test);

	hvt_irq_raise(raised, 0x30, hvt_irq_stamp(1000, HVTRACE_VCPU_IRQ_LOCAL));
	hvt_irq_inject(irqs, h, &f, raised, 0x30, false, 2000, &no_exit);
	KUNIT_EXPECT_EQ(test, h->n[0][3], 1U);
	hvt_irq_inject(irqs, h, &f, raised, 0x30, true, 9000, &no_exit);
	KUNIT_EXPECT_EQ(test, h->n[0][3], 0U);
	KUNIT_EXPECT_EQ(test, h->n[0][15], 1U);
	hvt_irqs_pct(irqs, h, pct);
	/* [7168, 8191]: 7679, at most the max, 8000. */
	KUNIT_EXPECT_EQ(test, pct[0].p50_ns, 7679ULL);
	/* A halving emptied its bucket: nothing taken from it. */
	h->n[0][15] = 0;
	hvt_irq_inject(irqs, h, &f, raised, 0x30, true, 10000, &no_exit);
	KUNIT_EXPECT_EQ(test, h->n[0][15], 0U);
	KUNIT_EXPECT_EQ(test, h->n[0][hvt_irq_hist_index(9000)], 1U);
	/* A clear restarts the histogram: the delivery is not in it. */
	memset(h, 0, sizeof(*h));
	f.in_hist = false;
	hvt_irq_inject(irqs, h, &f, raised, 0x30, true, 12000, &no_exit);
	KUNIT_EXPECT_EQ(test, h->n[0][15], 0U);
	KUNIT_EXPECT_EQ(test, h->n[0][hvt_irq_hist_index(11000)], 0U);
}

static struct kunit_case irq_cases[] = {
	KUNIT_CASE(irq_rows_test),
	KUNIT_CASE(irq_split_test),
	KUNIT_CASE(irq_expiry_test),
	KUNIT_CASE(irq_other_row_test),
	KUNIT_CASE(irq_since_clear_test),
	KUNIT_CASE(irq_inject_test),
	KUNIT_CASE(irq_raise_new_test),
	KUNIT_CASE(irq_reinject_test),
	KUNIT_CASE(irq_unmatched_test),
	KUNIT_CASE(irq_hist_index_test),
	KUNIT_CASE(irq_pct_test),
	KUNIT_CASE(irq_hist_reinject_test),
	{}
};

static struct kunit_suite irq_suite = {
	.name = "hvtrace_irq",
	.test_cases = irq_cases,
};

kunit_test_suite(irq_suite);
