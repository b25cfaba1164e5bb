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
#include "exit_reasons.h"
#include "hvctl.h"
#include "output.h"
#include "time_parts.h"
#include "trace_read.h"

enum dump_format { FMT_TEXT, FMT_JSON, FMT_CSV };

/*
 * Longest line, JSON: some 1000 bytes of keys and numbers, a 63-byte VM
 * name and a 16-byte command name escaped six-fold; then slack for
 * put_u64's fixed-size copy.
 */
#define LINE_MAX_LEN 2048

static const char csv_header[] =
	"ts_ns,entry_ns,duration_ns,reason,isa,code,info1,info2,intr_info,"
	"error_code,gpa,msr,rip,vm,vm_id,vm_pid,vcpu,tid,cpu_exit,cpu,seq,"
	"flags,type,handling_ns,vmm_ns,halt_ns,runnable_ns,other_ns,guest_ns,"
	"preempt_pid,preempt_comm,preempt_vcpu,preempt_ns\n";



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
	struct vm_slot vms[LABEL_CACHE];
	struct reason_slot reasons[LABEL_CACHE];
};

static char *put_mem(char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

static char *put_str(char *p, const char *s)
{
	return put_mem(p, s, strlen(s));
}

static char *put_u64(char *p, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930"
		"31323334353637383940414243444546474849505152535455565758596061"
		"62636465666768697071727374757677787980818283848586878889909192"
		"939495969798990";
	char tmp[40], *t = tmp + 20;
	size_t n;

	/* Parts of an exit's time are mostly 0. */
	if (v < 10) {
		*p = '0' + v;
		return p + 1;
	}
	/*
	 * Two digits per division, right-aligned at tmp + 20, then a copy of
	 * a constant 20 bytes (inlined, unlike one of N): the dump's hottest
	 * code. LINE_MAX_LEN leaves room for the bytes past the number.
	 */
	while (v >= 100) {
		t -= 2;
		memcpy(t, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		t -= 2;
		memcpy(t, pairs + 2 * v, 2);
	} else {
		*--t = '0' + v;
	}
	n = tmp + 20 - t;
	memcpy(p, t, 20);
	return p + n;
}

static char *put_hex(char *p, uint64_t v)
{
	static const char digits[] = "0123456789abcdef";
	char tmp[16];
	int n = 0;

	do {
		tmp[n++] = digits[v & 0xf];
		v >>= 4;
	} while (v);
	*p++ = '0';
	*p++ = 'x';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/*
 * duration_format()'s text ("85ns", "312.4us", "1.50ms", "2.000s") without
 * snprintf: a text line holds seven durations.
 */
static char *put_dur(char *p, uint64_t ns)
{
	static const uint64_t unit_ns[] = { 1, 1000, 1000000, 1000000000 };
	static const uint64_t scale[] = { 1, 10, 100, 1000 };
	static const char *const name[] = { "ns", "us", "ms", "s" };
	unsigned int i = 0;
	uint64_t step, q, r, frac;

	while (i < 3 && ns >= unit_ns[i + 1])
		i++;
	for (;;) {
		step = unit_ns[i] / scale[i];
		q = ns / step;
		r = ns % step;
		if (step > 1 && r >= step - r)
			q++;
		if (i < 3 && q >= 1000 * scale[i]) {
			i++;
			continue;
		}
		break;
	}
	p = put_u64(p, q / scale[i]);
	if (i) {
		*p++ = '.';
		frac = q % scale[i];
		for (uint64_t d = scale[i] / 10; d; d /= 10) {
			*p++ = '0' + frac / d;
			frac %= d;
		}
	}
	return put_str(p, name[i]);
}

/* out_json_str() into the line: names and comms are short. */
static char *put_json_str(char *p, const char *s)
{
	static const char digits[] = "0123456789abcdef";
	int n;

	*p++ = '"';
	for (; *s; s++) {
		unsigned char c = *s;

		n = c < 0x80 ? 1 : out_utf8_len((const unsigned char *)s);
		if (c == '"' || c == '\\') {
			*p++ = '\\';
			*p++ = c;
		} else if (c < 0x20) {
			p = put_str(p, "\\u00");
			*p++ = digits[c >> 4];
			*p++ = digits[c & 0xf];
		} else if (n) {
			p = put_mem(p, s, n);
			s += n - 1;
		} else {
			p = put_str(p, "\\ufffd");
		}
	}
	*p++ = '"';
	return p;
}

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

/* "NPF"; "unknown" when the vendor was not known; "0x..." if not named. */
static const char *reason_label(struct dump_ctx *c, const struct trace_record *e)
{
	struct reason_slot *rs;
	const char *name;

	rs = &c->reasons[(e->reason ^ e->reason >> 6 ^ e->isa << 5) % LABEL_CACHE];
	if (rs->valid && rs->isa == e->isa && rs->code == e->reason)
		return rs->label;
	name = e->isa == HVTRACE_ISA_UNKNOWN ? "unknown" :
					      exit_reason_name(e->isa, e->reason);
	if (name)
		snprintf(rs->label, sizeof(rs->label), "%s", name);
	else
		snprintf(rs->label, sizeof(rs->label), "0x%x", e->reason);
	rs->isa = e->isa;
	rs->code = e->reason;
	rs->valid = true;
	return rs->label;
}

/*
 * The decoded exit information, less the address the line shows already
 * from addr (SVM's NPF text starts "gpa 0x...", VMX's RDMSR-immediate
 * "msr 0x...").
 */
static const char *qualifier(char *buf, size_t len, const struct trace_record *e)
{
	const char *q = buf, *sp;

	exit_reason_qualifier(buf, len, e->isa, e->reason, e->info1, e->info2);
	if (((e->flags & HVTRACE_EVF_ADDR_GPA) && !strncmp(q, "gpa ", 4)) ||
	    ((e->flags & HVTRACE_EVF_ADDR_MSR) && !strncmp(q, "msr ", 4))) {
		sp = strchr(q + 4, ' ');
		q = sp ? sp + 1 : "";
	}
	return q;
}

/* "[120.443201] vm guest1 vcpu0 cpu3 ": the start, where it happened. */
static char *text_where(char *p, struct dump_ctx *c, const struct trace_event *ev)
{
	uint64_t t = trace_exit_ns(ev);
	char us[8];

	*p++ = '[';
	p = put_u64(p, t / 1000000000);
	snprintf(us, sizeof(us), ".%06u", (unsigned int)(t % 1000000000 / 1000));
	p = put_str(p, us);
	p = put_str(p, "] vm ");
	p = put_str(p, vm_label(c, &ev->e));
	p = put_str(p, " vcpu");
	p = put_u64(p, ev->e.vcpu_id);
	p = put_str(p, " cpu");
	p = put_u64(p, ev->cpu);
	*p++ = ' ';
	return p;
}

/* "NPF gpa 0x7ff82000 write rip 0x...": the exit and what it was about. */
static char *text_exit(char *p, struct dump_ctx *c, const struct trace_record *e)
{
	char q[96];
	const char *qs;

	p = put_str(p, reason_label(c, e));
	if (e->flags & HVTRACE_EVF_ADDR_GPA) {
		p = put_str(p, " gpa ");
		p = put_hex(p, e->addr);
	}
	if (e->flags & HVTRACE_EVF_ADDR_MSR) {
		p = put_str(p, " msr ");
		p = put_hex(p, e->addr);
	}
	qs = qualifier(q, sizeof(q), e);
	if (*qs) {
		*p++ = ' ';
		p = put_str(p, qs);
	}
	if (e->flags & HVTRACE_EVF_RIP_VALID) {
		p = put_str(p, " rip ");
		p = put_hex(p, e->rip);
	}
	return p;
}

/* "pid 4242 (stress-ng)", "vcpu pid 4102 (CPU 1/KVM)" */
static char *text_preemptor(char *p, const struct trace_record *e)
{
	char comm[TRACE_COMM_BUF];

	if (e->flags & HVTRACE_EVF_PREEMPT_VCPU)
		p = put_str(p, "vcpu ");
	p = put_str(p, "pid ");
	p = put_u64(p, e->preempt_pid);
	p = put_str(p, " (");
	p = put_str(p, trace_comm(e, comm));
	*p++ = ')';
	return p;
}

/*
 * [120.443201] vm guest1 vcpu0 cpu3 NPF gpa 0x7ff82000 write rip 0x...
 *   312.4us: handling 12.1us vmm 200.0us halt 0ns preempted 100.3us
 *   other 0ns guest 5.0us; preempted by pid 4242 (stress-ng) for 100.3us
 */
static char *text_line(char *p, struct dump_ctx *c, const struct trace_event *ev)
{
	const struct trace_record *e = &ev->e;

	p = text_exit(text_where(p, c, ev), c, e);
	*p++ = ' ';
	p = put_dur(p, e->duration_ns);
	/* Its vCPU was destroyed first: the duration runs to that. */
	if (e->flags & HVTRACE_EVF_NO_ENTRY)
		p = put_str(p, " never re-entered");
	p = put_str(p, ": handling ");
	p = put_dur(p, e->handling_ns);
	for (int i = 0; i < HVTRACE_NR_PARTS; i++) {
		*p++ = ' ';
		p = put_str(p, time_part_labels[1 + i]);
		*p++ = ' ';
		p = put_dur(p, e->part_ns[i]);
	}
	p = put_str(p, " guest ");
	p = put_dur(p, e->guest_ns);
	if (!e->preempt_pid)
		return p;
	p = text_preemptor(put_str(p, "; preempted by "), e);
	p = put_str(p, " for ");
	return put_dur(p, e->preempt_ns);
}

/*
 * [120.443201] vm guest1 vcpu0 cpu3 preempted 1.20ms by pid 4242
 *   (stress-ng); in NPF gpa 0x7ff82000 write rip 0x...
 * The time is the switch-out, the duration the time off CPU.
 */
static char *text_preempt_line(char *p, struct dump_ctx *c,
			       const struct trace_event *ev)
{
	const struct trace_record *e = &ev->e;

	p = put_str(text_where(p, c, ev), "preempted ");
	p = put_dur(p, e->duration_ns);
	p = text_preemptor(put_str(p, " by "), e);
	/* The module notes the time off CPU; say so when it differs. */
	if (e->preempt_ns != e->duration_ns) {
		p = put_str(p, " ran ");
		p = put_dur(p, e->preempt_ns);
	}
	return text_exit(put_str(p, "; in "), c, e);
}

/*
 * A member ",\"key\":" then the value (the caller writes the first key).
 * KEY is a literal: its length is known when compiling, so the copy is a
 * few moves rather than strlen() and memcpy() per member.
 */
#define json_key(p, key) put_mem(p, ",\"" key "\":", sizeof(",\"" key "\":") - 1)
#define json_u64(p, key, v) put_u64(json_key(p, key), v)

static char *json_preemptor(char *p, const struct trace_record *e)
{
	char comm[TRACE_COMM_BUF];

	p = json_u64(p, "preempt_pid", e->preempt_pid);
	p = put_json_str(json_key(p, "preempt_comm"), trace_comm(e, comm));
	p = put_str(json_key(p, "preempt_vcpu"),
		    e->flags & HVTRACE_EVF_PREEMPT_VCPU ? "true" : "false");
	return json_u64(p, "preempt_ns", e->preempt_ns);
}

/*
 * The keys of ABI 1 traces first, as they were; then the time split, and
 * the preemptor where one is noted (always, for a preemption record).
 */
static char *json_line(char *p, struct dump_ctx *c, const struct trace_event *ev)
{
	const struct trace_record *e = &ev->e;
	bool pre = trace_is_preempt(ev);

	p = put_str(p, pre ? "{\"type\":\"preempt\"" : "{\"type\":\"exit\"");
	p = json_u64(p, "ts_ns", trace_exit_ns(ev));
	p = json_u64(p, "entry_ns", ev->ts_ns);
	p = json_u64(p, "duration_ns", e->duration_ns);
	p = put_json_str(json_key(p, "reason"), reason_label(c, e));
	p = json_u64(p, "isa", e->isa);
	p = json_u64(p, "code", e->reason);
	p = json_u64(p, "info1", e->info1);
	p = json_u64(p, "info2", e->info2);
	p = json_u64(p, "intr_info", e->intr_info);
	p = json_u64(p, "error_code", e->error_code);
	if (e->flags & HVTRACE_EVF_ADDR_GPA)
		p = json_u64(p, "gpa", e->addr);
	if (e->flags & HVTRACE_EVF_ADDR_MSR)
		p = json_u64(p, "msr", e->addr);
	if (e->flags & HVTRACE_EVF_RIP_VALID)
		p = json_u64(p, "rip", e->rip);
	p = put_json_str(json_key(p, "vm"), vm_label(c, e));
	p = json_u64(p, "vm_id", e->vm_id);
	p = json_u64(p, "vm_pid", e->vm_pid);
	p = json_u64(p, "vcpu", e->vcpu_id);
	p = json_u64(p, "tid", e->tid);
	p = json_u64(p, "cpu_exit", e->cpu_exit);
	p = json_u64(p, "cpu", ev->cpu);
	p = json_u64(p, "seq", e->seq);
	p = json_u64(p, "flags", e->flags);
	p = json_u64(p, "handling_ns", e->handling_ns);
	p = json_u64(p, "vmm_ns", e->part_ns[HVTRACE_PART_VMM]);
	p = json_u64(p, "halt_ns", e->part_ns[HVTRACE_PART_HALT]);
	p = json_u64(p, "runnable_ns", e->part_ns[HVTRACE_PART_RUNNABLE]);
	p = json_u64(p, "other_ns", e->part_ns[HVTRACE_PART_OTHER]);
	p = json_u64(p, "guest_ns", e->guest_ns);
	if (e->flags & HVTRACE_EVF_NO_ENTRY)
		p = put_str(json_key(p, "no_entry"), "true");
	if (pre || e->preempt_pid)
		p = json_preemptor(p, e);
	*p++ = '}';
	return p;
}

static char *csv_u64(char *p, uint64_t v)
{
	p = put_u64(p, v);
	*p++ = ',';
	return p;
}

static char *csv_hex(char *p, uint64_t v)
{
	p = put_hex(p, v);
	*p++ = ',';
	return p;
}

/* Columns as csv_header; the empty string where a field does not apply. */
static char *csv_line(char *p, struct dump_ctx *c, const struct trace_event *ev)
{
	const struct trace_record *e = &ev->e;
	char comm[TRACE_COMM_BUF];

	p = csv_u64(p, trace_exit_ns(ev));
	p = csv_u64(p, ev->ts_ns);
	p = csv_u64(p, e->duration_ns);
	p = put_str(p, reason_label(c, e));
	*p++ = ',';
	p = csv_u64(p, e->isa);
	p = csv_u64(p, e->reason);
	p = csv_hex(p, e->info1);
	p = csv_hex(p, e->info2);
	p = csv_hex(p, e->intr_info);
	p = csv_hex(p, e->error_code);
	if (e->flags & HVTRACE_EVF_ADDR_GPA)
		p = put_hex(p, e->addr);
	*p++ = ',';
	if (e->flags & HVTRACE_EVF_ADDR_MSR)
		p = put_hex(p, e->addr);
	*p++ = ',';
	if (e->flags & HVTRACE_EVF_RIP_VALID)
		p = put_hex(p, e->rip);
	*p++ = ',';
	p = put_csv_str(p, vm_label(c, e));
	*p++ = ',';
	p = csv_u64(p, e->vm_id);
	p = csv_u64(p, e->vm_pid);
	p = csv_u64(p, e->vcpu_id);
	p = csv_u64(p, e->tid);
	p = csv_u64(p, e->cpu_exit);
	p = csv_u64(p, ev->cpu);
	p = csv_u64(p, e->seq);
	p = csv_hex(p, e->flags);
	p = put_str(p, trace_is_preempt(ev) ? "preempt," : "exit,");
	p = csv_u64(p, e->handling_ns);
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		p = csv_u64(p, e->part_ns[i]);
	p = csv_u64(p, e->guest_ns);
	if (!trace_is_preempt(ev) && !e->preempt_pid)
		return put_str(p, ",,,");
	p = csv_u64(p, e->preempt_pid);
	p = put_csv_str(p, trace_comm(e, comm));
	*p++ = ',';
	p = put_str(p, e->flags & HVTRACE_EVF_PREEMPT_VCPU ? "1," : "0,");
	return put_u64(p, e->preempt_ns);
}

static void print_event(struct dump_ctx *c, const struct trace_event *ev)
{
	char line[LINE_MAX_LEN], *p;

	switch (c->fmt) {
	case FMT_JSON:
		p = json_line(line, c, ev);
		break;
	case FMT_CSV:
		p = csv_line(line, c, ev);
		break;
	default:
		p = trace_is_preempt(ev) ? text_preempt_line(line, c, ev) :
					   text_line(line, c, ev);
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

static int dump(const char *dir, enum dump_format fmt, unsigned int flags)
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
	c.r = r;
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (fmt == FMT_CSV)
		fputs(csv_header, stdout);
	while ((ret = trace_next(r, &ev)) > 0)
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

static int dump_run(int argc, char **argv)
{
	enum dump_format fmt = hvctl_json ? FMT_JSON : FMT_TEXT;
	const char *dir = NULL, *f = NULL;
	bool strict = false;
	const struct hvctl_opt opts[] = {
		{ "--format", &f, NULL },
		{ "--strict", NULL, &strict },
		{ NULL, NULL, NULL },
	};
	int ret;

	if (hvctl_want_help(&hvctl_cmd_dump, argc, argv))
		return 0;
	ret = hvctl_dir_and_options(&hvctl_cmd_dump, argc, argv, opts, &dir);
	if (ret)
		return ret;
	if (f && !strcmp(f, "text"))
		fmt = FMT_TEXT;
	else if (f && !strcmp(f, "json"))
		fmt = FMT_JSON;
	else if (f && !strcmp(f, "csv"))
		fmt = FMT_CSV;
	else if (f)
		return hvctl_usage_err(&hvctl_cmd_dump,
				       "unknown format '%s' (text, json or csv)", f);
	return dump(dir, fmt, strict ? TRACE_STRICT : 0);
}

const struct hvctl_cmd hvctl_cmd_dump = {
	.name = "dump",
	.run = dump_run,
	.usage = "DIR [--format text|json|csv] [--strict]",
	.summary = "print every event of a recorded trace, one a line\n"
		   "Exits with where their time went (handling, vmm, halt,\n"
		   "preempted, other; guest time before) and who preempted them;\n"
		   "preemption records as \"preempted\" lines. Events come in\n"
		   "re-entry order; the time shown (ts_ns) is the exit (switch-out),\n"
		   "re-entry minus duration. json (also -j): one object a line;\n"
		   "csv: a header line, addresses and flags in 0x hex. Damaged\n"
		   "packets are skipped with a warning; --strict makes any damage\n"
		   "an error",
};
