// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl stat: the always-on aggregates. Per exit reason: count, rate,
 * total and share of time, min/p50/p99/p99.9/max (percentiles from the
 * in-kernel histograms, exact to the bucket: within 1.6%), and where the
 * time went (handling, VMM, halt, preempted, other). --vcpus adds the
 * per-vCPU view, with each vCPU's time split between the guest and its
 * exits, and the tasks that preempted vCPU threads (destroyed vCPUs too,
 * flagged gone); --live refreshes like `perf kvm stat live`. First of
 * all, the vCPUs out of the guest right now, longest first.
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "duration.h"
#include "hvctl.h"
#include "output.h"
#include "stats_fetch.h"
#include "time_parts.h"

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

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int by_count(const void *a, const void *b)
{
	const struct reason_row *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static void dur(char *buf, uint64_t ns)
{
	duration_format(buf, 16, ns);
}

/* One reason row; RATE_BASE_NS is the time the counts cover. */
static void print_reason(const struct reason_row *r, uint64_t all_ns,
			 double rate)
{
	char name[32], t[16], mn[16], p50[16], p99[16], p999[16], mx[16];
	uint64_t v50 = 0, v99 = 0, v999 = 0;

	reason_row_name(r, name, sizeof(name));
	if (r->has_hist) {
		v50 = hist_percentile(&r->hist, 50, r->min_ns, r->max_ns);
		v99 = hist_percentile(&r->hist, 99, r->min_ns, r->max_ns);
		v999 = hist_percentile(&r->hist, 99.9, r->min_ns, r->max_ns);
	}
	out_open_object(NULL);
	out_str("reason", NULL, name);
	out_u64("isa", NULL, r->isa);
	if (r->has_code)
		out_u64("code", NULL, r->code);
	out_u64("count", NULL, r->count);
	out_u64("no_entry", NULL, r->no_entry);
	out_u64("rate_per_s", NULL, (uint64_t)(rate + 0.5));
	out_u64("total_ns", NULL, r->total_ns);
	out_u64("min_ns", NULL, r->min_ns);
	if (r->has_hist) {
		out_u64("p50_ns", NULL, v50);
		out_u64("p99_ns", NULL, v99);
		out_u64("p999_ns", NULL, v999);
	}
	out_u64("max_ns", NULL, r->max_ns);
	out_time_parts(r->total_ns, r->part_ns);
	out_close_object();
	if (hvctl_json)
		return;

	dur(t, r->total_ns);
	dur(mn, r->min_ns);
	dur(mx, r->max_ns);
	if (r->has_hist) {
		dur(p50, v50);
		dur(p99, v99);
		dur(p999, v999);
	} else {
		strcpy(p50, "-");
		strcpy(p99, "-");
		strcpy(p999, "-");
	}
	printf("%-24s %12" PRIu64 " %10.0f %10s %6.2f%% %9s %9s %9s %9s %9s\n",
	       name, r->count, rate, t,
	       all_ns ? 100.0 * (double)r->total_ns / (double)all_ns : 0.0,
	       mn, p50, p99, p999, mx);
}

/* Text: a "time share%" cell of the split tables, 16 wide. */
static void print_share(uint64_t ns, uint64_t whole)
{
	char t[16];

	dur(t, ns);
	printf(" %9s %5.1f%%", t, time_share(ns, whole));
}

/* Text: handling and the other parts of TOTAL, as shares of WHOLE. */
static void print_split(uint64_t total, const __u64 part[], uint64_t whole)
{
	print_share(time_handling(total, part), whole);
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		print_share(part[i], whole);
	putchar('\n');
}

static void print_split_heading(const char *first, bool guest)
{
	printf("\n%-24s", first);
	if (guest)
		printf(" %16s", "guest");
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++)
		printf(" %16s", time_part_labels[i]);
	putchar('\n');
}

