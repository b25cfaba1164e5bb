// SPDX-License-Identifier: GPL-2.0
/*
 * hvctl report's aggregation: one pass over the events into per-reason
 * histograms, a timeline and fixed-capacity hash tables, each row with
 * the time split of its exits. Nothing is allocated after report_new(),
 * so a trace of any size fits the same memory (report_memory() says how
 * much).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "exit_reasons.h"
#include "gpa_class.h"
/* The engine itself (or its test): its private state. */
#define HVCTL_REPORT_ENGINE
#include "report_engine.h"
#include "trace_read.h"
#include "util.h"


/* Table sizes, log2 of the slots (3/4 of them usable). */
#define VMS_BITS	9	/* 384 VMs */
#define VCPUS_BITS	14	/* 12288 vCPUs */
#define PAIRS_BITS	17	/* 98304 (vCPU, reason) pairs */
#define RIPS_BITS	14	/* 12288 (RIP, reason) pairs */
#define PAGES_BITS	14	/* 12288 pages */
#define PORTS_BITS	13	/* 6144 ports */
#define MSRS_BITS	11	/* 1536 (MSR, reason) pairs */
#define SPOTS_BITS	14	/* 12288 (page, RIP, reason) spots */
_Static_assert(VMS_BITS <= 17 && VCPUS_BITS <= 17 && PAIRS_BITS <= 17 &&
	       RIPS_BITS <= 17 && PAGES_BITS <= 17 && PORTS_BITS <= 17 &&
	       MSRS_BITS <= 17 && SPOTS_BITS <= 17,
	       "a slot's bits (the hash's top) stay above the tag's (32-46)");
/* CPU numbers the loss coverage tracks: the format's cpu fields are 16 bits. */
#define LOSS_CPUS_MAX	65536

_Static_assert(REP_VMM == 1 + HVTRACE_PART_VMM &&
	       REP_HALT == 1 + HVTRACE_PART_HALT &&
	       REP_RUNNABLE == 1 + HVTRACE_PART_RUNNABLE &&
	       REP_OTHER == 1 + HVTRACE_PART_OTHER &&
	       REP_NR_PARTS == 1 + HVTRACE_NR_PARTS,
	       "rep_part follows enum hvtrace_part");

/*
 * Tables with rows in the report's tables of time split get a SPLIT.
 * SCRATCH (LEN bytes) is the report's sorting space, free while reading.
 */
static int table_init(struct rep_table *t, const char *what,
		      unsigned int bits, enum rep_keys keys, bool split,
		      void *scratch, size_t len)
{
	t->what = what;
	t->scratch = scratch;
	t->scratch_len = len;
	t->bits = bits;
	t->keys = keys;
	t->limit = (1U << bits) / 4 * 3;
	t->tag = calloc(1U << bits, sizeof(*t->tag));
	t->e = calloc(1U << bits, sizeof(*t->e));
	if (split)
		t->split = calloc(1U << bits, sizeof(*t->split));
	return t->tag && t->e && (!split || t->split) ? 0 : -1;
}

static void entry_add(struct rep_entry *e, uint64_t ns)
{
	e->count++;
	e->total_ns += ns;
	if (ns > e->max_ns)
		e->max_ns = ns;
}

static inline uint64_t hash_of(enum rep_keys keys, uint64_t key,
			       uint64_t key2, unsigned int reason)
{
	uint64_t h = key;

	if (keys != REP_KEY)
		h ^= (uint64_t)reason << 48;
	if (keys == REP_KEY2_REASON)
		h ^= rep_hash64(key2) >> 7;
	return rep_hash64(h);
}

/* The first slot of hash H: its high bits. */
static inline unsigned int slot_of(const struct rep_table *t, uint64_t h)
{
	return h >> (64 - t->bits);
}

/* Its tag: bits 32 to 46, below every table's slot bits (_Static_assert). */
static inline uint16_t tag_of(uint64_t h)
{
	return (uint16_t)(h >> 32) | REP_TAG_USED;
}

/*
 * A table that fills up in the first pass keeps the keys with the most
 * exit time so far (weights: total_ns) and forgets the rest, the
 * frequent-items summary of Misra and Gries, weighted, in batches:
 *
 *   full: n keys     w0 >= ... > wh >= ........ >= wn-1   (h = n / 4)
 *                    '- keep, less d -' '---- forget ----'
 *   d = wh; bound_ns += d
 *
 * Each batch takes d from at least h + 1 keys, so bound_ns never exceeds
 * all exit time / (h + 1); a key's weight is short by at most bound_ns,
 * and a key that is forgotten in the end had at most bound_ns in all.
 * Three quarters of the table are free again, so the cost per new key
 * stays constant: a compaction walks the whole table, and keeping a half
 * instead took half as many new keys between two of them (gen-trace's
 * RIPs: 88 compactions over 1M events instead of 59). The second pass
 * counts the survivors exactly (report_again()).
 */
