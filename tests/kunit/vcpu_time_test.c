// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: where an exit's time goes (kmod/vcpu_time.h), the state machine
 * that splits an exit into VMM, halt, runnable and other time (enum
 * hvtrace_part), driven through the entry points the probes call
 * (probe_kvm.c, probe_sched.c, probe_vcpu_run.c, probe_destroy.c), guards
 * included, with explicit timestamps. Scenarios with exact values first,
 * then fixed-seed random walks through the transitions, checked against
 * a timeline model of the rules in uapi hvtrace.h.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "task.h"
#include "vcpu_time.h"

#define VMM		HVTRACE_PART_VMM
#define HALT		HVTRACE_PART_HALT
#define RUNNABLE	HVTRACE_PART_RUNNABLE
#define OTHER		HVTRACE_PART_OTHER

/*
 * The entry points read the clock once their guards pass; in this
 * module that clock is the test's (vcpu_time.h, HVT_KUNIT).
 */
u64 hvt_time_test_now;

/* CALL, an entry point, at time T. */
#define AT(t, call) ({ hvt_time_test_now = (t); call; })

/* A vCPU's split, its thread, and the tasks that run around it. */
struct vt_fix {
	struct hvt_split *s;
	struct task_struct *thread;	/* pid 50, the vCPU thread */
	struct task_struct *idle;	/* pid 0 */
	struct task_struct *hog;	/* pid 100 */
	struct task_struct *vcpu2;	/* pid 200, another vCPU thread */
	struct task_struct *kworker;	/* pid 300 */
	enum hvt_end end;		/* what the last entry said */
};

/* The first exit of a new vCPU on its thread: vcpu_init, hvt_thread_add. */
static void vt_new_vcpu(struct vt_fix *f)
{
	hvt_time_init(f->s);
	hvt_split_own(f->s, f->thread);
}

static int vt_init(struct kunit *test)
{
	struct vt_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->s = kunit_kzalloc(test, sizeof(*f->s), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->s);
	f->thread = hvt_test_task(test, 50, "CPU 0/KVM");
	/* Switched out without preemption, it blocks (it is no yield). */
	f->thread->__state = TASK_INTERRUPTIBLE;
	f->idle = hvt_test_task(test, 0, "swapper/1");
	f->hog = hvt_test_task(test, 100, "hvhog");
	f->vcpu2 = hvt_test_task(test, 200, "CPU 1/KVM");
	f->kworker = hvt_test_task(test, 300, "kworker/1:0");
	vt_new_vcpu(f);
	test->priv = f;
	return 0;
}

/*
 * The probes' calls that take more than the entry point itself (which
 * checks its own guards): the thread and the CPU a switch is about, what
 * a call returns, and the caller's part of the protocol.
 */

/*
 * kvm_entry at NOW: the exit's duration. A split exit's parts are closed
 * as end_split() closes them, and stay to be read.
 */
static u64 vt_entry(struct vt_fix *f, u64 now)
{
	u64 d = U64_MAX;

	f->end = AT(now, hvt_time_entry(f->s, &d));
	if (f->end == HVT_END_SPLIT)
		hvt_time_close(f->s, d);
	return d;
}

/* After the caller's counting: hvt_on_entry() resets a split exit. */
static void vt_done(struct vt_fix *f)
{
	if (f->end == HVT_END_SPLIT)
		hvt_time_reset(f->s);
}

/* KVM destroys the vCPU at NOW: the duration of its exit in flight. */
static u64 vt_destroyed(struct vt_fix *f, u64 now)
{
	u64 d = U64_MAX;

	f->end = AT(now, hvt_time_destroyed(f->s, &d)) ? HVT_END_SPLIT :
							  HVT_END_NONE;
	if (f->end == HVT_END_SPLIT)
		hvt_time_close(f->s, d);
	return d;
}

/* sched_switch, the vCPU thread going out on CPU 1; NEXT takes it. */
static void vt_out(struct vt_fix *f, bool preempt,
		   const struct task_struct *next, bool next_vcpu, u64 now)
{
	hvt_time_switch_out(f->s, f->thread, preempt, next, next_vcpu, now,
			    1);
}

/*
 * sched_switch, the vCPU thread coming in after PREV: the runnable time
 * it ended. hvt_on_switch() counts it, then lets the split go.
 */
static u64 vt_in(struct vt_fix *f, const struct task_struct *prev,
		 bool prev_vcpu, u64 now)
{
	struct hvt_switched_in w = {};

	if (!hvt_time_switch_in(f->s, f->thread, prev, prev_vcpu, now, &w))
		return 0;
	hvt_split_leave(f->s);
	return w.runnable_ns;
}

#define VT_EXPECT_PARTS(test, s, vmm, halt, runnable, other) do {	\
	KUNIT_EXPECT_EQ(test, (s)->part[VMM], (u64)(vmm));		\
	KUNIT_EXPECT_EQ(test, (s)->part[HALT], (u64)(halt));		\
	KUNIT_EXPECT_EQ(test, (s)->part[RUNNABLE], (u64)(runnable));	\
	KUNIT_EXPECT_EQ(test, (s)->part[OTHER], (u64)(other));	\
} while (0)

static u64 vt_sum(const struct hvt_split *s)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += s->part[i];
	return sum;
}

/* Nothing happens to the common exit: no split, nothing to close. */
static void vt_quiet_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;

	AT(1000, hvt_time_exit(s));
	KUNIT_EXPECT_EQ(test, vt_entry(f, 5000), 4000ULL);
	KUNIT_EXPECT_FALSE(test, s->split);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_ON_CPU);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 0U);
}

/* The VMM has the exit from the userspace exit to KVM_RUN. */
static void vt_vmm_round_trip_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	AT(1500, hvt_time_to_user(s));
	KUNIT_EXPECT_TRUE(test, s->split);
	KUNIT_EXPECT_TRUE(test, s->in_user);
	AT(4500, hvt_time_run(s));
	KUNIT_EXPECT_FALSE(test, s->in_user);
	d = vt_entry(f, 5000);
	KUNIT_EXPECT_EQ(test, d, 4000ULL);
	VT_EXPECT_PARTS(test, s, 3000, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 1000ULL);	/* handling */
	vt_done(f);

	/* Without the KVM_RUN kprobe the VMM's time runs to the entry. */
	AT(10000, hvt_time_exit(s));
	AT(10500, hvt_time_to_user(s));
	d = vt_entry(f, 14000);
	VT_EXPECT_PARTS(test, s, 3500, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 500ULL);
}

/*
 * The VMM blocks in userspace: the blocked time is the VMM's, the wait
 * for a CPU after the wake-up runnable, and no preemption inside KVM.
 */
static void vt_vmm_sleeps_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	AT(1500, hvt_time_to_user(s));
	vt_out(f, false, f->idle, false, 2000);		/* VMM 500 on CPU */
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_OFF_BLOCKED);
	KUNIT_EXPECT_FALSE(test, s->preempted);
	KUNIT_EXPECT_EQ(test, s->sleep_ts, 0ULL);	/* not a kernel sleep */
	AT(6000, hvt_time_wakeup(s, f->thread));	/* VMM 4000 blocked */
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_OFF_RUNNABLE);
	/* The idle task ran before: nobody is noted. */
	KUNIT_EXPECT_EQ(test, vt_in(f, f->idle, false, 6500), 500ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 0U);
	KUNIT_EXPECT_EQ(test, s->pre_ns, 0ULL);
	AT(7000, hvt_time_run(s));			/* VMM 500 on CPU */
	d = vt_entry(f, 7200);
	KUNIT_EXPECT_EQ(test, d, 6200ULL);
	VT_EXPECT_PARTS(test, s, 5000, 0, 500, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 700ULL);
	vt_done(f);

	/* Preempted in userspace: runnable, but not inside KVM. */
	AT(10000, hvt_time_exit(s));
	AT(10100, hvt_time_to_user(s));
	vt_out(f, true, f->hog, false, 10300);		/* VMM 200 */
	KUNIT_EXPECT_FALSE(test, s->preempted);
	KUNIT_EXPECT_EQ(test, s->off_pid, 100U);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->idle, false, 11300), 1000ULL);
	d = vt_entry(f, 11500);				/* VMM 200 more */
	VT_EXPECT_PARTS(test, s, 400, 0, 1000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 100ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 100U);
	KUNIT_EXPECT_EQ(test, s->pre_ns, 1000ULL);
}

