// SPDX-License-Identifier: GPL-2.0
/* user/lib/duration.c: exact parsing, clear errors, stable formatting. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "put.h"
#include "unit.h"
#include "util.h"

static void check_ok(int line, const char *s, uint64_t want)
{
	const char *err = NULL;
	uint64_t ns = 12345;
	int rc = duration_parse(s, &ns, &err);

	if (!unit_check(rc == 0, __FILE__, line, "parse '%s' failed: %s", s,
			err ? err : "(no message)"))
		return;
	unit_check(ns == want, __FILE__, line,
		   "parse '%s': %" PRIu64 ", want %" PRIu64, s, ns, want);
}

/* Must fail, with a message that contains WANT_IN_MSG. */
static void check_bad(int line, const char *s, const char *want_in_msg)
{
	const char *err = NULL;
	uint64_t ns = 0;
	int rc = duration_parse(s, &ns, &err);

	if (!unit_check(rc == -1, __FILE__, line,
			"parse '%s' accepted as %" PRIu64, s ? s : "(null)",
			ns))
		return;
	if (!unit_check(err != NULL, __FILE__, line, "no message for '%s'", s))
		return;
	unit_check(strstr(err, want_in_msg) != NULL, __FILE__, line,
		   "message for '%s' is \"%s\", want \"%s\" in it",
		   s ? s : "(null)", err, want_in_msg);
}

#define OK(s, v)	check_ok(__LINE__, s, v)
#define BAD(s, m)	check_bad(__LINE__, s, m)

static void test_parse_good(void)
{
	OK("0", 0);
	OK("00", 0);
	OK("0.0", 0);
	OK("0ns", 0);
	OK("0s", 0);
	OK("1ns", 1);
	OK("200ns", 200);
	OK("50us", 50000);
	OK("0.5us", 500);
	OK("1.5ms", 1500000);
	OK("1.1ms", 1100000);		/* binary floating point gets this wrong */
	OK("0.3s", 300000000);
	OK("2s", 2000000000);
	OK("007us", 7000);
	OK("1.000ns", 1);		/* zeros below 1ns are harmless */
	OK("1.001us", 1001);
	OK("1.000001ms", 1000001);
	OK("0.000000001s", 1);
	OK("1.999999999s", 1999999999);
	OK("2.5000000000s", 2500000000ull);
	OK("3600s", 3600000000000ull);
	/* the boundary: UINT64_MAX ns in each unit */
	OK("18446744073709551615ns", UINT64_MAX);
	OK("18446744073709551.615us", UINT64_MAX);
	OK("18446744073709.551615ms", UINT64_MAX);
	OK("18446744073.709551615s", UINT64_MAX);
	OK("18446744073709551us", 18446744073709551000ull);
	OK("18446744073s", 18446744073000000000ull);
}

static void test_parse_bad(void)
{
	BAD("50", "missing unit in '50' (use ns, us, ms or s)");
	BAD("1.5", "missing unit in '1.5'");
	BAD("0.5", "missing unit");
	BAD("", "empty");
	BAD(NULL, "empty");
	BAD("-5us", "negative duration '-5us'");
	BAD("-0", "negative");
	BAD("+5us", "bad duration '+5us'");
	BAD("us", "bad duration");
	BAD("abc", "bad duration");
	BAD(".5ms", "bad duration");
	BAD("5.ms", "bad duration");
	BAD(" 5us", "bad duration");
	BAD("5 us", "unknown unit ' us'");
	BAD("5us ", "unknown unit 'us '");
	BAD("5m", "unknown unit 'm' in '5m' (use ns, us, ms or s)");
	BAD("5min", "unknown unit 'min'");
	BAD("5MS", "unknown unit 'MS'");
	BAD("5sec", "unknown unit 'sec'");
	BAD("1.2.3ms", "unknown unit '.3ms'");
	BAD("5usx", "unknown unit 'usx'");
	BAD("1.5ns", "'1.5ns' is finer than 1ns");
	BAD("1.0001us", "finer than 1ns");
	BAD("0.0000000001s", "finer than 1ns");
	BAD("0.0000005ms", "finer than 1ns");
	BAD("18446744073709551616ns", "too long");
	BAD("18446744073709551.616us", "too long");
	BAD("18446744073.709551616s", "too long");
	BAD("18446744074s", "too long");
	BAD("99999999999999999999999ns", "too long");
	/* long input is cut in the message, not overflowing it */
	BAD("1111111111111111111111111111111111111111111111111111111111111x",
	    "unknown unit 'x'");
}

