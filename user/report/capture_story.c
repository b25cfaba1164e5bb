// SPDX-License-Identifier: GPL-2.0
/*
 * A capture's story (capture_story.h): counted from its records, the
 * trigger record first, then the records before it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "capture_story.h"
#include "duration.h"
#include "irq_why.h"
#include "output.h"
#include "put.h"
#include "time_parts.h"
#include "util.h"

static const char *const trigger_words[] = {
	[HVTRACE_TRIGGER_EXIT] = "exit",
	[HVTRACE_TRIGGER_STALL] = "stall",
	[HVTRACE_TRIGGER_PREEMPT] = "preempted",
	[HVTRACE_TRIGGER_MARK] = "mark",
	[HVTRACE_TRIGGER_IRQ] = "irq",
};

/* A story part is an irq_part, one up: NONE comes first. */
_Static_assert(STORY_P_HANDLING == 1 + (int)IRQ_P_HANDLING &&
	       STORY_P_RUNNABLE == 1 + (int)IRQ_P_RUNNABLE &&
	       STORY_P_GUEST == 1 + (int)IRQ_P_GUEST,
	       "story_part follows irq_part");

/* A late interrupt's delivery part, in the story's line. */
static const char *part_word(enum story_part p)
{
	return irq_part_word(p - STORY_P_HANDLING);
}

const char *capture_trigger_word(unsigned int trigger)
{
	return trigger < ARRAY_SIZE(trigger_words) ? trigger_words[trigger] :
	       "unknown";
}

int capture_trigger_parse(const char *s)
{
	for (size_t i = 0; i < ARRAY_SIZE(trigger_words); i++)
		if (!strcmp(s, trigger_words[i]))
			return i;
	return -1;
}

unsigned int capture_find_seq(const struct hvtrace_event *ev, unsigned int n,
			      uint64_t seq)
{
	for (unsigned int i = 0; i < n; i++)
		if (ev[i].seq == seq)
			return i;
	return n;
}

static uint64_t end_ns(const struct hvtrace_event *e)
{
	return e->ts_ns + e->duration_ns;
}

/* Preemptors and their time, to find the largest share. */
#define MAX_PRE 64

struct pre_sum {
	const struct hvtrace_event *ev;	/* one of its records */
	unsigned int cpu;
	uint64_t ns;
};

static void pre_add(struct pre_sum *p, unsigned int *n,
		    const struct hvtrace_event *e, uint64_t ns, unsigned int cpu)
{
	unsigned int i;

	if (!e->preempt_pid || !ns)
		return;
	for (i = 0; i < *n; i++)
		if (p[i].ev->preempt_pid == e->preempt_pid)
			break;
	if (i == *n) {
		if (*n == MAX_PRE)
			return;
		p[(*n)++] = (struct pre_sum){ .ev = e, .cpu = cpu };
	}
	p[i].ns += ns;
}