/*
 * A second VMM thread calls KVM_RUN while the thread that got the exit
 * blocks in userspace: the VMM has the exit until that KVM_RUN, and the
 * blocked thread's stretch ends there (hvt_time_settle()).
 */
static void vt_run_from_other_thread_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	AT(1500, hvt_time_to_user(s));
	vt_out(f, false, f->idle, false, 2000);		/* VMM 500 on CPU */
	AT(5000, hvt_time_run(s));			/* VMM 3000 blocked */
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_ON_CPU);
	d = vt_entry(f, 6000);
	KUNIT_EXPECT_EQ(test, d, 5000ULL);
	VT_EXPECT_PARTS(test, s, 3500, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 1500ULL);	/* handling */
	vt_done(f);

	/* The old thread was preempted in userspace: runnable to KVM_RUN. */
	AT(10000, hvt_time_exit(s));
	AT(10500, hvt_time_to_user(s));
	vt_out(f, true, f->hog, false, 11000);		/* VMM 500 */
	AT(13000, hvt_time_run(s));			/* runnable 2000 */
	d = vt_entry(f, 13500);
	VT_EXPECT_PARTS(test, s, 500, 0, 2000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 1000ULL);
}

/*
 * The VMM quits with the vCPU's last exit in hand: its time runs to the
 * destruction, as VMM while the thread is in userspace or blocked there,
 * runnable while it waits for a CPU, whoever destroys it.
 */
static void vt_destroyed_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	/* Blocked in the VMM (or dead) since 2000. */
	AT(1000, hvt_time_exit(s));
	AT(1500, hvt_time_to_user(s));
	vt_out(f, false, f->idle, false, 2000);
	d = vt_destroyed(f, 9000);
	KUNIT_EXPECT_NULL(test, s->task);
	KUNIT_EXPECT_EQ(test, d, 8000ULL);
	VT_EXPECT_PARTS(test, s, 7500, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 500ULL);
	vt_done(f);
	vt_new_vcpu(f);

	/* Preempted in the VMM. */
	AT(10000, hvt_time_exit(s));
	AT(10500, hvt_time_to_user(s));
	vt_out(f, true, f->hog, false, 11000);
	d = vt_destroyed(f, 14000);
	VT_EXPECT_PARTS(test, s, 500, 0, 3000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 500ULL);
	vt_done(f);
	vt_new_vcpu(f);

	/* On CPU in the VMM: the destroying thread is the vCPU thread. */
	AT(20000, hvt_time_exit(s));
	AT(20400, hvt_time_to_user(s));
	d = vt_destroyed(f, 21000);
	VT_EXPECT_PARTS(test, s, 600, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 400ULL);
	vt_done(f);
	vt_new_vcpu(f);

	/* Nothing happened to it: all handling. */
	AT(30000, hvt_time_exit(s));
	d = vt_destroyed(f, 30700);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d, 700ULL);
}

/*
 * Preempted inside KVM: runnable for the time off CPU, who took the CPU
 * noted at the switch-out, the longest stretch kept.
 */
static void vt_preempted_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	vt_out(f, true, f->vcpu2, true, 2000);
	KUNIT_EXPECT_TRUE(test, s->split);
	KUNIT_EXPECT_TRUE(test, s->preempted);
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_OFF_RUNNABLE);
	KUNIT_EXPECT_EQ(test, s->off_ts, 2000ULL);
	KUNIT_EXPECT_EQ(test, s->cpu_off, (u16)1);
	KUNIT_EXPECT_EQ(test, s->off_pid, 200U);
	KUNIT_EXPECT_STREQ(test, s->off_comm, "CPU 1/KVM");
	KUNIT_EXPECT_TRUE(test, s->off_vcpu);
	/* PREV (the hog) ran last, but the preemptor was noted already. */
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 5000), 3000ULL);
	KUNIT_EXPECT_FALSE(test, s->preempted);
	KUNIT_EXPECT_EQ(test, s->on_ts, 5000ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 200U);
	KUNIT_EXPECT_STREQ(test, s->pre_comm, "CPU 1/KVM");
	KUNIT_EXPECT_EQ(test, s->pre_flags, (u16)HVTRACE_EVF_PREEMPT_VCPU);
	KUNIT_EXPECT_EQ(test, s->pre_ns, 3000ULL);

	/* A shorter stretch does not replace it... */
	vt_out(f, true, f->hog, false, 6000);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->idle, false, 7000), 1000ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 200U);
	KUNIT_EXPECT_EQ(test, s->pre_ns, 3000ULL);
	/* ... nor one as long ... */
	vt_out(f, true, f->hog, false, 8000);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->idle, false, 11000), 3000ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 200U);
	/* ... a longer one does. */
	vt_out(f, true, f->kworker, false, 12000);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 16000), 4000ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 300U);
	KUNIT_EXPECT_STREQ(test, s->pre_comm, "kworker/1:0");
	KUNIT_EXPECT_EQ(test, s->pre_flags, (u16)0);
	KUNIT_EXPECT_EQ(test, s->pre_ns, 4000ULL);

	d = vt_entry(f, 17000);
	KUNIT_EXPECT_EQ(test, d, 16000ULL);
	VT_EXPECT_PARTS(test, s, 0, 0, 11000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 5000ULL);
}

/*
 * Woken after a kernel sleep: the wait for a CPU notes who ran before
 * the switch-in, unless it was the idle task.
 */
static void vt_wakeup_wait_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 2000);
	KUNIT_EXPECT_FALSE(test, s->preempted);
	KUNIT_EXPECT_EQ(test, s->off_pid, 0U);
	KUNIT_EXPECT_EQ(test, s->sleep_ts, 2000ULL);
	AT(5000, hvt_time_wakeup(s, f->thread));
	KUNIT_EXPECT_EQ(test, s->ksleep, 3000ULL);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->idle, false, 5600), 600ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 0U);
	d = vt_entry(f, 6000);
	VT_EXPECT_PARTS(test, s, 0, 0, 600, 3000);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 1400ULL);
	vt_done(f);

	AT(10000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 10100);
	AT(10200, hvt_time_wakeup(s, f->thread));
	KUNIT_EXPECT_EQ(test, vt_in(f, f->vcpu2, true, 10700), 500ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 200U);
	KUNIT_EXPECT_EQ(test, s->pre_flags, (u16)HVTRACE_EVF_PREEMPT_VCPU);
	KUNIT_EXPECT_EQ(test, s->pre_ns, 500ULL);
	d = vt_entry(f, 11000);
	VT_EXPECT_PARTS(test, s, 0, 0, 500, 100);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 400ULL);
}

/*
 * A halt that blocks: its polling on CPU and its blocked time are the
 * halt; the wait for a CPU after the wake-up stays runnable.
 */
static void vt_halt_blocked_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	s->on_ts = 400;			/* switched in before the exit */
	AT(1000, hvt_time_exit(s));
	/* KVM's halt starts at 1200 and polls until 1500. */
	vt_out(f, false, f->idle, false, 1500);
	KUNIT_EXPECT_EQ(test, s->sleep_ts, 1500ULL);
	AT(9000, hvt_time_wakeup(s, f->thread));
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 9400), 400ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 100U);
	AT(9500, hvt_time_halted(s, 9500 - 1200, true));
	KUNIT_EXPECT_EQ(test, s->sleep_ts, 0ULL);
	KUNIT_EXPECT_EQ(test, s->ksleep, 0ULL);
	VT_EXPECT_PARTS(test, s, 0, 300 + 7500, 400, 0);
	d = vt_entry(f, 9800);
	KUNIT_EXPECT_EQ(test, d, 8800ULL);
	VT_EXPECT_PARTS(test, s, 0, 7800, 400, 0);
	/* 200 before the halt, 100 after the switch-in, 300 after it. */
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 600ULL);
	vt_done(f);

	/*
	 * Woken spuriously, back to sleep: both sleeps are the halt, the
	 * check between them handling.
	 */
	AT(20000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 20100);	/* halt polled 0 */
	AT(21000, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 21050);
	vt_out(f, false, f->idle, false, 21060);
	AT(23000, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 23020);
	AT(23030, hvt_time_halted(s, 23030 - 20100, true));
	d = vt_entry(f, 23100);
	VT_EXPECT_PARTS(test, s, 0, 900 + 1940, 50 + 20, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 3100ULL - 2910);
}

