// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report DIR: one screen about a recorded trace. The span, what was
 * lost; per exit reason the columns of `hvctl stat` (percentiles exact to
 * the bucket of the log-linear histograms, within 1.6%) and where the
 * time went; per VM and vCPU; the preemptors (report_split.c); the guest
 * RIPs, guest-physical pages, (reason, page, RIP) hot spots, I/O ports
 * and MSRs behind the most exit time, with their runnable share and top
 * preemptor; the late interrupts, the longest with why they were late
 * (report_late_irqs.c). -j prints the same as one JSON document, --html FILE writes
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
#include "gpa_class.h"
#include "hvctl.h"
#include "out_file.h"
#include "output.h"
#include "reason_row.h"
#include "report_agg.h"
#include "report_capture.h"
#include "report_html.h"
#include "report_late_irqs.h"
#include "report_marks.h"
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
	bool reason;		/* show the reason column */
	const char *key2;	/* a second key (RIP), REP_NO_RIP: none */
	bool memory;		/* aux is gpa_hits(): what the GPAs hit */
};

static const struct top_kind top_rips = {
	"Guest RIPs", "top_rips", "rip", "0x%016" PRIx64, true, NULL, false,
};
static const struct top_kind top_pages = {
	"Guest-physical pages (EPT violation / NPF)", "top_pages", "page",
	"0x%" PRIx64, true, NULL, true,
};
static const struct top_kind top_ports = {
	"I/O ports", "top_ports", "port", "0x%04" PRIx64, false, NULL, false,
};
static const struct top_kind top_msrs = {
	"MSRs", "top_msrs", "msr", "0x%08" PRIx64, true, NULL, false,
};
static const struct top_kind top_spots = {
	"Hot spots: (reason, guest-physical page, RIP)", "top_spots", "page",
	"0x%" PRIx64, true, "rip", true,
};

/*
 * A top table's row; the keys' columns are the kind's (top_columns()).
 * JSON has the keys as numbers, text in hex.
 */
enum top_col {
	TC_KEY,
	TC_KEY2,
	TC_REASON,
	TC_KEY_TEXT,
	TC_KEY2_TEXT,
	TC_REASON_TEXT,
	TC_MEMORY,
	TC_MEMORY_TEXT,
	TC_DEVICE,
	TC_COUNT,
	TC_TOTAL,
	TC_MAX,
	TC_RUNNABLE,
	TC_GAP,
	TC_TOP_TEXT,
	TC_NR
};

static const struct out_col top_cols[TC_NR] = {
	[TC_KEY] = { NULL, NULL, 0, OUT_U64 },
	[TC_KEY2] = { NULL, NULL, 0, OUT_U64 },
	[TC_REASON] = { "reason", NULL, 0, OUT_STR },
	[TC_KEY_TEXT] = { NULL, NULL, -18, OUT_STR },
	[TC_KEY2_TEXT] = { NULL, NULL, -18, OUT_STR },
	[TC_REASON_TEXT] = { NULL, "reason", -24, OUT_STR },
	[TC_MEMORY] = { "memory", NULL, 0, OUT_STR },
	[TC_MEMORY_TEXT] = { NULL, "memory", -30, OUT_STR },
	[TC_DEVICE] = { "device", NULL, 0, OUT_STR },
	[TC_COUNT] = { "count", "exits", 12, OUT_U64 },
	[TC_TOTAL] = { "total_ns", "time", 10, OUT_DUR },
	[TC_MAX] = { "max_ns", "max", 9, OUT_DUR },
	[TC_RUNNABLE] = { NULL, "runnable", 9, OUT_PCT, .prec = 1 },
	/* An empty column: two spaces before the last one. */
	[TC_GAP] = { NULL, "", 0, OUT_STR },
	[TC_TOP_TEXT] = { NULL, "top preemptor (share of time)", 0, OUT_STR },
};

/*
 * The rows of the VM table: a VM, one of its vCPUs, or those a full table
 * could not place. JSON names a VM by name, vm_id and vm_pid, a vCPU by
 * vcpu and tid; text shows both in the same columns (a vCPU's pid column
 * is its thread).
 */
