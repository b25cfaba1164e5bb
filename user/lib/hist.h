/* SPDX-License-Identifier: GPL-2.0 */
/* The module's log-linear latency histograms, read back (layout in uapi). */
#ifndef HVCTL_HIST_H
#define HVCTL_HIST_H

#include <stdint.h>

#include <linux/hvtrace.h>

struct hist {
	uint64_t bucket[HVTRACE_HIST_BUCKETS];
	uint64_t count;
};

uint64_t hist_lower(unsigned int i);
uint64_t hist_upper(unsigned int i);
unsigned int hist_index(uint64_t ns);
/*
 * Add N struct hvtrace_hist_bucket from B, as a netlink attribute holds
 * them: only 4-byte aligned.
 */
void hist_add_buckets(struct hist *h, const void *b, unsigned int n);
/*
 * Value of percentile P (0 < P <= 100) as the midpoint of the bucket
 * holding rank ceil(P/100 * count), clamped to [MIN, MAX] (the exact
 * extremes). 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double p, uint64_t min,
			 uint64_t max);

#endif /* HVCTL_HIST_H */
