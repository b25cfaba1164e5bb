/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an exit's time goes: the vCPU thread's state between its exit
 * and its next entry (struct hvt_split, in the vCPU's slot), advanced by
 * one entry point per event. Each entry point checks its own guards (an
 * exit in flight, the thread the event is about, where that thread is),
 * so a probe is a lookup, one call and its own accounting; KUnit drives
 * the same calls (tests/kunit/vcpu_time_test.c).
 *
 * An exit that does everything, in order (each stretch: what the thread
 * does, and [the part it lands in]; handling is the rest):
 *
 * exit    to VMM  KVM_RUN    halt    block   wake-up     in     halted   entry
 * (1)      (2)      (3)      (4)      (5)      (6)      (7)      (8)      (9)
 *  |--------|========|--------|::::::::|########|........|--------|--------|
 *   handling   VMM    handling polling  blocked  runnable      handling
 *             [VMM]             [HALT]   ksleep [RUNNABLE]
 *                                       -> [HALT] at (8)
 *                                          else [OTHER]
 *
 *  (1) kvm_exit                probe_kvm.c        hvt_time_exit()
 *  (2) kvm_userspace_exit      probe_vcpu_run.c   hvt_time_to_user()
 *  (3) KVM_RUN (kprobe)        probe_vcpu_run.c   hvt_time_run()
 *  (4) KVM's halt starts: no probe; (8) finds it from the halt's length
 *  (5) sched_switch, out       probe_sched.c      hvt_time_switch_out()
 *  (6) sched_wakeup            probe_sched.c      hvt_time_wakeup()
 *  (7) sched_switch, in        probe_sched.c      hvt_time_switch_in()
 *  (8) kvm_vcpu_wakeup         probe_vcpu_run.c   hvt_time_halted()
 *  (9) kvm_entry               probe_kvm.c        hvt_time_entry()
 *      or KVM destroys the vCPU: probe_destroy.c, hvt_time_destroyed()
 *
 * Any stretch may be cut by a switch-out (5): off CPU and runnable
 * (preempted, or yielding) until the switch-in (7) is [RUNNABLE],
 * wherever it happens. Blocked is [VMM] in userspace, between (2) and
 * (3); in the kernel it is a sleep (ksleep) that (8) makes [HALT] when
 * it ends a halt that blocked, and the entry makes [OTHER]. On CPU, the
 * thread is [VMM] in userspace, and handling in the kernel but for a
 * halt's polling, from (4) to its first block (or to (8)).
 *
 * Where the thread is (`where`), and what moves it:
 *
 *              switch-out, runnable (preempted, or yielding)
 *      +-----------------------------------------------------------+
 *      |                                                           v
 *    ON_CPU --switch-out, blocked--> OFF_BLOCKED --wake-up--> OFF_RUNNABLE
 *      ^                                  |                        |
 *      +----------------------------------+------------------------+
 *       switch-in; or hvt_time_settle(): KVM_RUN from another thread,
 *       the destruction, the entry
 *
 * Handling is never accumulated: it is the duration less the parts, so
 * the parts add up by construction, and an exit nothing happened to (the
 * common case) costs one flag test here: `split` stays false.
 *
 * Times are local_clock()'s of the CPU each probe runs on (hvt_clock(),
 * clock.h), read once the guards pass (hvt_time_now()); sched_switch
 * reads it once for both of its tasks, whenever either is a vCPU
 * thread, and passes it in. An interval whose end reads earlier than
 * its start (clocks of two CPUs) is empty. Fields that `stat --vcpus` reads from another CPU are
 * written with WRITE_ONCE.
 */
#ifndef _HVT_VCPU_TIME_H
#define _HVT_VCPU_TIME_H

#include <linux/atomic.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/string.h>
#include <linux/types.h>
#include <uapi/linux/hvtrace.h>

#include "bench.h"
#include "compat/task.h"

enum hvt_where {
	HVT_ON_CPU,
	HVT_OFF_BLOCKED,	/* waits for a wake-up */
	HVT_OFF_RUNNABLE,	/* preempted, or woken and waiting for a CPU */
};

/* Off-CPU stretches a vCPU remembers, to tell a halt's polling. */
#define HVT_GAPS		4