enum vm_col {
	VC_NAME,
	VC_VM_ID,
	VC_VM_PID,
	VC_VCPU,
	VC_TID,
	VC_NAME_TEXT,
	VC_ID_TEXT,
	VC_PID_TEXT,
	VC_VCPU_TEXT,
	VC_COUNT,
	VC_TOTAL,
	VC_MAX,
	VC_TOP_REASON,
	VC_TOP_REASON_NS,
	VC_GUEST,
	VC_PREEMPTS,
	VC_PREEMPT_NS,
	VC_GAP,
	VC_TOP_TEXT,
	VC_NR
};

static const struct out_col vm_cols[VC_NR] = {
	[VC_NAME] = { "name", NULL, 0, OUT_STR },
	[VC_VM_ID] = { "vm_id", NULL, 0, OUT_U64 },
	[VC_VM_PID] = { "vm_pid", NULL, 0, OUT_U64 },
	[VC_VCPU] = { "vcpu", NULL, 0, OUT_U64 },
	[VC_TID] = { "tid", NULL, 0, OUT_U64 },
	[VC_NAME_TEXT] = { NULL, "vm", -20, OUT_STR, .prec = 20 },
	[VC_ID_TEXT] = { NULL, "id", 6, OUT_STR },
	[VC_PID_TEXT] = { NULL, "pid", 8, OUT_STR },
	[VC_VCPU_TEXT] = { NULL, "vcpu", 5, OUT_STR },
	[VC_COUNT] = { "count", "exits", 12, OUT_U64 },
	[VC_TOTAL] = { "total_ns", "time", 10, OUT_DUR },
	[VC_MAX] = { "max_ns", "max", 9, OUT_DUR },
	[VC_TOP_REASON] = { "top_reason", NULL, 0, OUT_STR },
	[VC_TOP_REASON_NS] = { "top_reason_ns", NULL, 0, OUT_U64 },
	[VC_GUEST] = { "guest_ns", NULL, 0, OUT_U64 },
	[VC_PREEMPTS] = { "preemptions", NULL, 0, OUT_U64 },
	[VC_PREEMPT_NS] = { "preempted_ns", NULL, 0, OUT_U64 },
	[VC_GAP] = { NULL, "", 0, OUT_STR },
	[VC_TOP_TEXT] = { NULL, "top reason (share of time)", 0, OUT_STR },
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

/* A cell of a number, and of a string. */
static struct out_cell cell_u(uint64_t u)
{
	return (struct out_cell){ .u = u };
}

static struct out_cell cell_s(const char *s)
{
	return (struct out_cell){ .s = s };
}

/*
 * Cells that name nothing: a text column empty, a JSON member left out.
 * The caller fills in those its row has.
 */
static void blank_cells(const struct out_col *cols, struct out_cell *c,
			unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		c[i] = cols[i].key ? (struct out_cell){ .absent = true } :
				     cell_s("");
}

/* The cells of the VM table's row R, but who it is; TOP holds text. */
static void vm_cells(struct out_cell *c, const struct report *rep,
		     const struct rep_row *r, char *top, size_t len)
{
	const char *reason = report_reason_name(rep, r->top_reason);

	blank_cells(vm_cols, c, VC_NR);
	c[VC_COUNT] = cell_u(r->count);
	c[VC_TOTAL] = cell_u(r->total_ns);
	c[VC_MAX] = cell_u(r->max_ns);
	if (r->top_reason <= REP_MAX_REASONS) {
		c[VC_TOP_REASON] = cell_s(reason);
		c[VC_TOP_REASON_NS] = cell_u(r->top_reason_ns);
	}
	top_reason_text(rep, r->top_reason, r->top_reason_ns, r->total_ns,
			top, len);
	c[VC_TOP_TEXT].s = top;
}

/* The vCPUs of VM_ID from VCPUS (all of them, by time), the TOP first. */
static void print_vcpus(struct out *o, const struct report *rep, uint32_t vm_id,
			struct rep_iter *vcpus, unsigned int top)
{
	unsigned int shown = 0, more = 0;
	char id[16], tid[16], buf[48];
	struct out_cell c[VC_NR];
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
		vm_cells(c, rep, &v, buf, sizeof(buf));
		snprintf(id, sizeof(id), "%u", (uint32_t)v.key);
		snprintf(tid, sizeof(tid), "%u", v.aux);
		c[VC_VCPU] = cell_u((uint32_t)v.key);
		c[VC_TID] = cell_u(v.aux);
		c[VC_PID_TEXT].s = tid;
		c[VC_VCPU_TEXT].s = id;
		c[VC_GUEST] = cell_u(v.split->guest_ns);
		c[VC_PREEMPTS] = cell_u(v.split->preempts);
		c[VC_PREEMPT_NS] = cell_u(v.split->preempt_ns);
		out_open_object(o, NULL);
		out_cells(o, vm_cols, c, VC_NR);
		rep_out_split(o, rep, v.split, v.total_ns);
		out_close_object(o);
		if (!o->json)
			fputc('\n', o->f);
	}
	out_close_array(o);
	out_u64(o, "vcpus_omitted", NULL, more);
	if (more && !o->json)
		printf("%-20s %6s %8s %5s (%u more vCPUs)\n", "", "", "", "",
		       more);
}

