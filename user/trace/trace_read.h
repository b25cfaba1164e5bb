/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a trace directory back (layout in trace_format.h): the events of
 * every CPU stream merged in timestamp order (the header's timestamp: the
 * vCPU's re-entry), with bounded memory (a read buffer of at most 32
 * packets per stream, 16 MiB over all streams, whatever the trace size).
 *
 * Damage is expected (a disk, a copy or a hand went wrong) and never
 * costs the good data: every packet is checked whole before any of its
 * events is returned, and one that fails is skipped and counted; events
 * whose values cannot be right are returned but counted ("implausible");
 * stream files that are no regular file or cannot be read are skipped; a
 * side file that is missing or bad is a warning. trace_print_warnings()
 * says all of it in one line per kind. With TRACE_STRICT the first damaged
 * packet, implausible event or unreadable stream is an error instead.
 */
#ifndef HVCTL_TRACE_READ_H
#define HVCTL_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/hvtrace.h>

#include "trace_format.h"

struct trace_reader;

struct trace_event {
	uint64_t ts_ns;			/* the end: re-entry, switch-in,
					 * injection */
	uint16_t id;			/* enum trace_event_id */
	unsigned int cpu;		/* the stream's CPU */
	struct trace_record e;
};

/*
 * The start: the exit, the preemption's switch-out, or the late
 * interrupt's raise (the header's timestamp is the end).
 */
static inline uint64_t trace_exit_ns(const struct trace_event *ev)
{
	uint64_t d = ev->e.duration_ns;

	return d <= ev->ts_ns ? ev->ts_ns - d : 0;
}

/* A preemption record (HVTRACE_EV_PREEMPT), not an exit. */
static inline bool trace_is_preempt(const struct trace_event *ev)
{
	return ev->id >= TRACE_EV_PREEMPT_VMX &&
	       ev->id <= TRACE_EV_PREEMPT_UNKNOWN;
}

/* A guest mark (HVTRACE_EV_MARK): no exit either, its time is the CPUID's. */
static inline bool trace_is_mark(const struct trace_event *ev)
{
	return ev->id >= TRACE_EV_MARK_VMX && ev->id <= TRACE_EV_MARK_UNKNOWN;
}

/* A late interrupt (HVTRACE_EV_IRQ): raise to injection, reason the vector. */
static inline bool trace_is_irq(const struct trace_event *ev)
{
	return ev->id >= TRACE_EV_IRQ_VMX && ev->id <= TRACE_EV_IRQ_UNKNOWN;
}

/*
 * The kind of record, as the module's: HVTRACE_EV_EXIT, _PREEMPT, _MARK,
 * _IRQ.
 */
static inline unsigned int trace_event_type(const struct trace_event *ev)
{
	return trace_is_irq(ev) ? HVTRACE_EV_IRQ :
	       trace_is_mark(ev) ? HVTRACE_EV_MARK :
	       trace_is_preempt(ev) ? HVTRACE_EV_PREEMPT : HVTRACE_EV_EXIT;
}

/*
 * The exit reason a record goes by (names, filters): a late interrupt's
 * reason is its vector, so its last exit's, the one the injection ended.
 */
static inline uint32_t trace_exit_reason(const struct trace_event *ev)
{
	return trace_is_irq(ev) ? (uint32_t)ev->e.info2 : ev->e.reason;
}

/*
 * The preemptor's command name, NUL-terminated in BUF. The writer keeps
 * it printable; so does this, for traces written by something else.
 */
#define TRACE_COMM_BUF		(TRACE_COMM_LEN + 1)
const char *trace_comm(const struct trace_record *e, char *buf);

struct trace_vm {
	uint32_t pid;
	uint32_t vm_id;
	char name[64];			/* "" when unknown */
	char uuid[37];			/* "" when unknown */
};

/*
 * DIR's side file TRACE_SIDE_DIR/NAME whole, NUL-terminated after *LENP
 * bytes, if it is a regular file of at most 1 MiB (never opened if not:
 * a FIFO, a device); else NULL, errno (ENOENT, ENOTDIR: there is none)
 * and WHY in words.
 */
char *trace_read_side(const char *dir, const char *name, size_t *lenp,
		      const char **why);

/* trace_open() flags */
#define TRACE_STRICT	0x1	/* damage is an error, not a warning */
/*
 * Each stream to its end before the next, not merged in time order: for
 * a reader whose sums do not depend on the order (a report's second
 * pass). It saves the merge's compare per event.
 */