/*
 * The parts an exit credited, as stretches of time, so that a window of
 * the exit (an interrupt's wait, from its raise: hvt_time_window()) gets
 * its own split. A kernel sleep is HVT_KSLEEP until a halt's end makes it
 * HALT (else it is OTHER). The last HVT_STRETCHES are kept apart; older
 * ones are folded into one per part, which ends at the latest of them.
 */
#define HVT_KSLEEP		HVTRACE_NR_PARTS
#define HVT_STRETCHES		8

struct hvt_stretch {
	u64 start;
	u64 end;
	u64 ns;			/* at most end - start: polling less its gaps */
	u8 part;		/* HVTRACE_PART_* or HVT_KSLEEP */
	/* RUNNABLE: who ran instead (pid 0: nobody known). */
	bool vcpu;
	u32 pid;
	char comm[TASK_COMM_LEN];
};

/*
 * The split of a vCPU's exit in flight. Writers: the vCPU thread's own
 * probes, and the scheduler's probes about that thread between
 * hvt_split_enter() and hvt_split_leave(); see hvt_split_own() for a
 * change of thread. The fields every exit touches come first.
 */
struct hvt_split {
	bool in_exit;		/* kvm_exit seen, kvm_entry not yet */
	u8 where;		/* enum hvt_where */
	bool in_user;		/* the VMM has the exit (KVM_RUN returned) */
	/* Next to each other: a switch-out sets one, clears the other. */
	bool split;		/* something happened: the parts hold some */
	bool preempted;		/* off CPU by preemption inside KVM */
	u16 cpu_off;		/* switched out there */
	bool queued;		/* a waiter in cpu_off's runners (runners.h) */
	/* Scheduler probes about `task` running (they may overlap). */
	atomic_t busy;
	u64 exit_ts;		/* the exit's start */
	struct task_struct *task;	/* the vCPU thread */
	u16 pre_flags;		/* HVTRACE_EVF_PREEMPT_VCPU */
	u32 pre_pid;		/* longest runnable stretch: who ran */
	u64 pre_ns;		/* and how long */
	char pre_comm[TASK_COMM_LEN];
	u64 part[HVTRACE_NR_PARTS];
	u64 ksleep;		/* blocked in the kernel: halt or other */
	u64 user_ts;		/* back in the VMM since */
	u64 on_ts;		/* switched in */
	u64 off_ts;		/* switched out */
	u64 run_ts;		/* runnable since */
	u64 sleep_ts;		/* first kernel sleep since the last halt */
	/* The last off-CPU stretches, switch-out to switch-in. */
	u64 gap_off[HVT_GAPS];
	u64 gap_on[HVT_GAPS];
	u8 gap_next;
	/* Who took the CPU at the switch-out, for a preemption. */
	u32 off_pid;
	bool off_vcpu;
	char off_comm[TASK_COMM_LEN];
	/* The parts as stretches (hvt_time_window()); nr counts them all. */
	struct hvt_stretch log[HVT_STRETCHES];
	u32 nr_log;
	u64 folded[HVTRACE_NR_PARTS + 1];
	u64 folded_end;
};

/*
 * The probes' clock. KUnit's is the test's own (vcpu_time_test.c), so
 * the tests drive these very entry points with exact times.
 */
#ifdef HVT_KUNIT
extern u64 hvt_time_test_now;

static inline u64 hvt_time_now(void)
{
	return READ_ONCE(hvt_time_test_now);
}
#else
#include "clock.h"

static inline u64 hvt_time_now(void)
{
	if (hvt_bench_skip(HVT_BENCH_RDTSC))
		return rdtsc();
	return hvt_clock();
}
#endif

static inline u64 hvt_since(u64 now, u64 ts)
{
	return now > ts ? now - ts : 0;
}

/*
 * Who drives the split. A scheduler probe about task P acts on P's vCPU
 * between hvt_split_enter() (false: the split is no longer P's, leave
 * it) and hvt_split_leave(). Making another task the split's (a second
 * VMM thread runs the vCPU, or KVM destroys it) waits out such a probe:
 * each side stores, then looks at the other's store, with a full barrier
 * between, so at least one sees the other. The probes hold the CPU with
 * interrupts off: the wait is a few hundred nanoseconds at most, and
 * only on a handover.
 */
