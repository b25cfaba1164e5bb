// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report's aggregation: one pass over the events into per-reason
 * histograms, a timeline and fixed-capacity hash tables, each row with
 * the time split of its exits. Nothing is allocated after report_new(),
 * so a trace of any size fits the same memory (report_memory() says how
 * much).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "exit_reasons.h"
#include "report_agg.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* Table sizes, log2 of the slots (3/4 of them usable). */
#define VMS_BITS	9	/* 384 VMs */
#define VCPUS_BITS	14	/* 12288 vCPUs */
#define PAIRS_BITS	17	/* 98304 (vCPU, reason) pairs */
#define RIPS_BITS	14	/* 12288 (RIP, reason) pairs */
#define PAGES_BITS	14	/* 12288 pages */
#define PORTS_BITS	13	/* 6144 ports */
#define MSRS_BITS	11	/* 1536 (MSR, reason) pairs */
#define SPOTS_BITS	14	/* 12288 (page, RIP, reason) spots */
/* CPU numbers the loss coverage tracks: the format's cpu fields are 16 bits. */
#define LOSS_CPUS_MAX	65536

const char *const rep_part_keys[REP_NR_PARTS] = {
	"handling_ns", "vmm_ns", "halt_ns", "runnable_ns", "other_ns",
};

_Static_assert(REP_VMM == 1 + HVTRACE_PART_VMM &&
	       REP_HALT == 1 + HVTRACE_PART_HALT &&
	       REP_RUNNABLE == 1 + HVTRACE_PART_RUNNABLE &&
	       REP_OTHER == 1 + HVTRACE_PART_OTHER &&
	       REP_NR_PARTS == 1 + HVTRACE_NR_PARTS,
	       "rep_part follows enum hvtrace_part");

/* Tables with rows in the report's tables of time split get a SPLIT. */
static int table_init(struct rep_table *t, const char *what,
		      unsigned int bits, bool by_reason, bool split)
{
	t->what = what;
	t->bits = bits;
	t->by_reason = by_reason;
	t->limit = (1U << bits) / 4 * 3;
	t->e = calloc(1U << bits, sizeof(*t->e));
	if (split)
		t->split = calloc(1U << bits, sizeof(*t->split));
	return t->e && (!split || t->split) ? 0 : -1;
}

static void entry_add(struct rep_entry *e, uint64_t ns)
{
	e->count++;
	e->total_ns += ns;
	if (ns > e->max_ns)
		e->max_ns = ns;
}

/*
 * The entry of KEY (and KEY2, REASON for tables keyed by them), added
 * with nothing counted if new; NULL when the table is full and the key
 * new.
 */
static inline struct rep_entry *table_slot(struct rep_table *t, uint64_t key,
				    uint64_t key2, unsigned int reason,
				    uint32_t aux)
{
	uint64_t h = key;
	unsigned int mask = (1U << t->bits) - 1;
	unsigned int i;
	struct rep_entry *e;

	if (t->by_reason)
		h ^= (uint64_t)reason << 48;
	if (t->two_keys)
		h ^= rep_hash64(key2) >> 7;
	for (i = rep_hash64(h) >> (64 - t->bits);; i = (i + 1) & mask) {
		e = &t->e[i];
		if (!e->used)
			break;
		if (e->key != key || (t->by_reason && e->reason != reason) ||
		    (t->two_keys && e->key2 != key2))
			continue;
		if (e->reason != reason)
			e->reason = REP_REASON_MIXED;
		return e;
	}
	if (t->used >= t->limit)
		return NULL;
	t->used++;
	e->used = 1;
	e->key = key;
	e->key2 = key2;
	e->reason = reason;
	e->aux = aux;
	return e;
}

static void split_add(struct rep_split *s, const struct trace_record *x)
{
	s->part_ns[REP_HANDLING] += x->handling_ns;
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		s->part_ns[1 + i] += x->part_ns[i];
	s->guest_ns += x->guest_ns;
}

