// SPDX-License-Identifier: GPL-2.0
/*
 * user/report/report_agg.c and user/report/report_preempt.c: the time split of every
 * row, preemption records kept apart from exits, each row's top
 * preemptor (ties to the lower pid), hot spots keyed by (page, RIP,
 * reason), and full tables counting what they cannot hold.
 * user/report/report_irq.c and report_late_irqs.c: late interrupts are
 * no exits, the longest kept exactly, their section's text and JSON and
 * each one's why.
 */
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

/* The engine itself (or its test): its private state. */
#define HVCTL_REPORT_ENGINE
#include "output.h"
#include "report_engine.h"
#include "report_html.h"
#include "report_late_irqs.h"
#include "trace_write.h"
#include "unit.h"

#define PAGE	0xfebf0000ULL
#define RIP	0xffffffff81603000ULL

static uint64_t now = 1000000;

/*
 * An SVM NPF exit of vCPU 0 at PAGE from RIP (0: none): DUR long, of
 * which RUN runnable and VMM in the VMM; PID (0: none) ran PNS of it.
 */
static struct trace_event npf(uint64_t rip, uint64_t dur, uint64_t vmm,
			      uint64_t run, uint32_t pid, uint64_t pns)
{
	struct trace_event ev = { .id = TRACE_EV_EXIT_SVM, .cpu = 0 };
	struct trace_record *e = &ev.e;

	now += dur + 1000;
	ev.ts_ns = now;
	e->duration_ns = dur;
	e->part_ns[HVTRACE_PART_VMM] = vmm;
	e->part_ns[HVTRACE_PART_RUNNABLE] = run;
	e->handling_ns = dur - vmm - run;
	e->guest_ns = 1000;
	e->reason = 0x400;
	e->isa = HVTRACE_ISA_SVM;
	e->type = HVTRACE_EV_EXIT;
	e->addr = PAGE + 0x10;
	e->flags = HVTRACE_EVF_ADDR_GPA | (rip ? HVTRACE_EVF_RIP_VALID : 0);
	e->rip = rip;
	e->vm_id = 1;
	e->vm_pid = 4000;
	e->tid = 4001;
	e->preempt_pid = pid;
	e->preempt_ns = pns;
	snprintf(e->preempt_comm, sizeof(e->preempt_comm), "task%u", pid);
	return ev;
}

/* A preemption record of vCPU VCPU during an NPF: PID took DUR. */
static struct trace_event preempt(uint32_t vcpu, uint32_t pid, uint64_t dur,
				  bool is_vcpu)
{
	struct trace_event ev = npf(RIP, dur, 0, dur, pid, dur);

	ev.id = TRACE_EV_PREEMPT_SVM;
	ev.e.type = HVTRACE_EV_PREEMPT;
	ev.e.handling_ns = 0;
	ev.e.guest_ns = 0;
	ev.e.vcpu_id = vcpu;
	ev.e.tid = 4001 + vcpu;
	if (is_vcpu)
		ev.e.flags |= HVTRACE_EVF_PREEMPT_VCPU;
	return ev;
}

/*
 * Guest mark ID of vCPU 0 at a CPUID exit: no exit, and its clocks, where
 * an exit's parts are, must not count as any.
 */
static struct trace_event mark(uint64_t id)
{
	struct trace_event ev = npf(RIP, 0, 0, 0, 0, 0);

	ev.id = TRACE_EV_MARK_SVM;
	ev.e.type = HVTRACE_EV_MARK;
	ev.e.reason = 0x72;
	ev.e.flags = HVTRACE_EVF_RIP_VALID;
	ev.e.handling_ns = ev.e.guest_ns = 0;
	ev.e.info1 = id;
	ev.e.info2 = 999000;
	ev.e.mark.host_tsc = 1000000;
	ev.e.mark.tsc_offset = -1000ULL;
	ev.e.mark.tsc_ratio = 1ULL << 32;
	ev.e.mark.tsc_frac_bits = 32;
	return ev;
}

/*
 * A late interrupt of vCPU 2, vector 0xec after an HLT exit, its wait
 * mostly runnable while task 99 ran: in no count of the report (no exit,
 * and its reason is a vector), or 99 would top every preemptor.
 */
static struct trace_event late_irq(void)
{
	struct trace_event ev = npf(0, 90000, 0, 60000, 99, 60000);

	ev.id = TRACE_EV_IRQ_SVM;
	ev.e.type = HVTRACE_EV_IRQ;
	ev.e.reason = 0xec;
	ev.e.info1 = HVTRACE_VCPU_IRQ_TIMER;
	ev.e.info2 = 0x78;
	ev.e.addr = 0;
	ev.e.flags = 0;
	ev.e.vcpu_id = 2;
	ev.e.tid = 4003;
	return ev;
}

static void add(struct report *rep, struct trace_event ev)
{
	report_add(rep, &ev);
}

/* The preemptor TOP names is PID. */
static void check_top(const struct report *rep, uint32_t top, uint32_t pid)
{
	const struct rep_preemptor *p = rep_preemptor_at(rep, top);

	if (CHECK_MSG(p != NULL, "no top preemptor, want %u", pid))
		CHECK_INT(p->pid, pid);
}

/* Marks past REP_MAX_MARKS: counted, not kept; no second pass adds them. */
static void test_marks(void)
{
	struct report *rep = report_new();
	const struct rep_mark *m;
	uint64_t total;

	if (!CHECK(rep != NULL))
		return;
	for (unsigned int i = 0; i < REP_MAX_MARKS + 44; i++)
		add(rep, mark(i));
	CHECK_INT(report_marks(rep, &m, &total), REP_MAX_MARKS);
	CHECK_U64(total, REP_MAX_MARKS + 44);
	CHECK_U64(m[REP_MAX_MARKS - 1].id, REP_MAX_MARKS - 1);
	CHECK_U64(rep->events, 0);
	CHECK_INT(rep->nr_reasons, 0);
	report_again(rep);
	add(rep, mark(1000));
	CHECK_INT(report_marks(rep, &m, &total), REP_MAX_MARKS);
	CHECK_U64(total, REP_MAX_MARKS + 44);
	report_free(rep);
}

