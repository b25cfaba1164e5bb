// SPDX-License-Identifier: GPL-2.0
/*
 * user/lib/guest_tsc.c: a guest mark's TSC mapping, exactly, where a
 * 64-bit product would overflow, with a scaled ratio, and where the sum
 * wraps (TSC offsets are often "negative"); the lag's sign both ways.
 */
#include "guest_tsc.h"
#include "unit.h"

#define ONE_VMX		(1ULL << 48)	/* ratio 1.0, 48 fraction bits */
#define ONE_SVM		(1ULL << 32)	/* ratio 1.0, 32 fraction bits */

static void test_unscaled(void)
{
	CHECK_U64(guest_tsc_at(0, ONE_VMX, 48, 0), 0);
	CHECK_U64(guest_tsc_at(123456789, ONE_VMX, 48, 1000), 123457789);
	/* 2^40 cycles at ratio 2^48: a product of 2^88, still exact. */
	CHECK_U64(guest_tsc_at(1ULL << 40, ONE_VMX, 48, 0), 1ULL << 40);
	CHECK_U64(guest_tsc_at(UINT64_MAX, ONE_SVM, 32, 0), UINT64_MAX);
	/* No scaling at all: ratio 1, no fraction bits. */
	CHECK_U64(guest_tsc_at(42, 1, 0, 8), 50);
}

static void test_scaled(void)
{
	/* 1.5 times: 5e12 host cycles are 7.5e12, less 7e12. */
	CHECK_U64(guest_tsc_at(5000000000000ULL, 3ULL << 47, 48,
			       -7000000000000ULL), 500000000000ULL);
	/* 0.75 (SVM): the fraction is dropped, never rounded. */
	CHECK_U64(guest_tsc_at(1001, 3ULL << 30, 32, 0), 750);
	/* A 2.6 GHz guest on a 3 GHz host, 48 bits: 1e12 host cycles. */
	CHECK_U64(guest_tsc_at(1000000000000ULL,
			       (uint64_t)(((unsigned __int128)26 << 48) / 30),
			       48, 0), 866666666666ULL);
}

static void test_wrap(void)
{
	/* The sum wraps modulo 2^64, as the TSC does. */
	CHECK_U64(guest_tsc_at(10, ONE_VMX, 48, UINT64_MAX), 9);
	CHECK_U64(guest_tsc_at(UINT64_MAX, ONE_VMX, 48, 2), 1);
	/* A scaled product past 2^64 after the shift: its low 64 bits. */
	CHECK_U64(guest_tsc_at(UINT64_MAX, 2 * ONE_SVM, 32, 0),
		  UINT64_MAX - 1);
}

static void test_lag(void)
{
	CHECK_INT(guest_tsc_lag(1000, 900), 100);
	CHECK_INT(guest_tsc_lag(900, 1000), -100);
	/* Across the wrap: 5 after 2^64 - 5 is 10 later. */
	CHECK_INT(guest_tsc_lag(5, UINT64_MAX - 4), 10);
}

int main(void)
{
	test_unscaled();
	test_scaled();
	test_wrap();
	test_lag();
	return unit_report();
}
