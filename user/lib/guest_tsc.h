/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A guest mark's clocks (HVTRACE_EV_MARK): the guest's TSC as KVM derives
 * it from the host's at the mark's exit,
 *
 *   guest TSC = (host_tsc * tsc_ratio >> tsc_frac_bits) + tsc_offset
 *
 * modulo 2^64, the product taken whole in 128 bits (VMX scales with 48
 * fraction bits, SVM with 32: a 64-bit product would overflow within
 * seconds of boot). The guest passed the TSC it read just before its
 * CPUID: the computed value at the exit is a little more, the exit's cost
 * in guest cycles; more than that says the mapping is off.
 */
#ifndef HVCTL_GUEST_TSC_H
#define HVCTL_GUEST_TSC_H

#include <stdint.h>

/* The guest's TSC when the host's read HOST_TSC (see above). */
uint64_t guest_tsc_at(uint64_t host_tsc, uint64_t ratio, uint64_t frac_bits,
		      uint64_t offset);

/*
 * How far the guest's own reading GUEST_TSC lies before AT (the computed
 * value at the exit), in guest cycles: signed, modulo 2^64 like the TSC.
 */
static inline int64_t guest_tsc_lag(uint64_t at, uint64_t guest_tsc)
{
	return (int64_t)(at - guest_tsc);
}

#endif /* HVCTL_GUEST_TSC_H */
