// SPDX-License-Identifier: GPL-2.0
/* GET_STATUS (for the age) and the GET_STATS dump into plain arrays. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "client.h"
#include "client_priv.h"
#include "exit_reasons.h"
#include "grow.h"

static void add_hist(struct hvc_reason_row *r, const struct nlattr *a)
{
	if (!a)
		return;
	r->has_hist = true;
	hist_add_buckets(&r->hist, mnl_attr_get_payload(a),
			 mnl_attr_get_payload_len(a) /
			 sizeof(struct hvtrace_hist_bucket));
}

/*
 * A REASON nest without a count goes on with the histogram of the reason
 * before it, which must be the same reason.
 */
static int merge_hist(struct hvc_stats *s, const struct nlattr *const *tb)
{
	struct hvc_reason_row *r = s->nr_reasons ?
			       &s->reasons[s->nr_reasons - 1] : NULL;

	if (!r || r->isa != hvnl_u8(tb[HVTRACE_RSN_ISA]) ||
	    r->has_code != !!tb[HVTRACE_RSN_CODE] ||
	    r->code != hvnl_u32(tb[HVTRACE_RSN_CODE])) {
		return hvc_err(EPROTO, "the module's statistics continue a "
			       "histogram without its reason (ISA %u code 0x%x)",
			       hvnl_u8(tb[HVTRACE_RSN_ISA]),
			       hvnl_u32(tb[HVTRACE_RSN_CODE]));
	}
	add_hist(r, tb[HVTRACE_RSN_HIST]);
	return 0;
}

static int parse_reason(struct hvc_stats *s, const struct nlattr *nest)
{
	const struct nlattr *tb[HVTRACE_RSN_MAX + 1];
	struct hvc_reason_row *r;

	int ret = hvnl_parse_nested(nest, tb, HVTRACE_RSN_MAX, hvc_policy_rsn);

	if (ret)
		return ret;
	if (!tb[HVTRACE_RSN_COUNT])
		return merge_hist(s, tb);
	ret = grow(&s->reasons, s->nr_reasons, sizeof(*r));
	if (ret)
		return ret;
	r = &s->reasons[s->nr_reasons++];
	memset(r, 0, sizeof(*r));
	r->isa = hvnl_u8(tb[HVTRACE_RSN_ISA]);
	r->has_code = tb[HVTRACE_RSN_CODE];
	r->code = hvnl_u32(tb[HVTRACE_RSN_CODE]);
	r->count = hvnl_u64(tb[HVTRACE_RSN_COUNT]);
	r->total_ns = hvnl_u64(tb[HVTRACE_RSN_TOTAL_NS]);
	r->min_ns = hvnl_u64(tb[HVTRACE_RSN_MIN_NS]);
	r->max_ns = hvnl_u64(tb[HVTRACE_RSN_MAX_NS]);
	r->part_ns[HVTRACE_PART_VMM] = hvnl_u64(tb[HVTRACE_RSN_VMM_NS]);
	r->part_ns[HVTRACE_PART_HALT] = hvnl_u64(tb[HVTRACE_RSN_HALT_NS]);
	r->part_ns[HVTRACE_PART_RUNNABLE] =
		hvnl_u64(tb[HVTRACE_RSN_RUNNABLE_NS]);
	r->part_ns[HVTRACE_PART_OTHER] = hvnl_u64(tb[HVTRACE_RSN_OTHER_NS]);
	r->no_entry = hvnl_u64(tb[HVTRACE_RSN_NO_ENTRY]);
	add_hist(r, tb[HVTRACE_RSN_HIST]);
	return 0;
}

/*
 * Entry I of A, an array of SIZE-byte entries (absent: none), into E:
 * false past its end. Attributes are 4-byte aligned: entries are copied
 * out, never read in place.
 */
static bool array_entry(const struct nlattr *a, size_t size, unsigned int i,
			void *e)
{
	if (!a || (i + 1) * size > mnl_attr_get_payload_len(a))
		return false;
	memcpy(e, (const char *)mnl_attr_get_payload(a) + i * size, size);
	return true;
}

/* The vCPU's exits per reason in A (absent: none) added to V's. */
static int add_vcpu_reasons(struct hvc_vcpu_row *v, const struct nlattr *a)
{
	struct hvtrace_vcpu_reason e;
	int ret;

	for (unsigned int i = 0; array_entry(a, sizeof(e), i, &e); i++) {
		ret = grow(&v->reasons, v->nr_reasons, sizeof(*v->reasons));
		if (ret)
			return ret;
		v->reasons[v->nr_reasons++] = (struct hvc_vcpu_reason){
			.isa = e.isa,
			.code = e.code,
			.has_code = !(e.flags & HVTRACE_VCPU_RSN_CATCH_ALL),
			.count = e.count,
			.total_ns = e.total_ns,
		};
	}
	return 0;
}