/*
 * A halt whose polling succeeded: on CPU throughout, the halt is NS, up
 * to the time on CPU since the exit or the switch-in.
 */
static void vt_halt_polled_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	s->on_ts = 500;			/* stale: before the exit */
	AT(1000, hvt_time_exit(s));
	AT(3000, hvt_time_halted(s, 1500, false));
	KUNIT_EXPECT_TRUE(test, s->split);
	d = vt_entry(f, 3200);
	VT_EXPECT_PARTS(test, s, 0, 1500, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 700ULL);
	vt_done(f);

	/* NS longer than the exit (two clocks): the exit bounds it. */
	AT(10000, hvt_time_exit(s));
	AT(12000, hvt_time_halted(s, 9000, false));
	d = vt_entry(f, 12100);
	VT_EXPECT_PARTS(test, s, 0, 2000, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 100ULL);
	vt_done(f);

	/* Preempted before the halt, which starts at the switch-in. */
	AT(20000, hvt_time_exit(s));
	vt_out(f, true, f->hog, false, 20100);
	vt_in(f, f->idle, false, 20600);
	AT(21000, hvt_time_halted(s, 400, false));
	d = vt_entry(f, 21100);
	VT_EXPECT_PARTS(test, s, 0, 400, 500, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 200ULL);
	vt_done(f);

	/* Woken before it got off CPU: waited, but on CPU throughout. */
	AT(30000, hvt_time_exit(s));
	AT(31000, hvt_time_halted(s, 800, true));
	d = vt_entry(f, 31050);
	VT_EXPECT_PARTS(test, s, 0, 800, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 250ULL);
}

/* A kernel sleep that is no halt is other; a halt after it is apart. */
static void vt_kernel_sleep_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 2000);
	AT(5000, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 5000);
	KUNIT_EXPECT_EQ(test, s->ksleep, 3000ULL);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 0);	/* other only at the close */
	d = vt_entry(f, 6000);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 3000);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 2000ULL);
	vt_done(f);

	/* A halt that polled successfully leaves an earlier sleep other. */
	AT(10000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 10100);
	AT(10600, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 10700);
	AT(11100, hvt_time_halted(s, 300, false));
	d = vt_entry(f, 11200);
	VT_EXPECT_PARTS(test, s, 0, 300, 100, 500);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 300ULL);
	vt_done(f);

	/* A sleep after a halt that blocked is other again. */
	AT(20000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 20200);	/* halt from 20100 */
	AT(21200, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 21200);
	AT(21300, hvt_time_halted(s, 1200, true));	/* 100 + 1000 */
	vt_out(f, false, f->idle, false, 21400);
	AT(21900, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 21900);
	d = vt_entry(f, 22000);
	VT_EXPECT_PARTS(test, s, 0, 1100, 0, 500);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 400ULL);
}

/* The wake-up went unseen: the switch-in ends the blocked time. */
static void vt_unseen_wakeup_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 2000);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 6000), 0ULL);
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_ON_CPU);
	KUNIT_EXPECT_EQ(test, s->ksleep, 4000ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 0U);	/* no runnable stretch */
	d = vt_entry(f, 6500);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 4000);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 1500ULL);
	vt_done(f);

	/* In userspace: the VMM's. */
	AT(10000, hvt_time_exit(s));
	AT(10100, hvt_time_to_user(s));
	vt_out(f, false, f->idle, false, 10300);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 12300), 0ULL);
	KUNIT_EXPECT_EQ(test, s->user_ts, 12300ULL);
	AT(12400, hvt_time_run(s));
	d = vt_entry(f, 12500);
	VT_EXPECT_PARTS(test, s, 200 + 2000 + 100, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 200ULL);
}

/* An interval whose end reads earlier than its start is empty. */
static void vt_clock_skew_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;

	KUNIT_EXPECT_EQ(test, hvt_since(10, 5), 5ULL);
	KUNIT_EXPECT_EQ(test, hvt_since(5, 10), 0ULL);
	KUNIT_EXPECT_EQ(test, hvt_since(7, 7), 0ULL);

	AT(1000, hvt_time_exit(s));
	AT(3000, hvt_time_to_user(s));
	AT(2900, hvt_time_run(s));			/* VMM 0 */
	KUNIT_EXPECT_EQ(test, s->part[VMM], 0ULL);
	vt_out(f, false, f->idle, false, 5000);
	AT(4900, hvt_time_wakeup(s, f->thread));			/* another CPU, behind */
	KUNIT_EXPECT_EQ(test, s->ksleep, 0ULL);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 4800), 0ULL);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 0U);	/* empty: not the longest */
	vt_out(f, true, f->hog, false, 6000);
	KUNIT_EXPECT_EQ(test, vt_in(f, f->idle, false, 5990), 0ULL);
	/* A halt read on a clock behind the switch-in's: empty. */
	AT(5980, hvt_time_halted(s, 50, false));
	KUNIT_EXPECT_EQ(test, s->part[HALT], 0ULL);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 0);
	/* The entry on a CPU behind the exit's: the exit took no time. */
	KUNIT_EXPECT_EQ(test, vt_entry(f, 900), 0ULL);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, s->exit_ts, 900ULL);
}

/*
 * The parts measured on several CPUs' clocks can add up to more than
 * the duration (measured on two): the close trims them, other first,
 * then runnable, halt, and VMM last.
 */
struct vt_trim_case {
	u64 d;
	u64 want[HVTRACE_NR_PARTS];
};

static const struct vt_trim_case vt_trim_cases[] = {
	/* VMM 1000, halt 1000, runnable 1000, ksleep (other) 1000. */
	{ 5000, { 1000, 1000, 1000, 1000 } },
	{ 4000, { 1000, 1000, 1000, 1000 } },
	{ 3999, { 1000, 1000, 1000, 999 } },
	{ 2500, { 1000, 1000, 500, 0 } },
	{ 1500, { 1000, 500, 0, 0 } },
	{ 999, { 999, 0, 0, 0 } },
	{ 0, { 0, 0, 0, 0 } },
};

static void vt_trim_desc(const struct vt_trim_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "d=%llu", c->d);
}

KUNIT_ARRAY_PARAM(vt_trim, vt_trim_cases, vt_trim_desc);

static void vt_trim_test(struct kunit *test)
{
	const struct vt_trim_case *c = test->param_value;
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 sum;
	int i;

	/* An exit of D ns whose parts so far read as below. */
	AT(50000 - c->d, hvt_time_exit(s));
	s->split = true;
	s->part[VMM] = 1000;
	s->part[HALT] = 1000;
	s->part[RUNNABLE] = 1000;
	s->ksleep = 1000;
	KUNIT_EXPECT_EQ(test, vt_entry(f, 50000), c->d);
	sum = vt_sum(s);
	KUNIT_EXPECT_EQ(test, sum, min(c->d, 4000ULL));
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		KUNIT_EXPECT_EQ_MSG(test, s->part[i], c->want[i], "part %d", i);
}

/*
 * The same, reached through the probes: the VMM's sleep is measured
 * from a wake-up on a CPU whose clock is ahead, and the entry's CPU is
 * behind.
 */