static struct trace_reader *empty_trace(char *dir)
{
	static const struct trace_env env = { .hostname = "unit" };
	struct trace_writer *w = trace_create(dir, 1, &env);
	char err[256];

	if (!w || trace_finish(w))
		return NULL;
	return trace_open(dir, 0, err, sizeof(err));
}

static const struct rep_entry *only_entry(const struct rep_table *t)
{
	for (unsigned int i = 0; i < rep_table_cap(t); i++)
		if (t->e[i].used)
			return &t->e[i];
	return NULL;
}

static void test_split_and_preemptors(struct trace_reader *r)
{
	struct report *rep = report_new();
	const struct rep_preemptor *p;
	const struct rep_entry *v;
	const struct rep_split *s;
	unsigned int n;

	if (!CHECK(rep != NULL))
		return;
	/* Task 77 takes 30us of the first exit, 78 20 + 15us of two more. */
	add(rep, npf(RIP, 100000, 40000, 30000, 77, 30000));
	add(rep, npf(RIP, 50000, 10000, 20000, 78, 20000));
	add(rep, npf(RIP, 50000, 10000, 15000, 78, 15000));
	add(rep, npf(0, 10000, 0, 0, 0, 0));	/* no RIP, not preempted */
	/* Records: not exits; vCPU 1 has no exit at all. */
	add(rep, preempt(0, 77, 30000, false));
	add(rep, preempt(1, 4102, 5000, true));
	add(rep, late_irq());
	add(rep, mark(7));
	CHECK_INT(report_finish(rep, r), 0);

	CHECK_U64(rep->events, 4);
	CHECK_U64(rep->all_ns, 210000);
	CHECK_U64(rep->preempts, 2);
	CHECK_U64(rep->preempt_ns, 35000);
	CHECK_U64(rep->all_split.part_ns[REP_VMM], 60000);
	CHECK_U64(rep->all_split.part_ns[REP_RUNNABLE], 65000);
	CHECK_U64(rep->all_split.part_ns[REP_HANDLING], 85000);
	CHECK_U64(rep->all_split.guest_ns, 4000);
	CHECK_INT(rep->nr_marks, 1);
	CHECK_U64(rep->marks[0].id, 7);
	CHECK_U64(rep->marks[0].guest_tsc, 999000);
	CHECK_U64(rep->marks[0].host_tsc, 1000000);
	CHECK_U64(rep->marks[0].tsc_offset, -1000ULL);
	CHECK_U64(rep->marks[0].ts_ns, now);

	/* One reason: its split, its records, 78 on top (35us > 30us). */
	CHECK_INT(rep->nr_reasons, 1);
	s = &rep->reasons[0].split;
	CHECK_U64(s->part_ns[REP_RUNNABLE], 65000);
	CHECK_U64(s->preempts, 2);
	CHECK_U64(s->preempt_ns, 35000);
	check_top(rep, s->top, 78);
	p = rep_preemptor_at(rep, s->top);
	CHECK_STR(p ? p->comm : NULL, "task78");
	CHECK_U64(s->top_ns, 35000);

	/* vCPU 0: four exits, one record; vCPU 1: a record, no exits. */
	CHECK_INT(rep->vcpus.used, 2);
	for (unsigned int i = 0; i < rep_table_cap(&rep->vcpus); i++) {
		v = &rep->vcpus.e[i];
		if (!v->used)
			continue;
		s = rep_split_of(&rep->vcpus, v);
		if ((uint32_t)v->key == 0) {
			CHECK_U64(v->count, 4);
			CHECK_U64(s->preempts, 1);
			CHECK_U64(s->preempt_ns, 30000);
			CHECK_U64(s->guest_ns, 4000);
			CHECK_U64(s->top_ns, 35000);
		} else {
			CHECK_U64(v->count, 0);
			CHECK_U64(s->preempts, 1);
			CHECK_U64(s->preempt_ns, 5000);
			CHECK_INT(s->top, 0);
		}
	}

	/* Hot spots: (PAGE, RIP) and (PAGE, no RIP) apart. */
	CHECK_INT(rep->spots.used, 2);
	for (unsigned int i = 0; i < rep_table_cap(&rep->spots); i++) {
		v = &rep->spots.e[i];
		if (!v->used)
			continue;
		CHECK_U64(v->key, PAGE);
		s = rep_split_of(&rep->spots, v);
		if (v->key2 == RIP) {
			CHECK_U64(v->count, 3);
			CHECK_U64(v->total_ns, 200000);
			CHECK_U64(s->part_ns[REP_RUNNABLE], 65000);
			CHECK_U64(s->top_ns, 35000);
		} else {
			CHECK_U64(v->key2, REP_NO_RIP);
			CHECK_U64(v->count, 1);
			CHECK_INT(s->top, 0);
		}
	}
	v = only_entry(&rep->pages);
	if (CHECK(v != NULL))
		CHECK_U64(v->count, 4);

	/* Preemptors: by the time their records stalled vCPUs. */
	n = rep_preemptors_sorted(rep);
	CHECK_INT(n, 3);
	CHECK_INT(rep->pre_order[0]->pid, 77);
	CHECK_U64(rep->pre_order[0]->records, 1);
	CHECK_U64(rep->pre_order[0]->stall_ns, 30000);
	CHECK_U64(rep->pre_order[0]->noted_ns, 30000);
	CHECK_INT(rep->pre_order[1]->pid, 4102);
	CHECK(rep->pre_order[1]->vcpu);
	CHECK_INT(rep->pre_order[2]->pid, 78);
	CHECK_U64(rep->pre_order[2]->records, 0);
	CHECK_U64(rep->pre_order[2]->noted, 2);
	CHECK_U64(rep->pre.records, 2);
	CHECK_U64(rep->pre.noted, 3);
	CHECK_U64(rep->pre.noted_ns, 65000);
	/* The whole trace's top preemptor: the most noted time. */
	check_top(rep, rep->all_split.top, 78);
	report_free(rep);
}