static void test_parse_err_optional(void)
{
	uint64_t ns;

	/* err may be NULL when the caller only wants success or failure */
	CHECK_INT(duration_parse("bad", &ns, NULL), -1);
	CHECK_INT(duration_parse("5us", &ns, NULL), 0);
	CHECK_U64(ns, 5000);
}

static void check_fmt(int line, uint64_t ns, const char *want)
{
	char buf[64];
	int n = duration_format(buf, sizeof(buf), ns);

	unit_check(!strcmp(buf, want), __FILE__, line,
		   "format %" PRIu64 ": \"%s\", want \"%s\"", ns, buf, want);
	unit_check(n == (int)strlen(want), __FILE__, line,
		   "format %" PRIu64 " returned %d", ns, n);
}

#define FMT(ns, want)	check_fmt(__LINE__, ns, want)

static void test_format(void)
{
	char buf[4];

	FMT(0, "0ns");
	FMT(1, "1ns");
	FMT(85, "85ns");
	FMT(999, "999ns");
	FMT(1000, "1.0us");
	FMT(1049, "1.0us");
	FMT(1050, "1.1us");		/* half rounds up */
	FMT(312400, "312.4us");
	FMT(312449, "312.4us");
	FMT(312450, "312.5us");
	FMT(999949, "999.9us");
	FMT(999950, "1.00ms");		/* rounding carries into ms */
	FMT(1000000, "1.00ms");
	FMT(1500000, "1.50ms");
	FMT(1004999, "1.00ms");
	FMT(1005000, "1.01ms");
	FMT(999994999, "999.99ms");
	FMT(999995000, "1.000s");
	FMT(1000000000, "1.000s");
	FMT(2000000000, "2.000s");
	FMT(59999999999ull, "60.000s");
	FMT(3600000000000ull, "3600.000s");
	FMT(UINT64_MAX, "18446744073.710s");

	/* snprintf semantics */
	CHECK_INT(duration_format(buf, sizeof(buf), 312400), 7);
	CHECK_STR(buf, "312");
	CHECK_INT(duration_format(NULL, 0, 1500000), 6);
}

/*
 * duration_format() as it was written with snprintf, before it became
 * duration_put() (no snprintf, dump's text lines): the reference the
 * new one must equal.
 */
static int ref_format(char *buf, size_t len, uint64_t ns)
{
	static const uint64_t unit_ns[] = { 1, 1000, 1000000, 1000000000 };
	static const uint64_t scale[] = { 1, 10, 100, 1000 };
	static const char *const name[] = { "ns", "us", "ms", "s" };
	unsigned int i = 0;
	uint64_t step, q, r;

	while (i < 3 && ns >= unit_ns[i + 1])
		i++;
	for (;;) {
		step = unit_ns[i] / scale[i];
		q = ns / step;
		r = ns % step;
		if (step > 1 && r >= step - r)
			q++;
		if (i < 3 && q >= 1000 * scale[i]) {
			i++;
			continue;
		}
		break;
	}
	if (!i)
		return snprintf(buf, len, "%llu%s", (unsigned long long)q,
				name[i]);
	return snprintf(buf, len, "%llu.%0*llu%s",
			(unsigned long long)(q / scale[i]), (int)i,
			(unsigned long long)(q % scale[i]), name[i]);
}