static void vt_trim_skewed_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	AT(1100, hvt_time_to_user(s));
	vt_out(f, false, f->idle, false, 1200);		/* VMM 100 */
	AT(5000, hvt_time_wakeup(s, f->thread));	/* VMM 3800 */
	vt_in(f, f->hog, false, 5500);			/* runnable 500 */
	AT(5600, hvt_time_run(s));			/* VMM 100 */
	VT_EXPECT_PARTS(test, s, 4000, 0, 500, 0);
	d = vt_entry(f, 3000);
	KUNIT_EXPECT_EQ(test, d, 2000ULL);
	VT_EXPECT_PARTS(test, s, 2000, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, vt_sum(s), d);
	vt_done(f);

	/* Still in userspace at the close, which ends the VMM's time. */
	AT(10000, hvt_time_exit(s));
	vt_out(f, true, f->hog, false, 10100);
	vt_in(f, f->idle, false, 12100);		/* runnable 2000 */
	AT(12200, hvt_time_to_user(s));
	d = vt_entry(f, 11000);				/* VMM 0 */
	KUNIT_EXPECT_EQ(test, d, 1000ULL);
	VT_EXPECT_PARTS(test, s, 0, 0, 1000, 0);
	KUNIT_EXPECT_FALSE(test, s->in_user);
}

/* After the exit is accounted, the next one starts with nothing. */
static void vt_reset_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	vt_out(f, true, f->hog, false, 1100);
	vt_in(f, f->idle, false, 1600);
	vt_out(f, false, f->idle, false, 1700);		/* sleep_ts */
	AT(2700, hvt_time_wakeup(s, f->thread));	/* ksleep */
	vt_in(f, f->idle, false, 2800);
	AT(2900, hvt_time_to_user(s));			/* in_user */
	vt_out(f, true, f->kworker, false, 3000);
	KUNIT_EXPECT_TRUE(test, s->sleep_ts != 0);
	KUNIT_EXPECT_TRUE(test, s->ksleep != 0);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 100U);
	vt_in(f, f->hog, false, 3400);
	KUNIT_EXPECT_EQ(test, vt_entry(f, 3500), 2500ULL);
	s->preempted = true;	/* as a preemption not yet switched in */
	vt_done(f);
	VT_EXPECT_PARTS(test, s, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, s->ksleep, 0ULL);
	KUNIT_EXPECT_EQ(test, s->sleep_ts, 0ULL);
	KUNIT_EXPECT_FALSE(test, s->in_user);
	KUNIT_EXPECT_FALSE(test, s->preempted);
	KUNIT_EXPECT_EQ(test, s->pre_pid, 0U);
	KUNIT_EXPECT_EQ(test, s->pre_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, s->pre_flags, (u16)0);
	KUNIT_EXPECT_FALSE(test, s->split);

	/* The next exit, a quiet one, then one that halts after polling. */
	AT(10000, hvt_time_exit(s));
	KUNIT_EXPECT_EQ(test, vt_entry(f, 10500), 500ULL);
	KUNIT_EXPECT_FALSE(test, s->split);
	vt_done(f);
	AT(20000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 20400);	/* halt from 20100 */
	AT(21000, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 21000);
	AT(21000, hvt_time_halted(s, 21000 - 20100, true));
	d = vt_entry(f, 21000);
	VT_EXPECT_PARTS(test, s, 0, 900, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(s), 100ULL);
}

/*
 * Each entry point checks its own guards: an event without an exit in
 * flight, about a task that does not drive the split, or that does not
 * fit where the thread is, leaves the split alone.
 */
static void vt_guards_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	struct hvt_switched_in w = {};
	u64 d = 0;

	/* No exit in flight. */
	KUNIT_EXPECT_EQ(test, AT(1000, hvt_time_entry(s, &d)), HVT_END_NONE);
	AT(1100, hvt_time_to_user(s));
	AT(1200, hvt_time_halted(s, 100, true));
	vt_out(f, false, f->idle, false, 1300);
	AT(1400, hvt_time_wakeup(s, f->thread));
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 1500), 0ULL);
	AT(1600, hvt_time_run(s));
	KUNIT_EXPECT_FALSE(test, s->split);
	KUNIT_EXPECT_FALSE(test, s->in_user);
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_ON_CPU);
	KUNIT_EXPECT_EQ(test, s->sleep_ts, 0ULL);
	KUNIT_EXPECT_EQ(test, vt_sum(s), 0ULL);

	/* A task that does not drive the split: the probe lets it go. */
	KUNIT_EXPECT_FALSE(test, AT(2000, hvt_time_exit(s)));
	hvt_time_switch_out(s, f->vcpu2, true, f->hog, false, 2100, 1);
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_ON_CPU);
	KUNIT_EXPECT_FALSE(test, s->split);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->busy), 0);
	vt_out(f, false, f->idle, false, 2200);		/* the thread blocks */
	AT(2300, hvt_time_wakeup(s, f->vcpu2));
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_OFF_BLOCKED);
	KUNIT_EXPECT_FALSE(test, hvt_time_switch_in(s, f->vcpu2, f->idle,
						    false, 2400, &w));
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_OFF_BLOCKED);
	KUNIT_EXPECT_EQ(test, atomic_read(&s->busy), 0);

	/* A wake-up of a thread that is on CPU is none. */
	KUNIT_EXPECT_EQ(test, vt_in(f, f->idle, false, 2500), 0ULL);
	KUNIT_EXPECT_EQ(test, s->ksleep, 300ULL);	/* the wake-up unseen */
	AT(2600, hvt_time_wakeup(s, f->thread));
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_ON_CPU);
	KUNIT_EXPECT_EQ(test, s->run_ts, 0ULL);
	/* KVM_RUN while the VMM does not have the exit ends nothing. */
	AT(2700, hvt_time_run(s));
	KUNIT_EXPECT_EQ(test, s->part[VMM], 0ULL);

	/* An exit while one is in flight: that one is dropped. */
	KUNIT_EXPECT_TRUE(test, AT(3000, hvt_time_exit(s)));
	KUNIT_EXPECT_TRUE(test, s->in_exit);
	KUNIT_EXPECT_EQ(test, s->exit_ts, 3000ULL);
	KUNIT_EXPECT_FALSE(test, s->split);
	KUNIT_EXPECT_EQ(test, s->ksleep, 0ULL);
	KUNIT_EXPECT_EQ(test, s->sleep_ts, 0ULL);
	KUNIT_EXPECT_EQ(test, vt_entry(f, 3500), 500ULL);
	KUNIT_EXPECT_EQ(test, f->end, HVT_END_QUIET);

	/* Destroyed without an exit in flight: the thread lets go. */
	KUNIT_EXPECT_FALSE(test, AT(4000, hvt_time_destroyed(s, &d)));
	KUNIT_EXPECT_NULL(test, s->task);
	/* Its scheduling no longer drives the split. */
	AT(5000, hvt_time_exit(s));
	vt_out(f, true, f->hog, false, 5100);
	KUNIT_EXPECT_FALSE(test, s->split);
	KUNIT_EXPECT_EQ(test, s->where, (u8)HVT_ON_CPU);
}

/*
 * An interrupt's wait (hvt_time_window()): a LAPIC timer expires while
 * its vCPU is halted and blocked; a hog keeps the woken thread off its
 * CPU. From the expiry, the wait is runnable time and handling, and the
 * hog ran instead; from before the halting exit, the guest's time, the
 * halt (polling and blocked) and the runnable time.
 */