/*
 * Exits a full table could not place. JSON: KEY's object, always for the
 * top tables (MUST), else only when there were any. Text: a row of the
 * table's columns COLS up to N, the last three count, total and max, its
 * column LABEL saying "other"; and why. C: room for N cells.
 */
static void print_overflow(struct out *o, const struct rep_table_info *t,
			   const char *key, bool must,
			   const struct out_col *cols, struct out_cell *c,
			   unsigned int n, unsigned int label)
{
	const struct rep_row *ov = &t->other;

	if (!ov->count && !must)
		return;
	blank_cells(cols, c, n);
	c[label].s = "other";
	c[n - 3] = cell_u(ov->count);
	c[n - 2] = cell_u(ov->total_ns);
	c[n - 1] = cell_u(ov->max_ns);
	out_open_object(o, key);
	if (o->json || ov->count)
		out_cells(o, cols, c, n);
	out_close_object(o);
	if (o->json || !ov->count)
		return;
	printf("\n(other: the table holds %u %s; exits under further ones "
	       "are counted there)\n", t->limit, t->what);
}

/*
 * A table that overflowed is a summary, counted again (report_again())
 * or exact in one pass: its rows are exact, and no key in other had more
 * than bound_ns. The first SHOWN rows are the true top ones down to the
 * first with no more.
 */
static void print_exactness(struct out *o, const struct rep_table_info *t,
			    struct rep_iter *rows, unsigned int shown)
{
	const char *how = t->seeded ? "counted in a second pass" :
			  "counted in one pass";
	unsigned int sure = 0;
	struct rep_row r;
	char b[16];

	if (!t->seeded && !t->proven)
		return;
	rep_iter_rewind(rows);
	while (sure < shown && rep_iter_next(rows, &r) &&
	       r.total_ns > t->bound_ns)
		sure++;
	out_bool(o, "recounted", NULL, t->seeded);
	out_u64(o, "bound_ns", NULL, t->bound_ns);
	out_u64(o, "exact_rows", NULL, sure);
	out_bool(o, "exact", NULL, sure == shown);
	if (o->json)
		return;
	duration_str(b, t->bound_ns);
	if (sure == shown)
		printf("(%s: these rows are exact and the top ones; none in "
		       "other has more than %s)\n", how, b);
	else
		printf("(%s: the rows are exact, the first %u the top ones; "
		       "keys in other may have up to %s each)\n", how, sure,
		       b);
}

static int print_vms(struct out *o, const struct report *rep, unsigned int top)
{
	const struct rep_summary *sum = report_summary(rep);
	struct rep_table_info vt, ct;
	struct rep_iter vms, vcpus;
	unsigned int nvm, nvcpu, i = 0;
	char name[64], id[16], pid[16], buf[48];
	struct out_cell c[VC_NR];
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
		       "is the thread)\n");
	out_heading(o, vm_cols, VC_NR);
	out_open_array(o, "vms");
	while (i++ < top && rep_iter_next(&vms, &vm)) {
		report_vm_name(rep, vm.key, name, sizeof(name));
		vm_cells(c, rep, &vm, buf, sizeof(buf));
		snprintf(id, sizeof(id), "%u", (uint32_t)vm.key);
		snprintf(pid, sizeof(pid), "%u", vm.aux);
		c[VC_NAME] = cell_s(name);
		c[VC_VM_ID] = cell_u(vm.key);
		c[VC_VM_PID] = cell_u(vm.aux);
		c[VC_NAME_TEXT].s = name;
		c[VC_ID_TEXT].s = id;
		c[VC_PID_TEXT].s = pid;
		c[VC_VCPU_TEXT].s = "all";
		out_open_object(o, NULL);
		out_cells(o, vm_cols, c, VC_NR);
		if (!o->json)
			fputc('\n', o->f);
		print_vcpus(o, rep, vm.key, &vcpus, top);
		out_close_object(o);
	}
	out_close_array(o);
	out_u64(o, "vms_omitted", NULL, nvm > top ? nvm - top : 0);
	if (!o->json && nvm > top)
		printf("(%u more VMs)\n", nvm - top);
	print_overflow(o, &vt, "vms_other", false, vm_cols, c, VC_MAX + 1,
		       VC_NAME_TEXT);
	print_exactness(o, &vt, &vms, nvm < top ? nvm : top);
	print_overflow(o, &ct, "vcpus_other", false, vm_cols, c, VC_MAX + 1,
		       VC_NAME_TEXT);
	print_exactness(o, &ct, &vcpus, nvcpu < top ? nvcpu : top);
	if (!o->json && sum->pairs_other)
		printf("(top reasons leave out %" PRIu64 " exits: the %s "
		       "table is full)\n", sum->pairs_other, sum->pairs_what);
	rep_iter_end(&vms);
	rep_iter_end(&vcpus);
	return rep_print_vcpu_split(o, rep, top);
}