/* Text: where each reason's time went, in the order of the main table. */
static void print_reason_splits(const struct stats *s)
{
	char name[32];

	print_split_heading("reason time split", false);
	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		const struct reason_row *r = &s->reasons[i];

		printf("%-24s", reason_row_name(r, name, sizeof(name)));
		print_split(r->total_ns, r->part_ns, r->total_ns);
	}
}

static void print_vcpu(const struct vcpu_row *v)
{
	char t[16], mn[16], mx[16], avg[16], pt[16];

	out_open_object(NULL);
	out_u64("vm_id", NULL, v->vm_id);
	out_u64("vm_pid", NULL, v->vm_pid);
	out_u64("vcpu", NULL, v->vcpu_id);
	out_u64("tid", NULL, v->tid);
	out_u64("count", NULL, v->count);
	out_u64("total_ns", NULL, v->total_ns);
	out_u64("min_ns", NULL, v->min_ns);
	out_u64("max_ns", NULL, v->max_ns);
	out_u64("guest_ns", NULL, v->guest_ns);
	out_time_parts(v->total_ns, v->part_ns);
	out_u64("preemptions", NULL, v->preemptions);
	out_u64("preempted_ns", NULL, v->preempted_ns);
	out_bool("gone", NULL, v->gone);
	out_close_object();
	if (hvctl_json)
		return;
	dur(t, v->total_ns);
	dur(mn, v->min_ns);
	dur(mx, v->max_ns);
	dur(avg, v->count ? v->total_ns / v->count : 0);
	dur(pt, v->preempted_ns);
	printf("vm %-4u pid %-8u vcpu %-4u tid %-8u %12" PRIu64
	       " %10s %9s %9s %9s %12" PRIu64 " %12s%s\n", v->vm_id, v->vm_pid,
	       v->vcpu_id, v->tid, v->count, t, mn, avg, mx, v->preemptions,
	       pt, v->gone ? "  gone" : "");
}

/* Text: each vCPU's time, in the guest and in exits' parts. */
static void print_vcpu_splits(const struct stats *s)
{
	char label[32];

	print_split_heading("vcpu time split", true);
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct vcpu_row *v = &s->vcpus[i];
		uint64_t all = v->guest_ns + v->total_ns;

		snprintf(label, sizeof(label), "vm %u vcpu %u%s", v->vm_id,
			 v->vcpu_id, v->gone ? " (gone)" : "");
		printf("%-24s", label);
		print_share(v->guest_ns, all);
		print_split(v->total_ns, v->part_ns, all);
	}
}

static void print_preemptors(const struct stats *s)
{
	char t[16];

	if (!hvctl_json)
		printf("\n%-24s %8s %4s %12s %10s\n", "top preemptors", "pid",
		       "vcpu", "count", "time");
	out_open_array("preemptors");
	for (unsigned int i = 0; i < s->nr_preemptors; i++) {
		const struct preemptor_row *p = &s->preemptors[i];

		if (!hvctl_json && i == TOP_PREEMPTORS)
			break;
		out_open_object(NULL);
		out_u64("pid", NULL, p->pid);
		out_str("comm", NULL, p->comm);
		out_bool("vcpu", NULL, p->vcpu);
		out_u64("count", NULL, p->count);
		out_u64("ns", NULL, p->ns);
		out_close_object();
		if (hvctl_json)
			continue;
		dur(t, p->ns);
		printf("%-24s %8u %4s %12" PRIu64 " %10s\n", p->comm, p->pid,
		       p->vcpu ? "yes" : "no", p->count, t);
	}
	out_close_array();
}

static int by_time_out(const void *a, const void *b)
{
	const struct vcpu_row *x = *(const struct vcpu_row *const *)a;
	const struct vcpu_row *y = *(const struct vcpu_row *const *)b;

	return x->exit_ns < y->exit_ns ? 1 : x->exit_ns > y->exit_ns ? -1 : 0;
}