static void swap64(uint64_t *a, uint64_t *b)
{
	uint64_t t = *a;

	*a = *b;
	*b = t;
}

/* The K-th smallest of W[0..N) (N > K), reordering W: quickselect. */
static uint64_t kth_smallest(uint64_t *w, unsigned int n, unsigned int k)
{
	unsigned int lo = 0, hi = n;

	while (hi - lo > 1) {
		uint64_t pivot = w[lo + (hi - lo) / 2];
		unsigned int lt = lo, i = lo, gt = hi;

		/* [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi) > pivot */
		while (i < gt) {
			if (w[i] < pivot)
				swap64(&w[lt++], &w[i++]);
			else if (w[i] > pivot)
				swap64(&w[i], &w[--gt]);
			else
				i++;
		}
		if (k < lt)
			hi = lt;
		else if (k >= gt)
			lo = gt;
		else
			return pivot;
	}
	return w[lo];
}

/* E's weight in the summary: its time less the batches' take since. */
static uint64_t weight(const struct rep_table *t, const struct rep_entry *e)
{
	return e->total_ns - (t->bound_ns - e->since_ns);
}

static void split_merge(struct rep_split *to, const struct rep_split *s)
{
	for (int i = 0; i < REP_NR_PARTS; i++)
		to->part_ns[i] += s->part_ns[i];
	to->guest_ns += s->guest_ns;
	to->preempts += s->preempts;
	to->preempt_ns += s->preempt_ns;
}

/* The row kind whose charges name T's rows, or REP_NR_ROW_KINDS: none. */
static unsigned int row_kind(const struct rep_table *t)
{
	unsigned int k;

	for (k = 0; k < REP_NR_ROW_KINDS; k++)
		if (t->rep->row_table[k] == t)
			break;
	return k;
}

/* Slot I's key leaves: its exits are other's from now on. */
static void forget(struct rep_table *t, unsigned int i)
{
	struct rep_entry *e = &t->e[i];

	t->other.count += e->count;
	t->other.total_ns += e->total_ns;
	if (e->max_ns > t->other.max_ns)
		t->other.max_ns = e->max_ns;
	if (t->split) {
		split_merge(&t->other_split, &t->split[i]);
		t->split[i] = (struct rep_split){ 0 };
	}
	t->tag[i] = 0;
	e->used = 0;
	t->used--;
}

/*
 * Drop the keys of weight D or less, take D from the rest (bound_ns += D
 * does it for all), in place: then every survivor moves to the first
 * free slot from its home, its split and preemptor charges with it. The
 * sweep starts after a free slot, so no probe run wraps past it, and a
 * survivor only moves back within its own run: the runs stay unbroken.
 */
static void compact(struct rep_table *t)
{
	uint64_t *w = t->scratch;
	uint32_t *moved = t->rep->moved;
	unsigned int n = 0, cap = 1U << t->bits, mask = cap - 1, start = 0;
	unsigned int kind = row_kind(t);
	uint64_t d;

	for (unsigned int i = 0; i < cap; i++)
		if (t->tag[i])
			w[n++] = weight(t, &t->e[i]);
	d = kth_smallest(w, n, n - 1 - n / 4);
	for (unsigned int i = 0; i < cap; i++) {
		moved[i] = i;
		if (t->tag[i] && weight(t, &t->e[i]) <= d) {
			forget(t, i);
			moved[i] = UINT32_MAX;
		}
	}
	while (t->tag[start])
		start++;
	for (unsigned int k = 1; k < cap; k++) {
		unsigned int i = (start + k) & mask, j;
		const struct rep_entry *e = &t->e[i];

		if (!t->tag[i])
			continue;
		j = slot_of(t, hash_of(t->keys, e->key, e->key2, e->reason));
		while (t->tag[j] && j != i)
			j = (j + 1) & mask;
		if (j == i)
			continue;
		t->tag[j] = t->tag[i];
		t->e[j] = *e;
		t->tag[i] = 0;
		t->e[i].used = 0;
		if (t->split) {
			t->split[j] = t->split[i];
			t->split[i] = (struct rep_split){ 0 };
		}
		moved[i] = j;
	}
	if (kind < REP_NR_ROW_KINDS)
		rep_preempt_moved(t->rep, kind, moved);
	t->bound_ns += d;
	t->compactions++;
	t->sketching = true;
}

/*
 * The entry of KEY (and KEY2, REASON for tables keyed by them), added
 * with nothing counted if new; NULL when the key is new and the table
 * full (a table that may be a summary makes room instead) or recounting
 * its seeds.
 */
