// SPDX-License-Identifier: GPL-2.0
/*
 * Always-on aggregates and accounting, per CPU so the exit path writes
 * only its own cache lines; merged when read.
 *
 * Clearing from another CPU would race with the writer, so clear only
 * bumps a generation: a probe that finds its CPU (or vCPU) stale resets
 * it before counting, and readers treat stale state as zero.
 */
#include <linux/ktime.h>
#include <linux/overflow.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "hvtrace.h"

unsigned long hvt_gen = 1;
u64 hvt_stats_since;
bool hvt_recording;

static struct hvt_cpu **cpus;
DEFINE_PER_CPU(struct hvt_cpu *, hvt_this_cpu);
/* Histogram of each reason: 0 = none yet, U8_MAX = the shared one. */
u8 hvt_hist_slot[HVT_NR_REASONS];
static atomic_t hist_next = ATOMIC_INIT(1);

static size_t cpu_size(void)
{
	return sizeof(struct hvt_cpu) + hvt_nr_hist * sizeof(struct hvt_hist);
}

int hvt_stats_init(void)
{
	int cpu;

	hvt_stats_since = ktime_get_ns();
	cpus = kcalloc(nr_cpu_ids, sizeof(*cpus), GFP_KERNEL);
	if (!cpus)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		cpus[cpu] = vzalloc_node(cpu_size(), cpu_to_node(cpu));
		if (!cpus[cpu]) {
			hvt_stats_exit();
			return -ENOMEM;
		}
		cpus[cpu]->gen = hvt_gen;
		per_cpu(hvt_this_cpu, cpu) = cpus[cpu];
	}
	return 0;
}

void hvt_stats_exit(void)
{
	int cpu;

	if (!cpus)
		return;
	for_each_possible_cpu(cpu)
		vfree(cpus[cpu]);
	kfree(cpus);
	cpus = NULL;
}

struct hvt_cpu *hvt_cpu(int cpu)
{
	return cpus[cpu];
}

/* First sight of reason RIDX: assign it a histogram. */
unsigned int hvt_hist_slot_assign(unsigned int ridx)
{
	unsigned int slot = READ_ONCE(hvt_hist_slot[ridx]);

	if (!slot) {
		/* First sight of this reason: give it a histogram if any
		 * is left, else the shared one (slot 0 is not a slot).
		 */
		slot = atomic_inc_return(&hist_next) - 1;
		if (slot >= hvt_nr_hist)
			slot = U8_MAX;
		if (cmpxchg(&hvt_hist_slot[ridx], 0, slot) != 0)
			slot = READ_ONCE(hvt_hist_slot[ridx]);
	}
	return slot;
}

void hvt_cpu_reset(struct hvt_cpu *c)
{
	u64 exits = c->exits, entries = c->entries;

	memset(c, 0, cpu_size());
	c->exits = exits;
	c->entries = entries;
	c->gen = READ_ONCE(hvt_gen);
}

void hvt_stats_clear(void)
{
	/* Serialized by the genl mutex. */
	WRITE_ONCE(hvt_gen, hvt_gen + 1);
	hvt_stats_since = ktime_get_ns();
}

static bool cpu_current(const struct hvt_cpu *c)
{
	return READ_ONCE(c->gen) == READ_ONCE(hvt_gen);
}

void hvt_acct_sum(struct hvt_acct *sum, int only_cpu)
{
	int cpu;

	u64 *dst = (u64 *)sum;
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct hvt_cpu *c = cpus[cpu];
		const u64 *src = (const u64 *)&c->acct;

		if ((only_cpu >= 0 && cpu != only_cpu) || !cpu_current(c))
			continue;
		for (i = 0; i < sizeof(*sum) / sizeof(u64); i++)
			dst[i] += READ_ONCE(src[i]);
	}
}

u64 hvt_exits_seen(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(cpus[cpu]->exits);
	return n;
}

u64 hvt_entries_seen(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(cpus[cpu]->entries);
	return n;
}

bool hvt_reason_merge(unsigned int ridx, struct hvt_reason_stat *stat,
		      struct hvt_hist *hist)
{
	unsigned int slot = READ_ONCE(hvt_hist_slot[ridx]);
	int cpu, i;

	memset(stat, 0, sizeof(*stat));
	if (hist)
		memset(hist, 0, sizeof(*hist));
	for_each_possible_cpu(cpu) {
		struct hvt_cpu *c = cpus[cpu];
		const struct hvt_reason_stat *s = &c->reason[ridx];
		u64 count = READ_ONCE(s->count);

		if (!cpu_current(c) || !count)
			continue;
		if (!stat->count || READ_ONCE(s->min_ns) < stat->min_ns)
			stat->min_ns = READ_ONCE(s->min_ns);
		stat->max_ns = max(stat->max_ns, READ_ONCE(s->max_ns));
		stat->count += count;
		stat->total_ns += READ_ONCE(s->total_ns);
		for (i = 0; i < HVTRACE_NR_PARTS; i++)
			stat->part_ns[i] += READ_ONCE(s->part_ns[i]);
		if (hist && slot && slot != U8_MAX)
			hvt_hist_merge(hist, &c->hist[slot]);
	}
	return slot && slot != U8_MAX;
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
	for_each_possible_cpu(cpu) {
		const struct hvt_cpu *c = cpus[cpu];

		if (!cpu_current(c))
			continue;
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
