// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl stat: the always-on aggregates. Per exit reason: count, rate,
 * total and share of time, min/p50/p99/p99.9/max (percentiles from the
 * in-kernel histograms, exact to the bucket: within 1.6%), and where the
 * time went (handling, VMM, halt, runnable, other). --vcpus adds the
 * per-vCPU view, with each vCPU's time split between the guest and its
 * exits, the interrupts delivered to it (stat_irq.c), and the tasks that
 * preempted vCPU threads (destroyed vCPUs too, flagged gone); --live
 * refreshes like `perf kvm stat live`. First of all, the vCPUs out of the
 * guest right now, longest first.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "client.h"
#include "hvctl.h"
#include "output.h"
#include "reason_row.h"
#include "stat_irq.h"
#include "time_parts.h"
#include "util.h"
#include "vm_ident.h"

/* Rows of the text table of preemptors; JSON has them all. */
#define TOP_PREEMPTORS 10
/* Out of the guest this long: marked as stuck in text. */
#define STUCK_NS 1000000000ULL

struct stat_opts {
	bool vcpus;
	bool live;
	uint64_t interval_ns;
	uint64_t count;		/* live: refreshes, 0 = until ^C */
};

static volatile sig_atomic_t stop;

/*
 * Names for display of what the client returns. An exit: its
 * exit_reason_label(), "NPF", "VMX 0x1234";
 * without a code (a catch-all row) "other VMX" or "other SVM"; of ISA
 * unknown "unknown".
 */
static const char *exit_label(unsigned int isa, uint32_t code, bool has_code,
			      char *buf, unsigned int len)
{
	if (!has_code || isa == HVTRACE_ISA_UNKNOWN) {
		snprintf(buf, len, "%s", isa == HV_ISA_VMX ? "other VMX" :
			 isa == HV_ISA_SVM ? "other SVM" : "unknown");
		return buf;
	}
	return exit_reason_label(buf, len, isa, code);
}

static const char *reason_row_name(const struct hvc_reason_row *r,
				   char *buf, unsigned int len)
{
	return exit_label(r->isa, r->code, r->has_code, buf, len);
}