/* Equal noted time: the lower pid is the top, whatever the order. */
static void test_tie(struct trace_reader *r)
{
	struct report *rep = report_new();

	if (!CHECK(rep != NULL))
		return;
	add(rep, npf(RIP, 10000, 0, 5000, 900, 5000));
	add(rep, npf(RIP, 10000, 0, 5000, 800, 5000));
	report_finish(rep, r);
	check_top(rep, rep->reasons[0].split.top, 800);
	report_free(rep);
}

/* Full tables: preemptors past the limit go to other, blame is counted. */
static void test_full(struct trace_reader *r)
{
	struct report *rep = report_new();
	unsigned int limit;

	if (!CHECK(rep != NULL))
		return;
	limit = rep->pre.limit;
	for (unsigned int i = 0; i < limit + 10; i++)
		add(rep, preempt(0, 10000 + i, 100, false));
	CHECK_INT(rep->pre.used, limit);
	CHECK_U64(rep->pre.other.records, 10);
	CHECK_U64(rep->pre.other.stall_ns, 1000);
	CHECK_U64(rep->pre.records, limit + 10);
	/* (row, task) pairs: 4000 RIPs and hot spots, 8 tasks each. */
	for (unsigned int i = 0; i < 32000; i++)
		add(rep, npf(RIP + 0x10 * (i / 8), 1000, 0, 500, 10000 + i % 8,
			     500));
	report_finish(rep, r);
	CHECK_INT(rep->blame.used, rep->blame.limit);
	CHECK(rep->blame.lost > 0);
	CHECK_U64(rep->blame.lost_ns, rep->blame.lost * 500);
	report_free(rep);
}

/*
 * A RIP table that overflows: NR_NOISE RIPs seen once, short, and three
 * heavy RIPs every 100th exit. The second pass counts the seeds the same
 * whatever the order it reads them in (report_again_any_order()).
 */
#define NR_NOISE	30000

static struct report *summarized(const struct trace_event *evs,
				 unsigned int n, bool reverse,
				 struct trace_reader *r)
{
	struct report *rep = report_new();
	unsigned int used;

	if (!CHECK(rep != NULL))
		return NULL;
	for (unsigned int i = 0; i < n; i++)
		report_add(rep, &evs[i]);
	/* Every held row shown: the late ones too, so it takes a recount. */
	CHECK(report_wants_pass(rep, 100000));
	report_again(rep);
	CHECK(report_again_any_order(rep));
	CHECK(rep->rips.seeded);
	used = rep->rips.used;
	for (unsigned int i = 0; i < n; i++)
		report_add(rep, &evs[reverse ? n - 1 - i : i]);
	/* Only the seeds are counted again: no key came in. */
	CHECK_INT(rep->rips.used, used);
	CHECK_INT(report_finish(rep, r), 0);
	return rep;
}

static void test_recount_any_order(struct trace_reader *r)
{
	struct trace_event *evs = calloc(NR_NOISE, sizeof(*evs));
	struct report *fwd = NULL, *rev = NULL;
	unsigned int heavy[3] = { 0 }, same = 0;

	if (!CHECK(evs != NULL))
		return;
	for (unsigned int i = 0; i < NR_NOISE; i++) {
		bool big = !(i % 100);
		uint64_t rip = big ? RIP + 0x40 * (i / 100 % 3) :
			       RIP + 0x1000 + 0x10ULL * i;

		evs[i] = npf(rip, big ? 1000000 : 1000, 0, 0, 0, 0);
	}
	fwd = summarized(evs, NR_NOISE, false, r);
	rev = summarized(evs, NR_NOISE, true, r);
	if (!fwd || !rev)
		goto out;
	for (unsigned int i = 0; i < rep_table_cap(&fwd->rips); i++) {
		const struct rep_entry *a = &fwd->rips.e[i], *b = &rev->rips.e[i];

		if (!a->used)
			continue;
		same += a->key == b->key && a->count == b->count &&
			a->total_ns == b->total_ns && a->max_ns == b->max_ns &&
			a->reason == b->reason && a->used == b->used;
		for (unsigned int k = 0; k < 3; k++)
			if (a->key == RIP + 0x40 * k)
				heavy[k] = a->count;
	}
	CHECK_INT(same, fwd->rips.used);
	CHECK_U64(fwd->rips.other.count, rev->rips.other.count);
	CHECK_U64(fwd->rips.other.total_ns, rev->rips.other.total_ns);
	/* The heavy RIPs survive, counted exactly. */
	for (unsigned int k = 0; k < 3; k++)
		CHECK_INT(heavy[k], NR_NOISE / 100 / 3);
	/* Every other exit is a seed's (one each) or the other row's. */
	CHECK_U64(fwd->rips.other.count,
		  NR_NOISE - NR_NOISE / 100 - (fwd->rips.used - 3));
out:
	report_free(fwd);
	report_free(rev);
	free(evs);
}

/*
 * Noise exit I's duration: weights differ, and the first 4000 (in before
 * the first compaction) weigh more, so compactions keep and move some.
 */
static uint64_t noise_ns(unsigned int i)
{
	return (i < 4000 ? 20000 + i * 7919ULL % 50000 : 1000) +
	       i * 7919ULL % 5000;
}

/*
 * The same summary, shown three rows deep: the heavy RIPs came in before
 * the first compaction and were counted exactly all along (their splits
 * and preemptors too, through compactions that move rows), so one pass
 * is enough; the late keys go to other, and the bound covers them.
 */
