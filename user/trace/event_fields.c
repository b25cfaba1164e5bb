// SPDX-License-Identifier: GPL-2.0
/*
 * The one table of an event's fields, its JSON writer and the event's
 * text line. Lines are built by hand into the caller's buffer, not with
 * printf per field: a trace easily holds tens of millions of events.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "event_fields.h"
#include "exit_reasons.h"
#include "gpa_class.h"
#include "guest_tsc.h"
#include "put.h"
#include "time_parts.h"
#include "trace_format.h"
#include "trace_read.h"
#include "util.h"

#define F(key, kind, when, member, in) \
	{ key, kind, when, offsetof(struct event_view, member), in, 0 }
#define LEAD(key, kind, member, in, lead) \
	{ key, kind, EF_ALWAYS, offsetof(struct event_view, member), in, lead }
#define PART(key, i) F(key, EF_U64, EF_ALWAYS, part_ns[i], ALL)

#define ALL		(EF_DRAIN | EF_DUMP | EF_CSV | EF_EXPORT)
#define TRACE		(EF_DUMP | EF_CSV)
#define NOT_EXPORT	(EF_DRAIN | EF_DUMP | EF_CSV)

/*
 * In CSV's column order, the columns of ABI 1 traces first. Export's
 * slice has its own ts, pid, tid and name: its args leave those out.
 */
const struct event_field event_fields[] = {
	F("ts_ns", EF_U64, EF_ALWAYS, ts_ns, NOT_EXPORT),
	F("entry_ns", EF_U64, EF_ALWAYS, entry_ns, TRACE),
	F("duration_ns", EF_U64, EF_ALWAYS, duration_ns, ALL),
	F("reason", EF_STR, EF_ALWAYS, reason, NOT_EXPORT),
	F("isa", EF_U64, EF_ALWAYS, isa, ALL),
	F("code", EF_U64, EF_ALWAYS, code, ALL),
	F("info1", EF_HEX, EF_ALWAYS, info1, ALL),
	F("info2", EF_HEX, EF_ALWAYS, info2, ALL),
	F("intr_info", EF_HEX, EF_ALWAYS, intr_info, ALL),
	F("error_code", EF_HEX, EF_ALWAYS, error_code, ALL),
	F("gpa", EF_HEX, EF_GPA, addr, ALL),
	F("msr", EF_HEX, EF_MSR, addr, ALL),
	F("rip", EF_HEX, EF_RIP, rip, ALL),
	F("vm", EF_STR, EF_ALWAYS, vm, TRACE),
	F("vm_id", EF_U64, EF_ALWAYS, vm_id, ALL),
	F("vm_pid", EF_U64, EF_ALWAYS, vm_pid, NOT_EXPORT),
	F("vcpu", EF_U64, EF_ALWAYS, vcpu, ALL),
	F("tid", EF_U64, EF_ALWAYS, tid, NOT_EXPORT),
	F("cpu_exit", EF_U64, EF_ALWAYS, cpu_exit, ALL),
	F("cpu", EF_U64, EF_ALWAYS, cpu, ALL),
	LEAD("seq", EF_U64, seq, ALL, 2),
	F("flags", EF_HEX, EF_ALWAYS, flags, ALL),
	LEAD("type", EF_STR, type, NOT_EXPORT, 1),
	PART("handling_ns", 0),
	PART("vmm_ns", 1 + HVTRACE_PART_VMM),
	PART("halt_ns", 1 + HVTRACE_PART_HALT),
	PART("runnable_ns", 1 + HVTRACE_PART_RUNNABLE),
	PART("other_ns", 1 + HVTRACE_PART_OTHER),
	F("guest_ns", EF_U64, EF_ALWAYS, guest_ns, ALL),
	/* CSV has it in flags: its columns stay those of ABI 1 traces. */
	F("no_entry", EF_BOOL, EF_NO_ENTRY, no_entry, ALL & ~EF_CSV),
	F("preempt_pid", EF_U64, EF_PREEMPTOR, preempt_pid, ALL),
	F("preempt_comm", EF_STR, EF_PREEMPTOR, preempt_comm, ALL),
	F("preempt_vcpu", EF_BOOL, EF_PREEMPTOR, preempt_vcpu, ALL),
	F("preempt_ns", EF_U64, EF_PREEMPTOR, preempt_ns, ALL),
	/* CSV has these in flags too. */
	F("gpa_class", EF_STR, EF_GPA_CLASS, gpa_class, ALL & ~EF_CSV),
	F("mmio_access", EF_STR, EF_MMIO, mmio_access, ALL & ~EF_CSV),
	F("mmio_len", EF_U64, EF_MMIO_LEN, mmio_len, ALL & ~EF_CSV),
	F("device", EF_STR, EF_DEVICE, device, ALL & ~EF_CSV),
	/* Guest marks: past the columns of traces without them. */
	F("mark_id", EF_U64, EF_MARK, mark_id, ALL),
	F("guest_tsc", EF_U64, EF_MARK, guest_tsc, ALL),
	F("guest_tsc_at_exit", EF_U64, EF_MARK, guest_tsc_at_exit, ALL),
	F("host_tsc", EF_U64, EF_MARK, host_tsc, ALL),
	F("tsc_offset", EF_HEX, EF_MARK, tsc_offset, ALL),
	F("tsc_ratio", EF_HEX, EF_MARK, tsc_ratio, ALL),
	F("tsc_frac_bits", EF_U64, EF_MARK, tsc_frac_bits, ALL),
	/* Late interrupts: past the columns of traces without them. */
	F("vector", EF_HEX, EF_IRQ, vector, ALL),
	F("source", EF_STR, EF_IRQ, source, ALL),
};