/* "in kernel", "in VMM", "runnable", "blocked"; JSON: "in_kernel", ... */
static const char *vcpu_state_name(unsigned int state, bool json)
{
	static const char *const names[][2] = {
		[HVTRACE_VCPU_IN_KERNEL] = { "in kernel", "in_kernel" },
		[HVTRACE_VCPU_IN_VMM] = { "in VMM", "in_vmm" },
		[HVTRACE_VCPU_RUNNABLE] = { "runnable", "runnable" },
		[HVTRACE_VCPU_BLOCKED] = { "blocked", "blocked" },
	};

	return state <= HVTRACE_VCPU_STATE_MAX ? names[state][json] : "?";
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int by_count(const void *a, const void *b)
{
	const struct hvc_reason_row *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

/*
 * One reason row of COLS (reason_cols, its reason column as wide as the
 * table needs); RATE is per second over the time the counts cover.
 */
static void print_reason(struct out *o, const struct out_col *cols,
			 const struct hvc_reason_row *r, uint64_t all_ns,
			 double rate)
{
	struct out_cell c[RC_NR] = {
		[RC_ISA].u = r->isa,
		[RC_CODE] = { .u = r->code, .absent = !r->has_code },
		[RC_COUNT].u = r->count,
		[RC_NO_ENTRY].u = r->no_entry,
		[RC_RATE].d = rate,
		[RC_TOTAL].u = r->total_ns,
		[RC_SHARE_PPM].u = ppm_of(r->total_ns, all_ns),
		[RC_SHARE].d = all_ns ? 100.0 * (double)r->total_ns /
					(double)all_ns : 0.0,
		[RC_MIN].u = r->min_ns,
		[RC_P50].absent = !r->has_hist,
		[RC_P99].absent = !r->has_hist,
		[RC_P999].absent = !r->has_hist,
		[RC_MAX].u = r->max_ns,
	};
	char name[EXIT_LABEL_LEN];

	c[RC_REASON].s = reason_row_name(r, name, sizeof(name));
	if (r->has_hist) {
		c[RC_P50].u = hist_percentile(&r->hist, 50, r->min_ns,
					      r->max_ns);
		c[RC_P99].u = hist_percentile(&r->hist, 99, r->min_ns,
					      r->max_ns);
		c[RC_P999].u = hist_percentile(&r->hist, 99.9, r->min_ns,
					       r->max_ns);
	}
	out_open_object(o, NULL);
	out_cells(o, cols, c, RC_NR);
	out_time_parts(o, r->total_ns, r->part_ns);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

/* The parts of TOTAL into NS, handling first. */
static void split_ns(uint64_t ns[HVTRACE_NR_PARTS + 1], uint64_t total,
		     const __u64 part[HVTRACE_NR_PARTS])
{
	ns[0] = time_handling(total, part);
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		ns[1 + i] = part[i];
}

/* Text: handling and the other parts of TOTAL, as shares of WHOLE. */
static void print_split(struct out *o, uint64_t total, const __u64 part[],
			uint64_t whole)
{
	uint64_t ns[HVTRACE_NR_PARTS + 1];

	split_ns(ns, total, part);
	time_split_cells(o, ns, whole, true);
	fputc('\n', o->f);
}

/* FIRST heads the column of the rows' labels, WIDTH wide. */
static void print_split_heading(struct out *o, const char *first, int width,
				bool guest)
{
	fprintf(o->f, "\n%-*s", width, first);
	if (guest)
		time_split_head(o, "guest", true);
	time_split_heading(o, true);
	fputc('\n', o->f);
}

/*
 * Text: where each reason's time went, in the order of the main table,
 * its labels WIDTH wide as there.
 */
static void print_reason_splits(struct out *o, const struct hvc_stats *s,
				int width)
{
	char name[EXIT_LABEL_LEN];

	print_split_heading(o, "reason time split", width, false);
	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		const struct hvc_reason_row *r = &s->reasons[i];

		fprintf(o->f, "%-*s", width,
			reason_row_name(r, name, sizeof(name)));
		print_split(o, r->total_ns, r->part_ns, r->total_ns);
	}
}

/* C: the cells of a vCPU's vm_id, vm_pid, vcpu and tid, one after another. */
static void vcpu_id_cells(struct out_cell *c, const struct hvc_vcpu_row *v)
{
	c[0].u = v->vm_id;
	c[1].u = v->vm_pid;
	c[2].u = v->vcpu_id;
	c[3].u = v->tid;
}

/*
 * A vCPU's row. JSON names the vCPU in members of its own, text in one
 * cell, "vm 1    pid 4242     vcpu 0    tid 4243    ", then its VM's name
 * (vm_ident.h; text "-" for none, JSON ""); the parts, handling
 * first, are JSON's (their keys time_part_keys', set by vcpu_table()).
 */
enum vcpu_col {
	VC_VM, VC_PID, VC_VCPU, VC_TID, VC_NAME, VC_VM_NAME, VC_VM_NAME_TEXT, VC_VM_UUID,
	VC_COUNT, VC_TOTAL, VC_MIN,
	VC_AVG, VC_MAX, VC_GUEST, VC_PARTS,
	VC_PREEMPTIONS = VC_PARTS + HVTRACE_NR_PARTS + 1,
	VC_PREEMPTED, VC_GONE, VC_GONE_TEXT, VC_NR
};

static const struct out_col vcpu_cols[VC_NR] = {
	[VC_VM] = { "vm_id", NULL, 0, OUT_U64 },
	[VC_PID] = { "vm_pid", NULL, 0, OUT_U64 },
	[VC_VCPU] = { "vcpu", NULL, 0, OUT_U64 },
	[VC_TID] = { "tid", NULL, 0, OUT_U64 },
	[VC_NAME] = { NULL, "vcpu", -43, OUT_STR },
	[VC_VM_NAME] = { "vm_name", NULL, 0, OUT_STR },
	[VC_VM_NAME_TEXT] = { NULL, "name", -16, OUT_STR, .prec = 16 },
	[VC_VM_UUID] = { "vm_uuid", NULL, 0, OUT_STR },
	[VC_COUNT] = { "count", "exits", 12, OUT_U64 },
	[VC_TOTAL] = { "total_ns", "time", 10, OUT_DUR },
	[VC_MIN] = { "min_ns", "min", 9, OUT_DUR },
	[VC_AVG] = { NULL, "avg", 9, OUT_DUR },
	[VC_MAX] = { "max_ns", "max", 9, OUT_DUR },
	[VC_GUEST] = { "guest_ns", NULL, 0, OUT_U64 },
	[VC_PREEMPTIONS] = { "preemptions", "preemptions", 12, OUT_U64 },
	[VC_PREEMPTED] = { "preempted_ns", "preempted", 12, OUT_DUR },
	[VC_GONE] = { "gone", NULL, 0, OUT_BOOL },
	[VC_GONE_TEXT] = { NULL, "", 0, OUT_STR, .flags = OUT_JOIN },
};

/* vcpu_cols into COLS, the parts' columns keyed. */
static void vcpu_table(struct out_col cols[VC_NR])
{
	memcpy(cols, vcpu_cols, sizeof(vcpu_cols));
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++)
		cols[VC_PARTS + i] = (struct out_col){
			.key = time_part_keys[i], .kind = OUT_U64,
		};
}

/* A row of COLS, vcpu_table()'s; ID its VM's name and UUID. */
static void print_vcpu(struct out *o, const struct out_col *cols,
		       const struct hvc_vcpu_row *v, const struct vm_ident *id)
{
	struct out_cell c[VC_NR] = {
		[VC_COUNT].u = v->count,
		[VC_TOTAL].u = v->total_ns,
		[VC_MIN].u = v->min_ns,
		[VC_AVG].u = v->count ? v->total_ns / v->count : 0,
		[VC_MAX].u = v->max_ns,
		[VC_GUEST].u = v->guest_ns,
		[VC_PREEMPTIONS].u = v->preemptions,
		[VC_PREEMPTED].u = v->preempted_ns,
		[VC_GONE].u = v->gone,
		[VC_GONE_TEXT].s = v->gone ? "  gone" : "",
		[VC_VM_NAME].s = id->name,
		[VC_VM_NAME_TEXT].s = *id->name ? id->name : "-",
		[VC_VM_UUID].s = id->uuid,
	};
	uint64_t ns[HVTRACE_NR_PARTS + 1];
	char name[64];

	snprintf(name, sizeof(name), "vm %-4u pid %-8u vcpu %-4u tid %-8u",
		 v->vm_id, v->vm_pid, v->vcpu_id, v->tid);
	c[VC_NAME].s = name;
	vcpu_id_cells(&c[VC_VM], v);
	split_ns(ns, v->total_ns, v->part_ns);
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++)
		c[VC_PARTS + i].u = ns[i];
	out_open_object(o, NULL);
	out_cells(o, cols, c, VC_NR);
	stat_irq_json(o, v);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

static void print_vcpus(struct out *o, const struct hvc_stats *s)
{
	struct out_col cols[VC_NR];
	struct vm_ident id = { .name = "" };
	uint32_t id_pid = 0;

	vcpu_table(cols);
	if (!o->json)
		fputc('\n', o->f);
	out_heading(o, cols, VC_NR);
	out_open_array(o, "vcpus");
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];

		/* A VM's vCPUs come together: its VMM read once. */
		if (v->vm_pid != id_pid) {
			vm_ident_read(v->vm_pid, &id);
			id_pid = v->vm_pid;
		}
		print_vcpu(o, cols, v, &id);
	}
	out_close_array(o);
}

