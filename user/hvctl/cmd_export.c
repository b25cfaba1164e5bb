// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl export: a recorded trace as Chrome/Perfetto trace-event JSON.
 * Each VM is a process (its VMM's pid) and each vCPU thread a track in
 * it, holding one complete ("X") slice per exit: exit to re-entry, named
 * by the reason, its time split in the args (the parts have no place in
 * time, only sums). A preemption record is a slice of its own on the
 * same track, "preempted by COMM (PID)" from switch-out to switch-in:
 * inside its exit's slice, so Perfetto draws it as the exit's child.
 * A guest mark is an instant ("i") on its vCPU's track at its exit,
 * "mark ID", the guest's TSC among its args.
 * A late interrupt is a slice "irq VECTOR late" from its raise to its
 * injection, on a track of its vCPU's own ("vcpuN irq": it may cross
 * the exits and preemptions of the vCPU's track, where Perfetto would
 * drop it; a second track where two cross each other), its wait split
 * in the args; a flow arrow ("bind_id", "flow_out" and "flow_in") leads
 * from it to its injection, a slice of no length "inject VECTOR" on the
 * vCPU's track.
 * The events stream out as the reader yields them; only the set of VMs
 * and vCPU threads already named is kept. A slice is built in a line
 * buffer (put.h, event_json_members()), its strings through the one
 * JSON escaper: millions of them, and a printf per field was most of
 * the time.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "event_fields.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "out_file.h"
#include "output.h"
#include "put.h"
#include "trace_filter.h"
#include "trace_read.h"

/*
 * A slice: its envelope, the args of event_json_members() (no longer
 * than a dump line's) and the names and detail export adds.
 */
#define SLICE_MAX (EVENT_LINE_MAX + 1024)

/*
 * The Perfetto UI parses a trace in the browser, where "2gb is typical"
 * of the memory a page gets (perfetto.dev/docs/visualization/large-traces),
 * and what it builds is larger than the file: past LIMIT bytes it cannot
 * open the file, past WARN it may not. Our slices take some 400 bytes of
 * JSON an event (measured on gen-trace's traces).
 */
#define PERFETTO_BYTES_PER_EVENT	400ULL
#define PERFETTO_WARN_BYTES		(512ULL << 20)
#define PERFETTO_LIMIT_BYTES		(2ULL << 30)

/* Keys seen so far: open addressing, kept at most half full. */
struct key_set {
	uint64_t *keys;			/* stored as key + 1: 0 is free */
	size_t cap, used;
};

static bool set_grow(struct key_set *s)
{
	size_t cap = s->cap ? 2 * s->cap : 64;
	uint64_t *k = calloc(cap, sizeof(*k));

	if (!k)
		return false;
	for (size_t i = 0; i < s->cap; i++) {
		size_t j;

		if (!s->keys[i])
			continue;
		for (j = s->keys[i] * 0x9e3779b97f4a7c15ULL >> 32 & (cap - 1);
		     k[j]; j = (j + 1) & (cap - 1))
			;
		k[j] = s->keys[i];
	}
	free(s->keys);
	s->keys = k;
	s->cap = cap;
	return true;
}

/* Add KEY: 1 when new, 0 when there already, -1 out of memory. */
static int set_add(struct key_set *s, uint64_t key)
{
	size_t j;

	if (2 * (s->used + 1) > s->cap && !set_grow(s))
		return -1;
	key++;
	for (j = key * 0x9e3779b97f4a7c15ULL >> 32 & (s->cap - 1); s->keys[j];
	     j = (j + 1) & (s->cap - 1))
		if (s->keys[j] == key)
			return 0;
	s->keys[j] = key;
	s->used++;
	return 1;
}

/*
 * A vCPU thread's late interrupt tracks, lanes of slices that never
 * overlap: a thread of no tid of Linux's (they are below 2^22) each.
 */
#define IRQ_LANES		8
#define IRQ_TID(lane, tid)	(0x80000000U | (lane) << 22 | ((tid) & 0x3fffff))

struct irq_lanes {
	uint64_t thread;		/* vm_pid << 32 | tid */
	uint64_t end[IRQ_LANES];	/* each one's last slice's end, ns */
};

