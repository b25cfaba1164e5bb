// SPDX-License-Identifier: GPL-2.0
/*
 * hvtrace's metrics (metrics.h). The view first: the rows merged into
 * one per series and sorted, so the output is the same for the same
 * figures; then each family's lines.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "exit_reasons.h"
#include "hist.h"
#include "metrics.h"
#include "metrics_fold.h"
#include "metrics_irq.h"
#include "prom_text.h"
#include "time_parts.h"
#include "util.h"

_Static_assert(METRICS_LE_LAST < HVTRACE_HIST_MAX_SHIFT &&
	       METRICS_LE_FIRST <= METRICS_LE_LAST,
	       "every edge is the last nanosecond of a kernel bucket");

/* A reason row with its label, as sorted. */
struct labelled {
	char label[EXIT_LABEL_LEN];
	const struct hvc_reason_row *r;
};

/* A series of one label (a reason, a comm): its count and its time. */
struct series {
	const char *label;
	uint64_t count, ns;
};

/* A reason's: the sorted rows [first, first + n) share its label. */
struct reason_view {
	struct series s;	/* first: a struct series too */
	unsigned int first, n;
	bool has_hist;		/* every row has one */
};

/* A VM's exits of one reason: its vCPUs' rows added up. */
struct vm_reason {
	uint32_t vm_id, vm_pid;
	char label[EXIT_LABEL_LEN];
	uint64_t count, ns;
};

/* A vCPU's series: the rows of one VM and vCPU id, added up. */
struct vcpu_view {
	uint32_t vm_id, vm_pid, vcpu_id;
	uint64_t count, total_ns, guest_ns, preemptions, preempted_ns;
	__u64 part_ns[HVTRACE_NR_PARTS];
	const struct hvc_vcpu_row *in_exit;	/* alive and out now */
};

struct view {
	struct vm_reason *vm_reasons;	/* by VM, then label */
	unsigned int nr_vm_reasons;
	struct labelled *rows;
	struct reason_view *reasons;
	unsigned int nr_reasons;
	struct vcpu_view *vcpus;
	unsigned int nr_vcpus;
	struct series *pre;	/* by comm */
	unsigned int nr_pre;
};

/* As stat names a row: a catch-all is "other VMX" or "other SVM". */
static void label_of(char *buf, unsigned int isa, uint32_t code,
		     bool has_code)
{
	if (has_code && isa != HVTRACE_ISA_UNKNOWN)
		exit_reason_label(buf, EXIT_LABEL_LEN, isa, code);
	else if (isa == HV_ISA_VMX || isa == HV_ISA_SVM)
		snprintf(buf, EXIT_LABEL_LEN, "other %s",
			 isa == HV_ISA_VMX ? "VMX" : "SVM");
	else
		snprintf(buf, EXIT_LABEL_LEN, "unknown");
}

static void reason_label(char *buf, const struct hvc_reason_row *r)
{
	label_of(buf, r->isa, r->code, r->has_code);
}

static int by_label(const void *a, const void *b)
{
	return strcmp(((const struct labelled *)a)->label,
		      ((const struct labelled *)b)->label);
}

static int reasons_view(struct view *v, const struct hvc_stats *s)
{
	unsigned int i, j;

	v->rows = calloc(s->nr_reasons + 1, sizeof(*v->rows));
	v->reasons = calloc(s->nr_reasons + 1, sizeof(*v->reasons));
	if (!v->rows || !v->reasons)
		return -ENOMEM;
	for (i = 0; i < s->nr_reasons; i++) {
		v->rows[i].r = &s->reasons[i];
		reason_label(v->rows[i].label, &s->reasons[i]);
	}
	qsort(v->rows, s->nr_reasons, sizeof(*v->rows), by_label);
	for (i = 0; i < s->nr_reasons; i = j) {
		struct reason_view *rv = &v->reasons[v->nr_reasons++];

		rv->s.label = v->rows[i].label;
		rv->first = i;
		rv->has_hist = true;
		for (j = i; j < s->nr_reasons &&
		     !strcmp(v->rows[j].label, rv->s.label); j++) {
			rv->s.count += v->rows[j].r->count;
			rv->s.ns += v->rows[j].r->total_ns;
			rv->has_hist &= v->rows[j].r->has_hist;
		}
		rv->n = j - i;
	}
	return 0;
}