/* Text: each vCPU's time, in the guest and in exits' parts. */
static void print_vcpu_splits(struct out *o, const struct hvc_stats *s)
{
	char label[48];

	print_split_heading(o, "vcpu time split", 24, true);
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];
		uint64_t all = v->guest_ns + v->total_ns;

		stat_vcpu_label(label, sizeof(label), v);
		fprintf(o->f, "%-24s", label);
		time_split_cell(o, v->guest_ns, all, true);
		print_split(o, v->total_ns, v->part_ns, all);
	}
}

/* JSON keeps pid first, as ABI 3 had it; text names the task first. */
static const struct out_col preemptor_cols[] = {
	{ "pid", NULL, 0, OUT_U64, 0, 0 },
	{ "comm", "top preemptors", -24, OUT_STR, 0, 0 },
	{ NULL, "pid", 8, OUT_U64, 0, 0 },
	{ "vcpu", "vcpu", 4, OUT_BOOL, 0, 0 },
	{ "count", "count", 12, OUT_U64, 0, 0 },
	{ "ns", "time", 10, OUT_DUR, 0, 0 },
};

static void print_preemptors(struct out *o, const struct hvc_stats *s)
{
	if (!o->json)
		putchar('\n');
	out_heading(o, preemptor_cols, ARRAY_SIZE(preemptor_cols));
	out_open_array(o, "preemptors");
	for (unsigned int i = 0; i < s->nr_preemptors; i++) {
		const struct hvc_preemptor_row *p = &s->preemptors[i];
		const struct out_cell cells[] = {
			{ .u = p->pid }, { .s = p->comm }, { .u = p->pid },
			{ .u = p->vcpu }, { .u = p->count }, { .u = p->ns },
		};

		if (!o->json && i == TOP_PREEMPTORS)
			break;
		out_open_object(o, NULL);
		out_cells(o, preemptor_cols, cells, ARRAY_SIZE(cells));
		out_close_object(o);
		if (!o->json)
			putchar('\n');
	}
	out_close_array(o);
}

