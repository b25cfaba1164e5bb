/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A canned struct hvc_status and struct hvc_stats for the metrics writer
 * (user/lib/metrics.h): tests/unit/metrics_test.c checks its lines, and
 * tests/exporter/canned.c prints and serves them for promtool and the
 * HTTP tests. What each holds is chosen to reach every path:
 *
 *   reasons  NPF (a histogram from CANNED_NPF_NS), HLT (a histogram with
 *            exits beyond the last edge), IOIO (none: the shared
 *            overflow histogram), "other SVM" (a catch-all), and two
 *            rows that are both "unknown" (added up)
 *   vCPUs    vm 1 vcpu 0 (out of the guest now, blocked), vm 1 vcpu 1
 *            twice (destroyed, and alive again: added up), vm 2 vcpu 0;
 *            their exits per reason: vm 1's NPF from three rows, HLT
 *            from one, vm 2's "other SVM" (a catch-all)
 *   irqs     vm 1 vcpu 0: vectors 236, 251 and the other row, unmatched
 *            ones; vm 1 vcpu 1's two rows: 236, 251 and 236, other
 *            (added up per vector), reinjected and posted ones; vector
 *            236's waits split on both vCPUs (vm 1 vcpu 1's two rows
 *            added up), the others not split; vm 2
 *            none (not-timed zeros); a status probing all three ends
 *   preemptors 12 comms, "kworker/0:1" twice (added up), one with a
 *            quote, a backslash and a line feed, one with a byte that is
 *            no UTF-8: the 10 heaviest are shown
 *
 * Header-only, like unit.h.
 */
#ifndef HVTRACE_METRICS_CANNED_H
#define HVTRACE_METRICS_CANNED_H

#include <stdlib.h>
#include <string.h>

#include "client.h"
#include "hist.h"

/* NPF's exits, ns: on both sides of the edges 255, 511, 1023, 2047. */
static const uint64_t CANNED_NPF_NS[] = {
	100, 255, 256, 511, 512, 1023, 1024, 1500, 5000, 1000000,
};

/* HLT's: past 2^32 - 1 ns (4.294967295 s) two land in +Inf only. */
static const uint64_t CANNED_HLT_NS[] = {
	20000, 4294967295ULL, 4294967296ULL, 60000000000ULL,
};

static void canned_hist(struct hvc_reason_row *r, const uint64_t *ns,
			unsigned int n)
{
	r->has_hist = true;
	for (unsigned int i = 0; i < n; i++) {
		r->hist.bucket[hist_index(ns[i])]++;
		r->hist.count++;
		r->count++;
		r->total_ns += ns[i];
	}
}

static void canned_status(struct hvc_status *s)
{
	uint64_t *n = s->total.n;

	memset(s, 0, sizeof(*s));
	strcpy(s->version, "0.1.0");
	strcpy(s->vendor, "kvm_amd");
	s->abi = 3;
	s->nr_cpus = 4;
	s->cpus_traced = 4;
	s->recording = true;
	s->exits_seen = 123456;
	s->exits_untraced = 7;
	s->age_ns = 2500000000ULL;
	s->vcpus_live = 3;
	s->vcpus_max = 1024;
	s->vms_live = 2;
	s->vcpus_created = 5;
	s->vcpus_refused = 1;
	s->mem_bytes = 1048576;
	n[HVTRACE_ACCT_SEEN] = 100;
	n[HVTRACE_ACCT_FILTERED] = 10;
	n[HVTRACE_ACCT_BELOW] = 60;
	n[HVTRACE_ACCT_RECORDED] = 25;
	n[HVTRACE_ACCT_LOST] = 5;
	n[HVTRACE_ACCT_OVERWRITTEN] = 2;
	n[HVTRACE_ACCT_DRAINED] = 20;
	n[HVTRACE_ACCT_UNPAIRED] = 3;
	n[HVTRACE_ACCT_NO_ENTRY] = 4;
	n[HVTRACE_ACCT_PREEMPT_SEEN] = 8;
	n[HVTRACE_ACCT_PREEMPT_FILTERED] = 1;
	n[HVTRACE_ACCT_PREEMPT_BELOW] = 2;
	n[HVTRACE_ACCT_PREEMPT_RECORDED] = 4;
	n[HVTRACE_ACCT_PREEMPT_LOST] = 1;
	n[HVTRACE_ACCT_MARK_SEEN] = 9;
	n[HVTRACE_ACCT_MARK_FILTERED] = 1;
	n[HVTRACE_ACCT_MARK_LIMITED] = 2;
	n[HVTRACE_ACCT_MARK_RECORDED] = 5;
	n[HVTRACE_ACCT_MARK_LOST] = 1;
	n[HVTRACE_ACCT_IRQ_SEEN] = 15;
	n[HVTRACE_ACCT_IRQ_FILTERED] = 2;
	n[HVTRACE_ACCT_IRQ_BELOW] = 7;
	n[HVTRACE_ACCT_IRQ_RECORDED] = 5;
	n[HVTRACE_ACCT_IRQ_LOST] = 1;
	s->watch.known = true;
	s->watch.armed = true;
	s->watch.captures = 6;
	s->watch.dropped = 1;
	s->watch.suppressed_busy = 2;
	s->watch.suppressed_rate = 3;
	s->watch.suppressed_total = 4;
	s->watch.mem_bytes = 4096;
	s->irq_probes_known = true;
	s->irq_probes = __HVTRACE_IRQ_PROBE_ALL;
}

