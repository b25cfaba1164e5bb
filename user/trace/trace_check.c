// SPDX-License-Identifier: GPL-2.0
/*
 * The rules of trace_check.h. trace_check_packet() runs once per packet,
 * before any of its events is returned, so it is on the reader's hot
 * path: one pass over the events, every plausibility rule folded into one
 * mask per event, and words only for what fails.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <linux/hvtrace.h>

#include "exit_reasons.h"
#include "trace_check.h"
#include "trace_format.h"

#define EV_HEADER_SIZE	sizeof(struct trace_event_header)
#define EV_TS_OFF	offsetof(struct trace_event_header, timestamp)
/* A field of the record of the event at EV. */
#define REC(ev, field)	((ev) + EV_HEADER_SIZE + \
			 offsetof(struct trace_record, field))

/*
 * A raw VMX exit reason is the basic reason (bits 0-15) and flags (27
 * enclave, 28 pending MTF, 29 from VMX root, 31 failed entry); the rest
 * is reserved (SDM vol. 3, "Basic VM-Exit Information").
 */
#define VMX_RESERVED_BITS	0x47ff0000u
/* SVM exit codes: up to 0x7ff (0x400 on: NPF, AVIC, VMGEXIT), the
 * VMGEXIT codes 0x8000xxxx, SVM_EXIT_SW and SVM_EXIT_ERR.
 */
#define SVM_LAST_PLAIN		0x7ffu
#define SVM_VMGEXIT_HI		0x8000u
#define SVM_EXIT_SW		0xf0000000u

const char *const trace_odd_names[TRACE_NR_ODD] = {
	[TRACE_ODD_DURATION] = "duration",
	[TRACE_ODD_SPLIT] = "split",
	[TRACE_ODD_REASON] = "reason",
	[TRACE_ODD_ISA] = "isa",
	[TRACE_ODD_TYPE] = "type",
	[TRACE_ODD_CPU] = "cpu",
};

/*
 * Reason bits that take a reason off the fast path (reason_ok() then
 * decides): VMX's reserved ones, all above SVM's plain exit codes, all
 * above a vector's (a late interrupt's reason).
 */
#define VMX_FAST	VMX_RESERVED_BITS
#define SVM_FAST	(~SVM_LAST_PLAIN)
#define VECTOR_FAST	(~0xffu)

/* By event id (enum trace_event_id): what the records of its class hold. */
static const struct {
	uint8_t isa, type;
	uint32_t fast;			/* VMX_FAST, SVM_FAST or 0 */
	const char *name;
	bool mark;			/* clocks, not parts (no split) */
} classes[TRACE_EV_MAX + 1] = {
	[TRACE_EV_EXIT_VMX] = { HVTRACE_ISA_VMX, HVTRACE_EV_EXIT, VMX_FAST,
				"kvm_exit_vmx" },
	[TRACE_EV_EXIT_SVM] = { HVTRACE_ISA_SVM, HVTRACE_EV_EXIT, SVM_FAST,
				"kvm_exit_svm" },
	[TRACE_EV_EXIT_UNKNOWN] = { HVTRACE_ISA_UNKNOWN, HVTRACE_EV_EXIT, 0,
				    "kvm_exit" },
	[TRACE_EV_PREEMPT_VMX] = { HVTRACE_ISA_VMX, HVTRACE_EV_PREEMPT,
				   VMX_FAST, "vcpu_preempt_vmx" },
	[TRACE_EV_PREEMPT_SVM] = { HVTRACE_ISA_SVM, HVTRACE_EV_PREEMPT,
				   SVM_FAST, "vcpu_preempt_svm" },
	[TRACE_EV_PREEMPT_UNKNOWN] = { HVTRACE_ISA_UNKNOWN, HVTRACE_EV_PREEMPT,
				       0, "vcpu_preempt" },
	[TRACE_EV_MARK_VMX] = { HVTRACE_ISA_VMX, HVTRACE_EV_MARK, VMX_FAST,
				"guest_mark_vmx", true },
	[TRACE_EV_MARK_SVM] = { HVTRACE_ISA_SVM, HVTRACE_EV_MARK, SVM_FAST,
				"guest_mark_svm", true },
	[TRACE_EV_MARK_UNKNOWN] = { HVTRACE_ISA_UNKNOWN, HVTRACE_EV_MARK, 0,
				    "guest_mark", true },
	[TRACE_EV_IRQ_VMX] = { HVTRACE_ISA_VMX, HVTRACE_EV_IRQ, VECTOR_FAST,
			       "vcpu_irq_vmx" },
	[TRACE_EV_IRQ_SVM] = { HVTRACE_ISA_SVM, HVTRACE_EV_IRQ, VECTOR_FAST,
			       "vcpu_irq_svm" },
	[TRACE_EV_IRQ_UNKNOWN] = { HVTRACE_ISA_UNKNOWN, HVTRACE_EV_IRQ,
				   VECTOR_FAST, "vcpu_irq" },
};

