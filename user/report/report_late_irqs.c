// SPDX-License-Identifier: GPL-2.0
/*
 * The report's late interrupts (report_late_irqs.h). A line says when
 * the interrupt was raised, to which vCPU, its vector and source, how
 * late it was injected, the exit the injecting entry ended, and why: the
 * part of the wait that holds most of it, computed from the record's
 * split and who ran instead (irq_why.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "exit_reasons.h"
#include "output.h"
#include "report_late_irqs.h"
#include "time_parts.h"

_Static_assert((int)REP_NR_PARTS == (int)IRQ_P_GUEST &&
	       (int)REP_RUNNABLE == (int)IRQ_P_RUNNABLE,
	       "a rep_irq's parts are irq_part's, the guest apart");

/* JSON's times, signed from the start, are written before the cells. */
enum {
	LC_TIME, LC_VM, LC_VM_ID, LC_VM_PID, LC_VCPU,
	LC_TID, LC_CPU, LC_VECTOR_TEXT, LC_VECTOR, LC_SOURCE, LC_LATENCY,
	LC_EXIT, LC_WHY, LC_NR
};

static const struct out_col late_cols[LC_NR] = {
	[LC_TIME] = { NULL, "time", 10, OUT_STR },
	[LC_VM] = { "vm", "vm", -20, OUT_STR, .prec = 20 },
	[LC_VM_ID] = { "vm_id", NULL, 0, OUT_U64 },
	[LC_VM_PID] = { "vm_pid", NULL, 0, OUT_U64 },
	[LC_VCPU] = { "vcpu", "vcpu", 4, OUT_U64 },
	[LC_TID] = { "tid", NULL, 0, OUT_U64 },
	[LC_CPU] = { "cpu", NULL, 0, OUT_U64 },
	[LC_VECTOR_TEXT] = { NULL, "vector", -6, OUT_STR },
	[LC_VECTOR] = { "vector", NULL, 0, OUT_U64 },
	[LC_SOURCE] = { "source", "source", -6, OUT_STR },
	[LC_LATENCY] = { "latency_ns", "latency", 9, OUT_DUR },
	[LC_EXIT] = { "exit", "exit", -20, OUT_STR },
	[LC_WHY] = { "why", "why", 0, OUT_STR },
};

enum {
	RC_VM, RC_VM_TEXT, RC_VM_ID, RC_VM_PID, RC_VCPU, RC_VECTOR_TEXT, RC_VECTOR,
	RC_SOURCES, RC_COUNT, RC_TOTAL, RC_MAX, RC_GAP, RC_MOSTLY, RC_NR
};

static const struct out_col row_cols[RC_NR] = {
	/* The other row says so in text, by its key in JSON. */
	[RC_VM] = { "vm", NULL, 0, OUT_STR },
	[RC_VM_TEXT] = { NULL, "vm", -20, OUT_STR, .prec = 20 },
	[RC_VM_ID] = { "vm_id", NULL, 0, OUT_U64 },
	[RC_VM_PID] = { "vm_pid", NULL, 0, OUT_U64 },
	[RC_VCPU] = { "vcpu", "vcpu", 4, OUT_U64 },
	[RC_VECTOR_TEXT] = { NULL, "vector", -6, OUT_STR },
	[RC_VECTOR] = { "vector", NULL, 0, OUT_U64 },
	/* JSON: an array of its own, written before the cells. */
	[RC_SOURCES] = { NULL, "sources", -9, OUT_STR },
	[RC_COUNT] = { "count", "count", 9, OUT_U64 },
	[RC_TOTAL] = { "total_ns", "total", 10, OUT_DUR },
	[RC_MAX] = { "max_ns", "max", 9, OUT_DUR },
	/* An empty column: two spaces before the last one. */
	[RC_GAP] = { NULL, "", 0, OUT_STR },
	[RC_MOSTLY] = { NULL, "mostly", 0, OUT_STR },
};

void rep_irq_wait(struct irq_wait *w, const struct rep_irq *q)
{
	for (int i = 0; i < REP_NR_PARTS; i++)
		w->part_ns[i] = q->part_ns[i];
	w->part_ns[IRQ_P_GUEST] = q->guest_ns;
	w->isa = q->isa;
	w->exit_reason = q->exit_reason;
	w->pre_pid = q->preempt_pid;
	w->pre_vcpu = q->preempt_vcpu;
	w->pre_comm = q->preempt_comm;
}