/* K's columns: its keys' names; I/O ports leave the reason blank. */
static void top_columns(struct out_col *cols, const struct top_kind *k)
{
	memcpy(cols, top_cols, sizeof(top_cols));
	cols[TC_KEY].key = cols[TC_KEY_TEXT].head = k->key;
	cols[TC_KEY2].key = cols[TC_KEY2_TEXT].head = k->key2;
	if (!k->reason) {
		cols[TC_REASON].key = NULL;
		cols[TC_REASON_TEXT].head = "";
	}
	if (!k->memory) {
		cols[TC_MEMORY].key = cols[TC_DEVICE].key = NULL;
		cols[TC_MEMORY_TEXT].head = NULL;
	}
}

static int print_top(struct out *o, const struct report *rep, enum rep_table_id id,
		     const struct top_kind *k, unsigned int top)
{
	struct out_col cols[TC_NR];
	struct out_cell c[TC_NR];
	struct rep_table_info t;
	struct rep_iter it;
	struct rep_row e;
	unsigned int n, i = 0;
	char key[48], key2[24], tp[64], mem[64], mem_text[160];

	if (rep_iter_start(&it, rep, id, REP_BY_TIME))
		return -1;
	report_table_info(rep, id, &t);
	n = rep_iter_rows(&it);
	top_columns(cols, k);
	out_open_object(o, k->json);
	out_u64(o, "capacity", NULL, t.limit);
	out_u64(o, "distinct", NULL, t.used);
	/* A summary held fewer keys than the trace has: more than it holds. */
	if (!o->json && (t.seeded || t.proven))
		printf("\n%s, top %u of more than %u by time (runnable: share "
		       "of the time; top preemptor: see \"Top preemptors\")\n",
		       k->title, n < top ? n : top, t.limit);
	else if (!o->json)
		printf("\n%s, top %u of %u%s by time (runnable: share of the "
		       "time; top preemptor: see \"Top preemptors\")\n",
		       k->title, n < top ? n : top, n,
		       t.other.count ? "+" : "");
	out_heading(o, cols, TC_NR);
	out_open_array(o, "entries");
	while (i++ < top && rep_iter_next(&it, &e)) {
		const struct rep_split *s = e.split;
		const char *reason = k->reason ?
				     report_reason_name(rep, e.reason) : "";

		blank_cells(cols, c, TC_NR);
		snprintf(key, sizeof(key), k->fmt, e.key);
		c[TC_KEY] = cell_u(e.key);
		c[TC_KEY_TEXT].s = key;
		if (e.key2 != REP_NO_RIP) {
			snprintf(key2, sizeof(key2), "0x%016" PRIx64, e.key2);
			c[TC_KEY2] = cell_u(e.key2);
			c[TC_KEY2_TEXT].s = key2;
		} else {
			c[TC_KEY2_TEXT].absent = true;
		}
		c[TC_REASON] = cell_s(reason);
		c[TC_REASON_TEXT].s = reason;
		/* "": its exits' accesses were not followed (an old module). */
		if (*gpa_hits_text(mem, sizeof(mem), e.aux))
			c[TC_MEMORY] = cell_s(mem);
		/* The devices of the page, in the text column: "... (edu)". */
		snprintf(mem_text, sizeof(mem_text), e.device[0] ? "%s (%s)" :
			 "%s", *mem ? mem : "-", e.device);
		c[TC_MEMORY_TEXT] = cell_s(mem_text);
		if (e.device[0])
			c[TC_DEVICE] = cell_s(e.device);
		c[TC_COUNT] = cell_u(e.count);
		c[TC_TOTAL] = cell_u(e.total_ns);
		c[TC_MAX] = cell_u(e.max_ns);
		c[TC_RUNNABLE].d = time_share(s->part_ns[REP_RUNNABLE],
					       e.total_ns);
		c[TC_TOP_TEXT].s = rep_top_text(rep, s, e.total_ns, tp,
						sizeof(tp));
		out_open_object(o, NULL);
		out_cells(o, cols, c, TC_NR);
		rep_out_split(o, rep, s, e.total_ns);
		out_close_object(o);
		if (!o->json)
			fputc('\n', o->f);
	}
	out_close_array(o);
	print_overflow(o, &t, "other", true, cols, c, TC_MAX + 1, TC_KEY_TEXT);
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
			unsigned int top, const struct rep_capture *cap)
{
	int ret;

	out_open_object(o, NULL);
	/* A capture's report opens with the capture: what it caught. */
	if (cap)
		report_capture_print(o, cap);
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
	rep_print_late_irqs(o, rep, top);
	rep_print_marks(o, rep);
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
 * One pass, or two when a table overflowed and its first TOP rows are
 * not exact yet (report_wants_pass()): the second with a reader of its
 * own, which *R becomes.
 */
static int read_trace(struct trace_reader **r, struct report *rep,
		      const char *dir, unsigned int flags,
		      struct trace_filter *f, unsigned int top)
{
	struct trace_reader *again;
	uint64_t lo, hi;
	char err[512];

	if (read_pass(*r, rep, dir, f))
		return 1;
	if (report_wants_pass(rep, top)) {
		report_again(rep);
		if (report_again_any_order(rep))
			flags |= TRACE_ANY_ORDER;
		again = trace_open(dir, flags, err, sizeof(err));
		if (!again)
			return hvctl_err("%s", err);
		trace_close(*r);
		*r = again;
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
	struct rep_capture cap;
	bool is_capture;
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
	ret = report_capture_read(o.dir, &cap, err, sizeof(err));
	if (*err)
		fprintf(stderr, "hvctl: warning: %s\n", err);
	if (ret < 0) {
		if (o.html)
			out_file_discard(&html);
		trace_close(r);
		return 1;
	}
	is_capture = ret;
	rep = report_new();
	ret = rep ? read_trace(&r, rep, o.dir, flags, &o.filter, o.top) :
		    hvctl_err("out of memory");
	if (!ret && o.html) {
		if (report_html(rep, o.dir, html.f, o.top,
				is_capture ? &cap : NULL)) {
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
	    print_report(&out, rep, o.dir, o.top, is_capture ? &cap : NULL))
		ret = hvctl_err("out of memory");
	report_capture_free(&cap);
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
		   "vmm, halt, runnable, other), per VM and vCPU (with guest time\n"
		   "and preemptions), the tasks that preempted vCPUs, and the top\n"
		   "RIPs, pages, (reason, page, RIP) hot spots, ports and MSRs\n"
		   "with their runnable share and top preemptor (N, default 10),\n"
		   "pages and hot spots with what they hit (ram, kernel-mmio,\n"
		   "vmm-mmio; r/w and lengths of device accesses); the N longest\n"
		   "late interrupts, each with why (the part of its wait that\n"
		   "holds most of it), and per vCPU and vector their count and time;\n"
		   "--html FILE also writes a self-contained page with charts\n"
		   "(replaced whole once written; new: mode 0600; never inside\n"
		   "DIR; - : to stdout, instead of the report). Damaged packets\n"
		   "are skipped with a warning; --strict makes any damage an error.\n"
		   "Top lists are exact: a table that overflows is counted again in\n"
		   "a second pass, unless its top N are exact in one. Filters:\n"
		   "--since/--until T (\"1.5s\" from the start, or absolute: dump's\n"
		   "seconds or the JSON's ns), --vm ID or NAME, --vcpu N, --reason\n"
		   "R, --cpu N (lists: 1,2); all must match",
};