static int by_vm_label(const void *a, const void *b)
{
	const struct vm_reason *x = a, *y = b;

	if (x->vm_id != y->vm_id)
		return x->vm_id < y->vm_id ? -1 : 1;
	return strcmp(x->label, y->label);
}

static void vm_reason_add(void *into, const void *row)
{
	struct vm_reason *w = into;
	const struct vm_reason *r = row;

	w->count += r->count;
	w->ns += r->ns;
}

/*
 * Each VM's exits per reason: its vCPUs' (live and destroyed, as the
 * module sends them with counters since load), one row per label.
 */
static int vm_reasons_view(struct view *v, const struct hvc_stats *s)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < s->nr_vcpus; i++)
		n += s->vcpus[i].nr_reasons;
	v->vm_reasons = calloc(n + 1, sizeof(*v->vm_reasons));
	if (!v->vm_reasons)
		return -ENOMEM;
	n = 0;
	for (i = 0; i < s->nr_vcpus; i++) {
		const struct hvc_vcpu_row *r = &s->vcpus[i];

		for (j = 0; j < r->nr_reasons; j++) {
			const struct hvc_vcpu_reason *e = &r->reasons[j];
			struct vm_reason *w = &v->vm_reasons[n++];

			w->vm_id = r->vm_id;
			w->vm_pid = r->vm_pid;
			label_of(w->label, e->isa, e->code, e->has_code);
			w->count = e->count;
			w->ns = e->total_ns;
		}
	}
	v->nr_vm_reasons = metrics_fold(v->vm_reasons, n,
					sizeof(*v->vm_reasons), by_vm_label,
					vm_reason_add);
	return 0;
}

/* Whether S has a row, live or destroyed, of VM VM_ID. */
static bool vm_present(const struct hvc_stats *s, uint32_t vm_id)
{
	for (unsigned int i = 0; i < s->nr_vcpus; i++)
		if (s->vcpus[i].vm_id == vm_id)
			return true;
	return false;
}

/*
 * V's exits per VM and reason, each at least as W last had it while the
 * VM has a row in S (metrics.h: a quit VM's vCPUs leave one at a time);
 * W becomes what is written.
 */
static int keep_written(struct view *v, const struct hvc_stats *s,
			struct metrics_written *w)
{
	unsigned int n = v->nr_vm_reasons, i, k;
	struct vm_reason *all = calloc(n + w->nr + 1, sizeof(*all));
	struct vm_reason *copy;

	if (!all)
		return -ENOMEM;
	memcpy(all, v->vm_reasons, n * sizeof(*all));
	for (i = 0; i < w->nr; i++)
		if (vm_present(s, w->rows[i].vm_id))
			all[n++] = w->rows[i];
	qsort(all, n, sizeof(*all), by_vm_label);
	for (i = k = 0; i < n; i++) {
		if (k && !by_vm_label(&all[k - 1], &all[i])) {
			if (all[i].count > all[k - 1].count)
				all[k - 1] = all[i];
		} else {
			all[k++] = all[i];
		}
	}
	copy = malloc((k + 1) * sizeof(*copy));
	if (!copy) {
		free(all);
		return -ENOMEM;
	}
	memcpy(copy, all, k * sizeof(*copy));
	free(v->vm_reasons);
	v->vm_reasons = all;
	v->nr_vm_reasons = k;
	free(w->rows);
	w->rows = copy;
	w->nr = k;
	return 0;
}

void metrics_written_free(struct metrics_written *w)
{
	free(w->rows);
	w->rows = NULL;
	w->nr = 0;
}