static void vt_window_halt_hog_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	struct hvt_window w;

	AT(1000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 1100);		/* the halt blocks */
	AT(5000, hvt_time_wakeup(s, f->thread));	/* the timer's expiry */
	KUNIT_EXPECT_EQ(test, vt_in(f, f->hog, false, 9000), 4000ULL);
	AT(9100, hvt_time_halted(s, 8100, true));	/* since 1000 */

	hvt_time_window(s, 5000, 9200, &w);
	KUNIT_EXPECT_EQ(test, w.guest_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, w.part[VMM], 0ULL);
	KUNIT_EXPECT_EQ(test, w.part[HALT], 0ULL);
	KUNIT_EXPECT_EQ(test, w.part[RUNNABLE], 4000ULL);
	KUNIT_EXPECT_EQ(test, w.part[OTHER], 0ULL);
	KUNIT_EXPECT_EQ(test, w.pre_pid, 100U);
	KUNIT_EXPECT_STREQ(test, w.pre_comm, "hvhog");
	KUNIT_EXPECT_EQ(test, w.pre_flags, (u16)0);

	hvt_time_window(s, 900, 9200, &w);
	KUNIT_EXPECT_EQ(test, w.guest_ns, 100ULL);
	KUNIT_EXPECT_EQ(test, w.part[HALT], 4000ULL);	/* 100 + 3900 */
	KUNIT_EXPECT_EQ(test, w.part[RUNNABLE], 4000ULL);
	KUNIT_EXPECT_EQ(test, w.part[OTHER], 0ULL);

	/* Raised after the hog's stretch: nobody ran instead of it. */
	hvt_time_window(s, 9050, 9200, &w);
	KUNIT_EXPECT_EQ(test, w.part[HALT] + w.part[RUNNABLE], 0ULL);
	KUNIT_EXPECT_EQ(test, w.pre_pid, 0U);
	KUNIT_EXPECT_STREQ(test, w.pre_comm, "");
}

/*
 * Raised while the vCPU ran in the guest: the guest's time to the exit,
 * then the VMM's; raised while the VMM had the exit: the VMM's time from
 * the raise on. Without the KVM_RUN kprobe the VMM has it up to now.
 */
static void vt_window_vmm_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	struct hvt_window w;

	/* Before the exit: nothing but handling (no exit in flight). */
	hvt_time_window(s, 1000, 1500, &w);
	KUNIT_EXPECT_EQ(test, w.guest_ns + w.part[VMM], 0ULL);

	AT(2000, hvt_time_exit(s));
	AT(2100, hvt_time_to_user(s));
	hvt_time_window(s, 2600, 2800, &w);
	KUNIT_EXPECT_EQ(test, w.part[VMM], 200ULL);
	AT(3000, hvt_time_run(s));

	hvt_time_window(s, 1500, 3100, &w);
	KUNIT_EXPECT_EQ(test, w.guest_ns, 500ULL);
	KUNIT_EXPECT_EQ(test, w.part[VMM], 900ULL);
	hvt_time_window(s, 2500, 3100, &w);
	KUNIT_EXPECT_EQ(test, w.guest_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, w.part[VMM], 500ULL);
	KUNIT_EXPECT_EQ(test, w.part[RUNNABLE] + w.part[HALT], 0ULL);
}

/*
 * More stretches than the log keeps: preempted six times in the VMM
 * (13 stretches). A wait from before the exit still has all of them
 * (the oldest folded); one that starts after the folded ones, exactly
 * those after it.
 */
static void vt_window_folded_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	struct hvt_window w;
	u64 t;

	AT(10000, hvt_time_exit(s));
	AT(10000, hvt_time_to_user(s));
	for (t = 10000; t < 16000; t += 1000) {
		vt_out(f, true, f->hog, false, t + 500);
		vt_in(f, f->hog, false, t + 1000);
	}
	AT(16500, hvt_time_run(s));
	KUNIT_EXPECT_EQ(test, s->nr_log, 13U);
	VT_EXPECT_PARTS(test, s, 3500, 0, 3000, 0);

	hvt_time_window(s, 9000, 16600, &w);
	KUNIT_EXPECT_EQ(test, w.guest_ns, 1000ULL);
	KUNIT_EXPECT_EQ(test, w.part[VMM], 3500ULL);
	KUNIT_EXPECT_EQ(test, w.part[RUNNABLE], 3000ULL);
	KUNIT_EXPECT_EQ(test, w.pre_pid, 100U);

	hvt_time_window(s, 13000, 16600, &w);
	KUNIT_EXPECT_EQ(test, w.part[VMM], 2000ULL);
	KUNIT_EXPECT_EQ(test, w.part[RUNNABLE], 1500ULL);
}

/*
 * Random walks. Each exit is a random sequence of the transitions the
 * probes see, with random gaps (zero included), and a timeline of the
 * thread's states kept on the side. The model classifies the timeline
 * by the rules in uapi hvtrace.h: runnable is RUNNABLE; blocked is VMM
 * in userspace, HALT inside a halt's window (kvm_vcpu_wakeup's NS back
 * from its time), OTHER elsewhere; on CPU, userspace is VMM, the
 * kernel HALT while a halt polls (in its window, before its first
 * block), handling otherwise. Who ran instead during the longest
 * runnable stretch: the task switched to when preempted, else the task
 * that ran before the switch-in, unless idle.
 */
enum vt_state {
	VT_KERNEL,
	VT_USER,
	VT_RUNNABLE,
	VT_SLEEP_USER,
	VT_SLEEP_KERNEL,
};

#define VT_MAX_STEPS	40
#define VT_MAX_SEGS	(2 * VT_MAX_STEPS + 8)
#define VT_MAX_LOG	(2 * VT_MAX_STEPS + 8)

enum vt_ev {
	VT_EV_EXIT,
	VT_EV_ENTRY,
	VT_EV_TO_USER,
	VT_EV_RUN,
	VT_EV_HALT_START,
	VT_EV_HALTED,
	VT_EV_HALTED_WAITED,
	VT_EV_PREEMPT,
	VT_EV_BLOCK,
	VT_EV_WAKEUP,
	VT_EV_SWITCH_IN,
};

static const char * const vt_ev_names[] = {
	[VT_EV_EXIT] = "exit",
	[VT_EV_ENTRY] = "entry",
	[VT_EV_TO_USER] = "userspace_exit",
	[VT_EV_RUN] = "KVM_RUN",
	[VT_EV_HALT_START] = "(halt starts)",
	[VT_EV_HALTED] = "vcpu_wakeup waited=0 ns",
	[VT_EV_HALTED_WAITED] = "vcpu_wakeup waited=1 ns",
	[VT_EV_PREEMPT] = "switch-out runnable, next pid",
	[VT_EV_BLOCK] = "switch-out blocked",
	[VT_EV_WAKEUP] = "wakeup",
	[VT_EV_SWITCH_IN] = "switch-in, prev pid",
};

/* The events whose names end with their argument. */
#define VT_EV_ARG	(BIT(VT_EV_HALTED) | BIT(VT_EV_HALTED_WAITED) | \
			 BIT(VT_EV_PREEMPT) | BIT(VT_EV_SWITCH_IN))

struct vt_walk {
	struct kunit *test;
	struct vt_fix *f;
	u64 seed;
	u64 t;
	int skew;		/* events read clocks up to this far apart */
	bool poll_preempt;	/* may a polling halt be preempted */
	bool sleep_halt;	/* may a halt follow a kernel sleep */
	/* The exit in flight: its states, halts and events. */
	struct {
		u64 from;
		u8 state;
	} seg[VT_MAX_SEGS];
	unsigned int nseg;
	struct {
		u64 start, poll_end, end;
	} halt[VT_MAX_STEPS];
	unsigned int nhalt;
	struct {
		u64 t, arg;
		u8 ev;
	} log[VT_MAX_LOG];
	unsigned int nlog;
	u64 run_from;		/* runnable since */
	struct task_struct *run_who;	/* and who ran instead, or NULL */
	bool run_who_vcpu;
	u64 pre_ns;		/* the longest runnable stretch noted */
	struct task_struct *pre_who;
	bool pre_vcpu;
	/* Totals, to show the walk went everywhere. */
	bool wrong;		/* a switch-in returned the wrong time */
	u64 exits, split, differ, bad;
	u64 windows;		/* waits checked exactly against the model */
	u64 nev[VT_EV_SWITCH_IN + 1];
	u64 part[HVTRACE_NR_PARTS];
	u64 model[HVTRACE_NR_PARTS];	/* the last exit's, by the model */
};

static u64 vt_rand(struct vt_walk *w)
{
	u64 x = w->seed;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	w->seed = x;
	return x;
}

static unsigned int vt_pick(struct vt_walk *w, unsigned int n)
{
	return vt_rand(w) % n;
}