static void print_out_of_guest_row(const struct vcpu_row *v)
{
	char name[32], t[16];

	exit_label(v->exit_isa, v->exit_reason, true, name, sizeof(name));
	out_open_object(NULL);
	out_u64("vm_id", NULL, v->vm_id);
	out_u64("vm_pid", NULL, v->vm_pid);
	out_u64("vcpu", NULL, v->vcpu_id);
	out_u64("tid", NULL, v->tid);
	out_str("reason", NULL, name);
	out_u64("isa", NULL, v->exit_isa);
	out_u64("code", NULL, v->exit_reason);
	out_u64("exit_ns", NULL, v->exit_ns);
	out_str("state", NULL, vcpu_state_name(v->exit_state, true));
	out_close_object();
	if (hvctl_json)
		return;
	dur(t, v->exit_ns);
	printf("%s vm %-4u pid %-8u vcpu %-4u tid %-8u %-20s %10s %-10s%s\n",
	       v->exit_ns >= STUCK_NS ? "!!" : "  ", v->vm_id, v->vm_pid,
	       v->vcpu_id, v->tid, name, t,
	       vcpu_state_name(v->exit_state, false),
	       v->exit_ns >= STUCK_NS ? "  <-- STUCK out of the guest" : "");
}

/*
 * The vCPUs in an exit right now, longest first: a vCPU held in its VMM
 * for minutes is the first line, marked. Text: only when there is one.
 */
static void print_out_of_guest(const struct stats *s)
{
	const struct vcpu_row **out;
	unsigned int n = 0;

	out = calloc(s->nr_vcpus + 1, sizeof(*out));
	if (!out) {
		hvctl_err("out of memory");
		exit(1);
	}
	for (unsigned int i = 0; i < s->nr_vcpus; i++)
		if (s->vcpus[i].in_exit && !s->vcpus[i].gone)
			out[n++] = &s->vcpus[i];
	qsort(out, n, sizeof(*out), by_time_out);
	if (!hvctl_json && n)
		printf("out of the guest now (longest first):\n");
	out_open_array("out_of_guest");
	for (unsigned int i = 0; i < n; i++)
		print_out_of_guest_row(out[i]);
	out_close_array();
	if (!hvctl_json && n)
		putchar('\n');
	free(out);
}

/* Text: the exits that never re-entered, when there were any. */
static void print_no_entry(const struct stats *s)
{
	const char *sep = "\nnever re-entered (their vCPU was destroyed "
			  "during the exit; counted above): ";
	char name[32];

	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		const struct reason_row *r = &s->reasons[i];

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
static void print_stats(struct stats *s, const struct stats *prev,
			uint64_t interval_ns, const struct stat_opts *o)
{
	uint64_t all_ns = 0, all = 0;
	double secs;

	if (s->nr_reasons)
		qsort(s->reasons, s->nr_reasons, sizeof(*s->reasons), by_count);
	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		all_ns += s->reasons[i].total_ns;
		all += s->reasons[i].count;
	}
	secs = (double)(prev ? interval_ns : s->age_ns) / 1e9;

	out_open_object(NULL);
	out_u64("window_ns", NULL, prev ? interval_ns : s->age_ns);
	out_u64("exits", NULL, all);
	if (!hvctl_json)
		printf("%" PRIu64 " exits over %.1fs%s\n\n", all,
		       (double)s->age_ns / 1e9,
		       prev ? " (rate: last interval)" : "");
	print_out_of_guest(s);
	if (!hvctl_json) {
		printf("%-24s %12s %10s %10s %7s %9s %9s %9s %9s %9s\n",
		       "reason", "count", "rate/s", "time", "share", "min",
		       "p50", "p99", "p99.9", "max");
	}
	out_open_array("reasons");
	for (unsigned int i = 0; i < s->nr_reasons; i++) {
		const struct reason_row *r = &s->reasons[i];
		uint64_t before = 0;

		for (unsigned int j = 0; prev && j < prev->nr_reasons; j++)
			if (prev->reasons[j].isa == r->isa &&
			    prev->reasons[j].code == r->code &&
			    prev->reasons[j].has_code == r->has_code)
				before = prev->reasons[j].count;
		print_reason(r, all_ns,
			     secs > 0 ? (double)(r->count - before) / secs : 0);
	}
	out_close_array();
	if (!hvctl_json) {
		print_no_entry(s);
		print_reason_splits(s);
	}
	if (o->vcpus) {
		if (!hvctl_json)
			printf("\n%-43s %12s %10s %9s %9s %9s %12s %12s\n",
			       "vcpu", "exits", "time", "min", "avg", "max",
			       "preemptions", "preempt time");
		out_open_array("vcpus");
		for (unsigned int i = 0; i < s->nr_vcpus; i++)
			print_vcpu(&s->vcpus[i]);
		out_close_array();
		if (!hvctl_json)
			print_vcpu_splits(s);
		print_preemptors(s);
	}
	out_close_object();
	out_end();
}

