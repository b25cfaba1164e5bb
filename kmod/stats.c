// SPDX-License-Identifier: GPL-2.0
/*
 * Always-on aggregates and accounting, per CPU so the exit path writes
 * only its own cache lines; merged when read.
 *
 * A clear zeroes no counter: it records a baseline that users' views
 * subtract (counters since load stay for exporters). The per-reason
 * tables and histograms, most of a CPU's state, have ONE baseline merged
 * over CPUs (allocated at load), not one per CPU; the small accounting
 * has one per CPU, for the per-CPU rows. Reading another CPU's state
 * would race with its writer, so clear runs a work item on each CPU that
 * adds its state to the baseline in small pieces, each with preemption
 * off: the probes, which run with preemption off too, are in a piece
 * entirely or not at all. The same pieces reset minima and maxima.
 * Readers (GET_STATS, GET_STATUS) are racy by the increments in flight
 * on other CPUs, as they always were.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpu.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/mutex.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "mem.h"
#include "stats.h"

unsigned long hvt_gen = 1;
u64 hvt_stats_since;
u64 hvt_stats_loaded;
bool hvt_recording;
DEFINE_STATIC_KEY_FALSE(hvt_details);
struct cpumask hvt_cpus_traced;

static struct hvt_vmem *cpu_mem;	/* [nr_cpu_ids] */

/* The key opens before the flag is set and closes after it is cleared. */
void hvt_recording_set(bool on)
{
	if (on == hvt_recording)
		return;
	if (on)
		static_branch_inc(&hvt_details);
	WRITE_ONCE(hvt_recording, on);
	if (!on)
		static_branch_dec(&hvt_details);
}

/* The counters of every CPU at the last clear, merged. */
struct hvt_base {
	struct hvt_reason_stat reason[HVT_NR_REASONS];
	struct hvt_hist hist[];	/* as struct hvt_cpu's */
};

static struct hvt_vmem base_mem;
static struct hvt_base *base;
/* The clear's work items add to it one at a time. */
static DEFINE_MUTEX(base_lock);
DEFINE_PER_CPU(struct hvt_cpu *, hvt_this_cpu);
static DEFINE_PER_CPU(struct work_struct, clear_work);
static atomic64_t untraced;

/* Histogram of each reason: 0 = none yet, U8_MAX = the shared one. */
u8 hvt_hist_slot[HVT_NR_REASONS];
static atomic_t hist_next = ATOMIC_INIT(1);

size_t hvt_stats_cpu_bytes(void)
{
	return PAGE_ALIGN(sizeof(struct hvt_cpu) +
			  hvt_nr_hist * sizeof(struct hvt_hist));
}

static size_t base_bytes(void)
{
	return PAGE_ALIGN(sizeof(struct hvt_base) +
			  hvt_nr_hist * sizeof(struct hvt_hist));
}

static void clear_fn(struct work_struct *work);

int hvt_stats_init(void)
{
	int cpu;

	hvt_stats_loaded = ktime_get_ns();
	hvt_stats_since = hvt_stats_loaded;
	cpumask_clear(&hvt_cpus_traced);
	cpu_mem = kcalloc(nr_cpu_ids, sizeof(*cpu_mem), GFP_KERNEL);
	if (!cpu_mem)
		return -ENOMEM;
	if (hvt_vmem_alloc(&base_mem, base_bytes(), NUMA_NO_NODE)) {
		kfree(cpu_mem);
		cpu_mem = NULL;
		return -ENOMEM;
	}
	base = base_mem.addr;
	for_each_possible_cpu(cpu)
		INIT_WORK(per_cpu_ptr(&clear_work, cpu), clear_fn);
	return 0;
}

void hvt_stats_exit(void)
{
	int cpu;

	if (!cpu_mem)
		return;
	for_each_possible_cpu(cpu) {
		per_cpu(hvt_this_cpu, cpu) = NULL;
		hvt_vmem_free(&cpu_mem[cpu]);
	}
	cpumask_clear(&hvt_cpus_traced);
	kfree(cpu_mem);
	cpu_mem = NULL;
	hvt_vmem_free(&base_mem);
	base = NULL;
}

