// SPDX-License-Identifier: GPL-2.0
/* The one table of an event's fields, and its JSON writer. */
#include <assert.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "event_fields.h"
#include "exit_reasons.h"
#include "output.h"
#include "time_parts.h"
#include "trace_format.h"
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

void event_view_ring(struct event_view *v, const struct hvtrace_event *e,
		     const char *reason, const char *comm)
{
	VIEW_COPY(v, e);
	v->type = e->type == HVTRACE_EV_PREEMPT ? "preempt" :
		  e->type == HVTRACE_EV_EXIT ? "exit" : "unknown";
	v->preempt = e->type == HVTRACE_EV_PREEMPT;
	/* The ring's time is the exit's; it knows nothing of the entry. */
	v->ts_ns = e->ts_ns;
	v->entry_ns = 0;
	v->reason = reason;
	v->vm = "";
	v->cpu = e->cpu_entry;
	v->part_ns[0] = time_handling(e->duration_ns, e->part_ns);
	v->preempt_comm = comm;
}

void event_view_trace(struct event_view *v, const struct trace_record *e,
		      bool preempt, uint64_t entry_ns, unsigned int cpu,
		      const char *reason, const char *vm, const char *comm)
{
	VIEW_COPY(v, e);
	v->type = preempt ? "preempt" : "exit";
	v->preempt = preempt;
	/* The trace's time is the re-entry's (the reader's order). */
	v->ts_ns = e->duration_ns <= entry_ns ? entry_ns - e->duration_ns : 0;
	v->entry_ns = entry_ns;
	v->reason = reason;
	v->vm = vm;
	v->cpu = cpu;
	v->part_ns[0] = e->handling_ns;
	v->preempt_comm = comm;
}

void event_out_members(struct out *o, const struct event_view *v,
		       unsigned int set)
{
	const struct event_field *pick[EVENT_NR_FIELDS];
	unsigned int n = event_fields_pick(pick, set);
	char hex[24];

	for (unsigned int i = 0; i < n; i++) {
		const struct event_field *f = pick[i];

		if (!event_field_present(f, v))
			continue;
		switch (f->kind) {
		case EF_STR:
			out_str(o, f->key, NULL, event_field_str(f, v));
			break;
		case EF_BOOL:
			out_bool(o, f->key, NULL, event_field_u64(f, v));
			break;
		case EF_HEX:
			/* Perfetto shows args as they are: hex stays hex. */
			if (set == EF_EXPORT) {
				snprintf(hex, sizeof(hex), "0x%" PRIx64,
					 event_field_u64(f, v));
				out_str(o, f->key, NULL, hex);
				break;
			}
			/* fallthrough */
		default:
			out_u64(o, f->key, NULL, event_field_u64(f, v));
			break;
		}
	}
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
