// SPDX-License-Identifier: GPL-2.0
/* The guest TSC of a mark (guest_tsc.h). */
#include "guest_tsc.h"

uint64_t guest_tsc_at(uint64_t host_tsc, uint64_t ratio, uint64_t frac_bits,
		      uint64_t offset)
{
	unsigned __int128 scaled = (unsigned __int128)host_tsc * ratio;

	/* A shift by the width or more is undefined: no record has one. */
	if (frac_bits >= 128)
		return offset;
	return (uint64_t)(scaled >> frac_bits) + offset;
}