static int by_vcpu(const void *a, const void *b)
{
	const struct hvc_vcpu_row *x = *(const struct hvc_vcpu_row *const *)a;
	const struct hvc_vcpu_row *y = *(const struct hvc_vcpu_row *const *)b;

	if (x->vm_id != y->vm_id)
		return x->vm_id < y->vm_id ? -1 : 1;
	return x->vcpu_id < y->vcpu_id ? -1 : x->vcpu_id > y->vcpu_id;
}

static void vcpu_add(struct vcpu_view *w, const struct hvc_vcpu_row *r)
{
	w->count += r->count;
	w->total_ns += r->total_ns;
	w->guest_ns += r->guest_ns;
	w->preemptions += r->preemptions;
	w->preempted_ns += r->preempted_ns;
	for (int p = 0; p < HVTRACE_NR_PARTS; p++)
		w->part_ns[p] += r->part_ns[p];
	if (r->in_exit && !r->gone)
		w->in_exit = r;
}

static int vcpus_view(struct view *v, const struct hvc_stats *s)
{
	const struct hvc_vcpu_row **p = calloc(s->nr_vcpus + 1, sizeof(*p));
	unsigned int i;

	v->vcpus = calloc(s->nr_vcpus + 1, sizeof(*v->vcpus));
	if (!p || !v->vcpus) {
		free(p);
		return -ENOMEM;
	}
	for (i = 0; i < s->nr_vcpus; i++)
		p[i] = &s->vcpus[i];
	qsort(p, s->nr_vcpus, sizeof(*p), by_vcpu);
	for (i = 0; i < s->nr_vcpus; i++) {
		struct vcpu_view *w = &v->vcpus[v->nr_vcpus];

		if (!i || by_vcpu(&p[i - 1], &p[i])) {
			v->nr_vcpus++;
			w->vm_id = p[i]->vm_id;
			w->vm_pid = p[i]->vm_pid;
			w->vcpu_id = p[i]->vcpu_id;
		} else {
			w--;
		}
		vcpu_add(w, p[i]);
	}
	free(p);
	return 0;
}

static int by_comm(const void *a, const void *b)
{
	return strcmp(((const struct series *)a)->label,
		      ((const struct series *)b)->label);
}

static int by_ns(const void *a, const void *b)
{
	const struct series *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return strcmp(x->label, y->label);
}

/* By comm, the heaviest METRICS_TOP_PREEMPTORS. */
static int preemptors_view(struct view *v, const struct hvc_stats *s)
{
	unsigned int i, n = 0;

	v->pre = calloc(s->nr_preemptors + 1, sizeof(*v->pre));
	if (!v->pre)
		return -ENOMEM;
	for (i = 0; i < s->nr_preemptors; i++)
		v->pre[i] = (struct series){
			.label = s->preemptors[i].comm,
			.count = s->preemptors[i].count,
			.ns = s->preemptors[i].ns,
		};
	qsort(v->pre, s->nr_preemptors, sizeof(*v->pre), by_comm);
	for (i = 0; i < s->nr_preemptors; i++) {
		if (n && !strcmp(v->pre[n - 1].label, v->pre[i].label)) {
			v->pre[n - 1].count += v->pre[i].count;
			v->pre[n - 1].ns += v->pre[i].ns;
		} else {
			v->pre[n++] = v->pre[i];
		}
	}
	qsort(v->pre, n, sizeof(*v->pre), by_ns);
	v->nr_pre = n < METRICS_TOP_PREEMPTORS ? n : METRICS_TOP_PREEMPTORS;
	return 0;
}

static void view_free(struct view *v)
{
	free(v->vm_reasons);
	free(v->rows);
	free(v->reasons);
	free(v->vcpus);
	free(v->pre);
}

/* A family of one sample without labels: a number, or NS in seconds. */
static void one(FILE *f, const char *name, enum prom_type type,
		const char *help, uint64_t v)
{
	prom_family(f, name, type, help);
	prom_sample_u64(f, name, NULL, 0, v);
}

static void one_ns(FILE *f, const char *name, enum prom_type type,
		   const char *help, uint64_t ns)
{
	prom_family(f, name, type, help);
	prom_sample_ns(f, name, NULL, 0, ns);
}