/* Time to the next event: none, short, medium or long. */
static u64 vt_gap(struct vt_walk *w)
{
	switch (vt_pick(w, 8)) {
	case 0:
		return 0;
	case 1:
	case 2:
	case 3:
		return 1 + vt_pick(w, 100);
	case 4:
	case 5:
	case 6:
		return 1 + vt_pick(w, 10000);
	default:
		return 1 + vt_pick(w, 1000000);
	}
}

/* The clock an event reads: the walk's, or another CPU's. */
static u64 vt_clock(struct vt_walk *w)
{
	if (!w->skew)
		return w->t;
	return w->t + vt_pick(w, 2 * w->skew + 1) - w->skew;
}

static struct task_struct *vt_other(struct vt_walk *w, bool idle_too,
				    bool *vcpu)
{
	struct vt_fix *f = w->f;

	*vcpu = false;
	switch (vt_pick(w, idle_too ? 4 : 3)) {
	case 0:
		return f->hog;
	case 1:
		*vcpu = true;
		return f->vcpu2;
	case 2:
		return f->kworker;
	default:
		return f->idle;
	}
}

static void vt_log(struct vt_walk *w, u8 ev, u64 t, u64 arg)
{
	if (w->nlog < VT_MAX_LOG) {
		w->log[w->nlog].t = t;
		w->log[w->nlog].arg = arg;
		w->log[w->nlog].ev = ev;
		w->nlog++;
	}
	w->nev[ev]++;
}

static void vt_state(struct vt_walk *w, u8 state)
{
	if (w->nseg < VT_MAX_SEGS) {
		w->seg[w->nseg].from = w->t;
		w->seg[w->nseg].state = state;
		w->nseg++;
	}
}

static u64 vt_overlap(u64 a, u64 b, u64 c, u64 d)
{
	u64 lo = max(a, c), hi = min(b, d);

	return hi > lo ? hi - lo : 0;
}

/* The model's parts of the exit that ends at END, from FROM on. */
static void vt_model_from(const struct vt_walk *w, u64 from, u64 end,
			  u64 part[HVTRACE_NR_PARTS])
{
	unsigned int i, j;
	u64 a, b, in;

	memset(part, 0, sizeof(u64) * HVTRACE_NR_PARTS);
	for (i = 0; i < w->nseg; i++) {
		a = max(w->seg[i].from, from);
		b = i + 1 < w->nseg ? w->seg[i + 1].from : end;
		if (b <= a)
			continue;
		switch (w->seg[i].state) {
		case VT_USER:
		case VT_SLEEP_USER:
			part[VMM] += b - a;
			break;
		case VT_RUNNABLE:
			part[RUNNABLE] += b - a;
			break;
		case VT_SLEEP_KERNEL:
			for (in = 0, j = 0; j < w->nhalt; j++)
				in += vt_overlap(a, b, w->halt[j].start,
						 w->halt[j].end);
			part[HALT] += in;
			part[OTHER] += b - a - in;
			break;
		case VT_KERNEL:
			for (j = 0; j < w->nhalt; j++)
				part[HALT] += vt_overlap(a, b, w->halt[j].start,
							 w->halt[j].poll_end);
			break;
		}
	}
}

/* The model's parts of the exit that ends at END. */
static void vt_model(const struct vt_walk *w, u64 end,
		     u64 part[HVTRACE_NR_PARTS])
{
	vt_model_from(w, 0, end, part);
}

static void vt_dump(struct vt_walk *w)
{
	unsigned int i;
	u8 ev;

	for (i = 0; i < w->nlog; i++) {
		ev = w->log[i].ev;
		if (VT_EV_ARG & BIT(ev))
			kunit_info(w->test, "  %llu  %s %llu\n", w->log[i].t,
				   vt_ev_names[ev], w->log[i].arg);
		else
			kunit_info(w->test, "  %llu  %s\n", w->log[i].t,
				   vt_ev_names[ev]);
	}
}

static void vt_show(struct vt_walk *w, const char *what, u64 d)
{
	const struct hvt_split *s = w->f->s;

	kunit_info(w->test, "%s: exit %llu, d %llu\n", what, w->exits, d);
	kunit_info(w->test, "  got   VMM %llu halt %llu runnable %llu other %llu, preemptor %u for %llu\n",
		   s->part[VMM], s->part[HALT], s->part[RUNNABLE],
		   s->part[OTHER], s->pre_pid, s->pre_ns);
	kunit_info(w->test, "  model VMM %llu halt %llu runnable %llu other %llu, preemptor %u for %llu\n",
		   w->model[VMM], w->model[HALT], w->model[RUNNABLE],
		   w->model[OTHER], w->pre_who ? (u32)w->pre_who->pid : 0,
		   w->pre_ns);
	vt_dump(w);
}

/*
 * At the close of an exit of D ns: the bounds always hold. Without skew
 * the preemptor is the model's, and so are the parts (counted in
 * differ) or else they differ only the known way (see
 * vt_model_halt_edges_test): halt polling lost to handling, a kernel
 * sleep moved from other to halt. Anything else counts in bad.
 */
static void vt_check(struct vt_walk *w, u64 d)
{
	const struct hvt_split *s = w->f->s;
	const u64 *m = w->model;
	bool bad = false, differ = false, pre = false;
	u64 sum = 0;
	int i;

	for (i = 0; i < HVTRACE_NR_PARTS; i++) {
		sum += s->part[i];
		w->part[i] += s->part[i];
		bad |= s->part[i] > d;
		differ |= s->part[i] != m[i];
	}
	bad |= sum > d || (!s->split && sum) || w->wrong;
	if (!w->skew) {
		pre = s->pre_ns != w->pre_ns ||
		      s->pre_pid != (w->pre_who ? (u32)w->pre_who->pid : 0);
		if (w->pre_who)
			pre |= s->pre_flags != (w->pre_vcpu ?
					HVTRACE_EVF_PREEMPT_VCPU : 0) ||
			       strcmp(s->pre_comm, w->pre_who->comm);
		bad |= pre || (differ &&
			       (s->part[VMM] != m[VMM] ||
				s->part[RUNNABLE] != m[RUNNABLE] ||
				s->part[OTHER] > m[OTHER] ||
				s->part[HALT] + s->part[OTHER] >
				m[HALT] + m[OTHER]));
		if (differ && !w->differ++ && !bad)
			vt_show(w, "differs from the model", d);
	}
	if (bad && !w->bad++) {
		KUNIT_FAIL(w->test, "exit %llu: wrong split", w->exits);
		vt_show(w, "wrong", d);
	}
}

/*
 * At the entry, without skew: a wait from before the exit (ALL) has 7 ns
 * in the guest and the exit's own parts, whatever the stretches folded;
 * one from FROM within it (WIN) has the model's parts from FROM, unless
 * stretches were folded (hvt_time_window()'s approximation), where the
 * exit's own parts are the model's. Its parts never exceed the wait (on
 * the clock the entry read: NOW).
 * Counted in windows: the split exits so checked.
 */
static void vt_check_windows(struct vt_walk *w, const struct hvt_window *all,
			     const struct hvt_window *win, u64 from, u64 now)
{
	const struct hvt_split *s = w->f->s;
	u64 model[HVTRACE_NR_PARTS], sum = 0;
	bool bad = false, exact;
	int i;

	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += win->part[i];
	bad |= win->guest_ns || sum > hvt_since(now, from);
	if (!w->skew) {
		bad |= all->guest_ns != 7;
		for (i = 0; i < HVTRACE_NR_PARTS; i++)
			bad |= all->part[i] != s->part[i];
		vt_model_from(w, from, w->t, model);
		exact = s->nr_log <= HVT_STRETCHES &&
			!memcmp(w->model, s->part, sizeof(s->part));
		for (i = 0; exact && i < HVTRACE_NR_PARTS; i++)
			bad |= win->part[i] != model[i];
		w->windows += exact && s->split;
	}
	if (bad && !w->bad++) {
		KUNIT_FAIL(w->test, "exit %llu: wrong wait split from %llu",
			   w->exits, from);
		kunit_info(w->test, "  all: guest %llu VMM %llu halt %llu runnable %llu other %llu\n",
			   all->guest_ns, all->part[VMM], all->part[HALT],
			   all->part[RUNNABLE], all->part[OTHER]);
		kunit_info(w->test, "  win: VMM %llu halt %llu runnable %llu other %llu\n",
			   win->part[VMM], win->part[HALT],
			   win->part[RUNNABLE], win->part[OTHER]);
		vt_model_from(w, from, w->t, model);
		kunit_info(w->test, "  model from %llu: VMM %llu halt %llu runnable %llu other %llu\n",
			   from, model[VMM], model[HALT], model[RUNNABLE],
			   model[OTHER]);
		vt_show(w, "wrong wait split", 0);
	}
}

