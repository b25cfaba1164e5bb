/* SPDX-License-Identifier: GPL-2.0 */
/*
 * hvc: hvctl's typed client of the hvtrace module. Commands call these on
 * plain structs and never see a netlink attribute; nl.c is the transport
 * underneath. Every call returns 0 or a negative errno, and says what went
 * wrong through the error sink (never on stdout; it never exits).
 *
 * A change of configuration is a struct hvc_change filled from what the
 * user typed (hvc_change_*() parse and check each part), then sent whole
 * with hvc_config_set(): one change is one SET_CONFIG, which the module
 * applies atomically, so nothing is sent unless all of it is valid.
 *
 * What the *_get() calls fill (hvc_status, hvc_config, hvc_stats) follows
 * one rule: a call frees what the struct held before it fills it, and on
 * failure leaves it holding nothing; the *_free() calls may be called any
 * number of times. Start with the struct zeroed and free it once at the
 * end, whatever the calls returned.
 */
#ifndef HVCTL_CLIENT_H
#define HVCTL_CLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/hvtrace.h>

#include "err.h"
#include "exit_reasons.h"
#include "hist.h"

/* A session with the module. */
struct hvc;

/*
 * Open one into *C and resolve the family: 0, or a negative errno with
 * *C NULL and the sink told what to do (-ENOENT: load the module; a
 * socket's errno otherwise).
 */
int hvc_open(struct hvc **c);
void hvc_close(struct hvc *c);

int hvc_start(struct hvc *c);
int hvc_stop(struct hvc *c);
int hvc_clear(struct hvc *c);

/* Status: GET_STATUS, and with per_cpu its dump. */

/*
 * The watch's settings (WATCH_START; GET_STATUS while armed). A zero
 * trigger is no such trigger; a zero history, rate or rate_total, and
 * post_ns without has_post, take the module's default.
 */
/* The settings a user types, up to the last (the status' come between). */
#define HVC_WATCH_TYPED		(HVTRACE_WATCH_IRQ_NS + 1)

struct hvc_watch {
	uint64_t exit_ns;		/* an exit's part reaching it */
	uint8_t exit_on;		/* enum hvtrace_threshold_on */
	uint8_t halt_triggers;		/* with exit_on total, halt counts */
	uint64_t stall_ns, stall_window_ns;	/* out of the guest in window */
	uint64_t preempt_ns;		/* preempted inside KVM */
	uint64_t irq_ns;		/* an interrupt delivered so late */
	uint32_t history;		/* records before a trigger */
	uint64_t post_ns;		/* recording after it */
	bool has_post;
	uint32_t rate, rate_total;	/* captures a minute, per vCPU, all */
	uint32_t pid;			/* 0: any VMM */
	/* Words up to the last non-zero one; none: any vCPU. */
	uint64_t vcpus[(HVTRACE_MAX_VCPU_ID + 64) / 64];
	unsigned int nr_vcpu_words;
	/* Guest marks trigger (HVTRACE_MARK_LEAF): those of MARK_PID's VMs only. */
	uint8_t mark_triggers;
	uint32_t mark_pid;		/* 0: any VMM's */
	/*
	 * What the user typed for each HVTRACE_WATCH_* setting (NULL: not
	 * typed): a refusal by the module names it.
	 */
	const char *typed[HVC_WATCH_TYPED];
};

/* The watch's state in GET_STATUS. */
struct hvc_watch_status {
	bool known;		/* the module sent it (ABI with the watch) */
	bool armed;
	struct hvc_watch set;	/* while armed, its settings */
	uint32_t vcpus;		/* with a history now */
	uint64_t mem_bytes;	/* histories and captures */
	uint64_t vcpu_bytes;	/* one vCPU's history */
	uint64_t captures;	/* closed since armed */
	uint32_t pending;	/* of them, not read yet */
	uint64_t dropped;	/* of them, freed unread */
	uint64_t suppressed_busy, suppressed_rate, suppressed_total;
	uint64_t no_history;	/* vCPUs refused a history */
};

/* Accounting counters indexed by their HVTRACE_ACCT_* attribute. */
struct hvc_acct_row {
	uint32_t cpu;		/* rows of the dump only */
	uint64_t n[HVTRACE_ACCT_MAX + 1];
};