struct exporter {
	struct trace_reader *r;
	FILE *f;
	struct key_set vms, threads;
	bool first;			/* no array member written yet */
	struct trace_filter *filter;
	struct event_fmt fields;	/* a slice's args */
	struct irq_lanes *lanes;	/* per vCPU thread with late interrupts */
	size_t nr_lanes, lanes_cap;
	uint64_t flows;			/* flow arrows so far: their bind_ids */
};

/* What comes before the next member of traceEvents. */
static const char *next_member(struct exporter *x)
{
	const char *sep = x->first ? "\n" : ",\n";

	x->first = false;
	return sep;
}

/* KEY, then microseconds with the nanoseconds kept as three decimals. */
static char *put_us(char *p, const char *key, uint64_t ns)
{
	p = put_u64(put_str(p, key), ns / 1000);
	*p++ = '.';
	return put_digits(p, ns % 1000, 3);
}

/*
 * A thread track's NAME and place (SORT: Perfetto's order within the
 * process), the first time it shows: 0, or -1 out of memory.
 */
static int name_thread(struct exporter *x, uint32_t pid, uint32_t tid,
		       uint32_t sort, const char *name)
{
	int ret = set_add(&x->threads, (uint64_t)pid << 32 | tid);

	if (ret <= 0)
		return ret;
	fputs(next_member(x), x->f);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%" PRIu32
		",\"tid\":%" PRIu32 ",\"args\":{\"name\":", pid, tid);
	out_json_str(x->f, name);
	fputs("}}", x->f);
	/* Tracks in vCPU order, not in order of appearance. */
	fputs(next_member(x), x->f);
	fprintf(x->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%"
		PRIu32 ",\"tid\":%" PRIu32 ",\"args\":{\"sort_index\":%" PRIu32
		"}}", pid, tid, sort);
	return 0;
}

/* Process and thread names, the first time a VM or vCPU thread shows. */
static int name_tracks(struct exporter *x, const struct trace_record *e)
{
	char buf[32];
	int ret;

	ret = set_add(&x->vms, e->vm_pid);
	if (ret < 0)
		return -1;
	if (ret) {
		fputs(next_member(x), x->f);
		fprintf(x->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%"
			PRIu32 ",\"tid\":0,\"args\":{\"name\":", e->vm_pid);
		out_json_str(x->f, trace_vm_label(x->r, e->vm_id, e->vm_pid,
						  buf, sizeof(buf)));
		fputs("}}", x->f);
	}
	snprintf(buf, sizeof(buf), "vcpu%" PRIu32, e->vcpu_id);
	return name_thread(x, e->vm_pid, e->tid, e->vcpu_id, buf);
}

/*
 * The args of every slice: the table's export fields (event_fields.h),
 * with the exit in flight named by EXIT on a preemption (its slice is
 * named by the preemptor; KEY is "exit") or a late interrupt's last one
 * ("last_exit"), the decoded exit information as "detail" (a late
 * interrupt's info is no exit's), and who ran instead as
 * "preempted_by": "stress-ng (4242)".
 */
static char *put_args(char *p, const struct event_fmt *f,
		      const struct event_view *v, const char *key,
		      const char *exit)
{
	char q[96], name[PREEMPTOR_LEN], *start;

	p = put_str(p, ",\"args\":");
	start = p;
	if (exit) {
		p = put_str(put_str(p, ",\""), key);
		p = put_json_str(put_str(p, "\":"), exit);
	}
	p = event_json_members(p, f, v);
	if (!v->irq && exit_reason_qualifier(q, sizeof(q), v->isa, v->code,
					     v->info1, v->info2) > 0)
		p = put_json_str(put_str(p, ",\"detail\":"), q);
	if (v->preempt || v->preempt_pid) {
		*put_preemptor(name, v->preempt_comm, v->preempt_pid,
			       false) = '\0';
		p = put_json_str(put_str(p, ",\"preempted_by\":"), name);
	}
	/* The first member's comma opens the object. */
	*start = '{';
	return put_str(p, "}}");
}

/*
 * The lanes of the vCPU thread of E: the first time, none used (NULL out
 * of memory). vCPUs are few, late interrupts rare: a scan will do.
 */