static inline bool hvt_split_enter(struct hvt_split *s,
				   const struct task_struct *p)
{
	/* A count: probes about the old and the new thread may overlap. */
	atomic_inc(&s->busy);
	smp_mb__after_atomic();	/* pairs with hvt_split_own() */
	if (likely(READ_ONCE(s->task) == p))
		return true;
	/* Our stores to S are done before a waiting owner goes on. */
	smp_mb__before_atomic();
	atomic_dec(&s->busy);
	return false;
}

static inline void hvt_split_leave(struct hvt_split *s)
{
	/* Pairs with hvt_split_own()'s acquire: our stores come first. */
	smp_mb__before_atomic();
	atomic_dec(&s->busy);
}

static inline void hvt_split_own(struct hvt_split *s, struct task_struct *p)
{
	WRITE_ONCE(s->task, p);
	smp_mb();	/* pairs with hvt_split_enter() */
	atomic_cond_read_acquire(&s->busy, !VAL);
}

/*
 * P runs another vCPU now: S is no longer P's, unless another thread has
 * taken it meanwhile (then it is that thread's, and stays so).
 */
static inline void hvt_split_let_go(struct hvt_split *s,
				    const struct task_struct *p)
{
	/* A successful cmpxchg is a full barrier, as in hvt_split_own(). */
	if (cmpxchg(&s->task, (struct task_struct *)p, NULL) == p)
		atomic_cond_read_acquire(&s->busy, !VAL);
}

/*
 * The transitions, without their guards: the entry points below call
 * them once the guards pass.
 */

/*
 * NS of PART (HVTRACE_PART_* or HVT_KSLEEP) between START and END: into
 * the stretches, the oldest folded when they are full. The caller adds
 * NS to its part (a kernel sleep to ksleep).
 */
static inline void hvt_time_log(struct hvt_split *s, u8 part, u64 start,
				u64 end, u64 ns)
{
	struct hvt_stretch *e = &s->log[s->nr_log % HVT_STRETCHES];

	if (!ns)
		return;
	if (s->nr_log >= HVT_STRETCHES) {
		s->folded[e->part] += e->ns;
		s->folded_end = max(s->folded_end, e->end);
	}
	e->start = start;
	e->end = end;
	e->ns = ns;
	e->part = part;
	e->pid = 0;
	s->nr_log++;
}

/* Who ran instead during the runnable stretch from START, just logged. */
static inline void hvt_time_log_who(struct hvt_split *s, u64 start, u32 pid,
				    const char *comm, bool vcpu)
{
	struct hvt_stretch *e = &s->log[(s->nr_log - 1) % HVT_STRETCHES];

	if (!s->nr_log || e->part != HVTRACE_PART_RUNNABLE ||
	    e->start != start)
		return;
	e->pid = pid;
	e->vcpu = vcpu;
	memcpy(e->comm, comm, TASK_COMM_LEN);
}

/* NS of PART from START to NOW: credited and logged. */
static inline void hvt_time_credit(struct hvt_split *s, u8 part, u64 start,
				   u64 now)
{
	u64 ns = hvt_since(now, start);

	s->part[part] += ns;
	hvt_time_log(s, part, start, now, ns);
}

/* Blocked time ends (woken, or switched in without a wake-up seen). */
static inline void __hvt_time_unblock(struct hvt_split *s, u64 now)
{
	u64 d = hvt_since(now, s->off_ts);

	if (s->in_user) {
		hvt_time_credit(s, HVTRACE_PART_VMM, s->off_ts, now);
	} else {
		s->ksleep += d;
		hvt_time_log(s, HVT_KSLEEP, s->off_ts, now, d);
	}
}

/*
 * Someone else ends the stretch of a thread that is off CPU: another VMM
 * thread calls KVM_RUN for the vCPU, or KVM destroys it. The stretch so
 * far counts as if the thread came back now (no preemptor is credited:
 * nothing ran instead of it on its CPU that we know of).
 */
static inline void hvt_time_settle(struct hvt_split *s, u64 now)
{
	if (s->where == HVT_ON_CPU)
		return;
	if (s->where == HVT_OFF_BLOCKED)
		__hvt_time_unblock(s, now);
	else
		hvt_time_credit(s, HVTRACE_PART_RUNNABLE, s->run_ts, now);
	WRITE_ONCE(s->where, HVT_ON_CPU);
	s->on_ts = now;
	s->user_ts = now;
}

/* Back in the kernel with KVM_RUN (perhaps from another thread), or at
 * the entry.
 */
