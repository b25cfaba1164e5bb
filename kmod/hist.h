/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear latency histograms (layout in uapi hvtrace.h). The index is
 * computed on every exit, so it is a couple of shifts and an fls.
 */
#ifndef _HVT_HIST_H
#define _HVT_HIST_H

#include <linux/bitops.h>
#include <linux/log2.h>
#include <linux/types.h>
#include <uapi/linux/hvtrace.h>

#define HVT_HIST_SUB		BIT(HVTRACE_HIST_SUB_BITS)

struct hvt_hist {
	u64 bucket[HVTRACE_HIST_BUCKETS];
};

static inline unsigned int hvt_hist_index(u64 ns)
{
	unsigned int e;

	if (ns < HVT_HIST_SUB)
		return ns;
	if (ns >> HVTRACE_HIST_MAX_SHIFT)
		return HVTRACE_HIST_BUCKETS - 1;
	e = ilog2(ns);
	return ((e - HVTRACE_HIST_SUB_BITS + 1) << HVTRACE_HIST_SUB_BITS) +
	       (unsigned int)(ns >> (e - HVTRACE_HIST_SUB_BITS)) - HVT_HIST_SUB;
}

/* Smallest value that lands in bucket I. */
u64 hvt_hist_lower(unsigned int i);
/* Largest value that lands in bucket I (the last bucket is open). */
u64 hvt_hist_upper(unsigned int i);
/* Add every bucket of SRC to DST. */
void hvt_hist_merge(struct hvt_hist *dst, const struct hvt_hist *src);
/*
 * The bucket holding the value of rank ceil(P/1000 * N) (P in per mille,
 * 1..1000) of the N values in H, or -1 when H is empty.
 */
int hvt_hist_percentile(const struct hvt_hist *h, unsigned int per_mille);

#endif /* _HVT_HIST_H */
