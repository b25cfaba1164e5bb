/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock of every time hvtrace keeps: local_clock()'s nanoseconds.
 * Where local_clock() is the TSC scaled by tsc_khz (native_sched_clock()
 * on a stable TSC: most hosts), they come from one rdtsc, a multiply and
 * an add; local_clock() itself reads a per-CPU sequence latch around the
 * same arithmetic (two reads were 86 of an exit's instructions: `bench/
 * overhead --parts`). clock.c decides at load, and checks each second
 * that the two still agree; if not, local_clock() from then on.
 */
#ifndef _HVT_CLOCK_H
#define _HVT_CLOCK_H

#include <linux/jump_label.h>
#include <linux/math64.h>
#include <linux/sched/clock.h>
#include <linux/types.h>
#include <asm/msr.h>

/* ns = (tsc * mult) >> shift, plus offset: local_clock()'s, measured. */
struct hvt_tsc_scale {
	u32 mult;
	u32 shift;
	u64 offset;
};

/*
 * mul_u64_u32_shr() for a shift below 64 (clocks_calc_mult_shift()
 * gives at most 32): a mul and a shrd. The compiler's 128-bit shift by a
 * variable also handles 64 and more, three instructions a read.
 */
static __always_inline u64 hvt_mul_shr(u64 a, u32 mult, u32 shift)
{
	u64 lo, hi;

	asm ("mulq %[mult]" : "=a" (lo), "=d" (hi)
	     : "a" (a), [mult] "rm" ((u64)mult) : "cc");
	asm ("shrdq %%cl, %[hi], %[lo]" : [lo] "+r" (lo)
	     : [hi] "r" (hi), "c" (shift) : "cc");
	return lo;
}

DECLARE_STATIC_KEY_FALSE(hvt_clock_tsc);
extern struct hvt_tsc_scale hvt_tsc_scale;

static __always_inline u64 hvt_clock_of_tsc(u64 tsc)
{
	return hvt_mul_shr(tsc, hvt_tsc_scale.mult, hvt_tsc_scale.shift) +
	       hvt_tsc_scale.offset;
}

static __always_inline u64 hvt_clock(void)
{
	if (static_branch_likely(&hvt_clock_tsc))
		return hvt_clock_of_tsc(rdtsc());
	return local_clock();
}

/*
 * The clock and the TSC of one moment, *TSC: on the TSC clock both come
 * from one read; else the TSC is read first, so that whatever stalls
 * the CPU between the two reads, the TSC's moment is never after the
 * clock's (a guest's reading before it is then before both).
 */
static __always_inline u64 hvt_clock_and_tsc(u64 *tsc)
{
	*tsc = rdtsc_ordered();
	if (static_branch_likely(&hvt_clock_tsc))
		return hvt_clock_of_tsc(*tsc);
	return local_clock();
}

void hvt_clock_init(void);
void hvt_clock_exit(void);
/* "tsc" or "local_clock", for status; *SKEW_NS: at most that far apart. */
const char *hvt_clock_name(u32 *skew_ns);

#endif /* _HVT_CLOCK_H */