static inline __attribute__((always_inline))
struct rep_entry *table_slot(struct rep_table *t, enum rep_keys keys,
			     uint64_t key, uint64_t key2, unsigned int reason,
			     uint32_t aux)
{
	unsigned int mask = (1U << t->bits) - 1;
	uint64_t h = hash_of(keys, key, key2, reason);
	uint16_t tag = tag_of(h);
	unsigned int i;
	struct rep_entry *e;

again:
	for (i = slot_of(t, h);; i = (i + 1) & mask) {
		if (!t->tag[i])
			break;
		if (t->tag[i] != tag)
			continue;
		e = &t->e[i];
		if (e->key != key ||
		    (keys != REP_KEY && e->reason != reason) ||
		    (keys == REP_KEY2_REASON && e->key2 != key2))
			continue;
		if (e->used == REP_SEEDED) {
			/* First seen in the second pass: as if new. */
			e->used = REP_USED;
			e->reason = reason;
			e->aux = aux;
		} else if (e->reason != reason) {
			e->reason = REP_REASON_MIXED;
		}
		return e;
	}
	/* A recount keeps to its seeds: its rows do not hang on the order. */
	if (t->seeded)
		return NULL;
	if (t->used >= t->limit) {
		if (!t->sketch)
			return NULL;
		compact(t);
		goto again;
	}
	t->used++;
	t->tag[i] = tag;
	e = &t->e[i];
	*e = (struct rep_entry){
		.key = key, .key2 = key2, .aux = aux, .reason = reason,
		.used = REP_USED, .since_ns = t->bound_ns,
		.late = t->compactions > 0,
	};
	return e;
}

/* Unrolled: it runs for every table an exit is counted in. */
static void split_add(struct rep_split *s, const struct trace_record *x)
{
	s->part_ns[REP_HANDLING] += x->handling_ns;
#pragma GCC unroll HVTRACE_NR_PARTS
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		s->part_ns[1 + i] += x->part_ns[i];
	s->guest_ns += x->guest_ns;
}

/*
 * Count exit X (NS long) under KEY: its entry, or the other row when the
 * table is full and the key new. ROW gets the entry's index, or
 * UINT32_MAX for the other row. Inlined at each call, where KEYS is a
 * constant.
 */
static inline __attribute__((always_inline))
struct rep_entry *table_add(struct rep_table *t, enum rep_keys keys,
			    uint64_t key, uint64_t key2, unsigned int reason,
			    const struct trace_record *x, uint32_t aux,
			    uint32_t *row)
{
	struct rep_entry *e = table_slot(t, keys, key, key2, reason, aux);

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
	uint64_t h = hash_of(REP_KEY, key, 0, 0);
	uint16_t tag = tag_of(h);
	unsigned int i = slot_of(t, h);

	for (; t->tag[i]; i = (i + 1) & mask)
		if (t->tag[i] == tag && t->e[i].key == key)
			return &t->e[i];
	return NULL;
}