/*
 * Count exit X (NS long) under KEY: its entry, or the other row when the
 * table is full and the key new. ROW gets the entry's index, or
 * UINT32_MAX for the other row.
 */
static inline struct rep_entry *table_add(struct rep_table *t, uint64_t key,
				   uint64_t key2, unsigned int reason,
				   const struct trace_record *x, uint32_t aux,
				   uint32_t *row)
{
	struct rep_entry *e = table_slot(t, key, key2, reason, aux);

	entry_add(e ? e : &t->other, x->duration_ns);
	if (t->split)
		split_add(e ? &t->split[e - t->e] : &t->other_split, x);
	if (row)
		*row = e ? (uint32_t)(e - t->e) : UINT32_MAX;
	return e;
}

/* For tables keyed by KEY alone. */
static struct rep_entry *table_find(const struct rep_table *t, uint64_t key)
{
	unsigned int mask = (1U << t->bits) - 1;
	unsigned int i = rep_hash64(key) >> (64 - t->bits);

	for (; t->e[i].used; i = (i + 1) & mask)
		if (t->e[i].key == key)
			return &t->e[i];
	return NULL;
}

static void io_codes(struct report *rep)
{
	struct exit_reason_ref ref[EXIT_REASON_MAX_MATCHES];
	int n = exit_reason_parse("io", ref, EXIT_REASON_MAX_MATCHES);

	for (int i = 0; i < 3; i++)
		rep->io_code[i] = UINT32_MAX;
	for (int i = 0; i < n; i++)
		if (ref[i].isa < 3)
			rep->io_code[ref[i].isa] = ref[i].code;
}

/* Everything report_new() hands out, each table at its full size. */
static int alloc_all(struct report *rep)
{
	size_t vms = 1U << VMS_BITS, vcpus = 1U << VCPUS_BITS;

	rep->vcpu_top = calloc(vcpus, sizeof(*rep->vcpu_top));
	rep->vcpu_top_ns = calloc(vcpus, sizeof(*rep->vcpu_top_ns));
	rep->vm_top = calloc(vms, sizeof(*rep->vm_top));
	rep->vm_top_ns = calloc(vms, sizeof(*rep->vm_top_ns));
	rep->vm_reason_ns = calloc(vms * (REP_MAX_REASONS + 1),
				   sizeof(*rep->vm_reason_ns));
	rep->order = calloc(1U << PAIRS_BITS, sizeof(*rep->order));
	rep->vm_order = calloc(vms, sizeof(*rep->vm_order));
	rep->loss = calloc(LOSS_CPUS_MAX, sizeof(*rep->loss));
	if (!rep->vcpu_top || !rep->vcpu_top_ns || !rep->vm_top ||
	    !rep->vm_top_ns || !rep->vm_reason_ns || !rep->order ||
	    !rep->vm_order || !rep->loss)
		return -1;
	rep->spots.two_keys = true;
	if (table_init(&rep->vms, "VMs", VMS_BITS, false, false) ||
	    table_init(&rep->vcpus, "vCPUs", VCPUS_BITS, false, true) ||
	    table_init(&rep->pairs, "(vCPU, reason) pairs", PAIRS_BITS, true,
		       false) ||
	    table_init(&rep->rips, "RIPs", RIPS_BITS, true, true) ||
	    table_init(&rep->pages, "pages", PAGES_BITS, false, true) ||
	    table_init(&rep->ports, "ports", PORTS_BITS, false, true) ||
	    table_init(&rep->msrs, "MSRs", MSRS_BITS, true, true) ||
	    table_init(&rep->spots, "hot spots", SPOTS_BITS, true, true))
		return -1;
	return rep_preempt_init(rep);
}

struct report *report_new(void)
{
	struct report *rep = calloc(1, sizeof(*rep));

