/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where an exit's time goes: the vCPU thread's state between its exit
 * and its next entry, advanced by the KVM probes (the VMM has the exit,
 * KVM_RUN again, the halt ended) and the scheduler probes (switched
 * out, woken, switched in). See enum hvtrace_part for the parts.
 *
 * Handling is never accumulated: it is the duration less the parts, so
 * the parts add up by construction, and an exit nothing happened to (the
 * common case) costs nothing here: `split` stays false.
 *
 * Times are local_clock() of the CPU each probe runs on; an interval
 * whose end reads earlier than its start (clocks of two CPUs) is empty.
 */
#ifndef _HVT_VCPU_TIME_H
#define _HVT_VCPU_TIME_H

#include <linux/atomic.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "vcpu.h"

enum hvt_where {
	HVT_ON_CPU,
	HVT_OFF_BLOCKED,	/* waits for a wake-up */
	HVT_OFF_RUNNABLE,	/* preempted, or woken and waiting for a CPU */
};

static inline u64 hvt_since(u64 now, u64 ts)
{
	return now > ts ? now - ts : 0;
}

/*
 * Who drives the split. A scheduler probe about task P acts on P's vCPU V
 * between hvt_split_enter() (false: V is no longer P's, leave it) and
 * hvt_split_leave(). Making another task V's (a second VMM thread runs
 * it, or KVM destroys it) waits out such a probe: each side stores, then
 * looks at the other's store, with a full barrier between, so at least
 * one sees the other. The probes hold the CPU with interrupts off: the
 * wait is a few hundred nanoseconds at most, and only on a handover.
 */
static inline bool hvt_split_enter(struct hvt_vcpu *v,
				   const struct task_struct *p)
{
	/* A count: probes about the old and the new thread may overlap. */
	atomic_inc(&v->busy);
	smp_mb__after_atomic();	/* pairs with hvt_split_own() */
	if (likely(READ_ONCE(v->task) == p))
		return true;
	/* Our stores to V are done before a waiting owner goes on. */
	smp_mb__before_atomic();
	atomic_dec(&v->busy);
	return false;
}

static inline void hvt_split_leave(struct hvt_vcpu *v)
{
	/* Pairs with hvt_split_own()'s acquire: our stores come first. */
	smp_mb__before_atomic();
	atomic_dec(&v->busy);
}

static inline void hvt_split_own(struct hvt_vcpu *v, struct task_struct *p)
{
	WRITE_ONCE(v->task, p);
	smp_mb();	/* pairs with hvt_split_enter() */
	atomic_cond_read_acquire(&v->busy, !VAL);
}

/*
 * P runs another vCPU now: V is no longer P's, unless another thread has
 * taken it meanwhile (then it is that thread's, and stays so).
 */
static inline void hvt_split_let_go(struct hvt_vcpu *v,
				    const struct task_struct *p)
{
	/* A successful cmpxchg is a full barrier, as in hvt_split_own(). */
	if (cmpxchg(&v->task, (struct task_struct *)p, NULL) == p)
		atomic_cond_read_acquire(&v->busy, !VAL);
}

/* kvm_userspace_exit: KVM_RUN returned, the VMM has the exit. */
static inline void hvt_time_to_user(struct hvt_vcpu *v, u64 now)
{
	v->in_user = true;
	v->user_ts = now;
	v->split = true;
}

/* Blocked time ends (woken, or switched in without a wake-up seen). */
static inline void hvt_time_unblock(struct hvt_vcpu *v, u64 now)
{
	u64 d = hvt_since(now, v->off_ts);

	if (v->in_user)
		v->part[HVTRACE_PART_VMM] += d;
	else
		v->ksleep += d;
}

/*
 * Someone else ends the stretch of a thread that is off CPU: another VMM
 * thread calls KVM_RUN for the vCPU, or KVM destroys it. The stretch so
 * far counts as if the thread came back now (no preemptor is credited:
 * nothing ran instead of it on its CPU that we know of).
 */
static inline void hvt_time_settle(struct hvt_vcpu *v, u64 now)
{
	if (v->where == HVT_ON_CPU)
		return;
	if (v->where == HVT_OFF_BLOCKED)
		hvt_time_unblock(v, now);
	else
		v->part[HVTRACE_PART_RUNNABLE] += hvt_since(now, v->run_ts);
	v->where = HVT_ON_CPU;
	v->on_ts = now;
	v->user_ts = now;
}

/* Back in the kernel with KVM_RUN (perhaps from another thread), or at
 * the entry.
 */