static void test_one_pass(struct trace_reader *r)
{
	struct trace_event *evs = calloc(NR_NOISE, sizeof(*evs));
	struct report *rep = report_new();
	const struct rep_summary *sum;
	struct rep_table_info info;
	unsigned int late = 0, noise = 0, good = 0;
	uint64_t held = 0;
	struct rep_iter it;
	struct rep_row row;

	if (!CHECK(evs != NULL && rep != NULL))
		goto out;
	for (unsigned int i = 0; i < NR_NOISE; i++) {
		bool big = !(i % 100);
		unsigned int k = i / 100 % 3;

		evs[i] = big ? npf(RIP + 0x40 * k, 1000000, 0, 500000, 900 + k,
				   400000) :
			       npf(RIP + 0x1000 + 0x10ULL * i, noise_ns(i), 0, 500,
				   700 + i % 5, 500);
		/* No page: the hot spots (always recounted) stay small. */
		if (!big)
			evs[i].e.flags &= ~HVTRACE_EVF_ADDR_GPA;
		report_add(rep, &evs[i]);
	}
	CHECK(rep->rips.sketching);
	CHECK(!report_wants_pass(rep, 3));
	CHECK(report_wants_pass(rep, 100000));
	CHECK_INT(report_finish(rep, r), 0);
	CHECK(rep->rips.proven);
	report_table_info(rep, REP_T_RIPS, &info);
	CHECK(info.proven && !info.seeded);
	if (!CHECK(rep_iter_start(&it, rep, REP_T_RIPS, REP_BY_TIME) == 0))
		goto out;
	for (unsigned int k = 0; k < 3 && rep_iter_next(&it, &row); k++) {
		CHECK_U64(row.key & ~0xc0ULL, RIP);
		CHECK_U64(row.count, NR_NOISE / 100 / 3);
		CHECK_U64(row.total_ns, NR_NOISE / 100 / 3 * 1000000ULL);
		CHECK_U64(row.split->part_ns[REP_RUNNABLE],
			  NR_NOISE / 100 / 3 * 500000ULL);
		check_top(rep, row.split->top, 900 + (row.key - RIP) / 0x40);
	}
	/*
	 * Every row held is exact, the noise's too (many moved in the
	 * compactions, their splits and preemptors with them).
	 */
	rep_iter_rewind(&it);
	while (rep_iter_next(&it, &row)) {
		uint64_t i = (row.key - RIP - 0x1000) / 0x10;
		const struct rep_preemptor *p = rep_preemptor_at(rep,
							row.split->top);

		held += row.count;
		if (row.key < RIP + 0x1000)
			continue;
		noise++;
		good += row.count == 1 && row.total_ns == noise_ns(i) &&
			row.split->part_ns[REP_RUNNABLE] == 500 && p &&
			p->pid == 700 + i % 5;
	}
	rep_iter_end(&it);
	CHECK(noise > 1000);
	CHECK_INT(good, noise);
	/* No late key is left; other has every exit the rows have not. */
	for (unsigned int i = 0; i < rep_table_cap(&rep->rips); i++)
		late += rep->rips.e[i].used && rep->rips.e[i].late;
	CHECK_INT(late, 0);
	CHECK_U64(held + info.other.count, NR_NOISE);
	CHECK(info.bound_ns >= 1000 && info.bound_ns < 1000000);
	CHECK(rep->rips.compactions >= 2);
	sum = report_summary(rep);
	CHECK_U64(sum->blame_lost, 0);
out:
	report_free(rep);
	free(evs);
}

/* An exit at RIP of DUR ns with no page: only the RIP table keys it. */
static struct trace_event at_rip(uint64_t rip, uint64_t dur)
{
	struct trace_event ev = npf(rip, dur, 0, 0, 0, 0);

	ev.e.flags &= ~HVTRACE_EVF_ADDR_GPA;
	return ev;
}

/*
 * A RIP table filled with H (3000 ns, first), K (500 ns) and RIPs of
 * 700 ns: the first compaction (at the rank of a quarter, d = 700)
 * keeps H alone, and the bound is 700; the RIP that made it compact
 * comes in late.
 */
static struct report *filled(void)
{
	struct report *rep = report_new();
	unsigned int limit;

	if (!CHECK(rep != NULL))
		return NULL;
	limit = rep->rips.limit;
	add(rep, at_rip(RIP, 3000));
	add(rep, at_rip(RIP + 0x10, 500));
	for (unsigned int i = 2; i <= limit; i++)
		add(rep, at_rip(RIP + 0x1000 + 0x10ULL * i, 700));
	CHECK_INT(rep->rips.compactions, 1);
	CHECK_U64(rep->rips.bound_ns, 700);
	CHECK_INT(rep->rips.used, 2);
	/* H is above all the late RIP can have had (700 + 700). */
	CHECK(!report_wants_pass(rep, 1));
	return rep;
}

/*
 * K comes back (2600 ns, late): 3100 in all, more than H, though its row
 * says 2600. Only a recount can tell; a report that skipped it anyway
 * must not claim anything in other is below K's 3100.
 */
static void test_key_back(struct trace_reader *r)
{
	struct report *rep = filled();

	if (!rep)
		return;
	add(rep, at_rip(RIP + 0x10, 2600));
	CHECK(report_wants_pass(rep, 1));
	CHECK(!report_wants_pass(rep, 0));
	CHECK_INT(report_finish(rep, r), 0);
	CHECK(rep->rips.proven);
	CHECK_U64(rep->rips.bound_ns, 2600 + 700);
	CHECK_U64(rep->rips.other.total_ns, 500 + 2600 + (uint64_t)700 *
		  (rep->rips.limit - 1));
	report_free(rep);
}

/* A hot key that comes after the table filled: one pass cannot say. */
static void test_late_key(void)
{
	struct report *rep = filled();

	if (!rep)
		return;
	add(rep, at_rip(RIP + 0x100, 5000));
	CHECK(report_wants_pass(rep, 1));
	report_free(rep);
}

/* A late interrupt: who, what, and how its wait split. */
struct irq_spec {
	uint32_t vcpu;
	uint8_t vector;
	uint64_t source;		/* HVTRACE_VCPU_IRQ_* */
	int64_t raise;			/* late[]: from T0 */
	uint64_t ns;			/* the trace's time: RAISE + NS */
	uint64_t guest, vmm, halt, run, other;	/* handling the rest */
	uint32_t exit;			/* the SVM exit it was injected at */
	uint32_t pid;			/* ran most of the runnable wait */
	const char *comm;
	bool pre_vcpu;
};