	if (!rep)
		return NULL;
	rep->bin_shift = REP_BIN_SHIFT_MIN;
	snprintf(rep->reasons[REP_OTHER_REASON].name,
		 sizeof(rep->reasons[0].name), "other");
	rep->last_reason = REP_OTHER_REASON;
	rep->last_reason_key = UINT64_MAX;
	io_codes(rep);
	if (alloc_all(rep)) {
		report_free(rep);
		return NULL;
	}
	return rep;
}

void report_free(struct report *rep)
{
	struct rep_table *t[] = { &rep->vms, &rep->vcpus, &rep->pairs,
				  &rep->rips, &rep->pages, &rep->ports,
				  &rep->msrs, &rep->spots };

	if (!rep)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		free(t[i]->e);
		free(t[i]->split);
	}
	rep_preempt_free(rep);
	free(rep->vcpu_top);
	free(rep->vcpu_top_ns);
	free(rep->vm_top);
	free(rep->vm_top_ns);
	free(rep->vm_reason_ns);
	free(rep->order);
	free(rep->vm_order);
	free(rep->loss);
	free(rep);
}

size_t report_memory(const struct report *rep)
{
	const struct rep_table *t[] = { &rep->vms, &rep->vcpus, &rep->pairs,
					&rep->rips, &rep->pages, &rep->ports,
					&rep->msrs, &rep->spots };
	size_t vms = 1U << VMS_BITS, vcpus = 1U << VCPUS_BITS;
	size_t n = sizeof(*rep) + rep_preempt_memory(rep);

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		n += (size_t)rep_table_cap(t[i]) * (sizeof(struct rep_entry) +
			(t[i]->split ? sizeof(struct rep_split) : 0));
	n += vcpus * (sizeof(*rep->vcpu_top) + sizeof(*rep->vcpu_top_ns));
	n += vms * (sizeof(*rep->vm_top) + sizeof(*rep->vm_top_ns));
	n += vms * (REP_MAX_REASONS + 1) * sizeof(*rep->vm_reason_ns);
	n += LOSS_CPUS_MAX * sizeof(*rep->loss);
	n += ((1U << PAIRS_BITS) + vms) * sizeof(*rep->order);
	return n;
}

static void name_reason(struct rep_reason *rr)
{
	const char *name = exit_reason_name(rr->isa, rr->code);
	size_t len = sizeof(rr->name);

	if (rr->isa != HV_ISA_VMX && rr->isa != HV_ISA_SVM)
		snprintf(rr->name, len, "unknown");
	else if (!name)
		snprintf(rr->name, len, "%s 0x%x",
			 rr->isa == HV_ISA_VMX ? "VMX" : "SVM", rr->code);
	else if (rr->isa == HV_ISA_VMX && rr->code > HV_VMX_BASIC_REASON_MASK)
		/* Failed VM entry or enclave bits: keep them visible. */
		snprintf(rr->name, len, "%s 0x%x", name, rr->code);
	else
		snprintf(rr->name, len, "%s", name);
}

/* Index of (ISA, CODE) in rep->reasons, adding it if there is room. */
static unsigned int reason_index(struct report *rep, unsigned int isa,
				 uint32_t code)
{
	uint64_t key;
	unsigned int mask = 2 * REP_MAX_REASONS - 1;
	unsigned int i, r;

	/* Without the vendor the code means nothing: one "unknown" row. */
	if (isa != HV_ISA_VMX && isa != HV_ISA_SVM)
		isa = code = 0;
	key = (uint64_t)isa << 32 | code;
	/* Exits come in runs of one reason: remember the last. */
	if (key == rep->last_reason_key)
		return rep->last_reason;
	for (i = rep_hash64(key) >> 56 & mask; rep->reason_slot[i];
	     i = (i + 1) & mask) {
		r = rep->reason_slot[i] - 1;
		if (rep->reasons[r].isa == isa && rep->reasons[r].code == code)
			goto found;
	}
	if (rep->nr_reasons == REP_MAX_REASONS)
		return REP_OTHER_REASON;
	r = rep->nr_reasons++;
	rep->reason_slot[i] = r + 1;
	rep->reasons[r].isa = isa;
	rep->reasons[r].code = code;
	name_reason(&rep->reasons[r]);
found:
	rep->last_reason_key = key;
	rep->last_reason = r;
	return r;
}