struct hvc_status {
	char version[32];
	char vendor[32];	/* "" while exit reasons cannot be read */
	char clock[16];		/* "tsc", "local_clock"; "" from older modules */
	uint32_t clock_skew_ns;	/* with "tsc": at most that far from local_clock() */
	bool irq_probes_known;	/* false from modules older than interrupts */
	uint8_t irq_probes;	/* HVTRACE_IRQ_PROBE_* */
	uint32_t abi, nr_cpus, cpus_traced;
	bool recording, reader;
	uint64_t exits_seen, entries_seen, exits_untraced, age_ns;
	uint32_t vcpus_live, vcpus_max, vms_live;
	uint64_t vcpus_created, vcpus_reclaimed, vcpus_refused;
	bool reclaim;		/* vCPU and VM destruction is followed */
	uint64_t mem_bytes, mem_cpu_bytes, mem_vcpu_bytes;
	struct hvc_acct_row total;
	struct hvc_acct_row *cpus;	/* with per_cpu: the dump, in order */
	unsigned int nr_cpu_rows;
	struct hvc_watch_status watch;
};

/* Fill S (as every *_get(): see the top of this file). */
int hvc_status_get(struct hvc *c, struct hvc_status *s, bool per_cpu);
/*
 * The same with the counters since load, which hvctl clear leaves alone
 * (an exporter's: they never go back); age_ns is since load.
 */
int hvc_status_get_since_load(struct hvc *c, struct hvc_status *s);
void hvc_status_free(struct hvc_status *s);

/* Configuration: the GET_CONFIG dump, its parts in one struct. */

struct hvc_reason {
	uint8_t isa;
	uint32_t code;
	uint64_t threshold_ns;	/* per-reason thresholds only */
};

/* A bitmap of u64 words as the module sent it; NULL/0: absent. */
struct hvc_bitmap {
	uint64_t *w;
	unsigned int nbits;
};

struct hvc_config {
	uint64_t threshold_ns, preempt_threshold_ns;
	uint64_t irq_threshold_ns;	/* or HVTRACE_IRQ_THRESHOLD_OFF */
	uint8_t threshold_on, halt_triggers;
	struct hvc_reason *thresholds;	/* per-reason overrides */
	unsigned int nr_thresholds;
	uint32_t pid;			/* 0: any */
	struct hvc_bitmap vcpus, cpus;
	uint64_t rip_min, rip_max;
	bool reason_filter;		/* a reason filter is in force */
	struct hvc_reason *reasons;	/* its entries */
	unsigned int nr_reasons;
	uint32_t buffer_kb;
	uint8_t mode;
};

/* Fill CFG (as every *_get(): see the top of this file). */
int hvc_config_get(struct hvc *c, struct hvc_config *cfg);
void hvc_config_free(struct hvc_config *cfg);

/* A change of configuration: only what HVC_CH_* bits in .set name. */

#define HVC_MAX_CPUS		8192
#define HVC_MAX_REASONS		512

enum {
	HVC_CH_THRESHOLD	= 1 << 0,	/* threshold_ns, threshold_on */
	HVC_CH_PREEMPT		= 1 << 1,	/* preempt_threshold_ns */
	HVC_CH_HALT		= 1 << 2,	/* halt_triggers */
	HVC_CH_CLEAR_THRESHOLDS	= 1 << 3,	/* per-reason ones, first */
	HVC_CH_CLEAR_FILTERS	= 1 << 4,	/* all filters, first */
	HVC_CH_PID		= 1 << 5,
	HVC_CH_VCPUS		= 1 << 6,
	HVC_CH_CPUS		= 1 << 7,
	HVC_CH_RIP		= 1 << 8,
	HVC_CH_REASONS		= 1 << 9,	/* the reason filter */
	HVC_CH_BUFFER_KB	= 1 << 10,
	HVC_CH_MODE		= 1 << 11,
	HVC_CH_REASON_THRESHOLDS = 1 << 12,	/* thresholds[], added */
	HVC_CH_IRQ		= 1 << 13,	/* irq_threshold_ns */
};

/* What the user typed for occurrences FIRST.. of a CONFIG attribute. */
struct hvc_typed {
	uint16_t attr;
	uint16_t first, count;	/* of the attribute's repetitions */
	char text[64];
};

#define HVC_MAX_TYPED		64