static struct hvc_reason_row *canned_reason(struct hvc_stats *s,
					    unsigned int isa, uint32_t code,
					    bool has_code)
{
	struct hvc_reason_row *r = &s->reasons[s->nr_reasons++];

	r->isa = isa;
	r->code = code;
	r->has_code = has_code;
	return r;
}

static struct hvc_vcpu_row *canned_vcpu(struct hvc_stats *s, uint32_t vm,
					uint32_t pid, uint32_t id,
					uint64_t base)
{
	struct hvc_vcpu_row *v = &s->vcpus[s->nr_vcpus++];

	v->vm_id = vm;
	v->vm_pid = pid;
	v->vcpu_id = id;
	v->tid = pid + 1 + id;
	/* Exits BASE ns: vmm, halt, runnable, other of them, handling 4/10. */
	v->count = base / 1000;
	v->total_ns = base;
	v->part_ns[HVTRACE_PART_VMM] = base / 10;
	v->part_ns[HVTRACE_PART_HALT] = 2 * base / 10;
	v->part_ns[HVTRACE_PART_RUNNABLE] = 3 * base / 10;
	v->guest_ns = 5 * base;
	v->preemptions = base / 100000;
	v->preempted_ns = base / 4;
	return v;
}

/* V's exits of one reason (the row owns them: hvc_stats_free()). */
static void canned_vcpu_reason(struct hvc_vcpu_row *v, unsigned int isa,
			       uint32_t code, bool has_code, uint64_t count,
			       uint64_t ns)
{
	v->reasons = realloc(v->reasons,
			     (v->nr_reasons + 1) * sizeof(*v->reasons));
	if (!v->reasons)
		abort();
	v->reasons[v->nr_reasons++] = (struct hvc_vcpu_reason){
		.isa = isa, .code = code, .has_code = has_code,
		.count = count, .total_ns = ns,
	};
}

/* V's deliveries of VECTOR (0: the other row); the row owns them. */
static void canned_vcpu_irq(struct hvc_vcpu_row *v, unsigned int vector,
			    uint64_t count, uint64_t ns)
{
	v->irqs = realloc(v->irqs, (v->nr_irqs + 1) * sizeof(*v->irqs));
	if (!v->irqs)
		abort();
	/* The maximum is not a metric: a large one shows if it leaks. */
	v->irqs[v->nr_irqs++] = (struct hvc_vcpu_irq){
		.vector = vector, .other = !vector, .local = true,
		.count = count, .total_ns = ns, .max_ns = 987654321,
	};
}

/* Where V's last row's time went (the rest is handling). */
static void canned_vcpu_irq_split(struct hvc_vcpu_row *v, uint64_t guest,
				  uint64_t halt, uint64_t runnable)
{
	struct hvc_vcpu_irq *r = &v->irqs[v->nr_irqs - 1];

	r->has_split = true;
	r->guest_ns = guest;
	r->part_ns[HVTRACE_PART_HALT] = halt;
	r->part_ns[HVTRACE_PART_RUNNABLE] = runnable;
}

static void canned_preemptor(struct hvc_stats *s, uint32_t pid,
			     const char *comm, uint64_t count, uint64_t ns)
{
	struct hvc_preemptor_row *p = &s->preemptors[s->nr_preemptors++];

	p->pid = pid;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->count = count;
	p->ns = ns;
}

