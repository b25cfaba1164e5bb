// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report: where exit time went (handling, VMM, halt, preempted,
 * other: see hvctl(8), EXIT TIME) per reason and per vCPU, the tasks that kept vCPU threads off
 * their CPUs, and the hot spots they stalled most: the answer to "these
 * MMIO exits were slow because task Z preempted the vCPU: Z accounts for
 * N% of their time".
 *
 * A row's top preemptor is the task its exits noted (each exit names the
 * task of its longest runnable stretch) for the most time; its share is
 * of the row's whole exit time. The preemptor table adds the preemption
 * records, exact stretches off CPU, whether or not their exit was
 * recorded.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "duration.h"
#include "hvctl.h"
#include "output.h"
#include "report_split.h"
#include "time_parts.h"

static const char *const ppm_keys[REP_NR_PARTS] = {
	"handling_ppm", "vmm_ppm", "halt_ppm", "runnable_ppm", "other_ppm",
};

static const char *dur(char *buf, uint64_t ns)
{
	duration_format(buf, 16, ns);
	return buf;
}

/* "noisy-batch (31337)", "vcpu CPU 1/KVM (4102)" */
static const char *who(const struct rep_preemptor *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s (%" PRIu32 ")", p->vcpu ? "vcpu " : "",
		 p->comm, p->pid);
	return buf;
}

static void out_preemptor(const struct rep_preemptor *p)
{
	out_u64("pid", NULL, p->pid);
	out_str("comm", NULL, p->comm);
	out_bool("vcpu", NULL, p->vcpu);
}

void rep_out_split(const struct report *rep, const struct rep_split *s,
		   uint64_t total)
{
	const struct rep_preemptor *p = rep_preemptor_at(rep, s->top);

	for (int i = 0; i < REP_NR_PARTS; i++)
		out_u64(rep_part_keys[i], NULL, s->part_ns[i]);
	for (int i = 0; i < REP_NR_PARTS; i++)
		out_u64(ppm_keys[i], NULL, rep_ppm(s->part_ns[i], total));
	if (!p)
		return;
	out_open_object("top_preemptor");
	out_preemptor(p);
	out_u64("noted_ns", NULL, s->top_ns);
	out_u64("ppm", NULL, rep_ppm(s->top_ns, total));
	out_close_object();
}

const char *rep_top_text(const struct report *rep, const struct rep_split *s,
			 uint64_t total, char *buf, size_t len)
{
	const struct rep_preemptor *p = rep_preemptor_at(rep, s->top);
	char w[48];

	if (!p)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s %.1f%%", who(p, w, sizeof(w)),
			 time_share(s->top_ns, total));
	return buf;
}

/* The five shares of a split, as the text tables show them. */
static void text_shares(const struct rep_split *s, uint64_t total)
{
	for (int i = 0; i < REP_NR_PARTS; i++)
		printf(" %8.1f%%", time_share(s->part_ns[i], total));
}

static void text_parts_heading(void)
{
	for (int i = 0; i < REP_NR_PARTS; i++)
		printf(" %9s", time_part_labels[i]);
}

void rep_print_reason_split(const struct report *rep)
{
	unsigned int idx[REP_MAX_REASONS + 1];
	unsigned int n = report_reasons_by_time(rep, idx);
	char t[16], pt[16], top[64];

	if (hvctl_json || !n)
		return;
	printf("\nWhere the exit time went, by reason (shares of each "
	       "reason's time)\n%-24s %10s", "reason", "time");
	text_parts_heading();
	printf(" %11s %12s  %s\n", "preemptions", "preempt time",
	       "top preemptor (share of time)");
	for (unsigned int i = 0; i < n; i++) {
		const struct rep_reason *rr = &rep->reasons[idx[i]];
		const struct rep_split *s = &rr->split;

		printf("%-24s %10s", rr->name, dur(t, rr->s.total_ns));
		text_shares(s, rr->s.total_ns);
		printf(" %11" PRIu64 " %12s  %s\n", s->preempts,
		       dur(pt, s->preempt_ns),
		       rep_top_text(rep, s, rr->s.total_ns, top, sizeof(top)));
	}
}

