// SPDX-License-Identifier: GPL-2.0
/*
 * The time split's out-of-line paths (vcpu_time.h has the state, the
 * drawing and the entry points): a vCPU's destruction, a slot's start,
 * a halt's end claiming the kernel sleeps logged before it, and the
 * split of an interrupt's wait at its injection (hvt_time_window(): from
 * the exit's stretches). An exit's close and the reset after it are
 * inline there, in the caller's out-of-line counting of a split exit, so
 * that path makes no extra calls.
 */
#include "vcpu_time.h"

void hvt_time_init(struct hvt_split *s)
{
	/* A slot taken over by identity only: its old thread lets go. */
	if (s->task)
		hvt_split_own(s, NULL);
	s->in_exit = false;
	s->where = HVT_ON_CPU;
	hvt_time_reset(s);
}

bool hvt_time_destroyed(struct hvt_split *s, u64 *d)
{
	hvt_split_own(s, NULL);
	if (!s->in_exit)
		return false;
	/* The split state may be all but empty: settle it anyway. */
	s->split = true;
	__hvt_time_end(s, hvt_time_now(), d);
	return true;
}

void hvt_time_ksleep_halted(struct hvt_split *s)
{
	unsigned int i;

	for (i = 0; i < min_t(u32, s->nr_log, HVT_STRETCHES); i++)
		if (s->log[i].part == HVT_KSLEEP)
			s->log[i].part = HVTRACE_PART_HALT;
	s->folded[HVTRACE_PART_HALT] += s->folded[HVT_KSLEEP];
	s->folded[HVT_KSLEEP] = 0;
}

/* NS more of PART (a kernel sleep no halt claimed is OTHER, as closed). */
static void window_add(struct hvt_window *w, u8 part, u64 ns)
{
	w->part[part == HVT_KSLEEP ? HVTRACE_PART_OTHER : part] += ns;
}

/*
 * Stretch E's time from LO on. A halt's polling less its gaps: its
 * runnable stretches inside are logged apart, and taken out where they
 * fall, so that the two never count the same time.
 */
static u64 stretch_from(const struct hvt_split *s, const struct hvt_stretch *e,
			u64 lo)
{
	u64 from = max(e->start, lo), t = hvt_since(e->end, from);
	unsigned int i;

	if (e->ns >= e->end - e->start)
		return t;
	for (i = 0; i < min_t(u32, s->nr_log, HVT_STRETCHES); i++) {
		const struct hvt_stretch *g = &s->log[i];

		if (g->part == HVTRACE_PART_RUNNABLE)
			t -= min(t, hvt_since(min(g->end, e->end),
					      max(g->start, from)));
	}
	return min(t, e->ns);
}

void hvt_time_window(const struct hvt_split *s, u64 from, u64 now,
		     struct hvt_window *w)
{
	const struct hvt_stretch *most = NULL;
	u64 lo, left, sum = 0, most_ns = 0;
	unsigned int i;

	memset(w, 0, sizeof(*w));
	/* Injected before any exit (KVM_RUN's first entry): handling. */
	if (!READ_ONCE(s->in_exit))
		return;
	w->guest_ns = hvt_since(min(s->exit_ts, now), from);
	/* Nothing happened to the exit (the common case): handling. */
	if (!s->split)
		return;
	lo = max(from, s->exit_ts);
	left = hvt_since(now, lo);
	for (i = 0; i < min_t(u32, s->nr_log, HVT_STRETCHES); i++) {
		const struct hvt_stretch *e = &s->log[i];
		u64 t = stretch_from(s, e, lo);

		window_add(w, e->part, t);
		if (e->part == HVTRACE_PART_RUNNABLE && t > most_ns) {
			most = e;
			most_ns = t;
		}
	}
	/* Folded stretches end by folded_end: their sums, up to it. */
	for (i = 0; i <= HVT_KSLEEP; i++)
		window_add(w, i, min(s->folded[i],
				     hvt_since(s->folded_end, lo)));
	/* Without the KVM_RUN kprobe the VMM has it until now, as closed. */
	if (s->in_user)
		window_add(w, HVTRACE_PART_VMM,
			   hvt_since(now, max(s->user_ts, lo)));
	/* Clocks of several CPUs: the parts never exceed the window. */
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		sum += w->part[i];
	for (i = HVTRACE_NR_PARTS; sum > left && i-- > 0;) {
		u64 cut = min(w->part[i], sum - left);

		w->part[i] -= cut;
		sum -= cut;
	}
	if (most && most->pid) {
		w->pre_ns = min(most_ns, w->part[HVTRACE_PART_RUNNABLE]);
		w->pre_pid = most->pid;
		w->pre_flags = most->vcpu ? HVTRACE_EVF_PREEMPT_VCPU : 0;
		memcpy(w->pre_comm, most->comm, TASK_COMM_LEN);
	}
}