/* By vector, the other row (vector 0) last. */
static int by_vector(const void *a, const void *b)
{
	const struct hvc_vcpu_irq *x = a, *y = b;

	if (x->other != y->other)
		return x->other ? 1 : -1;
	return x->vector < y->vector ? -1 : x->vector > y->vector;
}

/*
 * Row I's split, entry I of SPLIT (absent: an older module's), into R.
 * Entries are STRIDE bytes: a newer module's may be longer, and only
 * what this hvctl knows of each is read.
 */
static void irq_split(struct hvc_vcpu_irq *r, const struct nlattr *split,
		      size_t stride, unsigned int i)
{
	struct hvtrace_vcpu_irq_split e;

	if (!split)
		return;
	memcpy(&e, (const char *)mnl_attr_get_payload(split) + i * stride,
	       sizeof(e));
	r->has_split = true;
	r->guest_ns = e.guest_ns;
	memcpy(r->part_ns, e.part_ns, sizeof(r->part_ns));
	r->pre_ns = e.pre_ns;
	r->pre_pid = e.pre_pid;
	r->pre_vcpu = e.pre_flags & HVTRACE_EVF_PREEMPT_VCPU;
	if (e.pre_pid)
		memcpy(r->pre_comm, e.pre_comm, sizeof(r->pre_comm) - 1);
}

/* Row I's percentiles, entry I of PCT (absent: none), as irq_split(). */
static void irq_pct(struct hvc_vcpu_irq *r, const struct nlattr *pct,
		    size_t stride, unsigned int i)
{
	struct hvtrace_vcpu_irq_pct e;

	if (!pct)
		return;
	memcpy(&e, (const char *)mnl_attr_get_payload(pct) + i * stride,
	       sizeof(e));
	r->has_pct = true;
	r->p50_ns = e.p50_ns;
	r->p99_ns = e.p99_ns;
	r->p999_ns = e.p999_ns;
}

/*
 * The stride of A's entries, one per row of ROWS, or 0 when it cannot be
 * read (an entry shorter than SIZE, this hvctl's, or not one per row):
 * then the rows go without them, and the rest of the reply is read as
 * ever.
 */
static size_t row_stride(const struct nlattr *a, unsigned int rows,
			 size_t size)
{
	size_t len = a ? mnl_attr_get_payload_len(a) : 0;

	if (!rows || len % rows || len / rows < size)
		return 0;
	return len / rows;
}

/*
 * The vCPU's interrupt deliveries in A (absent: none) into V, with their
 * splits in SPLIT and percentiles in PCT, each one per row of A in its
 * order (unreadable: none). Flags this
 * hvctl does not know, a newer module's, are kept apart as unknown and
 * the row shown with the ones it knows, as nl.c ignores newer attributes:
 * a module adding a source must not break every older hvctl. A length
 * not a multiple of the row's is refused before this (client_policy.c's
 * ARRAY_OF()): then no row can be read right.
 */
static int add_vcpu_irqs(struct hvc_vcpu_row *v, const struct nlattr *a,
			 const struct nlattr *split, const struct nlattr *pct)
{
	struct hvtrace_vcpu_irq e;
	unsigned int rows = a ? mnl_attr_get_payload_len(a) / sizeof(e) : 0;
	size_t stride, pct_stride;
	int ret;

	stride = row_stride(split, rows, sizeof(struct hvtrace_vcpu_irq_split));
	if (!stride)
		split = NULL;
	pct_stride = row_stride(pct, rows, sizeof(struct hvtrace_vcpu_irq_pct));
	if (!pct_stride)
		pct = NULL;
	for (unsigned int i = 0; array_entry(a, sizeof(e), i, &e); i++) {
		if (!e.count)
			continue;
		ret = grow(&v->irqs, v->nr_irqs, sizeof(*v->irqs));
		if (ret)
			return ret;
		v->irqs[v->nr_irqs++] = (struct hvc_vcpu_irq){
			.other = e.flags & HVTRACE_VCPU_IRQ_OTHER,
			.vector = e.flags & HVTRACE_VCPU_IRQ_OTHER ? 0 :
				  e.vector,
			.timer = e.flags & HVTRACE_VCPU_IRQ_TIMER,
			.local = e.flags & HVTRACE_VCPU_IRQ_LOCAL,
			.ipi = e.flags & HVTRACE_VCPU_IRQ_IPI,
			.device = e.flags & HVTRACE_VCPU_IRQ_DEVICE,
			.unknown = e.flags & ~__HVTRACE_VCPU_IRQ_ALL,
			.count = e.count,
			.total_ns = e.total_ns,
			.max_ns = e.max_ns,
		};
		irq_split(&v->irqs[v->nr_irqs - 1], split, stride, i);
		irq_pct(&v->irqs[v->nr_irqs - 1], pct, pct_stride, i);
	}
	if (v->nr_irqs)
		qsort(v->irqs, v->nr_irqs, sizeof(*v->irqs), by_vector);
	return 0;
}

