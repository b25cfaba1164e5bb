// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl dump: every event of a recorded trace, one per line, in the
 * order the reader merges them (by re-entry or switch-in time), as text,
 * JSON objects or CSV. An exit shows where its time went (handling and
 * the parts) and who preempted it; a preemption record, a guest mark and
 * a late interrupt are lines of their own kinds. Lines are built by hand
 * into one buffer (event_text(), event_json()), not with printf per
 * field: a trace easily holds tens of millions of events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "event_fields.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "put.h"
#include "trace_filter.h"
#include "trace_read.h"

enum dump_format { FMT_TEXT, FMT_JSON, FMT_CSV };

/*
 * Labels change from one event to the next (VMs and reasons interleave)
 * but come from a small set: keep them in direct-mapped caches rather
 * than format them anew for each line.
 */
#define LABEL_CACHE 64

struct vm_slot {
	bool valid;
	uint32_t vm_id, vm_pid;
	char label[64];
};

struct reason_slot {
	bool valid;
	unsigned int isa;
	uint32_t code;
	char label[EXIT_LABEL_LEN];
};

struct dump_ctx {
	const struct trace_reader *r;
	enum dump_format fmt;
	/* The fields of fmt, in its order. */
	struct event_fmt fields;
	struct vm_slot vms[LABEL_CACHE];
	struct reason_slot reasons[LABEL_CACHE];
};

/* RFC 4180: quoted when it holds a comma, quote or line break. */
static char *put_csv_str(char *p, const char *s)
{
	if (!s[strcspn(s, ",\"\r\n")])
		return put_str(p, s);
	*p++ = '"';
	for (; *s; s++) {
		if (*s == '"')
			*p++ = '"';
		*p++ = *s;
	}
	*p++ = '"';
	return p;
}

static const char *vm_label(struct dump_ctx *c, const struct trace_record *e)
{
	struct vm_slot *v = &c->vms[e->vm_id % LABEL_CACHE];
	char buf[32];

	if (!v->valid || v->vm_id != e->vm_id || v->vm_pid != e->vm_pid) {
		snprintf(v->label, sizeof(v->label), "%s",
			 trace_vm_label(c->r, e->vm_id, e->vm_pid, buf,
					sizeof(buf)));
		v->vm_id = e->vm_id;
		v->vm_pid = e->vm_pid;
		v->valid = true;
	}
	return v->label;
}

/*
 * exit_reason_label() of the exit EV goes by (a late interrupt's last
 * one), cached: a line needs it, snprintf is slow.
 */
static const char *reason_label(struct dump_ctx *c,
				const struct trace_event *ev)
{
	uint32_t code = trace_exit_reason(ev);
	unsigned int isa = ev->e.isa;
	struct reason_slot *rs;

	rs = &c->reasons[(code ^ code >> 6 ^ isa << 5) % LABEL_CACHE];
	if (rs->valid && rs->isa == isa && rs->code == code)
		return rs->label;
	exit_reason_label(rs->label, sizeof(rs->label), isa, code);
	rs->isa = isa;
	rs->code = code;
	rs->valid = true;
	return rs->label;
}

/* Columns as the header; the empty string where a field is not there. */
static char *csv_line(char *p, const struct dump_ctx *c,
		      const struct event_view *v)
{
	for (unsigned int i = 0; i < c->fields.n; i++) {
		const struct event_field *f = c->fields.fields[i];

		if (i)
			*p++ = ',';
		if (!event_field_present(f, v))
			continue;
		if (f->kind == EF_STR)
			p = put_csv_str(p, event_field_str(f, v));
		else if (f->kind == EF_HEX)
			p = put_hex(p, event_field_u64(f, v));
		else
			p = put_u64(p, event_field_u64(f, v));
	}
	return p;
}

static void print_csv_header(const struct dump_ctx *c)
{
	for (unsigned int i = 0; i < c->fields.n; i++)
		printf("%s%s", i ? "," : "", c->fields.fields[i]->key);
	putchar('\n');
}

static void print_event(struct dump_ctx *c, const struct trace_event *ev)
{
	char line[EVENT_LINE_MAX], comm[TRACE_COMM_BUF], *p;
	struct event_view v;

	bool pre = trace_is_preempt(ev);

	/* Most exits have no preemptor: no comm to make printable. */
	event_view_trace(&v, &ev->e, trace_event_type(ev), ev->ts_ns, ev->cpu,
			 reason_label(c, ev), vm_label(c, &ev->e),
			 pre || ev->e.preempt_pid ? trace_comm(&ev->e, comm) : "");
	event_view_device(&v, c->r);
	switch (c->fmt) {
	case FMT_JSON:
		p = event_json(line, &c->fields, &v);
		break;
	case FMT_CSV:
		p = csv_line(line, c, &v);
		break;
	default:
		p = event_text(line, &v);
		break;
	}
	*p++ = '\n';
	fwrite_unlocked(line, 1, p - line, stdout);
}

