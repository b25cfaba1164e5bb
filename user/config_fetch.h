/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The configuration in force, read with the GET_CONFIG dump: its parts
 * (single settings and bitmaps, then per-reason thresholds, then the
 * reason filter's entries, in batches) concatenated into one struct.
 */
#ifndef HVCTL_CONFIG_FETCH_H
#define HVCTL_CONFIG_FETCH_H

#include <stdbool.h>
#include <stdint.h>

#include "nl.h"

struct cfg_reason {
	uint8_t isa;
	uint32_t code;
	uint64_t threshold_ns;	/* per-reason thresholds only */
};

/* A bitmap of u64 words as the module sent it; NULL/0: absent. */
struct cfg_bitmap {
	uint64_t *w;
	unsigned int nbits;
};

struct config {
	uint64_t threshold_ns, preempt_threshold_ns;
	uint8_t threshold_on, halt_triggers;
	struct cfg_reason *thresholds;	/* per-reason overrides */
	unsigned int nr_thresholds;
	uint32_t pid;			/* 0: any */
	struct cfg_bitmap vcpus, cpus;
	uint64_t rip_min, rip_max;
	bool reason_filter;		/* a reason filter is in force */
	struct cfg_reason *reasons;	/* its entries */
	unsigned int nr_reasons;
	uint32_t buffer_kb;
	uint8_t mode;
};

/* Fill C (freeing what it held). 0 on success; errors are printed. */
int config_fetch(struct hvnl *nl, struct config *c);
void config_free(struct config *c);

#endif /* HVCTL_CONFIG_FETCH_H */