/*
 * A VCPU nest without a count goes on with the reasons of the vCPU
 * before it, which must be the same vCPU.
 */
static int more_vcpu_reasons(struct hvc_stats *s,
			     const struct nlattr *const *tb)
{
	struct hvc_vcpu_row *v = s->nr_vcpus ? &s->vcpus[s->nr_vcpus - 1] :
			       NULL;

	if (!v || v->vm_id != hvnl_u32(tb[HVTRACE_VCPU_VM_ID]) ||
	    v->vcpu_id != hvnl_u32(tb[HVTRACE_VCPU_ID]))
		return hvc_err(EPROTO, "the module's statistics continue the "
			       "reasons of a vCPU without it (VM %u vCPU %u)",
			       hvnl_u32(tb[HVTRACE_VCPU_VM_ID]),
			       hvnl_u32(tb[HVTRACE_VCPU_ID]));
	return add_vcpu_reasons(v, tb[HVTRACE_VCPU_REASONS]);
}

static int parse_vcpu(struct hvc_stats *s, const struct nlattr *nest)
{
	const struct nlattr *tb[HVTRACE_VCPU_MAX + 1];
	struct hvc_vcpu_row *v;

	int ret = hvnl_parse_nested(nest, tb, HVTRACE_VCPU_MAX, hvc_policy_vcpu);

	if (ret)
		return ret;
	if (!tb[HVTRACE_VCPU_COUNT])
		return more_vcpu_reasons(s, tb);
	ret = grow(&s->vcpus, s->nr_vcpus, sizeof(*v));
	if (ret)
		return ret;
	v = &s->vcpus[s->nr_vcpus++];
	memset(v, 0, sizeof(*v));
	v->vm_id = hvnl_u32(tb[HVTRACE_VCPU_VM_ID]);
	v->vm_pid = hvnl_u32(tb[HVTRACE_VCPU_VM_PID]);
	v->vcpu_id = hvnl_u32(tb[HVTRACE_VCPU_ID]);
	v->tid = hvnl_u32(tb[HVTRACE_VCPU_TID]);
	v->count = hvnl_u64(tb[HVTRACE_VCPU_COUNT]);
	v->total_ns = hvnl_u64(tb[HVTRACE_VCPU_TOTAL_NS]);
	v->min_ns = hvnl_u64(tb[HVTRACE_VCPU_MIN_NS]);
	v->max_ns = hvnl_u64(tb[HVTRACE_VCPU_MAX_NS]);
	v->part_ns[HVTRACE_PART_VMM] = hvnl_u64(tb[HVTRACE_VCPU_VMM_NS]);
	v->part_ns[HVTRACE_PART_HALT] = hvnl_u64(tb[HVTRACE_VCPU_HALT_NS]);
	v->part_ns[HVTRACE_PART_RUNNABLE] =
		hvnl_u64(tb[HVTRACE_VCPU_RUNNABLE_NS]);
	v->part_ns[HVTRACE_PART_OTHER] = hvnl_u64(tb[HVTRACE_VCPU_OTHER_NS]);
	v->guest_ns = hvnl_u64(tb[HVTRACE_VCPU_GUEST_NS]);
	v->preemptions = hvnl_u64(tb[HVTRACE_VCPU_PREEMPTIONS]);
	v->preempted_ns = hvnl_u64(tb[HVTRACE_VCPU_PREEMPTED_NS]);
	v->gone = hvnl_u8(tb[HVTRACE_VCPU_GONE]);
	v->in_exit = tb[HVTRACE_VCPU_EXIT_NS];
	v->exit_isa = hvnl_u8(tb[HVTRACE_VCPU_EXIT_ISA]);
	v->exit_reason = hvnl_u32(tb[HVTRACE_VCPU_EXIT_REASON]);
	v->exit_ns = hvnl_u64(tb[HVTRACE_VCPU_EXIT_NS]);
	v->exit_state = hvnl_u8(tb[HVTRACE_VCPU_EXIT_STATE]);
	/* The interrupts come in the first message only, with the count. */
	v->irq_unmatched = hvnl_u64(tb[HVTRACE_VCPU_IRQ_UNMATCHED]);
	v->irq_reinjected = hvnl_u64(tb[HVTRACE_VCPU_IRQ_REINJECTED]);
	v->irq_posted = hvnl_u64(tb[HVTRACE_VCPU_IRQ_POSTED]);
	ret = add_vcpu_irqs(v, tb[HVTRACE_VCPU_IRQS],
			    tb[HVTRACE_VCPU_IRQ_SPLIT], tb[HVTRACE_VCPU_IRQ_PCT]);
	if (ret)
		return ret;
	return add_vcpu_reasons(v, tb[HVTRACE_VCPU_REASONS]);
}

