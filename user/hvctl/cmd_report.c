// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report DIR: one screen about a recorded trace. The span, what was
 * lost; per exit reason the columns of `hvctl stat` (percentiles exact to
 * the bucket of the log-linear histograms, within 1.6%) and where the
 * time went; per VM and vCPU; the preemptors (report_split.c); the guest
 * RIPs, guest-physical pages, (reason, page, RIP) hot spots, I/O ports
 * and MSRs behind the most exit time, with their preempted share and top
 * preemptor. -j prints the same as one JSON document, --html FILE writes
 * it as a self-contained page with charts (report_html.c).
 *
 * One pass (two when a table overflows), fixed memory: the reader's read
 * buffers, and some 23 MiB of aggregates (report_agg.c) whatever the
 * trace's size. Rows come through the engine's iterators (report_agg.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "hvctl.h"
#include "out_file.h"
#include "output.h"
#include "reason_row.h"
#include "report_agg.h"
#include "report_html.h"
#include "report_split.h"
#include "time_parts.h"
#include "trace_filter.h"
#include "trace_read.h"

struct report_opts {
	const char *dir;
	const char *html;
	uint64_t top;
	bool strict;
	struct trace_filter filter;
};

/* How a top table's keys print. */
struct top_kind {
	const char *title;	/* text heading */
	const char *json;	/* JSON member of the table */
	const char *key;	/* column and JSON key name */
	const char *fmt;	/* text format of the key */
	int width;
	bool reason;		/* show the reason column */
	const char *key2;	/* a second key (RIP), REP_NO_RIP: none */
};

static const struct top_kind top_rips = {
	"Guest RIPs", "top_rips", "rip", "0x%016" PRIx64, 18, true, NULL,
};
static const struct top_kind top_pages = {
	"Guest-physical pages (EPT violation / NPF)", "top_pages", "page",
	"0x%" PRIx64, 18, true, NULL,
};
static const struct top_kind top_ports = {
	"I/O ports", "top_ports", "port", "0x%04" PRIx64, 18, false, NULL,
};
static const struct top_kind top_msrs = {
	"MSRs", "top_msrs", "msr", "0x%08" PRIx64, 18, true, NULL,
};
static const struct top_kind top_spots = {
	"Hot spots: (reason, guest-physical page, RIP)", "top_spots", "page",
	"0x%" PRIx64, 18, true, "rip",
};

static double rate(const struct report *rep, uint64_t count)
{
	uint64_t span = report_span_ns(rep);

	return span ? (double)count * 1e9 / (double)span : 0;
}

static unsigned int lost_cpus(const struct report *rep)
{
	unsigned int n = 0;
	uint64_t lost, ns;

	for (unsigned int c = 0; c < report_summary(rep)->loss_cpus; c++) {
		report_loss_cpu(rep, c, &lost, &ns);
		n += lost > 0;
	}
	return n;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void json_header(struct out *o, const struct report *rep, const char *dir)
{
	const struct rep_summary *sum = report_summary(rep);
	const struct trace_info *i = &sum->info;
	struct rep_table_info vms, vcpus;

	report_table_info(rep, REP_T_VMS, &vms);
	report_table_info(rep, REP_T_VCPUS, &vcpus);

	out_open_object(o, "trace");
	out_str(o, "dir", NULL, dir);
	out_u64(o, "first_ns", NULL, i->first_ts);
	out_u64(o, "last_ns", NULL, i->last_ts);
	out_u64(o, "span_ns", NULL, report_span_ns(rep));
	out_u64(o, "events", NULL, sum->events);
	out_u64(o, "total_ns", NULL, sum->all_ns);
	out_u64(o, "preemptions", NULL, sum->preempts);
	out_u64(o, "preempted_ns", NULL, sum->preempt_ns);
	out_u64(o, "guest_ns", NULL, sum->all_split.guest_ns);
	rep_out_split(o, rep, &sum->all_split, sum->all_ns);
	out_u64(o, "cpus", NULL, i->nr_streams);
	/* Those the tables hold: see vms_other / vcpus_other for the rest. */
	out_u64(o, "vms", NULL, vms.used);
	out_u64(o, "vcpus", NULL, vcpus.used);
	out_u64(o, "packets", NULL, i->packets);
	out_u64(o, "torn_packets", NULL, i->torn_packets);
	out_u64(o, "damaged_packets", NULL, i->damaged_packets);
	out_u64(o, "implausible_events", NULL, i->implausible);
	out_u64(o, "unread_streams", NULL, i->bad_streams);
	out_close_object(o);
}

static void json_loss(struct out *o, const struct report *rep)
{
	const struct rep_summary *sum = report_summary(rep);
	uint64_t lost, lost_ns;

	out_open_object(o, "loss");
	out_u64(o, "events_discarded", NULL, sum->info.discarded);
	out_u64(o, "ranges", NULL, sum->loss_ranges);
	out_u64(o, "lost_time_ns", NULL, sum->lost_ns);
	out_u64(o, "covered_ppm", NULL,
		(uint64_t)(report_coverage(rep) * 1e6 + 0.5));
	out_open_array(o, "cpus");
	for (unsigned int c = 0; c < sum->loss_cpus; c++) {
		report_loss_cpu(rep, c, &lost, &lost_ns);
		if (!lost && !lost_ns)
			continue;
		out_open_object(o, NULL);
		out_u64(o, "cpu", NULL, c);
		out_u64(o, "lost", NULL, lost);
		out_u64(o, "lost_time_ns", NULL, lost_ns);
		out_close_object(o);
	}
	out_close_array(o);
	out_close_object(o);
}

static void text_loss(const struct report *rep, const char *span)
{
	const struct rep_summary *sum = report_summary(rep);
	const struct trace_info *i = &sum->info;
	char l[16];

	duration_str(l, sum->lost_ns);
	printf("  lost     %" PRIu64 " events discarded", i->discarded);
	if (sum->lost_ns)
		printf(" on %u CPUs; %.2f%% of the traced CPU time "
		       "(%u CPUs x %s) fully covered, %s in loss ranges\n",
		       lost_cpus(rep), 100.0 * report_coverage(rep),
		       i->nr_streams, span, l);
	else if (i->discarded)
		printf("; the loss ranges span no time: 100%% of the traced "
		       "CPU time covered, but %" PRIu64 " events are missing "
		       "at their edges\n", i->discarded);
	else
		printf("; 100%% of the traced CPU time fully covered\n");
	if (i->torn_packets)
		printf("  torn     %" PRIu64 " incomplete packets ignored "
		       "(recorder killed?)\n", i->torn_packets);
	if (i->damaged_packets)
		printf("  damaged  %" PRIu64 " packet%s skipped: their events "
		       "are not in this report\n", i->damaged_packets,
		       plural(i->damaged_packets));
	if (i->implausible)
		printf("  doubtful %" PRIu64 " implausible event%s counted as "
		       "they are\n", i->implausible, plural(i->implausible));
	if (i->bad_streams)
		printf("  unread   %u stream%s not read, or not to the end\n",
		       i->bad_streams, plural(i->bad_streams));
	if (sum->loss_unordered)
		printf("  note     loss ranges out of order: coverage is a "
		       "lower bound\n");
}

static void print_header(struct out *o, const struct report *rep, const char *dir)
{
	const struct rep_summary *sum = report_summary(rep);
	const struct trace_info *i = &sum->info;
	struct rep_table_info vt, ct;
	unsigned int vms, vcpus;
	char s[16];

	report_table_info(rep, REP_T_VMS, &vt);
	report_table_info(rep, REP_T_VCPUS, &ct);
	vms = vt.used;
	vcpus = ct.used;
	json_header(o, rep, dir);
	json_loss(o, rep);
	out_u64(o, "memory_bytes", NULL, report_memory(rep));
	if (o->json)
		return;
	duration_str(s, report_span_ns(rep));
	printf("Trace %s\n", dir);
	printf("  span     %s, %" PRIu64 " exit%s (%.0f/s) on %u CPU%s, "
	       "%u%s VM%s, %u%s vCPU%s\n", s, sum->events,
	       plural(sum->events), rate(rep, sum->events), i->nr_streams,
	       plural(i->nr_streams), vms, vt.other.count ? "+" : "",
	       plural(vms), vcpus, ct.other.count ? "+" : "",
	       plural(vcpus));
	if (sum->preempts) {
		duration_str(s, sum->preempt_ns);
		printf("  preempt  %" PRIu64 " preemption record%s (vCPU threads "
		       "off CPU inside KVM), %s\n", sum->preempts,
		       plural(sum->preempts), s);
	}
	duration_str(s, report_span_ns(rep));
	text_loss(rep, s);
}

/* COLS: reason_cols, the reason column as wide as the table needs. */
static void print_reason(struct out *o, const struct out_col *cols,
			 const struct report *rep, unsigned int idx)
{
	const struct rep_reason *rr = report_reason(rep, idx);
	uint64_t all_ns = report_summary(rep)->all_ns;
	const struct rep_stat *st = &rr->s;
	bool other = idx == REP_OTHER_REASON;
	struct out_cell c[RC_NR] = {
		[RC_REASON].s = rr->name,
		[RC_ISA] = { .u = rr->isa, .absent = other },
		[RC_CODE] = { .u = rr->code, .absent = other },
		[RC_COUNT].u = st->count,
		[RC_NO_ENTRY].absent = true,
		[RC_RATE].d = rate(rep, st->count),
		[RC_TOTAL].u = st->total_ns,
		[RC_SHARE_PPM].u = ppm_of(st->total_ns, all_ns),
		[RC_SHARE].d = all_ns ? 100.0 * (double)st->total_ns /
					(double)all_ns : 0.0,
		[RC_MIN].u = st->min_ns,
		[RC_P50].u = report_percentile(rr, 50),
		[RC_P99].u = report_percentile(rr, 99),
		[RC_P999].u = report_percentile(rr, 99.9),
		[RC_MAX].u = st->max_ns,
	};

	out_open_object(o, NULL);
	out_cells(o, cols, c, RC_NR);
	out_u64(o, "preemptions", NULL, rr->split.preempts);
	out_u64(o, "preempted_ns", NULL, rr->split.preempt_ns);
	rep_out_split(o, rep, &rr->split, st->total_ns);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

static void print_reasons(struct out *o, const struct report *rep)
{
	unsigned int idx[REP_MAX_REASONS + 1];
	unsigned int n = report_reasons_by_time(rep, idx);
	struct out_col cols[RC_NR];

	/* A long label widens the reason column rather than push the rest. */
	memcpy(cols, reason_cols, sizeof(cols));
	for (unsigned int i = 0; i < n; i++)
		out_fit(&cols[RC_REASON], report_reason(rep, idx[i])->name);
	if (!o->json)
		printf("\nExit reasons, by time\n");
	out_heading(o, cols, RC_NR);
	out_open_array(o, "reasons");
	for (unsigned int i = 0; i < n; i++)
		print_reason(o, cols, rep, idx[i]);
	out_close_array(o);
	if (!o->json && !n)
		printf("(no exits in this trace)\n");
	if (!o->json && report_reason(rep, REP_OTHER_REASON)->s.count)
		printf("(more than %u distinct reasons: the rest are "
		       "\"other\")\n", REP_MAX_REASONS);
	rep_print_reason_split(o, rep, -cols[RC_REASON].width);
}

/* The reason with the most time and its share, "-" when not known. */
static void top_reason_text(const struct report *rep, unsigned int reason,
			    uint64_t ns, uint64_t total, char *buf,
			    size_t len)
{
	if (reason > REP_MAX_REASONS || !total)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s %.0f%%", report_reason_name(rep, reason),
			 100.0 * (double)ns / (double)total);
}

static void print_vm_row(const char *name, const char *id, const char *pid,
			 const char *vcpu, const struct rep_row *e,
			 const char *top)
{
	char t[16], mx[16];

	duration_str(t, e->total_ns);
	duration_str(mx, e->max_ns);
	printf("%-20.20s %6s %8s %5s %12" PRIu64 " %10s %9s  %s\n", name, id,
	       pid, vcpu, e->count, t, mx, top);
}

static void json_top_reason(struct out *o, const struct report *rep, unsigned int reason,
			    uint64_t ns)
{
	if (reason > REP_MAX_REASONS)
		return;
	out_str(o, "top_reason", NULL, report_reason_name(rep, reason));
	out_u64(o, "top_reason_ns", NULL, ns);
}

/* The vCPUs of VM_ID from VCPUS (all of them, by time), the TOP first. */
static void print_vcpus(struct out *o, const struct report *rep, uint32_t vm_id,
			struct rep_iter *vcpus, unsigned int top)
{
	unsigned int shown = 0, more = 0;
	char id[16], tid[16], buf[48];
	struct rep_row v;

	out_open_array(o, "vcpus");
	rep_iter_rewind(vcpus);
	while (rep_iter_next(vcpus, &v)) {
		if (v.key >> 32 != vm_id)
			continue;
		if (shown++ >= top) {
			more++;
			continue;
		}
		out_open_object(o, NULL);
		out_u64(o, "vcpu", NULL, (uint32_t)v.key);
		out_u64(o, "tid", NULL, v.aux);
		out_u64(o, "count", NULL, v.count);
		out_u64(o, "total_ns", NULL, v.total_ns);
		out_u64(o, "max_ns", NULL, v.max_ns);
		json_top_reason(o, rep, v.top_reason, v.top_reason_ns);
		out_u64(o, "guest_ns", NULL, v.split->guest_ns);
		out_u64(o, "preemptions", NULL, v.split->preempts);
		out_u64(o, "preempted_ns", NULL, v.split->preempt_ns);
		rep_out_split(o, rep, v.split, v.total_ns);
		out_close_object(o);
		if (o->json)
			continue;
		snprintf(id, sizeof(id), "%u", (uint32_t)v.key);
		snprintf(tid, sizeof(tid), "%u", v.aux);
		top_reason_text(rep, v.top_reason, v.top_reason_ns,
				v.total_ns, buf, sizeof(buf));
		print_vm_row("", "", tid, id, &v, buf);
	}
	out_close_array(o);
	out_u64(o, "vcpus_omitted", NULL, more);
	if (more && !o->json)
		printf("%-20s %6s %8s %5s (%u more vCPUs)\n", "", "", "", "",
		       more);
}

/*
 * Exits a full table could not place. JSON: KEY's object, always for the
 * top tables (MUST), else only when there were any. Text: a row like the
 * entries' (key column WIDTH, then REASON_W), and why.
 */
static void print_overflow(struct out *o, const struct rep_table_info *t, const char *key,
			   bool must, int width, int reason_w)
{
	const struct rep_row *ov = &t->other;
	char tt[16], mx[16];

	if (!ov->count && !must)
		return;
	out_open_object(o, key);
	out_u64(o, "count", NULL, ov->count);
	out_u64(o, "total_ns", NULL, ov->total_ns);
	out_u64(o, "max_ns", NULL, ov->max_ns);
	out_close_object(o);
	if (o->json || !ov->count)
		return;
	duration_str(tt, ov->total_ns);
	duration_str(mx, ov->max_ns);
	printf("%-*s %-*s %12" PRIu64 " %10s %9s\n", width, "other", reason_w,
	       "", ov->count, tt, mx);
	printf("(other: the table holds %u %s; exits under further ones are "
	       "counted there)\n", t->limit, t->what);
}

/*
 * A table that overflowed was counted again (report_again()): its rows
 * are exact, and no key in other had more than bound_ns. The first
 * SHOWN rows are the true top ones down to the first with no more.
 */
static void print_exactness(struct out *o, const struct rep_table_info *t,
			    struct rep_iter *rows, unsigned int shown)
{
	unsigned int sure = 0;
	struct rep_row r;
	char b[16];

	if (!t->seeded)
		return;
	rep_iter_rewind(rows);
	while (sure < shown && rep_iter_next(rows, &r) &&
	       r.total_ns > t->bound_ns)
		sure++;
	out_u64(o, "bound_ns", NULL, t->bound_ns);
	out_u64(o, "exact_rows", NULL, sure);
	out_bool(o, "exact", NULL, sure == shown);
	if (o->json)
		return;
	duration_str(b, t->bound_ns);
	if (sure == shown)
		printf("(counted in a second pass: these rows are exact and the "
		       "top ones; none in other has more than %s)\n", b);
	else
		printf("(counted in a second pass: the rows are exact, the first "
		       "%u the top ones; keys in other may have up to %s each)\n",
		       sure, b);
}

static int print_vms(struct out *o, const struct report *rep, unsigned int top)
{
	const struct rep_summary *sum = report_summary(rep);
	struct rep_table_info vt, ct;
	struct rep_iter vms, vcpus;
	unsigned int nvm, nvcpu, i = 0;
	char name[64], id[16], pid[16], buf[48];
	struct rep_row vm;

	if (rep_iter_start(&vms, rep, REP_T_VMS, REP_BY_TIME) ||
	    rep_iter_start(&vcpus, rep, REP_T_VCPUS, REP_BY_TIME)) {
		rep_iter_end(&vms);
		return -1;
	}
	report_table_info(rep, REP_T_VMS, &vt);
	report_table_info(rep, REP_T_VCPUS, &ct);
	nvm = rep_iter_rows(&vms);
	nvcpu = rep_iter_rows(&vcpus);
	if (!o->json)
		printf("\nVMs and their vCPUs, by time (vCPU rows: pid column "
		       "is the thread)\n%-20s %6s %8s %5s %12s %10s %9s  %s\n",
		       "vm", "id", "pid", "vcpu", "exits", "time", "max",
		       "top reason (share of time)");
	out_open_array(o, "vms");
	while (i++ < top && rep_iter_next(&vms, &vm)) {
		report_vm_name(rep, vm.key, name, sizeof(name));
		out_open_object(o, NULL);
		out_str(o, "name", NULL, name);
		out_u64(o, "vm_id", NULL, vm.key);
		out_u64(o, "vm_pid", NULL, vm.aux);
		out_u64(o, "count", NULL, vm.count);
		out_u64(o, "total_ns", NULL, vm.total_ns);
		out_u64(o, "max_ns", NULL, vm.max_ns);
		json_top_reason(o, rep, vm.top_reason, vm.top_reason_ns);
		if (!o->json) {
			snprintf(id, sizeof(id), "%u", (uint32_t)vm.key);
			snprintf(pid, sizeof(pid), "%u", vm.aux);
			top_reason_text(rep, vm.top_reason, vm.top_reason_ns,
					vm.total_ns, buf, sizeof(buf));
			print_vm_row(name, id, pid, "all", &vm, buf);
		}
		print_vcpus(o, rep, vm.key, &vcpus, top);
		out_close_object(o);
	}
	out_close_array(o);
	out_u64(o, "vms_omitted", NULL, nvm > top ? nvm - top : 0);
	if (!o->json && nvm > top)
		printf("(%u more VMs)\n", nvm - top);
	print_overflow(o, &vt, "vms_other", false, 35, 6);
	print_exactness(o, &vt, &vms, nvm < top ? nvm : top);
	print_overflow(o, &ct, "vcpus_other", false, 35, 6);
	print_exactness(o, &ct, &vcpus, nvcpu < top ? nvcpu : top);
	if (!o->json && sum->pairs_other)
		printf("(top reasons leave out %" PRIu64 " exits: the %s "
		       "table is full)\n", sum->pairs_other, sum->pairs_what);
	rep_iter_end(&vms);
	rep_iter_end(&vcpus);
	return rep_print_vcpu_split(o, rep, top);
}

static int print_top(struct out *o, const struct report *rep, enum rep_table_id id,
		     const struct top_kind *k, unsigned int top)
{
	struct rep_table_info t;
	struct rep_iter it;
	struct rep_row e;
	unsigned int n, i = 0;
	char key[48], tt[16], mx[16], tp[64];

	if (rep_iter_start(&it, rep, id, REP_BY_TIME))
		return -1;
	report_table_info(rep, id, &t);
	n = rep_iter_rows(&it);
	out_open_object(o, k->json);
	out_u64(o, "capacity", NULL, t.limit);
	out_u64(o, "distinct", NULL, t.used);
	if (!o->json) {
		printf("\n%s, top %u of %u%s by time (preempted: share of the "
		       "time; top preemptor: see \"Top preemptors\")\n",
		       k->title, n < top ? n : top, n,
		       t.other.count ? "+" : "");
		printf("%-*s %-24s %12s %10s %9s %8s  %s\n", k->width +
		       (k->key2 ? 19 : 0), k->key2 ? "page               rip" :
		       k->key, k->reason ? "reason" : "", "exits", "time",
		       "max", "preempted", "top preemptor (share of time)");
	}
	out_open_array(o, "entries");
	while (i++ < top && rep_iter_next(&it, &e)) {
		const struct rep_split *s = e.split;
		const char *reason = report_reason_name(rep, e.reason);

		out_open_object(o, NULL);
		out_u64(o, k->key, NULL, e.key);
		if (k->key2 && e.key2 != REP_NO_RIP)
			out_u64(o, k->key2, NULL, e.key2);
		if (k->reason)
			out_str(o, "reason", NULL, reason);
		out_u64(o, "count", NULL, e.count);
		out_u64(o, "total_ns", NULL, e.total_ns);
		out_u64(o, "max_ns", NULL, e.max_ns);
		rep_out_split(o, rep, s, e.total_ns);
		out_close_object(o);
		if (o->json)
			continue;
		snprintf(key, sizeof(key), k->fmt, e.key);
		if (k->key2) {
			size_t l = strlen(key);

			if (e.key2 == REP_NO_RIP)
				snprintf(key + l, sizeof(key) - l, "%*s%s",
					 k->width - (int)l + 1, "", "-");
			else
				snprintf(key + l, sizeof(key) - l,
					 "%*s0x%016" PRIx64,
					 k->width - (int)l + 1, "", e.key2);
		}
		duration_str(tt, e.total_ns);
		duration_str(mx, e.max_ns);
		printf("%-*s %-24s %12" PRIu64 " %10s %9s %8.1f%%  %s\n",
		       k->width + (k->key2 ? 19 : 0), key,
		       k->reason ? reason : "", e.count, tt, mx,
		       time_share(s->part_ns[REP_RUNNABLE], e.total_ns),
		       rep_top_text(rep, s, e.total_ns, tp, sizeof(tp)));
	}
	out_close_array(o);
	print_overflow(o, &t, "other", true, k->width + (k->key2 ? 19 : 0), 24);
	print_exactness(o, &t, &it, n < top ? n : top);
	out_close_object(o);
	if (!o->json && !n && !t.other.count)
		printf("(none in this trace)\n");
	rep_iter_end(&it);
	return 0;
}

static void print_memory(struct out *o, const struct report *rep)
{
	struct rep_table_info t[REP_NR_TABLES];

	if (o->json)
		return;
	for (unsigned int i = 0; i < REP_NR_TABLES; i++)
		report_table_info(rep, i, &t[i]);
	printf("\nMemory: %.1f MiB for the aggregates, fixed whatever the "
	       "trace's size (at most %u reasons, %u VMs, %u vCPUs, %u RIPs, "
	       "%u pages, %u hot spots, %u ports, %u MSRs, %u preemptors: "
	       "past that, \"other\"), plus the reader's fixed read "
	       "buffers\n", (double)report_memory(rep) / (1 << 20),
	       REP_MAX_REASONS, t[REP_T_VMS].limit, t[REP_T_VCPUS].limit,
	       t[REP_T_RIPS].limit, t[REP_T_PAGES].limit, t[REP_T_SPOTS].limit,
	       t[REP_T_PORTS].limit, t[REP_T_MSRS].limit,
	       report_summary(rep)->pre_limit);
}

/* 0, or -1 out of memory (with part of the report printed). */
static int print_report(struct out *o, const struct report *rep, const char *dir,
			unsigned int top)
{
	int ret;

	out_open_object(o, NULL);
	print_header(o, rep, dir);
	print_reasons(o, rep);
	ret = print_vms(o, rep, top) ||
	      rep_print_preemptors(o, rep, top) ||
	      rep_print_preempted_spots(o, rep, top) ||
	      print_top(o, rep, REP_T_RIPS, &top_rips, top) ||
	      print_top(o, rep, REP_T_PAGES, &top_pages, top) ||
	      print_top(o, rep, REP_T_SPOTS, &top_spots, top) ||
	      print_top(o, rep, REP_T_PORTS, &top_ports, top) ||
	      print_top(o, rep, REP_T_MSRS, &top_msrs, top);
	if (ret)
		return -1;
	print_memory(o, rep);
	out_close_object(o);
	out_end(o);
	return 0;
}

static int read_pass(struct trace_reader *r, struct report *rep,
		     const char *dir, struct trace_filter *f)
{
	struct trace_event ev;
	int ret;

	while ((ret = trace_next(r, &ev)) > 0)
		if (trace_filter_match(f, r, &ev))
			report_add(rep, &ev);
	if (ret < 0)
		return hvctl_err("reading %s: %s", dir, trace_error(r));
	return 0;
}

/*
 * One pass, or two when a table overflowed (report_wants_pass()): the
 * second with a reader of its own, which *R becomes.
 */
static int read_trace(struct trace_reader **r, struct report *rep,
		      const char *dir, unsigned int flags,
		      struct trace_filter *f)
{
	struct trace_reader *again;
	uint64_t lo, hi;
	char err[512];

	if (read_pass(*r, rep, dir, f))
		return 1;
	if (report_wants_pass(rep)) {
		again = trace_open(dir, flags, err, sizeof(err));
		if (!again)
			return hvctl_err("%s", err);
		trace_close(*r);
		*r = again;
		report_again(rep);
		if (read_pass(*r, rep, dir, f))
			return 1;
	}
	if (trace_filter_window(f, &lo, &hi))
		report_set_window(rep, lo, hi);
	if (report_finish(rep, *r))
		return hvctl_err("%s changed while it was read twice", dir);
	return 0;
}

static const struct hvctl_opt report_opts[] = {
	OPT_STR("--html", struct report_opts, html, "@file"),
	OPT_U64("--top", struct report_opts, top, 1, 100000),
	OPT_FLAG("--strict", struct report_opts, strict),
	TRACE_FILTER_OPTS(struct report_opts, filter),
	OPT_END,
};

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_report;
	int ret = hvctl_parse_dir(cmd, argc, argv, o, &o->dir);

	if (!ret && trace_filter_parse(&o->filter))
		ret = hvctl_usage(cmd);
	return ret;
}

static int report_run(int argc, char **argv)
{
	struct report_opts o = { .top = 10 };
	struct out out;
	struct out_file html = { 0 };
	unsigned int flags;
	struct trace_reader *r;
	struct report *rep;
	char err[512];
	int ret;

	if (hvctl_want_help(&hvctl_cmd_report, argc, argv))
		return 0;
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret;
	flags = o.strict ? TRACE_STRICT : 0;
	r = trace_open(o.dir, flags, err, sizeof(err));
	if (!r)
		return hvctl_err("%s", err);
	if (trace_filter_bind(&o.filter, r)) {
		trace_close(r);
		return 1;
	}
	/* Before reading: a page that cannot be written is said at once. */
	if (o.html && out_file_open(&html, o.html, o.dir)) {
		trace_close(r);
		return 1;
	}
	rep = report_new();
	ret = rep ? read_trace(&r, rep, o.dir, flags, &o.filter) :
		    hvctl_err("out of memory");
	if (!ret && o.html) {
		if (report_html(rep, o.dir, html.f, o.top)) {
			out_file_discard(&html);
			ret = hvctl_err("out of memory");
		} else {
			ret = out_file_commit(&html) ? 1 : 0;
		}
	} else if (o.html) {
		out_file_discard(&html);
	}
	/* --html -: the page is standard output, and nothing else. */
	out_init(&out, stdout, hvctl_json);
	if (!ret && !(o.html && !strcmp(o.html, "-")) &&
	    print_report(&out, rep, o.dir, o.top))
		ret = hvctl_err("out of memory");
	if (!ret)
		trace_print_warnings(r, stderr);
	if (rep)
		report_free(rep);
	trace_close(r);
	return ret;
}

const struct hvctl_cmd hvctl_cmd_report = {
	.name = "report",
	.run = report_run,
	.usage = "DIR [--html FILE] [--top N] [--strict]\n"
		 "       " TRACE_FILTER_USAGE,
	.opts = report_opts,
	.args = "@dir",
	.summary = "summarize a recorded trace: span and losses, per reason\n"
		   "counts, time, percentiles and where the time went (handling,\n"
		   "vmm, halt, preempted, other), per VM and vCPU (with guest time\n"
		   "and preemptions), the tasks that preempted vCPUs, and the top\n"
		   "RIPs, pages, (reason, page, RIP) hot spots, ports and MSRs\n"
		   "with their preempted share and top preemptor (N, default 10);\n"
		   "--html FILE also writes a self-contained page with charts\n"
		   "(replaced whole once written; new: mode 0600; never inside\n"
		   "DIR; - : to stdout, instead of the report). Damaged packets\n"
		   "are skipped with a warning; --strict makes any damage an error.\n"
		   "Top lists are exact: a table that overflows is counted again in\n"
		   "a second pass. Filters: --since/--until T (\"1.5s\" from the\n"
		   "start, or absolute: dump's seconds or the JSON's ns), --vm ID or\n"
		   "NAME, --vcpu N, --reason R, --cpu N (lists: 1,2); all must match",
};