/* Everything report_new() hands out, each table at its full size. */
static int alloc_all(struct report *rep)
{
	size_t vms = 1U << VMS_BITS, vcpus = 1U << VCPUS_BITS;
	struct rep_table *sketched[] = { &rep->vms, &rep->vcpus, &rep->rips,
					 &rep->pages, &rep->ports, &rep->msrs,
					 &rep->spots };
	size_t len = (1U << PAIRS_BITS) * sizeof(*rep->order);
	void *sc;

	rep->vcpu_top = calloc(vcpus, sizeof(*rep->vcpu_top));
	rep->vcpu_top_ns = calloc(vcpus, sizeof(*rep->vcpu_top_ns));
	rep->vm_top = calloc(vms, sizeof(*rep->vm_top));
	rep->vm_top_ns = calloc(vms, sizeof(*rep->vm_top_ns));
	rep->vm_reason_ns = calloc(vms * (REP_MAX_REASONS + 1),
				   sizeof(*rep->vm_reason_ns));
	rep->order = calloc(1U << PAIRS_BITS, sizeof(*rep->order));
	rep->loss = calloc(LOSS_CPUS_MAX, sizeof(*rep->loss));
	if (!rep->vcpu_top || !rep->vcpu_top_ns || !rep->vm_top ||
	    !rep->vm_top_ns || !rep->vm_reason_ns || !rep->order ||
	    !rep->loss)
		return -1;
	sc = rep->order;
	if (table_init(&rep->vms, "VMs", VMS_BITS, REP_KEY, false, sc, len) ||
	    table_init(&rep->vcpus, "vCPUs", VCPUS_BITS, REP_KEY, true, sc,
		       len) ||
	    table_init(&rep->pairs, "(vCPU, reason) pairs", PAIRS_BITS,
		       REP_KEY_REASON, false, sc, len) ||
	    table_init(&rep->rips, "RIPs", RIPS_BITS, REP_KEY_REASON, true, sc,
		       len) ||
	    table_init(&rep->pages, "pages", PAGES_BITS, REP_KEY, true, sc,
		       len) ||
	    table_init(&rep->ports, "ports", PORTS_BITS, REP_KEY, true, sc,
		       len) ||
	    table_init(&rep->msrs, "MSRs", MSRS_BITS, REP_KEY_REASON, true, sc,
		       len) ||
	    table_init(&rep->spots, "hot spots", SPOTS_BITS, REP_KEY2_REASON,
		       true, sc, len))
		return -1;
	/*
	 * Every table but the pairs (keyed by vCPU slot, so recounted with
	 * the vCPUs) may become a summary: its compaction needs a weight per
	 * key of scratch.
	 */
	for (size_t i = 0; i < ARRAY_SIZE(sketched); i++) {
		sketched[i]->sketch = true;
		sketched[i]->rep = rep;
		if (sketched[i]->limit * sizeof(uint64_t) > len)
			return -1;
		if (rep_table_cap(sketched[i]) > rep->moved_cap)
			rep->moved_cap = rep_table_cap(sketched[i]);
	}
	rep->moved = calloc(rep->moved_cap, sizeof(*rep->moved));
	if (!rep->moved)
		return -1;
	rep->row_table[REP_ROW_VCPU] = &rep->vcpus;
	rep->row_table[REP_ROW_RIP] = &rep->rips;
	rep->row_table[REP_ROW_PAGE] = &rep->pages;
	rep->row_table[REP_ROW_SPOT] = &rep->spots;
	rep->row_table[REP_ROW_PORT] = &rep->ports;
	rep->row_table[REP_ROW_MSR] = &rep->msrs;
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
	rep->passes = 1;
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
		free(t[i]->tag);
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
	free(rep->moved);
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
			sizeof(uint16_t) +
			(t[i]->split ? sizeof(struct rep_split) : 0));
	n += vcpus * (sizeof(*rep->vcpu_top) + sizeof(*rep->vcpu_top_ns));
	n += vms * (sizeof(*rep->vm_top) + sizeof(*rep->vm_top_ns));
	n += vms * (REP_MAX_REASONS + 1) * sizeof(*rep->vm_reason_ns);
	n += LOSS_CPUS_MAX * sizeof(*rep->loss);
	n += (1U << PAIRS_BITS) * sizeof(*rep->order);
	n += rep->moved_cap * sizeof(*rep->moved);
	return n;
}

static void name_reason(struct rep_reason *rr)
{
	exit_reason_label(rr->name, sizeof(rr->name), rr->isa, rr->code);
}

/* reason_index() for a reason not seen yet, or not in reason_direct. */
static unsigned int reason_lookup(struct report *rep, unsigned int isa,
				  uint32_t code)
{
	uint64_t key;
	unsigned int mask = 2 * REP_MAX_REASONS - 1;
	unsigned int i, r;

	/* Without the vendor the code means nothing: one "unknown" row. */
	if (isa != HV_ISA_VMX && isa != HV_ISA_SVM)
		isa = code = 0;
	key = (uint64_t)isa << 32 | code;
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
	rep->reasons[r].cls = exit_reason_class(isa, code);
	name_reason(&rep->reasons[r]);
found:
	if (isa && code < REP_DIRECT_CODES)
		rep->reason_direct[isa - HV_ISA_VMX][code] = r + 1;
	return r;
}

/*
 * Index of (ISA, CODE) in rep->reasons, adding it if there is room: one
 * load for a vendor's reason seen before.
 */
