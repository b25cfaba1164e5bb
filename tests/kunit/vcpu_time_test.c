// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: where an exit's time goes (kmod/vcpu_time.h), the state machine
 * that splits an exit into VMM, halt, runnable and other time (enum
 * hvtrace_part), driven with explicit timestamps the way the probes drive
 * it (probe_kvm.c, probe_sched.c, probe_vcpu_run.c). Scenarios with exact
 * values first, then fixed-seed random walks through the transitions,
 * checked against a timeline model of the rules in uapi hvtrace.h.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "vcpu_time.h"

#define VMM		HVTRACE_PART_VMM
#define HALT		HVTRACE_PART_HALT
#define RUNNABLE	HVTRACE_PART_RUNNABLE
#define OTHER		HVTRACE_PART_OTHER

/* The probes' calls, with their guards (see the probe files). */

/* kvm_exit: the exit in flight starts. */
static void vt_exit(struct hvt_vcpu *v, u64 now)
{
	v->in_exit = true;
	v->exit_ts = now;
}

/*
 * kvm_entry: closes the exit and returns its duration. The caller reads
 * the parts, then vt_done() resets them, as hvt_on_entry() does around
 * its accounting.
 */
static u64 vt_entry(struct hvt_vcpu *v, u64 now)
{
	v->in_exit = false;
	if (now < v->exit_ts)
		v->exit_ts = now;
	if (v->split)
		hvt_time_close(v, now, now - v->exit_ts);
	return now - v->exit_ts;
}

static void vt_done(struct hvt_vcpu *v)
{
	if (v->split)
		hvt_time_reset(v);
}

/* sched_switch, the vCPU thread going out; NEXT takes the CPU. */
static void vt_out(struct hvt_vcpu *v, bool runnable,
		   const struct task_struct *next, bool next_vcpu, u64 now)
{
	if (v->in_exit)
		hvt_time_switch_out(v, runnable, next, next_vcpu, now, 1);
}

/* sched_switch, the vCPU thread coming in after PREV: runnable time. */
static u64 vt_in(struct hvt_vcpu *v, const struct task_struct *prev,
		 bool prev_vcpu, u64 now)
{
	u64 r;

	if (!v->in_exit)
		return 0;
	r = hvt_time_switch_in(v, prev, prev_vcpu, now);
	v->preempted = false;
	return r;
}

static void vt_wakeup(struct hvt_vcpu *v, u64 now)
{
	if (v->in_exit && v->where == HVT_OFF_BLOCKED)
		hvt_time_wakeup(v, now);
}

/* kvm_userspace_exit */
static void vt_to_user(struct hvt_vcpu *v, u64 now)
{
	if (v->in_exit)
		hvt_time_to_user(v, now);
}

/* The kprobe on kvm_arch_vcpu_ioctl_run: KVM_RUN again. */
static void vt_run(struct hvt_vcpu *v, u64 now)
{
	if (v->in_exit && v->in_user)
		hvt_time_from_user(v, now);
}

/* kvm_vcpu_wakeup: a halt of NS ended. */
static void vt_halted(struct hvt_vcpu *v, u64 ns, bool waited, u64 now)
{
	if (v->in_exit)
		hvt_time_halted(v, ns, waited, now);
}

/* A vCPU and the tasks that run around it. */
struct vt_fix {
	struct hvt_vcpu *v;
	struct task_struct *idle;	/* pid 0 */
	struct task_struct *hog;	/* pid 100 */
	struct task_struct *vcpu2;	/* pid 200, another vCPU thread */
	struct task_struct *kworker;	/* pid 300 */
};

static struct task_struct *vt_task(struct kunit *test, pid_t pid,
				   const char *comm)
{
	struct task_struct *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	p->pid = pid;
	strscpy(p->comm, comm, sizeof(p->comm));
	return p;
}

static int vt_init(struct kunit *test)
{
	struct vt_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, f);
	f->v = kunit_kzalloc(test, sizeof(*f->v), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, f->v);
	f->idle = vt_task(test, 0, "swapper/1");
	f->hog = vt_task(test, 100, "hvhog");
	f->vcpu2 = vt_task(test, 200, "CPU 1/KVM");
	f->kworker = vt_task(test, 300, "kworker/1:0");
	test->priv = f;
	return 0;
}

