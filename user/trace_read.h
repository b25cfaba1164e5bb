/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a trace directory back (layout in trace_format.h): the events of
 * every CPU stream merged in timestamp order (the header's timestamp: the
 * vCPU's re-entry), with bounded memory (a read buffer of at most 32
 * packets per stream, 16 MiB over all streams, whatever the trace size).
 */
#ifndef HVCTL_TRACE_READ_H
#define HVCTL_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_format.h"

struct trace_reader;

struct trace_event {
	uint64_t ts_ns;			/* the end: re-entry, switch-in */
	uint16_t id;			/* enum trace_event_id */
	unsigned int cpu;		/* the stream's CPU */
	struct trace_record e;
};

/*
 * The start: the exit, or the preemption's switch-out (the header's
 * timestamp is the end).
 */
static inline uint64_t trace_exit_ns(const struct trace_event *ev)
{
	uint64_t d = ev->e.duration_ns;

	return d <= ev->ts_ns ? ev->ts_ns - d : 0;
}

/* A preemption record (HVTRACE_EV_PREEMPT), not an exit. */
static inline bool trace_is_preempt(const struct trace_event *ev)
{
	return ev->id >= TRACE_EV_PREEMPT_VMX;
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
};

/*
 * Open DIR. On failure returns NULL and writes a message naming the path
 * and the problem into ERR.
 */
struct trace_reader *trace_open(const char *dir, char *err, size_t errlen);
void trace_close(struct trace_reader *r);

/* The next event in time order: 1, 0 at the end, -1 on a corrupt packet
 * (message via trace_error()). A torn packet at a stream's end (the
 * recorder was killed) ends that stream quietly and counts in info.
 */
int trace_next(struct trace_reader *r, struct trace_event *ev);
const char *trace_error(const struct trace_reader *r);

struct trace_info {
	unsigned int nr_streams;
	uint64_t first_ts, last_ts;	/* over all packets */
	uint64_t discarded;		/* sum over streams of the last
					 * events_discarded seen */
	uint64_t packets;
	uint64_t torn_packets;		/* incomplete packets ignored */
	uint64_t events;		/* returned by trace_next so far */
};

/* Facts gathered so far (complete once trace_next returned 0). */
void trace_get_info(const struct trace_reader *r, struct trace_info *info);
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

/* VMs listed in vms.tsv (lines that do not parse are skipped). */
const struct trace_vm *trace_vm_by_pid(const struct trace_reader *r,
				       uint32_t pid);
const struct trace_vm *trace_vm_by_id(const struct trace_reader *r,
				      uint32_t vm_id);
/*
 * How to call the VM of an event: its name from vms.tsv (looked up by
 * vm_id, then by the VMM's pid), else "vm<id>" written into BUF.
 */
const char *trace_vm_label(const struct trace_reader *r, uint32_t vm_id,
			   uint32_t pid, char *buf, size_t len);
unsigned int trace_nr_vms(const struct trace_reader *r);
const struct trace_vm *trace_vm_at(const struct trace_reader *r,
				   unsigned int i);

#endif /* HVCTL_TRACE_READ_H */