static void build_info(FILE *f, const struct metrics_in *in)
{
	char abi[16];
	struct prom_label l[] = {
		{ "version", in->status->version },
		{ "abi", abi },
		{ "kernel", in->kernel ? in->kernel : "" },
	};

	snprintf(abi, sizeof(abi), "%" PRIu32, in->status->abi);
	prom_family(f, "hvtrace_build_info", PROM_GAUGE,
		    "Always 1: the module's version, its netlink ABI and the "
		    "host's kernel release");
	prom_sample(f, "hvtrace_build_info", l, ARRAY_SIZE(l), "1");
}

static void vm_info(FILE *f, const struct metrics_in *in)
{
	prom_family(f, "hvtrace_vm_info", PROM_GAUGE,
		    "Always 1: a live VM's name and UUID from its VMM's command "
		    "line (QEMU's -name, -uuid; empty: none), to join on vm");
	for (unsigned int i = 0; i < in->nr_vms; i++) {
		const struct metrics_vm *m = &in->vms[i];
		char vm[12], pid[12];
		struct prom_label l[] = {
			{ "vm", vm }, { "pid", pid },
			{ "name", m->name }, { "uuid", m->uuid },
		};

		snprintf(vm, sizeof(vm), "%" PRIu32, m->vm_id);
		snprintf(pid, sizeof(pid), "%" PRIu32, m->pid);
		prom_sample(f, "hvtrace_vm_info", l, ARRAY_SIZE(l), "1");
	}
}

/* The cumulative buckets, sum and count of a reason's histogram. */
static void histogram(FILE *f, const struct view *v,
		      const struct reason_view *rv)
{
	char le[PROM_SECONDS_LEN];
	struct prom_label l[] = { { "reason", rv->s.label }, { "le", le } };
	unsigned int k = METRICS_LE_FIRST, i, j;
	uint64_t cum = 0, count = 0;

	prom_seconds(le, (1ULL << k) - 1);
	for (i = 0; i < HVTRACE_HIST_BUCKETS && k <= METRICS_LE_LAST; i++) {
		for (j = rv->first; j < rv->first + rv->n; j++)
			cum += v->rows[j].r->hist.bucket[i];
		if (hist_upper(i) != (1ULL << k) - 1)
			continue;
		prom_sample_u64(f, "hvtrace_exit_duration_seconds_bucket", l,
				2, cum);
		prom_seconds(le, (1ULL << ++k) - 1);
	}
	for (j = rv->first; j < rv->first + rv->n; j++)
		count += v->rows[j].r->hist.count;
	l[1].value = "+Inf";
	prom_sample_u64(f, "hvtrace_exit_duration_seconds_bucket", l, 2,
			count);
	prom_sample_ns(f, "hvtrace_exit_duration_seconds_sum", l, 1, rv->s.ns);
	prom_sample_u64(f, "hvtrace_exit_duration_seconds_count", l, 1, count);
}

/* A family of series of one label. */
struct family {
	const char *name, *help;
	enum prom_type type;
	bool ns;		/* the series' time; else their count */
};

/* FAM over the N series at ROWS, STRIDE bytes apart, labelled LNAME. */
static void series_family(FILE *f, const struct family *fam,
			  const char *lname, const void *rows, size_t stride,
			  unsigned int n)
{
	struct prom_label l = { lname, NULL };

	prom_family(f, fam->name, fam->type, fam->help);
	for (unsigned int i = 0; i < n; i++) {
		const struct series *s = (const void *)((const char *)rows +
							i * stride);

		l.value = s->label;
		if (fam->ns)
			prom_sample_ns(f, fam->name, &l, 1, s->ns);
		else
			prom_sample_u64(f, fam->name, &l, 1, s->count);
	}
}

static const struct family vm_reason_families[] = {
	{ "hvtrace_exits_total",
	  "VM exits that ended (re-entered the guest, or their vCPU was "
	  "destroyed), per VM and exit reason (vm: hvtrace's number of the "
	  "VM, pid: its VMM), since its vCPUs' first exits; hvctl clear "
	  "leaves it alone", PROM_COUNTER, false },
	{ "hvtrace_exit_seconds_total",
	  "Time out of the guest of those exits, exit to re-entry, per VM "
	  "and exit reason", PROM_COUNTER, true },
};

