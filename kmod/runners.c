// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU log of who ran while a preempted vCPU thread waited
 * (runners.h). KVM-free: KUnit drives it with exact times.
 */
#include <linux/minmax.h>
#include <linux/string.h>

#include "runners.h"

/* A reader that keeps meeting a rewrite gives up: the caller falls back. */
#define HVT_RUNNERS_TRIES	4

/* PREV's entry among the last two, if it began in the latest wait. */
static notrace struct hvt_runner *runner_again(struct hvt_runners *r,
					       const struct task_struct *prev)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(r->recent); i++) {
		struct hvt_runner *e;

		if (!r->recent[i])
			continue;
		e = &r->log[r->recent[i] - 1];
		if (e->pid == prev->pid && e->start >= r->waited_ts &&
		    !memcmp(e->comm, prev->comm, TASK_COMM_LEN))
			return e;
	}
	return NULL;
}

/*
 * The slot for a stretch of NS: a free one; else the shortest of those
 * that ended before the latest waiter came (they concern older waiters
 * only: on a CPU where vCPU threads take turns, every one of them); else
 * the shortest logged if it is shorter (the long stretches stay: they
 * name the preemptor); else none.
 */
static notrace struct hvt_runner *runner_slot(struct hvt_runners *r, u64 ns)
{
	struct hvt_runner *e, *old = NULL, *shortest = NULL;

	if (r->used < HVT_RUNNERS)
		return &r->log[r->used++];
	for (e = r->log; e < r->log + HVT_RUNNERS; e++) {
		if (e->end <= r->waited_ts &&
		    (!old || e->ns < old->ns))
			old = e;
		if (e->ns < ns &&
		    (!shortest || e->ns < shortest->ns))
			shortest = e;
	}
	return old ?: shortest;
}

notrace void hvt_runners_switch(struct hvt_runners *r,
				const struct task_struct *prev, bool vcpu,
				u64 now)
{
	struct hvt_runner *e;

	/* Idle ran nothing instead of a waiter. */
	if (prev->pid && now > r->since) {
		raw_write_seqcount_begin(&r->seq);
		e = runner_again(r, prev);
		if (e) {
			e->end = now;
			e->ns += now - r->since;
		} else {
			e = runner_slot(r, now - r->since);
			if (e) {
				e->start = r->since;
				e->end = now;
				e->ns = now - r->since;
				e->pid = prev->pid;
				e->vcpu = vcpu;
				memcpy(e->comm, prev->comm, TASK_COMM_LEN);
				r->recent[1] = r->recent[0];
				r->recent[0] = e - r->log + 1;
			}
		}
		raw_write_seqcount_end(&r->seq);
	}
	r->since = now;
	/* Logged first: the stretch that ends a long wait counts. */
	if (unlikely(now > r->waited_ts + HVT_RUNNERS_FORGET_NS))
		atomic_set(&r->waiting, 0);
}

notrace void hvt_runners_wait(struct hvt_runners *r, u64 now)
{
	/* The first waiter: what ran before concerns nobody. */
	if (!atomic_read(&r->waiting)) {
		raw_write_seqcount_begin(&r->seq);
		r->used = 0;
		memset(r->recent, 0, sizeof(r->recent));
		raw_write_seqcount_end(&r->seq);
	}
	r->since = now;
	r->waited_ts = now;
	atomic_inc(&r->waiting);
}

notrace void hvt_runners_done(struct hvt_runners *r)
{
	atomic_dec_if_positive(&r->waiting);
}

/* Add NS of the stretch E to its task's entry in OUT (N so far). */
static notrace unsigned int ran_add(struct hvt_ran *out, unsigned int n,
				    const struct hvt_runner *e, u64 ns)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (out[i].pid == e->pid &&
		    !memcmp(out[i].comm, e->comm, TASK_COMM_LEN)) {
			out[i].ns += ns;
			return n;
		}
	out[n].ns = ns;
	out[n].pid = e->pid;
	out[n].vcpu = e->vcpu;
	memcpy(out[n].comm, e->comm, TASK_COMM_LEN);
	return n + 1;
}

notrace unsigned int hvt_runners_in(struct hvt_runners *r, u64 from, u64 to,
				    struct hvt_ran *out)
{
	unsigned int seq, tries, i, j, n;

	for (tries = 0; tries < HVT_RUNNERS_TRIES; tries++) {
		/* A write is a few dozen stores with interrupts off. */
		seq = raw_read_seqcount_begin(&r->seq);
		n = 0;
		for (i = 0; i < min_t(u32, READ_ONCE(r->used), HVT_RUNNERS); i++) {
			const struct hvt_runner *e = &r->log[i];
			u64 start = max(e->start, from), end = min(e->end, to);

			/* A merged entry is all in a waiter's window or out. */
			if (end > start)
				n = ran_add(out, n, e, min(e->ns, end - start));
		}
		if (!read_seqcount_retry(&r->seq, seq))
			goto sort;
	}
	return 0;
sort:
	/* Longest first (a handful: insertion sort). */
	for (i = 1; i < n; i++) {
		struct hvt_ran t = out[i];

		for (j = i; j > 0 && out[j - 1].ns < t.ns; j--)
			out[j] = out[j - 1];
		out[j] = t;
	}
	return n;
}