static struct irq_lanes *lanes_of(struct exporter *x,
				  const struct trace_record *e)
{
	uint64_t thread = (uint64_t)e->vm_pid << 32 | e->tid;
	struct irq_lanes *l;

	for (size_t i = 0; i < x->nr_lanes; i++)
		if (x->lanes[i].thread == thread)
			return &x->lanes[i];
	if (x->nr_lanes == x->lanes_cap) {
		size_t cap = x->lanes_cap ? 2 * x->lanes_cap : 16;

		l = realloc(x->lanes, cap * sizeof(*l));
		if (!l)
			return NULL;
		x->lanes = l;
		x->lanes_cap = cap;
	}
	l = &x->lanes[x->nr_lanes++];
	*l = (struct irq_lanes){ .thread = thread };
	return l;
}

/*
 * The track of a late interrupt from START to END (events come by their
 * end): the first lane whose slices all ended by START, or the last
 * lane (they may overlap there: IRQ_LANES waiting at once). Its tid, or
 * -1 out of memory.
 */
static int64_t irq_track(struct exporter *x, const struct trace_record *e,
			 uint64_t start, uint64_t end)
{
	struct irq_lanes *l = lanes_of(x, e);
	unsigned int i = 0;
	uint32_t tid;
	char name[40];

	if (!l)
		return -1;
	while (i < IRQ_LANES - 1 && l->end[i] > start)
		i++;
	if (end > l->end[i])
		l->end[i] = end;
	tid = IRQ_TID(i, e->tid);
	if (i)
		snprintf(name, sizeof(name), "vcpu%" PRIu32 " irq %u",
			 e->vcpu_id, i + 1);
	else
		snprintf(name, sizeof(name), "vcpu%" PRIu32 " irq", e->vcpu_id);
	if (name_thread(x, e->vm_pid, tid, e->vcpu_id, name))
		return -1;
	return tid;
}

/*
 * Where late interrupt EV was injected: a slice of no length on its vCPU's
 * track, "inject VECTOR", the end of flow FLOW.
 */
static char *put_inject(char *p, const struct trace_event *ev,
			uint64_t vector, uint64_t flow)
{
	p = put_hex(put_str(p, "{\"ph\":\"X\",\"cat\":\"irq\",\"name\":"
			    "\"inject "), vector);
	p = put_u64(put_str(p, "\",\"pid\":"), ev->e.vm_pid);
	p = put_u64(put_str(p, ",\"tid\":"), ev->e.tid);
	p = put_us(p, ",\"ts\":", ev->ts_ns);
	p = put_u64(put_str(p, ",\"dur\":0,\"bind_id\":"), flow);
	p = put_hex(put_str(p, ",\"flow_in\":true,\"args\":{\"vector\":\""),
		    vector);
	return put_str(p, "\"}}");
}

/*
 * A late interrupt: its slice on its track from the raise, the flow's
 * start, then its injection on the vCPU's track, the flow's end.
 */
static int export_irq(struct exporter *x, const struct trace_event *ev,
		      const struct event_view *v)
{
	const struct trace_record *e = &ev->e;
	int64_t tid = irq_track(x, e, trace_exit_ns(ev), ev->ts_ns);
	char line[SLICE_MAX], *p;
	uint64_t flow = ++x->flows;

	if (tid < 0)
		return -1;
	p = put_str(line, next_member(x));
	p = put_hex(put_str(p, "{\"ph\":\"X\",\"cat\":\"irq\",\"name\":\"irq "),
		    v->vector);
	p = put_u64(put_str(p, " late\",\"pid\":"), e->vm_pid);
	p = put_u64(put_str(p, ",\"tid\":"), tid);
	p = put_us(p, ",\"ts\":", trace_exit_ns(ev));
	p = put_us(p, ",\"dur\":", e->duration_ns);
	p = put_u64(put_str(p, ",\"bind_id\":"), flow);
	p = put_str(p, ",\"flow_out\":true");
	p = put_args(p, &x->fields, v, "last_exit", v->reason);
	p = put_inject(put_str(p, next_member(x)), ev, v->vector, flow);
	fwrite_unlocked(line, 1, p - line, x->f);
	return 0;
}

