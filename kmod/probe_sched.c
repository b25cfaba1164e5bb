// SPDX-License-Identifier: GPL-2.0
/*
 * The scheduler's side of an exit: sched_switch and sched_wakeup, found by
 * name among the core kernel's tracepoints (they are not exported).
 *
 * They run for every task of the host, so a task that is no vCPU thread
 * costs one filter lookup per task involved (threads.h) and nothing
 * else. sched_process_free tells when a vCPU thread's task_struct goes.
 * For a vCPU thread inside an exit they advance its time split
 * (vcpu_time.h); a switch-in also credits whoever ran while it waited and,
 * after a preemption inside KVM, counts and perhaps records it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/sched/clock.h>
#include <linux/tracepoint.h>
#include <trace/events/sched.h>

#include "config.h"
#include "probes.h"
#include "record.h"
#include "runners.h"
#include "threads.h"
#include "vcpu_time.h"
#include "watch.h"

/* While recording: the preemption passes filters and its threshold. */
static void consider_preempt(struct hvt_cpu *c, const struct hvt_vcpu *v,
			     u64 off, int cpu)
{
	const struct hvt_config *cfg = rcu_dereference_sched(hvt_cfg);

	c->acct.pre_seen++;
	if (hvt_filtered(cfg, v, hvt_reason_index(v->isa, v->reason))) {
		c->acct.pre_filtered++;
		return;
	}
	if (off < cfg->preempt_threshold_ns) {
		c->acct.pre_below++;
		return;
	}
	hvt_record_preempt(c, v, off, cpu);
}

/*
 * Credit who ran on the CPU V's thread waited for (on CPU now), from
 * that CPU's log (runners.h); it names the stretch's preemptor. False:
 * the log knows nobody (it kept changing under the read), or V came back
 * on another CPU: that CPU's log holds only stretches that ended, not
 * the one still running there, so the caller's fallback is the fairer.
 */
static bool credit_runners(struct hvt_cpu *c, struct hvt_vcpu *v,
			   const struct hvt_switched_in *w, u64 now, int cpu)
{
	struct hvt_cpu *off = hvt_cpu(w->cpu_off);
	struct hvt_ran *ran = c ? c->ran : NULL;
	unsigned int i, n = 0;

	if (unlikely(!off))
		return false;
	/* Read, then leave: the last waiter gone, the log may start anew. */
	if (ran && w->cpu_off == cpu)
		n = hvt_runners_in(&off->runners, w->run_from, now, ran);
	hvt_runners_done(&off->runners);
	for (i = 0; i < n; i++)
		hvt_preemptor_add(c, ran[i].pid, ran[i].comm, ran[i].vcpu,
				  ran[i].ns);
	if (n)
		hvt_time_ran_most(&v->split, w, ran[0].pid, ran[0].comm,
				  ran[0].vcpu);
	return n;
}

/*
 * V's thread came in and its split says what that ended (still held):
 * credit who ran instead, count a preemption inside KVM and perhaps
 * record it.
 */
static void switched_in(struct hvt_vcpu *v, const struct hvt_switched_in *w,
			u64 now, int cpu)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	bool credited = false;

	/* Before anything else: a waiter leaves its CPU's count. */
	if (w->queued)
		credited = credit_runners(c, v, w, now, cpu);
	if (unlikely(!c))
		return;
	/* Else the task that took the CPU, or the one that gave it back. */
	if (!credited && w->pid)
		hvt_preemptor_add(c, w->pid, w->comm, w->vcpu, w->runnable_ns);
	if (w->preempted) {
		struct hvt_vcpu_stat *vs = hvt_vcpu_stat(v);

		vs->preemptions++;
		vs->preempted_ns += w->off_ns;
		if (READ_ONCE(hvt_recording))
			consider_preempt(c, v, w->off_ns, cpu);
		hvt_watch_preempt(v, w->off_ns);
	}
}

