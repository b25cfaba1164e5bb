// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report: where exit time went (handling, VMM, halt, runnable,
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
#include "gpa_class.h"
#include "output.h"
#include "put.h"
#include "report_split.h"
#include "time_parts.h"

static const char *const ppm_keys[REP_NR_PARTS] = {
	"handling_ppm", "vmm_ppm", "halt_ppm", "runnable_ppm", "other_ppm",
};

/* "noisy-batch (31337)", "vcpu CPU 1/KVM (4102)" */
static const char *who(const struct rep_preemptor *p, char *buf, size_t len)
{
	char name[PREEMPTOR_LEN];

	*put_preemptor(name, p->comm, p->pid, p->vcpu) = '\0';
	snprintf(buf, len, "%s", name);
	return buf;
}

static void out_preemptor(struct out *o, const struct rep_preemptor *p)
{
	out_u64(o, "pid", NULL, p->pid);
	out_str(o, "comm", NULL, p->comm);
	out_bool(o, "vcpu", NULL, p->vcpu);
}

void rep_out_split(struct out *o, const struct report *rep, const struct rep_split *s,
		   uint64_t total)
{
	const struct rep_preemptor *p = rep_preemptor_at(rep, s->top);

	for (int i = 0; i < REP_NR_PARTS; i++)
		out_u64(o, time_part_keys[i], NULL, s->part_ns[i]);
	for (int i = 0; i < REP_NR_PARTS; i++)
		out_u64(o, ppm_keys[i], NULL, ppm_of(s->part_ns[i], total));
	if (!p)
		return;
	out_open_object(o, "top_preemptor");
	out_preemptor(o, p);
	out_u64(o, "noted_ns", NULL, s->top_ns);
	out_u64(o, "ppm", NULL, ppm_of(s->top_ns, total));
	out_close_object(o);
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

void rep_print_reason_split(struct out *o, const struct report *rep,
			    int width)
{
	unsigned int idx[REP_MAX_REASONS + 1];
	unsigned int n = report_reasons_by_time(rep, idx);
	char t[16], pt[16], top[64];

	if (o->json || !n)
		return;
	printf("\nWhere the exit time went, by reason (shares of each "
	       "reason's time)\n%-*s %10s", width, "reason", "time");
	time_split_heading(o, false);
	printf(" %11s %12s  %s\n", "preemptions", "preempted",
	       "top preemptor (share of time)");
	for (unsigned int i = 0; i < n; i++) {
		const struct rep_reason *rr = report_reason(rep, idx[i]);
		const struct rep_split *s = &rr->split;

		printf("%-*s %10s", width, rr->name,
		       duration_str(t, rr->s.total_ns));
		time_split_cells(o, s->part_ns, rr->s.total_ns, false);
		printf(" %11" PRIu64 " %12s  %s\n", s->preempts,
		       duration_str(pt, s->preempt_ns),
		       rep_top_text(rep, s, rr->s.total_ns, top, sizeof(top)));
	}
}

int rep_print_vcpu_split(struct out *o, const struct report *rep, unsigned int top)
{
	struct rep_iter it;
	struct rep_row v;
	unsigned int n, i = 0;
	char name[64], t[16], g[16], pt[16], tp[64];

	if (o->json)
		return 0;
	if (rep_iter_start(&it, rep, REP_T_VCPUS, REP_BY_TIME))
		return -1;
	n = rep_iter_rows(&it);
	if (!n)
		goto out;
	printf("\nWhere the vCPUs' time went, by exit time (shares of each "
	       "vCPU's exit time; guest: before its exits)\n%-20s %5s %8s %10s",
	       "vm", "vcpu", "tid", "time");
	time_split_heading(o, false);
	printf(" %10s %11s %12s  %s\n", "guest", "preemptions", "preempted",
	       "top preemptor (share of time)");
	while (i++ < top && rep_iter_next(&it, &v)) {
		const struct rep_split *s = v.split;

		report_vm_name(rep, v.key >> 32, name, sizeof(name));
		printf("%-20.20s %5u %8u %10s", name, (uint32_t)v.key, v.aux,
		       duration_str(t, v.total_ns));
		time_split_cells(o, s->part_ns, v.total_ns, false);
		printf(" %10s %11" PRIu64 " %12s  %s\n", duration_str(g, s->guest_ns),
		       s->preempts, duration_str(pt, s->preempt_ns),
		       rep_top_text(rep, s, v.total_ns, tp, sizeof(tp)));
	}
	if (n > top)
		printf("(%u more vCPUs)\n", n - top);
out:
	rep_iter_end(&it);
	return 0;
}

/*
 * The preemptor table: JSON names the task in members of its own, text in
 * one cell; the shares are of all the records' time (stalled) and of the
 * exits' runnable time (noted).
 */
enum pre_col {
	PC_PID, PC_COMM, PC_VCPU, PC_WHO, PC_RECORDS, PC_STALLED,
	PC_STALLED_PPM, PC_STALLED_SHARE, PC_RAN, PC_NOTED, PC_NOTED_NS,
	PC_NOTED_PPM, PC_NOTED_SHARE, PC_NR
};

static const struct out_col pre_cols[PC_NR] = {
	[PC_PID] = { "pid", NULL, 0, OUT_U64 },
	[PC_COMM] = { "comm", NULL, 0, OUT_STR },
	[PC_VCPU] = { "vcpu", NULL, 0, OUT_BOOL },
	[PC_WHO] = { NULL, "task (pid)", -30, OUT_STR, 30 },
	[PC_RECORDS] = { "records", "records", 8, OUT_U64 },
	[PC_STALLED] = { "stalled_ns", "stalled", 10, OUT_DUR },
	[PC_STALLED_PPM] = { "stalled_ppm", NULL, 0, OUT_U64 },
	[PC_STALLED_SHARE] = { NULL, "share", 7, OUT_PCT, 1 },
	[PC_RAN] = { "ran_ns", "ran", 10, OUT_DUR },
	[PC_NOTED] = { "noted", "exits", 8, OUT_U64 },
	[PC_NOTED_NS] = { "noted_ns", "noted", 10, OUT_DUR },
	[PC_NOTED_PPM] = { "noted_ppm", NULL, 0, OUT_U64 },
	[PC_NOTED_SHARE] = { NULL, "share", 7, OUT_PCT, 1 },
};

/* A row of the preemptor table; the other row (NAME "other") is KEY's. */
static void out_preemptor_row(struct out *o, const struct report *rep,
			      const struct rep_preemptor *p, const char *key,
			      const char *name)
{
	const struct rep_summary *sum = report_summary(rep);
	uint64_t runnable = sum->all_split.part_ns[REP_RUNNABLE];
	struct out_cell c[PC_NR] = {
		[PC_PID] = { .u = p->pid, .absent = !!name },
		[PC_COMM] = { .s = p->comm, .absent = !!name },
		[PC_VCPU] = { .u = p->vcpu, .absent = !!name },
		[PC_RECORDS].u = p->records,
		[PC_STALLED].u = p->stall_ns,
		[PC_STALLED_PPM].u = ppm_of(p->stall_ns, sum->pre_stall_ns),
		[PC_STALLED_SHARE].d = time_share(p->stall_ns,
						  sum->pre_stall_ns),
		[PC_RAN].u = p->ran_ns,
		[PC_NOTED].u = p->noted,
		[PC_NOTED_NS].u = p->noted_ns,
		[PC_NOTED_PPM].u = ppm_of(p->noted_ns, runnable),
		[PC_NOTED_SHARE].d = time_share(p->noted_ns, runnable),
	};
	char w[48];

	c[PC_WHO].s = name ? name : who(p, w, sizeof(w));
	out_open_object(o, key);
	out_cells(o, pre_cols, c, PC_NR);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

int rep_print_preemptors(struct out *o, const struct report *rep, unsigned int top)
{
	const struct rep_summary *t = report_summary(rep);
	const struct rep_preemptor *p;
	struct rep_pre_iter it;
	unsigned int n, i = 0;
	char st[16], nt[16], rn[16];

	if (rep_pre_iter_start(&it, rep))
		return -1;
	n = it.n;
	out_open_object(o, "preemptors");
	out_u64(o, "records", NULL, t->pre_records);
	out_u64(o, "stalled_ns", NULL, t->pre_stall_ns);
	out_u64(o, "noted", NULL, t->pre_noted);
	out_u64(o, "noted_ns", NULL, t->pre_noted_ns);
	out_u64(o, "runnable_ns", NULL, t->all_split.part_ns[REP_RUNNABLE]);
	out_u64(o, "capacity", NULL, t->pre_limit);
	out_u64(o, "distinct", NULL, t->pre_used);
	if (!o->json) {
		printf("\nTop preemptors, %u of %u%s by the vCPU time they "
		       "stalled: %" PRIu64 " preemption records, %s off CPU; "
		       "%" PRIu64 " exits name one, %s of their %s runnable\n",
		       n < top ? n : top, n, t->pre_other.records ||
		       t->pre_other.noted ? "+" : "", t->pre_records,
		       duration_str(st, t->pre_stall_ns), t->pre_noted,
		       duration_str(nt, t->pre_noted_ns),
		       duration_str(rn, t->all_split.part_ns[REP_RUNNABLE]));
	}
	out_heading(o, pre_cols, PC_NR);
	out_open_array(o, "entries");
	while (i++ < top && (p = rep_pre_iter_next(&it)))
		out_preemptor_row(o, rep, p, NULL, NULL);
	out_close_array(o);
	if (t->pre_other.records || t->pre_other.noted || o->json)
		out_preemptor_row(o, rep, &t->pre_other, "other", "other");
	out_close_object(o);
	if (!o->json && !n)
		printf("(no preemptions in this trace)\n");
	if (!o->json && t->blame_lost)
		printf("(%" PRIu64 " notes found no room to be charged to "
		       "their rows: the top preemptors of the tables may be "
		       "short)\n", t->blame_lost);
	rep_pre_iter_end(&it);
	return 0;
}

/*
 * "NPF at page 0xfebf0000 (vmm-mmio w4: edu-mmio) from rip
 *  0xffffffff81603000: 305 exits, 45.6ms, 41.2% runnable; noisy-batch
 *  (31337) ran for 38.2% of that time"
 */
const char *rep_spot_text(const struct report *rep, const struct rep_row *e,
			  char *buf, size_t len)
{
	const struct rep_split *s = e->split;
	const struct rep_preemptor *p = e->top;
	char w[48], t[16], rip[40] = "", hits[64], mem[136] = "";

	if (e->key2 != REP_NO_RIP)
		snprintf(rip, sizeof(rip), " from rip 0x%" PRIx64, e->key2);
	if (*gpa_hits_text(hits, sizeof(hits), e->aux))
		snprintf(mem, sizeof(mem), " (%s%s%s)", hits,
			 e->device[0] ? ": " : "", e->device);
	snprintf(buf, len, "%s at page 0x%" PRIx64 "%s%s: %" PRIu64 " exits, "
		 "%s, %.1f%% runnable; %s ran for %.1f%% of that time",
		 report_reason_name(rep, e->reason), e->key, mem, rip, e->count,
		 duration_str(t, e->total_ns),
		 time_share(s->part_ns[REP_RUNNABLE], e->total_ns),
		 p ? who(p, w, sizeof(w)) : "nobody noted",
		 time_share(s->top_ns, e->total_ns));
	return buf;
}

int rep_print_preempted_spots(struct out *o, const struct report *rep, unsigned int top)
{
	struct rep_iter it;
	struct rep_row e;
	unsigned int i = 0;
	char line[512], hits[64];

	if (rep_iter_start(&it, rep, REP_T_SPOTS, REP_BY_PREEMPTOR))
		return -1;
	if (!o->json)
		printf("\nPreempted hot spots: (reason, guest-physical page, "
		       "RIP) by the time one task ran while their exits "
		       "waited\n");
	out_open_array(o, "preempted_spots");
	while (i++ < top && rep_iter_next(&it, &e)) {
		out_open_object(o, NULL);
		out_str(o, "reason", NULL, report_reason_name(rep, e.reason));
		out_u64(o, "page", NULL, e.key);
		if (e.key2 != REP_NO_RIP)
			out_u64(o, "rip", NULL, e.key2);
		if (*gpa_hits_text(hits, sizeof(hits), e.aux))
			out_str(o, "memory", NULL, hits);
		if (e.device[0])
			out_str(o, "device", NULL, e.device);
		out_u64(o, "count", NULL, e.count);
		out_u64(o, "total_ns", NULL, e.total_ns);
		rep_out_split(o, rep, e.split, e.total_ns);
		out_close_object(o);
		if (!o->json)
			printf("%s\n", rep_spot_text(rep, &e, line,
						      sizeof(line)));
	}
	out_close_array(o);
	if (!o->json && !rep_iter_rows(&it))
		printf("(none: no exit with a guest-physical address names a "
		       "preemptor)\n");
	rep_iter_end(&it);
	return 0;
}