#define VT_EXPECT_PARTS(test, v, vmm, halt, runnable, other) do {	\
	KUNIT_EXPECT_EQ(test, (v)->part[VMM], (u64)(vmm));		\
	KUNIT_EXPECT_EQ(test, (v)->part[HALT], (u64)(halt));		\
	KUNIT_EXPECT_EQ(test, (v)->part[RUNNABLE], (u64)(runnable));	\
	KUNIT_EXPECT_EQ(test, (v)->part[OTHER], (u64)(other));	\
} while (0)

static u64 vt_sum(const struct hvt_vcpu *v)
{
	u64 sum = 0;
	int i;

	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += v->part[i];
	return sum;
}

/* Nothing happens to the common exit: no split, nothing to close. */
static void vt_quiet_test(struct kunit *test)
{
	struct hvt_vcpu *v = ((struct vt_fix *)test->priv)->v;

	vt_exit(v, 1000);
	KUNIT_EXPECT_EQ(test, vt_entry(v, 5000), 4000ULL);
	KUNIT_EXPECT_FALSE(test, v->split);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, v->where, (u8)HVT_ON_CPU);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 0U);
}

/* The VMM has the exit from the userspace exit to KVM_RUN. */
static void vt_vmm_round_trip_test(struct kunit *test)
{
	struct hvt_vcpu *v = ((struct vt_fix *)test->priv)->v;
	u64 d;

	vt_exit(v, 1000);
	vt_to_user(v, 1500);
	KUNIT_EXPECT_TRUE(test, v->split);
	KUNIT_EXPECT_TRUE(test, v->in_user);
	vt_run(v, 4500);
	KUNIT_EXPECT_FALSE(test, v->in_user);
	d = vt_entry(v, 5000);
	KUNIT_EXPECT_EQ(test, d, 4000ULL);
	VT_EXPECT_PARTS(test, v, 3000, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 1000ULL);	/* handling */
	vt_done(v);

	/* Without the KVM_RUN kprobe the VMM's time runs to the entry. */
	vt_exit(v, 10000);
	vt_to_user(v, 10500);
	d = vt_entry(v, 14000);
	VT_EXPECT_PARTS(test, v, 3500, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 500ULL);
}

/*
 * The VMM blocks in userspace: the blocked time is the VMM's, the wait
 * for a CPU after the wake-up runnable, and no preemption inside KVM.
 */
static void vt_vmm_sleeps_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_to_user(v, 1500);
	vt_out(v, false, f->idle, false, 2000);		/* VMM 500 on CPU */
	KUNIT_EXPECT_EQ(test, v->where, (u8)HVT_OFF_BLOCKED);
	KUNIT_EXPECT_FALSE(test, v->preempted);
	KUNIT_EXPECT_EQ(test, v->sleep_ts, 0ULL);	/* not a kernel sleep */
	vt_wakeup(v, 6000);				/* VMM 4000 blocked */
	KUNIT_EXPECT_EQ(test, v->where, (u8)HVT_OFF_RUNNABLE);
	/* The idle task ran before: nobody is noted. */
	KUNIT_EXPECT_EQ(test, vt_in(v, f->idle, false, 6500), 500ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 0U);
	KUNIT_EXPECT_EQ(test, v->pre_ns, 0ULL);
	vt_run(v, 7000);				/* VMM 500 on CPU */
	d = vt_entry(v, 7200);
	KUNIT_EXPECT_EQ(test, d, 6200ULL);
	VT_EXPECT_PARTS(test, v, 5000, 0, 500, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 700ULL);
	vt_done(v);

	/* Preempted in userspace: runnable, but not inside KVM. */
	vt_exit(v, 10000);
	vt_to_user(v, 10100);
	vt_out(v, true, f->hog, false, 10300);		/* VMM 200 */
	KUNIT_EXPECT_FALSE(test, v->preempted);
	KUNIT_EXPECT_EQ(test, v->off_pid, 100U);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->idle, false, 11300), 1000ULL);
	d = vt_entry(v, 11500);				/* VMM 200 more */
	VT_EXPECT_PARTS(test, v, 400, 0, 1000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 100ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 100U);
	KUNIT_EXPECT_EQ(test, v->pre_ns, 1000ULL);
}