static inline void __hvt_time_from_user(struct hvt_split *s, u64 now)
{
	hvt_time_settle(s, now);
	hvt_time_credit(s, HVTRACE_PART_VMM, s->user_ts, now);
	WRITE_ONCE(s->in_user, false);
}

static inline void hvt_note_task(u32 *pid, char *comm, bool *vcpu,
				 const struct task_struct *p, bool is_vcpu)
{
	*pid = p->pid;
	memcpy(comm, p->comm, TASK_COMM_LEN);
	*vcpu = is_vcpu;
}

/*
 * Switched out: RUNNABLE when preempted (or yielding), else blocked.
 * NEXT takes the CPU; it is noted as who ran instead of a preempted
 * thread.
 */
static inline void __hvt_time_switch_out(struct hvt_split *s, bool runnable,
					 const struct task_struct *next,
					 bool next_vcpu, u64 now, int cpu)
{
	if (s->in_user)
		hvt_time_credit(s, HVTRACE_PART_VMM, s->user_ts, now);
	else if (!runnable && !s->sleep_ts)
		s->sleep_ts = now;	/* perhaps a halt's block */
	s->off_ts = now;
	s->cpu_off = cpu;
	s->split = true;
	if (runnable) {
		WRITE_ONCE(s->where, HVT_OFF_RUNNABLE);
		s->run_ts = now;
		s->preempted = !s->in_user;
		s->queued = true;
		hvt_note_task(&s->off_pid, s->off_comm, &s->off_vcpu, next,
			      next_vcpu);
	} else {
		WRITE_ONCE(s->where, HVT_OFF_BLOCKED);
		s->preempted = false;
		s->queued = false;	/* one left over leaked (runners.h) */
		s->off_pid = 0;
	}
}

/*
 * Switched in after PREV ran: returns the runnable time that ends, and
 * notes who ran instead if it is the exit's longest such stretch (the
 * preemptor noted at the switch-out, or else PREV, unless it was idle).
 */
static inline u64 __hvt_time_switch_in(struct hvt_split *s,
				       const struct task_struct *prev,
				       bool prev_vcpu, u64 now)
{
	u64 r = 0;

	if (s->where == HVT_OFF_BLOCKED) {
		__hvt_time_unblock(s, now);	/* the wake-up went unseen */
	} else if (s->where == HVT_OFF_RUNNABLE) {
		r = hvt_since(now, s->run_ts);
		if (!s->off_pid && prev->pid)
			hvt_note_task(&s->off_pid, s->off_comm, &s->off_vcpu,
				      prev, prev_vcpu);
		hvt_time_credit(s, HVTRACE_PART_RUNNABLE, s->run_ts, now);
		if (s->off_pid)
			hvt_time_log_who(s, s->run_ts, s->off_pid,
					 s->off_comm, s->off_vcpu);
		if (s->off_pid && r > s->pre_ns) {
			s->pre_ns = r;
			s->pre_pid = s->off_pid;
			memcpy(s->pre_comm, s->off_comm, TASK_COMM_LEN);
			s->pre_flags = s->off_vcpu ? HVTRACE_EVF_PREEMPT_VCPU : 0;
		}
	}
	WRITE_ONCE(s->where, HVT_ON_CPU);
	s->on_ts = now;
	/*
	 * Remembered for a halt's polling, which is on CPU only; after a
	 * kernel block (perhaps the halt's) only the stretches before it
	 * matter, until the halt ends.
	 */
	if (!s->sleep_ts) {
		s->gap_off[s->gap_next] = s->off_ts;
		s->gap_on[s->gap_next] = now;
		s->gap_next = (s->gap_next + 1) % HVT_GAPS;
	}
	if (s->in_user)
		s->user_ts = now;
	return r;
}

/*
 * S's time on CPU from FROM to TO, less the off-CPU stretches in it: a
 * preemption while polling is runnable, not halt. KVM stops polling
 * once another task is runnable, so one stretch is the rule; if all the
 * remembered ones fall in the window, older ones may be missing, and
 * only the time since the last switch-in counts.
 */
static inline u64 hvt_on_cpu(const struct hvt_split *s, u64 from, u64 to)
{
	u64 t = hvt_since(to, from), last = from;
	int i, inside = 0;

	for (i = 0; i < HVT_GAPS; i++) {
		u64 off = max(s->gap_off[i], from), on = min(s->gap_on[i], to);

		t -= min(t, hvt_since(on, off));
		inside += s->gap_on[i] > from;
		last = max(last, on);
	}
	return inside < HVT_GAPS ? t : min(t, hvt_since(to, last));
}

