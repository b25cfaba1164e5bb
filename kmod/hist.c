// SPDX-License-Identifier: GPL-2.0
/* Log-linear histograms: bucket bounds, merging and percentiles. */
#include <linux/limits.h>
#include <linux/math64.h>

#include "hist.h"

u64 hvt_hist_lower(unsigned int i)
{
	unsigned int octave = i >> HVTRACE_HIST_SUB_BITS;
	unsigned int sub = i & (HVT_HIST_SUB - 1);

	if (!octave)
		return i;
	/* Octave k >= 1 covers [2^(k+4), 2^(k+5)) in 32 equal steps. */
	return (u64)(HVT_HIST_SUB + sub) << (octave - 1);
}

u64 hvt_hist_upper(unsigned int i)
{
	if (i + 1 >= HVTRACE_HIST_BUCKETS)
		return U64_MAX;
	return hvt_hist_lower(i + 1) - 1;
}

void hvt_hist_merge(struct hvt_hist *dst, const struct hvt_hist *src)
{
	unsigned int i;

	for (i = 0; i < HVTRACE_HIST_BUCKETS; i++)
		dst->bucket[i] += src->bucket[i];
}

int hvt_hist_percentile(const struct hvt_hist *h, unsigned int per_mille)
{
	u64 n = 0, rank, seen = 0;
	unsigned int i;

	for (i = 0; i < HVTRACE_HIST_BUCKETS; i++)
		n += h->bucket[i];
	if (!n || !per_mille || per_mille > 1000)
		return -1;
	/* rank = ceil(n * p / 1000), at least 1 */
	rank = div_u64(n * per_mille + 999, 1000);
	for (i = 0; i < HVTRACE_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			return i;
	}
	return HVTRACE_HIST_BUCKETS - 1;
}