/*
 * A second VMM thread calls KVM_RUN while the thread that got the exit
 * blocks in userspace: the VMM has the exit until that KVM_RUN, and the
 * blocked thread's stretch ends there (hvt_time_settle()).
 */
static void vt_run_from_other_thread_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_to_user(v, 1500);
	vt_out(v, false, f->idle, false, 2000);		/* VMM 500 on CPU */
	vt_run(v, 5000);				/* VMM 3000 blocked */
	KUNIT_EXPECT_EQ(test, v->where, (u8)HVT_ON_CPU);
	d = vt_entry(v, 6000);
	KUNIT_EXPECT_EQ(test, d, 5000ULL);
	VT_EXPECT_PARTS(test, v, 3500, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 1500ULL);	/* handling */
	vt_done(v);

	/* The old thread was preempted in userspace: runnable to KVM_RUN. */
	vt_exit(v, 10000);
	vt_to_user(v, 10500);
	vt_out(v, true, f->hog, false, 11000);		/* VMM 500 */
	vt_run(v, 13000);				/* runnable 2000 */
	d = vt_entry(v, 13500);
	VT_EXPECT_PARTS(test, v, 500, 0, 2000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 1000ULL);
}

/* KVM destroys the vCPU of an exit that never re-enters. */
static u64 vt_destroyed(struct hvt_vcpu *v, u64 now)
{
	v->in_exit = false;
	v->split = true;
	hvt_time_close(v, now, now - v->exit_ts);
	return now - v->exit_ts;
}

/*
 * The VMM quits with the vCPU's last exit in hand: its time runs to the
 * destruction, as VMM while the thread is in userspace or blocked there,
 * runnable while it waits for a CPU, whoever destroys it.
 */
static void vt_destroyed_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	/* Blocked in the VMM (or dead) since 2000. */
	vt_exit(v, 1000);
	vt_to_user(v, 1500);
	vt_out(v, false, f->idle, false, 2000);
	d = vt_destroyed(v, 9000);
	KUNIT_EXPECT_EQ(test, d, 8000ULL);
	VT_EXPECT_PARTS(test, v, 7500, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 500ULL);
	vt_done(v);

	/* Preempted in the VMM. */
	vt_exit(v, 10000);
	vt_to_user(v, 10500);
	vt_out(v, true, f->hog, false, 11000);
	d = vt_destroyed(v, 14000);
	VT_EXPECT_PARTS(test, v, 500, 0, 3000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 500ULL);
	vt_done(v);

	/* On CPU in the VMM: the destroying thread is the vCPU thread. */
	vt_exit(v, 20000);
	vt_to_user(v, 20400);
	d = vt_destroyed(v, 21000);
	VT_EXPECT_PARTS(test, v, 600, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 400ULL);
	vt_done(v);

	/* Nothing happened to it: all handling. */
	vt_exit(v, 30000);
	d = vt_destroyed(v, 30700);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d, 700ULL);
}

/*
 * Preempted inside KVM: runnable for the time off CPU, who took the CPU
 * noted at the switch-out, the longest stretch kept.
 */