/* Halve the timeline's resolution: merge bins pairwise. */
static void widen_bins(struct report *rep)
{
	for (unsigned int r = 0; r <= REP_MAX_REASONS; r++) {
		uint64_t *b = rep->reasons[r].bins;

		if (!rep->reasons[r].s.count)
			continue;
		for (unsigned int i = 0; i < REP_BINS / 2; i++)
			b[i] = b[2 * i] + b[2 * i + 1];
		memset(b + REP_BINS / 2, 0, REP_BINS / 2 * sizeof(*b));
	}
	rep->bin_shift++;
	rep->nr_bins = (rep->nr_bins + 1) / 2;
}

static unsigned int time_bin(struct report *rep, uint64_t ts)
{
	/* The reader merges streams in time order; clamp stragglers. */
	uint64_t off = ts > rep->t0 ? ts - rep->t0 : 0;

	while (off >> rep->bin_shift >= REP_BINS)
		widen_bins(rep);
	if (off >> rep->bin_shift >= rep->nr_bins)
		rep->nr_bins = (off >> rep->bin_shift) + 1;
	return off >> rep->bin_shift;
}

static void stat_add(struct rep_stat *s, uint64_t ns)
{
	if (!s->count || ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->count++;
	s->total_ns += ns;
}

/*
 * A preemption record: its task, and the preemptions of its vCPU and of
 * the reason of the exit in flight. Neither counts it as an exit.
 */
static void add_preempt(struct report *rep, const struct trace_record *x)
{
	unsigned int r = reason_index(rep, x->isa, x->reason);
	struct rep_entry *v;
	struct rep_split *s;

	rep->preempts++;
	rep->preempt_ns += x->duration_ns;
	rep_preempt_record(rep, x);
	rep->reasons[r].split.preempts++;
	rep->reasons[r].split.preempt_ns += x->duration_ns;
	v = table_slot(&rep->vcpus, (uint64_t)x->vm_id << 32 | x->vcpu_id, 0,
		       REP_REASON_MIXED, x->tid);
	s = v ? &rep->vcpus.split[v - rep->vcpus.e] : &rep->vcpus.other_split;
	s->preempts++;
	s->preempt_ns += x->duration_ns;
}

void report_add(struct report *rep, const struct trace_event *ev)
{
	const struct trace_record *x = &ev->e;
	uint64_t ns = x->duration_ns;
	uint32_t rows[REP_NR_ROW_KINDS];
	unsigned int r;
	struct rep_reason *rr;
	struct rep_entry *vcpu;

	if (trace_is_preempt(ev)) {
		add_preempt(rep, x);
		return;
	}
	r = reason_index(rep, x->isa, x->reason);
	rr = &rep->reasons[r];
	if (!rep->events++)
		rep->first_ts = rep->t0 = ev->ts_ns;
	if (ev->ts_ns > rep->last_ts)
		rep->last_ts = ev->ts_ns;
	rep->all_ns += ns;
	if (ns > rep->max_ns)
		rep->max_ns = ns;
	stat_add(&rr->s, ns);
	split_add(&rr->split, x);
	split_add(&rep->all_split, x);
	rr->hist.bucket[hist_index(ns)]++;
	rr->hist.count++;
	rr->bins[time_bin(rep, ev->ts_ns)]++;

	for (unsigned int k = 0; k < REP_NR_ROW_KINDS; k++)
		rows[k] = UINT32_MAX;
	rows[REP_ROW_REASON] = r;
	table_add(&rep->vms, x->vm_id, 0, REP_REASON_MIXED, x, x->vm_pid,
		  NULL);
	vcpu = table_add(&rep->vcpus, (uint64_t)x->vm_id << 32 | x->vcpu_id, 0,
			 REP_REASON_MIXED, x, x->tid, &rows[REP_ROW_VCPU]);
	if (vcpu)
		table_add(&rep->pairs, vcpu - rep->vcpus.e, 0, r, x, 0, NULL);
	if (x->flags & HVTRACE_EVF_RIP_VALID)
		table_add(&rep->rips, x->rip, 0, r, x, 0, &rows[REP_ROW_RIP]);
	if (x->flags & HVTRACE_EVF_ADDR_GPA) {
		table_add(&rep->pages, x->addr & ~0xfffULL, 0, r, x, 0,
			  &rows[REP_ROW_PAGE]);
		table_add(&rep->spots, x->addr & ~0xfffULL,
			  x->flags & HVTRACE_EVF_RIP_VALID ? x->rip : REP_NO_RIP,
			  r, x, 0, &rows[REP_ROW_SPOT]);
	}
	if (x->flags & HVTRACE_EVF_ADDR_MSR)
		table_add(&rep->msrs, x->addr, 0, r, x, 0, &rows[REP_ROW_MSR]);
	if (x->isa < 3 && x->reason == rep->io_code[x->isa])
		table_add(&rep->ports, x->info1 >> 16 & 0xffff, 0, r, x, 0,
			  &rows[REP_ROW_PORT]);
	if (x->preempt_pid)
		rep_preempt_noted(rep, x, rows);
}

static uint64_t clipped(uint64_t b, uint64_t e, uint64_t lo, uint64_t hi)
{
	if (b < lo)
		b = lo;
	if (e > hi)
		e = hi;
	return e > b ? e - b : 0;
}

/*
 * Loss ranges come per stream in packet order, so a running union per
 * CPU needs no storage. A range that starts before the one being merged
 * (not expected) is folded into it, which can only overstate the loss.
 */
static void loss_cb(unsigned int cpu, uint64_t begin, uint64_t end,
		    uint64_t lost, void *arg)
{
	struct report *rep = arg;
	struct rep_loss_cpu *l;

	if (cpu >= LOSS_CPUS_MAX)
		cpu = LOSS_CPUS_MAX - 1;
	if (cpu >= rep->loss_cpus)
		rep->loss_cpus = cpu + 1;
	rep->loss_ranges++;
	l = &rep->loss[cpu];
	l->lost += lost;
	if (end < begin)
		end = begin;
	if (!l->open) {
		l->open = true;
		l->begin = begin;
		l->end = end;
		return;
	}
	if (begin < l->begin) {
		rep->loss_unordered = true;
		l->begin = begin;
	}
	if (begin > l->end) {
		l->lost_ns += clipped(l->begin, l->end, rep->info.first_ts,
				      rep->info.last_ts);
		l->begin = begin;
		l->end = end;
	} else if (end > l->end) {
		l->end = end;
	}
}

static void loss_coverage(struct report *rep, const struct trace_reader *r)
{
	uint64_t lo = rep->info.first_ts, hi = rep->info.last_ts;

	trace_for_each_loss(r, loss_cb, rep);
	rep->lost_ns = 0;
	for (unsigned int c = 0; c < rep->loss_cpus; c++) {
		struct rep_loss_cpu *l = &rep->loss[c];

		if (l->open)
			l->lost_ns += clipped(l->begin, l->end, lo, hi);
		l->open = false;
		rep->lost_ns += l->lost_ns;
	}
}

static void top_reasons(struct report *rep)
{
	unsigned int nr = REP_MAX_REASONS + 1;

	for (unsigned int i = 0; i < rep_table_cap(&rep->vcpus); i++)
		rep->vcpu_top[i] = REP_REASON_MIXED;
	for (unsigned int i = 0; i < rep_table_cap(&rep->vms); i++)
		rep->vm_top[i] = REP_REASON_MIXED;
	for (unsigned int i = 0; i < rep_table_cap(&rep->pairs); i++) {
		const struct rep_entry *p = &rep->pairs.e[i];
		const struct rep_entry *vcpu, *vm;
		unsigned int v;

		if (!p->used)
			continue;
		v = p->key;
		if (p->total_ns >= rep->vcpu_top_ns[v]) {
			rep->vcpu_top[v] = p->reason;
			rep->vcpu_top_ns[v] = p->total_ns;
		}
		vcpu = &rep->vcpus.e[v];
		vm = table_find(&rep->vms, vcpu->key >> 32);
		if (vm)
			rep->vm_reason_ns[(vm - rep->vms.e) * nr + p->reason] +=
				p->total_ns;
	}
	for (unsigned int m = 0; m < rep_table_cap(&rep->vms); m++) {
		for (unsigned int r = 0; r < nr; r++) {
			uint64_t t = rep->vm_reason_ns[m * nr + r];

			if (t && t >= rep->vm_top_ns[m]) {
				rep->vm_top[m] = r;
				rep->vm_top_ns[m] = t;
			}
		}
	}
}

int report_finish(struct report *rep, const struct trace_reader *r)
{
	rep->reader = r;
	trace_get_info(r, &rep->info);
	/* An empty trace's packets may still say when it ran. */
	if (!rep->info.first_ts && !rep->info.last_ts) {
		rep->info.first_ts = rep->first_ts;
		rep->info.last_ts = rep->last_ts;
	}
	loss_coverage(rep, r);
	top_reasons(rep);
	rep_preempt_finish(rep);
	return 0;
}

uint64_t report_span_ns(const struct report *rep)
{
	const struct trace_info *i = &rep->info;

	return i->last_ts > i->first_ts ? i->last_ts - i->first_ts : 0;
}

double report_coverage(const struct report *rep)
{
	double all = (double)report_span_ns(rep) * rep->info.nr_streams;

	if (!rep->lost_ns)
		return 1.0;
	if (all <= 0 || (double)rep->lost_ns >= all)
		return 0.0;
	return 1.0 - (double)rep->lost_ns / all;
}

static const struct report *sort_rep;

static int by_reason_time(const void *a, const void *b)
{
	const struct rep_stat *x = &sort_rep->reasons[*(const unsigned int *)a].s;
	const struct rep_stat *y = &sort_rep->reasons[*(const unsigned int *)b].s;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return 0;
}

unsigned int report_reasons_by_time(const struct report *rep,
				    unsigned int *idx)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rep->nr_reasons; i++)
		idx[n++] = i;
	sort_rep = rep;
	qsort(idx, n, sizeof(*idx), by_reason_time);
	if (rep->reasons[REP_OTHER_REASON].s.count)
		idx[n++] = REP_OTHER_REASON;
	return n;
}

static int by_entry_time(const void *a, const void *b)
{
	const struct rep_entry *x = *(const struct rep_entry *const *)a;
	const struct rep_entry *y = *(const struct rep_entry *const *)b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->reason < y->reason ? -1 : x->reason > y->reason;
}

unsigned int report_table_sorted(const struct rep_table *t,
				 const struct rep_entry **out)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < rep_table_cap(t); i++)
		if (t->e[i].used)
			out[n++] = &t->e[i];
	qsort(out, n, sizeof(*out), by_entry_time);
	return n;
}

const char *report_reason_name(const struct report *rep, unsigned int idx)
{
	if (idx > REP_MAX_REASONS)
		return "mixed";
	return rep->reasons[idx].name;
}

uint64_t report_percentile(const struct rep_reason *rr, double p)
{
	return hist_percentile(&rr->hist, p, rr->s.min_ns, rr->s.max_ns);
}

const char *report_vm_name(const struct report *rep,
			   const struct rep_entry *vm, char *buf, size_t len)
{
	const char *name = trace_vm_label(rep->reader, vm->key, vm->aux, buf,
					  len);

	if (name != buf)
		snprintf(buf, len, "%s", name);
	/* vms.tsv comes from VMM command lines: no terminal controls. */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return buf;
}