void rep_irq_row_wait(struct irq_wait *w, const struct rep_irq_row *r)
{
	*w = (struct irq_wait){ .pre_comm = "" };
	for (int i = 0; i < REP_NR_PARTS; i++)
		w->part_ns[i] = r->part_ns[i];
	w->part_ns[IRQ_P_GUEST] = r->guest_ns;
}

const char *rep_irq_time(char *buf, size_t len, const struct report *rep,
			 uint64_t ts)
{
	uint64_t first = report_summary(rep)->info.first_ts;
	uint64_t d = ts >= first ? ts - first : first - ts;

	snprintf(buf, len, "%s%" PRIu64 ".%06" PRIu64 "s", ts >= first ? "" :
		 "-", d / 1000000000, d % 1000000000 / 1000);
	return buf;
}

/* JSON: the wait's parts, then its largest. */
static void wait_json(struct out *o, const struct irq_wait *w,
		      uint64_t guest_ns)
{
	enum irq_part p = irq_wait_part(w);

	out_u64(o, "guest_ns", NULL, guest_ns);
	for (int i = 0; i < REP_NR_PARTS; i++)
		out_u64(o, time_part_keys[i], NULL, w->part_ns[i]);
	out_str(o, "delivery_part", NULL, irq_part_key(p));
	out_u64(o, "delivery_part_ns", NULL, w->part_ns[p]);
}