struct hvc_change {
	unsigned int set;
	uint64_t threshold_ns;
	uint8_t threshold_on;		/* enum hvtrace_threshold_on */
	uint64_t preempt_threshold_ns;
	uint64_t irq_threshold_ns;	/* or HVTRACE_IRQ_THRESHOLD_OFF */
	uint8_t halt_triggers;
	struct hvc_reason thresholds[HVC_MAX_REASONS];
	unsigned int nr_thresholds;	/* per-reason, added or changed */
	uint32_t pid;			/* 0: any */
	/* Words up to the last non-zero one; none: any. */
	uint64_t vcpus[(HVTRACE_MAX_VCPU_ID + 64) / 64];
	unsigned int nr_vcpu_words;
	uint64_t cpus[HVC_MAX_CPUS / 64];
	unsigned int nr_cpu_words;
	uint64_t rip_min, rip_max;
	struct hvc_reason reasons[HVC_MAX_REASONS];
	unsigned int nr_reasons;	/* none: any */
	uint32_t buffer_kb;
	uint8_t mode;			/* HVTRACE_MODE_* */
	/*
	 * VM names only checked, not looked up, their pid 0: a change read
	 * to be checked, never sent (hvctl apply --check, config_file.h).
	 */
	bool names_unresolved;
	/*
	 * What the user typed for each part, by HVTRACE_CFG_* attribute and,
	 * for the repeated per-reason thresholds, by entry: when the module
	 * refuses one, the error names it.
	 */
	struct hvc_typed typed[HVC_MAX_TYPED];
	unsigned int nr_typed;
};

/*
 * Parts of a change from what the user typed: S came with option OPT
 * ("--cpu", "cpu"; NULL for a positional argument), which errors from
 * the module will name. 0, or -EINVAL with the reason in the sink; a
 * pid's VM name that no running VM has, or two, -ESRCH or -EEXIST.
 */
int hvc_change_pid(struct hvc_change *ch, const char *opt, const char *s);
int hvc_change_vcpus(struct hvc_change *ch, const char *opt, const char *s);
int hvc_change_cpus(struct hvc_change *ch, const char *opt, const char *s);
int hvc_change_rip(struct hvc_change *ch, const char *opt, const char *s);
/* "npf,io" or "any" for the reason filter. */
int hvc_change_reasons(struct hvc_change *ch, const char *opt,
		       const char *s);
/* Per-reason threshold NS for the exit reasons NAME matches. */
int hvc_change_reason_threshold(struct hvc_change *ch, const char *opt,
				const char *name, uint64_t ns);
/*
 * A SIZE as every option takes it, in KiB: "2048" (KiB), "512K", "4M",
 * "1G", "1T"; too large to count is UINT64_MAX. 0, or -EINVAL reported.
 */
int hvc_parse_size(const char *s, uint64_t *kib);
/* "2048" (KiB), "512K", "4M", "1G". */
int hvc_change_buffer_size(struct hvc_change *ch, const char *opt,
			   const char *s);
/* "discard" or "overwrite". */
int hvc_change_mode(struct hvc_change *ch, const char *opt, const char *s);
/*
 * KIND "pid", "vcpu", "cpu", "reason" or "rip", with its value S: the one
 * list of filter kinds. -ENOENT, not reported, when KIND is none of them
 * (the command says so in its usage error); with S NULL only that is
 * checked: 0 or -ENOENT, CH unchanged.
 */
int hvc_change_filter(struct hvc_change *ch, const char *opt,
		      const char *kind, const char *s);
/* Note that attribute ATTR came from OPT S, for parts set directly. */
void hvc_change_typed(struct hvc_change *ch, uint16_t attr, const char *opt,
		      const char *s);
/* What the user typed for occurrence NTH of attribute ATTR; NULL: unknown. */
const char *hvc_change_typed_at(const struct hvc_change *ch, uint16_t attr,
				unsigned int nth);
/*
 * Into UNDO, the change that puts back what CH changes as CFG has it (the
 * configuration read before CH was sent).
 */
void hvc_change_undo(struct hvc_change *undo, const struct hvc_change *ch,
		     const struct hvc_config *cfg);

/* A threshold: a duration of at most HVTRACE_THRESHOLD_NS_MAX. */
int hvc_parse_threshold(const char *s, uint64_t *ns);
/* The same for late interrupt records, or "off": HVTRACE_IRQ_THRESHOLD_OFF. */
int hvc_parse_irq_threshold(const char *s, uint64_t *ns);
/* One exit reason name or number: how many refs it gives in OUT. */
int hvc_parse_reason(const char *s, struct exit_reason_ref *out, int max);

