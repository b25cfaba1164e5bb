/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The module's state: the GET_STATUS reply (totals) and, when asked, its
 * dump (one accounting row per traced CPU), as plain structs.
 */
#ifndef HVCTL_STATUS_FETCH_H
#define HVCTL_STATUS_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/hvtrace.h>

#include "nl.h"

/* One ACCT nest: counters indexed by their HVTRACE_ACCT_* attribute. */
struct acct_row {
	uint32_t cpu;		/* rows of the dump only */
	uint64_t n[HVTRACE_ACCT_MAX + 1];
};

struct status {
	char version[32];
	char vendor[32];	/* "" while exit reasons cannot be read */
	uint32_t abi, nr_cpus, cpus_traced;
	bool recording, reader;
	uint64_t exits_seen, entries_seen, exits_untraced, age_ns;
	uint32_t vcpus_live, vcpus_max, vms_live;
	uint64_t vcpus_created, vcpus_reclaimed, vcpus_refused;
	bool reclaim;		/* vCPU and VM destruction is followed */
	uint64_t mem_bytes, mem_cpu_bytes, mem_vcpu_bytes;
	struct acct_row total;
	struct acct_row *cpus;	/* with PER_CPU: the dump, in its order */
	unsigned int nr_cpu_rows;
};

/*
 * Fill S over NL; with PER_CPU also the per-CPU rows. 0 on success;
 * errors are printed. status_free() in any case.
 */
int status_fetch(struct hvnl *nl, struct status *s, bool per_cpu);
void status_free(struct status *s);

#endif /* HVCTL_STATUS_FETCH_H */
