// SPDX-License-Identifier: GPL-2.0
/* hvctl stat --vcpus: the interrupts delivered to each vCPU (stat_irq.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "put.h"
#include "stat_irq.h"
#include "time_parts.h"
#include "util.h"

/*
 * A row of deliveries. Text names the vCPU, the vector and its sources in
 * cells, JSON the vector and sources in members of their own (a number or
 * null, an array) written before the cells, the vCPU by the object the
 * row is in; the first column's heading is the table's title.
 */
enum irq_col { IC_VCPU, IC_VECTOR, IC_SOURCE, IC_COUNT, IC_TOTAL, IC_AVG,
	       IC_P50, IC_P99, IC_P999, IC_MAX, IC_NR };

static const struct out_col irq_cols[IC_NR] = {
	/* As wide as the time split's first column, wider when it must. */
	[IC_VCPU] = { NULL, "interrupt delivery", -24, OUT_STR },
	[IC_VECTOR] = { NULL, "vector", -10, OUT_STR },
	/* As wide as "local+ipi", wider when a row's sources need it. */
	[IC_SOURCE] = { NULL, "source", -9, OUT_STR },
	[IC_COUNT] = { "count", "count", 12, OUT_U64 },
	[IC_TOTAL] = { "total_ns", NULL, 0, OUT_U64 },
	[IC_AVG] = { "avg_ns", "avg", 9, OUT_DUR },
	/* A module's quarter-octave buckets' middles: absent, "-", without. */
	[IC_P50] = { "p50_ns", "p50", 9, OUT_DUR },
	[IC_P99] = { "p99_ns", "p99", 9, OUT_DUR },
	[IC_P999] = { "p999_ns", "p99.9", 9, OUT_DUR },
	[IC_MAX] = { "max_ns", "max", 9, OUT_DUR },
};

void stat_vcpu_label(char *buf, size_t len, const struct hvc_vcpu_row *v)
{
	snprintf(buf, len, "vm %u vcpu %u%s", v->vm_id, v->vcpu_id,
		 v->gone ? " (gone)" : "");
}

/*
 * The sources hvctl knows, in the order they are named: from the vCPU's
 * own to the farthest, its timer first (stat_irq.h).
 */
enum irq_source { IS_TIMER, IS_LOCAL, IS_IPI, IS_DEVICE, IS_NR };

static const char *const source_names[IS_NR] = {
	[IS_TIMER] = "timer",
	[IS_LOCAL] = "local",
	[IS_IPI] = "ipi",
	[IS_DEVICE] = "device",
};

/* The longest name of sources, and its NUL. */
#define SOURCE_LEN	sizeof("timer+local+ipi+device")

static bool has_source(const struct hvc_vcpu_irq *r, enum irq_source i)
{
	const bool on[IS_NR] = {
		[IS_TIMER] = r->timer,
		[IS_LOCAL] = r->local,
		[IS_IPI] = r->ipi,
		[IS_DEVICE] = r->device,
	};

	return on[i];
}

/*
 * The known sources joined with '+' into BUF ("timer+device"); "unknown"
 * for flags of a newer module's only.
 */
static const char *source_name(char *buf, size_t len,
			       const struct hvc_vcpu_irq *r)
{
	size_t n = 0;

	for (int i = 0; i < IS_NR && n < len; i++)
		if (has_source(r, i))
			n += snprintf(buf + n, len - n, "%s%s", n ? "+" : "",
				      source_names[i]);
	if (n)
		return buf;
	return r->unknown ? "unknown" : "-";
}

/* Handling of R's time: what neither the guest nor the parts hold. */
static uint64_t irq_exit_ns(const struct hvc_vcpu_irq *r)
{
	return r->total_ns > r->guest_ns ? r->total_ns - r->guest_ns : 0;
}

/*
 * JSON: where R's time went, "guest_ns" then the exit's parts as the
 * time split names them, and "preemptor"; all null from a module that
 * does not say.
 */