static struct trace_event irq(struct irq_spec q)
{
	struct trace_event ev = { .id = TRACE_EV_IRQ_SVM, .cpu = 2 };
	struct trace_record *e = &ev.e;

	ev.ts_ns = (uint64_t)q.raise + q.ns;
	e->type = HVTRACE_EV_IRQ;
	e->isa = HVTRACE_ISA_SVM;
	e->duration_ns = q.ns;
	e->guest_ns = q.guest;
	e->part_ns[HVTRACE_PART_VMM] = q.vmm;
	e->part_ns[HVTRACE_PART_HALT] = q.halt;
	e->part_ns[HVTRACE_PART_RUNNABLE] = q.run;
	e->part_ns[HVTRACE_PART_OTHER] = q.other;
	e->handling_ns = q.ns - q.guest - q.vmm - q.halt - q.run - q.other;
	e->reason = q.vector;
	e->info1 = q.source;
	e->info2 = q.exit;
	e->vm_id = 1;
	e->vm_pid = 4000;
	e->vcpu_id = q.vcpu;
	e->tid = 4001 + q.vcpu;
	e->cpu_exit = e->cpu_entry = 2;
	e->preempt_pid = q.pid;
	e->preempt_ns = q.run;
	if (q.pid)
		snprintf(e->preempt_comm, sizeof(e->preempt_comm), "%s",
			 q.comm);
	if (q.pre_vcpu)
		e->flags |= HVTRACE_EVF_PREEMPT_VCPU;
	return ev;
}

static bool split_eq(const struct rep_split *a, const struct rep_split *b)
{
	for (int i = 0; i < REP_NR_PARTS; i++)
		if (a->part_ns[i] != b->part_ns[i])
			return false;
	return a->guest_ns == b->guest_ns && a->preempts == b->preempts &&
	       a->preempt_ns == b->preempt_ns && a->top_ns == b->top_ns &&
	       a->top == b->top;
}

/* Every row of T in A as in B, slot by slot, and the other rows. */
static bool table_eq(const struct rep_table *a, const struct rep_table *b)
{
	if (a->used != b->used || memcmp(&a->other, &b->other, sizeof(a->other)) ||
	    memcmp(a->e, b->e, rep_table_cap(a) * sizeof(*a->e)))
		return false;
	for (unsigned int i = 0; a->split && i < rep_table_cap(a); i++)
		if (!split_eq(&a->split[i], &b->split[i]))
			return false;
	return !a->split || split_eq(&a->other_split, &b->other_split);
}

/*
 * Exits, preemption records and a mark, read once alone and once with
 * late interrupts among them (of a vCPU with exits and of one without,
 * vectors and sources that would be reasons and ports if they were
 * exits): every exit aggregate is the same.
 */
static void test_irqs_no_exits(struct trace_reader *r)
{
	struct report *a = report_new(), *b = report_new();
	struct trace_event evs[7];
	const struct rep_summary *sa, *sb;

	if (!CHECK(a != NULL && b != NULL))
		goto out;
	evs[0] = npf(RIP, 100000, 40000, 30000, 77, 30000);
	evs[1] = preempt(0, 77, 30000, false);
	evs[2] = npf(RIP, 50000, 10000, 20000, 78, 20000);
	evs[3] = mark(7);
	evs[4] = npf(0, 10000, 0, 0, 0, 0);
	evs[5] = preempt(1, 4102, 5000, true);
	evs[6] = npf(RIP + 0x40, 70000, 0, 0, 0, 0);
	for (unsigned int i = 0; i < 7; i++) {
		report_add(a, &evs[i]);
		report_add(b, &evs[i]);
		add(b, irq((struct irq_spec){
			.vcpu = i % 2 ? 5 : 0, .vector = 0x7b,
			.source = HVTRACE_VCPU_IRQ_DEVICE, .raise = now - 5000,
			.ns = 300000 + i, .run = 200000, .exit = 0x7b,
			.pid = 77, .comm = "task77" }));
	}
	CHECK_INT(report_finish(a, r), 0);
	CHECK_INT(report_finish(b, r), 0);
	sa = report_summary(a);
	sb = report_summary(b);
	CHECK_U64(sb->events, 4);
	CHECK_U64(sb->events, sa->events);
	CHECK_U64(sb->all_ns, sa->all_ns);
	CHECK_U64(sb->max_ns, sa->max_ns);
	CHECK_U64(sb->info.first_ts, sa->info.first_ts);
	CHECK_U64(sb->info.last_ts, sa->info.last_ts);
	CHECK_U64(sb->preempts, sa->preempts);
	CHECK_U64(sb->preempt_ns, sa->preempt_ns);
	CHECK(split_eq(&sb->all_split, &sa->all_split));
	CHECK_INT(sb->nr_reasons, 1);
	CHECK_INT(sb->nr_reasons, sa->nr_reasons);
	CHECK_INT(sb->nr_bins, sa->nr_bins);
	CHECK(!memcmp(&b->reasons[0].s, &a->reasons[0].s, sizeof(a->reasons[0].s)));
	CHECK(split_eq(&b->reasons[0].split, &a->reasons[0].split));
	CHECK(!memcmp(&b->reasons[0].hist, &a->reasons[0].hist,
		      sizeof(a->reasons[0].hist)));
	CHECK(!memcmp(b->reasons[0].bins, a->reasons[0].bins,
		      sizeof(a->reasons[0].bins)));
	CHECK_U64(b->reasons[REP_OTHER_REASON].s.count, 0);
	/* vCPU 5 has late interrupts only: no row. */
	CHECK_INT(b->vcpus.used, 2);
	CHECK(table_eq(&b->vms, &a->vms));
	CHECK(table_eq(&b->vcpus, &a->vcpus));
	CHECK(table_eq(&b->pairs, &a->pairs));
	CHECK(table_eq(&b->rips, &a->rips));
	CHECK(table_eq(&b->pages, &a->pages));
	CHECK(table_eq(&b->spots, &a->spots));
	CHECK(table_eq(&b->ports, &a->ports));
	CHECK(table_eq(&b->msrs, &a->msrs));
	CHECK_INT(b->ports.used, 0);
	CHECK_U64(sb->pre_records, sa->pre_records);
	CHECK_U64(sb->pre_noted, 2);
	CHECK_U64(sb->pre_noted, sa->pre_noted);
	CHECK_U64(sb->pre_noted_ns, sa->pre_noted_ns);
	CHECK_INT(sb->pre_used, sa->pre_used);
	CHECK(split_eq(&b->all_split, &a->all_split));
	CHECK_U64(b->blame.used, a->blame.used);
	CHECK_INT(b->nr_marks, 1);
	CHECK_U64(b->all_marks, a->all_marks);
	/* They are the section's: seven, vCPUs 0 and 5. */
	CHECK_U64(b->irq.count, 7);
	CHECK_INT(b->irq.used, 2);
	CHECK_U64(a->irq.count, 0);
out:
	report_free(a);
	report_free(b);
}