static void vt_preempted_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_out(v, true, f->vcpu2, true, 2000);
	KUNIT_EXPECT_TRUE(test, v->split);
	KUNIT_EXPECT_TRUE(test, v->preempted);
	KUNIT_EXPECT_EQ(test, v->where, (u8)HVT_OFF_RUNNABLE);
	KUNIT_EXPECT_EQ(test, v->off_ts, 2000ULL);
	KUNIT_EXPECT_EQ(test, v->cpu_off, (u16)1);
	KUNIT_EXPECT_EQ(test, v->off_pid, 200U);
	KUNIT_EXPECT_STREQ(test, v->off_comm, "CPU 1/KVM");
	KUNIT_EXPECT_TRUE(test, v->off_vcpu);
	/* PREV (the hog) ran last, but the preemptor was noted already. */
	KUNIT_EXPECT_EQ(test, vt_in(v, f->hog, false, 5000), 3000ULL);
	KUNIT_EXPECT_FALSE(test, v->preempted);
	KUNIT_EXPECT_EQ(test, v->on_ts, 5000ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 200U);
	KUNIT_EXPECT_STREQ(test, v->pre_comm, "CPU 1/KVM");
	KUNIT_EXPECT_EQ(test, v->pre_flags, (u16)HVTRACE_EVF_PREEMPT_VCPU);
	KUNIT_EXPECT_EQ(test, v->pre_ns, 3000ULL);

	/* A shorter stretch does not replace it... */
	vt_out(v, true, f->hog, false, 6000);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->idle, false, 7000), 1000ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 200U);
	KUNIT_EXPECT_EQ(test, v->pre_ns, 3000ULL);
	/* ... nor one as long ... */
	vt_out(v, true, f->hog, false, 8000);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->idle, false, 11000), 3000ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 200U);
	/* ... a longer one does. */
	vt_out(v, true, f->kworker, false, 12000);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->hog, false, 16000), 4000ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 300U);
	KUNIT_EXPECT_STREQ(test, v->pre_comm, "kworker/1:0");
	KUNIT_EXPECT_EQ(test, v->pre_flags, (u16)0);
	KUNIT_EXPECT_EQ(test, v->pre_ns, 4000ULL);

	d = vt_entry(v, 17000);
	KUNIT_EXPECT_EQ(test, d, 16000ULL);
	VT_EXPECT_PARTS(test, v, 0, 0, 11000, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 5000ULL);
}

/*
 * Woken after a kernel sleep: the wait for a CPU notes who ran before
 * the switch-in, unless it was the idle task.
 */
static void vt_wakeup_wait_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_out(v, false, f->idle, false, 2000);
	KUNIT_EXPECT_FALSE(test, v->preempted);
	KUNIT_EXPECT_EQ(test, v->off_pid, 0U);
	KUNIT_EXPECT_EQ(test, v->sleep_ts, 2000ULL);
	vt_wakeup(v, 5000);
	KUNIT_EXPECT_EQ(test, v->ksleep, 3000ULL);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->idle, false, 5600), 600ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 0U);
	d = vt_entry(v, 6000);
	VT_EXPECT_PARTS(test, v, 0, 0, 600, 3000);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 1400ULL);
	vt_done(v);

	vt_exit(v, 10000);
	vt_out(v, false, f->idle, false, 10100);
	vt_wakeup(v, 10200);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->vcpu2, true, 10700), 500ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 200U);
	KUNIT_EXPECT_EQ(test, v->pre_flags, (u16)HVTRACE_EVF_PREEMPT_VCPU);
	KUNIT_EXPECT_EQ(test, v->pre_ns, 500ULL);
	d = vt_entry(v, 11000);
	VT_EXPECT_PARTS(test, v, 0, 0, 500, 100);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 400ULL);
}

/*
 * A halt that blocks: its polling on CPU and its blocked time are the
 * halt; the wait for a CPU after the wake-up stays runnable.
 */
static void vt_halt_blocked_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	v->on_ts = 400;			/* switched in before the exit */
	vt_exit(v, 1000);
	/* KVM's halt starts at 1200 and polls until 1500. */
	vt_out(v, false, f->idle, false, 1500);
	KUNIT_EXPECT_EQ(test, v->sleep_ts, 1500ULL);
	vt_wakeup(v, 9000);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->hog, false, 9400), 400ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 100U);
	vt_halted(v, 9500 - 1200, true, 9500);
	KUNIT_EXPECT_EQ(test, v->sleep_ts, 0ULL);
	KUNIT_EXPECT_EQ(test, v->ksleep, 0ULL);
	VT_EXPECT_PARTS(test, v, 0, 300 + 7500, 400, 0);
	d = vt_entry(v, 9800);
	KUNIT_EXPECT_EQ(test, d, 8800ULL);
	VT_EXPECT_PARTS(test, v, 0, 7800, 400, 0);
	/* 200 before the halt, 100 after the switch-in, 300 after it. */
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 600ULL);
	vt_done(v);

	/*
	 * Woken spuriously, back to sleep: both sleeps are the halt, the
	 * check between them handling.
	 */
	vt_exit(v, 20000);
	vt_out(v, false, f->idle, false, 20100);	/* halt polled 0 */
	vt_wakeup(v, 21000);
	vt_in(v, f->idle, false, 21050);
	vt_out(v, false, f->idle, false, 21060);
	vt_wakeup(v, 23000);
	vt_in(v, f->idle, false, 23020);
	vt_halted(v, 23030 - 20100, true, 23030);
	d = vt_entry(v, 23100);
	VT_EXPECT_PARTS(test, v, 0, 900 + 1940, 50 + 20, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 3100ULL - 2910);
}

