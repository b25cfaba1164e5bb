/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The on-disk trace written by `hvctl record`: a CTF 1.8 directory that
 * babeltrace2 and Trace Compass read, and that hvctl reads back itself
 * with the fixed layout below (no general CTF parser needed).
 *
 *   metadata        TSDL text describing exactly these structures; its
 *                   env block names the layout: hvtrace_format
 *   stream_<cpu>    one stream per host CPU: packets of TRACE_PACKET_SIZE
 *                   bytes, page-aligned, each written whole, so a killed
 *                   recorder leaves only complete packets behind
 *   hvtrace/        what CTF readers must not see as streams (they take
 *                   every plain file beside metadata for one):
 *     vms.tsv       "pid<TAB>vm_id<TAB>name<TAB>uuid" per VM seen (from
 *                   the VMM's command line, QEMU's -name guest=NAME and
 *                   -uuid: user/lib/vm_ident.h; no uuid column before 0.2)
 *     vmm-map.tsv   the devices of the VMMs record --qmp asked, a region
 *                   a line: user/lib/vmm_map.h (absent: none asked)
 *     host.json, config.json, stats-start.json, stats-end.json
 *
 * All integers little-endian, packed (CTF align = 8 bits).
 */
#ifndef HVCTL_TRACE_FORMAT_H
#define HVCTL_TRACE_FORMAT_H

#include <stdint.h>

#define TRACE_PACKET_SIZE	4096
#define TRACE_MAGIC		0xC1FC1FC1U
#define TRACE_SIDE_DIR		"hvtrace"	/* side files, under the trace */
/*
 * The layout of struct trace_record and its event classes; bumped
 * whenever they change. Format 1 (hvtrace ABI 1: 130-byte events, no
 * preemption records) named no version. Format 3 added the guest marks'
 * classes: a format 2 hvctl refuses it whole rather than skip the
 * packets holding a mark as damaged. Format 4 added the late interrupts'
 * classes, for the same reason. Readers take TRACE_FORMAT_OLDEST (the
 * same layout without marks and late interrupts) to TRACE_FORMAT.
 */
#define TRACE_FORMAT		4
#define TRACE_FORMAT_OLDEST	2

struct trace_packet_header {
	uint32_t magic;
	uint8_t uuid[16];
	uint32_t stream_id;		/* 0: one stream class */
} __attribute__((packed));

struct trace_packet_context {
	uint64_t timestamp_begin;	/* ns, the clock of the events */
	uint64_t timestamp_end;
	uint64_t content_size;		/* bits used, headers included */
	uint64_t packet_size;		/* bits: TRACE_PACKET_SIZE * 8 */
	uint64_t events_discarded;	/* lost on this CPU so far (CTF:
					 * a free-running counter) */
	uint32_t cpu_id;
} __attribute__((packed));

/*
 * One event class per kind and vendor, so babeltrace2 prints each reason
 * by name from its vendor's enum. Every class has the same layout; the
 * mark and late interrupt classes name some of its fields their own way
 * (struct trace_record). Ids 7 to 9 came with guest marks, in format 3; ids 10
 * to 12 with late interrupts, in format 4.
 */
enum trace_event_id {
	TRACE_EV_EXIT_VMX = 1,		/* "kvm_exit_vmx" */
	TRACE_EV_EXIT_SVM = 2,		/* "kvm_exit_svm" */
	TRACE_EV_EXIT_UNKNOWN = 3,	/* "kvm_exit": vendor not known */
	TRACE_EV_PREEMPT_VMX = 4,	/* "vcpu_preempt_vmx" */
	TRACE_EV_PREEMPT_SVM = 5,	/* "vcpu_preempt_svm" */
	TRACE_EV_PREEMPT_UNKNOWN = 6,	/* "vcpu_preempt" */
	TRACE_EV_MARK_VMX = 7,		/* "guest_mark_vmx" */
	TRACE_EV_MARK_SVM = 8,		/* "guest_mark_svm" */
	TRACE_EV_MARK_UNKNOWN = 9,	/* "guest_mark" */
	TRACE_EV_IRQ_VMX = 10,		/* "vcpu_irq_vmx" */
	TRACE_EV_IRQ_SVM = 11,		/* "vcpu_irq_svm" */
	TRACE_EV_IRQ_UNKNOWN = 12,	/* "vcpu_irq" */
};

#define TRACE_EV_MAX		TRACE_EV_IRQ_UNKNOWN

struct trace_event_header {
	uint16_t id;			/* enum trace_event_id */
	uint64_t timestamp;		/* vCPU re-entry (exit), switch-in
					 * (preemption) or injection (late
					 * interrupt), ns; the start is
					 * timestamp - duration_ns (a mark's
					 * is 0: its exit) */
} __attribute__((packed));

#define TRACE_COMM_LEN		16

/*
 * struct hvtrace_event less ts_ns (the header has the end time), plus
 * handling_ns: duration_ns - the parts, so babeltrace2 users see the
 * whole split. Preemption records (HVTRACE_EV_PREEMPT) use the same
 * layout: duration_ns = runnable_ns is the time off CPU, reason to rip
 * the exit in flight, handling_ns and guest_ns 0. Guest marks
 * (HVTRACE_EV_MARK) too: duration_ns, handling_ns and guest_ns 0, info1
 * the mark id ("mark_id" in the metadata), info2 the guest's TSC
 * ("guest_tsc"), and mark.* where the parts are, as in the module's
 * record (the guest TSC at the exit is computed, not stored). Late
 * interrupts (HVTRACE_EV_IRQ) too: duration_ns runs from the raise to
 * the injection (the header's timestamp), split into guest_ns, the parts
 * and handling_ns = duration_ns - guest_ns - the parts; reason is the
 * vector ("vector"), info1 the source, one HVTRACE_VCPU_IRQ_* bit
 * ("source"), info2 the reason of the vCPU's last exit, the one the
 * injecting entry ends ("last_exit_reason"); addr and rip 0.
 */
struct trace_record {
	uint64_t seq;
	uint64_t duration_ns;
	uint64_t handling_ns;
	union {
		uint64_t part_ns[4];	/* enum hvtrace_part: vmm, halt,
					 * runnable, other */
		struct {		/* marks: guest_tsc.h */
			uint64_t host_tsc;
			uint64_t tsc_offset;
			uint64_t tsc_ratio;
			uint64_t tsc_frac_bits;
		} __attribute__((packed)) mark;
	};
	uint64_t guest_ns;
	uint64_t info1;
	uint64_t info2;
	uint64_t addr;
	uint64_t rip;
	uint32_t reason;
	uint32_t intr_info;
	uint32_t error_code;
	uint32_t vcpu_id;
	uint32_t vm_id;
	uint32_t vm_pid;
	uint32_t tid;
	uint16_t cpu_exit;
	uint16_t cpu_entry;
	uint8_t isa;
	uint8_t type;
	uint16_t flags;
	uint32_t preempt_pid;		/* 0: no preemptor noted */
	uint64_t preempt_ns;
	char preempt_comm[TRACE_COMM_LEN];	/* printable ASCII (others
						 * become '?'), NUL-padded */
} __attribute__((packed));

#define TRACE_PACKET_HEAD \
	(sizeof(struct trace_packet_header) + sizeof(struct trace_packet_context))
#define TRACE_EVENT_SIZE \
	(sizeof(struct trace_event_header) + sizeof(struct trace_record))
#define TRACE_EVENTS_PER_PACKET \
	((TRACE_PACKET_SIZE - TRACE_PACKET_HEAD) / TRACE_EVENT_SIZE)

#endif /* HVCTL_TRACE_FORMAT_H */