/* The CPU hotplug lock is held for writing (or at load, for reading). */
int hvt_stats_cpu_prepare(unsigned int cpu)
{
	struct hvt_cpu *c;
	unsigned int r;
	int err;

	if (per_cpu(hvt_this_cpu, cpu))
		return 0;	/* online before: its state stayed */
	err = hvt_vmem_alloc(&cpu_mem[cpu], hvt_stats_cpu_bytes(),
			     cpu_to_node(cpu));
	if (err)
		return err;
	c = cpu_mem[cpu].addr;
	for (r = 0; r < HVT_NR_REASONS; r++)
		c->reason[r].min_ns = U64_MAX;
	seqcount_init(&c->runners.seq);
	/* Fresh state, published before the CPU runs anything. */
	smp_store_release(per_cpu_ptr(&hvt_this_cpu, cpu), c);
	cpumask_set_cpu(cpu, &hvt_cpus_traced);
	return 0;
}

struct hvt_cpu *hvt_cpu(int cpu)
{
	/* Pairs with the release in hvt_stats_cpu_prepare(): zeroed state. */
	return smp_load_acquire(per_cpu_ptr(&hvt_this_cpu, cpu));
}

void hvt_stats_untraced(void)
{
	atomic64_inc(&untraced);
}

u64 hvt_exits_untraced(void)
{
	return atomic64_read(&untraced);
}

/* First sight of reason RIDX: assign it a histogram. */
unsigned int hvt_hist_slot_assign(unsigned int ridx)
{
	unsigned int slot = READ_ONCE(hvt_hist_slot[ridx]);

	if (!slot) {
		/* Give it a histogram if any is left, else the shared one
		 * (slot 0 is not a slot).
		 */
		slot = atomic_inc_return(&hist_next) - 1;
		if (slot >= hvt_nr_hist)
			slot = U8_MAX;
		if (cmpxchg(&hvt_hist_slot[ridx], 0, slot) != 0)
			slot = READ_ONCE(hvt_hist_slot[ridx]);
	}
	return slot;
}

/* Reason R of C into the baseline, and its minimum and maximum reset. */
static void reason_rebase(struct hvt_cpu *c, unsigned int r)
{
	struct hvt_reason_stat *s = &c->reason[r], *b = &base->reason[r];
	int i;

	b->count += s->count;
	b->total_ns += s->total_ns;
	b->no_entry += s->no_entry;
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		b->part_ns[i] += s->part_ns[i];
	s->min_ns = U64_MAX;
	s->max_ns = 0;
}

/*
 * C into the baseline in pieces: each reason with its own histogram
 * together, then every other reason with the shared histogram, the
 * accounting and the preemptors (a top list, not counters: emptied). A
 * piece is at most a histogram and the reason table. ATOMIC: the caller
 * is on C's CPU and each piece must keep the probes out (preemption
 * off); else C's CPU is offline.
 */
static void cpu_rebase(struct hvt_cpu *c, bool atomic)
{
	/* A reason may get its histogram meanwhile: each is taken once. */
	DECLARE_BITMAP(done, HVT_NR_REASONS);
	unsigned int r, slot;

	bitmap_zero(done, HVT_NR_REASONS);
	mutex_lock(&base_lock);
	for (r = 0; r < HVT_NR_REASONS; r++) {
		slot = READ_ONCE(hvt_hist_slot[r]);
		if (!slot || slot == U8_MAX)
			continue;
		__set_bit(r, done);
		if (atomic)
			preempt_disable();
		reason_rebase(c, r);
		hvt_hist_merge(&base->hist[slot], &c->hist[slot]);
		if (atomic) {
			preempt_enable();
			cond_resched();
		}
	}
	if (atomic)
		preempt_disable();
	for (r = 0; r < HVT_NR_REASONS; r++)
		if (!test_bit(r, done))
			reason_rebase(c, r);
	hvt_hist_merge(&base->hist[0], &c->hist[0]);
	c->acct_base = c->acct;
	memset(c->preemptor, 0, sizeof(c->preemptor));
	if (atomic)
		preempt_enable();
	mutex_unlock(&base_lock);
}

