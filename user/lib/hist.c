// SPDX-License-Identifier: GPL-2.0
/* Reading latency histograms: bucket bounds and percentiles. */
#include <math.h>
#include <string.h>

#include "hist.h"

#define SUB (1U << HVTRACE_HIST_SUB_BITS)

uint64_t hist_lower(unsigned int i)
{
	unsigned int octave = i >> HVTRACE_HIST_SUB_BITS;

	if (!octave)
		return i;
	return (uint64_t)(SUB + (i & (SUB - 1))) << (octave - 1);
}

uint64_t hist_upper(unsigned int i)
{
	if (i + 1 >= HVTRACE_HIST_BUCKETS)
		return UINT64_MAX;
	return hist_lower(i + 1) - 1;
}

unsigned int hist_index(uint64_t ns)
{
	unsigned int e;

	if (ns < SUB)
		return ns;
	if (ns >> HVTRACE_HIST_MAX_SHIFT)
		return HVTRACE_HIST_BUCKETS - 1;
	e = 63 - __builtin_clzll(ns);
	return ((e - HVTRACE_HIST_SUB_BITS + 1) << HVTRACE_HIST_SUB_BITS) +
	       (unsigned int)(ns >> (e - HVTRACE_HIST_SUB_BITS)) - SUB;
}

void hist_add_buckets(struct hist *h, const void *b, unsigned int n)
{
	struct hvtrace_hist_bucket one;

	for (unsigned int i = 0; i < n; i++) {
		memcpy(&one, (const char *)b + i * sizeof(one), sizeof(one));
		if (one.index >= HVTRACE_HIST_BUCKETS)
			continue;
		h->bucket[one.index] += one.count;
		h->count += one.count;
	}
}

uint64_t hist_percentile(const struct hist *h, double p, uint64_t min,
			 uint64_t max)
{
	uint64_t rank, seen = 0, lo, hi, v;
	unsigned int i;

	if (!h->count)
		return 0;
	rank = (uint64_t)ceil(p / 100.0 * (double)h->count);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HVTRACE_HIST_BUCKETS; i++) {
		seen += h->bucket[i];
		if (seen >= rank)
			break;
	}
	if (i == HVTRACE_HIST_BUCKETS)
		i--;
	lo = hist_lower(i);
	hi = i + 1 < HVTRACE_HIST_BUCKETS ? hist_upper(i) : max;
	v = lo + (hi - lo) / 2;
	if (v < min)
		v = min;
	if (v > max)
		v = max;
	return v;
}