static void split_json(struct out *o, const struct hvc_vcpu_irq *r)
{
	if (!o->json)
		return;
	if (!r->has_split) {
		out_null(o, "guest_ns");
		for (int i = 0; i <= HVTRACE_NR_PARTS; i++)
			out_null(o, time_part_keys[i]);
		out_null(o, "preemptor");
		return;
	}
	out_u64(o, "guest_ns", NULL, r->guest_ns);
	out_time_parts(o, irq_exit_ns(r), r->part_ns);
	/* The longest runnable wait: who ran most of it, if known. */
	out_ran_instead(o, "preemptor", r->pre_ns ? r->pre_pid : 0,
			r->pre_comm, r->pre_vcpu, r->pre_ns);
}

/* R, a row of the vCPU LABEL (text only). */
static void print_irq(struct out *o, const struct out_col *cols,
		      const struct hvc_vcpu_irq *r, const char *label)
{
	char source[SOURCE_LEN];
	struct out_cell c[IC_NR] = {
		[IC_VCPU].s = label,
		[IC_SOURCE].s = source_name(source, sizeof(source), r),
		[IC_COUNT].u = r->count,
		[IC_TOTAL].u = r->total_ns,
		[IC_AVG].u = r->count ? r->total_ns / r->count : 0,
		[IC_P50] = { .u = r->p50_ns, .absent = !r->has_pct },
		[IC_P99] = { .u = r->p99_ns, .absent = !r->has_pct },
		[IC_P999] = { .u = r->p999_ns, .absent = !r->has_pct },
		[IC_MAX].u = r->max_ns,
	};
	char vector[16];

	snprintf(vector, sizeof(vector), "%u (0x%02x)", r->vector, r->vector);
	c[IC_VECTOR].s = r->other ? "other" : vector;
	out_open_object(o, NULL);
	/* The other vectors have no number: null, not a vector 0. */
	if (r->other)
		out_null(o, "vector");
	else
		out_u64(o, "vector", NULL, r->vector);
	/* Only the sources hvctl knows: unknown ones have no name. */
	out_open_array(o, "sources");
	for (int i = 0; i < IS_NR; i++)
		if (has_source(r, i))
			out_str(o, NULL, NULL, source_names[i]);
	out_close_array(o);
	out_cells(o, cols, c, IC_NR);
	split_json(o, r);
	out_close_object(o);
	if (!o->json)
		fputc('\n', o->f);
}

void stat_irq_json(struct out *o, const struct hvc_vcpu_row *v)
{
	if (!o->json)
		return;
	out_open_array(o, "irqs");
	for (unsigned int i = 0; i < v->nr_irqs; i++)
		print_irq(o, irq_cols, &v->irqs[i], "");
	out_close_array(o);
	out_u64(o, "irq_unmatched", NULL, v->irq_unmatched);
	out_u64(o, "irq_reinjected", NULL, v->irq_reinjected);
	out_u64(o, "irq_posted", NULL, v->irq_posted);
}

/*
 * "not timed: unmatched 7, reinjected 2, posted 5 (on 3 vCPUs)": the
 * counts of all S's vCPUs, those not 0, and how many vCPUs have any.
 */
static void print_untimed(struct out *o, const struct hvc_stats *s)
{
	struct {
		const char *name;
		uint64_t n;
	} untimed[] = {
		{ "unmatched", 0 }, { "reinjected", 0 }, { "posted", 0 },
	};
	const char *sep = "not timed: ";
	unsigned int vcpus = 0;

	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];

		untimed[0].n += v->irq_unmatched;
		untimed[1].n += v->irq_reinjected;
		untimed[2].n += v->irq_posted;
		vcpus += v->irq_unmatched || v->irq_reinjected ||
			 v->irq_posted;
	}
	for (unsigned int i = 0; i < ARRAY_SIZE(untimed); i++) {
		if (!untimed[i].n)
			continue;
		fprintf(o->f, "%s%s %" PRIu64, sep, untimed[i].name,
			untimed[i].n);
		sep = ", ";
	}
	if (vcpus)
		fprintf(o->f, " (on %u vCPU%s)\n", vcpus,
			vcpus == 1 ? "" : "s");
}