static void clear_fn(struct work_struct *work)
{
	cpu_rebase(this_cpu_read(hvt_this_cpu), true);
}

void hvt_stats_clear(void)
{
	int cpu;

	/* No CPU comes or goes meanwhile: an offline one has no writer. */
	cpus_read_lock();
	/* Readers meanwhile see more than since the clear, never less. */
	memset(base, 0, base_bytes());
	for_each_cpu(cpu, &hvt_cpus_traced) {
		if (cpu_online(cpu))
			schedule_work_on(cpu, per_cpu_ptr(&clear_work, cpu));
		else
			cpu_rebase(hvt_cpu(cpu), false);
	}
	for_each_cpu(cpu, &hvt_cpus_traced)
		flush_work(per_cpu_ptr(&clear_work, cpu));
	cpus_read_unlock();
	WRITE_ONCE(hvt_gen, hvt_gen + 1);
	hvt_stats_since = ktime_get_ns();
}

static void acct_add(struct hvt_acct *sum, int cpu, bool since_load)
{
	const struct hvt_cpu *c = hvt_cpu(cpu);
	const u64 *src = (const u64 *)&c->acct;
	const u64 *at_clear = (const u64 *)&c->acct_base;
	u64 *dst = (u64 *)sum;
	unsigned int i;

	for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
		dst[i] += since_load ? READ_ONCE(src[i]) :
			  hvt_sub_floor0(READ_ONCE(src[i]),
					 READ_ONCE(at_clear[i]));
}

void hvt_acct_sum(struct hvt_acct *sum, int only_cpu, bool since_load)
{
	int cpu;

	memset(sum, 0, sizeof(*sum));
	/* One CPU alone: a drain asks for each, so no walk of them all. */
	if (only_cpu >= 0) {
		if (only_cpu < nr_cpu_ids &&
		    cpumask_test_cpu(only_cpu, &hvt_cpus_traced))
			acct_add(sum, only_cpu, since_load);
	} else {
		for_each_cpu(cpu, &hvt_cpus_traced)
			acct_add(sum, cpu, since_load);
	}
	sum->seen = sum->filtered + sum->below + sum->recorded + sum->lost;
}

u64 hvt_exits_seen(void)
{
	u64 n = 0;
	int cpu;

	for_each_cpu(cpu, &hvt_cpus_traced)
		n += READ_ONCE(hvt_cpu(cpu)->exits);
	return n;
}

u64 hvt_entries_seen(void)
{
	u64 n = 0;
	int cpu;

	for_each_cpu(cpu, &hvt_cpus_traced)
		n += READ_ONCE(hvt_cpu(cpu)->entries);
	return n;
}

/* What the baseline holds of reason RIDX, out of *STAT and HIST. */
static void reason_since_clear(unsigned int ridx, unsigned int slot,
			       struct hvt_reason_stat *stat,
			       struct hvt_hist *hist)
{
	const struct hvt_reason_stat *b = &base->reason[ridx];
	int i;

	/* No hvt_ctl_mutex here: a clear may complete between our reads. */
	stat->count = hvt_sub_floor0(stat->count, READ_ONCE(b->count));
	stat->total_ns = hvt_sub_floor0(stat->total_ns,
					READ_ONCE(b->total_ns));
	stat->no_entry = hvt_sub_floor0(stat->no_entry,
					READ_ONCE(b->no_entry));
	for (i = 0; i < HVTRACE_NR_PARTS; i++)
		stat->part_ns[i] = hvt_sub_floor0(stat->part_ns[i],
						  READ_ONCE(b->part_ns[i]));
	if (!hist)
		return;
	for (i = 0; i < HVTRACE_HIST_BUCKETS; i++)
		hist->bucket[i] =
			hvt_sub_floor0(hist->bucket[i],
				       READ_ONCE(base->hist[slot].bucket[i]));
}

