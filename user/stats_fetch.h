/* SPDX-License-Identifier: GPL-2.0 */
/* The module's aggregates, fetched with one GET_STATS dump. */
#ifndef HVCTL_STATS_FETCH_H
#define HVCTL_STATS_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/hvtrace.h>

#include "hist.h"

struct reason_row {
	unsigned int isa;
	uint32_t code;
	bool has_code;		/* false: a catch-all row */
	bool has_hist;
	uint64_t count, total_ns, min_ns, max_ns;
	__u64 part_ns[HVTRACE_NR_PARTS];	/* of total_ns */
	uint64_t no_entry;	/* of count: ended by vCPU destruction */
	struct hist hist;	/* merged from every message of the reason */
};

struct vcpu_row {
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
};

/* A task that ran while a vCPU thread waited runnable. */
struct preemptor_row {
	uint32_t pid;
	bool vcpu;		/* itself a vCPU thread */
	char comm[HVTRACE_COMM_LEN];
	uint64_t count, ns;
};

struct stats {
	struct reason_row *reasons;
	unsigned int nr_reasons;
	struct vcpu_row *vcpus;
	unsigned int nr_vcpus;
	struct preemptor_row *preemptors;	/* most time first */
	unsigned int nr_preemptors;
	uint64_t age_ns;	/* since load or clear */
};

/*
 * Fill S (freeing what it held; on failure it holds nothing). 0 on
 * success; errors are printed. A
 * reason's histogram that goes on in further messages is merged into it.
 */
int stats_fetch(struct stats *s);
void stats_free(struct stats *s);
/*
 * Display name of an exit: "NPF", "0x1234"; without a code (a catch-all
 * row) "other VMX" or "other SVM"; of ISA unknown "unknown".
 */
const char *exit_label(unsigned int isa, uint32_t code, bool has_code,
		       char *buf, unsigned int len);
/* Display name of a reason row: "NPF", "other VMX", "unknown", "0x1234". */
const char *reason_row_name(const struct reason_row *r, char *buf,
			    unsigned int len);

/* "in kernel", "in VMM", "runnable", "blocked"; JSON: "in_kernel", ... */
const char *vcpu_state_name(unsigned int state, bool json);

#endif /* HVCTL_STATS_FETCH_H */