/* REP output of TOP rows, text or JSON, into a string to free. */
static char *late_irqs_text(const struct report *rep, unsigned int top,
			    bool json)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	struct out o;

	if (!f)
		return NULL;
	out_init(&o, f, json);
	out_open_object(&o, NULL);
	rep_print_late_irqs(&o, rep, top);
	out_close_object(&o);
	out_end(&o);
	fclose(f);
	return s;
}

#define TIMER	HVTRACE_VCPU_IRQ_TIMER
#define LOCAL	HVTRACE_VCPU_IRQ_LOCAL
#define IPI	HVTRACE_VCPU_IRQ_IPI
#define DEVICE	HVTRACE_VCPU_IRQ_DEVICE

/* Raised at T0 + raise: each part the largest in turn. */
static const struct irq_spec late[] = {
	/* vCPU 1, its timer: preempted, then halted. */
	{ .vcpu = 1, .vector = 0xec, .source = TIMER, .raise = 500000,
	  .ns = 2000000, .guest = 100000, .run = 1500000, .exit = 0x78,
	  .pid = 4242, .comm = "stress-ng" },
	{ .vcpu = 1, .vector = 0xec, .source = TIMER, .raise = 3000000,
	  .ns = 1000000, .guest = 50000, .halt = 900000, .exit = 0x78 },
	/* vCPU 0: an IPI until the kick (INTR), a device's in VINTR. */
	{ .vcpu = 0, .vector = 0xfb, .source = IPI, .raise = 4000000,
	  .ns = 3000000, .guest = 2800000, .exit = 0x60 },
	{ .vcpu = 0, .vector = 0x22, .source = DEVICE, .raise = 5000000,
	  .ns = 500000, .guest = 450000, .exit = 0x64 },
	/* vCPU 2: in the VMM; handling, raised before the trace began. */
	{ .vcpu = 2, .vector = 0x22, .source = DEVICE, .raise = 6000000,
	  .ns = 700000, .guest = 50000, .vmm = 600000, .exit = 0x7b },
	{ .vcpu = 2, .vector = 0xef, .source = LOCAL, .raise = -20000,
	  .ns = 800000, .exit = 0x400 },
	/* vCPU 3: the guest until an NPF, a vCPU thread, nobody, blocked. */
	{ .vcpu = 3, .vector = 0xef, .source = LOCAL, .raise = 7000000,
	  .ns = 650000, .guest = 600000, .exit = 0x400 },
	{ .vcpu = 3, .vector = 0xec, .source = TIMER, .raise = 8000000,
	  .ns = 400000, .run = 390000, .exit = 0x78, .pid = 4102,
	  .comm = "CPU 1/KVM", .pre_vcpu = true },
	{ .vcpu = 3, .vector = 0xec, .source = TIMER, .raise = 9000000,
	  .ns = 300000, .run = 300000, .exit = 0x78 },
	{ .vcpu = 3, .vector = 0xec, .source = TIMER, .raise = 10000000,
	  .ns = 260000, .other = 250000, .exit = 0x400 },
};

/*
 * One exit (the trace's start: its re-entry, T0), then late[]; the
 * longest five listed, with their why.
 */
static struct report *late_report(struct trace_reader *r, uint64_t *t0)
{
	struct report *rep = report_new();
	struct trace_event e;

	if (!CHECK(rep != NULL))
		return NULL;
	now = 5000000;
	e = npf(RIP, 10000, 0, 0, 0, 0);
	*t0 = e.ts_ns;
	add(rep, e);
	for (size_t i = 0; i < ARRAY_SIZE(late); i++) {
		struct irq_spec q = late[i];

		q.raise += (int64_t)*t0;
		add(rep, irq(q));
	}
	CHECK_INT(report_finish(rep, r), 0);
	return rep;
}