/* Send CH as one SET_CONFIG; the module applies all of it or nothing. */
int hvc_config_set(struct hvc *c, const struct hvc_change *ch);
/* The same in a session of its own (opened and closed here). */
int hvc_apply(const struct hvc_change *ch);

/* Statistics: GET_STATUS (for the age) and the GET_STATS dump. */

struct hvc_reason_row {
	unsigned int isa;
	uint32_t code;
	bool has_code;		/* false: a catch-all row */
	bool has_hist;
	uint64_t count, total_ns, min_ns, max_ns;
	__u64 part_ns[HVTRACE_NR_PARTS];	/* of total_ns */
	uint64_t no_entry;	/* of count: ended by vCPU destruction */
	struct hist hist;	/* merged from every message of the reason */
};

/* A vCPU's exits of one reason since its first exit (since load only). */
struct hvc_vcpu_reason {
	unsigned int isa;
	uint32_t code;
	bool has_code;		/* false: a catch-all */
	uint64_t count, total_ns;
};

/*
 * Interrupts of one vector delivered to a vCPU since the last clear, each
 * timed from its raise (KVM accepting it into the vCPU's local APIC) to
 * the entry that injected it.
 */
struct hvc_vcpu_irq {
	unsigned int vector;	/* 0 in the other row */
	bool other;		/* the vectors past the first few, together */
	bool timer;		/* its LAPIC timer, timed from the expiry */
	bool local;		/* by the vCPU itself (LVTs, a timer's raise) */
	bool ipi;		/* raised by another vCPU of its VM */
	bool device;		/* by no vCPU of its VM (VMM, irqfd, PIT) */
	/*
	 * Flags this hvctl does not know, a newer module's: taken for
	 * sources it cannot name, never for a reason to refuse the reply.
	 */
	bool unknown;
	uint64_t count, total_ns, max_ns;
	/*
	 * Where total_ns went (struct hvtrace_vcpu_irq_split), from a module
	 * that says (has_split): in the guest before the exit that delivered
	 * it, that exit's parts after the raise; handling is the rest. The
	 * longest runnable wait of one delivery and who ran (pre_pid 0:
	 * none, or not known).
	 */
	bool has_split;
	uint64_t guest_ns;
	__u64 part_ns[HVTRACE_NR_PARTS];
	uint64_t pre_ns;
	uint32_t pre_pid;
	bool pre_vcpu;
	char pre_comm[16];
	/*
	 * Percentiles since the clear (struct hvtrace_vcpu_irq_pct: each a
	 * quarter octave's middle, at most max_ns), from a module that
	 * sends them (has_pct; never since load).
	 */
	bool has_pct;
	uint64_t p50_ns, p99_ns, p999_ns;
};

struct hvc_vcpu_row {
	uint32_t vm_id, vm_pid, vcpu_id, tid;
	uint64_t count, total_ns, min_ns, max_ns;
	__u64 part_ns[HVTRACE_NR_PARTS];	/* of total_ns (exits) */
	uint64_t guest_ns;			/* entry to exit */
	uint64_t preemptions, preempted_ns;
	bool gone;		/* destroyed: its aggregates as they ended */
	bool in_exit;		/* out of the guest now: */
	unsigned int exit_isa;
	uint32_t exit_reason;
	uint64_t exit_ns;	/* for so long */
	unsigned int exit_state;	/* enum hvtrace_vcpu_state */
	struct hvc_vcpu_reason *reasons;	/* since load only */
	unsigned int nr_reasons;
	struct hvc_vcpu_irq *irqs;	/* by vector, the other row last */
	unsigned int nr_irqs;
	/* Injections not timed: of no timed raise, and again after an exit */
	uint64_t irq_unmatched, irq_reinjected;
	uint64_t irq_posted;	/* raises the CPU delivered (APICv, AVIC) */
};

/* A task that ran while a vCPU thread waited runnable. */
struct hvc_preemptor_row {
	uint32_t pid;
	bool vcpu;		/* itself a vCPU thread */
	char comm[HVTRACE_COMM_LEN];
	uint64_t count, ns;
};

struct hvc_stats {
	struct hvc_reason_row *reasons;
	unsigned int nr_reasons;
	struct hvc_vcpu_row *vcpus;
	unsigned int nr_vcpus;
	struct hvc_preemptor_row *preemptors;	/* most time first */
	unsigned int nr_preemptors;
	uint64_t age_ns;	/* since load or clear */
};