/* The kernel sleeps logged so far were a halt's (vcpu_time.c). */
void hvt_time_ksleep_halted(struct hvt_split *s);

/*
 * KVM's halt of NS (its own clock, ktime) ended. The halt is its polling
 * on CPU plus its blocked time; runnable time after the wake-up stays
 * runnable. Only the polling is measured from NS, and it is short, so
 * the two clocks' rates do not matter.
 */
static inline void __hvt_time_halted(struct hvt_split *s, u64 ns,
				     bool waited, u64 now)
{
	u64 start = max(hvt_since(now, ns), s->exit_ts), halt, end = now;

	if (waited && s->sleep_ts) {
		/* Polled from the halt's start to its first block. */
		end = s->sleep_ts;
		halt = hvt_on_cpu(s, start, end);
		s->part[HVTRACE_PART_HALT] += s->ksleep;
		hvt_time_ksleep_halted(s);
		s->ksleep = 0;
		s->sleep_ts = 0;
	} else if (!s->sleep_ts) {
		/* Polling succeeded: on CPU but for a preemption. */
		halt = hvt_on_cpu(s, start, now);
	} else {
		/* After a kernel sleep of this exit: since the switch-in. */
		start = max(start, s->on_ts);
		halt = hvt_since(now, start);
	}
	s->part[HVTRACE_PART_HALT] += halt;
	hvt_time_log(s, HVTRACE_PART_HALT, start, end, halt);
	s->split = true;
}

/*
 * The last parts of a split exit of D ns (HVT_END_SPLIT: it ended at
 * exit_ts + D), trimmed so they never exceed D (intervals measured on
 * several CPUs' clocks). Inline, like hvt_time_reset(), in the caller's
 * out-of-line counting of the exit (probe_kvm.c end_split()): an exit
 * that went to the VMM, halted or was preempted makes no call for them.
 */
static inline void hvt_time_close(struct hvt_split *s, u64 d)
{
	u64 now = s->exit_ts + d, sum = 0;
	int i;

	hvt_time_settle(s, now);	/* off CPU: destroyed meanwhile */
	if (s->in_user)
		__hvt_time_from_user(s, now);
	s->part[HVTRACE_PART_OTHER] += s->ksleep;
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += s->part[i];
	for (i = HVTRACE_NR_PARTS - 1; sum > d && i >= 0; i--) {
		u64 cut = min(s->part[i], sum - d);

		s->part[i] -= cut;
		sum -= cut;
	}
}

/*
 * After the caller has counted a split exit's parts, or when an exit is
 * dropped: the next one starts with nothing.
 */
static inline void hvt_time_reset(struct hvt_split *s)
{
	memset(s->part, 0, sizeof(s->part));
	s->ksleep = 0;
	s->sleep_ts = 0;
	WRITE_ONCE(s->in_user, false);
	s->preempted = false;
	s->pre_pid = 0;
	s->pre_ns = 0;
	s->pre_flags = 0;
	s->nr_log = 0;
	memset(s->folded, 0, sizeof(s->folded));
	s->folded_end = 0;
	s->split = false;
}

/* Out of line (vcpu_time.c): a new vCPU in the slot, no exit, no thread. */
void hvt_time_init(struct hvt_split *s);

/*
 * Where a vCPU's thread was from FROM to NOW, at an entry about to
 * inject an interrupt raised at FROM (its wait): in the guest before the
 * exit in flight began (guest_ns: the kick, or entries that could not
 * inject it), then the exit's parts credited after FROM; handling is the
 * rest. The preemptor ran during the runnable stretch that holds most of
 * the window's runnable time (pre_pid 0: nobody known, or it was folded).
 */
struct hvt_window {
	u64 guest_ns;
	u64 part[HVTRACE_NR_PARTS];
	u64 pre_ns;		/* the longest runnable stretch's, in it */
	u32 pre_pid;
	u16 pre_flags;
	char pre_comm[TASK_COMM_LEN];
};

void hvt_time_window(const struct hvt_split *s, u64 from, u64 now,
		     struct hvt_window *w);

/* The entry points, one per event, each with its guards. */