/* "0xec": a row's vector, short, for the split's first column. */
static void vector_label(char *buf, size_t len, const struct hvc_vcpu_irq *r)
{
	if (r->other)
		snprintf(buf, len, "other");
	else
		snprintf(buf, len, "0x%02x", r->vector);
}

/*
 * Text: where each row's time went, as stat's vcpu time split shows a
 * vCPU's: in the guest before the exit that delivered it, then that
 * exit's parts; and who ran during the longest runnable wait.
 */
static void print_split_table(struct out *o, const struct hvc_stats *s)
{
	char label[64], name[48], vector[8], dur[DURATION_LEN];
	char pre[PREEMPTOR_LEN];
	int width = sizeof("interrupt wait split");
	bool any = false;

	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];

		stat_vcpu_label(name, sizeof(name), v);
		for (unsigned int j = 0; j < v->nr_irqs; j++) {
			if (!v->irqs[j].has_split)
				continue;
			any = true;
			vector_label(vector, sizeof(vector), &v->irqs[j]);
			snprintf(label, sizeof(label), "%s %s", name, vector);
			if ((int)strlen(label) > width)
				width = strlen(label);
		}
	}
	if (!any)
		return;
	fprintf(o->f, "\n%-*s", width, "interrupt wait split");
	time_split_head(o, "guest", true);
	time_split_heading(o, true);
	fprintf(o->f, "  longest runnable wait\n");
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];

		stat_vcpu_label(name, sizeof(name), v);
		for (unsigned int j = 0; j < v->nr_irqs; j++) {
			const struct hvc_vcpu_irq *r = &v->irqs[j];
			uint64_t ns[HVTRACE_NR_PARTS + 1];

			if (!r->has_split)
				continue;
			vector_label(vector, sizeof(vector), r);
			snprintf(label, sizeof(label), "%s %s", name, vector);
			fprintf(o->f, "%-*s", width, label);
			time_split_cell(o, r->guest_ns, r->total_ns, true);
			ns[0] = time_handling(irq_exit_ns(r), r->part_ns);
			for (int k = 0; k < HVTRACE_NR_PARTS; k++)
				ns[1 + k] = r->part_ns[k];
			time_split_cells(o, ns, r->total_ns, true);
			if (r->pre_ns) {
				*put_preemptor(pre, r->pre_comm, r->pre_pid,
					       r->pre_vcpu) = '\0';
				fprintf(o->f, "  %s %s",
					duration_str(dur, r->pre_ns),
					r->pre_pid ? pre : "(nobody known)");
			}
			fputc('\n', o->f);
		}
	}
}

static bool has_irqs(const struct hvc_vcpu_row *v)
{
	return v->nr_irqs || v->irq_unmatched || v->irq_reinjected ||
	       v->irq_posted;
}

/*
 * One table for every vCPU, so that a host of hundreds of vCPUs (each
 * with unmatched injections from its virtio devices) gets one heading,
 * lines of what was timed only, and one line of what was not.
 */
void stat_irq_table(struct out *o, const struct hvc_stats *s)
{
	struct out_col cols[IC_NR];
	char label[48], source[SOURCE_LEN];
	bool any = false, pct = false;

	if (o->json)
		return;
	memcpy(cols, irq_cols, sizeof(cols));
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];

		any |= has_irqs(v);
		if (!v->nr_irqs)
			continue;
		stat_vcpu_label(label, sizeof(label), v);
		out_fit(&cols[IC_VCPU], label);
		for (unsigned int j = 0; j < v->nr_irqs; j++) {
			out_fit(&cols[IC_SOURCE],
				source_name(source, sizeof(source),
					    &v->irqs[j]));
			pct |= v->irqs[j].has_pct;
		}
	}
	if (!any)
		return;
	/* An older module's: no columns of dashes. */
	for (int c = IC_P50; !pct && c <= IC_P999; c++)
		cols[c].head = NULL;
	fputc('\n', o->f);
	out_heading(o, cols, IC_NR);
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];

		stat_vcpu_label(label, sizeof(label), v);
		for (unsigned int j = 0; j < v->nr_irqs; j++)
			print_irq(o, cols, &v->irqs[j], label);
	}
	print_untimed(o, s);
	print_split_table(o, s);
}