/* The header's declaration is unsized: the rows give the size. */
static_assert(ARRAY_SIZE(event_fields) == EVENT_NR_FIELDS,
	      "EVENT_NR_FIELDS is not the number of rows of event_fields[]");

unsigned int event_fields_pick(const struct event_field **pick,
			       unsigned int set)
{
	/* JSON: leads 1 and 2, then the rest; CSV: the rest is all. */
	unsigned int n = 0;

	for (unsigned int lead = set == EF_CSV ? 3 : 1; lead <= 3; lead++)
		for (unsigned int i = 0; i < EVENT_NR_FIELDS; i++) {
			const struct event_field *f = &event_fields[i];

			if ((f->in & set) &&
			    (lead == 3 ? set == EF_CSV || !f->lead :
					 f->lead == lead))
				pick[n++] = f;
		}
	return n;
}

/*
 * The members a ring's event and a trace's record share by name: one
 * copy for both layouts.
 */
#define VIEW_COPY(v, e) do {						\
	(v)->seq = (e)->seq;						\
	(v)->duration_ns = (e)->duration_ns;				\
	(v)->isa = (e)->isa;						\
	(v)->code = (e)->reason;					\
	(v)->info1 = (e)->info1;					\
	(v)->info2 = (e)->info2;					\
	(v)->intr_info = (e)->intr_info;				\
	(v)->error_code = (e)->error_code;				\
	(v)->addr = (e)->addr;						\
	(v)->rip = (e)->rip;						\
	(v)->vm_id = (e)->vm_id;					\
	(v)->vm_pid = (e)->vm_pid;					\
	(v)->vcpu = (e)->vcpu_id;					\
	(v)->tid = (e)->tid;						\
	(v)->cpu_exit = (e)->cpu_exit;					\
	(v)->flags = (e)->flags;					\
	for (int i_ = 0; i_ < HVTRACE_NR_PARTS; i_++)			\
		(v)->part_ns[1 + i_] = (e)->part_ns[i_];		\
	(v)->guest_ns = (e)->guest_ns;					\
	(v)->no_entry = !!((e)->flags & HVTRACE_EVF_NO_ENTRY);		\
	(v)->preempt_pid = (e)->preempt_pid;				\
	(v)->preempt_vcpu = !!((e)->flags & HVTRACE_EVF_PREEMPT_VCPU);	\
	(v)->preempt_ns = (e)->preempt_ns;				\
} while (0)

/*
 * A mark's view: what the guest passed, its clocks (where an exit's parts
 * are, in both layouts: M points at them) and the TSC they give.
 */
#define VIEW_MARK(v, m) do {						\
	(v)->mark_id = (v)->info1;					\
	(v)->guest_tsc = (v)->info2;					\
	(v)->host_tsc = (m).host_tsc;					\
	(v)->tsc_offset = (m).tsc_offset;				\
	(v)->tsc_ratio = (m).tsc_ratio;					\
	(v)->tsc_frac_bits = (m).tsc_frac_bits;				\
	(v)->guest_tsc_at_exit = guest_tsc_at((m).host_tsc,		\
					      (m).tsc_ratio,		\
					      (m).tsc_frac_bits,	\
					      (m).tsc_offset);		\
	memset((v)->part_ns, 0, sizeof((v)->part_ns));			\
} while (0)

/*
 * What an exit's access hit; a preemption's exit is in flight, its
 * accesses not all made: none said.
 */
static void view_gpa_class(struct event_view *v)
{
	bool exit = !v->preempt && !v->mark && !v->irq;

	v->gpa_class = exit ? gpa_class_name(gpa_class_of(v->flags)) : NULL;
	v->mmio_access = exit ? mmio_access_name(v->flags) : NULL;
	v->mmio_len = mmio_len(v->flags);
	v->device = NULL;
}

