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
 * One pass, fixed memory: the reader's read buffers, and some 22 MiB of
 * aggregates (report_agg.c) whatever the trace's size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "duration.h"
#include "hvctl.h"
#include "out_file.h"
#include "output.h"
#include "report_agg.h"
#include "report_html.h"
#include "report_split.h"
#include "time_parts.h"
#include "trace_read.h"

struct report_opts {
	const char *dir;
	const char *html;
	unsigned int top;
	bool strict;
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

static void dur(char *buf, uint64_t ns)
{
	duration_format(buf, 16, ns);
}

static double rate(const struct report *rep, uint64_t count)
{
	uint64_t span = report_span_ns(rep);

	return span ? (double)count * 1e9 / (double)span : 0;
}

static unsigned int lost_cpus(const struct report *rep)
{
	unsigned int n = 0;

	for (unsigned int c = 0; c < rep->loss_cpus; c++)
		n += rep->loss[c].lost > 0;
	return n;
}

static const char *plural(uint64_t n)
{
	return n == 1 ? "" : "s";
}

static void json_header(const struct report *rep, const char *dir)
{
	const struct trace_info *i = &rep->info;

	out_open_object("trace");
	out_str("dir", NULL, dir);
	out_u64("first_ns", NULL, i->first_ts);
	out_u64("last_ns", NULL, i->last_ts);
	out_u64("span_ns", NULL, report_span_ns(rep));
	out_u64("events", NULL, rep->events);
	out_u64("total_ns", NULL, rep->all_ns);
	out_u64("preemptions", NULL, rep->preempts);
	out_u64("preempted_ns", NULL, rep->preempt_ns);
	out_u64("guest_ns", NULL, rep->all_split.guest_ns);
	rep_out_split(rep, &rep->all_split, rep->all_ns);
	out_u64("cpus", NULL, i->nr_streams);
	/* Those the tables hold: see vms_other / vcpus_other for the rest. */
	out_u64("vms", NULL, rep->vms.used);
	out_u64("vcpus", NULL, rep->vcpus.used);
	out_u64("packets", NULL, i->packets);
	out_u64("torn_packets", NULL, i->torn_packets);
	out_u64("damaged_packets", NULL, i->damaged_packets);
	out_u64("implausible_events", NULL, i->implausible);
	out_u64("unread_streams", NULL, i->bad_streams);
	out_close_object();
}

static void json_loss(const struct report *rep)
{
	out_open_object("loss");
	out_u64("events_discarded", NULL, rep->info.discarded);
	out_u64("ranges", NULL, rep->loss_ranges);
	out_u64("lost_time_ns", NULL, rep->lost_ns);
	out_u64("covered_ppm", NULL,
		(uint64_t)(report_coverage(rep) * 1e6 + 0.5));
	out_open_array("cpus");
	for (unsigned int c = 0; c < rep->loss_cpus; c++) {
		if (!rep->loss[c].lost && !rep->loss[c].lost_ns)
			continue;
		out_open_object(NULL);
		out_u64("cpu", NULL, c);
		out_u64("lost", NULL, rep->loss[c].lost);
		out_u64("lost_time_ns", NULL, rep->loss[c].lost_ns);
		out_close_object();
	}
	out_close_array();
	out_close_object();
}

static void text_loss(const struct report *rep, const char *span)
{
	const struct trace_info *i = &rep->info;
	char l[16];

	dur(l, rep->lost_ns);
	printf("  lost     %" PRIu64 " events discarded", i->discarded);
	if (rep->lost_ns)
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
	if (rep->loss_unordered)
		printf("  note     loss ranges out of order: coverage is a "
		       "lower bound\n");
}

static void print_header(const struct report *rep, const char *dir)
{
	const struct trace_info *i = &rep->info;
	unsigned int vms = rep->vms.used, vcpus = rep->vcpus.used;
	char s[16];

	json_header(rep, dir);
	json_loss(rep);
	out_u64("memory_bytes", NULL, report_memory(rep));
	if (hvctl_json)
		return;
	dur(s, report_span_ns(rep));
	printf("Trace %s\n", dir);
	printf("  span     %s, %" PRIu64 " exit%s (%.0f/s) on %u CPU%s, "
	       "%u%s VM%s, %u%s vCPU%s\n", s, rep->events,
	       plural(rep->events), rate(rep, rep->events), i->nr_streams,
	       plural(i->nr_streams), vms, rep->vms.other.count ? "+" : "",
	       plural(vms), vcpus, rep->vcpus.other.count ? "+" : "",
	       plural(vcpus));
	if (rep->preempts) {
		dur(s, rep->preempt_ns);
		printf("  preempt  %" PRIu64 " preemption record%s (vCPU threads "
		       "off CPU inside KVM), %s\n", rep->preempts,
		       plural(rep->preempts), s);
	}
	dur(s, report_span_ns(rep));
	text_loss(rep, s);
}

static void print_reason(const struct report *rep, unsigned int idx)
{
	const struct rep_reason *rr = &rep->reasons[idx];
	const struct rep_stat *st = &rr->s;
	uint64_t v50 = report_percentile(rr, 50);
	uint64_t v99 = report_percentile(rr, 99);
	uint64_t v999 = report_percentile(rr, 99.9);
	char t[16], mn[16], p50[16], p99[16], p999[16], mx[16];
	double r = rate(rep, st->count);

	out_open_object(NULL);
	out_str("reason", NULL, rr->name);
	if (idx != REP_OTHER_REASON) {
		out_u64("isa", NULL, rr->isa);
		out_u64("code", NULL, rr->code);
	}
	out_u64("count", NULL, st->count);
	out_u64("rate_per_s", NULL, (uint64_t)(r + 0.5));
	out_u64("total_ns", NULL, st->total_ns);
	out_u64("share_ppm", NULL, rep_ppm(st->total_ns, rep->all_ns));
	out_u64("min_ns", NULL, st->min_ns);
	out_u64("p50_ns", NULL, v50);
	out_u64("p99_ns", NULL, v99);
	out_u64("p999_ns", NULL, v999);
	out_u64("max_ns", NULL, st->max_ns);
	out_u64("preemptions", NULL, rr->split.preempts);
	out_u64("preempted_ns", NULL, rr->split.preempt_ns);
	rep_out_split(rep, &rr->split, st->total_ns);
	out_close_object();
	if (hvctl_json)
		return;
	dur(t, st->total_ns);
	dur(mn, st->min_ns);
	dur(p50, v50);
	dur(p99, v99);
	dur(p999, v999);
	dur(mx, st->max_ns);
	printf("%-24s %12" PRIu64 " %10.0f %10s %6.2f%% %9s %9s %9s %9s %9s\n",
	       rr->name, st->count, r, t,
	       rep->all_ns ? 100.0 * (double)st->total_ns /
			     (double)rep->all_ns : 0.0,
	       mn, p50, p99, p999, mx);
}

static void print_reasons(const struct report *rep)
{
	unsigned int idx[REP_MAX_REASONS + 1];
	unsigned int n = report_reasons_by_time(rep, idx);

	if (!hvctl_json)
		printf("\nExit reasons, by time\n"
		       "%-24s %12s %10s %10s %7s %9s %9s %9s %9s %9s\n",
		       "reason", "count", "rate/s", "time", "share", "min",
		       "p50", "p99", "p99.9", "max");
	out_open_array("reasons");
	for (unsigned int i = 0; i < n; i++)
		print_reason(rep, idx[i]);
	out_close_array();
	if (!hvctl_json && !n)
		printf("(no exits in this trace)\n");
	if (!hvctl_json && rep->reasons[REP_OTHER_REASON].s.count)
		printf("(more than %u distinct reasons: the rest are "
		       "\"other\")\n", REP_MAX_REASONS);
	rep_print_reason_split(rep);
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
			 const char *vcpu, const struct rep_entry *e,
			 const char *top)
{
	char t[16], mx[16];

	dur(t, e->total_ns);
	dur(mx, e->max_ns);
	printf("%-20.20s %6s %8s %5s %12" PRIu64 " %10s %9s  %s\n", name, id,
	       pid, vcpu, e->count, t, mx, top);
}

static void json_top_reason(const struct report *rep, unsigned int reason,
			    uint64_t ns)
{
	if (reason > REP_MAX_REASONS)
		return;
	out_str("top_reason", NULL, report_reason_name(rep, reason));
	out_u64("top_reason_ns", NULL, ns);
}

static void print_vcpus(const struct report *rep, uint32_t vm_id,
			const struct rep_entry **vcpus, unsigned int n,
			unsigned int top)
{
	unsigned int shown = 0, more = 0;
	char id[16], tid[16], buf[48];

	out_open_array("vcpus");
	for (unsigned int i = 0; i < n; i++) {
		const struct rep_entry *v = vcpus[i];
		unsigned int slot = v - rep->vcpus.e;

		if (v->key >> 32 != vm_id)
			continue;
		if (shown++ >= top) {
			more++;
			continue;
		}
		out_open_object(NULL);
		out_u64("vcpu", NULL, (uint32_t)v->key);
		out_u64("tid", NULL, v->aux);
		out_u64("count", NULL, v->count);
		out_u64("total_ns", NULL, v->total_ns);
		out_u64("max_ns", NULL, v->max_ns);
		json_top_reason(rep, rep->vcpu_top[slot],
				rep->vcpu_top_ns[slot]);
		out_u64("guest_ns", NULL, rep->vcpus.split[slot].guest_ns);
		out_u64("preemptions", NULL, rep->vcpus.split[slot].preempts);
		out_u64("preempted_ns", NULL,
			rep->vcpus.split[slot].preempt_ns);
		rep_out_split(rep, &rep->vcpus.split[slot], v->total_ns);
		out_close_object();
		if (hvctl_json)
			continue;
		snprintf(id, sizeof(id), "%u", (uint32_t)v->key);
		snprintf(tid, sizeof(tid), "%u", v->aux);
		top_reason_text(rep, rep->vcpu_top[slot],
				rep->vcpu_top_ns[slot], v->total_ns, buf,
				sizeof(buf));
		print_vm_row("", "", tid, id, v, buf);
	}
	out_close_array();
	out_u64("vcpus_omitted", NULL, more);
	if (more && !hvctl_json)
		printf("%-20s %6s %8s %5s (%u more vCPUs)\n", "", "", "", "",
		       more);
}

/*
 * Exits a full table could not place. JSON: KEY's object, always for the
 * top tables (MUST), else only when there were any. Text: a row like the
 * entries' (key column WIDTH, then REASON_W), and why.
 */
static void print_overflow(const struct rep_table *t, const char *key,
			   bool must, int width, int reason_w)
{
	const struct rep_entry *o = &t->other;
	char tt[16], mx[16];

	if (!o->count && !must)
		return;
	out_open_object(key);
	out_u64("count", NULL, o->count);
	out_u64("total_ns", NULL, o->total_ns);
	out_u64("max_ns", NULL, o->max_ns);
	out_close_object();
	if (hvctl_json || !o->count)
		return;
	dur(tt, o->total_ns);
	dur(mx, o->max_ns);
	printf("%-*s %-*s %12" PRIu64 " %10s %9s\n", width, "other", reason_w,
	       "", o->count, tt, mx);
	printf("(other: the table holds %u %s; exits under further ones are "
	       "counted there)\n", t->limit, t->what);
}

static void print_vms(const struct report *rep, unsigned int top)
{
	unsigned int nvm = report_table_sorted(&rep->vms, rep->vm_order);
	unsigned int nvcpu = report_table_sorted(&rep->vcpus, rep->order);
	char name[64], id[16], pid[16], buf[48];

	if (!hvctl_json)
		printf("\nVMs and their vCPUs, by time (vCPU rows: pid column "
		       "is the thread)\n%-20s %6s %8s %5s %12s %10s %9s  %s\n",
		       "vm", "id", "pid", "vcpu", "exits", "time", "max",
		       "top reason (share of time)");
	out_open_array("vms");
	for (unsigned int i = 0; i < nvm && i < top; i++) {
		const struct rep_entry *vm = rep->vm_order[i];
		unsigned int slot = vm - rep->vms.e;

		report_vm_name(rep, vm, name, sizeof(name));
		out_open_object(NULL);
		out_str("name", NULL, name);
		out_u64("vm_id", NULL, vm->key);
		out_u64("vm_pid", NULL, vm->aux);
		out_u64("count", NULL, vm->count);
		out_u64("total_ns", NULL, vm->total_ns);
		out_u64("max_ns", NULL, vm->max_ns);
		json_top_reason(rep, rep->vm_top[slot], rep->vm_top_ns[slot]);
		if (!hvctl_json) {
			snprintf(id, sizeof(id), "%u", (uint32_t)vm->key);
			snprintf(pid, sizeof(pid), "%u", vm->aux);
			top_reason_text(rep, rep->vm_top[slot],
					rep->vm_top_ns[slot], vm->total_ns,
					buf, sizeof(buf));
			print_vm_row(name, id, pid, "all", vm, buf);
		}
		print_vcpus(rep, vm->key, rep->order, nvcpu, top);
		out_close_object();
	}
	out_close_array();
	out_u64("vms_omitted", NULL, nvm > top ? nvm - top : 0);
	if (!hvctl_json && nvm > top)
		printf("(%u more VMs)\n", nvm - top);
	print_overflow(&rep->vms, "vms_other", false, 35, 6);
	print_overflow(&rep->vcpus, "vcpus_other", false, 35, 6);
	if (!hvctl_json && rep->pairs.other.count)
		printf("(top reasons leave out %" PRIu64 " exits: the %s "
		       "table is full)\n", rep->pairs.other.count,
		       rep->pairs.what);
	rep_print_vcpu_split(rep, top);
}

static void print_top(const struct report *rep, const struct rep_table *t,
		      const struct top_kind *k, unsigned int top)
{
	unsigned int n = report_table_sorted(t, rep->order);
	char key[48], tt[16], mx[16], tp[64];

	out_open_object(k->json);
	out_u64("capacity", NULL, t->limit);
	out_u64("distinct", NULL, t->used);
	if (!hvctl_json) {
		printf("\n%s, top %u of %u%s by time (preempted: share of the "
		       "time; top preemptor: see \"Top preemptors\")\n",
		       k->title, n < top ? n : top, n,
		       t->other.count ? "+" : "");
		printf("%-*s %-24s %12s %10s %9s %8s  %s\n", k->width +
		       (k->key2 ? 19 : 0), k->key2 ? "page               rip" :
		       k->key, k->reason ? "reason" : "", "exits", "time",
		       "max", "preempted", "top preemptor (share of time)");
	}
	out_open_array("entries");
	for (unsigned int i = 0; i < n && i < top; i++) {
		const struct rep_entry *e = rep->order[i];
		const struct rep_split *s = rep_split_of(t, e);
		const char *reason = report_reason_name(rep, e->reason);

		out_open_object(NULL);
		out_u64(k->key, NULL, e->key);
		if (k->key2 && e->key2 != REP_NO_RIP)
			out_u64(k->key2, NULL, e->key2);
		if (k->reason)
			out_str("reason", NULL, reason);
		out_u64("count", NULL, e->count);
		out_u64("total_ns", NULL, e->total_ns);
		out_u64("max_ns", NULL, e->max_ns);
		rep_out_split(rep, s, e->total_ns);
		out_close_object();
		if (hvctl_json)
			continue;
		snprintf(key, sizeof(key), k->fmt, e->key);
		if (k->key2) {
			size_t l = strlen(key);

			if (e->key2 == REP_NO_RIP)
				snprintf(key + l, sizeof(key) - l, "%*s%s",
					 k->width - (int)l + 1, "", "-");
			else
				snprintf(key + l, sizeof(key) - l,
					 "%*s0x%016" PRIx64,
					 k->width - (int)l + 1, "", e->key2);
		}
		dur(tt, e->total_ns);
		dur(mx, e->max_ns);
		printf("%-*s %-24s %12" PRIu64 " %10s %9s %8.1f%%  %s\n",
		       k->width + (k->key2 ? 19 : 0), key,
		       k->reason ? reason : "", e->count, tt, mx,
		       time_share(s->part_ns[REP_RUNNABLE], e->total_ns),
		       rep_top_text(rep, s, e->total_ns, tp, sizeof(tp)));
	}
	out_close_array();
	print_overflow(t, "other", true, k->width + (k->key2 ? 19 : 0), 24);
	out_close_object();
	if (!hvctl_json && !n && !t->other.count)
		printf("(none in this trace)\n");
}

static void print_memory(const struct report *rep)
{
	if (hvctl_json)
		return;
	printf("\nMemory: %.1f MiB for the aggregates, fixed whatever the "
	       "trace's size (at most %u reasons, %u VMs, %u vCPUs, %u RIPs, "
	       "%u pages, %u hot spots, %u ports, %u MSRs, %u preemptors: "
	       "past that, \"other\"), plus the reader's fixed read "
	       "buffers\n", (double)report_memory(rep) / (1 << 20),
	       REP_MAX_REASONS, rep->vms.limit, rep->vcpus.limit,
	       rep->rips.limit, rep->pages.limit, rep->spots.limit,
	       rep->ports.limit, rep->msrs.limit, rep->pre.limit);
}

static void print_report(const struct report *rep, const char *dir,
			 unsigned int top)
{
	out_open_object(NULL);
	print_header(rep, dir);
	print_reasons(rep);
	print_vms(rep, top);
	rep_print_preemptors(rep, top);
	rep_print_preempted_spots(rep, top);
	print_top(rep, &rep->rips, &top_rips, top);
	print_top(rep, &rep->pages, &top_pages, top);
	print_top(rep, &rep->spots, &top_spots, top);
	print_top(rep, &rep->ports, &top_ports, top);
	print_top(rep, &rep->msrs, &top_msrs, top);
	print_memory(rep);
	out_close_object();
	out_end();
}

static int read_trace(struct trace_reader *r, struct report *rep,
		      const char *dir)
{
	struct trace_event ev;
	int ret;

	while ((ret = trace_next(r, &ev)) > 0)
		report_add(rep, &ev);
	if (ret < 0)
		return hvctl_err("reading %s: %s", dir, trace_error(r));
	return report_finish(rep, r);
}

static int parse_args(int argc, char **argv, struct report_opts *o)
{
	const struct hvctl_cmd *cmd = &hvctl_cmd_report;
	const char *top = NULL;
	const struct hvctl_opt opts[] = {
		{ "-j", NULL, &hvctl_json },
		{ "--json", NULL, &hvctl_json },
		{ "--html", &o->html, NULL },
		{ "--top", &top, NULL },
		{ "--strict", NULL, &o->strict },
		{ NULL, NULL, NULL },
	};
	int ret = hvctl_dir_and_options(cmd, argc, argv, opts, &o->dir);
	unsigned long n;
	char *end;

	if (ret || !top)
		return ret;
	n = strtoul(top, &end, 10);
	if (*end || !*top || !n || n > 100000)
		return hvctl_usage_err(cmd, "--top takes a number from 1 to "
				       "100000");
	o->top = n;
	return 0;
}

static int report_run(int argc, char **argv)
{
	struct report_opts o = { .top = 10 };
	struct out_file html = { 0 };
	struct trace_reader *r;
	struct report *rep;
	char err[512];
	int ret;

	if (hvctl_want_help(&hvctl_cmd_report, argc, argv))
		return 0;
	ret = parse_args(argc, argv, &o);
	if (ret)
		return ret;
	r = trace_open(o.dir, o.strict ? TRACE_STRICT : 0, err, sizeof(err));
	if (!r)
		return hvctl_err("%s", err);
	/* Before reading: a page that cannot be written is said at once. */
	if (o.html && out_file_open(&html, o.html, o.dir)) {
		trace_close(r);
		return 1;
	}
	rep = report_new();
	ret = rep ? read_trace(r, rep, o.dir) : hvctl_err("out of memory");
	if (!ret && o.html) {
		report_html(rep, o.dir, html.f, o.top);
		ret = out_file_commit(&html);
	} else if (o.html) {
		out_file_discard(&html);
	}
	/* --html -: the page is standard output, and nothing else. */
	if (!ret && !(o.html && !strcmp(o.html, "-")))
		print_report(rep, o.dir, o.top);
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
	.usage = "DIR [-j] [--html FILE] [--top N] [--strict]",
	.summary = "summarize a recorded trace: span and losses, per reason\n"
		   "counts, time, percentiles and where the time went (handling,\n"
		   "vmm, halt, preempted, other), per VM and vCPU (with guest time\n"
		   "and preemptions), the tasks that preempted vCPUs, and the top\n"
		   "RIPs, pages, (reason, page, RIP) hot spots, ports and MSRs\n"
		   "with their preempted share and top preemptor (N, default 10);\n"
		   "--html FILE also writes a self-contained page with charts\n"
		   "(replaced whole once written; new: mode 0600; never inside\n"
		   "DIR; - : to stdout, instead of the report). Damaged packets\n"
		   "are skipped with a warning; --strict makes any damage an error",
};
