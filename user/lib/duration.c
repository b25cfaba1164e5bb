// SPDX-License-Identifier: GPL-2.0
/*
 * Durations as integers of nanoseconds.  No floating point anywhere: a
 * threshold of "1.1ms" must be exactly 1100000, never 1099999.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "duration.h"
#include "put.h"
#include "util.h"

struct unit {
	const char *name;
	uint64_t ns;		/* nanoseconds in one unit */
	unsigned int digits;	/* decimals down to 1ns: log10(ns) */
};

static const struct unit units[] = {
	{ "ns", 1, 0 },
	{ "us", 1000, 3 },
	{ "ms", 1000000, 6 },
	{ "s", 1000000000, 9 },
};

#define N_UNITS ARRAY_SIZE(units)

/* Messages quote the input; long inputs are cut to keep them readable. */
static _Thread_local char errbuf[160];

__attribute__((format(printf, 2, 3)))
static int fail(const char **err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	va_end(ap);
	if (err)
		*err = errbuf;
	return -1;
}

static const struct unit *find_unit(const char *s)
{
	size_t i;

	for (i = 0; i < N_UNITS; i++)
		if (!strcmp(s, units[i].name))
			return &units[i];
	return NULL;
}

/* Accumulate decimal digits into *V; false on overflow. */
static bool add_digit(uint64_t *v, char c)
{
	unsigned int d = c - '0';

	if (*v > (UINT64_MAX - d) / 10)
		return false;
	*v = *v * 10 + d;
	return true;
}

/* The parts of "<int>[.<frac>]<unit>", not yet checked for range. */
struct number {
	const char *int_start, *frac_start, *unit;
	size_t int_len, frac_len;
};

static void split(const char *s, struct number *n)
{
	memset(n, 0, sizeof(*n));
	n->int_start = s;
	while (isdigit((unsigned char)*s))
		s++;
	n->int_len = s - n->int_start;
	if (*s == '.') {
		n->frac_start = ++s;
		while (isdigit((unsigned char)*s))
			s++;
		n->frac_len = s - n->frac_start;
	}
	n->unit = s;
}

/*
 * The fraction in nanoseconds: "5" of "1.5ms" is 500000.  Digits below
 * 1ns must be zeros.
 */
static bool fraction_ns(const struct number *n, const struct unit *u,
			uint64_t *frac)
{
	uint64_t v = 0;
	size_t i;

	for (i = 0; i < n->frac_len; i++) {
		if (i < u->digits)
			add_digit(&v, n->frac_start[i]);	/* < 10^9 */
		else if (n->frac_start[i] != '0')
			return false;
	}
	for (; i < u->digits; i++)
		v *= 10;
	*frac = v;
	return true;
}

int duration_parse(const char *s, uint64_t *ns, const char **err)
{
	const struct unit *u;
	struct number n;
	uint64_t whole = 0, frac;
	size_t i;

	if (!s || !*s)
		return fail(err, "empty duration (e.g. 50us, 1.5ms, 2s)");
	if (*s == '-')
		return fail(err, "negative duration '%.40s'", s);
	split(s, &n);
	if (!n.int_len || (n.frac_start && !n.frac_len))
		return fail(err, "bad duration '%.40s' (e.g. 50us, 1.5ms, 2s)",
			    s);
	if (!*n.unit) {
		for (i = 0; i < n.int_len + n.frac_len + !!n.frac_start; i++)
			if (s[i] != '0' && s[i] != '.')
				return fail(err,
					    "missing unit in '%.40s' (use ns, us, ms or s)",
					    s);
		*ns = 0;	/* "0" needs no unit */
		return 0;
	}
	u = find_unit(n.unit);
	if (!u)
		return fail(err, "unknown unit '%.16s' in '%.40s' (use ns, us, ms or s)",
			    n.unit, s);

	for (i = 0; i < n.int_len; i++)
		if (!add_digit(&whole, n.int_start[i]))
			return fail(err, "duration '%.40s' is too long", s);
	if (!fraction_ns(&n, u, &frac))
		return fail(err, "'%.40s' is finer than 1ns", s);
	if (whole > (UINT64_MAX - frac) / u->ns)
		return fail(err, "duration '%.40s' is too long", s);
	*ns = whole * u->ns + frac;
	return 0;
}

char *duration_put(char *p, uint64_t ns)
{
	/* decimals shown per unit, and 10^decimals */
	static const unsigned int decimals[] = { 0, 1, 2, 3 };
	static const uint64_t scale[] = { 1, 10, 100, 1000 };
	size_t i = 0;
	uint64_t step, q, r;

	/* Largest unit whose value is >= 1; the s unit takes everything. */
	while (i + 1 < N_UNITS && ns >= units[i + 1].ns)
		i++;
	for (;;) {
		step = units[i].ns / scale[i];	/* what the last digit is */
		q = ns / step;
		r = ns % step;
		if (step > 1 && r >= step - r)	/* half up, no overflow */
			q++;
		/* 999.96us rounds to 1000.0us: say 1.00ms instead */
		if (i + 1 < N_UNITS && q >= 1000 * scale[i]) {
			i++;
			continue;
		}
		break;
	}
	p = put_u64(p, q / scale[i]);
	if (decimals[i]) {
		*p++ = '.';
		p = put_digits(p, q % scale[i], decimals[i]);
	}
	return put_str(p, units[i].name);
}

int duration_format(char *buf, size_t len, uint64_t ns)
{
	char tmp[DURATION_MAX + PUT_SLACK];
	size_t n = duration_put(tmp, ns) - tmp;

	if (len) {
		size_t c = n < len ? n : len - 1;

		memcpy(buf, tmp, c);
		buf[c] = '\0';
	}
	return n;
}

int duration_exact(char *buf, size_t len, uint64_t ns)
{
	static const struct { uint64_t ns; const char *unit; } units[] = {
		{ 1000000000ULL, "s" }, { 1000000, "ms" }, { 1000, "us" },
	};

	for (size_t i = 0; ns && i < ARRAY_SIZE(units); i++)
		if (ns % units[i].ns == 0)
			return snprintf(buf, len, "%" PRIu64 "%s",
					ns / units[i].ns, units[i].unit);
	return snprintf(buf, len, "%" PRIu64 "ns", ns);
}