/* Fill S (as every *_get(): see the top of this file). */
int hvc_stats_get(struct hvc *c, struct hvc_stats *s);
/*
 * The same with the counters since load (see hvc_status_get_since_load()),
 * and each vCPU's exits per reason.
 */
int hvc_stats_get_since_load(struct hvc *c, struct hvc_stats *s);
void hvc_stats_free(struct hvc_stats *s);

/* Draining: READ_EVENTS, every event handed to a callback. */

struct hvc_drain_ops {
	/* An event; an error stops the events (not the dump) and is kept. */
	int (*event)(const struct hvtrace_event *ev, void *data);
	/* A CPU's loss counters, with each batch from it (may be NULL). */
	void (*cpu)(unsigned int cpu, uint64_t lost, uint64_t overwritten,
		    void *data);
	void *data;
};

/* What the rings hold now; the first error of ops->event, or 0. */
int hvc_drain(struct hvc *c, const struct hvc_drain_ops *ops);

/*
 * The same in place: the rings mapped from /dev/hvtrace (client_rings.c),
 * no copy through netlink. Opening takes the rings (the lease) until
 * closed. -ENOENT, unreported, when the device is missing (the caller
 * may drain through netlink instead); other errors are reported. NR_CPUS
 * is the status' possible CPUs; a CPU without a ring is looked for again
 * when the module says a CPU came up, and each second. An event refused
 * by ops->event stays in its ring.
 */
struct hvc_rings;

int hvc_rings_open(struct hvc_rings **rs, unsigned int nr_cpus);
int hvc_rings_drain(struct hvc_rings *rs, const struct hvc_drain_ops *ops);
void hvc_rings_close(struct hvc_rings *rs);

/*
 * The watch (client_watch.c). Arm it with W, or change the armed one: it
 * belongs to session C, and disarms when C closes. A refusal says the
 * module's message and the option the user typed for it (W->typed).
 */
int hvc_watch_start(struct hvc *c, const struct hvc_watch *w);
int hvc_watch_stop(struct hvc *c);
/* "0,2-5" (or "any") as W's vCPUs: 0, or -EINVAL/-ERANGE reported. */
int hvc_watch_vcpus(struct hvc_watch *w, const char *s);

/* A capture as READ_CAPTURES hands it over: its header and records. */
struct hvc_capture {
	uint64_t id;
	uint32_t vm_id, vm_pid, vcpu_id, tid;
	uint8_t trigger;		/* enum hvtrace_trigger */
	uint8_t on;			/* EXIT: enum hvtrace_threshold_on */
	uint8_t irq_vector;		/* IRQ: the interrupt's */
	uint64_t trigger_ts;		/* local_clock(), the trigger's end */
	uint64_t value_ns, limit_ns;	/* what crossed which limit */
	uint64_t window_ns;		/* STALL: the window */
	uint64_t first_seq, trigger_seq, end_seq;
	uint64_t suppressed;		/* this vCPU's, since its last one */
	/* read together at the copy; 0: an older module */
	uint64_t clock_ns, realtime_ns;
	struct hvtrace_event *events;	/* in the vCPU's order */
	unsigned int nr_events;
};

/*
 * Every closed capture, oldest first, to CB one at a time (its events
 * are freed when CB returns). The first error of CB is returned; the
 * dump is read to its end all the same (what it hands over is gone).
 */
typedef int (*hvc_capture_cb)(const struct hvc_capture *cap, void *data);
int hvc_captures_read(struct hvc *c, hvc_capture_cb cb, void *data);

/* The "events" multicast group: watermark and capture notifications. */
int hvc_subscribe(struct hvc *c);
/* To poll() on for them. */
int hvc_fd(const struct hvc *c);
/* Read and drop whatever notifications are queued. */
void hvc_discard_pending(struct hvc *c);

#define HVC_NOTE_WATERMARK	(1U << 0)	/* a ring passed half full */
#define HVC_NOTE_CAPTURE	(1U << 1)	/* a capture closed */

/*
 * Read whatever notifications are queued, without waiting: which kinds
 * came (HVC_NOTE_*). An overrun of the socket's queue counts as every
 * kind (some may have been lost).
 */
unsigned int hvc_notifications(struct hvc *c);

#endif /* HVCTL_CLIENT_H */