static int by_time_out(const void *a, const void *b)
{
	const struct hvc_vcpu_row *x = *(const struct hvc_vcpu_row *const *)a;
	const struct hvc_vcpu_row *y = *(const struct hvc_vcpu_row *const *)b;

	return x->exit_ns < y->exit_ns ? 1 : x->exit_ns > y->exit_ns ? -1 : 0;
}

/*
 * A vCPU in an exit now, a row without headings: "vm 2    pid 5000 ...".
 * One out for STUCK_NS or longer is marked: "!!" before it, "<-- STUCK out
 * of the guest" after it.
 */
enum og_col {
	OG_MARK, OG_VM, OG_PID, OG_VCPU, OG_TID, OG_REASON, OG_ISA, OG_CODE,
	OG_TIME, OG_STATE, OG_STATE_TEXT, OG_STUCK, OG_NR
};

static const struct out_col out_of_guest_cols[OG_NR] = {
	[OG_MARK] = { NULL, "", 2, OUT_STR },
	[OG_VM] = { "vm_id", "vm", -4, OUT_U64, .flags = OUT_LABEL },
	[OG_PID] = { "vm_pid", "pid", -8, OUT_U64, .flags = OUT_LABEL },
	[OG_VCPU] = { "vcpu", "vcpu", -4, OUT_U64, .flags = OUT_LABEL },
	[OG_TID] = { "tid", "tid", -8, OUT_U64, .flags = OUT_LABEL },
	[OG_REASON] = { "reason", "reason", -20, OUT_STR },
	[OG_ISA] = { "isa", NULL, 0, OUT_U64 },
	[OG_CODE] = { "code", NULL, 0, OUT_U64 },
	[OG_TIME] = { "exit_ns", "time", 10, OUT_DUR },
	/* JSON "in_vmm", text "in VMM" */
	[OG_STATE] = { "state", NULL, 0, OUT_STR },
	[OG_STATE_TEXT] = { NULL, "state", -10, OUT_STR },
	[OG_STUCK] = { NULL, "", 0, OUT_STR, .flags = OUT_JOIN },
};

static const char *out_of_guest_label(const struct hvc_vcpu_row *v,
				      char *buf, unsigned int len)
{
	return exit_label(v->exit_isa, v->exit_reason, true, buf, len);
}