void event_view_device(struct event_view *v, const struct trace_reader *r)
{
	if (v->gpa_class && (v->flags & HVTRACE_EVF_ADDR_GPA))
		v->device = trace_device(r, v->vm_pid, v->addr);
}

static const char *type_word(unsigned int type)
{
	return type == HVTRACE_EV_PREEMPT ? "preempt" :
	       type == HVTRACE_EV_EXIT ? "exit" :
	       type == HVTRACE_EV_MARK ? "mark" :
	       type == HVTRACE_EV_IRQ ? "irq" : "unknown";
}

const char *event_irq_source(uint64_t source)
{
	switch (source) {
	case HVTRACE_VCPU_IRQ_TIMER:
		return "timer";
	case HVTRACE_VCPU_IRQ_LOCAL:
		return "local";
	case HVTRACE_VCPU_IRQ_IPI:
		return "ipi";
	case HVTRACE_VCPU_IRQ_DEVICE:
		return "device";
	default:
		return "unknown";
	}
}

/*
 * A late interrupt's view: its vector, its source, and its last exit's
 * code where the reason's is (the caller's label names that exit).
 */
static void view_irq(struct event_view *v)
{
	v->vector = v->code;
	v->code = (uint32_t)v->info2;
	v->source = event_irq_source(v->info1);
}

/* What the kinds set alike, from TYPE (HVTRACE_EV_*). */
static void view_kind(struct event_view *v, unsigned int type)
{
	v->type = type_word(type);
	v->preempt = type == HVTRACE_EV_PREEMPT;
	v->mark = type == HVTRACE_EV_MARK;
	v->irq = type == HVTRACE_EV_IRQ;
}

void event_view_ring(struct event_view *v, const struct hvtrace_event *e,
		     const char *reason, const char *vm, const char *comm)
{
	uint64_t wait = e->duration_ns;

	VIEW_COPY(v, e);
	view_kind(v, e->type);
	/* A late interrupt's guest time is in its wait. */
	if (v->irq)
		wait = wait > e->guest_ns ? wait - e->guest_ns : 0;
	/* The ring's time is the start (a raise too); it knows no end. */
	v->ts_ns = e->ts_ns;
	v->entry_ns = 0;
	v->reason = reason;
	v->vm = vm;
	v->cpu = e->cpu_entry;
	v->part_ns[0] = time_handling(wait, e->part_ns);
	v->preempt_comm = comm;
	view_gpa_class(v);
	if (v->mark)
		VIEW_MARK(v, e->mark);
	if (v->irq)
		view_irq(v);
}

void event_view_trace(struct event_view *v, const struct trace_record *e,
		      unsigned int type, uint64_t entry_ns, unsigned int cpu,
		      const char *reason, const char *vm, const char *comm)
{
	VIEW_COPY(v, e);
	view_kind(v, type);
	/* The trace's time is the re-entry's (the reader's order). */
	v->ts_ns = e->duration_ns <= entry_ns ? entry_ns - e->duration_ns : 0;
	v->entry_ns = entry_ns;
	v->reason = reason;
	v->vm = vm;
	v->cpu = cpu;
	v->part_ns[0] = e->handling_ns;
	v->preempt_comm = comm;
	view_gpa_class(v);
	if (v->mark)
		VIEW_MARK(v, e->mark);
	if (v->irq)
		view_irq(v);
}

void event_fmt_init(struct event_fmt *f, unsigned int set)
{
	f->set = set;
	f->n = event_fields_pick(f->fields, set);
	for (unsigned int i = 0; i < f->n; i++) {
		f->key_len[i] = snprintf(f->keys[i], sizeof(f->keys[i]),
					 ",\"%s\":", f->fields[i]->key);
		/* A longer key would be cut, and its members misplaced. */
		assert(f->key_len[i] < sizeof(f->keys[i]));
	}
}

char *event_json_members(char *p, const struct event_fmt *f,
			 const struct event_view *v)
{
	for (unsigned int i = 0; i < f->n; i++) {
		const struct event_field *e = f->fields[i];

		if (!event_field_present(e, v))
			continue;
		/* A constant-size copy is three moves; the line has slack. */
		memcpy(p, f->keys[i], sizeof(f->keys[i]));
		p += f->key_len[i];
		switch (e->kind) {
		case EF_STR:
			p = put_json_str(p, event_field_str(e, v));
			break;
		case EF_BOOL:
			p = put_str(p, event_field_u64(e, v) ? "true" :
							       "false");
			break;
		case EF_HEX:
			/* Perfetto shows args as they are: hex stays hex. */
			if (f->set == EF_EXPORT) {
				*p++ = '"';
				p = put_hex(p, event_field_u64(e, v));
				*p++ = '"';
				break;
			}
			/* fallthrough */
		default:
			p = put_u64(p, event_field_u64(e, v));
			break;
		}
	}
	return p;
}