/* Each family of vm_reason_families: a VM's reasons, VM by VM. */
static void vm_reason_metrics(FILE *f, const struct view *v)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(vm_reason_families); i++) {
		const struct family *fam = &vm_reason_families[i];

		prom_family(f, fam->name, fam->type, fam->help);
		for (unsigned int j = 0; j < v->nr_vm_reasons; j++) {
			const struct vm_reason *w = &v->vm_reasons[j];
			char vm[12], pid[12];
			struct prom_label l[] = {
				{ "vm", vm }, { "pid", pid },
				{ "reason", w->label },
			};

			snprintf(vm, sizeof(vm), "%" PRIu32, w->vm_id);
			snprintf(pid, sizeof(pid), "%" PRIu32, w->vm_pid);
			if (fam->ns)
				prom_sample_ns(f, fam->name, l, 3, w->ns);
			else
				prom_sample_u64(f, fam->name, l, 3, w->count);
		}
	}
}

static void reason_metrics(FILE *f, const struct view *v)
{
	vm_reason_metrics(f, v);
	prom_family(f, "hvtrace_exit_duration_seconds", PROM_HISTOGRAM,
		    "Exit durations per exit reason; each le is 2^k-1 ns, the "
		    "last nanosecond of one of the module's buckets, so counts "
		    "are exact (reasons sharing the module's overflow "
		    "histogram have none)");
	for (unsigned int i = 0; i < v->nr_reasons; i++)
		if (v->reasons[i].has_hist)
			histogram(f, v, &v->reasons[i]);
}

/* A vCPU's labels: vm, pid, vcpu and STATE (NULL: none); how many. */
struct vcpu_labels {
	char vm[12], pid[12], vcpu[12];
	struct prom_label l[4];
};

static unsigned int vcpu_labels(struct vcpu_labels *b,
				const struct vcpu_view *w, const char *state)
{
	snprintf(b->vm, sizeof(b->vm), "%" PRIu32, w->vm_id);
	snprintf(b->pid, sizeof(b->pid), "%" PRIu32, w->vm_pid);
	snprintf(b->vcpu, sizeof(b->vcpu), "%" PRIu32, w->vcpu_id);
	b->l[0] = (struct prom_label){ "vm", b->vm };
	b->l[1] = (struct prom_label){ "pid", b->pid };
	b->l[2] = (struct prom_label){ "vcpu", b->vcpu };
	b->l[3] = (struct prom_label){ "state", state };
	return state ? 4 : 3;
}

/* Where a vCPU out of the guest is now: stat's JSON words. */
static const char *const exit_states[] = {
	[HVTRACE_VCPU_IN_KERNEL] = "in_kernel",
	[HVTRACE_VCPU_IN_VMM] = "in_vmm",
	[HVTRACE_VCPU_RUNNABLE] = "runnable",
	[HVTRACE_VCPU_BLOCKED] = "blocked",
};

static void vcpu_split(FILE *f, const struct vcpu_view *w)
{
	static const char name[] = "hvtrace_vcpu_seconds_total";
	struct vcpu_labels b;
	unsigned int n;

	n = vcpu_labels(&b, w, "guest");
	prom_sample_ns(f, name, b.l, n, w->guest_ns);
	n = vcpu_labels(&b, w, time_part_labels[0]);
	prom_sample_ns(f, name, b.l, n, time_handling(w->total_ns, w->part_ns));
	for (int p = 0; p < HVTRACE_NR_PARTS; p++) {
		n = vcpu_labels(&b, w, time_part_labels[1 + p]);
		prom_sample_ns(f, name, b.l, n, w->part_ns[p]);
	}
}