void rep_print_vcpu_split(const struct report *rep, unsigned int top)
{
	unsigned int n = report_table_sorted(&rep->vcpus, rep->order);
	char name[64], t[16], g[16], pt[16], tp[64];

	if (hvctl_json || !n)
		return;
	printf("\nWhere the vCPUs' time went, by exit time (shares of each "
	       "vCPU's exit time; guest: before its exits)\n%-20s %5s %8s %10s",
	       "vm", "vcpu", "tid", "time");
	text_parts_heading();
	printf(" %10s %11s %12s  %s\n", "guest", "preemptions", "preempt time",
	       "top preemptor (share of time)");
	for (unsigned int i = 0; i < n && i < top; i++) {
		const struct rep_entry *v = rep->order[i];
		const struct rep_split *s = rep_split_of(&rep->vcpus, v);
		const struct rep_entry *vm = NULL;

		for (unsigned int j = 0; j < rep_table_cap(&rep->vms); j++)
			if (rep->vms.e[j].used &&
			    rep->vms.e[j].key == v->key >> 32)
				vm = &rep->vms.e[j];
		if (vm)
			report_vm_name(rep, vm, name, sizeof(name));
		else
			snprintf(name, sizeof(name), "vm%" PRIu64, v->key >> 32);
		printf("%-20.20s %5u %8u %10s", name, (uint32_t)v->key, v->aux,
		       dur(t, v->total_ns));
		text_shares(s, v->total_ns);
		printf(" %10s %11" PRIu64 " %12s  %s\n", dur(g, s->guest_ns),
		       s->preempts, dur(pt, s->preempt_ns),
		       rep_top_text(rep, s, v->total_ns, tp, sizeof(tp)));
	}
	if (n > top)
		printf("(%u more vCPUs)\n", n - top);
}

/* A row of the preemptor table; the other row (NAME "other") is KEY's. */
static void out_preemptor_row(const struct report *rep,
			      const struct rep_preemptor *p, const char *key,
			      const char *name)
{
	uint64_t runnable = rep->all_split.part_ns[REP_RUNNABLE];
	char w[48], st[16], ran[16], nt[16];

	out_open_object(key);
	if (!name)
		out_preemptor(p);
	out_u64("records", NULL, p->records);
	out_u64("stalled_ns", NULL, p->stall_ns);
	out_u64("stalled_ppm", NULL, rep_ppm(p->stall_ns, rep->pre.stall_ns));
	out_u64("ran_ns", NULL, p->ran_ns);
	out_u64("noted", NULL, p->noted);
	out_u64("noted_ns", NULL, p->noted_ns);
	out_u64("noted_ppm", NULL, rep_ppm(p->noted_ns, runnable));
	out_close_object();
	if (hvctl_json)
		return;
	printf("%-30.30s %8" PRIu64 " %10s %6.1f%% %10s %8" PRIu64
	       " %10s %6.1f%%\n", name ? name : who(p, w, sizeof(w)),
	       p->records, dur(st, p->stall_ns),
	       time_share(p->stall_ns, rep->pre.stall_ns), dur(ran, p->ran_ns),
	       p->noted, dur(nt, p->noted_ns), time_share(p->noted_ns, runnable));
}

void rep_print_preemptors(const struct report *rep, unsigned int top)
{
	const struct rep_preemptors *t = &rep->pre;
	unsigned int n = rep_preemptors_sorted(rep);
	char st[16], nt[16], rn[16];

	out_open_object("preemptors");
	out_u64("records", NULL, t->records);
	out_u64("stalled_ns", NULL, t->stall_ns);
	out_u64("noted", NULL, t->noted);
	out_u64("noted_ns", NULL, t->noted_ns);
	out_u64("runnable_ns", NULL, rep->all_split.part_ns[REP_RUNNABLE]);
	out_u64("capacity", NULL, t->limit);
	out_u64("distinct", NULL, t->used);
	if (!hvctl_json) {
		printf("\nTop preemptors, %u of %u%s by the vCPU time they "
		       "stalled: %" PRIu64 " preemption records, %s off CPU; "
		       "%" PRIu64 " exits name one, %s of their %s preempted\n",
		       n < top ? n : top, n, t->other.records ||
		       t->other.noted ? "+" : "", t->records,
		       dur(st, t->stall_ns), t->noted, dur(nt, t->noted_ns),
		       dur(rn, rep->all_split.part_ns[REP_RUNNABLE]));
		printf("%-30s %8s %10s %7s %10s %8s %10s %7s\n",
		       "task (pid)", "records", "stalled", "share", "ran",
		       "exits", "noted", "share");
	}
	out_open_array("entries");
	for (unsigned int i = 0; i < n && i < top; i++)
		out_preemptor_row(rep, rep->pre_order[i], NULL, NULL);
	out_close_array();
	if (t->other.records || t->other.noted || hvctl_json)
		out_preemptor_row(rep, &t->other, "other", "other");
	out_close_object();
	if (!hvctl_json && !n)
		printf("(no preemptions in this trace)\n");
	if (!hvctl_json && rep->blame.lost)
		printf("(%" PRIu64 " notes found no room to be charged to "
		       "their rows: the top preemptors of the tables may be "
		       "short)\n", rep->blame.lost);
}