static void pre_take(struct capture_story *st, const struct pre_sum *p,
		     unsigned int n)
{
	const struct pre_sum *best = NULL;

	for (unsigned int i = 0; i < n; i++)
		if (!best || p[i].ns > best->ns)
			best = &p[i];
	if (!best)
		return;
	st->pre_pid = best->ev->preempt_pid;
	memcpy(st->pre_comm, best->ev->preempt_comm, HVTRACE_COMM_LEN);
	st->pre_comm[HVTRACE_COMM_LEN] = '\0';
	for (char *c = st->pre_comm; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	st->pre_vcpu = best->ev->flags & HVTRACE_EVF_PREEMPT_VCPU;
	st->pre_cpu = best->cpu;
	st->pre_ns = best->ns;
}

/* Record E's time from FROM on. */
static uint64_t time_from(const struct hvtrace_event *e, uint64_t from)
{
	uint64_t end = end_ns(e);

	return end > from ? end - (e->ts_ns > from ? e->ts_ns : from) : 0;
}

/*
 * Who took the vCPU's CPU over records LO..HI (indexes, inclusive) that
 * end at FROM or later: its preemption records' preemptors by their
 * time off CPU (with CLIP, only from FROM on); without any, its exits'
 * (their longest runnable stretch).
 */
static void find_preemptor(struct capture_story *st,
			   const struct hvtrace_event *ev, unsigned int lo,
			   unsigned int hi, uint64_t from, bool clip)
{
	struct pre_sum pre[MAX_PRE], ex[MAX_PRE];
	unsigned int npre = 0, nex = 0;

	for (unsigned int i = lo; i <= hi; i++) {
		const struct hvtrace_event *e = &ev[i];

		if (end_ns(e) < from)
			continue;
		if (e->type == HVTRACE_EV_PREEMPT)
			pre_add(pre, &npre, e, clip ? time_from(e, from) :
					       e->duration_ns, e->cpu_exit);
		else if (e->type == HVTRACE_EV_EXIT)
			pre_add(ex, &nex, e, e->preempt_ns, e->cpu_exit);
	}
	pre_take(st, npre ? pre : ex, npre ? npre : nex);
	st->pre_records = npre;
}

/* The first of the preemption records in the exit EV[TRIG]; TRIG: none. */
static unsigned int first_preemption(const struct hvtrace_event *ev,
				     unsigned int trig)
{
	unsigned int i;

	/* Switched out after it began. */
	for (i = 0; i < trig; i++)
		if (ev[i].type == HVTRACE_EV_PREEMPT &&
		    ev[i].ts_ns >= ev[trig].ts_ns)
			break;
	return i;
}

/*
 * Who held the CPU in the exit EV[TRIG]: its preemption records, their
 * time from FROM on; without any, its own noted preemptor.
 */
static void exit_preemptor(struct capture_story *st,
			   const struct hvtrace_event *ev, unsigned int trig,
			   uint64_t from)
{
	unsigned int i = first_preemption(ev, trig);

	if (i < trig)
		find_preemptor(st, ev, i, trig, from, true);
	if (!st->pre_pid)
		find_preemptor(st, ev, trig, trig, 0, false);
}

/*
 * A late interrupt, injected at the end of the exit T = EV[TRIG], was
 * raised at RAISE. Of T's parts only their time after the raise counts:
 * at least the part less T's time before the raise, and the runnable
 * part at least what its preemption records hold after the raise;
 * before T, the guest time that preceded it, as far as the delivery
 * reaches back. The largest of these is where the delivery time went;
 * the records cannot tell more.
 */
static void delivery_part(struct capture_story *st,
			  const struct hvtrace_event *ev, unsigned int trig,
			  uint64_t raise)
{
	const struct hvtrace_event *t = &ev[trig];
	uint64_t value = st->cap->value_ns;
	uint64_t in_t = t->duration_ns < value ? t->duration_ns : value;
	uint64_t before = t->duration_ns - in_t, off = 0;
	uint64_t ns[STORY_P_NR] = { 0 };

	ns[STORY_P_HANDLING] = time_handling(t->duration_ns, t->part_ns);
	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		ns[STORY_P_VMM + i] = t->part_ns[i];
	for (int p = STORY_P_HANDLING; p <= STORY_P_OTHER; p++)
		ns[p] = ns[p] > before ? ns[p] - before : 0;
	for (unsigned int i = first_preemption(ev, trig); i < trig; i++)
		if (ev[i].type == HVTRACE_EV_PREEMPT)
			off += time_from(&ev[i], raise);
	if (off > ns[STORY_P_RUNNABLE])
		ns[STORY_P_RUNNABLE] = off;
	ns[STORY_P_GUEST] = value - in_t < t->guest_ns ? value - in_t :
							 t->guest_ns;
	for (int p = STORY_P_HANDLING; p < STORY_P_NR; p++)
		if (ns[p] > st->delivery_part_ns) {
			st->delivery_part = p;
			st->delivery_part_ns = ns[p];
		}
	st->runnable_ns = ns[STORY_P_RUNNABLE];
}

/* Record E's wait, as the module split it. */
static void irq_wait_of(struct irq_wait *w, const struct hvtrace_event *e,
			char *comm)
{
	uint64_t part[HVTRACE_NR_PARTS];

	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		part[i] = e->part_ns[i];
	irq_wait_split(w, e->duration_ns, e->guest_ns, part);
	memcpy(comm, e->preempt_comm, HVTRACE_COMM_LEN);
	comm[HVTRACE_COMM_LEN] = '\0';
	for (char *c = comm; *c; c++)
		if ((unsigned char)*c < 0x20 || (unsigned char)*c >= 0x7f)
			*c = '?';
	w->isa = e->isa;
	w->exit_reason = e->info2;
	w->pre_pid = e->preempt_pid;
	w->pre_vcpu = e->flags & HVTRACE_EVF_PREEMPT_VCPU;
	w->pre_comm = comm;
}

/*
 * The late interrupt record to tell: of an irq trigger, its delivery's
 * (its vector, injected during the trigger exit T); else the longest.
 */
static const struct hvtrace_event *find_irq(const struct capture_story *st,
					    const struct hvtrace_event *ev,
					    unsigned int n,
					    const struct hvtrace_event *t)
{
	const struct hvtrace_event *best = NULL;
	bool own = st->cap->trigger == HVTRACE_TRIGGER_IRQ;

	for (unsigned int i = 0; i < n; i++) {
		const struct hvtrace_event *e = &ev[i];

		if (e->type != HVTRACE_EV_IRQ)
			continue;
		if (own && (!t || e->reason != st->cap->irq_vector ||
			    end_ns(e) < t->ts_ns || end_ns(e) > end_ns(t)))
			continue;
		if (!best || e->duration_ns > best->duration_ns)
			best = e;
	}
	return best;
}

/*
 * Tell the late interrupt record E; an irq trigger's own says exactly
 * where the delivery time went, what the other records only bound.
 */
static void take_irq(struct capture_story *st, const struct hvtrace_event *e)
{
	char comm[HVTRACE_COMM_LEN + 1];
	struct irq_wait w;
	enum irq_part p;

	irq_wait_of(&w, e, comm);
	st->has_irq = true;
	st->irq_vector = e->reason;
	st->irq_source = e->info1;
	st->irq_ns = e->duration_ns;
	irq_why(st->irq_why, sizeof(st->irq_why), &w);
	if (st->cap->trigger != HVTRACE_TRIGGER_IRQ)
		return;
	p = irq_wait_part(&w);
	st->delivery_part = STORY_P_HANDLING + p;
	st->delivery_part_ns = w.part_ns[p];
	st->runnable_ns = w.part_ns[IRQ_P_RUNNABLE];
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The most common of the N KEYS (sorted here): *COUNT times; 0: none. */
static uint64_t most_common(uint64_t *keys, unsigned int n, uint64_t *count)
{
	uint64_t best = 0, run = 0;

	*count = 0;
	qsort(keys, n, sizeof(*keys), cmp_u64);
	for (unsigned int i = 0; i < n; i++) {
		run = i && keys[i] == keys[i - 1] ? run + 1 : 1;
		if (run > *count) {
			*count = run;
			best = keys[i];
		}
	}
	return best;
}

/* The qualifier of exit E, as the report's hot spots key it. */
static enum story_qual qual_of(const struct hvtrace_event *e, uint64_t *key)
{
	if (e->flags & HVTRACE_EVF_ADDR_GPA) {
		*key = e->addr & ~0xfffULL;
		return STORY_Q_PAGE;
	}
	if (e->flags & HVTRACE_EVF_ADDR_MSR) {
		*key = e->addr;
		return STORY_Q_MSR;
	}
	if (exit_reason_class(e->isa, e->reason) == EXIT_CLASS_PORT_IO) {
		*key = e->info1 >> 16 & 0xffff;
		return STORY_Q_PORT;
	}
	return STORY_Q_NONE;
}

static bool is_exit(const struct hvtrace_event *e)
{
	return e->type == HVTRACE_EV_EXIT;
}

static bool same_reason(const struct hvtrace_event *a,
			const struct hvtrace_event *b)
{
	return a->isa == b->isa && a->reason == b->reason;
}

/* The dominant exit reason of EV[0..N), its qualifier and RIP. */
static int find_before(struct capture_story *st,
		       const struct hvtrace_event *ev, unsigned int n)
{
	const struct hvtrace_event *dom = NULL;
	uint64_t *keys, best = 0;
	unsigned int nk = 0;

	keys = malloc((n ? n : 1) * sizeof(*keys));
	if (!keys)
		return hvc_err(ENOMEM, "out of memory");
	/* Reasons by count: (isa << 32 | reason) sorted. */
	for (unsigned int i = 0; i < n; i++)
		if (is_exit(&ev[i]))
			keys[nk++] = (uint64_t)ev[i].isa << 32 | ev[i].reason;
	st->exits_before = nk;
	if (!nk)
		goto out;
	best = most_common(keys, nk, &st->reason_count);
	for (unsigned int i = 0; i < n && !dom; i++)
		if (is_exit(&ev[i]) &&
		    ((uint64_t)ev[i].isa << 32 | ev[i].reason) == best)
			dom = &ev[i];
	exit_reason_label(st->reason, sizeof(st->reason), dom->isa,
			  dom->reason);
	/* Its qualifier: the kind its first keyed exit has. */
	nk = 0;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t k;
		enum story_qual q;

		if (!is_exit(&ev[i]) || !same_reason(&ev[i], dom))
			continue;
		q = qual_of(&ev[i], &k);
		if (q == STORY_Q_NONE || (st->qual && q != st->qual))
			continue;
		st->qual = q;
		keys[nk++] = k;
	}
	if (nk)
		st->qual_key = most_common(keys, nk, &st->qual_count);
	/* Its RIP: among those at that qualifier. */
	nk = 0;
	for (unsigned int i = 0; i < n; i++) {
		uint64_t k;

		if (!is_exit(&ev[i]) || !same_reason(&ev[i], dom) ||
		    !(ev[i].flags & HVTRACE_EVF_RIP_VALID))
			continue;
		if (st->qual && (qual_of(&ev[i], &k) != st->qual ||
				 k != st->qual_key))
			continue;
		keys[nk++] = ev[i].rip;
	}
	if (nk) {
		st->rip = most_common(keys, nk, &st->rip_count);
		st->has_rip = true;
	}
out:
	free(keys);
	return 0;
}

int capture_story(struct capture_story *st, const struct hvc_capture *cap,
		  const struct hvtrace_event *ev, unsigned int n,
		  unsigned int trig)
{
	const struct hvtrace_event *t = trig < n ? &ev[trig] : NULL;
	unsigned int last = t ? trig : (n ? n - 1 : 0);
	const struct hvtrace_event *irq;

	memset(st, 0, sizeof(*st));
	st->cap = cap;
	st->has_trigger = t;
	st->trig = trig;
	if (t && is_exit(t)) {
		exit_reason_label(st->trig_reason, sizeof(st->trig_reason),
				  t->isa, t->reason);
		st->trig_ns = t->duration_ns;
	}
	switch (cap->trigger) {
	case HVTRACE_TRIGGER_STALL: {
		uint64_t lo = cap->trigger_ts > cap->window_ns ?
			      cap->trigger_ts - cap->window_ns : 0;

		for (unsigned int i = 0; n && i <= last; i++)
			if (is_exit(&ev[i]) && end_ns(&ev[i]) >= lo)
				st->runnable_ns +=
					ev[i].part_ns[HVTRACE_PART_RUNNABLE];
		if (n)
			find_preemptor(st, ev, 0, last, lo, false);
		break;
	}
	case HVTRACE_TRIGGER_PREEMPT:
		if (t) {
			st->runnable_ns = t->duration_ns;
			find_preemptor(st, ev, trig, trig, 0, false);
		}
		break;
	case HVTRACE_TRIGGER_MARK:
		/* No time crossed a limit: the guest asked. */
		if (t && t->type == HVTRACE_EV_MARK) {
			st->has_mark = true;
			st->mark_id = t->info1;
			st->guest_tsc = t->info2;
		}
		break;
	case HVTRACE_TRIGGER_IRQ:
		if (t && is_exit(t)) {
			uint64_t end = end_ns(t);
			uint64_t raise = end > cap->value_ns ?
					 end - cap->value_ns : 0;

			delivery_part(st, ev, trig, raise);
			/* Preempted after the raise: it held the interrupt. */
			exit_preemptor(st, ev, trig, raise);
		}
		break;
	default:
		if (!t)
			break;
		st->runnable_ns = t->part_ns[HVTRACE_PART_RUNNABLE];
		exit_preemptor(st, ev, trig, 0);
		break;
	}
	irq = find_irq(st, ev, n, t && is_exit(t) ? t : NULL);
	if (irq)
		take_irq(st, irq);
	return find_before(st, ev, t ? trig : n);
}

int capture_qual_text(char *buf, size_t len, const struct capture_story *st)
{
	static const char *const words[] = {
		[STORY_Q_PAGE] = "page", [STORY_Q_PORT] = "port",
		[STORY_Q_MSR] = "msr",
	};

	if (!st->qual)
		return snprintf(buf, len, "%s", "");
	return snprintf(buf, len, "%s 0x%" PRIx64, words[st->qual],
			st->qual_key);
}

/* "batch-job (207) on CPU 5" (put_preemptor()'s words). */
static const char *preemptor_text(char *buf, const struct capture_story *st)
{
	char *p = put_preemptor(buf, st->pre_comm, st->pre_pid, st->pre_vcpu);

	sprintf(p, " on CPU %u", st->pre_cpu);
	return buf;
}

#define PRE_TEXT_LEN	(PREEMPTOR_LEN + 16)

/*
 * "interrupt 0xec delivered 150.20ms after its raise: HLT 150.00ms,
 * preempted 148.00ms by hvhog (262) on CPU 0": the exit it was injected
 * at, then where the delivery time went; "...: in the guest 40.00ms
 * before VINTR 2.0us" when it waited there.
 */
static void irq_text(FILE *f, const struct capture_story *st)
{
	enum story_part p = st->delivery_part;
	char v[DURATION_LEN], e[DURATION_LEN], d[DURATION_LEN];
	char pre[PRE_TEXT_LEN];

	fprintf(f, "interrupt 0x%02x delivered %s after its raise",
		st->cap->irq_vector, duration_str(v, st->cap->value_ns));
	if (!*st->trig_reason)
		return;
	duration_str(e, st->trig_ns);
	if (p == STORY_P_GUEST) {
		fprintf(f, ": in the guest %s before %s %s",
			duration_str(d, st->delivery_part_ns), st->trig_reason,
			e);
		return;
	}
	fprintf(f, ": %s %s", st->trig_reason, e);
	if (p == STORY_P_RUNNABLE && st->pre_records)
		fprintf(f, ", preempted %s by %s", duration_str(d, st->pre_ns),
			preemptor_text(pre, st));
	else if (p)
		fprintf(f, ", %s %s", part_word(p),
			duration_str(d, st->delivery_part_ns));
	if (p == STORY_P_RUNNABLE && !st->pre_records && st->pre_pid)
		fprintf(f, " (%s)", preemptor_text(pre, st));
}

int capture_story_line(char *buf, size_t len, const struct capture_story *st)
{
	const struct hvc_capture *c = st->cap;
	char v[DURATION_LEN], w[DURATION_LEN], r[DURATION_LEN];
	char pre[PRE_TEXT_LEN], q[64];
	FILE *f = fmemopen(buf, len, "w");
	long n;

	if (!f)
		return snprintf(buf, len, "%s", "");
	if (*st->vm_name)
		fprintf(f, "%s vm %s vcpu %u: ", capture_trigger_word(c->trigger),
			st->vm_name, c->vcpu_id);
	else
		fprintf(f, "%s vm %u vcpu %u: ", capture_trigger_word(c->trigger),
			c->vm_id, c->vcpu_id);
	switch (c->trigger) {
	case HVTRACE_TRIGGER_STALL:
		fprintf(f, "%s out of guest in %s", duration_str(v, c->value_ns),
			duration_exact_str(w, c->window_ns));
		if (st->pre_pid)
			fprintf(f, ": %s runnable (%s)",
				duration_str(r, st->runnable_ns),
				preemptor_text(pre, st));
		else if (st->runnable_ns)
			fprintf(f, ": %s runnable",
				duration_str(r, st->runnable_ns));
		break;
	case HVTRACE_TRIGGER_PREEMPT:
		fprintf(f, "%s", duration_str(v, c->value_ns));
		if (st->pre_pid)
			fprintf(f, " by %s", preemptor_text(pre, st));
		break;
	case HVTRACE_TRIGGER_MARK:
		if (st->has_mark)
			fprintf(f, "guest mark %" PRIu64 " (guest tsc %" PRIu64
				")", st->mark_id, st->guest_tsc);
		else
			fprintf(f, "guest mark (its record is not in the "
				"capture)");
		break;
	case HVTRACE_TRIGGER_IRQ:
		irq_text(f, st);
		break;
	default:
		fprintf(f, "%s %s", *st->trig_reason ? st->trig_reason : "exit",
			duration_str(v, c->value_ns));
		if (c->on != HVTRACE_ON_TOTAL)
			fprintf(f, " %s", threshold_on_name(c->on));
		if (c->on != HVTRACE_ON_RUNNABLE && st->runnable_ns)
			fprintf(f, " (%s runnable%s%s)",
				duration_str(r, st->runnable_ns),
				st->pre_pid ? ": " : "",
				st->pre_pid ? preemptor_text(pre, st) : "");
		else if (st->pre_pid)
			fprintf(f, " (%s)", preemptor_text(pre, st));
		break;
	}
	/* An irq trigger's own record is the line already. */
	if (st->has_irq && c->trigger != HVTRACE_TRIGGER_IRQ)
		fprintf(f, "; late interrupt 0x%02x (%s) %s: %s", st->irq_vector,
			irq_source_word(st->irq_source),
			duration_str(v, st->irq_ns), st->irq_why);
	if (*st->reason) {
		fprintf(f, "; before it %" PRIu64 " %s exit%s", st->reason_count,
			st->reason, st->reason_count == 1 ? "" : "s");
		if (st->qual) {
			capture_qual_text(q, sizeof(q), st);
			fprintf(f, " at %s", q);
		}
		if (st->has_rip)
			fprintf(f, " from rip 0x%" PRIx64, st->rip);
	}
	n = ftell(f);
	fclose(f);
	return n;
}

/* "trigger:    mark 7, guest tsc 123456789": no limit, the guest's. */
static void evidence_mark(FILE *f, const struct capture_story *st)
{
	fprintf(f, "trigger:    mark");
	if (st->has_mark)
		fprintf(f, " %" PRIu64 ", guest tsc %" PRIu64, st->mark_id,
			st->guest_tsc);
}

/*
 * "injected:   at the end of HLT 150.00ms; of the delivery, 148.00ms
 * runnable": the exit that held the interrupt, where its time went.
 */
static void evidence_injected(FILE *f, const struct capture_story *st)
{
	char e[DURATION_LEN], d[DURATION_LEN];

	fprintf(f, "injected:   at the end of %s %s", st->trig_reason,
		duration_str(e, st->trig_ns));
	if (st->delivery_part)
		fprintf(f, "; of the delivery, %s %s",
			duration_str(d, st->delivery_part_ns),
			part_word(st->delivery_part));
	fputc('\n', f);
}

void capture_story_evidence(FILE *f, const struct capture_story *st)
{
	const struct hvc_capture *c = st->cap;
	char v[DURATION_LEN], l[DURATION_LEN], w[DURATION_LEN];
	char pre[PRE_TEXT_LEN], q[64];

	if (c->trigger == HVTRACE_TRIGGER_MARK)
		evidence_mark(f, st);
	else if (c->trigger == HVTRACE_TRIGGER_IRQ)
		fprintf(f, "trigger:    irq 0x%02x, %s after its raise",
			c->irq_vector, duration_str(v, c->value_ns));
	else
		fprintf(f, "trigger:    %s, %s",
			capture_trigger_word(c->trigger),
			duration_str(v, c->value_ns));
	if (c->trigger == HVTRACE_TRIGGER_STALL)
		fprintf(f, " out of guest in %s",
			duration_exact_str(w, c->window_ns));
	else if (c->trigger == HVTRACE_TRIGGER_EXIT)
		fprintf(f, " %s", threshold_on_name(c->on));
	if (c->trigger != HVTRACE_TRIGGER_MARK)
		fprintf(f, " (limit %s)", duration_exact_str(l, c->limit_ns));
	fputc('\n', f);
	fprintf(f, "vcpu:       vm %u%s%s (pid %u) vcpu %u (tid %u)\n",
		c->vm_id, *st->vm_name ? " " : "", st->vm_name, c->vm_pid,
		c->vcpu_id, c->tid);
	fprintf(f, "chain:      ");
	if (*st->reason) {
		fprintf(f, "%s (%" PRIu64 " of %" PRIu64 " exits before it)",
			st->reason, st->reason_count, st->exits_before);
		if (st->qual) {
			capture_qual_text(q, sizeof(q), st);
			fprintf(f, " -> %s (%" PRIu64 ")", q, st->qual_count);
		}
		if (st->has_rip)
			fprintf(f, " -> rip 0x%" PRIx64 " (%" PRIu64 ")", st->rip,
				st->rip_count);
	} else {
		fprintf(f, "no exit before the trigger");
	}
	if (st->pre_pid)
		fprintf(f, " -> %s for %s", preemptor_text(pre, st),
			duration_str(v, st->pre_ns));
	fputc('\n', f);
	if (c->trigger == HVTRACE_TRIGGER_IRQ && *st->trig_reason)
		evidence_injected(f, st);
	if (st->has_irq)
		fprintf(f, "late irq:   0x%02x (%s), %s after its raise: %s\n",
			st->irq_vector, irq_source_word(st->irq_source),
			duration_str(v, st->irq_ns), st->irq_why);
	if (st->runnable_ns)
		fprintf(f, "runnable:   %s\n", duration_str(v, st->runnable_ns));
	if (c->suppressed)
		fprintf(f, "suppressed: %" PRIu64 " triggers of this vCPU since "
			"its previous capture\n", c->suppressed);
}

void capture_time_text(char *buf, size_t len, uint64_t ts, int64_t offset,
		     const char *fmt, const char *suffix)
{
	int64_t ns = (int64_t)ts + offset;
	time_t secs = ns / 1000000000;
	struct tm tm;
	size_t n;

	gmtime_r(&secs, &tm);
	n = strftime(buf, len, fmt, &tm);
	snprintf(buf + n, len - n, ".%03u%s",
		 (unsigned int)(ns % 1000000000 / 1000000), suffix);
}

static void json_hex(struct out *o, const char *key, uint64_t v)
{
	char hex[24];

	snprintf(hex, sizeof(hex), "0x%" PRIx64, v);
	out_str(o, key, NULL, hex);
}

void capture_story_json(struct out *o, const struct capture_story *st,
			int64_t clock_offset_ns, const char *path,
			unsigned int trig_cpu, uint64_t trig_seq)
{
	const struct hvc_capture *c = st->cap;
	char when[40], line[1024], q[64];
	static const char *const qual_keys[] = {
		[STORY_Q_PAGE] = "page", [STORY_Q_PORT] = "port",
		[STORY_Q_MSR] = "msr",
	};

	capture_time_text(when, sizeof(when), c->trigger_ts, clock_offset_ns,
			"%Y-%m-%dT%H:%M:%S", "Z");
	capture_story_line(line, sizeof(line), st);
	out_str(o, "time", NULL, when);
	out_str(o, "trigger", NULL, capture_trigger_word(c->trigger));
	out_u64(o, "capture_id", NULL, c->id);
	out_u64(o, "vm_id", NULL, c->vm_id);
	out_u64(o, "vm_pid", NULL, c->vm_pid);
	out_str(o, "vm_name", NULL, st->vm_name);
	out_u64(o, "vcpu", NULL, c->vcpu_id);
	out_u64(o, "tid", NULL, c->tid);
	out_u64(o, "trigger_ts_ns", NULL, c->trigger_ts);
	out_u64(o, "value_ns", NULL, c->value_ns);
	out_u64(o, "limit_ns", NULL, c->limit_ns);
	if (c->trigger == HVTRACE_TRIGGER_STALL)
		out_u64(o, "window_ns", NULL, c->window_ns);
	if (c->trigger == HVTRACE_TRIGGER_EXIT)
		out_str(o, "part", NULL, threshold_on_name(c->on));
	if (c->trigger == HVTRACE_TRIGGER_IRQ)
		out_u64(o, "irq_vector", NULL, c->irq_vector);
	if (st->has_mark) {
		out_u64(o, "mark_id", NULL, st->mark_id);
		out_u64(o, "guest_tsc", NULL, st->guest_tsc);
	}
	out_u64(o, "first_seq", NULL, c->first_seq);
	out_u64(o, "trigger_seq", NULL, c->trigger_seq);
	out_u64(o, "end_seq", NULL, c->end_seq);
	out_u64(o, "suppressed", NULL, c->suppressed);
	out_u64(o, "records", NULL, c->nr_events);
	if (trig_seq) {
		out_u64(o, "trigger_cpu", NULL, trig_cpu);
		out_u64(o, "trigger_stream_seq", NULL, trig_seq);
	}
	out_str(o, "story", NULL, line);
	out_u64(o, "runnable_ns", NULL, st->runnable_ns);
	if (st->delivery_part) {
		out_str(o, "delivery_part", NULL,
			irq_part_key(st->delivery_part - STORY_P_HANDLING));
		out_u64(o, "delivery_part_ns", NULL, st->delivery_part_ns);
	}
	if (st->has_irq) {
		out_open_object(o, "late_interrupt");
		out_u64(o, "vector", NULL, st->irq_vector);
		out_str(o, "source", NULL, irq_source_word(st->irq_source));
		out_u64(o, "latency_ns", NULL, st->irq_ns);
		out_str(o, "why", NULL, st->irq_why);
		out_close_object(o);
	}
	if (st->pre_pid) {
		out_open_object(o, "preemptor");
		out_u64(o, "pid", NULL, st->pre_pid);
		out_str(o, "comm", NULL, st->pre_comm);
		out_bool(o, "vcpu", NULL, st->pre_vcpu);
		out_u64(o, "cpu", NULL, st->pre_cpu);
		out_u64(o, "ns", NULL, st->pre_ns);
		out_close_object(o);
	}
	out_open_object(o, "before");
	out_u64(o, "exits", NULL, st->exits_before);
	if (*st->reason) {
		out_str(o, "reason", NULL, st->reason);
		out_u64(o, "count", NULL, st->reason_count);
	}
	if (st->qual) {
		capture_qual_text(q, sizeof(q), st);
		json_hex(o, qual_keys[st->qual], st->qual_key);
		out_u64(o, "qualifier_count", NULL, st->qual_count);
	}
	if (st->has_rip) {
		json_hex(o, "rip", st->rip);
		out_u64(o, "rip_count", NULL, st->rip_count);
	}
	out_close_object(o);
	if (path)
		out_str(o, "path", NULL, path);
}