static void vcpu_metrics(FILE *f, const struct view *v)
{
	const struct vcpu_view *w, *end = v->vcpus + v->nr_vcpus;
	struct vcpu_labels b;
	unsigned int n, st;

	prom_family(f, "hvtrace_vcpu_exits_total", PROM_COUNTER,
		    "Exits per vCPU, all reasons (vm: hvtrace's number of the "
		    "VM, pid: its VMM); a destroyed vCPU stays until 64 more "
		    "are");
	for (w = v->vcpus; w < end; w++) {
		n = vcpu_labels(&b, w, NULL);
		prom_sample_u64(f, "hvtrace_vcpu_exits_total", b.l, n, w->count);
	}
	prom_family(f, "hvtrace_vcpu_seconds_total", PROM_COUNTER,
		    "A vCPU's time by state: in the guest, and its exits' time "
		    "split (handling, vmm, halt, runnable, other); they add up "
		    "to its time since its first entry");
	for (w = v->vcpus; w < end; w++)
		vcpu_split(f, w);
	prom_family(f, "hvtrace_vcpu_preemptions_total", PROM_COUNTER,
		    "Times a vCPU thread was switched out runnable inside KVM");
	for (w = v->vcpus; w < end; w++) {
		n = vcpu_labels(&b, w, NULL);
		prom_sample_u64(f, "hvtrace_vcpu_preemptions_total", b.l, n,
				w->preemptions);
	}
	prom_family(f, "hvtrace_vcpu_preempted_seconds_total", PROM_COUNTER,
		    "Time a vCPU thread was off CPU after those preemptions");
	for (w = v->vcpus; w < end; w++) {
		n = vcpu_labels(&b, w, NULL);
		prom_sample_ns(f, "hvtrace_vcpu_preempted_seconds_total", b.l,
			       n, w->preempted_ns);
	}
	prom_family(f, "hvtrace_vcpu_exit_in_progress_seconds", PROM_GAUGE,
		    "How long a vCPU now out of the guest has been out, and "
		    "where it is (in_kernel, in_vmm, runnable, blocked: a "
		    "halted vCPU is blocked); no series while in the guest");
	for (w = v->vcpus; w < end; w++) {
		if (!w->in_exit)
			continue;
		st = w->in_exit->exit_state;
		n = vcpu_labels(&b, w, st < ARRAY_SIZE(exit_states) ?
				exit_states[st] : "unknown");
		prom_sample_ns(f, "hvtrace_vcpu_exit_in_progress_seconds", b.l,
			       n, w->in_exit->exit_ns);
	}
}

static const struct family preemptor_families[] = {
	{ "hvtrace_preemptor_seconds",
	  "Time the tasks of this comm ran while a vCPU thread waited "
	  "runnable, since load or hvctl clear; the 10 heaviest (the module "
	  "keeps the heaviest per CPU: a light one can drop out)",
	  PROM_GAUGE, true },
	{ "hvtrace_preemptor_stretches",
	  "Runnable stretches of vCPU threads those tasks ran in",
	  PROM_GAUGE, false },
};

static void preemptor_metrics(FILE *f, const struct view *v)
{
	for (unsigned int i = 0; i < ARRAY_SIZE(preemptor_families); i++)
		series_family(f, &preemptor_families[i], "comm", v->pre,
			      sizeof(*v->pre), v->nr_pre);
}

/* The accounting: what was seen while recording, and where it went. */
static const struct {
	unsigned int seen;
	const char *kind;
} seen_sets[] = {
	{ HVTRACE_ACCT_SEEN, "exit" },
	{ HVTRACE_ACCT_PREEMPT_SEEN, "preemption" },
	{ HVTRACE_ACCT_MARK_SEEN, "mark" },
	{ HVTRACE_ACCT_IRQ_SEEN, "irq" },
};

