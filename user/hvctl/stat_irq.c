// SPDX-License-Identifier: GPL-2.0
/* hvctl stat --vcpus: the interrupts delivered to each vCPU (stat_irq.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stat_irq.h"
#include "util.h"

/*
 * A row of deliveries. Text names the vector and its sources in cells,
 * JSON in members of their own (a number or null, an array) written
 * before the cells; the first column's heading is the table's title.
 */
enum irq_col { IC_VECTOR, IC_SOURCE, IC_COUNT, IC_TOTAL, IC_AVG, IC_MAX,
	       IC_NR };

static const struct out_col irq_cols[IC_NR] = {
	[IC_VECTOR] = { NULL, "", -24, OUT_STR },
	[IC_SOURCE] = { NULL, "source", -9, OUT_STR },
	[IC_COUNT] = { "count", "count", 12, OUT_U64 },
	[IC_TOTAL] = { "total_ns", NULL, 0, OUT_U64 },
	[IC_AVG] = { "avg_ns", "avg", 9, OUT_DUR },
	[IC_MAX] = { "max_ns", "max", 9, OUT_DUR },
};

static const char *source_name(const struct hvc_vcpu_irq *r)
{
	if (r->local && r->ipi)
		return "local+ipi";
	return r->local ? "local" : r->ipi ? "ipi" : "-";
}

static void print_irq(struct out *o, const struct out_col *cols,
		      const struct hvc_vcpu_irq *r)
{
	struct out_cell c[IC_NR] = {
		[IC_SOURCE].s = source_name(r),
		[IC_COUNT].u = r->count,
		[IC_TOTAL].u = r->total_ns,
		[IC_AVG].u = r->count ? r->total_ns / r->count : 0,
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
	out_open_array(o, "sources");
	if (r->local)
		out_str(o, NULL, NULL, "local");
	if (r->ipi)
		out_str(o, NULL, NULL, "ipi");
	out_close_array(o);
	out_cells(o, cols, c, IC_NR);
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
		print_irq(o, irq_cols, &v->irqs[i]);
	out_close_array(o);
	out_u64(o, "irq_unmatched", NULL, v->irq_unmatched);
	out_u64(o, "irq_reinjected", NULL, v->irq_reinjected);
	out_u64(o, "irq_posted", NULL, v->irq_posted);
}

static bool has_irqs(const struct hvc_vcpu_row *v)
{
	return v->nr_irqs || v->irq_unmatched || v->irq_reinjected ||
	       v->irq_posted;
}

static void irq_title(char *buf, size_t len, const struct hvc_vcpu_row *v)
{
	snprintf(buf, len, "interrupt delivery vm %u vcpu %u%s", v->vm_id,
		 v->vcpu_id, v->gone ? " (gone)" : "");
}

/* "not timed: unmatched 7, reinjected 2, posted 5": those not 0. */
static void print_untimed(struct out *o, const struct hvc_vcpu_row *v)
{
	const struct {
		const char *name;
		uint64_t n;
	} untimed[] = {
		{ "unmatched", v->irq_unmatched },
		{ "reinjected", v->irq_reinjected },
		{ "posted", v->irq_posted },
	};
	const char *sep = "not timed: ";

	for (unsigned int i = 0; i < ARRAY_SIZE(untimed); i++) {
		if (!untimed[i].n)
			continue;
		fprintf(o->f, "%s%s %" PRIu64, sep, untimed[i].name,
			untimed[i].n);
		sep = ", ";
	}
	if (*sep == ',')
		fputc('\n', o->f);
}

void stat_irq_tables(struct out *o, const struct hvc_stats *s)
{
	struct out_col cols[IC_NR];
	char title[80];

	if (o->json)
		return;
	/* One width for every vCPU's table, so that they line up. */
	memcpy(cols, irq_cols, sizeof(cols));
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		if (!has_irqs(&s->vcpus[i]))
			continue;
		irq_title(title, sizeof(title), &s->vcpus[i]);
		out_fit(&cols[IC_VECTOR], title);
	}
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *v = &s->vcpus[i];

		if (!has_irqs(v))
			continue;
		irq_title(title, sizeof(title), v);
		cols[IC_VECTOR].head = title;
		fputc('\n', o->f);
		out_heading(o, cols, IC_NR);
		for (unsigned int j = 0; j < v->nr_irqs; j++)
			print_irq(o, cols, &v->irqs[j]);
		print_untimed(o, v);
	}
}