static void test_late_irqs_text(struct trace_reader *r)
{
	uint64_t t0;
	struct report *rep = late_report(r, &t0);
	const struct rep_irq *q;
	struct rep_irqs irqs;
	struct irq_wait w;
	char *s, why[160];
	/* Every kept one's why, longest first. */
	static const char *const whys[] = {
		"in the guest 2.80ms until the kick",
		"runnable 1.50ms: preempted by stress-ng (4242)",
		"halted 900.0us",
		"handling 800.0us",
		"in the VMM 600.0us",
		"in the guest 600.0us until its NPF exit",
		"in the guest 450.0us with interrupts off",
		"runnable 390.0us: preempted by vcpu CPU 1/KVM (4102)",
		"runnable 300.0us",
		"blocked in the kernel 250.0us",
	};

	if (!rep)
		return;
	report_irqs(rep, &irqs);
	CHECK_U64(irqs.count, 10);
	CHECK_U64(irqs.total_ns, 9610000);
	CHECK_U64(irqs.max_ns, 3000000);
	CHECK_INT(irqs.kept, 10);
	CHECK_INT(irqs.nr_rows, 7);
	for (unsigned int i = 0; i < irqs.kept && i < ARRAY_SIZE(whys); i++) {
		rep_irq_wait(&w, &irqs.longest[i]);
		irq_why(why, sizeof(why), &w);
		CHECK_STR(why, whys[i]);
	}
	/* The first: its record's numbers, handling the rest. */
	q = &irqs.longest[1];
	CHECK_U64(q->ts_ns, t0 + 500000);
	CHECK_U64(q->ns, 2000000);
	CHECK_U64(q->part_ns[REP_HANDLING], 400000);
	CHECK_U64(q->part_ns[REP_RUNNABLE], 1500000);
	CHECK_U64(q->guest_ns, 100000);
	CHECK_STR(q->preempt_comm, "stress-ng");
	s = late_irqs_text(rep, 5, false);
	CHECK_STR(s,
"\n"
"Late interrupts, the 5 longest of 10 (raise to injection; time: the raise, from the trace's start)\n"
"      time vm                   vcpu vector source   latency exit                 why\n"
" 0.004000s vm1                     0 0xfb   ipi       3.00ms INTR                 in the guest 2.80ms until the kick\n"
" 0.000500s vm1                     1 0xec   timer     2.00ms HLT                  runnable 1.50ms: preempted by stress-ng (4242)\n"
" 0.003000s vm1                     1 0xec   timer     1.00ms HLT                  halted 900.0us\n"
"-0.000020s vm1                     2 0xef   local    800.0us NPF                  handling 800.0us\n"
" 0.006000s vm1                     2 0x22   device   700.0us IOIO                 in the VMM 600.0us\n"
"(5 more late interrupts, none longer than 700.0us)\n"
"\n"
"Late interrupts per vCPU and vector, by time (mostly: the part of the wait that holds most of their time)\n"
"vm                   vcpu vector sources       count      total       max  mostly\n"
"vm1                     1 0xec   timer             2     3.00ms    2.00ms  runnable 50.0%\n"
"vm1                     0 0xfb   ipi               1     3.00ms    3.00ms  in the guest 93.3%\n"
"vm1                     3 0xec   timer             3    960.0us   400.0us  runnable 71.9%\n"
"vm1                     2 0xef   local             1    800.0us   800.0us  handling 100.0%\n"
"vm1                     2 0x22   device            1    700.0us   700.0us  in the VMM 85.7%\n"
"(2 more (vCPU, vector) rows)\n");
	free(s);
	s = late_irqs_text(rep, 1, true);
	CHECK_STR(s, "{\"late_interrupts\":{\"count\":10,\"total_ns\":9610000,"
		  "\"max_ns\":3000000,\"kept\":10,\"entries\":[{"
		  "\"ts_ns\":9011000,\"from_start_ns\":4000000,\"vm\":\"vm1\","
		  "\"vm_id\":1,\"vm_pid\":4000,\"vcpu\":0,\"tid\":4001,"
		  "\"cpu\":2,\"vector\":251,\"source\":\"ipi\","
		  "\"latency_ns\":3000000,\"exit\":\"INTR\","
		  "\"why\":\"in the guest 2.80ms until the kick\","
		  "\"guest_ns\":2800000,\"handling_ns\":200000,\"vmm_ns\":0,"
		  "\"halt_ns\":0,\"runnable_ns\":0,\"other_ns\":0,"
		  "\"delivery_part\":\"guest\",\"delivery_part_ns\":2800000,"
		  "\"preemptor\":null}],\"omitted\":9,\"vectors\":{"
		  "\"capacity\":3072,\"distinct\":7,\"entries\":[{"
		  "\"sources\":[\"timer\"],\"vm\":\"vm1\",\"vm_id\":1,"
		  "\"vm_pid\":4000,\"vcpu\":1,\"vector\":236,\"count\":2,"
		  "\"total_ns\":3000000,\"max_ns\":2000000,\"guest_ns\":150000,"
		  "\"handling_ns\":450000,\"vmm_ns\":0,\"halt_ns\":900000,"
		  "\"runnable_ns\":1500000,\"other_ns\":0,"
		  "\"delivery_part\":\"runnable\",\"delivery_part_ns\":1500000}],"
		  "\"omitted\":6}}}\n");
	free(s);
	/* The preemptor in JSON: the second longest. */
	s = late_irqs_text(rep, 2, true);
	CHECK_HAS(s, "\"why\":\"runnable 1.50ms: preempted by stress-ng "
		  "(4242)\",\"guest_ns\":100000,\"handling_ns\":400000,"
		  "\"vmm_ns\":0,\"halt_ns\":0,\"runnable_ns\":1500000,"
		  "\"other_ns\":0,\"delivery_part\":\"runnable\","
		  "\"delivery_part_ns\":1500000,\"preemptor\":{\"pid\":4242,"
		  "\"comm\":\"stress-ng\",\"vcpu\":false,\"ns\":1500000}}");
	free(s);
	/* The page: the same lines, the same why. */
	s = NULL;
	{
		size_t n = 0;
		FILE *f = open_memstream(&s, &n);

		if (CHECK(f != NULL)) {
			CHECK_INT(report_html(rep, "t<1>", f, 2, NULL), 0);
			fclose(f);
		}
	}
	CHECK_HAS(s, "<section id=\"late-irqs\"><h2>Late interrupts, the 2 "
		  "longest of 10</h2>");
	CHECK_HAS(s, "<tr><td class=\"n\">0.000500s</td><td class=\"l\">vm1"
		  "</td><td>1</td><td class=\"l n\">0xec</td><td class=\"l\">"
		  "timer</td><td>2.00ms</td><td class=\"l\">HLT</td>"
		  "<td class=\"l\">runnable 1.50ms: preempted by stress-ng "
		  "(4242)</td></tr>\n");
	CHECK_HAS(s, "<p class=\"note\">8 more, none longer than 2.00ms.</p>");
	CHECK_HAS(s, "<tr><td class=\"l\">vm1</td><td>0</td><td class=\"l n\">"
		  "0xfb</td><td class=\"l\">ipi</td><td>1</td><td>3.00ms</td>"
		  "<td>3.00ms</td><td class=\"l\">in the guest 93.3%</td>"
		  "</tr>\n");
	CHECK_HAS(s, "<p class=\"note\">5 more (vCPU, vector) rows.</p>");
	free(s);
	report_free(rep);
}