static bool say(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool say(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

/*
 * Could REASON be what a record of class ID holds: a vector for a late
 * interrupt, else an exit reason of its vendor (without one, anything)?
 */
static inline bool reason_ok(unsigned int id, uint32_t reason)
{
	unsigned int isa = classes[id].isa;

	if (classes[id].type == HVTRACE_EV_IRQ)
		return reason <= 0xff;
	if (isa == HVTRACE_ISA_VMX)
		return !(reason & VMX_RESERVED_BITS);
	if (isa == HVTRACE_ISA_SVM)
		return reason <= SVM_LAST_PLAIN ||
		       reason >> 16 == SVM_VMGEXIT_HI ||
		       reason == SVM_EXIT_SW || reason == HV_SVM_EXIT_ERR;
	return true;
}

static inline uint64_t u64_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Field by field: a copy of part_ns[] would go through the stack. */
static inline uint64_t parts_sum(const uint8_t *ev)
{
	uint64_t h = u64_at(REC(ev, handling_ns));

	for (int i = 0; i < HVTRACE_NR_PARTS; i++)
		h += u64_at(REC(ev, part_ns) + i * sizeof(uint64_t));
	return h;
}

/*
 * The split rule: the parts and handling add up to the duration (a late
 * interrupt's wait holds its guest time too); a mark has its clocks where
 * the parts are, and neither duration nor handling.
 */
static inline bool split_ok(const uint8_t *ev, unsigned int id, uint64_t d)
{
	if (classes[id].mark)
		return !d && !u64_at(REC(ev, handling_ns));
	if (classes[id].type == HVTRACE_EV_IRQ)
		return parts_sum(ev) + u64_at(REC(ev, guest_ns)) == d;
	return parts_sum(ev) == d;
}

/*
 * cpu_entry, isa and type lie side by side: one 32-bit load and compare
 * checks all three (little-endian, as the whole format).
 */
_Static_assert(offsetof(struct trace_record, isa) ==
	       offsetof(struct trace_record, cpu_entry) + 2 &&
	       offsetof(struct trace_record, type) ==
	       offsetof(struct trace_record, cpu_entry) + 3,
	       "cpu_entry, isa, type are one 32-bit word");

/* That word, by event id, of a stream of CPU. */
static void class_words(uint32_t *words, unsigned int cpu)
{
	for (unsigned int id = 0; id <= TRACE_EV_MAX; id++)
		words[id] = (cpu & 0xffff) | (uint32_t)classes[id].isa << 16 |
			    (uint32_t)classes[id].type << 24;
}

/*
 * The hot path: does the event at EV of class ID, time TS, break no rule?
 * WORD is its class_words() entry. Every test nearly always passes, so
 * each is a branch the CPU predicts.
 */
static inline bool plausible(const uint8_t *ev, unsigned int id, uint64_t ts,
			     uint32_t word)
{
	uint32_t reason, w;
	uint64_t d;

	memcpy(&d, REC(ev, duration_ns), sizeof(d));
	memcpy(&reason, REC(ev, reason), sizeof(reason));
	memcpy(&w, REC(ev, cpu_entry), sizeof(w));
	return d <= ts && w == word && split_ok(ev, id, d) &&
	       (!(reason & classes[id].fast) || reason_ok(id, reason));
}

/* The rules (enum trace_odd) the event at EV of class ID breaks. */
static unsigned int odd_mask(const uint8_t *ev, unsigned int id, uint64_t ts,
			     unsigned int cpu)
{
	unsigned int isa = classes[id].isa;
	uint16_t cpu_entry;
	uint32_t reason;
	uint64_t d;

	memcpy(&d, REC(ev, duration_ns), sizeof(d));
	memcpy(&reason, REC(ev, reason), sizeof(reason));
	memcpy(&cpu_entry, REC(ev, cpu_entry), sizeof(cpu_entry));
	return (unsigned int)(d > ts) << TRACE_ODD_DURATION |
	       (unsigned int)!split_ok(ev, id, d) << TRACE_ODD_SPLIT |
	       (unsigned int)!reason_ok(id, reason) << TRACE_ODD_REASON |
	       (unsigned int)(*REC(ev, isa) != isa) << TRACE_ODD_ISA |
	       (unsigned int)(*REC(ev, type) != classes[id].type) <<
			TRACE_ODD_TYPE |
	       (unsigned int)(cpu_entry != cpu) << TRACE_ODD_CPU;
}

/* Out of line: the hot loop stays small. */
static __attribute__((noinline, cold))
void tally(struct trace_odd_tally *odd, const uint8_t *ev, unsigned int id,
	   uint64_t ts, unsigned int cpu, unsigned int i)
{
	unsigned int mask = odd_mask(ev, id, ts, cpu);

	if (!odd->events++)
		odd->first = i;
	for (int k = 0; k < TRACE_NR_ODD; k++)
		odd->count[k] += mask >> k & 1;
}

static bool header_ok(const struct trace_packet_header *h,
		      const struct trace_packet_context *c,
		      const struct trace_pkt_expect *x, char *why, size_t len)
{
	uint64_t body = c->content_size / 8;

	if (h->magic != TRACE_MAGIC)
		return say(why, len, "bad magic 0x%08x", h->magic);
	if (memcmp(h->uuid, x->uuid, sizeof(h->uuid)))
		return say(why, len, "uuid differs from the metadata's");
	if (h->stream_id)
		return say(why, len, "unknown stream id %u", h->stream_id);
	if (c->packet_size != TRACE_PACKET_SIZE * 8)
		return say(why, len, "packet_size %" PRIu64 " bits, not %u",
			   (uint64_t)c->packet_size, TRACE_PACKET_SIZE * 8);
	if (c->content_size % 8 || body < TRACE_PACKET_HEAD ||
	    body > TRACE_PACKET_SIZE ||
	    (body - TRACE_PACKET_HEAD) % TRACE_EVENT_SIZE)
		return say(why, len, "content_size %" PRIu64
			   " bits is not whole events",
			   (uint64_t)c->content_size);
	if (c->cpu_id != x->cpu)
		return say(why, len, "cpu_id %u in the stream of CPU %u",
			   c->cpu_id, x->cpu);
	if (c->timestamp_begin > c->timestamp_end)
		return say(why, len, "timestamp_begin after timestamp_end");
	return true;
}

bool trace_check_packet(const uint8_t *p, const struct trace_pkt_expect *x,
			struct trace_odd_tally *odd, char *why, size_t len)
{
	struct trace_packet_header h;
	struct trace_packet_context c;
	const uint8_t *ev = p + TRACE_PACKET_HEAD, *end;
	uint32_t words[TRACE_EV_MAX + 1];
	uint64_t prev = x->after, ts;
	unsigned int i = 0;

	memcpy(&h, p, sizeof(h));
	memcpy(&c, p + sizeof(h), sizeof(c));
	odd->events = 0;
	if (!header_ok(&h, &c, x, why, len))
		return false;
	end = p + c.content_size / 8;
	if (ev == end)
		return true;
	memset(odd->count, 0, sizeof(odd->count));
	class_words(words, x->cpu);
	memcpy(&ts, ev + EV_TS_OFF, sizeof(ts));
	if (ts != c.timestamp_begin)
		return say(why, len, "timestamp_begin %" PRIu64
			   ", its first event is at %" PRIu64,
			   (uint64_t)c.timestamp_begin, ts);
	for (; ev < end; ev += TRACE_EVENT_SIZE, i++) {
		uint16_t id;

		memcpy(&id, ev, sizeof(id));
		memcpy(&ts, ev + EV_TS_OFF, sizeof(ts));
		if (id - 1U >= TRACE_EV_MAX)	/* 1 to TRACE_EV_MAX */
			return say(why, len, "event %u: unknown event id %u",
				   i, id);
		if (ts < prev)
			return say(why, len, "event %u: time %" PRIu64
				   " goes back (after %" PRIu64 ")", i, ts,
				   prev);
		prev = ts;
		if (!plausible(ev, id, ts, words[id]))
			tally(odd, ev, id, ts, x->cpu, i);
	}
	if (ts != c.timestamp_end)
		return say(why, len, "timestamp_end %" PRIu64
			   ", its last event is at %" PRIu64,
			   (uint64_t)c.timestamp_end, ts);
	return true;
}

void trace_odd_describe(const uint8_t *ev, unsigned int cpu, char *why,
			size_t len)
{
	uint64_t ts, d;
	uint32_t reason;
	uint16_t id, cpu_entry;
	unsigned int mask, isa;

	memcpy(&id, ev, sizeof(id));
	memcpy(&ts, ev + EV_TS_OFF, sizeof(ts));
	memcpy(&d, REC(ev, duration_ns), sizeof(d));
	memcpy(&reason, REC(ev, reason), sizeof(reason));
	memcpy(&cpu_entry, REC(ev, cpu_entry), sizeof(cpu_entry));
	if (id < TRACE_EV_EXIT_VMX || id > TRACE_EV_MAX) {
		say(why, len, "unknown event id %u", id);
		return;
	}
	isa = classes[id].isa;
	mask = odd_mask(ev, id, ts, cpu);
	if (mask & 1U << TRACE_ODD_DURATION)
		say(why, len, "duration %" PRIu64 "ns is longer than the "
		    "clock had run at its end (%" PRIu64 "ns)", d, ts);
	else if ((mask & 1U << TRACE_ODD_SPLIT) && classes[id].mark)
		say(why, len, "a mark with a duration of %" PRIu64 "ns and "
		    "handling of %" PRIu64 "ns (it has neither)", d,
		    u64_at(REC(ev, handling_ns)));
	else if ((mask & 1U << TRACE_ODD_SPLIT) &&
		 classes[id].type == HVTRACE_EV_IRQ)
		say(why, len, "guest time, handling and the parts add up to %"
		    PRIu64 "ns, not to its duration %" PRIu64 "ns",
		    parts_sum(ev) + u64_at(REC(ev, guest_ns)), d);
	else if (mask & 1U << TRACE_ODD_SPLIT)
		say(why, len, "handling and the parts add up to %" PRIu64
		    "ns, not to its duration %" PRIu64 "ns", parts_sum(ev), d);
	else if ((mask & 1U << TRACE_ODD_REASON) &&
		 classes[id].type == HVTRACE_EV_IRQ)
		say(why, len, "vector 0x%x is above 0xff", reason);
	else if (mask & 1U << TRACE_ODD_REASON)
		say(why, len, "reason 0x%x is no %s exit reason", reason,
		    isa == HVTRACE_ISA_VMX ? "VMX" : "SVM");
	else if (mask & 1U << TRACE_ODD_ISA)
		say(why, len, "isa %u in a %s record", *REC(ev, isa),
		    classes[id].name);
	else if (mask & 1U << TRACE_ODD_TYPE)
		say(why, len, "type %u in a %s record", *REC(ev, type),
		    classes[id].name);
	else if (mask & 1U << TRACE_ODD_CPU)
		say(why, len, "cpu_entry %u in the stream of CPU %u",
		    cpu_entry, cpu);
	else
		say(why, len, "plausible");
}