/* Losses and torn packets go to stderr: stdout stays one event a line. */
static void print_notes(const struct trace_reader *r)
{
	struct trace_info info;

	trace_get_info(r, &info);
	if (info.discarded)
		fprintf(stderr, "note: %" PRIu64 " events were lost while recording (not in the trace)\n",
			info.discarded);
	if (info.torn_packets)
		fprintf(stderr, "note: %" PRIu64 " incomplete packet%s at the end of a stream ignored\n",
			info.torn_packets, info.torn_packets == 1 ? "" : "s");
}

static int dump(const char *dir, enum dump_format fmt, unsigned int flags,
		struct trace_filter *f)
{
	static char obuf[1 << 18];
	struct dump_ctx c = { .fmt = fmt };
	struct trace_event ev;
	struct trace_reader *r;
	char err[512];
	int ret;

	r = trace_open(dir, flags, err, sizeof(err));
	if (!r)
		return hvctl_err("%s", err);
	if (trace_filter_bind(f, r)) {
		trace_close(r);
		return 1;
	}
	c.r = r;
	event_fmt_init(&c.fields, fmt == FMT_CSV ? EF_CSV : EF_DUMP);
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (fmt == FMT_CSV)
		print_csv_header(&c);
	while ((ret = trace_next(r, &ev)) > 0)
		if (trace_filter_match(f, r, &ev))
			print_event(&c, &ev);
	/* Standard output's errors: main() (out_check_stdout()). */
	if (ret < 0) {
		ret = hvctl_err("%s", trace_error(r));
	} else {
		trace_print_warnings(r, stderr);
		print_notes(r);
	}
	trace_close(r);
	return ret ? 1 : 0;
}

struct dump_opts {
	const char *format;
	bool strict;
	struct trace_filter filter;
};

static const struct hvctl_opt dump_opts[] = {
	OPT_STR("--format", struct dump_opts, format, "text json csv"),
	OPT_FLAG("--strict", struct dump_opts, strict),
	TRACE_FILTER_OPTS(struct dump_opts, filter),
	OPT_END,
};

static int dump_run(int argc, char **argv)
{
	struct dump_opts o = { 0 };
	enum dump_format fmt;
	const char *dir, *f;
	int ret;

	if (hvctl_want_help(&hvctl_cmd_dump, argc, argv))
		return 0;
	ret = hvctl_parse_dir(&hvctl_cmd_dump, argc, argv, &o, &dir);
	if (!ret && trace_filter_parse(&o.filter))
		ret = hvctl_usage(&hvctl_cmd_dump);
	if (ret)
		return ret;
	/* -j is taken anywhere on the line: only now is it known. */
	fmt = hvctl_json ? FMT_JSON : FMT_TEXT;
	f = o.format;
	if (f && !strcmp(f, "text"))
		fmt = FMT_TEXT;
	else if (f && !strcmp(f, "json"))
		fmt = FMT_JSON;
	else if (f && !strcmp(f, "csv"))
		fmt = FMT_CSV;
	else if (f)
		return hvctl_usage_err(&hvctl_cmd_dump,
				       "unknown format '%s' (text, json or csv)", f);
	return dump(dir, fmt, o.strict ? TRACE_STRICT : 0, &o.filter);
}

const struct hvctl_cmd hvctl_cmd_dump = {
	.name = "dump",
	.run = dump_run,
	.usage = "DIR [--format text|json|csv] [--strict]\n"
		 "       " TRACE_FILTER_USAGE,
	.opts = dump_opts,
	.args = "@dir",
	.summary = "print every event of a recorded trace, one a line\n"
		   "Exits with where their time went (handling, vmm, halt,\n"
		   "runnable, other; guest time before) and who preempted them;\n"
		   "preemption records as \"preempted\" lines; guest marks as\n"
		   "\"mark ID\" lines: the guest's TSC, the one the host's gives\n"
		   "at the exit and how far the guest's lies before it; late\n"
		   "interrupts as \"irq VECTOR SOURCE late\" lines, their wait split\n"
		   "as an exit's, guest time included. Events come in re-entry\n"
		   "order; the time shown (ts_ns) is the exit (switch-out; a late\n"
		   "interrupt's raise), re-entry minus duration. json (also -j): one\n"
		   "object a line; csv: a header line, addresses and flags in 0x\n"
		   "hex. Damaged packets are skipped with a warning; --strict makes\n"
		   "any damage an error. The filters pick events as on report (see\n"
		   "its help)",
};