/*
 * What may happen next, by where the thread is; the first move of each
 * list heads for the entry (after VT_MAX_STEPS).
 */
enum vt_move {
	VT_WAIT,		/* time passes */
	VT_ENTRY,
	VT_TO_USER,
	VT_RUN,			/* KVM_RUN again (or the entry, no kprobe) */
	VT_HALT,		/* KVM's halt starts: no probe */
	VT_HALTED,
	VT_PREEMPT,
	VT_BLOCK,
	VT_WAKEUP,
	VT_SWITCH_IN,
};

static const u8 vt_in_kernel[] = {
	VT_ENTRY, VT_TO_USER, VT_HALT, VT_PREEMPT, VT_BLOCK, VT_WAIT
};

static const u8 vt_in_halt[] = { VT_HALTED, VT_BLOCK, VT_PREEMPT, VT_WAIT };
static const u8 vt_in_user[] = { VT_RUN, VT_PREEMPT, VT_BLOCK, VT_WAIT };
static const u8 vt_runnable[] = { VT_SWITCH_IN, VT_WAIT, VT_WAIT };
static const u8 vt_blocked[] = { VT_WAKEUP, VT_SWITCH_IN, VT_WAIT, VT_WAIT };

#define VT_MOVE(w, list, wind) ((list)[(wind) ? 0 : vt_pick(w, sizeof(list))])

/* One exit, start to entry. */
static void vt_walk_exit(struct vt_walk *w)
{
	struct vt_fix *f = w->f;
	struct hvt_split *s = f->s;
	bool kprobe = vt_pick(w, 4) != 0, user = false, halting = false;
	bool blocked = false, slept = false, waited;
	u64 halt_start = 0, first_block = 0;
	unsigned int steps = 0;
	struct task_struct *p;
	u8 st = VT_KERNEL, move;
	struct hvt_window all, win;
	bool pv, wind;
	u64 now, d, r, from;

	w->nseg = 0;
	w->nhalt = 0;
	w->nlog = 0;
	w->pre_ns = 0;
	w->pre_who = NULL;
	w->wrong = false;
	w->t += vt_gap(w);
	now = vt_clock(w);
	AT(now, hvt_time_exit(s));
	vt_log(w, VT_EV_EXIT, now, 0);
	vt_state(w, VT_KERNEL);
	for (;;) {
		wind = ++steps > VT_MAX_STEPS;
		w->t += vt_gap(w);
		now = vt_clock(w);
		switch (st) {
		case VT_KERNEL:
			if (!halting) {
				move = VT_MOVE(w, vt_in_kernel, wind);
				if (move == VT_HALT && slept && !w->sleep_halt)
					move = VT_WAIT;
			} else {
				move = VT_MOVE(w, vt_in_halt, wind);
				if (move == VT_PREEMPT && !blocked &&
				    !w->poll_preempt)
					move = VT_WAIT;
			}
			break;
		case VT_USER:
			move = VT_MOVE(w, vt_in_user, wind);
			if (move == VT_RUN && !kprobe)
				move = VT_ENTRY;
			break;
		case VT_RUNNABLE:
			move = VT_MOVE(w, vt_runnable, wind);
			break;
		default:
			move = VT_MOVE(w, vt_blocked, wind);
			break;
		}
		switch (move) {
		case VT_ENTRY:
			goto entry;
		case VT_TO_USER:
			AT(now, hvt_time_to_user(s));
			vt_log(w, VT_EV_TO_USER, now, 0);
			user = true;
			st = VT_USER;
			vt_state(w, st);
			break;
		case VT_RUN:
			AT(now, hvt_time_run(s));
			vt_log(w, VT_EV_RUN, now, 0);
			user = false;
			st = VT_KERNEL;
			vt_state(w, st);
			break;
		case VT_HALT:
			vt_log(w, VT_EV_HALT_START, w->t, 0);
			halting = true;
			blocked = false;
			halt_start = w->t;
			break;
		case VT_HALTED:
			/* Not blocked: polling succeeded, or woken early. */
			waited = blocked || vt_pick(w, 2);
			AT(now, hvt_time_halted(s, w->t - halt_start, waited));
			vt_log(w, waited ? VT_EV_HALTED_WAITED : VT_EV_HALTED,
			       now, w->t - halt_start);
			if (w->nhalt < ARRAY_SIZE(w->halt)) {
				w->halt[w->nhalt].start = halt_start;
				w->halt[w->nhalt].poll_end =
					blocked ? first_block : w->t;
				w->halt[w->nhalt].end = w->t;
				w->nhalt++;
			}
			halting = false;
			break;
		case VT_PREEMPT:
			p = vt_other(w, false, &pv);
			vt_out(f, true, p, pv, now);
			vt_log(w, VT_EV_PREEMPT, now, p->pid);
			st = VT_RUNNABLE;
			vt_state(w, st);
			w->run_from = w->t;
			w->run_who = p;
			w->run_who_vcpu = pv;
			break;
		case VT_BLOCK:
			if (halting && !blocked)
				first_block = w->t;
			blocked |= halting;
			slept |= !halting && !user;
			p = vt_other(w, true, &pv);
			vt_out(f, false, p, pv, now);
			vt_log(w, VT_EV_BLOCK, now, 0);
			st = user ? VT_SLEEP_USER : VT_SLEEP_KERNEL;
			vt_state(w, st);
			break;
		case VT_WAKEUP:
			AT(now, hvt_time_wakeup(s, f->thread));
			vt_log(w, VT_EV_WAKEUP, now, 0);
			st = VT_RUNNABLE;
			vt_state(w, st);
			w->run_from = w->t;
			w->run_who = NULL;
			break;
		case VT_SWITCH_IN:	/* from blocked: the wake-up unseen */
			p = vt_other(w, true, &pv);
			r = vt_in(f, p, pv, now);
			vt_log(w, VT_EV_SWITCH_IN, now, p->pid);
			if (st != VT_RUNNABLE) {
				w->wrong |= !w->skew && r;
			} else {
				if (!w->run_who && p->pid) {
					w->run_who = p;
					w->run_who_vcpu = pv;
				}
				w->wrong |= !w->skew && r != w->t - w->run_from;
				if (w->run_who && w->t - w->run_from > w->pre_ns) {
					w->pre_ns = w->t - w->run_from;
					w->pre_who = w->run_who;
					w->pre_vcpu = w->run_who_vcpu;
				}
			}
			st = user ? VT_USER : VT_KERNEL;
			vt_state(w, st);
			break;
		}
	}
entry:
	vt_log(w, VT_EV_ENTRY, now, 0);
	/* An interrupt's wait from before the exit, and from within it. */
	from = s->exit_ts + (w->skew ? 0 : vt_pick(w, now - s->exit_ts + 1));
	hvt_time_window(s, s->exit_ts - 7, now, &all);
	hvt_time_window(s, from, now, &win);
	d = vt_entry(f, now);
	vt_model(w, w->t, w->model);
	w->exits++;
	w->split += s->split;
	vt_check(w, d);
	vt_check_windows(w, &all, &win, from, now);
	vt_done(f);
	if ((s->split || vt_sum(s) || s->ksleep || s->sleep_ts ||
	     s->in_user || s->pre_pid || s->pre_ns) && !w->bad++)
		KUNIT_FAIL(w->test, "exit %llu: the reset left state behind",
			   w->exits);
}