/*
 * A halt whose polling succeeded: on CPU throughout, the halt is NS, up
 * to the time on CPU since the exit or the switch-in.
 */
static void vt_halt_polled_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	v->on_ts = 500;			/* stale: before the exit */
	vt_exit(v, 1000);
	vt_halted(v, 1500, false, 3000);
	KUNIT_EXPECT_TRUE(test, v->split);
	d = vt_entry(v, 3200);
	VT_EXPECT_PARTS(test, v, 0, 1500, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 700ULL);
	vt_done(v);

	/* NS longer than the exit (two clocks): the exit bounds it. */
	vt_exit(v, 10000);
	vt_halted(v, 9000, false, 12000);
	d = vt_entry(v, 12100);
	VT_EXPECT_PARTS(test, v, 0, 2000, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 100ULL);
	vt_done(v);

	/* Preempted before the halt, which starts at the switch-in. */
	vt_exit(v, 20000);
	vt_out(v, true, f->hog, false, 20100);
	vt_in(v, f->idle, false, 20600);
	vt_halted(v, 400, false, 21000);
	d = vt_entry(v, 21100);
	VT_EXPECT_PARTS(test, v, 0, 400, 500, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 200ULL);
	vt_done(v);

	/* Woken before it got off CPU: waited, but on CPU throughout. */
	vt_exit(v, 30000);
	vt_halted(v, 800, true, 31000);
	d = vt_entry(v, 31050);
	VT_EXPECT_PARTS(test, v, 0, 800, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 250ULL);
}

/* A kernel sleep that is no halt is other; a halt after it is apart. */
static void vt_kernel_sleep_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_out(v, false, f->idle, false, 2000);
	vt_wakeup(v, 5000);
	vt_in(v, f->idle, false, 5000);
	KUNIT_EXPECT_EQ(test, v->ksleep, 3000ULL);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 0);	/* other only at the close */
	d = vt_entry(v, 6000);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 3000);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 2000ULL);
	vt_done(v);

	/* A halt that polled successfully leaves an earlier sleep other. */
	vt_exit(v, 10000);
	vt_out(v, false, f->idle, false, 10100);
	vt_wakeup(v, 10600);
	vt_in(v, f->idle, false, 10700);
	vt_halted(v, 300, false, 11100);
	d = vt_entry(v, 11200);
	VT_EXPECT_PARTS(test, v, 0, 300, 100, 500);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 300ULL);
	vt_done(v);

	/* A sleep after a halt that blocked is other again. */
	vt_exit(v, 20000);
	vt_out(v, false, f->idle, false, 20200);	/* halt from 20100 */
	vt_wakeup(v, 21200);
	vt_in(v, f->idle, false, 21200);
	vt_halted(v, 1200, true, 21300);		/* 100 + 1000 */
	vt_out(v, false, f->idle, false, 21400);
	vt_wakeup(v, 21900);
	vt_in(v, f->idle, false, 21900);
	d = vt_entry(v, 22000);
	VT_EXPECT_PARTS(test, v, 0, 1100, 0, 500);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 400ULL);
}

/* The wake-up went unseen: the switch-in ends the blocked time. */
static void vt_unseen_wakeup_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_out(v, false, f->idle, false, 2000);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->hog, false, 6000), 0ULL);
	KUNIT_EXPECT_EQ(test, v->where, (u8)HVT_ON_CPU);
	KUNIT_EXPECT_EQ(test, v->ksleep, 4000ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 0U);	/* no runnable stretch */
	d = vt_entry(v, 6500);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 4000);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 1500ULL);
	vt_done(v);

	/* In userspace: the VMM's. */
	vt_exit(v, 10000);
	vt_to_user(v, 10100);
	vt_out(v, false, f->idle, false, 10300);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->hog, false, 12300), 0ULL);
	KUNIT_EXPECT_EQ(test, v->user_ts, 12300ULL);
	vt_run(v, 12400);
	d = vt_entry(v, 12500);
	VT_EXPECT_PARTS(test, v, 200 + 2000 + 100, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 200ULL);
}

