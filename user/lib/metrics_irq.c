// SPDX-License-Identifier: GPL-2.0
/*
 * The interrupt delivery metrics (metrics_irq.h). As metrics.c: the view
 * first (every row of every vCPU, sorted and merged, so a destroyed vCPU
 * and a new one of the same VM and id are one series), then each family.
 *
 * The maximum is not exported: the module starts a row's maximum (and
 * its sources) again at every hvctl clear, even in the counters since
 * load, so it is neither a counter nor the maximum since load.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "metrics_fold.h"
#include "metrics_irq.h"
#include "prom_text.h"
#include "util.h"

/* The vector of the other row, after every real one. */
#define IRQ_OTHER	256

/* Which vCPU a series is of. */
struct irq_vcpu {
	uint32_t vm_id, vm_pid, vcpu_id;
};

/* A vCPU's deliveries of one vector. */
struct irq_series {
	struct irq_vcpu id;
	unsigned int vector;	/* IRQ_OTHER: the other row */
	uint64_t count, ns;
	/* Where ns went (all its rows split: a module that splits). */
	bool split;
	uint64_t guest_ns;
	uint64_t part_ns[HVTRACE_NR_PARTS];
};

/* A wait's states, as hvtrace_vcpu_seconds_total names a vCPU's. */
enum { WS_GUEST, WS_HANDLING, WS_NR = WS_HANDLING + 1 + HVTRACE_NR_PARTS };

static const char *const wait_state[WS_NR] = {
	"guest", "handling", "vmm", "halt", "runnable", "other",
};
static_assert(HVTRACE_PART_VMM == 0 && HVTRACE_PART_OTHER == 3,
	      "wait_state[] follows enum hvtrace_part");

/* A vCPU's deliveries not timed, by why. */
enum { UT_UNMATCHED, UT_REINJECTED, UT_POSTED, UT_NR };

static const char *const untimed_why[UT_NR] = {
	[UT_UNMATCHED] = "unmatched",
	[UT_REINJECTED] = "reinjected",
	[UT_POSTED] = "posted",
};

struct irq_untimed {
	struct irq_vcpu id;
	uint64_t n[UT_NR];
};

struct irq_view {
	struct irq_series *series;	/* by VM, vCPU, then vector */
	unsigned int nr_series;
	struct irq_untimed *untimed;	/* by VM, then vCPU */
	unsigned int nr_untimed;
};

static int by_vcpu(const struct irq_vcpu *x, const struct irq_vcpu *y)
{
	if (x->vm_id != y->vm_id)
		return x->vm_id < y->vm_id ? -1 : 1;
	return x->vcpu_id < y->vcpu_id ? -1 : x->vcpu_id > y->vcpu_id;
}

static int by_vcpu_vector(const void *a, const void *b)
{
	const struct irq_series *x = a, *y = b;
	int c = by_vcpu(&x->id, &y->id);

	if (c)
		return c;
	return x->vector < y->vector ? -1 : x->vector > y->vector;
}

static int by_untimed(const void *a, const void *b)
{
	return by_vcpu(&((const struct irq_untimed *)a)->id,
		       &((const struct irq_untimed *)b)->id);
}

static void series_add(void *into, const void *row)
{
	struct irq_series *w = into;
	const struct irq_series *r = row;

	w->count += r->count;
	w->ns += r->ns;
	w->split = w->split && r->split;
	w->guest_ns += r->guest_ns;
	for (int k = 0; k < HVTRACE_NR_PARTS; k++)
		w->part_ns[k] += r->part_ns[k];
}

static void untimed_add(void *into, const void *row)
{
	struct irq_untimed *w = into;
	const struct irq_untimed *r = row;

	for (int k = 0; k < UT_NR; k++)
		w->n[k] += r->n[k];
}

