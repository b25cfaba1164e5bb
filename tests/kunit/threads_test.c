// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: the task to vCPU table (kmod/threads.c). The test's own thread
 * plays the VMM thread: one thread may run several vCPUs in turn (KVM
 * allows it; gVisor's KVM platform does it), and the scheduler probes
 * must then find the vCPU it runs now, and no other.
 */
#include <kunit/test.h>
#include <linux/sched.h>

#include "threads.h"
#include "vcpu_table.h"

#define TH_KEY(i)	((const void *)(0xffff888200000000UL + (i) * 0x4000UL))
#define TH_KVM		((const struct kvm *)0xffff888a00000000UL)

static int th_init(struct kunit *test)
{
	int err = hvt_vcpus_init(64);

	if (!err)
		err = hvt_threads_init();
	return err;
}

static void th_exit(struct kunit *test)
{
	hvt_threads_exit();
	hvt_vcpus_exit();
}

static struct hvt_vcpu *th_vcpu(struct kunit *test, u32 id)
{
	struct hvt_vcpu_ident i = { .kvm = TH_KVM, .vm_pid = 100,
				    .vcpu_id = id };
	struct hvt_vcpu *v = hvt_vcpu_claim(TH_KEY(id), &i);

	KUNIT_ASSERT_NOT_NULL(test, v);
	return v;
}

/* What the scheduler probes ask about a task. */
static struct hvt_vcpu *th_of(const struct task_struct *p)
{
	return hvt_thread_vcpu(p);
}

static void th_one_vcpu_test(struct kunit *test)
{
	struct hvt_vcpu *a = th_vcpu(test, 0);

	KUNIT_EXPECT_NULL(test, th_of(current));
	hvt_thread_add(a);
	KUNIT_EXPECT_PTR_EQ(test, th_of(current), a);
	KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(a->split.task), current);
	KUNIT_EXPECT_EQ(test, a->tid, (u32)current->pid);
	/* Added again (KVM_RUN of the same thread): nothing changes. */
	hvt_thread_add(a);
	KUNIT_EXPECT_PTR_EQ(test, th_of(current), a);
	/* The task_struct goes: nobody's vCPU thread any more. */
	hvt_thread_gone(current);
	KUNIT_EXPECT_NULL(test, th_of(current));
	KUNIT_EXPECT_NULL(test, READ_ONCE(a->split.task));
}

static void th_two_vcpus_in_turn_test(struct kunit *test)
{
	struct hvt_vcpu *a = th_vcpu(test, 0), *b = th_vcpu(test, 1);
	unsigned int round;

	for (round = 0; round < 3; round++) {
		hvt_thread_add(a);
		KUNIT_EXPECT_PTR_EQ(test, th_of(current), a);
		KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(a->split.task), current);
		/* B no longer names this thread: its probes leave B alone. */
		if (round)
			KUNIT_EXPECT_NULL(test, READ_ONCE(b->split.task));

		hvt_thread_add(b);
		KUNIT_EXPECT_PTR_EQ(test, th_of(current), b);
		KUNIT_EXPECT_PTR_EQ(test, READ_ONCE(b->split.task), current);
		KUNIT_EXPECT_NULL(test, READ_ONCE(a->split.task));
	}
	hvt_thread_gone(current);
	KUNIT_EXPECT_NULL(test, th_of(current));
	KUNIT_EXPECT_NULL(test, READ_ONCE(b->split.task));
}

static struct kunit_case th_cases[] = {
	KUNIT_CASE(th_one_vcpu_test),
	KUNIT_CASE(th_two_vcpus_in_turn_test),
	{}
};

static struct kunit_suite th_suite = {
	.name = "hvtrace_threads",
	.init = th_init,
	.exit = th_exit,
	.test_cases = th_cases,
};

kunit_test_suite(th_suite);