static int live(const struct stat_opts *o)
{
	struct stats cur = { 0 }, prev = { 0 };
	struct timespec ts = {
		.tv_sec = o->interval_ns / 1000000000,
		.tv_nsec = o->interval_ns % 1000000000,
	};
	uint64_t n = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (stats_fetch(&prev))
		return 1;
	while (!stop && (!o->count || n++ < o->count)) {
		nanosleep(&ts, NULL);
		if (stop)
			break;
		if (stats_fetch(&cur)) {
			stats_free(&prev);
			return 1;
		}
		if (!hvctl_json && isatty(STDOUT_FILENO))
			printf("\033[H\033[2J");
		print_stats(&cur, &prev, o->interval_ns, o);
		stats_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
	}
	stats_free(&prev);
	return 0;
}

static int stat_run(int argc, char **argv)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_stat;
	struct stat_opts o = { .interval_ns = 1000000000 };
	struct stats s = { 0 };
	const char *err;

	if (hvctl_want_help(cmd, argc, argv))
		return 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--vcpus")) {
			o.vcpus = true;
		} else if (!strcmp(argv[i], "--live")) {
			o.live = true;
		} else if (!strcmp(argv[i], "--interval") && i + 1 < argc) {
			if (duration_parse(argv[++i], &o.interval_ns, &err))
				return hvctl_usage_err(cmd, "--interval: %s", err);
			if (o.interval_ns < 10000000)
				return hvctl_usage_err(cmd, "--interval must be at least 10ms");
			o.live = true;
		} else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
			char *end;

			o.count = strtoull(argv[++i], &end, 10);
			if (*end || !o.count)
				return hvctl_usage_err(cmd, "--count takes a positive number");
			o.live = true;
		} else {
			return hvctl_usage_err(cmd, "unexpected argument '%s'",
					       argv[i]);
		}
	}
	if (o.live)
		return live(&o);
	if (stats_fetch(&s))
		return 1;
	print_stats(&s, NULL, 0, &o);
	stats_free(&s);
	return 0;
}

const struct hvctl_cmd hvctl_cmd_stat = {
	.name = "stat",
	.run = stat_run,
	.usage = "[--vcpus] [--live] [--interval DURATION] [--count N]",
	.summary = "per exit reason counts, rates, time and latency percentiles,\n"
		   "and where the time went (handling, vmm, halt, preempted,\n"
		   "other); the vCPUs out of the guest now; --vcpus per vCPU\n"
		   "(destroyed ones flagged gone), with guest time, and the\n"
		   "tasks that preempted vCPU threads; --live refreshes every\n"
		   "--interval (1s)",
};

int hvctl_write_stats_json(FILE *f)
{
	struct stat_opts o = { .vcpus = true };
	struct stats s = { 0 };
	bool json = hvctl_json;

	if (stats_fetch(&s))
		return -1;
	hvctl_json = true;
	out_set_file(f);
	print_stats(&s, NULL, 0, &o);
	out_set_file(stdout);
	hvctl_json = json;
	stats_free(&s);
	return 0;
}