static inline unsigned int reason_index(struct report *rep, unsigned int isa,
					uint32_t code)
{
	unsigned int r;

	_Static_assert(HV_ISA_SVM == HV_ISA_VMX + 1, "reason_direct's rows");
	if (isa - HV_ISA_VMX <= 1 && code < REP_DIRECT_CODES) {
		r = rep->reason_direct[isa - HV_ISA_VMX][code];
		if (r)
			return r - 1;
	}
	return reason_lookup(rep, isa, code);
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
 * the reason of the exit in flight. Neither counts it as an exit. The
 * second pass only has the vCPUs to recount, if they overflowed.
 */
static void add_preempt(struct report *rep, const struct trace_record *x)
{
	unsigned int r;
	struct rep_entry *v;
	struct rep_split *s;

	if (rep->passes == 1) {
		r = reason_index(rep, x->isa, x->reason);
		rep->preempts++;
		rep->preempt_ns += x->duration_ns;
		rep_preempt_record(rep, x);
		rep->reasons[r].split.preempts++;
		rep->reasons[r].split.preempt_ns += x->duration_ns;
	} else if (!rep->vcpus.seeded) {
		return;
	}
	v = table_slot(&rep->vcpus, REP_KEY, (uint64_t)x->vm_id << 32 |
		       x->vcpu_id, 0, REP_REASON_MIXED, x->tid);
	s = v ? &rep->vcpus.split[v - rep->vcpus.e] : &rep->vcpus.other_split;
	s->preempts++;
	s->preempt_ns += x->duration_ns;
}

/* The first pass feeds every table, the second the seeded ones. */
static inline bool feeds(const struct report *rep, const struct rep_table *t)
{
	return rep->passes == 1 || t->seeded;
}

/* Exit X of reason R into the keyed tables; ROWS: its rows there. */
static void add_keys(struct report *rep, const struct trace_record *x,
		     unsigned int r, uint32_t *rows)
{
	struct rep_entry *vcpu = NULL;
	const struct rep_reason *rr = &rep->reasons[r];
	bool port_io = r == REP_OTHER_REASON ?
		       exit_reason_class(x->isa, x->reason) ==
		       EXIT_CLASS_PORT_IO : rr->cls == EXIT_CLASS_PORT_IO;

	if (feeds(rep, &rep->vms))
		table_add(&rep->vms, REP_KEY, x->vm_id, 0, REP_REASON_MIXED, x,
			  x->vm_pid, NULL);
	if (feeds(rep, &rep->vcpus))
		vcpu = table_add(&rep->vcpus, REP_KEY, (uint64_t)x->vm_id << 32 |
				 x->vcpu_id, 0, REP_REASON_MIXED, x, x->tid,
				 &rows[REP_ROW_VCPU]);
	if (vcpu && !rep->vcpus.sketching)
		table_add(&rep->pairs, REP_KEY_REASON, vcpu - rep->vcpus.e, 0,
			  r, x, 0, NULL);
	if ((x->flags & HVTRACE_EVF_RIP_VALID) && feeds(rep, &rep->rips))
		table_add(&rep->rips, REP_KEY_REASON, x->rip, 0, r, x, 0,
			  &rows[REP_ROW_RIP]);
	if (x->flags & HVTRACE_EVF_ADDR_GPA) {
		/* What the page's faults hit: aux sums them up. */
		uint32_t hits = gpa_hits(x->flags);
		struct rep_entry *e;

		if (feeds(rep, &rep->pages)) {
			e = table_add(&rep->pages, REP_KEY, x->addr & ~0xfffULL,
				      0, r, x, hits, &rows[REP_ROW_PAGE]);
			if (e)
				e->aux |= hits;
		}
		if (feeds(rep, &rep->spots)) {
			e = table_add(&rep->spots, REP_KEY2_REASON,
				      x->addr & ~0xfffULL,
				      x->flags & HVTRACE_EVF_RIP_VALID ? x->rip :
				      REP_NO_RIP, r, x, hits,
				      &rows[REP_ROW_SPOT]);
			if (e)
				e->aux |= hits;
		}
	}
	if ((x->flags & HVTRACE_EVF_ADDR_MSR) && feeds(rep, &rep->msrs))
		table_add(&rep->msrs, REP_KEY_REASON, x->addr, 0, r, x, 0,
			  &rows[REP_ROW_MSR]);
	if (port_io && feeds(rep, &rep->ports))
		table_add(&rep->ports, REP_KEY, x->info1 >> 16 & 0xffff, 0, r,
			  x, 0,
			  &rows[REP_ROW_PORT]);
}

/* A guest mark: kept as it is, while there is room; no exit. */
static void add_mark(struct report *rep, const struct trace_event *ev)
{
	const struct trace_record *x = &ev->e;

	if (rep->passes > 1)
		return;
	if (rep->all_marks++ >= REP_MAX_MARKS)
		return;
	rep->marks[rep->nr_marks++] = (struct rep_mark){
		.ts_ns = trace_exit_ns(ev), .id = x->info1,
		.guest_tsc = x->info2, .rip = x->rip,
		.host_tsc = x->mark.host_tsc, .tsc_offset = x->mark.tsc_offset,
		.tsc_ratio = x->mark.tsc_ratio,
		.tsc_frac_bits = x->mark.tsc_frac_bits, .vm_id = x->vm_id,
		.vm_pid = x->vm_pid, .vcpu_id = x->vcpu_id, .flags = x->flags,
	};
}

unsigned int report_marks(const struct report *rep,
			  const struct rep_mark **marks, uint64_t *total)
{
	*marks = rep->marks;
	*total = rep->all_marks;
	return rep->nr_marks;
}

void report_add(struct report *rep, const struct trace_event *ev)
{
	const struct trace_record *x = &ev->e;
	uint64_t ns = x->duration_ns;
	uint32_t rows[REP_NR_ROW_KINDS];
	unsigned int r;
	struct rep_reason *rr;

	if (trace_is_preempt(ev)) {
		add_preempt(rep, x);
		return;
	}
	if (trace_is_mark(ev)) {
		add_mark(rep, ev);
		return;
	}
	/* Not an exit, and its reason is a vector: the report has no use yet. */
	if (trace_is_irq(ev))
		return;
	r = reason_index(rep, x->isa, x->reason);
	for (unsigned int k = 0; k < REP_NR_ROW_KINDS; k++)
		rows[k] = UINT32_MAX;
	if (rep->passes > 1) {
		rep->again_events++;
		add_keys(rep, x, r, rows);
		if (x->preempt_pid)
			rep_preempt_blame(rep, x, rows);
		return;
	}
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
	rows[REP_ROW_REASON] = r;
	add_keys(rep, x, r, rows);
	if (x->preempt_pid)
		rep_preempt_noted(rep, x, rows);
}

void report_set_window(struct report *rep, uint64_t lo, uint64_t hi)
{
	rep->window = true;
	rep->win_lo = lo;
	rep->win_hi = hi;
}

/*
 * Would a recount show summary T's first TOP rows any differently? Not
 * when each came in before the first compaction (exact all along) and
 * is above all a late key can have had: its exit time since it came in
 * plus what the summary took before that (since_ns). The VMs and vCPUs
 * (whose slots key the pairs) and the hot spots (also listed by their
 * preemptor's time) are always recounted; so is a table whose preemptor
 * charges did not all fit.
 */
static bool exact_in_one_pass(const struct report *rep,
			      const struct rep_table *t, unsigned int top)
{
	const struct rep_entry **row = (const struct rep_entry **)rep->order;
	const struct rep_entry *last = NULL;
	unsigned int n, shown = 0, late = 0;
	uint64_t late_max = 0;

	if (t == &rep->vms || t == &rep->vcpus || t == &rep->spots ||
	    rep->blame.lost_kind[row_kind(t)])
		return false;
	n = report_table_sorted(t, row);
	for (unsigned int i = 0; i < n; i++) {
		if (row[i]->late) {
			late++;
			if (row[i]->total_ns + row[i]->since_ns > late_max)
				late_max = row[i]->total_ns + row[i]->since_ns;
		} else if (shown < top) {
			shown++;
			last = row[i];
		}
	}
	/* Nothing shown (TOP 0) needs nothing proven. */
	return !late || !top || (shown == top && last->total_ns > late_max);
}

bool report_wants_pass(const struct report *rep, unsigned int top)
{
	const struct rep_table *t[] = { &rep->vms, &rep->vcpus, &rep->rips,
					&rep->pages, &rep->ports, &rep->msrs,
					&rep->spots };

	if (rep->passes != 1)
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (t[i]->sketching && !exact_in_one_pass(rep, t[i], top))
			return true;
	return false;
}

/*
 * A summary not counted again: its late keys go to other (their counts
 * miss what came before), and what other's keys can have had is the
 * most any of them could: bound_ns, or a late key's time and since_ns.
 */
static void prove(struct rep_table *t)
{
	uint32_t *moved = t->rep->moved;
	unsigned int kind = row_kind(t);
	uint64_t most = t->bound_ns;

	for (unsigned int i = 0; i < rep_table_cap(t); i++) {
		struct rep_entry *e = &t->e[i];

		moved[i] = i;
		if (!e->used || !e->late)
			continue;
		if (e->total_ns + e->since_ns > most)
			most = e->total_ns + e->since_ns;
		forget(t, i);
		moved[i] = UINT32_MAX;
	}
	if (kind < REP_NR_ROW_KINDS)
		rep_preempt_moved(t->rep, kind, moved);
	t->bound_ns = most;
	t->sketching = false;
	t->proven = true;
}

/* A summary's keys, to be counted again from zero. */
static void seed(struct rep_table *t)
{
	unsigned int cap = 1U << t->bits;

	for (unsigned int i = 0; i < cap; i++) {
		struct rep_entry *e = &t->e[i];

		if (!e->used)
			continue;
		e->count = e->total_ns = e->max_ns = 0;
		e->since_ns = 0;
		e->late = false;
		e->aux = 0;
		e->used = REP_SEEDED;
	}
	if (t->split)
		memset(t->split, 0, cap * sizeof(*t->split));
	memset(&t->other, 0, sizeof(t->other));
	memset(&t->other_split, 0, sizeof(t->other_split));
	t->sketching = false;
	t->seeded = true;
}

void report_again(struct report *rep)
{
	struct rep_table *t[] = { &rep->vms, &rep->vcpus, &rep->rips,
				  &rep->pages, &rep->ports, &rep->msrs,
				  &rep->spots };
	bool kinds[REP_NR_ROW_KINDS] = { false };

	for (size_t i = 0; i < ARRAY_SIZE(t); i++)
		if (t[i]->sketching)
			seed(t[i]);
	/* The pairs are keyed by vCPU slot: recounted with the vCPUs. */
	if (rep->vcpus.seeded) {
		memset(rep->pairs.e, 0,
		       rep_table_cap(&rep->pairs) * sizeof(*rep->pairs.e));
		memset(rep->pairs.tag, 0,
		       rep_table_cap(&rep->pairs) * sizeof(*rep->pairs.tag));
		memset(&rep->pairs.other, 0, sizeof(rep->pairs.other));
		rep->pairs.used = 0;
	}
	for (unsigned int k = 0; k < REP_NR_ROW_KINDS; k++)
		kinds[k] = rep->row_table[k] && rep->row_table[k]->seeded;
	rep_preempt_forget(rep, kinds);
	rep->passes++;
}

/*
 * The RIP, page, hot-spot, port and MSR tables recount sums, maxima and a
 * reason that is "mixed" whatever the order; which preemptor rows find
 * room once the blame table is full does depend on it, but that is
 * counted as blame lost either way.
 */
bool report_again_any_order(const struct report *rep)
{
	return !rep->vms.seeded && !rep->vcpus.seeded;
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

static void summarize(struct report *rep)
{
	struct rep_summary *s = &rep->sum;

	s->info = rep->info;
	s->events = rep->events;
	s->all_ns = rep->all_ns;
	s->max_ns = rep->max_ns;
	s->preempts = rep->preempts;
	s->preempt_ns = rep->preempt_ns;
	s->all_split = rep->all_split;
	s->nr_reasons = rep->nr_reasons;
	s->bin_shift = rep->bin_shift;
	s->nr_bins = rep->nr_bins;
	s->loss_cpus = rep->loss_cpus;
	s->lost_ns = rep->lost_ns;
	s->loss_ranges = rep->loss_ranges;
	s->loss_unordered = rep->loss_unordered;
	s->pre_records = rep->pre.records;
	s->pre_stall_ns = rep->pre.stall_ns;
	s->pre_noted = rep->pre.noted;
	s->pre_noted_ns = rep->pre.noted_ns;
	s->pre_limit = rep->pre.limit;
	s->pre_used = rep->pre.used;
	s->pre_other = rep->pre.other;
	s->blame_lost = rep->blame.lost;
	s->pairs_what = rep->pairs.what;
	s->pairs_other = rep->pairs.other.count;
	s->memory = report_memory(rep);
}

int report_finish(struct report *rep, const struct trace_reader *r)
{
	/*
	 * Not the VMs' and vCPUs': they are looked up by key after this
	 * (VM names, the pairs' slots), which prove()'s holes would break;
	 * report_wants_pass() always recounts them.
	 */
	struct rep_table *summaries[] = { &rep->rips, &rep->pages,
					  &rep->ports, &rep->msrs,
					  &rep->spots };

	/* The same trace twice, or the second pass's counts mean nothing. */
	if (rep->passes > 1 && rep->again_events != rep->events)
		return -1;
	rep->reader = r;
	trace_get_info(r, &rep->info);
	for (size_t i = 0; i < ARRAY_SIZE(summaries); i++)
		if (summaries[i]->sketching)
			prove(summaries[i]);
	if (rep->window) {
		if (rep->info.first_ts < rep->win_lo)
			rep->info.first_ts = rep->win_lo;
		if (rep->info.last_ts > rep->win_hi)
			rep->info.last_ts = rep->win_hi;
		if (rep->info.last_ts < rep->info.first_ts)
			rep->info.last_ts = rep->info.first_ts;
	}
	/* An empty trace's packets may still say when it ran. */
	if (!rep->info.first_ts && !rep->info.last_ts) {
		rep->info.first_ts = rep->first_ts;
		rep->info.last_ts = rep->last_ts;
	}
	loss_coverage(rep, r);
	top_reasons(rep);
	rep_preempt_finish(rep);
	summarize(rep);
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

const char *report_vm_name(const struct report *rep, uint64_t vm_id,
			   char *buf, size_t len)
{
	const struct rep_entry *vm = table_find(&rep->vms, vm_id);
	const char *name;

	if (!vm) {
		snprintf(buf, len, "vm%" PRIu64, vm_id);
		return buf;
	}
	name = trace_vm_label(rep->reader, vm->key, vm->aux, buf, len);
	if (name != buf)
		snprintf(buf, len, "%s", name);
	/* vms.tsv comes from VMM command lines: no terminal controls. */
	for (char *c = buf; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return buf;
}

const struct rep_summary *report_summary(const struct report *rep)
{
	return &rep->sum;
}

const struct rep_reason *report_reason(const struct report *rep,
				       unsigned int idx)
{
	return &rep->reasons[idx > REP_MAX_REASONS ? REP_OTHER_REASON : idx];
}

void report_loss_cpu(const struct report *rep, unsigned int c,
		     uint64_t *lost, uint64_t *lost_ns)
{
	*lost = c < rep->loss_cpus ? rep->loss[c].lost : 0;
	*lost_ns = c < rep->loss_cpus ? rep->loss[c].lost_ns : 0;
}

static const struct rep_table *table_of(const struct report *rep,
					enum rep_table_id t)
{
	const struct rep_table *tables[REP_NR_TABLES] = {
		[REP_T_VMS] = &rep->vms, [REP_T_VCPUS] = &rep->vcpus,
		[REP_T_RIPS] = &rep->rips, [REP_T_PAGES] = &rep->pages,
		[REP_T_SPOTS] = &rep->spots, [REP_T_PORTS] = &rep->ports,
		[REP_T_MSRS] = &rep->msrs,
	};

	return tables[t];
}

/* Entry E of table T (its other row too) as a renderer's row. */
static void row_of(const struct report *rep, enum rep_table_id id,
		   const struct rep_entry *e, struct rep_row *row)
{
	const struct rep_table *t = table_of(rep, id);
	bool other = e == &t->other;
	unsigned int slot = other ? 0 : e - t->e;

	*row = (struct rep_row){
		.key = e->key, .key2 = e->key2, .count = e->count,
		.total_ns = e->total_ns, .max_ns = e->max_ns, .aux = e->aux,
		.reason = e->reason, .top_reason = REP_REASON_MIXED,
	};
	if (t->split) {
		row->split = rep_split_of(t, e);
		row->top = rep_preemptor_at(rep, row->split->top);
	}
	if (other)
		return;
	if (id == REP_T_VMS) {
		row->top_reason = rep->vm_top[slot];
		row->top_reason_ns = rep->vm_top_ns[slot];
	} else if (id == REP_T_VCPUS) {
		row->top_reason = rep->vcpu_top[slot];
		row->top_reason_ns = rep->vcpu_top_ns[slot];
	} else if ((id == REP_T_PAGES || id == REP_T_SPOTS) &&
		   (e->aux & ~(1U << GPA_RAM) & GPA_HIT_CLASSES)) {
		trace_devices_in(rep->reader, e->key, e->key | 0xfff,
				 row->device, sizeof(row->device));
	}
}

void report_table_info(const struct report *rep, enum rep_table_id id,
		       struct rep_table_info *info)
{
	const struct rep_table *t = table_of(rep, id);

	*info = (struct rep_table_info){
		.what = t->what, .limit = t->limit, .used = t->used,
		.two_keys = t->keys == REP_KEY2_REASON, .seeded = t->seeded,
		.proven = t->proven,
		.bound_ns = t->bound_ns,
	};
	row_of(rep, id, &t->other, &info->other);
}

static int by_top_ns(const void *a, const void *b, void *arg)
{
	const struct rep_table *t = arg;
	const struct rep_entry *x = *(const struct rep_entry *const *)a;
	const struct rep_entry *y = *(const struct rep_entry *const *)b;
	uint64_t tx = rep_split_of(t, x)->top_ns;
	uint64_t ty = rep_split_of(t, y)->top_ns;

	if (tx != ty)
		return tx < ty ? 1 : -1;
	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->key2 < y->key2 ? -1 : x->key2 > y->key2;
}

int rep_iter_start(struct rep_iter *it, const struct report *rep,
		   enum rep_table_id id, enum rep_order by)
{
	const struct rep_table *t = table_of(rep, id);
	const struct rep_entry **order;
	unsigned int n = 0;

	*it = (struct rep_iter){ .rep = rep, .table = id };
	/* t->used counts the used slots: room for the rows, no more. */
	order = calloc(t->used ? t->used : 1, sizeof(*order));
	if (!order)
		return -1;
	it->order = (const void **)order;
	if (by == REP_BY_TIME) {
		it->n = report_table_sorted(t, order);
		return 0;
	}
	/* REP_BY_PREEMPTOR: tables without a split have no such rows. */
	for (unsigned int i = 0; t->split && i < rep_table_cap(t); i++)
		if (t->e[i].used && t->split[i].top)
			order[n++] = &t->e[i];
	qsort_r(order, n, sizeof(*order), by_top_ns, (void *)t);
	it->n = n;
	return 0;
}

bool rep_iter_next(struct rep_iter *it, struct rep_row *row)
{
	if (it->pos >= it->n)
		return false;
	row_of(it->rep, it->table, it->order[it->pos++], row);
	return true;
}

void rep_iter_end(struct rep_iter *it)
{
	free(it->order);
	it->order = NULL;
	it->n = it->pos = 0;
}
