// SPDX-License-Identifier: GPL-2.0
/*
 * Which clock hvt_clock() reads (clock.h). local_clock() is, on a stable
 * TSC, mul_u64_u32_shr(tsc, mult, shift) + offset, with mult and shift
 * from clocks_calc_mult_shift(tsc_khz, NSEC_PER_MSEC) (tsc.c's cyc2ns)
 * and an offset we cannot read. So we measure it: local_clock() read
 * between two TSC reads bounds it from both sides,
 *
 *     l - ns(t1) <= offset <= l - ns(t0)      (t0 <= kernel's read <= t1)
 *
 * and HVT_CLOCK_SAMPLES reads, 1 ms apart and so on whatever CPUs the
 * thread ran on, must all fit one offset. They do not when local_clock()
 * is anything else (a paravirtual clock, an unstable TSC's filtered
 * clock, other factors): local_clock() then. The offset chosen is the
 * middle of what fits; we are at most half its width from local_clock().
 * Each second a work item checks that again; a kernel that changed its
 * factors (a TSC marked unstable, a frequency change, a resume) gets
 * local_clock() back, said once.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/clocksource.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/minmax.h>
#include <linux/workqueue.h>
#include <asm/tsc.h>

#include "clock.h"

#define HVT_CLOCK_SAMPLES	16
/* What a later check allows beyond the calibrated width (reads, rounding). */
#define HVT_CLOCK_SLACK_NS	1000

DEFINE_STATIC_KEY_FALSE(hvt_clock_tsc);
struct hvt_tsc_scale hvt_tsc_scale __read_mostly;
static u32 skew;

static void check_work_fn(struct work_struct *w);
/* Deferrable: an idle CPU is not woken for it. */
static DECLARE_DEFERRABLE_WORK(check_work, check_work_fn);

/* Bounds of local_clock()'s offset from one read: [*lo, *hi]. */
static void offset_bounds(u32 mult, u32 shift, s64 *lo, s64 *hi)
{
	unsigned long flags;
	u64 t0, t1, l;

	local_irq_save(flags);
	t0 = rdtsc();
	l = local_clock();
	t1 = rdtsc();
	local_irq_restore(flags);
	*lo = l - hvt_mul_shr(t1, mult, shift);
	*hi = l - hvt_mul_shr(t0, mult, shift);
}

void hvt_clock_init(void)
{
	s64 lo = S64_MIN, hi = S64_MAX, l, h;
	u32 mult, shift;
	int i;

	if (!tsc_khz || check_tsc_unstable()) {
		pr_info("clock: local_clock() (the TSC is not stable)\n");
		return;
	}
	clocks_calc_mult_shift(&mult, &shift, tsc_khz, NSEC_PER_MSEC, 0);
	if (WARN_ON_ONCE(shift >= 64))
		return;		/* hvt_mul_shr() cannot; it never does */
	for (i = 0; i < HVT_CLOCK_SAMPLES; i++) {
		if (i)
			usleep_range(1000, 1100);
		offset_bounds(mult, shift, &l, &h);
		lo = max(lo, l);
		hi = min(hi, h);
	}
	if (lo > hi) {
		pr_info("clock: local_clock() (it is not the TSC at %u kHz: off by %lld ns)\n",
			tsc_khz, lo - hi);
		return;
	}
	hvt_tsc_scale.mult = mult;
	hvt_tsc_scale.shift = shift;
	hvt_tsc_scale.offset = lo + (hi - lo) / 2;
	skew = (hi - lo + 1) / 2;
	static_branch_enable(&hvt_clock_tsc);
	schedule_delayed_work(&check_work, HZ);
	pr_info("clock: the TSC at %u kHz, within %u ns of local_clock()\n",
		tsc_khz, skew);
}

static void check_work_fn(struct work_struct *w)
{
	s64 lo, hi, off = hvt_tsc_scale.offset;

	offset_bounds(hvt_tsc_scale.mult, hvt_tsc_scale.shift, &lo, &hi);
	if (!check_tsc_unstable() && off >= lo - skew - HVT_CLOCK_SLACK_NS &&
	    off <= hi + skew + HVT_CLOCK_SLACK_NS) {
		schedule_delayed_work(&check_work, HZ);
		return;
	}
	static_branch_disable(&hvt_clock_tsc);
	pr_warn("clock: local_clock() from now on: the TSC %s\n",
		check_tsc_unstable() ? "was marked unstable" :
		"no longer scales to it");
}

void hvt_clock_exit(void)
{
	cancel_delayed_work_sync(&check_work);
}

const char *hvt_clock_name(u32 *skew_ns)
{
	if (static_branch_likely(&hvt_clock_tsc)) {
		*skew_ns = skew;
		return "tsc";
	}
	*skew_ns = 0;
	return "local_clock";
}