/* An interval whose end reads earlier than its start is empty. */
static void vt_clock_skew_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;

	KUNIT_EXPECT_EQ(test, hvt_since(10, 5), 5ULL);
	KUNIT_EXPECT_EQ(test, hvt_since(5, 10), 0ULL);
	KUNIT_EXPECT_EQ(test, hvt_since(7, 7), 0ULL);

	vt_exit(v, 1000);
	vt_to_user(v, 3000);
	vt_run(v, 2900);			/* VMM 0 */
	KUNIT_EXPECT_EQ(test, v->part[VMM], 0ULL);
	vt_out(v, false, f->idle, false, 5000);
	vt_wakeup(v, 4900);			/* another CPU, behind */
	KUNIT_EXPECT_EQ(test, v->ksleep, 0ULL);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->hog, false, 4800), 0ULL);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 0U);	/* empty: not the longest */
	vt_out(v, true, f->hog, false, 6000);
	KUNIT_EXPECT_EQ(test, vt_in(v, f->idle, false, 5990), 0ULL);
	/* A halt read on a clock behind the switch-in's: empty. */
	vt_halted(v, 50, false, 5980);
	KUNIT_EXPECT_EQ(test, v->part[HALT], 0ULL);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 0);
	/* The entry on a CPU behind the exit's: the exit took no time. */
	KUNIT_EXPECT_EQ(test, vt_entry(v, 900), 0ULL);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, v->exit_ts, 900ULL);
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
	struct hvt_vcpu *v = ((struct vt_fix *)test->priv)->v;
	u64 sum;
	int i;

	v->split = true;
	v->part[VMM] = 1000;
	v->part[HALT] = 1000;
	v->part[RUNNABLE] = 1000;
	v->ksleep = 1000;
	hvt_time_close(v, 50000, c->d);
	sum = vt_sum(v);
	KUNIT_EXPECT_EQ(test, sum, min(c->d, 4000ULL));
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		KUNIT_EXPECT_EQ_MSG(test, v->part[i], c->want[i], "part %d", i);
}

/*
 * The same, reached through the probes: the VMM's sleep is measured
 * from a wake-up on a CPU whose clock is ahead, and the entry's CPU is
 * behind.
 */
static void vt_trim_skewed_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_to_user(v, 1100);
	vt_out(v, false, f->idle, false, 1200);		/* VMM 100 */
	vt_wakeup(v, 5000);				/* VMM 3800 */
	vt_in(v, f->hog, false, 5500);			/* runnable 500 */
	vt_run(v, 5600);				/* VMM 100 */
	VT_EXPECT_PARTS(test, v, 4000, 0, 500, 0);
	d = vt_entry(v, 3000);
	KUNIT_EXPECT_EQ(test, d, 2000ULL);
	VT_EXPECT_PARTS(test, v, 2000, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, vt_sum(v), d);
	vt_done(v);

	/* Still in userspace at the close, which ends the VMM's time. */
	vt_exit(v, 10000);
	vt_out(v, true, f->hog, false, 10100);
	vt_in(v, f->idle, false, 12100);		/* runnable 2000 */
	vt_to_user(v, 12200);
	d = vt_entry(v, 11000);				/* VMM 0 */
	KUNIT_EXPECT_EQ(test, d, 1000ULL);
	VT_EXPECT_PARTS(test, v, 0, 0, 1000, 0);
	KUNIT_EXPECT_FALSE(test, v->in_user);
}

