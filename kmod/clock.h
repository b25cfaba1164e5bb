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

/*
 * ns = (tsc * mult) >> HVT_TSC_SHIFT, plus offset: local_clock()'s,
 * measured. clocks_calc_mult_shift() gives the shift 32 to any TSC
 * faster than 1 GHz; as a constant it saves 4 instructions a read (the
 * 128-bit shift by a variable); clock.c takes the TSC only then.
 */
#define HVT_TSC_SHIFT	32

struct hvt_tsc_scale {
	u32 mult;
	u64 offset;
};

DECLARE_STATIC_KEY_FALSE(hvt_clock_tsc);
extern struct hvt_tsc_scale hvt_tsc_scale;

static __always_inline u64 hvt_clock_of_tsc(u64 tsc)
{
	return mul_u64_u32_shr(tsc, hvt_tsc_scale.mult, HVT_TSC_SHIFT) +
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
