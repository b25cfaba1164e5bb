// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl dump: every event of a recorded trace, one per line, in the
 * order the reader merges them (by re-entry or switch-in time), as text,
 * JSON objects or CSV. An exit shows where its time went (handling and
 * the parts) and who preempted it; a preemption record is a line of its
 * own kind. Lines are built by hand into one buffer, not with printf per
 * field: a trace easily holds tens of millions of events.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "duration.h"
#include "event_fields.h"
#include "exit_reasons.h"
#include "hvctl.h"
#include "output.h"
#include "put.h"
#include "time_parts.h"
#include "trace_filter.h"
#include "trace_read.h"

enum dump_format { FMT_TEXT, FMT_JSON, FMT_CSV };

/*
 * Longest line, JSON: some 1000 bytes of keys and numbers, a 63-byte VM
 * name and a 16-byte command name escaped six-fold; then PUT_SLACK for
 * put_u64's fixed-size copy.
 */
#define LINE_MAX_LEN 2048

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
	char label[40];		/* the longest name has 25 */
};

struct dump_ctx {
	const struct trace_reader *r;
	enum dump_format fmt;
	/* The fields of fmt, in its order (event_fields_pick()). */
	const struct event_field *fields[EVENT_NR_FIELDS];
	unsigned int nr_fields;
	/* JSON: each field's ",\"key\":", made once, and its length. */
	char keys[EVENT_NR_FIELDS][24];
	unsigned char key_len[EVENT_NR_FIELDS];
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

/* exit_reason_label(), cached: a line needs it, snprintf is slow. */
static const char *reason_label(struct dump_ctx *c, const struct trace_record *e)
{
	struct reason_slot *rs;
	rs = &c->reasons[(e->reason ^ e->reason >> 6 ^ e->isa << 5) % LABEL_CACHE];
	if (rs->valid && rs->isa == e->isa && rs->code == e->reason)
		return rs->label;
	exit_reason_label(rs->label, sizeof(rs->label), e->isa, e->reason);
	rs->isa = e->isa;
	rs->code = e->reason;
	rs->valid = true;
	return rs->label;
}

/* "[120.443201] vm guest1 vcpu0 cpu3 ": the start, where it happened. */
static char *text_where(char *p, const struct event_view *v)
{
	char us[8];

	*p++ = '[';
	p = put_u64(p, v->ts_ns / 1000000000);
	snprintf(us, sizeof(us), ".%06u",
		 (unsigned int)(v->ts_ns % 1000000000 / 1000));
	p = put_str(p, us);
	p = put_str(p, "] vm ");
	p = put_str(p, v->vm);
	p = put_str(p, " vcpu");
	p = put_u64(p, v->vcpu);
	p = put_str(p, " cpu");
	p = put_u64(p, v->cpu);
	*p++ = ' ';
	return p;
}

/* "NPF gpa 0x7ff82000 write rip 0x...": the exit and what it was about. */
static char *text_exit(char *p, const struct event_view *v)
{
	char q[96];
	const char *qs;

	p = put_str(p, v->reason);
	if (v->flags & HVTRACE_EVF_ADDR_GPA) {
		p = put_str(p, " gpa ");
		p = put_hex(p, v->addr);
	}
	if (v->flags & HVTRACE_EVF_ADDR_MSR) {
		p = put_str(p, " msr ");
		p = put_hex(p, v->addr);
	}
	qs = event_qualifier(q, sizeof(q), v);
	if (*qs) {
		*p++ = ' ';
		p = put_str(p, qs);
	}
	if (v->flags & HVTRACE_EVF_RIP_VALID) {
		p = put_str(p, " rip ");
		p = put_hex(p, v->rip);
	}
	return p;
}

/* "pid 4242 (stress-ng)", "vcpu pid 4102 (CPU 1/KVM)" */
static char *text_preemptor(char *p, const struct event_view *v)
{
	if (v->preempt_vcpu)
		p = put_str(p, "vcpu ");
	p = put_str(p, "pid ");
	p = put_u64(p, v->preempt_pid);
	p = put_str(p, " (");
	p = put_str(p, v->preempt_comm);
	*p++ = ')';
	return p;
}

/*
 * [120.443201] vm guest1 vcpu0 cpu3 NPF gpa 0x7ff82000 write rip 0x...
 *   312.4us: handling 12.1us vmm 200.0us halt 0ns preempted 100.3us
 *   other 0ns guest 5.0us; preempted by pid 4242 (stress-ng) for 100.3us
 */
static char *text_line(char *p, const struct event_view *v)
{
	p = text_exit(text_where(p, v), v);
	*p++ = ' ';
	p = duration_put(p, v->duration_ns);
	/* Its vCPU was destroyed first: the duration runs to that. */
	if (v->no_entry)
		p = put_str(p, " never re-entered");
	p = put_str(p, ":");
	for (int i = 0; i <= HVTRACE_NR_PARTS; i++) {
		*p++ = ' ';
		p = put_str(p, time_part_labels[i]);
		*p++ = ' ';
		p = duration_put(p, v->part_ns[i]);
	}
	p = put_str(p, " guest ");
	p = duration_put(p, v->guest_ns);
	if (!v->preempt_pid)
		return p;
	p = text_preemptor(put_str(p, "; preempted by "), v);
	p = put_str(p, " for ");
	return duration_put(p, v->preempt_ns);
}

/*
 * [120.443201] vm guest1 vcpu0 cpu3 preempted 1.20ms by pid 4242
 *   (stress-ng); in NPF gpa 0x7ff82000 write rip 0x...
 * The time is the switch-out, the duration the time off CPU.
 */
static char *text_preempt_line(char *p, const struct event_view *v)
{
	p = put_str(text_where(p, v), "preempted ");
	p = duration_put(p, v->duration_ns);
	p = text_preemptor(put_str(p, " by "), v);
	/* The module notes the time off CPU; say so when it differs. */
	if (v->preempt_ns != v->duration_ns) {
		p = put_str(p, " ran ");
		p = duration_put(p, v->preempt_ns);
	}
	return text_exit(put_str(p, "; in "), v);
}

/*
 * One object a line, event_out_members()'s JSON built by hand: the
 * table's fields in JSON's order (what the record is first).
 */
static char *json_line(char *p, const struct dump_ctx *c,
		       const struct event_view *v)
{
	char *start = p;

	for (unsigned int i = 0; i < c->nr_fields; i++) {
		const struct event_field *f = c->fields[i];

		if (!event_field_present(f, v))
			continue;
		/* A constant-size copy is three moves; the line has slack. */
		memcpy(p, c->keys[i], sizeof(c->keys[i]));
		p += c->key_len[i];
		if (f->kind == EF_STR)
			p = put_json_str(p, event_field_str(f, v));
		else if (f->kind == EF_BOOL)
			p = put_str(p, event_field_u64(f, v) ? "true" : "false");
		else
			p = put_u64(p, event_field_u64(f, v));
	}
	/* The first member's comma opens the object. */
	*start = '{';
	*p++ = '}';
	return p;
}

/* Columns as the header; the empty string where a field is not there. */
static char *csv_line(char *p, const struct dump_ctx *c,
		      const struct event_view *v)
{
	for (unsigned int i = 0; i < c->nr_fields; i++) {
		const struct event_field *f = c->fields[i];

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
	for (unsigned int i = 0; i < c->nr_fields; i++)
		printf("%s%s", i ? "," : "", c->fields[i]->key);
	putchar('\n');
}

static void print_event(struct dump_ctx *c, const struct trace_event *ev)
{
	char line[LINE_MAX_LEN], comm[TRACE_COMM_BUF], *p;
	struct event_view v;

	bool pre = trace_is_preempt(ev);

	/* Most exits have no preemptor: no comm to make printable. */
	event_view_trace(&v, &ev->e, pre, ev->ts_ns, ev->cpu,
			 reason_label(c, &ev->e), vm_label(c, &ev->e),
			 pre || ev->e.preempt_pid ? trace_comm(&ev->e, comm) : "");
	switch (c->fmt) {
	case FMT_JSON:
		p = json_line(line, c, &v);
		break;
	case FMT_CSV:
		p = csv_line(line, c, &v);
		break;
	default:
		p = v.preempt ? text_preempt_line(line, &v) :
				text_line(line, &v);
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
	c.nr_fields = event_fields_pick(c.fields,
					fmt == FMT_CSV ? EF_CSV : EF_DUMP);
	for (unsigned int i = 0; i < c.nr_fields; i++)
		c.key_len[i] = snprintf(c.keys[i], sizeof(c.keys[i]), ",\"%s\":",
					c.fields[i]->key);
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
		   "preempted, other; guest time before) and who preempted them;\n"
		   "preemption records as \"preempted\" lines. Events come in\n"
		   "re-entry order; the time shown (ts_ns) is the exit (switch-out),\n"
		   "re-entry minus duration. json (also -j): one object a line;\n"
		   "csv: a header line, addresses and flags in 0x hex. Damaged\n"
		   "packets are skipped with a warning; --strict makes any damage\n"
		   "an error. The filters pick events as on report (see its help)",
};