/* COLS: out_of_guest_cols, the reason column as wide as the rows need. */
static void print_out_of_guest_row(struct out *o, const struct out_col *cols,
				   const struct hvc_vcpu_row *v)
{
	bool stuck = v->exit_ns >= STUCK_NS;
	struct out_cell c[OG_NR] = {
		[OG_MARK].s = stuck ? "!!" : "  ",
		[OG_ISA].u = v->exit_isa,
		[OG_CODE].u = v->exit_reason,
		[OG_TIME].u = v->exit_ns,
		[OG_STATE].s = vcpu_state_name(v->exit_state, true),
		[OG_STATE_TEXT].s = vcpu_state_name(v->exit_state, false),
		[OG_STUCK].s = stuck ? "  <-- STUCK out of the guest" : "",
	};
	char name[EXIT_LABEL_LEN];

	vcpu_id_cells(&c[OG_VM], v);
	c[OG_REASON].s = out_of_guest_label(v, name, sizeof(name));
	out_open_object(o, NULL);
	out_cells(o, cols, c, OG_NR);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

/*
 * The vCPUs in an exit right now, longest first: a vCPU held in its VMM
 * for minutes is the first line, marked. Text: only when there is one.
 */
static void print_out_of_guest(struct out *o, const struct hvc_stats *s)
{
	struct out_col cols[OG_NR];
	const struct hvc_vcpu_row **out;
	unsigned int n = 0;
	char name[EXIT_LABEL_LEN];

	out = calloc(s->nr_vcpus + 1, sizeof(*out));
	if (!out) {
		hvctl_err("out of memory");
		exit(1);
	}
	for (unsigned int i = 0; i < s->nr_vcpus; i++)
		if (s->vcpus[i].in_exit && !s->vcpus[i].gone)
			out[n++] = &s->vcpus[i];
	qsort(out, n, sizeof(*out), by_time_out);
	/* A long label widens the reason column rather than push the rest. */
	memcpy(cols, out_of_guest_cols, sizeof(cols));
	for (unsigned int i = 0; i < n; i++)
		out_fit(&cols[OG_REASON],
			out_of_guest_label(out[i], name, sizeof(name)));
	if (!o->json && n)
		printf("out of the guest now (longest first):\n");
	out_open_array(o, "out_of_guest");
	for (unsigned int i = 0; i < n; i++)
		print_out_of_guest_row(o, cols, out[i]);
	out_close_array(o);
	if (!o->json && n)
		putchar('\n');
	free(out);
}

/* Text: the exits that never re-entered, when there were any. */
static void print_no_entry(const struct hvc_stats *s)
{
	const char *sep = "\nnever re-entered (their vCPU was destroyed "
			  "during the exit; counted above): ";
	char name[EXIT_LABEL_LEN];

	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		const struct hvc_reason_row *r = &s->reasons[i];

		if (!r->no_entry)
			continue;
		printf("%s%s %" PRIu64, sep,
		       reason_row_name(r, name, sizeof(name)), r->no_entry);
		sep = ", ";
	}
	if (*sep == ',')
		putchar('\n');
}

/* PREV: the previous snapshot (live mode) for rates, or NULL. */
static void print_stats(struct out *o, struct hvc_stats *s,
			const struct hvc_stats *prev, uint64_t interval_ns,
			const struct stat_opts *opts)
{
	struct out_col cols[RC_NR];
	uint64_t all_ns = 0, all = 0;
	char name[EXIT_LABEL_LEN];
	double secs;

	if (s->nr_reasons)
		qsort(s->reasons, s->nr_reasons, sizeof(*s->reasons), by_count);
	/* A long label widens the reason column rather than push the rest. */
	memcpy(cols, reason_cols, sizeof(cols));
	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		all_ns += s->reasons[i].total_ns;
		all += s->reasons[i].count;
		out_fit(&cols[RC_REASON],
			reason_row_name(&s->reasons[i], name, sizeof(name)));
	}
	secs = (double)(prev ? interval_ns : s->age_ns) / 1e9;

	out_open_object(o, NULL);
	out_u64(o, "window_ns", NULL, prev ? interval_ns : s->age_ns);
	out_u64(o, "exits", NULL, all);
	if (!o->json)
		printf("%" PRIu64 " exits over %.1fs%s\n\n", all,
		       (double)s->age_ns / 1e9,
		       prev ? " (rate: last interval)" : "");
	print_out_of_guest(o, s);
	out_heading(o, cols, RC_NR);
	out_open_array(o, "reasons");
	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		const struct hvc_reason_row *r = &s->reasons[i];
		uint64_t before = 0;

		for (unsigned int j = 0; prev && j < prev->nr_reasons; j++)
			if (prev->reasons[j].isa == r->isa &&
			    prev->reasons[j].code == r->code &&
			    prev->reasons[j].has_code == r->has_code)
				before = prev->reasons[j].count;
		print_reason(o, cols, r, all_ns,
			     secs > 0 ? (double)(r->count - before) / secs : 0);
	}
	out_close_array(o);
	if (!o->json) {
		print_no_entry(s);
		print_reason_splits(o, s, -cols[RC_REASON].width);
	}
	if (opts->vcpus) {
		print_vcpus(o, s);
		if (!o->json) {
			print_vcpu_splits(o, s);
			stat_irq_table(o, s);
		}
		print_preemptors(o, s);
	}
	out_close_object(o);
	out_end(o);
}