static void late_line(struct out *o, const struct report *rep,
		      const struct rep_irq *q)
{
	struct out_cell c[LC_NR] = { 0 };
	char t[32], vm[64], vec[8], exit[EXIT_LABEL_LEN], why[160];
	uint64_t first = report_summary(rep)->info.first_ts;
	struct irq_wait w;

	rep_irq_wait(&w, q);
	irq_why(why, sizeof(why), &w);
	snprintf(vec, sizeof(vec), "0x%02x", q->vector);
	c[LC_TIME].s = rep_irq_time(t, sizeof(t), rep, q->ts_ns);
	c[LC_VM].s = report_vm_name(rep, q->vm_id, vm, sizeof(vm));
	c[LC_VM_ID].u = q->vm_id;
	c[LC_VM_PID].u = q->vm_pid;
	c[LC_VCPU].u = q->vcpu_id;
	c[LC_TID].u = q->tid;
	c[LC_CPU].u = q->cpu;
	c[LC_VECTOR_TEXT].s = vec;
	c[LC_VECTOR].u = q->vector;
	c[LC_SOURCE].s = irq_source_word(q->source);
	c[LC_LATENCY].u = q->ns;
	c[LC_EXIT].s = exit_reason_label(exit, sizeof(exit), q->isa,
					 q->exit_reason);
	c[LC_WHY].s = why;
	out_open_object(o, NULL);
	out_u64(o, "ts_ns", NULL, q->ts_ns);
	out_i64(o, "from_start_ns", NULL, (int64_t)(q->ts_ns - first));
	out_cells(o, late_cols, c, LC_NR);
	wait_json(o, &w, q->guest_ns);
	/* Who ran most of the longest runnable stretch, that long. */
	out_ran_instead(o, "preemptor", w.pre_pid, w.pre_comm, w.pre_vcpu,
			q->preempt_ns);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

/* The longest TOP, and how many more. */
static void longest(struct out *o, const struct report *rep,
		    const struct rep_irqs *irqs, unsigned int top)
{
	unsigned int shown = irqs->kept < top ? irqs->kept : top;
	uint64_t more = irqs->count - shown;
	char d[DURATION_LEN];

	if (!o->json)
		fprintf(o->f, "\nLate interrupts, the %u longest of %" PRIu64
			" (raise to injection; time: the raise, from the "
			"trace's start)\n", shown, irqs->count);
	out_heading(o, late_cols, LC_NR);
	out_open_array(o, "entries");
	for (unsigned int i = 0; i < shown; i++)
		late_line(o, rep, &irqs->longest[i]);
	out_close_array(o);
	out_u64(o, "omitted", NULL, more);
	if (o->json || !more)
		return;
	/* The list is longest first: the rest are no longer than its last. */
	fprintf(o->f, "(%" PRIu64 " more late interrupt%s, none longer than "
		"%s", more, more == 1 ? "" : "s",
		duration_str(d, shown ? irqs->longest[shown - 1].ns : 0));
	if (shown == irqs->kept && shown < top)
		fprintf(o->f, "; the report keeps the %u longest",
			REP_MAX_IRQS);
	fprintf(o->f, ")\n");
}

/* "runnable 80.0%": the part holding most of the row's time. */
static const char *mostly(char *buf, size_t len, const struct rep_irq_row *r,
			  const struct irq_wait *w)
{
	enum irq_part p = irq_wait_part(w);

	snprintf(buf, len, "%s %.1f%%", irq_part_word(p),
		 time_share(w->part_ns[p], r->total_ns));
	return buf;
}

/* Row R (the other row: OTHER set). */
static void row_line(struct out *o, const struct report *rep,
		     const struct out_col *cols, const struct rep_irq_row *r,
		     bool other)
{
	struct out_cell c[RC_NR] = { 0 };
	char vm[64], vec[8], src[IRQ_SOURCES_LEN], most[48];
	struct irq_wait w;

	rep_irq_row_wait(&w, r);
	snprintf(vec, sizeof(vec), "0x%02x", r->vector);
	c[RC_VM] = (struct out_cell){
		.s = report_vm_name(rep, r->vm_id, vm, sizeof(vm)),
		.absent = other,
	};
	c[RC_VM_TEXT].s = other ? "other" : vm;
	c[RC_VM_ID] = (struct out_cell){ .u = r->vm_id, .absent = other };
	c[RC_VM_PID] = (struct out_cell){ .u = r->vm_pid, .absent = other };
	c[RC_VCPU] = (struct out_cell){ .u = r->vcpu_id, .absent = other };
	c[RC_VECTOR_TEXT].s = other ? "" : vec;
	c[RC_VECTOR] = (struct out_cell){ .u = r->vector, .absent = other };
	c[RC_SOURCES].s = irq_sources_text(src, sizeof(src), r->sources);
	c[RC_COUNT].u = r->count;
	c[RC_TOTAL].u = r->total_ns;
	c[RC_MAX].u = r->max_ns;
	c[RC_GAP].s = "";
	c[RC_MOSTLY].s = mostly(most, sizeof(most), r, &w);
	out_open_object(o, other ? "other" : NULL);
	if (o->json && !other) {
		out_open_array(o, "sources");
		for (unsigned int i = 0; i < IRQ_NR_SOURCES; i++)
			if (r->sources & irq_source_bit(i))
				out_str(o, NULL, NULL,
					irq_source_word(irq_source_bit(i)));
		out_close_array(o);
	}
	out_cells(o, cols, c, RC_NR);
	wait_json(o, &w, r->guest_ns);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

/* Per (vCPU, vector), the TOP by time; the keys past the table apart. */
static void rows(struct out *o, const struct report *rep,
		 const struct rep_irqs *irqs, unsigned int top)
{
	unsigned int shown = irqs->nr_rows < top ? irqs->nr_rows : top;
	struct out_col cols[RC_NR];
	char src[IRQ_SOURCES_LEN];

	memcpy(cols, row_cols, sizeof(cols));
	for (unsigned int i = 0; i < shown; i++)
		out_fit(&cols[RC_SOURCES], irq_sources_text(src, sizeof(src),
					irqs->rows[i]->sources));
	out_open_object(o, "vectors");
	out_u64(o, "capacity", NULL, irqs->limit);
	out_u64(o, "distinct", NULL, irqs->nr_rows);
	if (!o->json)
		fprintf(o->f, "\nLate interrupts per vCPU and vector, by time "
			"(mostly: the part of the wait that holds most of "
			"their time)\n");
	out_heading(o, cols, RC_NR);
	out_open_array(o, "entries");
	for (unsigned int i = 0; i < shown; i++)
		row_line(o, rep, cols, irqs->rows[i], false);
	out_close_array(o);
	out_u64(o, "omitted", NULL, irqs->nr_rows - shown);
	if (!o->json && irqs->nr_rows > shown)
		fprintf(o->f, "(%u more (vCPU, vector) rows)\n",
			irqs->nr_rows - shown);
	if (irqs->other->count)
		row_line(o, rep, cols, irqs->other, true);
	out_close_object(o);
	if (!o->json && irqs->other->count)
		fprintf(o->f, "(other: the table holds %u (vCPU, vector) rows; "
			"the late interrupts of further ones are counted "
			"there)\n", irqs->limit);
}

void rep_print_late_irqs(struct out *o, const struct report *rep,
			 unsigned int top)
{
	struct rep_irqs irqs;

	report_irqs(rep, &irqs);
	if (!irqs.count && !o->json)
		return;
	out_open_object(o, "late_interrupts");
	out_u64(o, "count", NULL, irqs.count);
	out_u64(o, "total_ns", NULL, irqs.total_ns);
	out_u64(o, "max_ns", NULL, irqs.max_ns);
	out_u64(o, "kept", NULL, irqs.kept);
	longest(o, rep, &irqs, top);
	rows(o, rep, &irqs, top);
	out_close_object(o);
}