/* After the exit is accounted, the next one starts with nothing. */
static void vt_reset_test(struct kunit *test)
{
	struct vt_fix *f = test->priv;
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_out(v, true, f->hog, false, 1100);
	vt_in(v, f->idle, false, 1600);
	vt_out(v, false, f->idle, false, 1700);		/* sleep_ts */
	vt_wakeup(v, 2700);				/* ksleep */
	vt_in(v, f->idle, false, 2800);
	vt_to_user(v, 2900);				/* in_user */
	vt_out(v, true, f->kworker, false, 3000);
	KUNIT_EXPECT_TRUE(test, v->sleep_ts != 0);
	KUNIT_EXPECT_TRUE(test, v->ksleep != 0);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 100U);
	vt_in(v, f->hog, false, 3400);
	KUNIT_EXPECT_EQ(test, vt_entry(v, 3500), 2500ULL);
	v->preempted = true;	/* as a preemption not yet switched in */
	vt_done(v);
	VT_EXPECT_PARTS(test, v, 0, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, v->ksleep, 0ULL);
	KUNIT_EXPECT_EQ(test, v->sleep_ts, 0ULL);
	KUNIT_EXPECT_FALSE(test, v->in_user);
	KUNIT_EXPECT_FALSE(test, v->preempted);
	KUNIT_EXPECT_EQ(test, v->pre_pid, 0U);
	KUNIT_EXPECT_EQ(test, v->pre_ns, 0ULL);
	KUNIT_EXPECT_EQ(test, v->pre_flags, (u16)0);
	KUNIT_EXPECT_FALSE(test, v->split);

	/* The next exit, a quiet one, then one that halts after polling. */
	vt_exit(v, 10000);
	KUNIT_EXPECT_EQ(test, vt_entry(v, 10500), 500ULL);
	KUNIT_EXPECT_FALSE(test, v->split);
	vt_done(v);
	vt_exit(v, 20000);
	vt_out(v, false, f->idle, false, 20400);	/* halt from 20100 */
	vt_wakeup(v, 21000);
	vt_in(v, f->idle, false, 21000);
	vt_halted(v, 21000 - 20100, true, 21000);
	d = vt_entry(v, 21000);
	VT_EXPECT_PARTS(test, v, 0, 900, 0, 0);
	KUNIT_EXPECT_EQ(test, d - vt_sum(v), 100ULL);
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

