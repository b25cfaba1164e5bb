/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fields of one event as every output names them: drain's JSON,
 * dump's JSON and CSV, and export's slice args. Each field is described
 * once (its name is the JSON key and the CSV column, its kind says how
 * it is written, its condition when it is there), and every writer walks
 * the one table, so a field added here shows up everywhere it belongs.
 * The CTF metadata is not a view but the record's binary layout
 * (trace_format.h): its names (addr, vcpu_id, cpu_entry) are the file's.
 * An event's text line is one too (event_text()): drain's and dump's.
 */
#ifndef HVCTL_EVENT_FIELDS_H
#define HVCTL_EVENT_FIELDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <linux/hvtrace.h>

struct hvtrace_event;
struct trace_reader;
struct trace_record;

/*
 * One event, from a ring (drain) or a trace (dump, export). A late
 * interrupt's reason and code are its last exit's (the one its injecting
 * entry ended), as a mark's are its exit's: its own reason is the vector.
 */
struct event_view {
	const char *type;		/* "exit", "preempt", "mark", "irq" */
	bool preempt;			/* a preemption record */
	bool mark;			/* a guest mark: parts all 0 */
	bool irq;			/* a late interrupt */
	uint64_t seq;
	uint64_t ts_ns;			/* the exit (a preemption: switch-out;
					 * a late interrupt: the raise) */
	uint64_t entry_ns;		/* re-entry (switch-in, injection);
					 * traces only */
	uint64_t duration_ns;
	const char *reason;		/* exit_reason_label() */
	uint64_t isa, code, info1, info2, intr_info, error_code;
	uint64_t addr;			/* gpa or msr, as flags say */
	/* What the GPA fault or device access hit (gpa_class.h), or NULL. */
	const char *gpa_class;
	const char *mmio_access;	/* "read", ...; NULL: no device access */
	uint64_t mmio_len;		/* the first access's bytes, 0: untold */
	const char *device;		/* the VMM's name of the GPA, or NULL */
	uint64_t rip;
	const char *vm;			/* trace_vm_label() */
	uint64_t vm_id, vm_pid, vcpu, tid, cpu_exit, cpu, flags;
	uint64_t part_ns[HVTRACE_NR_PARTS + 1];	/* handling first */
	uint64_t guest_ns;
	uint64_t no_entry;		/* 1: never re-entered */
	uint64_t preempt_pid;
	const char *preempt_comm;
	uint64_t preempt_vcpu;		/* 1: the preemptor is a vCPU thread */
	uint64_t preempt_ns;
	/* A guest mark's (guest_tsc.h): the module's record and the TSC. */
	uint64_t mark_id, guest_tsc, host_tsc, tsc_offset, tsc_ratio;
	uint64_t tsc_frac_bits;
	uint64_t guest_tsc_at_exit;	/* computed from the four above */
	/* A late interrupt's: its vector, who raised it (event_irq_source()). */
	uint64_t vector;
	const char *source;
};

enum event_kind {
	EF_U64,		/* a number */
	EF_HEX,		/* CSV 0x hex; JSON a number, export a "0x" string */
	EF_STR,		/* JSON escaped; CSV quoted when it must be */
	EF_BOOL,	/* JSON true/false; CSV 1/0 */
};

/* When a field is there: JSON leaves it out, CSV leaves its cell empty. */
enum event_when {
	EF_ALWAYS,
	EF_GPA,		/* flags: HVTRACE_EVF_ADDR_GPA */
	EF_MSR,		/* flags: HVTRACE_EVF_ADDR_MSR */
	EF_RIP,		/* flags: HVTRACE_EVF_RIP_VALID */
	EF_NO_ENTRY,	/* flags: HVTRACE_EVF_NO_ENTRY */
	EF_GPA_CLASS,	/* flags: HVTRACE_EVF_ADDR_GPA or HVTRACE_EVF_MMIO */
	EF_MMIO,	/* flags: HVTRACE_EVF_MMIO */
	EF_MMIO_LEN,	/* flags: HVTRACE_EVF_MMIO, a length told */
	EF_DEVICE,	/* the VMM named the GPA's region (trace_device()) */
	EF_PREEMPTOR,	/* a preemption record, or an exit with a preemptor */
	EF_MARK,	/* a guest mark */
	EF_IRQ,		/* a late interrupt */
};

/* The outputs a field belongs to. */
#define EF_DRAIN	0x1	/* drain -j */
#define EF_DUMP		0x2	/* dump -j */
#define EF_CSV		0x4	/* dump --format csv */
#define EF_EXPORT	0x8	/* export: a slice's args */

struct event_field {
	const char *key;	/* JSON key, CSV column */
	enum event_kind kind;
	enum event_when when;
	unsigned int off;	/* in struct event_view: uint64_t, or a string */
	unsigned int in;	/* EF_DRAIN ... EF_EXPORT */
	/*
	 * JSON writes the fields with a lead first, 1 before 2: what the
	 * record is (type, seq), as drain always did. CSV keeps the table's.
	 */
	unsigned int lead;
};

#define EVENT_NR_FIELDS 47
extern const struct event_field event_fields[];

/*
 * The fields of output SET (one of EF_DRAIN ... EF_EXPORT) into PICK,
 * which has room for EVENT_NR_FIELDS, in the order that output writes
 * them (JSON: by lead; CSV: the table's): returns how many.
 */
unsigned int event_fields_pick(const struct event_field **pick,
			       unsigned int set);