static int series_view(struct irq_view *v, const struct hvc_stats *s)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < s->nr_vcpus; i++)
		n += s->vcpus[i].nr_irqs;
	v->series = calloc(n + 1, sizeof(*v->series));
	if (!v->series)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *r = &s->vcpus[i];

		for (j = 0; j < r->nr_irqs; j++) {
			const struct hvc_vcpu_irq *q = &r->irqs[j];
			struct irq_series *w = &v->series[n++];

			*w = (struct irq_series){
				.id = { r->vm_id, r->vm_pid, r->vcpu_id },
				.vector = q->other ? IRQ_OTHER : q->vector,
				.count = q->count,
				.ns = q->total_ns,
				.split = q->has_split,
				.guest_ns = q->guest_ns,
			};
			memcpy(w->part_ns, q->part_ns, sizeof(w->part_ns));
		}
	}
	v->nr_series = metrics_fold(v->series, n, sizeof(*v->series),
				    by_vcpu_vector, series_add);
	return 0;
}

static int untimed_view(struct irq_view *v, const struct hvc_stats *s)
{
	unsigned int i, n = s->nr_vcpus;

	v->untimed = calloc(n + 1, sizeof(*v->untimed));
	if (!v->untimed)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		const struct hvc_vcpu_row *r = &s->vcpus[i];

		v->untimed[i] = (struct irq_untimed){
			.id = { r->vm_id, r->vm_pid, r->vcpu_id },
			.n = { r->irq_unmatched, r->irq_reinjected,
			       r->irq_posted },
		};
	}
	v->nr_untimed = metrics_fold(v->untimed, n, sizeof(*v->untimed),
				     by_untimed, untimed_add);
	return 0;
}

/* vm, pid, vcpu, a fourth label NAME=VALUE and room for a fifth. */
struct irq_labels {
	char vm[12], pid[12], vcpu[12];
	struct prom_label l[5];
};

static const struct prom_label *irq_labels(struct irq_labels *b,
					   const struct irq_vcpu *w,
					   const char *name,
					   const char *value)
{
	snprintf(b->vm, sizeof(b->vm), "%" PRIu32, w->vm_id);
	snprintf(b->pid, sizeof(b->pid), "%" PRIu32, w->vm_pid);
	snprintf(b->vcpu, sizeof(b->vcpu), "%" PRIu32, w->vcpu_id);
	b->l[0] = (struct prom_label){ "vm", b->vm };
	b->l[1] = (struct prom_label){ "pid", b->pid };
	b->l[2] = (struct prom_label){ "vcpu", b->vcpu };
	b->l[3] = (struct prom_label){ name, value };
	return b->l;
}

static void delivery_metrics(FILE *f, const struct irq_view *v, bool ns)
{
	const char *name = ns ? "hvtrace_irq_delivery_seconds_total" :
			   "hvtrace_irq_deliveries_total";
	struct irq_labels b;
	char vector[8];

	if (ns)
		prom_family(f, name, PROM_COUNTER,
			    "Their time, each from its raise (KVM accepting it "
			    "into the vCPU's local APIC; a LAPIC timer's from "
			    "its expiry where the module probes KVM's "
			    "apic_timer_fn) to the VM entry that injected it; "
			    "no maximum (the module's starts again at every "
			    "hvctl clear)");
	else
		prom_family(f, name, PROM_COUNTER,
			    "Interrupts delivered to a vCPU (injected at a VM "
			    "entry) from a timed raise (by anyone where the "
			    "module probes KVM's __apic_accept_irq, else by a "
			    "vCPU of its VM), per vector (decimal, or \"other\": "
			    "the vectors after the vCPU's first seven, together: "
			    "at most 8 series per vCPU); vectors with deliveries "
			    "only");
	for (unsigned int i = 0; i < v->nr_series; i++) {
		const struct irq_series *s = &v->series[i];
		const struct prom_label *l;

		snprintf(vector, sizeof(vector), "%u", s->vector);
		l = irq_labels(&b, &s->id, "vector",
			       s->vector == IRQ_OTHER ? "other" : vector);
		if (ns)
			prom_sample_ns(f, name, l, 4, s->ns);
		else
			prom_sample_u64(f, name, l, 4, s->count);
	}
}