/*
 * kvm_exit: an exit begins now. The caller has made the current thread
 * the split's (hvt_thread_add()) and read the exit's reason: called
 * last, so the exit's time covers none of the probe's work. True when
 * the exit before never re-entered: it is dropped (counted unpaired).
 */
static __always_inline bool hvt_time_exit(struct hvt_split *s)
{
	bool unpaired = s->in_exit;

	if (unlikely(unpaired))
		hvt_time_reset(s);
	WRITE_ONCE(s->in_exit, true);
	WRITE_ONCE(s->exit_ts, hvt_time_now());
	return unpaired;
}

enum hvt_end {
	HVT_END_NONE,		/* no exit in flight */
	HVT_END_QUIET,		/* it ended, nothing happened to it */
	HVT_END_SPLIT,		/* it ended; close, count its parts, reset */
};

/*
 * The exit in flight ends at NOW (the entry, or its vCPU's destruction):
 * *D is its duration. A clock that reads earlier than the exit's (another
 * CPU's) makes it take no time, so the exit plus *D (the entry) stays
 * monotonic on this CPU, which trace readers rely on.
 */
static __always_inline enum hvt_end __hvt_time_end(struct hvt_split *s,
						   u64 now, u64 *d)
{
	WRITE_ONCE(s->in_exit, false);
	if (unlikely(now < s->exit_ts))
		WRITE_ONCE(s->exit_ts, now);
	*d = now - s->exit_ts;
	return likely(!s->split) ? HVT_END_QUIET : HVT_END_SPLIT;
}

/*
 * kvm_entry: the exit in flight, if any, ends now after *D ns. With
 * HVT_END_SPLIT the caller, out of line, closes its parts
 * (hvt_time_close(): then s->part adds up to *D at most, and the longest
 * preemptor, s->pre_*, is final), counts them, then calls
 * hvt_time_reset(). HVT_END_QUIET (the common case) leaves nothing to
 * close, count or reset; HVT_END_NONE: no exit was in flight (fastpath
 * re-entries on AMD before 6.5), and the clock was not read.
 */
static __always_inline enum hvt_end hvt_time_entry(struct hvt_split *s,
						   u64 *d)
{
	if (!s->in_exit)
		return HVT_END_NONE;
	return __hvt_time_end(s, hvt_time_now(), d);
}

/*
 * KVM destroys the vCPU (a kprobe: preemption is off): its thread's
 * scheduling no longer drives the split (hvt_split_own()), and the exit
 * in flight, if any, ends now after *D ns as an HVT_END_SPLIT at the
 * entry does: the caller closes it (whatever state it is in is settled),
 * counts it and resets. False: no exit was in flight.
 */
bool hvt_time_destroyed(struct hvt_split *s, u64 *d);

/*
 * sched_switch: task P (S's thread) goes out at NOW on CPU, and NEXT (a
 * vCPU thread: NEXT_VCPU) takes it. Runnable when PREEMPT, or still
 * TASK_RUNNING (yielding); else blocked. True: it waits runnable inside
 * an exit, and CPU's runners (runners.h) are to count it a waiter.
 */
static __always_inline bool hvt_time_switch_out(struct hvt_split *s,
						const struct task_struct *p,
						bool preempt,
						const struct task_struct *next,
						bool next_vcpu, u64 now,
						int cpu)
{
	bool runnable = false;

	if (likely(READ_ONCE(s->in_exit)) && hvt_split_enter(s, p)) {
		runnable = preempt || hvt_task_runnable(p);
		__hvt_time_switch_out(s, runnable, next, next_vcpu, now, cpu);
		hvt_split_leave(s);
	}
	return runnable;
}

/* What a switch-in ended, for the caller to credit and count. */
struct hvt_switched_in {
	u64 runnable_ns;	/* the runnable stretch that ended, or 0 */
	u64 off_ns;		/* off CPU since the switch-out */
	const char *comm;	/* who ran instead, while S is held */
	u32 pid;		/* its pid; 0: nobody to credit runnable_ns */
	bool vcpu;		/* it is a vCPU thread */
	bool preempted;		/* it was a preemption inside KVM */
	bool longest;		/* the exit's longest runnable stretch so far */
	bool queued;		/* it waited in cpu_off's runners */
	u16 cpu_off;
	u64 run_from;		/* the runnable stretch began */
};