/* One value: duration_format() and duration_put() against the reference. */
static bool same_as_ref(uint64_t ns, char *got, char *want)
{
	char put[DURATION_MAX + PUT_SLACK];
	int n = duration_format(got, 64, ns), w = ref_format(want, 64, ns);
	size_t pn = duration_put(put, ns) - put;

	return n == w && !strcmp(got, want) && pn == (size_t)w &&
	       !memcmp(put, want, pn) && w <= DURATION_MAX;
}

/*
 * Every power of 10 and its neighbours, the rounding edges of each unit
 * (x.x5 and x.x4999...), UINT64_MAX, and a million values spread over
 * all magnitudes: the same text as the reference.
 */
static void test_format_wide(void)
{
	static const uint64_t edge[] = { 50, 500, 5000, 5000000 };
	char got[64] = "", want[64] = "";
	uint64_t bad = 0, n = 0, x = 0x9e3779b97f4a7c15ull, v;
	bool ok = true;

	for (uint64_t p = 1; ok; p *= 10) {
		for (int d = -2; d <= 2 && ok; d++) {
			v = p + d;
			n++;
			if (!same_as_ref(v, got, want))
				ok = false, bad = v;
		}
		for (size_t e = 0; e < ARRAY_SIZE(edge) && ok && p >= 10; e++)
			for (int d = -1; d <= 1 && ok; d++) {
				v = p - edge[e] + d;
				n++;
				if (v < p && !same_as_ref(v, got, want))
					ok = false, bad = v;
			}
		if (p > UINT64_MAX / 10)
			break;
	}
	for (uint64_t d = 0; d < 1000 && ok; d++) {
		n++;
		if (!same_as_ref(UINT64_MAX - d, got, want))
			ok = false, bad = UINT64_MAX - d;
	}
	for (int i = 0; i < 1000000 && ok; i++) {
		/* xorshift; shifted right by 0-63 bits: every magnitude */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = x >> (x % 64);
		n++;
		if (!same_as_ref(v, got, want))
			ok = false, bad = v;
	}
	CHECK_MSG(ok, "%" PRIu64 ": \"%s\", the reference \"%s\"", bad, got,
		  want);
	CHECK_MSG(n > 1000000, "%" PRIu64 " values compared", n);
}

/* What format prints at full precision parses back to the same value. */
static void test_round_trip(void)
{
	static const uint64_t v[] = {
		0, 1, 85, 999, 1000, 312400, 999900, 1500000, 999990000,
		2000000000, 18446744073000000000ull,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(v); i++) {
		char buf[64];
		uint64_t ns = 1;

		duration_format(buf, sizeof(buf), v[i]);
		CHECK_MSG(duration_parse(buf, &ns, NULL) == 0 && ns == v[i],
			  "%" PRIu64 " -> \"%s\" -> %" PRIu64, v[i], buf, ns);
	}
}

/* Limits in messages: exact, and what they say parses back to them. */
static void test_exact(void)
{
	static const struct { uint64_t ns; const char *s; } t[] = {
		{ 0, "0ns" }, { 1, "1ns" }, { 999, "999ns" }, { 1000, "1us" },
		{ 1500000, "1500us" }, { 10000000, "10ms" }, { 3000000001ull,
		"3000000001ns" }, { 3600000000000ull, "3600s" },
		{ 18446744073709551615ull, "18446744073709551615ns" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char buf[32];
		uint64_t ns = 1;

		duration_exact(buf, sizeof(buf), t[i].ns);
		CHECK_STR(buf, t[i].s);
		CHECK_MSG(duration_parse(buf, &ns, NULL) == 0 && ns == t[i].ns,
			  "\"%s\" -> %" PRIu64, buf, ns);
	}
}

int main(void)
{
	test_parse_good();
	test_parse_bad();
	test_parse_err_optional();
	test_format();
	test_format_wide();
	test_round_trip();
	test_exact();
	return unit_report();
}