static const struct rep_table *sort_spots;

static int by_top_ns(const void *a, const void *b)
{
	const struct rep_entry *x = *(const struct rep_entry *const *)a;
	const struct rep_entry *y = *(const struct rep_entry *const *)b;
	uint64_t tx = rep_split_of(sort_spots, x)->top_ns;
	uint64_t ty = rep_split_of(sort_spots, y)->top_ns;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->key2 < y->key2 ? -1 : x->key2 > y->key2;
}

/*
 * "NPF at page 0xfebf0000 from rip 0xffffffff81603000: 305 exits,
 *  45.6ms, 41.2% preempted; noisy-batch (31337) ran for 38.2% of that time"
 */
const char *rep_spot_text(const struct report *rep, const struct rep_entry *e,
			  char *buf, size_t len)
{
	const struct rep_split *s = rep_split_of(&rep->spots, e);
	const struct rep_preemptor *p = rep_preemptor_at(rep, s->top);
	char w[48], t[16], rip[40] = "";

	if (e->key2 != REP_NO_RIP)
		snprintf(rip, sizeof(rip), " from rip 0x%" PRIx64, e->key2);
	snprintf(buf, len, "%s at page 0x%" PRIx64 "%s: %" PRIu64 " exits, %s, "
		 "%.1f%% preempted; %s ran for %.1f%% of that time",
		 report_reason_name(rep, e->reason), e->key, rip, e->count,
		 dur(t, e->total_ns),
		 time_share(s->part_ns[REP_RUNNABLE], e->total_ns),
		 p ? who(p, w, sizeof(w)) : "nobody noted",
		 time_share(s->top_ns, e->total_ns));
	return buf;
}

unsigned int rep_preempted_spots(const struct report *rep)
{
	const struct rep_table *t = &rep->spots;
	unsigned int n = 0;

	for (unsigned int i = 0; i < rep_table_cap(t); i++)
		if (t->e[i].used && t->split[i].top)
			rep->order[n++] = &t->e[i];
	sort_spots = t;
	qsort(rep->order, n, sizeof(*rep->order), by_top_ns);
	return n;
}

void rep_print_preempted_spots(const struct report *rep, unsigned int top)
{
	unsigned int n = rep_preempted_spots(rep);
	char line[256];

	if (!hvctl_json)
		printf("\nPreempted hot spots: (reason, guest-physical page, "
		       "RIP) by the time one task ran while their exits "
		       "waited\n");
	out_open_array("preempted_spots");
	for (unsigned int i = 0; i < n && i < top; i++) {
		const struct rep_entry *e = rep->order[i];

		out_open_object(NULL);
		out_str("reason", NULL, report_reason_name(rep, e->reason));
		out_u64("page", NULL, e->key);
		if (e->key2 != REP_NO_RIP)
			out_u64("rip", NULL, e->key2);
		out_u64("count", NULL, e->count);
		out_u64("total_ns", NULL, e->total_ns);
		rep_out_split(rep, rep_split_of(&rep->spots, e), e->total_ns);
		out_close_object();
		if (!hvctl_json)
			printf("%s\n", rep_spot_text(rep, e, line,
						      sizeof(line)));
	}
	out_close_array();
	if (!hvctl_json && !n)
		printf("(none: no exit with a guest-physical address names a "
		       "preemptor)\n");
}