static inline void hvt_time_from_user(struct hvt_vcpu *v, u64 now)
{
	hvt_time_settle(v, now);
	v->part[HVTRACE_PART_VMM] += hvt_since(now, v->user_ts);
	v->in_user = false;
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
static inline void hvt_time_switch_out(struct hvt_vcpu *v, bool runnable,
				       const struct task_struct *next,
				       bool next_vcpu, u64 now, int cpu)
{
	if (v->in_user)
		v->part[HVTRACE_PART_VMM] += hvt_since(now, v->user_ts);
	else if (!runnable && !v->sleep_ts)
		v->sleep_ts = now;	/* perhaps a halt's block */
	v->off_ts = now;
	v->cpu_off = cpu;
	v->split = true;
	if (runnable) {
		v->where = HVT_OFF_RUNNABLE;
		v->run_ts = now;
		v->preempted = !v->in_user;
		hvt_note_task(&v->off_pid, v->off_comm, &v->off_vcpu, next,
			      next_vcpu);
	} else {
		v->where = HVT_OFF_BLOCKED;
		v->preempted = false;
		v->off_pid = 0;
	}
}

/* sched_wakeup: blocked time ends, runnable time begins. */
static inline void hvt_time_wakeup(struct hvt_vcpu *v, u64 now)
{
	hvt_time_unblock(v, now);
	v->where = HVT_OFF_RUNNABLE;
	v->run_ts = now;
}

/*
 * Switched in after PREV ran: returns the runnable time that ends, and
 * notes who ran instead if it is the exit's longest such stretch (the
 * preemptor noted at the switch-out, or else PREV, unless it was idle).
 */
static inline u64 hvt_time_switch_in(struct hvt_vcpu *v,
				     const struct task_struct *prev,
				     bool prev_vcpu, u64 now)
{
	u64 r = 0;

	if (v->where == HVT_OFF_BLOCKED) {
		hvt_time_unblock(v, now);	/* the wake-up went unseen */
	} else if (v->where == HVT_OFF_RUNNABLE) {
		r = hvt_since(now, v->run_ts);
		v->part[HVTRACE_PART_RUNNABLE] += r;
		if (!v->off_pid && prev->pid)
			hvt_note_task(&v->off_pid, v->off_comm, &v->off_vcpu,
				      prev, prev_vcpu);
		if (v->off_pid && r > v->pre_ns) {
			v->pre_ns = r;
			v->pre_pid = v->off_pid;
			memcpy(v->pre_comm, v->off_comm, TASK_COMM_LEN);
			v->pre_flags = v->off_vcpu ? HVTRACE_EVF_PREEMPT_VCPU : 0;
		}
	}
	v->where = HVT_ON_CPU;
	v->on_ts = now;
	/*
	 * Remembered for a halt's polling, which is on CPU only; after a
	 * kernel block (perhaps the halt's) only the stretches before it
	 * matter, until the halt ends.
	 */
	if (!v->sleep_ts) {
		v->gap_off[v->gap_next] = v->off_ts;
		v->gap_on[v->gap_next] = now;
		v->gap_next = (v->gap_next + 1) % HVT_GAPS;
	}
	if (v->in_user)
		v->user_ts = now;
	return r;
}

/*
 * V's time on CPU from FROM to TO, less the off-CPU stretches in it: a
 * preemption while polling is runnable, not halt. KVM stops polling
 * once another task is runnable, so one stretch is the rule; if all the
 * remembered ones fall in the window, older ones may be missing, and
 * only the time since the last switch-in counts.
 */
static inline u64 hvt_on_cpu(const struct hvt_vcpu *v, u64 from, u64 to)
{
	u64 t = hvt_since(to, from), last = from;
	int i, inside = 0;

	for (i = 0; i < HVT_GAPS; i++) {
		u64 off = max(v->gap_off[i], from), on = min(v->gap_on[i], to);

		t -= min(t, hvt_since(on, off));
		inside += v->gap_on[i] > from;
		last = max(last, on);
	}
	return inside < HVT_GAPS ? t : min(t, hvt_since(to, last));
}

/*
 * kvm_vcpu_wakeup: KVM's halt of NS (its own clock, ktime) ended. The
 * halt is its polling on CPU plus its blocked time; runnable time after
 * the wake-up stays runnable. Only the polling is measured from NS, and
 * it is short, so the two clocks' rates do not matter.
 */
static inline void hvt_time_halted(struct hvt_vcpu *v, u64 ns, bool waited,
				   u64 now)
{
	u64 start = max(hvt_since(now, ns), v->exit_ts), halt;

	if (waited && v->sleep_ts) {
		halt = v->ksleep;
		/* Polled from the halt's start to its first block. */
		halt += hvt_on_cpu(v, start, v->sleep_ts);
		v->ksleep = 0;
		v->sleep_ts = 0;
	} else if (!v->sleep_ts) {
		/* Polling succeeded: on CPU but for a preemption. */
		halt = hvt_on_cpu(v, start, now);
	} else {
		/* After a kernel sleep of this exit: since the switch-in. */
		halt = hvt_since(now, max(start, v->on_ts));
	}
	v->part[HVTRACE_PART_HALT] += halt;
	v->split = true;
}

/*
 * At the entry closing an exit of D ns: the last parts, and trimmed so
 * they never exceed D (intervals measured on several CPUs' clocks).
 */
static inline void hvt_time_close(struct hvt_vcpu *v, u64 now, u64 d)
{
	u64 sum = 0;
	int i;

	hvt_time_settle(v, now);	/* off CPU: destroyed meanwhile */
	if (v->in_user)
		hvt_time_from_user(v, now);
	v->part[HVTRACE_PART_OTHER] += v->ksleep;
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += v->part[i];
	for (i = HVTRACE_NR_PARTS - 1; sum > d && i >= 0; i--) {
		u64 cut = min(v->part[i], sum - d);

		v->part[i] -= cut;
		sum -= cut;
	}
}

/* After the exit is accounted: the next one starts with nothing. */
static inline void hvt_time_reset(struct hvt_vcpu *v)
{
	memset(v->part, 0, sizeof(v->part));
	v->ksleep = 0;
	v->sleep_ts = 0;
	v->in_user = false;
	v->preempted = false;
	v->pre_pid = 0;
	v->pre_ns = 0;
	v->pre_flags = 0;
	v->split = false;
}

#endif /* _HVT_VCPU_TIME_H */