static const struct {
	unsigned int attr;
	const char *kind, *outcome;
} outcomes[] = {
	{ HVTRACE_ACCT_FILTERED, "exit", "filtered" },
	{ HVTRACE_ACCT_BELOW, "exit", "below_threshold" },
	{ HVTRACE_ACCT_RECORDED, "exit", "recorded" },
	{ HVTRACE_ACCT_LOST, "exit", "lost" },
	{ HVTRACE_ACCT_PREEMPT_FILTERED, "preemption", "filtered" },
	{ HVTRACE_ACCT_PREEMPT_BELOW, "preemption", "below_threshold" },
	{ HVTRACE_ACCT_PREEMPT_RECORDED, "preemption", "recorded" },
	{ HVTRACE_ACCT_PREEMPT_LOST, "preemption", "lost" },
	{ HVTRACE_ACCT_MARK_FILTERED, "mark", "filtered" },
	{ HVTRACE_ACCT_MARK_LIMITED, "mark", "limited" },
	{ HVTRACE_ACCT_MARK_RECORDED, "mark", "recorded" },
	{ HVTRACE_ACCT_MARK_LOST, "mark", "lost" },
	{ HVTRACE_ACCT_IRQ_FILTERED, "irq", "filtered" },
	{ HVTRACE_ACCT_IRQ_BELOW, "irq", "below_threshold" },
	{ HVTRACE_ACCT_IRQ_RECORDED, "irq", "recorded" },
	{ HVTRACE_ACCT_IRQ_LOST, "irq", "lost" },
};

static void accounting_metrics(FILE *f, const struct hvc_status *s)
{
	const uint64_t *n = s->total.n;
	struct prom_label l[2] = { { "kind", NULL }, { "outcome", NULL } };
	unsigned int i;

	prom_family(f, "hvtrace_recording_seen_total", PROM_COUNTER,
		    "Exits, preemption records, guest marks and late interrupt "
		    "records (kind irq) seen while recording; seen = the sum "
		    "of its outcomes, exactly");
	for (i = 0; i < ARRAY_SIZE(seen_sets); i++) {
		l[0].value = seen_sets[i].kind;
		prom_sample_u64(f, "hvtrace_recording_seen_total", l, 1,
				n[seen_sets[i].seen]);
	}
	prom_family(f, "hvtrace_recording_outcomes_total", PROM_COUNTER,
		    "Where what was seen went: filtered, below_threshold, "
		    "limited (marks over the rate), recorded, lost (the ring "
		    "was full)");
	for (i = 0; i < ARRAY_SIZE(outcomes); i++) {
		l[0].value = outcomes[i].kind;
		l[1].value = outcomes[i].outcome;
		prom_sample_u64(f, "hvtrace_recording_outcomes_total", l, 2,
				n[outcomes[i].attr]);
	}
	one(f, "hvtrace_records_overwritten_total", PROM_COUNTER,
	    "Records overwritten in a ring before they were drained "
	    "(overwrite mode)", n[HVTRACE_ACCT_OVERWRITTEN]);
	one(f, "hvtrace_records_drained_total", PROM_COUNTER,
	    "Records taken out of the rings", n[HVTRACE_ACCT_DRAINED]);
	one(f, "hvtrace_exits_unpaired_total", PROM_COUNTER,
	    "Exits that could not be timed (no exit seen before an entry)",
	    n[HVTRACE_ACCT_UNPAIRED]);
	one(f, "hvtrace_exits_no_entry_total", PROM_COUNTER,
	    "Of the exits seen while recording, those ended by their vCPU's "
	    "destruction", n[HVTRACE_ACCT_NO_ENTRY]);
}