/* The model's parts of the exit that ends at END. */
static void vt_model(const struct vt_walk *w, u64 end,
		     u64 part[HVTRACE_NR_PARTS])
{
	unsigned int i, j;
	u64 a, b, in;

	memset(part, 0, sizeof(u64) * HVTRACE_NR_PARTS);
	for (i = 0; i < w->nseg; i++) {
		a = w->seg[i].from;
		b = i + 1 < w->nseg ? w->seg[i + 1].from : end;
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
	const struct hvt_vcpu *v = w->f->v;

	kunit_info(w->test, "%s: exit %llu, d %llu\n", what, w->exits, d);
	kunit_info(w->test, "  got   VMM %llu halt %llu runnable %llu other %llu, preemptor %u for %llu\n",
		   v->part[VMM], v->part[HALT], v->part[RUNNABLE],
		   v->part[OTHER], v->pre_pid, v->pre_ns);
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
	const struct hvt_vcpu *v = w->f->v;
	const u64 *m = w->model;
	bool bad = false, differ = false, pre = false;
	u64 sum = 0;
	int i;

	for (i = 0; i < HVTRACE_NR_PARTS; i++) {
		sum += v->part[i];
		w->part[i] += v->part[i];
		bad |= v->part[i] > d;
		differ |= v->part[i] != m[i];
	}
	bad |= sum > d || (!v->split && sum) || w->wrong;
	if (!w->skew) {
		pre = v->pre_ns != w->pre_ns ||
		      v->pre_pid != (w->pre_who ? (u32)w->pre_who->pid : 0);
		if (w->pre_who)
			pre |= v->pre_flags != (w->pre_vcpu ?
					HVTRACE_EVF_PREEMPT_VCPU : 0) ||
			       strcmp(v->pre_comm, w->pre_who->comm);
		bad |= pre || (differ &&
			       (v->part[VMM] != m[VMM] ||
				v->part[RUNNABLE] != m[RUNNABLE] ||
				v->part[OTHER] > m[OTHER] ||
				v->part[HALT] + v->part[OTHER] >
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
	struct hvt_vcpu *v = w->f->v;
	bool kprobe = vt_pick(w, 4) != 0, user = false, halting = false;
	bool blocked = false, slept = false, waited;
	u64 halt_start = 0, first_block = 0;
	unsigned int steps = 0;
	struct task_struct *p;
	u8 st = VT_KERNEL, move;
	bool pv, wind;
	u64 now, d, r;

	w->nseg = 0;
	w->nhalt = 0;
	w->nlog = 0;
	w->pre_ns = 0;
	w->pre_who = NULL;
	w->wrong = false;
	w->t += vt_gap(w);
	now = vt_clock(w);
	vt_exit(v, now);
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
			vt_to_user(v, now);
			vt_log(w, VT_EV_TO_USER, now, 0);
			user = true;
			st = VT_USER;
			vt_state(w, st);
			break;
		case VT_RUN:
			vt_run(v, now);
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
			vt_halted(v, w->t - halt_start, waited, now);
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
			vt_out(v, true, p, pv, now);
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
			vt_out(v, false, p, pv, now);
			vt_log(w, VT_EV_BLOCK, now, 0);
			st = user ? VT_SLEEP_USER : VT_SLEEP_KERNEL;
			vt_state(w, st);
			break;
		case VT_WAKEUP:
			vt_wakeup(v, now);
			vt_log(w, VT_EV_WAKEUP, now, 0);
			st = VT_RUNNABLE;
			vt_state(w, st);
			w->run_from = w->t;
			w->run_who = NULL;
			break;
		case VT_SWITCH_IN:	/* from blocked: the wake-up unseen */
			p = vt_other(w, true, &pv);
			r = vt_in(v, p, pv, now);
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
	d = vt_entry(v, now);
	vt_model(w, w->t, w->model);
	w->exits++;
	w->split += v->split;
	vt_check(w, d);
	vt_done(v);
	if ((v->split || vt_sum(v) || v->ksleep || v->sleep_ts ||
	     v->in_user || v->pre_pid || v->pre_ns) && !w->bad++)
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
	kunit_info(w->test, "%llu exits, %llu split, %llu differ from the model, %llu wrong; VMM %llu halt %llu runnable %llu other %llu ns\n",
		   w->exits, w->split, w->differ, w->bad, w->part[VMM],
		   w->part[HALT], w->part[RUNNABLE], w->part[OTHER]);
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
	struct hvt_vcpu *v = f->v;
	u64 d;

	/* Polls from 1100, preempted 1300..1800, polling succeeds. */
	vt_exit(v, 1000);
	vt_out(v, true, f->hog, false, 1300);
	vt_in(v, f->idle, false, 1800);
	vt_halted(v, 2000 - 1100, false, 2000);
	d = vt_entry(v, 2100);
	KUNIT_EXPECT_EQ(test, v->part[RUNNABLE], 500ULL);
	KUNIT_EXPECT_EQ(test, v->part[OTHER], 0ULL);
	KUNIT_EXPECT_EQ(test, v->part[HALT], 200ULL + 200);
	KUNIT_EXPECT_LE(test, vt_sum(v), d);
	vt_done(v);

	/* The same, but it blocks at 12000 after polling again. */
	vt_exit(v, 10000);
	vt_out(v, true, f->hog, false, 10300);
	vt_in(v, f->idle, false, 10800);
	vt_out(v, false, f->idle, false, 12000);
	vt_wakeup(v, 15000);
	vt_in(v, f->idle, false, 15000);
	vt_halted(v, 15100 - 10100, true, 15100);
	d = vt_entry(v, 15200);
	KUNIT_EXPECT_EQ(test, v->part[RUNNABLE], 500ULL);
	KUNIT_EXPECT_EQ(test, v->part[OTHER], 0ULL);
	KUNIT_EXPECT_EQ(test, v->part[HALT], 200ULL + 1200 + 3000);
	KUNIT_EXPECT_LE(test, vt_sum(v), d);
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
	struct hvt_vcpu *v = f->v;
	u64 d;

	vt_exit(v, 1000);
	vt_out(v, false, f->idle, false, 1100);		/* other 500 */
	vt_wakeup(v, 1600);
	vt_in(v, f->idle, false, 1600);
	/* The halt polls from 1700, blocks at 1900 for 2000. */
	vt_out(v, false, f->idle, false, 1900);
	vt_wakeup(v, 3900);
	vt_in(v, f->idle, false, 3900);
	vt_halted(v, 4000 - 1700, true, 4000);
	d = vt_entry(v, 4100);
	KUNIT_EXPECT_EQ(test, v->part[RUNNABLE], 0ULL);
	VT_EXPECT_LIMIT(test, v->part[HALT], 200 + 2000, 500 + 2000);
	VT_EXPECT_LIMIT(test, v->part[OTHER], 500, 0);
	KUNIT_EXPECT_LE(test, vt_sum(v), d);
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