char *event_json(char *p, const struct event_fmt *f,
		 const struct event_view *v)
{
	char *start = p;

	p = event_json_members(p, f, v);
	/* The first member's comma opens the object (type is always one). */
	*start = '{';
	*p++ = '}';
	return p;
}

const char *event_qualifier(char *buf, size_t len, const struct event_view *v)
{
	const char *q = buf, *sp;

	exit_reason_qualifier(buf, len, v->isa, v->code, v->info1, v->info2);
	if (((v->flags & HVTRACE_EVF_ADDR_GPA) && !strncmp(q, "gpa ", 4)) ||
	    ((v->flags & HVTRACE_EVF_ADDR_MSR) && !strncmp(q, "msr ", 4))) {
		sp = strchr(q + 4, ' ');
		q = sp ? sp + 1 : "";
	}
	return q;
}

/* "[120.443201] vm guest1 pid 4100 vcpu0 cpu3 ": where it happened. */
static char *text_where(char *p, const struct event_view *v)
{
	*p++ = '[';
	p = put_u64(p, v->ts_ns / 1000000000);
	*p++ = '.';
	p = put_digits(p, v->ts_ns % 1000000000 / 1000, 6);
	p = put_str(p, "] vm ");
	p = put_str(p, v->vm);
	p = put_str(p, " pid ");
	p = put_u64(p, v->vm_pid);
	p = put_str(p, " vcpu");
	p = put_u64(p, v->vcpu);
	/* A preemption's time is the switch-out: so is its CPU. */
	p = put_str(p, " cpu");
	p = put_u64(p, v->preempt ? v->cpu_exit : v->cpu);
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
	if (v->gpa_class) {
		*p++ = ' ';
		p = put_str(p, v->gpa_class);
	}
	if (v->device) {
		p = put_str(p, " (");
		p = put_str(p, v->device);
		*p++ = ')';
	}
	if (v->mmio_access) {
		*p++ = ' ';
		if (v->mmio_len)
			p = put_str(put_u64(p, v->mmio_len), "-byte ");
		p = put_str(p, v->mmio_access);
	}
	if (v->flags & HVTRACE_EVF_RIP_VALID) {
		p = put_str(p, " rip ");
		p = put_hex(p, v->rip);
	}
	return p;
}

static char *text_preemptor(char *p, const struct event_view *v)
{
	return put_preemptor(p, v->preempt_comm, v->preempt_pid,
			     v->preempt_vcpu);
}

/* ": handling ... guest ...; preempted by ...": where the time went. */
static char *text_split(char *p, const struct event_view *v)
{
	*p++ = ':';
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

/* An exit: its duration, where it went, who ran instead. */
static char *text_exit_line(char *p, const struct event_view *v)
{
	p = text_exit(text_where(p, v), v);
	*p++ = ' ';
	p = duration_put(p, v->duration_ns);
	/* Its vCPU was destroyed first: the duration runs to that. */
	if (v->no_entry)
		p = put_str(p, " never re-entered");
	return text_split(p, v);
}

/*
 * A late interrupt: its vector and source, its wait from the raise to
 * the injection, its last exit, then where the wait went.
 */
static char *text_irq_line(char *p, const struct event_view *v)
{
	p = put_hex(put_str(text_where(p, v), "irq "), v->vector);
	p = put_str(put_str(p, " "), v->source);
	p = duration_put(put_str(p, " late "), v->duration_ns);
	p = put_str(put_str(p, " after "), v->reason);
	return text_split(p, v);
}

/*
 * A preemption record: the time is the switch-out, the duration the time
 * off CPU, then the exit in flight.
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
 * A guest mark: its id and RIP, the TSC the guest passed, and the one the
 * host's gives at the exit with how far the guest's lies before it.
 */
static char *text_mark_line(char *p, const struct event_view *v)
{
	int64_t lag = guest_tsc_lag(v->guest_tsc_at_exit, v->guest_tsc);

	p = put_u64(put_str(text_where(p, v), "mark "), v->mark_id);
	if (v->flags & HVTRACE_EVF_RIP_VALID)
		p = put_hex(put_str(p, " rip "), v->rip);
	p = put_u64(put_str(p, " guest tsc "), v->guest_tsc);
	p = put_u64(put_str(p, " (at the exit: "), v->guest_tsc_at_exit);
	p = put_str(p, lag < 0 ? ", -" : ", +");
	/* The magnitude, -INT64_MIN included. */
	p = put_u64(p, lag < 0 ? -(uint64_t)lag : (uint64_t)lag);
	return put_str(p, " cycles)");
}

char *event_text(char *p, const struct event_view *v)
{
	if (v->mark)
		return text_mark_line(p, v);
	if (v->irq)
		return text_irq_line(p, v);
	return v->preempt ? text_preempt_line(p, v) : text_exit_line(p, v);
}