/*
 * A switch that may concern a vCPU thread, or a CPU where one waits: out
 * of line, so the common switch makes no call and saves no registers.
 */
static noinline notrace void vcpu_switch(bool preempt,
					 struct task_struct *prev,
					 struct task_struct *next,
					 struct hvt_cpu *c, bool watched)
{
	struct hvt_vcpu *out = hvt_thread_vcpu(prev);
	struct hvt_vcpu *in = hvt_thread_vcpu(next);
	/* Initialized: INIT_STACK_ALL_ZERO would zero it in memory. */
	struct hvt_switched_in w = {};
	int cpu;
	u64 now;

	if (!out && !in && !watched)
		return;
	cpu = smp_processor_id();
	now = hvt_clock();
	if (watched)
		hvt_runners_switch(&c->runners, prev, out, now);
	if (out && hvt_time_switch_out(&out->split, prev, preempt, next, in,
				       now, cpu) && c)
		hvt_runners_wait(&c->runners, now);
	if (in && hvt_time_switch_in(&in->split, next, prev, out, now, &w)) {
		switched_in(in, &w, now, cpu);
		hvt_split_leave(&in->split);
	}
}

/* notrace: on every context switch of the host (see probe_kvm.c). */
static notrace void hvt_on_switch(void *data, bool preempt,
				  struct task_struct *prev,
				  struct task_struct *next,
				  unsigned int prev_state)
{
	struct hvt_cpu *c = this_cpu_read(hvt_this_cpu);
	bool watched = c && hvt_runners_watched(&c->runners);

	if (likely(!hvt_thread_maybe(prev) && !hvt_thread_maybe(next) &&
		   !watched))
		return;
	vcpu_switch(preempt, prev, next, c, watched);
}

static notrace void hvt_on_wakeup(void *data, struct task_struct *p)
{
	struct hvt_vcpu *v = hvt_thread_vcpu(p);

	if (unlikely(v))
		hvt_time_wakeup(&v->split, p);
}

/* A task_struct is freed: if it was a vCPU thread, forget it. */
static void hvt_on_free(void *data, struct task_struct *p)
{
	if (unlikely(hvt_thread_maybe(p)))
		hvt_thread_gone(p);
}

/* The compiler checks the probes against the tracepoints' prototypes. */
static_assert(sizeof(register_trace_sched_switch(hvt_on_switch, NULL)));
static_assert(sizeof(register_trace_sched_wakeup(hvt_on_wakeup, NULL)));
static_assert(sizeof(register_trace_sched_process_free(hvt_on_free, NULL)));

static struct {
	const char *name;
	void *probe;
	struct tracepoint *tp;
} sched_probes[] = {
	{ "sched_process_free", hvt_on_free },
	{ "sched_wakeup", hvt_on_wakeup },
	{ "sched_switch", hvt_on_switch },
};

static void find_tracepoint(struct tracepoint *tp, void *priv)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sched_probes); i++)
		if (!strcmp(tp->name, sched_probes[i].name))
			sched_probes[i].tp = tp;
}

int hvt_probe_sched_register(void)
{
	unsigned int i;
	int err;

	for_each_kernel_tracepoint(find_tracepoint, NULL);
	for (i = 0; i < ARRAY_SIZE(sched_probes); i++) {
		if (!sched_probes[i].tp) {
			pr_err("tracepoint %s not found\n", sched_probes[i].name);
			err = -ENOENT;
			goto unwind;
		}
		err = tracepoint_probe_register(sched_probes[i].tp,
						sched_probes[i].probe, NULL);
		if (err)
			goto unwind;
	}
	return 0;

unwind:
	while (i--)
		tracepoint_probe_unregister(sched_probes[i].tp,
					    sched_probes[i].probe, NULL);
	return err;
}

void hvt_probe_sched_unregister(void)
{
	unsigned int i = ARRAY_SIZE(sched_probes);

	while (i--)
		tracepoint_probe_unregister(sched_probes[i].tp,
					    sched_probes[i].probe, NULL);
}