/*
 * More late interrupts than the list keeps, and more (vCPU, vector) keys
 * than the table holds: the longest kept exactly (ties: the earlier
 * raise), the rest counted and said; a second pass adds nothing.
 */
static void test_late_irqs_full(struct trace_reader *r)
{
	struct report *rep = report_new();
	struct rep_irqs irqs;
	unsigned int n = 3100;
	char *s;

	if (!CHECK(rep != NULL))
		return;
	now = 5000000;
	add(rep, npf(RIP, 10000, 0, 0, 0, 0));
	for (unsigned int i = 0; i < n; i++)
		add(rep, irq((struct irq_spec){ .vcpu = i / 200,
			.vector = i % 200, .source = HVTRACE_VCPU_IRQ_LOCAL,
			.raise = 6000000 + i, .ns = 1000 + i, .exit = 0x400 }));
	/* Equal to the kept's longest, raised later: second. */
	add(rep, irq((struct irq_spec){ .vcpu = 0, .vector = 0,
		.source = HVTRACE_VCPU_IRQ_LOCAL, .raise = 7000000,
		.ns = 1000 + n - 1, .exit = 0x400 }));
	report_again(rep);
	add(rep, irq((struct irq_spec){ .vcpu = 0, .vector = 0,
		.source = HVTRACE_VCPU_IRQ_LOCAL, .raise = 7000000,
		.ns = 9000000, .exit = 0x400 }));
	/* The second pass reads the first's exit again. */
	now = 5000000;
	add(rep, npf(RIP, 10000, 0, 0, 0, 0));
	CHECK_INT(report_finish(rep, r), 0);
	report_irqs(rep, &irqs);
	CHECK_U64(irqs.count, n + 1);
	CHECK_U64(irqs.max_ns, 1000 + n - 1);
	CHECK_INT(irqs.kept, REP_MAX_IRQS);
	CHECK_U64(irqs.longest[0].ts_ns, 6000000 + n - 1);
	CHECK_U64(irqs.longest[1].ts_ns, 7000000);
	CHECK_U64(irqs.longest[1].ns, 1000 + n - 1);
	CHECK_U64(irqs.longest[REP_MAX_IRQS - 1].ns, 1000 + n - REP_MAX_IRQS + 1);
	CHECK_INT(irqs.nr_rows, irqs.limit);
	CHECK_U64(irqs.other->count, n - irqs.limit);
	CHECK_U64(irqs.other->total_ns, 114394);
	CHECK_U64(irqs.other->max_ns, 1000 + n - 1);
	s = late_irqs_text(rep, 100000, false);
	CHECK_HAS(s, "\n(2845 more late interrupts, none longer than 3.8us; "
		  "the report keeps the 256 longest)\n");
	CHECK_HAS(s, "\nother                   - ");
	CHECK_HAS(s, " local            28    114.4us     4.1us  handling "
		  "100.0%\n(other: the table holds 3072 (vCPU, vector) rows; "
		  "the late interrupts of further ones are counted there)\n");
	free(s);
	s = late_irqs_text(rep, 1, true);
	CHECK_HAS(s, "\"omitted\":3071,\"other\":{\"count\":28,"
		  "\"total_ns\":114394,\"max_ns\":4099,\"guest_ns\":0,");
	free(s);
	report_free(rep);
}

/* VMX's names for the kick and the window; an unknown vendor's exit. */
static void test_irq_why_vendors(void)
{
	struct irq_wait w = { .isa = HV_ISA_VMX, .exit_reason = 1 };
	uint64_t part[HVTRACE_NR_PARTS] = { [HVTRACE_PART_HALT] = 400 };
	char why[160];

	irq_wait_split(&w, 2000, 1000, part);
	CHECK_U64(w.part_ns[IRQ_P_HANDLING], 600);
	irq_why(why, sizeof(why), &w);
	CHECK_STR(why, "in the guest 1.0us until the kick");
	w.exit_reason = 7;
	irq_why(why, sizeof(why), &w);
	CHECK_STR(why, "in the guest 1.0us with interrupts off");
	w.exit_reason = 12;
	irq_why(why, sizeof(why), &w);
	CHECK_STR(why, "in the guest 1.0us until its HLT exit");
	w.isa = 0;
	irq_why(why, sizeof(why), &w);
	CHECK_STR(why, "in the guest 1.0us");
	/* Parts beyond the whole: handling 0, never below. */
	part[HVTRACE_PART_HALT] = 1500;
	irq_wait_split(&w, 2000, 1000, part);
	CHECK_U64(w.part_ns[IRQ_P_HANDLING], 0);
	irq_why(why, sizeof(why), &w);
	CHECK_STR(why, "halted 1.5us");
	/* A tie: the first part of the list, handling before the rest. */
	part[HVTRACE_PART_HALT] = 500;
	irq_wait_split(&w, 1000, 0, part);
	CHECK_INT(irq_wait_part(&w), IRQ_P_HANDLING);
	CHECK_STR(irq_source_word(HVTRACE_VCPU_IRQ_OTHER), "unknown");
	CHECK_STR(irq_sources_text(why, sizeof(why), HVTRACE_VCPU_IRQ_DEVICE |
				   HVTRACE_VCPU_IRQ_TIMER |
				   HVTRACE_VCPU_IRQ_IPI), "timer+ipi+device");
	CHECK_STR(irq_sources_text(why, sizeof(why), 0), "unknown");
}

int main(void)
{
	char dir[64] = "/tmp/report_agg_test.XXXXXX", cmd[128];
	struct trace_reader *r;

	if (!mkdtemp(dir))
		return 1;
	r = empty_trace(dir);
	if (CHECK(r != NULL)) {
		test_split_and_preemptors(r);
		test_tie(r);
		test_full(r);
		test_recount_any_order(r);
		test_one_pass(r);
		test_key_back(r);
		test_late_key();
		test_marks();
		test_irqs_no_exits(r);
		test_late_irqs_text(r);
		test_late_irqs_full(r);
		test_irq_why_vendors();
		trace_close(r);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		fprintf(stderr, "could not remove %s\n", dir);
	return unit_report();
}