static int export_event(struct exporter *x, const struct trace_event *ev)
{
	const struct trace_record *e = &ev->e;
	char comm[TRACE_COMM_BUF], pre[16 + PREEMPTOR_LEN];
	char code[EXIT_LABEL_LEN];
	char line[SLICE_MAX], *p;
	bool is_pre = trace_is_preempt(ev);
	struct event_view v;
	const char *name;

	if (name_tracks(x, e))
		return -1;
	name = exit_reason_label(code, sizeof(code), e->isa,
				 trace_exit_reason(ev));
	event_view_trace(&v, e, trace_event_type(ev), ev->ts_ns, ev->cpu, name,
			 "", trace_comm(e, comm));
	if (v.irq)
		return export_irq(x, ev, &v);
	event_view_device(&v, x->r);
	p = put_str(line, next_member(x));
	if (v.mark) {
		/* A point in time on its thread's track: no duration. */
		p = put_str(p, "{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"mark\","
			    "\"name\":\"mark ");
		p = put_str(put_u64(p, v.mark_id), "\"");
	} else if (is_pre) {
		*put_preemptor(put_str(pre, "preempted by "), comm,
			       e->preempt_pid,
			       e->flags & HVTRACE_EVF_PREEMPT_VCPU) = '\0';
		p = put_str(p, "{\"ph\":\"X\",\"cat\":\"preempt\",\"name\":");
		p = put_json_str(p, pre);
	} else {
		p = put_str(p, "{\"ph\":\"X\",\"cat\":\"exit\",\"name\":");
		p = put_json_str(p, name);
	}
	p = put_u64(put_str(p, ",\"pid\":"), e->vm_pid);
	p = put_u64(put_str(p, ",\"tid\":"), e->tid);
	p = put_us(p, ",\"ts\":", trace_exit_ns(ev));
	if (!v.mark)
		p = put_us(p, ",\"dur\":", e->duration_ns);
	p = put_args(p, &x->fields, &v, "exit", is_pre ? name : NULL);
	fwrite_unlocked(line, 1, p - line, x->f);
	return 0;
}

/* Lost events: a global instant where each loss range begins. */
static void export_loss(unsigned int cpu, uint64_t begin, uint64_t end,
			uint64_t lost, void *arg)
{
	struct exporter *x = arg;
	char ts[64], *p = put_us(ts, "", begin);

	*p = '\0';
	fputs(next_member(x), x->f);
	fprintf(x->f, "{\"ph\":\"i\",\"s\":\"g\",\"cat\":\"loss\",\"name\":"
		"\"%" PRIu64 " event%s lost on cpu%u\",\"pid\":0,\"tid\":0,"
		"\"ts\":%s,\"args\":{\"cpu\":%u,\"lost\":%" PRIu64
		",\"begin_ns\":%" PRIu64 ",\"end_ns\":%" PRIu64 "}}",
		lost, lost == 1 ? "" : "s", cpu, ts, cpu, lost, begin, end);
}

static int export(struct exporter *x)
{
	struct trace_event ev;
	int ret;

	fputs("{\"traceEvents\":[", x->f);
	while ((ret = trace_next(x->r, &ev)) > 0)
		if (trace_filter_match(x->filter, x->r, &ev) &&
		    export_event(x, &ev))
			return hvctl_err("out of memory");
	if (ret < 0)
		return hvctl_err("%s", trace_error(x->r));
	trace_for_each_loss(x->r, export_loss, x);
	fputs("\n],\"displayTimeUnit\":\"ns\"}\n", x->f);
	return 0;
}

/*
 * The events the export would write, counted in a pass of their own
 * (reading costs some 70ns an event), so that a file the Perfetto UI
 * cannot open is said before it is written: -1 on errors (printed).
 */
static int64_t count_events(const char *dir, unsigned int flags,
			    struct trace_filter *f)
{
	struct trace_filter copy = *f;
	struct trace_event ev;
	struct trace_reader *r;
	int64_t n = 0;
	char err[512];
	int ret;

	r = trace_open(dir, flags, err, sizeof(err));
	if (!r) {
		hvctl_err("%s", err);
		return -1;
	}
	while ((ret = trace_next(r, &ev)) > 0)
		n += trace_filter_match(&copy, r, &ev);
	if (ret < 0) {
		hvctl_err("%s", trace_error(r));
		n = -1;
	}
	trace_close(r);
	return n;
}

static int check_size(const char *dir, unsigned int flags,
		      struct trace_filter *f, bool force)
{
	int64_t n = count_events(dir, flags, f);
	uint64_t bytes;

