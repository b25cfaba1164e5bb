/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who ran on a CPU while a preempted vCPU thread waited for it there.
 *
 * The task that takes the CPU at the preemption is often not the one
 * that keeps it: a kworker runs for 20 us, then a SCHED_FIFO hog for
 * 300 ms. While a CPU has a vCPU thread waiting (switched out runnable
 * there), each of its context switches logs the task going out and its
 * stretch; the waiter's switch-in reads the log back for its own window
 * and credits each task with what it ran of it (probe_sched.c).
 *
 *   CPU 0:  vCPU | kworker |        hvhog          | vCPU
 *           -----+---------+-----------------------+-----
 *     waiting++  log kworker               log hvhog  waiting--,
 *     since=now  since=now                 since=now  read [out, in]:
 *                                                     hvhog 300 ms,
 *                                                     kworker 20 us
 *
 * Writers: the CPU itself, in sched_switch (interrupts off); readers: the
 * waiter's switch-in on that CPU, under the log's sequence count, so a
 * log rewritten meanwhile is read again or not at all (a waiter back on
 * another CPU does not read it: the stretch still running here is in no
 * log). A CPU with no waiter pays two loads and a test per switch. The
 * log starts empty with the first waiter of a CPU and holds HVT_RUNNERS
 * stretches. When it is full a stretch takes the place of the shortest
 * one that ended before the latest waiter came (it concerns older
 * waiters only: where vCPU threads take turns, all of them), else of the
 * shortest logged if it is longer, else it is not logged: a wait with
 * more entries than that (a task not among the last two logged takes a
 * new one) credits its longest stretches, the ones that name its
 * preemptor, and loses the shortest ones' time.
 *
 * A task going out again that was one of the last two logged, within
 * the latest waiter's wait, adds to its entry: a ping-pong of two tasks
 * (as one of them exits, or beside an overcommitted vCPU) is two
 * entries, found without a scan. Such an entry lies inside the window
 * of every waiter there is (they all came before it began) and outside
 * those of the waiters to come (they come after it ended), so its sum is
 * exact for each.
 */
#ifndef _HVT_RUNNERS_H
#define _HVT_RUNNERS_H

#include <linux/atomic.h>
#include <linux/sched.h>
#include <linux/seqlock.h>
#include <linux/time64.h>
#include <linux/types.h>

#define HVT_RUNNERS		16

/*
 * A waiter counted but never seen coming back (its thread's split was
 * taken over while it waited) would keep its CPU logging: with no new
 * waiter for this long, the count starts again from nothing.
 */
#define HVT_RUNNERS_FORGET_NS	(10ULL * NSEC_PER_SEC)

struct hvt_runner {
	u64 start;		/* its stretches on the CPU: the first's start */
	u64 end;		/* the last's end */
	u64 ns;			/* what they ran: end - start but for merges */
	u32 pid;
	bool vcpu;		/* a vCPU thread itself */
	char comm[TASK_COMM_LEN];
};

struct hvt_runners {
	atomic_t waiting;	/* vCPU threads preempted here, not back */
	u32 used;		/* entries of log[] in use */
	u8 recent[2];		/* the last two written: index + 1, or 0 */
	u64 since;		/* the running task's stretch began */
	u64 waited_ts;		/* the latest waiter came */
	seqcount_t seq;
	struct hvt_runner log[HVT_RUNNERS];
};

/* What one task ran of a window, for the caller to credit. */
struct hvt_ran {
	u64 ns;
	u32 pid;
	bool vcpu;
	char comm[TASK_COMM_LEN];
};

/* The test on every context switch: is anyone waiting here? */
static __always_inline bool hvt_runners_watched(const struct hvt_runners *r)
{
	return atomic_read(&r->waiting) > 0;
}

/* This CPU's switch at NOW: PREV (a vCPU thread: VCPU) goes out. */
void hvt_runners_switch(struct hvt_runners *r, const struct task_struct *prev,
			bool vcpu, u64 now);

/* A vCPU thread is switched out runnable on this CPU at NOW. */
void hvt_runners_wait(struct hvt_runners *r, u64 now);

/* ... and is back (on any CPU). */
void hvt_runners_done(struct hvt_runners *r);

/*
 * Who ran on R's CPU in FROM..TO, and how long each (a task's stretches
 * added up), longest first, into OUT (HVT_RUNNERS entries): returns how
 * many; 0 when none is known (none logged, or the log kept changing).
 */
unsigned int hvt_runners_in(struct hvt_runners *r, u64 from, u64 to,
			    struct hvt_ran *out);

#endif /* _HVT_RUNNERS_H */