/*
 * sched_switch: task P (S's thread) comes in at NOW after PREV (a vCPU
 * thread: PREV_VCPU). False: P has no exit in flight, or the split is no
 * longer P's. True: *W says what the switch-in ended, and S stays held,
 * so a new owner (hvt_split_own()) also waits for the caller's counting
 * of it (a preemption's record reads S): the caller then calls
 * hvt_split_leave().
 */
static __always_inline bool hvt_time_switch_in(struct hvt_split *s,
					       const struct task_struct *p,
					       const struct task_struct *prev,
					       bool prev_vcpu, u64 now,
					       struct hvt_switched_in *w)
{
	u64 pre_ns;

	if (!READ_ONCE(s->in_exit) || !hvt_split_enter(s, p))
		return false;
	pre_ns = s->pre_ns;
	w->off_ns = hvt_since(now, s->off_ts);
	w->run_from = s->run_ts;
	w->runnable_ns = __hvt_time_switch_in(s, prev, prev_vcpu, now);
	w->longest = s->pre_ns > pre_ns;
	/*
	 * Counted at its runnable switch-out; one this switch-in does not
	 * end (a split settled or taken over meanwhile) leaked, and
	 * HVT_RUNNERS_FORGET_NS puts that right.
	 */
	w->queued = s->queued && w->runnable_ns;
	w->cpu_off = s->cpu_off;
	s->queued = false;
	if (w->runnable_ns && s->off_pid) {
		w->pid = s->off_pid;
		w->comm = s->off_comm;
		w->vcpu = s->off_vcpu;
	}
	/* Switched out runnable inside KVM (a wake-up never sets this). */
	w->preempted = s->preempted;
	s->preempted = false;
	return true;
}

/*
 * Between hvt_time_switch_in() and hvt_split_leave(): CPU cpu_off's log
 * (runners.h) says the task PID ran longest of the runnable stretch W
 * ended, not necessarily the one that took the CPU. The stretch's
 * preemption record names it, and so does the exit's if the stretch is
 * its longest.
 */
static inline void hvt_time_ran_most(struct hvt_split *s,
				     const struct hvt_switched_in *w, u32 pid,
				     const char *comm, bool vcpu)
{
	s->off_pid = pid;
	memcpy(s->off_comm, comm, TASK_COMM_LEN);
	s->off_vcpu = vcpu;
	hvt_time_log_who(s, w->run_from, pid, comm, vcpu);
	if (w->longest) {
		s->pre_pid = pid;
		memcpy(s->pre_comm, comm, TASK_COMM_LEN);
		s->pre_flags = vcpu ? HVTRACE_EVF_PREEMPT_VCPU : 0;
	}
}

/*
 * sched_wakeup of task P (S's thread): blocked time ends, runnable time
 * begins. Woken before it got off CPU: nothing happened to its time.
 */
static __always_inline void hvt_time_wakeup(struct hvt_split *s,
					    const struct task_struct *p)
{
	u64 now;

	if (READ_ONCE(s->in_exit) && READ_ONCE(s->where) == HVT_OFF_BLOCKED &&
	    hvt_split_enter(s, p)) {
		now = hvt_time_now();
		__hvt_time_unblock(s, now);
		WRITE_ONCE(s->where, HVT_OFF_RUNNABLE);
		s->run_ts = now;
		hvt_split_leave(s);
	}
}

/* kvm_userspace_exit: KVM_RUN returned, the VMM has the exit. */
static __always_inline void hvt_time_to_user(struct hvt_split *s)
{
	if (s->in_exit) {
		WRITE_ONCE(s->in_user, true);
		s->user_ts = hvt_time_now();
		s->split = true;
	}
}

/*
 * KVM_RUN again, perhaps from another thread (the caller has made it
 * the split's: hvt_thread_add()): the VMM is done with the exit, and
 * the old thread's open stretch is settled.
 */
static __always_inline void hvt_time_run(struct hvt_split *s)
{
	if (s->in_exit && s->in_user)
		__hvt_time_from_user(s, hvt_time_now());
}

/*
 * kvm_vcpu_wakeup: KVM's halt of NS (ktime) ended; WAITED: it blocked
 * (or was woken early).
 */
static __always_inline void hvt_time_halted(struct hvt_split *s, u64 ns,
					    bool waited)
{
	if (s->in_exit)
		__hvt_time_halted(s, ns, waited, hvt_time_now());
}

#endif /* _HVT_VCPU_TIME_H */