#define TRACE_ANY_ORDER	0x2

/*
 * Open DIR. On failure returns NULL and writes a message naming the path
 * and the problem into ERR.
 */
struct trace_reader *trace_open(const char *dir, unsigned int flags,
				char *err, size_t errlen);
void trace_close(struct trace_reader *r);

/*
 * The next event in time order (TRACE_ANY_ORDER: in stream order): 1, 0 at
 * the end, -1 on an error (message
 * via trace_error(): with TRACE_STRICT, damage; else only out of memory).
 * A torn packet at a stream's end (the recorder was killed) ends that
 * stream quietly and counts in info.
 */
int trace_next(struct trace_reader *r, struct trace_event *ev);
const char *trace_error(const struct trace_reader *r);

struct trace_info {
	unsigned int nr_streams;
	uint64_t first_ts, last_ts;	/* over all packets */
	uint64_t discarded;		/* sum over streams of the last
					 * events_discarded seen */
	uint64_t packets;		/* read and used */
	uint64_t torn_packets;		/* incomplete packets ignored */
	uint64_t damaged_packets;	/* whole packets skipped (damage) */
	uint64_t implausible;		/* events returned that cannot be
					 * right (trace_print_warnings()) */
	unsigned int bad_streams;	/* stream files (or their rest) not
					 * read: not regular, read errors */
	uint64_t events;		/* returned by trace_next so far */
};

/* Facts gathered so far (complete once trace_next returned 0). */
void trace_get_info(const struct trace_reader *r, struct trace_info *info);
/*
 * What was skipped or doubtful, to F: one "hvctl: warning: ..." line per
 * kind (damaged packets per stream, implausible events per rule, streams
 * not read, side files), each naming the first case; nothing if none.
 */
void trace_print_warnings(const struct trace_reader *r, FILE *f);
/*
 * Per stream: the CPU and the [begin, end] time ranges of packets whose
 * events_discarded grew, for coverage reports (callback per range).
 * A range runs from the end of the stream's previous packet with events
 * to the end of the packet that reported the loss; where no packet
 * bounds it (losses before a CPU's first events, or news in a final
 * packet without events) the trace's first_ts / last_ts stand in.
 * Ranges come per stream in time order; consecutive lossy packets are
 * one range, and past a fixed number of ranges per stream the closest
 * two are merged, so memory stays bounded (LOST totals stay exact).
 */
void trace_for_each_loss(const struct trace_reader *r,
			 void (*fn)(unsigned int cpu, uint64_t begin,
				    uint64_t end, uint64_t lost, void *arg),
			 void *arg);

/*
 * VMs listed in vms.tsv (read whole if a regular file of at most 1 MiB;
 * lines that do not parse are skipped and counted in a warning).
 */
const struct trace_vm *trace_vm_by_pid(const struct trace_reader *r,
				       uint32_t pid);
const struct trace_vm *trace_vm_by_id(const struct trace_reader *r,
				      uint32_t vm_id);
/*
 * VM_ID's line of DIR's vms.tsv into *VM, without a reader (a capture's
 * one VM): false when there is none.
 */
bool trace_side_vm(const char *dir, uint32_t vm_id, struct trace_vm *vm);
/*
 * How to call the VM of an event: its name from vms.tsv (looked up by
 * vm_id, then by the VMM's pid), else "vm<id>" written into BUF. R NULL:
 * no trace (drain), always "vm<id>".
 */
const char *trace_vm_label(const struct trace_reader *r, uint32_t vm_id,
			   uint32_t pid, char *buf, size_t len);
unsigned int trace_nr_vms(const struct trace_reader *r);
/*
 * The device the VMM PID emulates at GPA, as it names it (vmm-map.tsv:
 * record --qmp), or NULL: not known. R NULL: none.
 */
const char *trace_device(const struct trace_reader *r, uint32_t pid,
			 uint64_t gpa);
/*
 * The devices of any VMM in vmm-map.tsv that overlap guest-physical
 * START..END, each name once, joined by '|' into BUF (cut to LEN):
 * returns how many.
 */
unsigned int trace_devices_in(const struct trace_reader *r, uint64_t start,
			      uint64_t end, char *buf, size_t len);
const struct trace_vm *trace_vm_at(const struct trace_reader *r,
				   unsigned int i);

#endif /* HVCTL_TRACE_READ_H */