/*
 * Where each series' time went, by state: the guest's before the exit
 * that delivered it, then that exit's parts; handling the rest. Of
 * series the module splits only.
 */
static void wait_metrics(FILE *f, const struct irq_view *v)
{
	static const char name[] = "hvtrace_irq_wait_seconds_total";
	struct irq_labels b;
	char vector[8];

	prom_family(f, name, PROM_COUNTER,
		    "Where the time of hvtrace_irq_delivery_seconds_total "
		    "went, by where the vCPU's thread was: guest (from the "
		    "raise to the exit whose entry injected it: the kick, or "
		    "the guest keeping it off), then that exit's handling, "
		    "vmm, halt, runnable (off its CPU, waiting for it) and "
		    "other; the states add up to it");
	for (unsigned int i = 0; i < v->nr_series; i++) {
		const struct irq_series *s = &v->series[i];
		uint64_t ns[WS_NR], parts = s->guest_ns;

		if (!s->split)
			continue;
		ns[WS_GUEST] = s->guest_ns;
		for (int k = 0; k < HVTRACE_NR_PARTS; k++) {
			ns[WS_HANDLING + 1 + k] = s->part_ns[k];
			parts += s->part_ns[k];
		}
		ns[WS_HANDLING] = s->ns > parts ? s->ns - parts : 0;
		snprintf(vector, sizeof(vector), "%u", s->vector);
		irq_labels(&b, &s->id, "vector",
			   s->vector == IRQ_OTHER ? "other" : vector);
		for (int k = 0; k < WS_NR; k++) {
			b.l[4] = (struct prom_label){ "state", wait_state[k] };
			prom_sample_ns(f, name, b.l, 5, ns[k]);
		}
	}
}

/*
 * Every vCPU's, 0 included, as for its other counters: of a why whose
 * probe is attached only (a module without it counts none: not 0).
 */
static void untimed_metrics(FILE *f, const struct irq_view *v,
			    const struct hvc_status *st)
{
	static const char name[] = "hvtrace_irq_not_timed_total";
	bool probed[UT_NR] = {
		[UT_UNMATCHED] = st->irq_probes & HVTRACE_IRQ_PROBE_INJECT,
		[UT_REINJECTED] = st->irq_probes & HVTRACE_IRQ_PROBE_INJECT,
		[UT_POSTED] = st->irq_probes & HVTRACE_IRQ_PROBE_POSTED,
	};
	struct irq_labels b;

	prom_family(f, name, PROM_COUNTER,
		    "A vCPU's interrupts not timed, by why: unmatched "
		    "(injected without a timed raise: where only vCPUs' "
		    "raises are timed, the VMM's ioctls, irqfds, the "
		    "in-kernel PIT and IOAPIC), reinjected "
		    "(injected again after an exit interrupted it; not in "
		    "deliveries), posted (delivered by the CPU itself: APICv, "
		    "AVIC); where the module probes KVM for it");
	if (!st->irq_probes_known)
		return;
	for (unsigned int i = 0; i < v->nr_untimed; i++)
		for (int k = 0; k < UT_NR; k++)
			if (probed[k])
				prom_sample_u64(f, name,
						irq_labels(&b, &v->untimed[i].id,
							   "why",
							   untimed_why[k]),
						4, v->untimed[i].n[k]);
}

int metrics_irq_write(FILE *f, const struct hvc_stats *s,
		      const struct hvc_status *st)
{
	struct irq_view v = { 0 };
	int ret = series_view(&v, s);

	if (!ret)
		ret = untimed_view(&v, s);
	if (!ret) {
		delivery_metrics(f, &v, false);
		delivery_metrics(f, &v, true);
		wait_metrics(f, &v);
		untimed_metrics(f, &v, st);
	}
	free(v.series);
	free(v.untimed);
	return ret;
}