static void module_metrics(FILE *f, const struct hvc_status *s)
{
	one(f, "hvtrace_recording", PROM_GAUGE,
	    "1 while the module records (hvctl start), else 0", s->recording);
	one_ns(f, "hvtrace_stats_age_seconds", PROM_GAUGE,
	       "Time since the counters started: since the module was loaded "
	       "(hvctl exporter asks for counters since load, which hvctl "
	       "clear leaves alone)", s->age_ns);
	one(f, "hvtrace_vcpus", PROM_GAUGE, "vCPUs traced now",
	    s->vcpus_live);
	one(f, "hvtrace_vcpus_max", PROM_GAUGE,
	    "vCPUs the module can trace at once (max_vcpus)", s->vcpus_max);
	one(f, "hvtrace_vms", PROM_GAUGE, "VMs traced now", s->vms_live);
	one(f, "hvtrace_memory_bytes", PROM_GAUGE, "Memory the module holds",
	    s->mem_bytes);
	one(f, "hvtrace_exits_since_load_total", PROM_COUNTER,
	    "Exits seen since the module was loaded, recording or not; "
	    "never cleared", s->exits_seen);
	one(f, "hvtrace_exits_untraced_since_load_total", PROM_COUNTER,
	    "Exits on CPUs without hvtrace state, since load",
	    s->exits_untraced);
	one(f, "hvtrace_vcpus_created_since_load_total", PROM_COUNTER,
	    "vCPUs traced since load", s->vcpus_created);
	one(f, "hvtrace_vcpus_refused_since_load_total", PROM_COUNTER,
	    "New vCPUs not traced because the vCPU table was full "
	    "(max_vcpus alive); their exits are not counted anywhere",
	    s->vcpus_refused);
}

static void watch_metrics(FILE *f, const struct hvc_watch_status *w)
{
	static const char name[] = "hvtrace_watch_suppressed_total";
	struct prom_label l = { "cause", NULL };

	one(f, "hvtrace_watch_armed", PROM_GAUGE,
	    "1 while a watch is armed (hvctl watch), else 0", w->armed);
	one(f, "hvtrace_watch_captures_total", PROM_COUNTER,
	    "Captures closed since the watch was armed", w->captures);
	one(f, "hvtrace_watch_captures_dropped_total", PROM_COUNTER,
	    "Captures lost since armed (too many waiting, no memory, or "
	    "their reader went)", w->dropped);
	prom_family(f, name, PROM_COUNTER,
		    "Triggers that made no capture since armed: busy (the "
		    "vCPU's previous one was still closing), rate (its vCPU's "
		    "rate), rate_total (the rate of all)");
	l.value = "busy";
	prom_sample_u64(f, name, &l, 1, w->suppressed_busy);
	l.value = "rate";
	prom_sample_u64(f, name, &l, 1, w->suppressed_rate);
	l.value = "rate_total";
	prom_sample_u64(f, name, &l, 1, w->suppressed_total);
	one(f, "hvtrace_watch_no_history_total", PROM_COUNTER,
	    "vCPUs refused a history for want of memory, since armed",
	    w->no_history);
	one(f, "hvtrace_watch_memory_bytes", PROM_GAUGE,
	    "Memory the watch's histories and captures hold", w->mem_bytes);
}

static int view_of(struct view *v, const struct hvc_stats *s)
{
	int ret = reasons_view(v, s);

	if (!ret)
		ret = vm_reasons_view(v, s);
	if (!ret)
		ret = vcpus_view(v, s);
	if (!ret)
		ret = preemptors_view(v, s);
	return ret;
}

int metrics_write(FILE *f, const struct metrics_in *in)
{
	static const struct hvc_stats none;
	struct view v = { 0 };

	one(f, "hvtrace_up", PROM_GAUGE,
	    "1 when the module answered this scrape, 0 when it could not be "
	    "read (not loaded, or no CAP_PERFMON)", !!in->status);
	if (in->status) {
		if (view_of(&v, in->stats ? in->stats : &none) ||
		    (in->written &&
		     keep_written(&v, in->stats ? in->stats : &none,
				  in->written))) {
			view_free(&v);
			return hvc_err(ENOMEM, "out of memory for the metrics");
		}
		build_info(f, in);
		vm_info(f, in);
		reason_metrics(f, &v);
		vcpu_metrics(f, &v);
		if (metrics_irq_write(f, in->stats ? in->stats : &none,
				      in->status)) {
			view_free(&v);
			return hvc_err(ENOMEM, "out of memory for the metrics");
		}
		preemptor_metrics(f, &v);
		accounting_metrics(f, in->status);
		module_metrics(f, in->status);
		if (in->status->watch.known)
			watch_metrics(f, &in->status->watch);
		view_free(&v);
	}
	if (fflush(f) || ferror(f))
		return hvc_err(EIO, "writing the metrics failed");
	return 0;
}