static inline bool event_field_present(const struct event_field *f,
				       const struct event_view *v)
{
	switch (f->when) {
	case EF_GPA:
		return v->flags & HVTRACE_EVF_ADDR_GPA;
	case EF_MSR:
		return v->flags & HVTRACE_EVF_ADDR_MSR;
	case EF_RIP:
		return v->flags & HVTRACE_EVF_RIP_VALID;
	case EF_NO_ENTRY:
		return v->flags & HVTRACE_EVF_NO_ENTRY;
	case EF_GPA_CLASS:
		return v->gpa_class;
	case EF_MMIO:
		return v->mmio_access;
	case EF_MMIO_LEN:
		return v->mmio_access && v->mmio_len;
	case EF_DEVICE:
		return v->device;
	case EF_PREEMPTOR:
		return v->preempt || v->preempt_pid;
	case EF_MARK:
		return v->mark;
	case EF_IRQ:
		return v->irq;
	default:
		return true;
	}
}

static inline uint64_t event_field_u64(const struct event_field *f,
				       const struct event_view *v)
{
	return *(const uint64_t *)((const char *)v + f->off);
}

static inline const char *event_field_str(const struct event_field *f,
					  const struct event_view *v)
{
	return *(const char *const *)((const char *)v + f->off);
}

/*
 * A late interrupt's source, one HVTRACE_VCPU_IRQ_* bit: "timer",
 * "local", "ipi", "device"; "unknown" for anything else.
 */
const char *event_irq_source(uint64_t source);

/*
 * The view of a ring's event; REASON, VM and COMM are its labels (COMM
 * NUL-terminated by the caller: the ring does not promise one). A mark's
 * reason is its exit's (CPUID), a late interrupt's its last exit's
 * (info2).
 */
void event_view_ring(struct event_view *v, const struct hvtrace_event *e,
		     const char *reason, const char *vm, const char *comm);
/*
 * The device V's GPA is in, as its VMM names it (trace_device()), for an
 * exit that says what its GPA hit: set after event_view_trace().
 */
void event_view_device(struct event_view *v, const struct trace_reader *r);

/*
 * The view of a trace's record of TYPE (HVTRACE_EV_*: trace_event_type())
 * that re-entered at ENTRY_NS on CPU; REASON, VM and COMM are its labels.
 */
void event_view_trace(struct event_view *v, const struct trace_record *e,
		      unsigned int type, uint64_t entry_ns, unsigned int cpu,
		      const char *reason, const char *vm, const char *comm);

/*
 * Room for a line of event_text() or event_json(): some 1000 bytes of
 * keys and numbers, a 63-byte VM name and a 16-byte command name escaped
 * six-fold, then put_u64()'s PUT_SLACK (put.h).
 */
#define EVENT_LINE_MAX 2048

/*
 * Output SET's fields (event_fields_pick()) with their JSON text made
 * once: the line writers' table.
 */
struct event_fmt {
	unsigned int set, n;
	const struct event_field *fields[EVENT_NR_FIELDS];
	/* Each field's ",\"key\":" and its length. */
	char keys[EVENT_NR_FIELDS][24];
	unsigned char key_len[EVENT_NR_FIELDS];
};

void event_fmt_init(struct event_fmt *f, unsigned int set);

/*
 * The JSON members of V that F's output has, each after a comma, at P:
 * returns the end. Export writes the hex fields as "0x..." strings.
 */
char *event_json_members(char *p, const struct event_fmt *f,
			 const struct event_view *v);

/* V as one JSON object at P (drain -j, dump -j): returns its end. */
char *event_json(char *p, const struct event_fmt *f,
		 const struct event_view *v);

/*
 * V as drain's and dump's text line (no newline) at P: returns its end.
 *
 * [120.443201] vm guest1 pid 4100 vcpu0 cpu3 NPF gpa 0x7ff82000 write
 *   rip 0x... 312.4us: handling 12.1us vmm 200.0us halt 0ns runnable
 *   100.3us other 0ns guest 5.0us; preempted by stress-ng (4242)
 *   for 100.3us
 * [120.443201] vm guest1 pid 4100 vcpu0 cpu3 NPF gpa 0xfea00000 write
 *   rsvd vmm-mmio (edu-mmio) 4-byte write rip 0x... 80.1us: ...
 * [120.443201] vm guest1 pid 4100 vcpu0 cpu3 preempted 1.20ms by
 *   stress-ng (4242); in NPF gpa 0x7ff82000 write rip 0x...
 * [120.443201] vm guest1 pid 4100 vcpu0 cpu3 mark 7 rip 0x1088 guest
 *   tsc 123456789 (at the exit: 123457000, +211 cycles)
 * [120.443201] vm guest1 pid 4100 vcpu0 cpu3 irq 0xec timer late 1.20ms
 *   after HLT: handling 2.0us vmm 0ns halt 0ns runnable 1.10ms other 0ns
 *   guest 98.0us; preempted by stress-ng (4242) for 1.10ms
 *
 * A mark's "at the exit" is the guest's TSC computed from the host's at
 * the exit, and how far the guest's own reading lies before it. A late
 * interrupt's time is its raise, its CPU the injecting entry's; its wait
 * is split as an exit's time is, guest time included; "after" names its
 * last exit.
 */
char *event_text(char *p, const struct event_view *v);

/*
 * The decoded exit information (exit_reason_qualifier()) into BUF, less
 * the address the line shows already from addr (SVM's NPF text starts
 * "gpa 0x...", VMX's RDMSR-immediate "msr 0x..."): what follows it.
 */
const char *event_qualifier(char *buf, size_t len, const struct event_view *v);

#endif /* HVCTL_EVENT_FIELDS_H */
