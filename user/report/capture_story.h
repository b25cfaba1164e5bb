/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The story of a capture (hvctl watch): what one line tells the operator,
 * derived from the capture's records, so that `hvctl watch` prints it as
 * a capture closes and `hvctl report` opens a capture's report with it.
 *
 *   trigger        the capture's header: exit, stall, preempted or irq,
 *                  the value that crossed the limit, the window, the
 *                  vector; or mark: the guest's mark id and TSC, from
 *                  the trigger record
 *   runnable       of it, the time the vCPU thread waited for a CPU, and
 *                  the task with the largest share of it (a preemption
 *                  record's preemptor, else an exit's), on which CPU
 *   delivery part  irq: where most of the interrupt's delivery time
 *                  went, of what the records show (the parts of the
 *                  exit it was injected at, the guest time before it);
 *                  exact when its late interrupt record is among them
 *   late interrupt a late interrupt record (HVTRACE_EV_IRQ) of the
 *                  capture: an irq trigger's own delivery, else the
 *                  longest; its vector, source, time and why (irq_why.h)
 *   before it      the dominant exit reason of the records before the
 *                  trigger record, its most common qualifier (GPA page
 *                  for NPF/EPT, port for I/O, MSR index for MSR exits)
 *                  and, among those, its most common RIP
 *
 * Records are in the vCPU's order; TRIG is the trigger record's index.
 */
#ifndef HVCTL_CAPTURE_STORY_H
#define HVCTL_CAPTURE_STORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "client.h"
#include "exit_reasons.h"

enum story_qual {
	STORY_Q_NONE,
	STORY_Q_PAGE,		/* a GPA page */
	STORY_Q_PORT,		/* an I/O port */
	STORY_Q_MSR,		/* an MSR index */
};

/* Where a late interrupt's delivery time went (irq triggers). */
enum story_part {
	STORY_P_NONE,		/* the records do not show */
	STORY_P_HANDLING,	/* parts of the exit it was injected at, */
	STORY_P_VMM,		/* numbered as enum hvtrace_threshold_on */
	STORY_P_HALT,
	STORY_P_RUNNABLE,
	STORY_P_OTHER,
	STORY_P_GUEST,		/* in the guest just before that exit */
	STORY_P_NR
};

struct capture_story {
	const struct hvc_capture *cap;
	/* The VM's name (vm_ident.h), "": none; the caller's to fill. */
	char vm_name[64];
	bool has_trigger;		/* the trigger record is among them */
	unsigned int trig;		/* its index */
	uint64_t runnable_ns;		/* of the trigger's time, waiting */
	/* The task with the largest share of that: pid 0, none known. */
	uint32_t pre_pid;
	char pre_comm[HVTRACE_COMM_LEN + 1];
	bool pre_vcpu;
	unsigned int pre_cpu;
	uint64_t pre_ns;
	bool pre_records;		/* from preemption records */
	/* The trigger record's reason and time (exit and irq triggers). */
	char trig_reason[EXIT_LABEL_LEN];
	uint64_t trig_ns;
	/* Irq triggers: the largest share of the delivery time, and where. */
	enum story_part delivery_part;
	uint64_t delivery_part_ns;
	/*
	 * A late interrupt record: the trigger's delivery (irq triggers),
	 * else the capture's longest; the why of its wait.
	 */
	bool has_irq;
	uint8_t irq_vector;
	uint64_t irq_source;		/* one HVTRACE_VCPU_IRQ_* bit */
	uint64_t irq_ns;		/* raise to injection */
	char irq_why[160];
	/* Mark triggers: the mark the guest made, when its record is here. */
	bool has_mark;
	uint64_t mark_id, guest_tsc;
	/* Before the trigger: the dominant reason, count of all exits. */
	uint64_t exits_before;
	char reason[EXIT_LABEL_LEN];	/* "": no exit before it */
	uint64_t reason_count;
	enum story_qual qual;
	uint64_t qual_key;		/* page, port or MSR */
	uint64_t qual_count;
	bool has_rip;
	uint64_t rip;
	uint64_t rip_count;
};

/*
 * Work out the story of CAP from its N records EV (CAP->events, or read
 * back from a capture's trace), TRIG the trigger record's index (N: not
 * among them). 0, or -ENOMEM reported.
 */
int capture_story(struct capture_story *st, const struct hvc_capture *cap,
		  const struct hvtrace_event *ev, unsigned int n,
		  unsigned int trig);
/* The index of the record numbered SEQ among EV[N] (the module's); N: none. */
unsigned int capture_find_seq(const struct hvtrace_event *ev, unsigned int n,
			      uint64_t seq);

/* "exit", "stall", "preempted", "mark", "irq": the trigger as a word. */
const char *capture_trigger_word(unsigned int trigger);
/* The inverse; -1: none. */
int capture_trigger_parse(const char *s);

/*
 * The story in one line, without the time and the path: "stall vm 3
 * vcpu 2: 43.20ms out of guest in 50.00ms: 41.00ms runnable (batch-job
 * (207) on CPU 5); before it 2114 NPF exits at page 0xfeb00000 from rip
 * 0x4016d0"; "mark vm 3 vcpu 0: guest mark 7 (guest tsc 123456789);
 * before it ..."; "irq vm 3 vcpu 1: interrupt 0xec delivered 150.20ms
 * after its raise: HLT 150.00ms, preempted 148.00ms by hvhog (262) on
 * CPU 0; before it ..."; with a late interrupt record in another
 * trigger's capture, "...; late interrupt 0xec (timer) 2.10ms: runnable
 * 1.80ms: preempted by stress-ng (4242); before it ...". Snprintf
 * semantics.
 */
int capture_story_line(char *buf, size_t len, const struct capture_story *st);
/* The evidence, a line each (summary.txt, report): reason -> ... */
void capture_story_evidence(FILE *f, const struct capture_story *st);
/* "page 0xfeb00000", "port 0x71", "msr 0xc0000080" (empty: none). */
int capture_qual_text(char *buf, size_t len, const struct capture_story *st);

/*
 * The capture as JSON members (capture.json, watch --json's lines, the
 * report's "capture"): header and story, the trigger time in UTC from
 * local_clock + CLOCK_OFFSET_NS; PATH (NULL: left out) where it was
 * written, and the trigger record in the trace's numbering, CPU's
 * TRIG_SEQ-th (0: none).
 */
struct out;
void capture_story_json(struct out *o, const struct capture_story *st,
			int64_t clock_offset_ns, const char *path,
			unsigned int trig_cpu, uint64_t trig_seq);

/*
 * Time TS (local_clock) + OFFSET in UTC: FMT (strftime) to the second,
 * then ".mmm" and SUFFIX: "12:01:33.123" with "%H:%M:%S" and "".
 */
void capture_time_text(char *buf, size_t len, uint64_t ts, int64_t offset,
		       const char *fmt, const char *suffix);

#endif /* HVCTL_CAPTURE_STORY_H */