bool hvt_reason_merge(unsigned int ridx, struct hvt_reason_stat *stat,
		      struct hvt_hist *hist, bool since_load)
{
	unsigned int slot = READ_ONCE(hvt_hist_slot[ridx]);
	bool own_hist = slot && slot != U8_MAX;
	int cpu, i;

	memset(stat, 0, sizeof(*stat));
	stat->min_ns = U64_MAX;
	if (hist)
		memset(hist, 0, sizeof(*hist));
	for_each_cpu(cpu, &hvt_cpus_traced) {
		struct hvt_cpu *c = hvt_cpu(cpu);
		const struct hvt_reason_stat *s = &c->reason[ridx];
		u64 count = READ_ONCE(s->count);

		if (!count)
			continue;
		stat->min_ns = min(stat->min_ns, READ_ONCE(s->min_ns));
		stat->max_ns = max(stat->max_ns, READ_ONCE(s->max_ns));
		stat->count += count;
		stat->total_ns += READ_ONCE(s->total_ns);
		stat->no_entry += READ_ONCE(s->no_entry);
		for (i = 0; i < HVTRACE_NR_PARTS; i++)
			stat->part_ns[i] += READ_ONCE(s->part_ns[i]);
		if (hist && own_hist)
			hvt_hist_merge(hist, &c->hist[slot]);
	}
	stat->min_ns = hvt_min_shown(stat->min_ns);
	if (!since_load)
		reason_since_clear(ridx, slot, stat, own_hist ? hist : NULL);
	return own_hist;
}

/*
 * Find PID in TABLE of N, or the entry to give it: a free one, else the
 * lightest, which it replaces (the heavy hitters stay).
 */
static struct hvt_preemptor *preemptor_slot(struct hvt_preemptor *table,
					    unsigned int n, u32 pid,
					    const char *comm)
{
	struct hvt_preemptor *p, *light = table;

	for (p = table; p < table + n; p++) {
		if (p->pid == pid && !memcmp(p->comm, comm, TASK_COMM_LEN))
			return p;
		if (!p->pid || p->ns < light->ns)
			light = p;
		if (!p->pid)
			break;
	}
	if (light->pid != pid || memcmp(light->comm, comm, TASK_COMM_LEN)) {
		memset(light, 0, sizeof(*light));
		light->pid = pid;
		memcpy(light->comm, comm, TASK_COMM_LEN);
	}
	return light;
}

void hvt_preemptor_add(struct hvt_cpu *c, u32 pid, const char *comm,
		       bool vcpu, u64 ns)
{
	struct hvt_preemptor *p;

	p = preemptor_slot(c->preemptor, HVT_NR_PREEMPTORS, pid, comm);
	p->vcpu = vcpu;
	p->count++;
	p->ns += ns;
}

unsigned int hvt_preemptors_merge(struct hvt_preemptor *out, unsigned int n)
{
	unsigned int used = 0, i;
	int cpu;

	memset(out, 0, n * sizeof(*out));
	for_each_cpu(cpu, &hvt_cpus_traced) {
		const struct hvt_cpu *c = hvt_cpu(cpu);

		for (i = 0; i < HVT_NR_PREEMPTORS; i++) {
			struct hvt_preemptor src = c->preemptor[i], *p;

			/* A racy copy: a torn comm is only cosmetic. */
			if (!src.pid || !src.count)
				continue;
			p = preemptor_slot(out, n, src.pid, src.comm);
			p->vcpu = src.vcpu;
			p->count += src.count;
			p->ns += src.ns;
		}
	}
	while (used < n && out[used].pid)
		used++;
	return used;
}