static int parse_preemptor(struct hvc_stats *s, const struct nlattr *nest)
{
	const struct nlattr *tb[HVTRACE_PRE_MAX + 1];
	struct hvc_preemptor_row *p;

	int ret = hvnl_parse_nested(nest, tb, HVTRACE_PRE_MAX, hvc_policy_pre);

	if (ret)
		return ret;
	ret = grow(&s->preemptors, s->nr_preemptors, sizeof(*p));
	if (ret)
		return ret;
	p = &s->preemptors[s->nr_preemptors++];
	memset(p, 0, sizeof(*p));
	p->pid = hvnl_u32(tb[HVTRACE_PRE_PID]);
	p->vcpu = hvnl_u8(tb[HVTRACE_PRE_VCPU]);
	/* The module's comm is at most TASK_COMM_LEN with its NUL. */
	snprintf(p->comm, sizeof(p->comm), "%s", hvnl_str(tb[HVTRACE_PRE_COMM]));
	p->count = hvnl_u64(tb[HVTRACE_PRE_COUNT]);
	p->ns = hvnl_u64(tb[HVTRACE_PRE_NS]);
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct hvc_preemptor_row *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? 1 : -1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int stats_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[HVTRACE_A_MAX + 1];
	struct hvc_stats *s = data;
	int ret;

	ret = hvnl_parse(nlh, tb, HVTRACE_A_MAX, hvc_policy_attr);
	if (!ret && tb[HVTRACE_A_REASON])
		ret = parse_reason(s, tb[HVTRACE_A_REASON]);
	if (!ret && tb[HVTRACE_A_VCPU])
		ret = parse_vcpu(s, tb[HVTRACE_A_VCPU]);
	if (!ret && tb[HVTRACE_A_PREEMPTOR])
		ret = parse_preemptor(s, tb[HVTRACE_A_PREEMPTOR]);
	if (!ret && tb[HVTRACE_A_STATS_AGE_NS])
		s->age_ns = mnl_attr_get_u64(tb[HVTRACE_A_STATS_AGE_NS]);
	return ret;
}

void hvc_stats_free(struct hvc_stats *s)
{
	for (unsigned int i = 0; i < s->nr_vcpus; i++) {
		free(s->vcpus[i].reasons);
		free(s->vcpus[i].irqs);
	}
	free(s->reasons);
	free(s->vcpus);
	free(s->preemptors);
	memset(s, 0, sizeof(*s));
}

/*
 * A vCPU destroyed while the dump ran is sent twice: live, then among
 * the destroyed (read after the live table). Its VM's number is never
 * reused and KVM destroys a vCPU only with its VM, so a live row whose
 * VM and id a destroyed row has is that vCPU, sent earlier: drop it, so
 * no sum counts it twice.
 */
static void drop_sent_twice(struct hvc_stats *s)
{
	unsigned int i, j, n = 0;

	for (i = 0; i < s->nr_vcpus; i++) {
		struct hvc_vcpu_row *v = &s->vcpus[i];
		bool twice = false;

		for (j = 0; !v->gone && !twice && j < s->nr_vcpus; j++)
			twice = s->vcpus[j].gone &&
				s->vcpus[j].vm_id == v->vm_id &&
				s->vcpus[j].vcpu_id == v->vcpu_id;
		if (twice) {
			free(v->reasons);
			free(v->irqs);
		} else {
			s->vcpus[n++] = *v;
		}
	}
	s->nr_vcpus = n;
}

static int stats_get(struct hvc *c, struct hvc_stats *s, uint16_t flag)
{
	int ret;

	hvc_stats_free(s);
	ret = hvc_request_flag(c, HVTRACE_CMD_GET_STATUS, 0, flag, stats_cb,
			       s);
	if (!ret)
		ret = hvc_request_flag(c, HVTRACE_CMD_GET_STATS, NLM_F_DUMP,
				       flag, stats_cb, s);
	if (ret) {
		hvc_stats_free(s);
		return ret;
	}
	drop_sent_twice(s);
	if (s->nr_preemptors)
		qsort(s->preemptors, s->nr_preemptors, sizeof(*s->preemptors),
		      by_time);
	return 0;
}

int hvc_stats_get(struct hvc *c, struct hvc_stats *s)
{
	return stats_get(c, s, 0);
}

int hvc_stats_get_since_load(struct hvc *c, struct hvc_stats *s)
{
	return stats_get(c, s, HVTRACE_A_SINCE_LOAD);
}