	if (n < 0)
		return 1;
	bytes = (uint64_t)n * PERFETTO_BYTES_PER_EVENT;
	if (bytes <= PERFETTO_WARN_BYTES)
		return 0;
	fprintf(stderr, "hvctl: %s: %s: %" PRId64 " events to export make "
		"some %.1f GB of JSON; the Perfetto UI %s open a trace past "
		"about 2 GB (its memory in the browser; trace_processor --httpd "
		"lifts that).\nhvctl: narrow it with --since/--until, --vm, "
		"--vcpu, --reason or --cpu%s.\n",
		bytes > PERFETTO_LIMIT_BYTES && !force ? "refused" : "warning",
		dir, n, (double)bytes / 1e9,
		bytes > PERFETTO_LIMIT_BYTES ? "cannot" : "may not",
		bytes > PERFETTO_LIMIT_BYTES && !force ?
		", or write it anyway with --force" : "");
	return bytes > PERFETTO_LIMIT_BYTES && !force;
}

static int export_file(const char *dir, const char *out, unsigned int flags,
		       struct trace_filter *f, bool force)
{
	static char obuf[1 << 18];
	struct exporter x = { .first = true, .filter = f };
	struct trace_reader *r;
	struct out_file o;
	char err[512];
	int ret;

	r = trace_open(dir, flags, err, sizeof(err));
	if (!r)
		return hvctl_err("%s", err);
	if (trace_filter_bind(f, r) || check_size(dir, flags, f, force)) {
		trace_close(r);
		return 1;
	}
	if (out_file_open(&o, out, dir)) {
		trace_close(r);
		return 1;
	}
	x.r = r;
	x.f = o.f;
	event_fmt_init(&x.fields, EF_EXPORT);
	setvbuf(x.f, obuf, _IOFBF, sizeof(obuf));
	ret = export(&x);
	/* Half a JSON document is of no use: FILE stays as it was. */
	if (ret)
		out_file_discard(&o);
	else
		ret = out_file_commit(&o) ? 1 : 0;
	if (!ret)
		trace_print_warnings(r, stderr);
	free(x.vms.keys);
	free(x.threads.keys);
	free(x.lanes);
	trace_close(r);
	return ret ? 1 : 0;
}

struct export_opts {
	const char *out;
	bool strict, force;
	struct trace_filter filter;
};

static const struct hvctl_opt export_opts[] = {
	OPT_STR("--perfetto", struct export_opts, out, "@file"),
	OPT_FLAG("--strict", struct export_opts, strict),
	OPT_FLAG("--force", struct export_opts, force),
	TRACE_FILTER_OPTS(struct export_opts, filter),
	OPT_END,
};

static int export_run(int argc, char **argv)
{
	struct export_opts o = { 0 };
	const char *dir;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_export, argc, argv))
		return 0;
	ret = hvctl_parse_dir(&hvctl_cmd_export, argc, argv, &o, &dir);
	if (!ret && trace_filter_parse(&o.filter))
		ret = hvctl_usage(&hvctl_cmd_export);
	if (ret)
		return ret;
	if (!o.out || !*o.out)
		return hvctl_usage_err(&hvctl_cmd_export,
				       "--perfetto FILE is required");
	return export_file(dir, o.out, o.strict ? TRACE_STRICT : 0, &o.filter,
			   o.force);
}

const struct hvctl_cmd hvctl_cmd_export = {
	.name = "export",
	.run = export_run,
	.usage = "DIR --perfetto FILE [--strict] [--force]\n"
		 "       " TRACE_FILTER_USAGE,
	.opts = export_opts,
	.args = "@dir",
	.summary = "convert a recorded trace for ui.perfetto.dev or chrome://tracing\n"
		   "(trace-event JSON; FILE - is stdout): a process per VM, a\n"
		   "track per vCPU, a slice per exit (its time split in the\n"
		   "args), and within it a \"preempted by COMM (PID)\" slice per\n"
		   "preemption record; a late interrupt is an \"irq VECTOR late\"\n"
		   "slice from raise to injection on a \"vcpuN irq\" track, with a\n"
		   "flow arrow to its injection on the vCPU's track. FILE is\n"
		   "replaced whole once written (new: mode 0600), never inside\n"
		   "DIR; --strict makes any damage to the trace an error. The\n"
		   "filters pick events as on report. Past\n"
		   "some 2 GB of JSON (the Perfetto UI's limit) the export is\n"
		   "refused, and past 512 MB warned about; --force writes it anyway",
};