#define VT_EXITS	10000

static struct vt_walk *vt_walk_new(struct kunit *test, u64 seed)
{
	struct vt_walk *w = kunit_kzalloc(test, sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	w->test = test;
	w->f = test->priv;
	w->seed = seed;
	w->t = 1000000;
	return w;
}

static void vt_walk_run(struct vt_walk *w)
{
	unsigned int i;

	for (i = 0; i < VT_EXITS; i++)
		vt_walk_exit(w);
	kunit_info(w->test, "%llu exits, %llu split, %llu differ from the model, %llu wrong, %llu waits split exactly; VMM %llu halt %llu runnable %llu other %llu ns\n",
		   w->exits, w->split, w->differ, w->bad, w->windows,
		   w->part[VMM], w->part[HALT], w->part[RUNNABLE],
		   w->part[OTHER]);
	/* The walk went everywhere. */
	for (i = 0; i < ARRAY_SIZE(w->nev); i++)
		KUNIT_EXPECT_GT_MSG(w->test, w->nev[i], 100ULL, "event %s",
				    vt_ev_names[i]);
	KUNIT_EXPECT_GT(w->test, w->split, VT_EXITS / 2ULL);
	KUNIT_EXPECT_LT(w->test, w->split, (u64)VT_EXITS);
	KUNIT_EXPECT_EQ(w->test, w->bad, 0ULL);
}

/*
 * The sequences the split is meant to get exactly: every part and the
 * preemptor are the model's. A halt is never preempted while it polls,
 * nor follows a kernel sleep of the same exit.
 */
static void vt_model_test(struct kunit *test)
{
	struct vt_walk *w = vt_walk_new(test, 0x9e3779b97f4a7c15ULL);

	vt_walk_run(w);
	KUNIT_EXPECT_EQ(test, w->differ, 0ULL);
	/* Most split exits' waits are checked against the model. */
	KUNIT_EXPECT_GT(test, w->windows, w->split / 2);
}

/*
 * Clocks of several CPUs: events read clocks up to 50 us apart. Only
 * the bounds hold: no part and no sum beyond the duration.
 */
static void vt_skew_test(struct kunit *test)
{
	struct vt_walk *w = vt_walk_new(test, 0x2545f4914f6cdd1dULL);

	w->skew = 50000;
	w->poll_preempt = true;
	w->sleep_halt = true;
	vt_walk_run(w);
}

/*
 * Every interleaving, the two below included: the split may differ from
 * the model only their way (halt polling lost to handling, a kernel
 * sleep moved from other to halt).
 */
static void vt_model_halt_edges_test(struct kunit *test)
{
	struct vt_walk *w = vt_walk_new(test, 0xd1b54a32d192ed03ULL);

	w->poll_preempt = true;
	w->sleep_halt = true;
	vt_walk_run(w);
	kunit_info(test, "%llu exits differ from the model in the documented ways\n",
		   w->differ);
}

/*
 * A documented limit (docs/design.md, "Known limits"): expect the value
 * the split gives today, and say what the uapi rules would give. A fix
 * changes both the limit's text and this expectation.
 */
#define VT_EXPECT_LIMIT(test, got, rule, limit_value) do {		\
	u64 __got = (got);						\
									\
	kunit_info(test, "%s: %llu, the rules would say %llu\n", #got,	\
		   __got, (u64)(rule));					\
	KUNIT_EXPECT_EQ_MSG(test, __got, (u64)(limit_value), "%s", #got); \
} while (0)

/*
 * A halt preempted while it polls: the polling before the preemption
 * is halt too, the preemption runnable.
 */
static void vt_halt_poll_preempted_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	/* Polls from 1100, preempted 1300..1800, polling succeeds. */
	AT(1000, hvt_time_exit(s));
	vt_out(f, true, f->hog, false, 1300);
	vt_in(f, f->idle, false, 1800);
	AT(2000, hvt_time_halted(s, 2000 - 1100, false));
	d = vt_entry(f, 2100);
	KUNIT_EXPECT_EQ(test, s->part[RUNNABLE], 500ULL);
	KUNIT_EXPECT_EQ(test, s->part[OTHER], 0ULL);
	KUNIT_EXPECT_EQ(test, s->part[HALT], 200ULL + 200);
	KUNIT_EXPECT_LE(test, vt_sum(s), d);
	vt_done(f);

	/* The same, but it blocks at 12000 after polling again. */
	AT(10000, hvt_time_exit(s));
	vt_out(f, true, f->hog, false, 10300);
	vt_in(f, f->idle, false, 10800);
	vt_out(f, false, f->idle, false, 12000);
	AT(15000, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 15000);
	AT(15100, hvt_time_halted(s, 15100 - 10100, true));
	d = vt_entry(f, 15200);
	KUNIT_EXPECT_EQ(test, s->part[RUNNABLE], 500ULL);
	KUNIT_EXPECT_EQ(test, s->part[OTHER], 0ULL);
	KUNIT_EXPECT_EQ(test, s->part[HALT], 200ULL + 1200 + 3000);
	KUNIT_EXPECT_LE(test, vt_sum(s), d);
}

/*
 * A halt that blocks after a kernel sleep of the same exit: the split
 * remembers only the first sleep since the last halt, so the earlier
 * sleep (other, by the rules) is taken as halt and the halt's polling
 * is lost.
 */
static void vt_halt_after_sleep_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_split *s = f->s;
	u64 d;

	AT(1000, hvt_time_exit(s));
	vt_out(f, false, f->idle, false, 1100);		/* other 500 */
	AT(1600, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 1600);
	/* The halt polls from 1700, blocks at 1900 for 2000. */
	vt_out(f, false, f->idle, false, 1900);
	AT(3900, hvt_time_wakeup(s, f->thread));
	vt_in(f, f->idle, false, 3900);
	AT(4000, hvt_time_halted(s, 4000 - 1700, true));
	d = vt_entry(f, 4100);
	KUNIT_EXPECT_EQ(test, s->part[RUNNABLE], 0ULL);
	VT_EXPECT_LIMIT(test, s->part[HALT], 200 + 2000, 500 + 2000);
	VT_EXPECT_LIMIT(test, s->part[OTHER], 500, 0);
	KUNIT_EXPECT_LE(test, vt_sum(s), d);
}

static struct kunit_case vt_cases[] = {
	KUNIT_CASE(vt_quiet_test),
	KUNIT_CASE(vt_vmm_round_trip_test),
	KUNIT_CASE(vt_vmm_sleeps_test),
	KUNIT_CASE(vt_run_from_other_thread_test),
	KUNIT_CASE(vt_destroyed_test),
	KUNIT_CASE(vt_preempted_test),
	KUNIT_CASE(vt_wakeup_wait_test),
	KUNIT_CASE(vt_halt_blocked_test),
	KUNIT_CASE(vt_halt_polled_test),
	KUNIT_CASE(vt_kernel_sleep_test),
	KUNIT_CASE(vt_unseen_wakeup_test),
	KUNIT_CASE(vt_clock_skew_test),
	KUNIT_CASE_PARAM(vt_trim_test, vt_trim_gen_params),
	KUNIT_CASE(vt_trim_skewed_test),
	KUNIT_CASE(vt_reset_test),
	KUNIT_CASE(vt_guards_test),
	KUNIT_CASE(vt_window_halt_hog_test),
	KUNIT_CASE(vt_window_vmm_test),
	KUNIT_CASE(vt_window_folded_test),
	KUNIT_CASE(vt_model_test),
	KUNIT_CASE(vt_skew_test),
	KUNIT_CASE(vt_halt_poll_preempted_test),
	KUNIT_CASE(vt_halt_after_sleep_test),
	KUNIT_CASE(vt_model_halt_edges_test),
	{}
};

static struct kunit_suite vt_suite = {
	.name = "hvtrace_vcpu_time",
	.init = vt_init,
	.test_cases = vt_cases,
};

kunit_test_suite(vt_suite);