/* Free with hvc_stats_free(). */
static void canned_stats(struct hvc_stats *s)
{
	struct hvc_reason_row *r;
	struct hvc_vcpu_row *v;
	char comm[16];

	memset(s, 0, sizeof(*s));
	s->reasons = calloc(8, sizeof(*s->reasons));
	s->vcpus = calloc(8, sizeof(*s->vcpus));
	s->preemptors = calloc(16, sizeof(*s->preemptors));
	if (!s->reasons || !s->vcpus || !s->preemptors)
		abort();
	r = canned_reason(s, HVTRACE_ISA_SVM, 0x400, true);	/* NPF */
	canned_hist(r, CANNED_NPF_NS, sizeof(CANNED_NPF_NS) / sizeof(uint64_t));
	r = canned_reason(s, HVTRACE_ISA_SVM, 0x078, true);	/* HLT */
	canned_hist(r, CANNED_HLT_NS, sizeof(CANNED_HLT_NS) / sizeof(uint64_t));
	r = canned_reason(s, HVTRACE_ISA_SVM, 0x07b, true);	/* IOIO */
	r->count = 42;
	r->total_ns = 4200000;
	r = canned_reason(s, HVTRACE_ISA_SVM, 0, false);	/* other SVM */
	canned_hist(r, (const uint64_t[]){ 3000 }, 1);
	/* Both "unknown": one series, 2 + 3 exits. */
	r = canned_reason(s, HVTRACE_ISA_UNKNOWN, 0, false);
	canned_hist(r, (const uint64_t[]){ 700, 800 }, 2);
	r = canned_reason(s, HVTRACE_ISA_UNKNOWN, 5, true);
	canned_hist(r, (const uint64_t[]){ 700, 900, 100000 }, 3);

	v = canned_vcpu(s, 1, 4242, 0, 1000000);
	v->in_exit = true;
	v->exit_isa = HVTRACE_ISA_SVM;
	v->exit_reason = 0x078;
	v->exit_ns = 2000000;
	v->exit_state = HVTRACE_VCPU_BLOCKED;
	canned_vcpu_reason(v, HVTRACE_ISA_SVM, 0x400, true, 3, 3000);
	canned_vcpu_reason(v, HVTRACE_ISA_SVM, 0x078, true, 1, 5000);
	canned_vcpu_irq(v, 236, 5, 50000);
	canned_vcpu_irq_split(v, 10000, 5000, 30000);
	canned_vcpu_irq(v, 251, 2, 3000);
	canned_vcpu_irq(v, 0, 4, 8000);
	v->irq_unmatched = 7;
	v = canned_vcpu(s, 2, 5000, 0, 3000000);
	canned_vcpu_reason(v, HVTRACE_ISA_SVM, 0, false, 4, 400);
	v = canned_vcpu(s, 1, 4242, 1, 2000000);
	v->gone = true;
	v->in_exit = true;	/* as it ended: no exit in progress */
	v->exit_ns = 99;
	canned_vcpu_reason(v, HVTRACE_ISA_SVM, 0x400, true, 2, 1000);
	canned_vcpu_irq(v, 236, 3, 3000);
	canned_vcpu_irq_split(v, 1000, 0, 1500);
	canned_vcpu_irq(v, 251, 1, 1000);
	v->irq_posted = 5;
	v = canned_vcpu(s, 1, 4242, 1, 500000);
	canned_vcpu_reason(v, HVTRACE_ISA_SVM, 0x400, true, 1, 500);
	canned_vcpu_irq(v, 236, 2, 2000);
	canned_vcpu_irq_split(v, 500, 1000, 0);
	canned_vcpu_irq(v, 0, 1, 500);
	v->irq_reinjected = 2;
	v->irq_posted = 1;

	canned_preemptor(s, 77, "kworker/0:1", 3, 30000);
	canned_preemptor(s, 78, "kworker/0:1", 2, 25000);
	canned_preemptor(s, 90, "say \"hi\\\"\nok", 1, 40000);
	canned_preemptor(s, 91, "bad\xff" "byte", 1, 45000);
	for (int i = 0; i < 9; i++) {
		snprintf(comm, sizeof(comm), "task%d", i);
		canned_preemptor(s, 100 + i, comm, 1, 10000 + 1000 * i);
	}
	s->age_ns = 2500000000ULL;
}

#endif /* HVTRACE_METRICS_CANNED_H */