/* One session a snapshot, as a refresh may outlive a module reload. */
static int fetch(struct hvc_stats *s)
{
	struct hvc *c;
	int ret;

	ret = hvc_open(&c);
	if (ret)
		return ret;
	ret = hvc_stats_get(c, s);
	hvc_close(c);
	return ret;
}

static int live(const struct stat_opts *o)
{
	struct hvc_stats cur = { 0 }, prev = { 0 };
	struct timespec ts = {
		.tv_sec = o->interval_ns / 1000000000,
		.tv_nsec = o->interval_ns % 1000000000,
	};
	uint64_t n = 0;
	struct out out;

	out_init(&out, stdout, hvctl_json);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (fetch(&prev))
		return 1;
	while (!stop && (!o->count || n++ < o->count)) {
		nanosleep(&ts, NULL);
		if (stop)
			break;
		if (fetch(&cur)) {
			hvc_stats_free(&prev);
			return 1;
		}
		if (!out.json && isatty(STDOUT_FILENO))
			printf("\033[H\033[2J");
		print_stats(&out, &cur, &prev, o->interval_ns, o);
		hvc_stats_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	hvc_stats_free(&prev);
	return 0;
}

/* 0 for --interval and --count: not given (neither can be 0). */
static const struct hvctl_opt stat_opts[] = {
	OPT_FLAG("--vcpus", struct stat_opts, vcpus),
	OPT_FLAG("--live", struct stat_opts, live),
	OPT_DURATION("--interval", struct stat_opts, interval_ns, 10000000),
	OPT_U64("--count", struct stat_opts, count, 1, 0),
	OPT_END,
};

static int stat_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_stat;
	struct stat_opts o = { 0 };
	struct out out;
	struct hvc_stats s = { 0 };
	int n, ret;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	/* All of the command line is good before the module hears of it. */
	ret = hvctl_parse_opts(cmd, argc, argv, &o, &n);
	if (!ret)
		ret = hvctl_max_args(cmd, argv, n, 0);
	if (ret)
		return ret;
	if (o.interval_ns || o.count)
		o.live = true;
	if (!o.interval_ns)
		o.interval_ns = 1000000000;
	if (o.live)
		return live(&o);
	if (fetch(&s))
		return 1;
	out_init(&out, stdout, hvctl_json);
	print_stats(&out, &s, NULL, 0, &o);
	hvc_stats_free(&s);
	return 0;
}

const struct hvctl_cmd hvctl_cmd_stat = {
	.name = "stat",
	.run = stat_run,
	.usage = "[--vcpus] [--live] [--interval DURATION] [--count N]",
	.opts = stat_opts,
	.summary = "per exit reason counts, rates, time and latency percentiles,\n"
		   "and where the time went (handling, vmm, halt, runnable,\n"
		   "other); the vCPUs out of the guest now; --vcpus per vCPU\n"
		   "(destroyed ones flagged gone), with guest time, the\n"
		   "interrupts delivered to each (raise to injection, per\n"
		   "vector), and the tasks that preempted vCPU threads;\n"
		   "--live refreshes every --interval (1s)",
};

int hvctl_write_stats_json(FILE *f)
{
	struct stat_opts opts = { .vcpus = true };
	struct hvc_stats s = { 0 };
	struct out o;

	if (fetch(&s))
		return -1;
	out_init(&o, f, true);
	print_stats(&o, &s, NULL, 0, &opts);
	hvc_stats_free(&s);
	return 0;
}
